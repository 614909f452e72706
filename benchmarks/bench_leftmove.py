"""Speed of the shared NMCS engine on the depth-60 left move problem.

Prints searches/s, playouts/s and ms per search for levels 1-3 with and without memorization,
on one core and on all cores, and how long a new process takes to start searching when the
compiled code is cached on disk.

    python benchmarks/bench_leftmove.py [--seconds 2] [--json results.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numba

from nmcs.games.leftmove import make_state
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.provenance import cpu_model, versions

DEPTH = 60


def measure(level, memorize, workers, seconds):
    """Searches/s over at least ``seconds`` of work (after a warm-up batch)."""
    state = make_state(DEPTH)
    search_batch(
        "leftmove",
        state,
        search_seeds(0, 0, workers),
        level=level,
        memorize=memorize,
        workers=workers,
    )
    n = workers
    while True:
        started = time.perf_counter()
        res = search_batch(
            "leftmove",
            state,
            search_seeds(1, 0, n),
            level=level,
            memorize=memorize,
            workers=workers,
        )
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            break
        n = int(n * min(max(2.0, 1.2 * seconds / max(elapsed, 1e-6)), 100))
    return {
        "level": level,
        "memorize": memorize,
        "workers": workers,
        "searches": n,
        "searches_per_s": n / elapsed,
        "ms_per_search": 1e3 * elapsed / n * workers,
        "playouts_per_search": float(res.playouts.mean()),
        "playouts_per_s": float(res.playouts.sum()) / elapsed,
        "playout_moves_per_s": float(res.playout_moves.sum()) / elapsed,
    }


def cold_start():
    """Seconds from a new interpreter's start to the end of its first level-1 search."""
    code = (
        "import time; t = time.perf_counter();"
        "from nmcs.games.leftmove import make_state;"
        "from nmcs.harness.batch import search_batch, search_seeds;"
        "search_batch('leftmove', make_state(60), search_seeds(0, 0, 1), level=1);"
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--levels", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    rows = []
    print(
        f"left move, depth {DEPTH}; CPU {cpu_model()}, {cores} cores; numba {versions()['numba']}"
    )
    print(
        f"{'level':>5} {'memo':>5} {'cores':>5} {'searches/s':>12} {'ms/search/core':>15} "
        f"{'playouts/s':>12} {'playouts/search':>16}"
    )
    for level in args.levels:
        for memorize in (False, True):
            for workers in sorted({1, cores}):
                row = measure(level, memorize, workers, args.seconds)
                rows.append(row)
                print(
                    f"{level:>5} {str(memorize):>5} {workers:>5} {row['searches_per_s']:>12.1f} "
                    f"{row['ms_per_search']:>15.3f} {row['playouts_per_s']:>12.3g} "
                    f"{row['playouts_per_search']:>16.0f}"
                )
    start = cold_start()
    print(f"new process, cached code: first search done {start:.2f} s after start")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "cpu": cpu_model(),
                    "cores": cores,
                    "versions": versions(),
                    "rows": rows,
                    "cold_start_seconds": start,
                    "pid": os.getpid(),
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
