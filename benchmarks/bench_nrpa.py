"""NRPA playouts per second (the adaptation included) beside the random playouts per second of
a level-1 nested search, per game, one core, after compilation.

    python benchmarks/bench_nrpa.py                          # level 2, N = 100, every game
    python benchmarks/bench_nrpa.py --games morpion5d --searches 5 --json outputs/bench_nrpa.json

NRPA rate: a level-``level`` NRPA search with N = ``iterations`` (N**level playouts) run
``searches`` times through the harness's Python API on one worker; playouts / seconds of the
searches (from the results, compile excluded). Random rate: a level-1 nested search without
memorization on the same position (its playouts / seconds), the engine's uniform-random
playouts with the nested search's copies around them (SameGame: the game's own playout, under
the position's ``policy``). Both rates are per second of wall time
of the searches, measured on one numba thread (run it pinned: ``taskset -c 0``). The goal:
>= 100,000 NRPA playouts/s for level 2, N = 100 on Morpion 5D, and >= 20,000 on SameGame
position 0 under the tabu rule.

Then the record hunt's speed (``--hunt-searches``, 0 to skip): level-3 NRPA, N = 100, on
Morpion 5D (``experiment=morpion_record_hunt``), its playouts per second and searches per
core-hour (per CPU second of this process, one core).
"""

import argparse
import json
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numba  # noqa: E402

from nmcs.harness.batch import search_batch, search_seeds  # noqa: E402

GAMES = {
    "morpion5d": ("morpion", {"variant": "5D"}),
    "morpion5t": ("morpion", {"variant": "5T"}),
    # SameGame's NRPA playouts under the tabu rule (the default), and listing every group.
    "samegame": ("samegame", {"instance": 0, "policy": "tabu"}),
    "samegame_uniform": ("samegame", {"instance": 0, "policy": "random"}),
    "leftmove": ("leftmove", {"depth": 60}),
    "sudoku16": ("sudoku", {"n": 4, "problem": 0}),  # stops when solved
}


def rate(game, state0, searches, **kwargs):
    """(playouts per wall second, per CPU second, mean score) of ``searches`` searches on one
    worker. The CPU rate counts this process's CPU time around the batch (the harness's own
    work included, so it is a lower bound of the search's speed); on a shared machine it is
    the speed of one core, the wall rate the speed under the load of the moment."""
    seeds = search_seeds(1, 0, searches)
    c0 = time.process_time()
    res = search_batch(game, state0, seeds, workers=1, **kwargs)
    cpu = time.process_time() - c0
    playouts = res.playouts.sum()
    return playouts / res.seconds.sum(), playouts / cpu, float(res.score.mean())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", default=",".join(GAMES), help="comma-separated: " + ",".join(GAMES)
    )
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--searches", type=int, default=3)
    parser.add_argument(
        "--hunt-searches", type=int, default=2, help="level-3 5D searches of the hunt (0: skip)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    numba.set_num_threads(1)
    from nmcs.games import registry

    rows = []
    print(
        f"{'game':>10} {'NRPA/s (per CPU s)':>19} {'random/s (per CPU s)':>22} {'NRPA score':>10}"
    )
    for key in args.games.split(","):
        game, options = GAMES[key]
        state0 = registry.game(game).make_state(**options)
        nrpa_kw = dict(algo="nrpa", level=args.level, iterations=args.iterations)
        rate(game, state0, 1, **{**nrpa_kw, "iterations": 2})  # compile / load the cache
        t0 = time.perf_counter()
        nrpa, nrpa_cpu, score = rate(game, state0, args.searches, **nrpa_kw)
        wall = time.perf_counter() - t0
        rate(game, state0, 1, algo="nested", level=1, memorize=False)
        rnd, rnd_cpu, _ = rate(
            game, state0, max(3, args.searches), algo="nested", level=1, memorize=False
        )
        rows.append(
            dict(game=key, nrpa_playouts_per_second=nrpa, nrpa_playouts_per_cpu_second=nrpa_cpu,
                 random_playouts_per_second=rnd, random_playouts_per_cpu_second=rnd_cpu,
                 nrpa_mean_score=score, wall_seconds=wall)
        )  # fmt: skip
        print(
            f"{key:>10} {nrpa:>9,.0f} ({nrpa_cpu:>7,.0f}) {rnd:>10,.0f} ({rnd_cpu:>9,.0f}) "
            f"{score:>10.1f}"
        )
    hunt = hunt_speed(args.hunt_searches) if args.hunt_searches > 0 else None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"level {args.level}, N = {args.iterations}, {args.searches} searches per game; "
          f"load average {load:.2f} on {os.cpu_count()} cores")  # fmt: skip
    if args.json:
        out = dict(benchmark="nrpa_playouts", threads=1, level=args.level,
                   iterations=args.iterations, searches=args.searches,
                   machine=platform.processor() or platform.machine(), load_average=load,
                   numba=numba.__version__, rows=rows, hunt=hunt)  # fmt: skip
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
        print(f"wrote {args.json}")


def hunt_speed(searches: int) -> dict:
    """Level-3 NRPA (N = 100) on Morpion 5D: playouts per second and searches per core-hour."""
    from nmcs.games import registry

    state0 = registry.game("morpion").make_state(variant="5D")
    kwargs = dict(algo="nrpa", level=3, iterations=100)
    seeds = search_seeds(2, 0, searches)
    c0 = time.process_time()
    res = search_batch("morpion", state0, seeds, workers=1, **kwargs)
    cpu = time.process_time() - c0
    out = dict(
        searches=searches,
        playouts_per_second=float(res.playouts.sum() / res.seconds.sum()),
        seconds_per_search=float(res.seconds.mean()),
        searches_per_core_hour=3600.0 * searches / cpu,
        scores=[int(x) for x in res.score],
    )
    print(
        f"hunt (5D, level 3, N = 100): {out['playouts_per_second']:,.0f} playouts/s, "
        f"{out['seconds_per_search']:.1f} s a search, {out['searches_per_core_hour']:.0f} "
        f"searches per core-hour (scores {out['scores']})"
    )
    return out


if __name__ == "__main__":
    main()
