"""SameGame playouts per second on the 20 standard positions, one core, after compilation.

    python benchmarks/bench_samegame.py                 # TabuColorRandom and random, 1 s each
    python benchmarks/bench_samegame.py --seconds 3 --json outputs/bench_samegame.json

Each position is timed in a jitted loop that copies the initial state and plays one playout, as
the level-1 search does (the copy is included in the time). A warm-up run compiles everything
first. Numba is limited to one thread. Last, the pictures a cell draws of its best game
(``save_game``) are timed on one playout of position 3 (target: well under a second).
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
from nmcs.games import samegame as sg  # noqa: E402


# Not cached: numba's disk cache does not notice a change in the game module, so a cached loop
# would keep timing the playout kernel it was first compiled with.
@njit
def run_playouts(state0, rng, n, moves):
    """n playouts from state0; returns (total moves, total score)."""
    state = np.empty_like(state0)
    total_moves = 0
    total_score = 0
    for _ in range(n):
        for j in range(state0.shape[0]):
            state[j] = state0[j]
        total_moves += sg.playout(state, rng, moves, False)
        total_score += sg.score(state)
    return total_moves, total_score


def measure(state0, seconds, seed):
    """Playouts per second on state0 over about ``seconds``; also mean length and score."""
    moves = np.empty(sg.max_moves(state0) + 1, np.int32)
    rng = new_rng(seed)
    n, done, total_moves, total_score = 64, 0, 0, 0
    t0, c0 = time.perf_counter(), time.thread_time()
    while True:
        m, s = run_playouts(state0, rng, n, moves)
        done += n
        total_moves += m
        total_score += s
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
        n = min(n * 2, max(64, int(done / elapsed * 0.25)))
    cpu = time.thread_time() - c0
    return done / elapsed, done / cpu, total_moves / done, total_score / done


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per position and policy")
    parser.add_argument("--policies", default="tabu,random")
    parser.add_argument("--positions", default="0-19", help="e.g. 0-19 or 0,3,5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    if "-" in args.positions:
        lo, hi = (int(x) for x in args.positions.split("-"))
        positions = list(range(lo, hi + 1))
    else:
        positions = [int(x) for x in args.positions.split(",")]
    policies = args.policies.split(",")
    measure(sg.make_state(0), 0.05, 0)  # compile / load the cache before timing
    rows = []
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(
        f"{'position':>8} {'policy':>7} {'playouts/s':>11} {'per CPU-s':>10} {'moves':>6} "
        f"{'score':>7}"
    )
    for policy in policies:
        for pos in positions:
            rate, cpu_rate, length, score = measure(
                sg.make_state(pos, policy=policy), args.seconds, args.seed
            )
            rows.append(
                dict(
                    position=pos,
                    policy=policy,
                    playouts_per_second=rate,
                    playouts_per_cpu_second=cpu_rate,
                    mean_moves=length,
                    mean_score=score,
                )
            )
            print(
                f"{pos:>8} {policy:>7} {rate:>11,.0f} {cpu_rate:>10,.0f} {length:>6.1f} "
                f"{score:>7.1f}"
            )
    summary = {}
    for policy in policies:
        # Harmonic means: the rate of one playout on each position in turn.
        wall = [r["playouts_per_second"] for r in rows if r["policy"] == policy]
        cpu = [r["playouts_per_cpu_second"] for r in rows if r["policy"] == policy]
        summary[policy] = dict(
            wall=len(wall) / sum(1 / r for r in wall), cpu=len(cpu) / sum(1 / r for r in cpu)
        )
        print(
            f"{'all':>8} {policy:>7} {summary[policy]['wall']:>11,.0f} "
            f"{summary[policy]['cpu']:>10,.0f}   (harmonic means over {len(wall)} positions)"
        )
    pictures = time_pictures(sg, sg.make_state(3), args.seed)
    print(
        f"pictures of a {pictures['moves']}-move game on position 3 (best_game.png strip and "
        f".gif): {pictures['first'][0]:.3f} s the first time, then {pictures['best'][0]:.3f} s "
        f"({pictures['best'][1]:.3f} s CPU)"
    )
    print(
        f"load average after: {os.getloadavg()[0]:.2f} (per CPU-s = per second of this "
        "thread's CPU time, which other processes do not inflate)"
    )
    if args.json:
        out = dict(
            benchmark="samegame_playouts",
            load_average=os.getloadavg()[0],
            threads=1,
            seconds_per_cell=args.seconds,
            machine=platform.processor() or platform.machine(),
            numba=numba.__version__,
            rows=rows,
            playouts_per_second=summary,
            pictures_seconds=pictures,
        )
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
