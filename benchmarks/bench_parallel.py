"""Speed-up and parallel efficiency of a parallel search on Dask worker processes (the master
of ``nmcs.search.master``, Cazenave 2012 Algorithms 3-4).

    python benchmarks/bench_parallel.py                              # Morpion 5D, level 2
    python benchmarks/bench_parallel.py --level 3 --workers 1 2 16   # on a larger machine
    python benchmarks/bench_parallel.py --lower beam --lower-widths 4

The same searches (same seeds, hence the same games: the script checks it) run with each number
of workers; speed-up = time with 1 worker / time with N, efficiency = speed-up / N. The first
row runs in this process without Dask (the master's own cost plus the searches). Each worker
is a single-threaded process that loads the engine from the numba cache; the cluster is started
before the clock starts.
"""

import argparse
import json
import os
import time
from functools import partial

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from nmcs.games import game_module  # noqa: E402
from nmcs.harness.parallel import remote_search  # noqa: E402
from nmcs.search.executors import DaskExecutor, InProcess  # noqa: E402
from nmcs.search.master import master_search  # noqa: E402


def timed(game, state0, seeds, level, top_width, lower, executor):
    start = time.perf_counter()
    results = [master_search(game, state0, s, top_width, lower, executor) for s in seeds]
    return time.perf_counter() - start, results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="morpion")
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--top-width", type=int, default=1)
    parser.add_argument("--lower", default="nested", help="the workers' search: nested | beam")
    parser.add_argument("--lower-widths", type=int, nargs="*", default=None)
    parser.add_argument("--searches", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    workers = args.workers or sorted({1, 2, os.cpu_count() or 1})
    game = game_module(args.game)
    state0 = game.make_state()
    options = {"memorize": True} if args.lower == "nested" else {}
    if args.lower_widths:
        options["beam"] = list(args.lower_widths)
    lower = partial(remote_search, args.game, args.level - 1, args.lower, options)
    remote_search(args.game, 0, args.lower, options, state0, 0)  # compile / load the cache
    seeds = list(range(args.searches))
    rows = []
    base, reference = timed(game, state0, seeds, args.level, args.top_width, lower, InProcess())
    rows.append({"workers": "in process", "seconds": base})
    one = None
    for n in workers:
        executor = DaskExecutor.local(n)
        try:
            executor.client.wait_for_workers(n)
            seconds, results = timed(
                game, state0, seeds, args.level, args.top_width, lower, executor
            )
        finally:
            executor.close()
        same = all(
            np.array_equal(a.moves, b.moves) for a, b in zip(results, reference, strict=True)
        )
        if not same:
            raise SystemExit(f"{n} workers gave other games than the in-process search")
        one = one or seconds
        rows.append(
            {
                "workers": n,
                "seconds": seconds,
                "speedup": one / seconds,
                "efficiency": one / seconds / n,
            }
        )
    scores = [r.score for r in reference]
    print(
        f"{args.game}, level {args.level}, top width {args.top_width}, workers run "
        f"{args.lower} level {args.level - 1} {options}; {args.searches} searches "
        f"(scores {scores}), {os.cpu_count()} cores"
    )
    print(f"{'workers':>10} {'seconds':>9} {'speed-up':>9} {'efficiency':>10}")
    for row in rows:
        extra = (
            f"{row['speedup']:>9.2f} {100 * row['efficiency']:>9.0f}%" if "speedup" in row else ""
        )
        print(f"{row['workers']:>10} {row['seconds']:>9.2f} {extra}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
