"""Start-up cost of every (game, algorithm) pair: the first ``run.py`` of the pair on a clean
numba cache (compilation included), then the same command in a second process (loaded from
the cache).

    python benchmarks/bench_compile.py [--pairs morpion:uct,samegame:nested:2] [--repo DIR]
                                       [--json PATH] [--no-cached]
    python benchmarks/bench_compile.py --ref COMMIT --pairs morpion:beam:2 [--rounds N]

Each pair runs ``python run.py game=G algo=A level=L n_searches=2 workers=1 progress=false`` (plus
``budget.playouts=100``, or 1,000 nodes for forward checking, for the algorithms that need a
budget, ``algo.games=[100]`` for reflexive search, and a random 8x8 board for SameGame at level 2,
whose two searches on a 15x15 board took 12 of the run's 14 s once compiled) in a fresh subprocess
with a fresh ``NMCS_CACHE_ROOT`` and its own output folder, all under a temporary folder deleted
afterwards. Columns: wall seconds from start to exit and CPU seconds (user + sys of the process and
its children), first run and cached run; the JSON rows also keep the first run's ``compiling ...``
line. On a shared machine wall time includes waiting for the CPU, so CPU time is the figure to
compare; run it pinned to one core (``taskset -c 1``) to measure the single-core case. ``--repo``
times another checkout (e.g. the code before a change) with the same commands. ``--ref COMMIT``
checks the commit out into a temporary worktree and times first runs of each pair there and in
the work tree, interleaved (ref, work, work, ref per round): the way to back a claim that a change
shortens or keeps a first compile, on a machine whose speed drifts with the hour.

Without ``--pairs``: level 1 of every pair that the registries accept (every algorithm on
every built-in one-player game it takes), then level 2 of the
level-structured algorithms on the games the issue measured (NRPA and beam search included),
and two level-0 entries. Takes several minutes.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ref_worktree import ref_worktree  # benchmarks/ is on sys.path

REPO = Path(__file__).resolve().parent.parent
# Extra keys of the algorithms that need them at level 1: a budget (forward checking counts
# nodes), reflexive's games per level.
EXTRA = {
    "uct": ["budget.playouts=100"],
    "iterative": ["budget.playouts=100"],
    "iterative_beam": ["budget.playouts=100"],
    "fc": ["budget.playouts=1000"],
    "reflexive": ["algo.games=[100]"],
}
EXTRA_PAIRS = [
    "leftmove:nested:2",
    "samegame:nested:2",
    "morpion:nested:2",
    "morpion:beam:2",
    "leftmove:beam:2",
    "morpion:nrpa:2",
    "samegame:nrpa:2",
    "samegame:nested:0",
    "morpion:nrpa:0",
]
# Extra game options by (game, level), see the docstring; the board is an argument of the same
# entry point, so the compile timed is the same.
EXTRA_GAME = {
    ("samegame", "2"): ["game.instance=null", "game.width=8", "game.height=8"],
}


def default_pairs() -> list[str]:
    sys.path.insert(0, str(REPO))
    from nmcs.games import registry as games
    from nmcs.search import registry as algos

    pairs = []
    # The one-player games (the two-player ones register too, but run matches, not searches).
    one_player = [g for g in games.names() if games.game(g).cells == "searches"]
    for algo in algos.names():
        record = algos.algorithm(algo)
        for game in one_player:
            if record.games is None or game in record.games:
                pairs.append(f"{game}:{algo}:1")
    return pairs + EXTRA_PAIRS


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, its stderr) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return wall, cpu, proc.stderr


def parse_pairs(text: str) -> list[str]:
    """The pairs of ``--pairs``, each checked to be game:algo or game:algo:level."""
    pairs = text.split(",")
    for pair in pairs:
        fields = pair.split(":")
        if len(fields) not in (2, 3) or not all(fields):
            sys.exit(f"bench_compile: pair '{pair}' is not game:algo or game:algo:level")
        if len(fields) == 3 and not fields[2].isdigit():
            sys.exit(f"bench_compile: the level of pair '{pair}' is not an integer >= 0")
    return pairs


def bench_pair(pair: str, repo: Path, cached: bool) -> dict:
    game, algo, level = (pair.split(":") + ["1"])[:3]
    with tempfile.TemporaryDirectory(prefix="nmcs_bench_compile_") as tmp:
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "PYTHONPATH")}
        env["NMCS_CACHE_ROOT"] = str(Path(tmp) / "cache")
        args = [
            f"game={game}",
            f"algo={algo}",
            f"level={level}",
            "n_searches=2",
            "workers=1",
            "progress=false",
        ]
        if algo == "reflexive" and level != "1":
            args.append(f"algo.games=[{','.join(['10'] * int(level))}]")
        else:
            args += EXTRA.get(algo, [])
        args += EXTRA_GAME.get((game, level), [])
        row = {"game": game, "algo": algo, "level": int(level)}
        runs = ["first", "cached"] if cached else ["first"]
        for i, name in enumerate(runs):
            cmd = [
                sys.executable,
                "run.py",
                *args,
                f"seed={i}",
                f"hydra.run.dir={Path(tmp) / f'out{i}' / 'cell'}",
            ]
            wall, cpu, stderr = timed(cmd, env, repo)
            row[f"{name}_wall"] = round(wall, 2)
            row[f"{name}_cpu"] = round(cpu, 2)
            if name == "first":
                row["message"] = next(
                    (line for line in stderr.splitlines() if line.startswith("compiling")), ""
                )
    return row


def compare_with(ref: str, pairs: list[str], rounds: int, json_path: Path | None) -> None:
    """First runs of each pair at commit ``ref`` and in this work tree, interleaved.

    Each round runs ref, work, work, ref (so a drift of the machine's speed within a round
    falls on both sides alike); the ratio is ref / work of the mean first-run CPU seconds
    (above 1: the work tree starts faster)."""
    rows = []
    with ref_worktree(ref, "bench_compile") as (ref, ref_tree, _scratch):
        trees = {"ref": ref_tree, "work": REPO}
        print(f"first runs, CPU s: {ref} (ref) against the work tree; {rounds} rounds of")
        print("ref work work ref per pair\n")
        print("| pair | ref | work | ref / work |")
        print("|---|---|---|---|")
        for pair in pairs:
            cpu: dict[str, list[float]] = {"ref": [], "work": []}
            for _ in range(rounds):
                for side in ("ref", "work", "work", "ref"):
                    cpu[side].append(bench_pair(pair, trees[side], False)["first_cpu"])
            ratio = (sum(cpu["ref"]) / len(cpu["ref"])) / (sum(cpu["work"]) / len(cpu["work"]))
            print(
                f"| {pair} | {', '.join(f'{x:.1f}' for x in cpu['ref'])} | "
                f"{', '.join(f'{x:.1f}' for x in cpu['work'])} | {ratio:.3f} |",
                flush=True,
            )
            rows.append({"pair": pair, "ref": ref, **cpu, "ratio": ratio})
            if json_path:
                json_path.write_text(json.dumps(rows, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", default=None, help="game:algo[:level],... (default: all)")
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout whose run.py to time")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    parser.add_argument("--no-cached", action="store_true", help="skip the cached run")
    parser.add_argument(
        "--ref", help="compare first runs with this commit (interleaved; needs --pairs)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="with --ref: rounds per pair")
    args = parser.parse_args()
    if args.ref is not None:
        if not args.pairs:
            sys.exit("bench_compile: --ref needs --pairs (every pair would take about an hour)")
        if args.rounds < 1:
            sys.exit(f"bench_compile: --rounds must be 1 or more, not {args.rounds}")
        compare_with(args.ref, parse_pairs(args.pairs), args.rounds, args.json)
        return
    pairs = parse_pairs(args.pairs) if args.pairs else default_pairs()
    rows = []
    print("| game | algo | level | first run: CPU s (wall s) | cached: CPU s (wall s) |")
    print("|---|---|---|---|---|")
    for pair in pairs:
        row = bench_pair(pair, args.repo.resolve(), not args.no_cached)
        rows.append(row)
        cached = (
            f"{row['cached_cpu']:.1f} ({row['cached_wall']:.1f})" if "cached_cpu" in row else "-"
        )
        print(
            f"| {row['game']} | {row['algo']} | {row['level']} | "
            f"{row['first_cpu']:.1f} ({row['first_wall']:.1f}) | {cached} |",
            flush=True,
        )
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
