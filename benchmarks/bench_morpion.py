"""Morpion Solitaire playouts per second (5D and 5T, random and mobility), one core, after
compilation.

    python benchmarks/bench_morpion.py                        # 2 s per cell
    python benchmarks/bench_morpion.py --seconds 5 --json outputs/bench_morpion.json

Each cell is timed in a jitted loop that copies the starting state and plays one playout, as
the level-1 search does (the copy is included). A warm-up run compiles everything first. Numba
is limited to one thread. Two rates are printed: per wall-clock second and per second of CPU
time of this process; they agree on an idle machine, and on a shared one the CPU-time rate is
the speed of one core (the wall rate then counts the time other processes held the core).
Last, the pictures a cell draws of its best game (``save_game``) are timed on one random 5D
playout (target: well under a second).
"""

import argparse
import json
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402
import numpy as np  # noqa: E402
from numba import njit  # noqa: E402
from picture_timing import time_pictures  # noqa: E402 - benchmarks/ is on sys.path

from nmcs.core.rng import new_rng  # noqa: E402
from nmcs.games import morpion as mp  # noqa: E402


@njit(cache=True)
def run_playouts(state0, rng, n, moves):
    """n playouts from state0; returns the total number of moves."""
    state = np.empty_like(state0)
    total = 0
    for _ in range(n):
        for j in range(state0.shape[0]):
            state[j] = state0[j]
        total += mp.playout(state, rng, moves, False)
    return total


def measure(state0, seconds, seed):
    """(playouts per wall second, per CPU second, mean moves) over about ``seconds``."""
    moves = np.empty(mp.max_moves(state0) + 1, np.int32)
    rng = new_rng(seed)
    n, done, total = 16, 0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        total += run_playouts(state0, rng, n, moves)
        done += n
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
        n = min(n * 2, max(16, int(done / elapsed * 0.25)))
    cpu = time.process_time() - c0
    return done / elapsed, done / cpu, total / done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per cell")
    parser.add_argument(
        "--cells",
        default="5D:random,5T:random,5D:mobility,5T:mobility",
        help="comma-separated variant:policy pairs",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    cells = [tuple(c.split(":")) for c in args.cells.split(",")]
    for variant, policy in cells:  # compile / load the cache before timing
        measure(mp.make_state(variant=variant, policy=policy), 0.01, 0)
    rows = []
    print(f"{'variant':>7} {'policy':>8} {'playouts/s':>11} {'per CPU s':>11} {'moves':>6}")
    for variant, policy in cells:
        wall, cpu, length = measure(
            mp.make_state(variant=variant, policy=policy), args.seconds, args.seed
        )
        rows.append(
            dict(
                variant=variant,
                policy=policy,
                playouts_per_second=wall,
                playouts_per_cpu_second=cpu,
                mean_moves=length,
            )
        )
        print(f"{variant:>7} {policy:>8} {wall:>11,.0f} {cpu:>11,.0f} {length:>6.1f}")
    pictures = time_pictures(mp, mp.make_state(variant="5D"), args.seed)
    print(
        f"pictures of a {pictures['moves']}-move 5D game (best_game.png, .svg and .psol): "
        f"{pictures['first'][0]:.3f} s the first time, then {pictures['best'][0]:.3f} s "
        f"({pictures['best'][1]:.3f} s CPU)"
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} on {os.cpu_count()} cores")
    if args.json:
        out = dict(
            benchmark="morpion_playouts",
            threads=1,
            seconds_per_cell=args.seconds,
            machine=platform.processor() or platform.machine(),
            load_average=load,
            numba=numba.__version__,
            rows=rows,
            pictures_seconds=pictures,
        )
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
