"""Our nested search beside a plain-C reference of the same algorithm, on the left move problem.

Builds ``benchmarks/c/nested_leftmove.c`` with the system C compiler (``cc -O2 -march=native``,
the flags a C programmer would use on this machine; numba also compiles for the host CPU), then
for each configuration runs rounds of the same seeded searches in both, one after the other
(interleaved, so that both see the same machine state), on one core. It first checks that the
two return the same scores and playout counts, search for search: the reference is the same
algorithm, not just a similar one. Speed is per-search seconds as each side measures it around
the search itself (no start-up, no Python), compared by the median of each round.

    python benchmarks/bench_vs_c.py                      # depth 60, levels 2-3, 5 rounds
    python benchmarks/bench_vs_c.py --rounds 9 --json outputs/bench_vs_c.json
    taskset -c 0 python benchmarks/bench_vs_c.py         # pin both sides to one core

The ratio printed is C seconds / our seconds: above 1 means we are faster.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from nmcs.games.leftmove import make_state  # noqa: E402
from nmcs.harness.batch import search_batch, search_seeds  # noqa: E402
from nmcs.harness.provenance import cpu_model, versions  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "c" / "nested_leftmove.c"
CFLAGS = ["-O2", "-march=native"]
# (label, depth, level, memorize_from; 0 = no memorization, searches per round)
CONFIGS = [
    ("level 3, memorized", 60, 3, 1, 200),
    ("level 3, not memorized", 60, 3, 0, 200),
    ("level 2, memorized", 60, 2, 1, 5000),
]


def build_reference(folder: Path) -> Path:
    """Compile the C reference into ``folder``; exits with one line if there is no compiler."""
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None:
        sys.exit(f"bench_vs_c: no C compiler '{cc}' on PATH (set CC to one)")
    exe = folder / "nested_leftmove"
    subprocess.run([cc, *CFLAGS, "-o", str(exe), str(SOURCE)], check=True)
    return exe


def run_reference(exe: Path, depth: int, level: int, memorize_from: int, seeds: np.ndarray):
    """(score, playouts, playout_moves, seconds) arrays of the C searches of ``seeds``."""
    text = "\n".join(str(int(s)) for s in seeds)
    out = subprocess.run(
        [str(exe), str(depth), str(level), str(memorize_from)],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = np.array([line.split() for line in out.splitlines()], dtype=np.float64)
    return rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]


def run_ours(depth: int, level: int, memorize_from: int, seeds: np.ndarray):
    res = search_batch(
        "leftmove",
        make_state(depth),
        seeds,
        level=level,
        memorize=memorize_from > 0,
        memorize_from=max(memorize_from, 1),
        workers=1,
    )
    return res.score, res.playouts, res.playout_moves, res.seconds


def compare(exe: Path, label, depth, level, memorize_from, n, rounds):
    """Interleaved rounds of one configuration: per-round medians of both sides."""
    run_ours(depth, level, memorize_from, search_seeds(0, 0, 2))  # compile or load
    ours_ms, c_ms = [], []
    for r in range(rounds):
        seeds = search_seeds(1000 + r, 0, n)
        results = {}
        # Alternate which side goes first, so that neither always runs on a warmer core.
        for side in ("ours", "c") if r % 2 == 0 else ("c", "ours"):
            if side == "ours":
                results[side] = run_ours(depth, level, memorize_from, seeds)
            else:
                results[side] = run_reference(exe, depth, level, memorize_from, seeds)
        for k, what in enumerate(("score", "playouts", "playout moves")):
            if not np.array_equal(results["ours"][k], results["c"][k]):
                sys.exit(f"bench_vs_c: {label}: the C reference's {what} differ from ours")
        ours_ms.append(1e3 * float(np.median(results["ours"][3])))
        c_ms.append(1e3 * float(np.median(results["c"][3])))
    ratios = [c / o for c, o in zip(c_ms, ours_ms, strict=True)]
    return {
        "config": label,
        "depth": depth,
        "level": level,
        "memorize_from": memorize_from,
        "searches_per_round": n,
        "rounds": rounds,
        "ours_ms": ours_ms,
        "c_ms": c_ms,
        "ratio_c_over_ours": ratios,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds per config")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply searches per round")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args()
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    print(
        f"left move vs plain C ({' '.join(CFLAGS)}); CPU {cpu_model()}; "
        f"numba {versions()['numba']}; one core; {args.rounds} interleaved rounds"
    )
    print(
        f"{'configuration':<26} {'ours ms/search':>16} {'C ms/search':>14} "
        f"{'C / ours (median, range)':>26}"
    )
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        exe = build_reference(Path(tmp))
        for label, depth, level, memorize_from, n in CONFIGS:
            n = max(2, int(n * args.scale))
            row = compare(exe, label, depth, level, memorize_from, n, args.rounds)
            rows.append(row)
            ratios = row["ratio_c_over_ours"]
            print(
                f"{label:<26} {np.median(row['ours_ms']):>16.4f} {np.median(row['c_ms']):>14.4f} "
                f"{np.median(ratios):>10.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"
            )
    print("identical scores and playout counts in every round, search for search")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {"cpu": cpu_model(), "versions": versions(), "started": started, "rows": rows},
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
