"""Time of every experiment at quick scale, start to exit, with a warm numba cache.

    python benchmarks/bench_quick.py [--experiments mcbs_table1,sudoku_table2] [--no-warmup]
                                     [--json PATH]

Each experiment runs as ``python run.py -m experiment=E scale=quick`` with its own output folder
(``hydra.sweep.dir``) under a temporary folder deleted afterwards, so no cell is found already
done. First a warm-up pass runs every experiment once into a throwaway folder (it compiles what
the experiment needs into the usual cache, ``.numba_cache``); then the timed pass runs each again
into a fresh folder. Columns: wall seconds and CPU seconds (user + sys of the process and its
children) of the timed pass. The experiments use every core (``workers: 0``), as a user's run
does. The README's claim "every quick experiment under a minute on 2 cores with a warm cache"
is this script's output.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIMIT_S = 60.0


def experiments() -> list[str]:
    """Every experiment of ``conf/experiment``, sorted by name."""
    return sorted(p.stem for p in (REPO / "conf" / "experiment").glob("*.yaml"))


def run_experiment(name: str, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one quick run of ``name`` into ``out``; exits on failure."""
    command = [
        sys.executable,
        "run.py",
        "-m",
        f"experiment={name}",
        "scale=quick",
        "progress=false",
        f"hydra.sweep.dir={out}",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        sys.exit(f"bench_quick: experiment={name} failed: {' | '.join(tail)}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--experiments", help="comma-separated names (default: all)")
    parser.add_argument("--no-warmup", action="store_true", help="skip the warm-up pass")
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()
    names = args.experiments.split(",") if args.experiments else experiments()
    unknown = sorted(set(names) - set(experiments()))
    if unknown:
        sys.exit(f"bench_quick: unknown experiment(s) {unknown}; allowed: {experiments()}")
    rows = []
    with tempfile.TemporaryDirectory(prefix="nmcs_quick_") as tmp:
        if not args.no_warmup:
            for name in names:
                wall, _ = run_experiment(name, Path(tmp) / "warmup" / name)
                print(f"warm-up {name}: {wall:.1f} s", file=sys.stderr, flush=True)
        print("| experiment | wall s | CPU s |")
        print("|---|---|---|")
        for name in names:
            wall, cpu = run_experiment(name, Path(tmp) / "timed" / name)
            rows.append({"experiment": name, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2)})
            flag = " (over a minute)" if wall > LIMIT_S else ""
            print(f"| `{name}` | {wall:.1f}{flag} | {cpu:.1f} |", flush=True)
    slowest = max(rows, key=lambda row: row["wall_s"])
    print(
        f"\nlongest: {slowest['experiment']} {slowest['wall_s']:.1f} s; "
        f"{sum(row['wall_s'] > LIMIT_S for row in rows)} of {len(rows)} over {LIMIT_S:.0f} s"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
