"""Time to solve the stored 16x16 Sudoku problems (66% empty) with the methods of the NMCS paper's
Table 2, on one core, each search "restarted at the same level until solved".

    python benchmarks/bench_sudoku.py [--problems N] [--methods l1m,l1,l2m,l2,sampling]
                                      [--seed S] [--json PATH]

Each problem is one ``algo=iterative`` search (what ``experiment=sudoku_table2`` runs per cell):
nested searches repeated until one reaches the game's target score (a solved grid), capped at
600 s. Search i of the benchmark gets seed ``search_seeds(seed, i, 1)`` (the run.py seeding of
search i of a cell).

Columns: problems solved, playouts (machine-independent), engine seconds (the searches' own
time: the paper's sequential time), CPU seconds and wall seconds of the whole loop (Python
overhead included; on a shared machine wall time includes waiting for the CPU, so CPU time is
the fairer "one core" figure). Every solution is verified with
``nmcs.games.sudoku.io.check_solution``. Compilation is done before timing.
"""

import argparse
import json
import time

import numba

from nmcs.games import sudoku as S
from nmcs.games.sudoku import io as IO
from nmcs.harness.batch import search_batch, search_seeds

METHODS = {
    "l1m": (1, True, "NMCS level 1, memorization", 1.34),
    "l2m": (2, True, "NMCS level 2, memorization", 1.64),
    "l1": (1, False, "NMCS level 1, no memorization", 7.00),
    "l2": (2, False, "NMCS level 2, no memorization", 4.87),
    "sampling": (0, False, "iterative sampling", 61.83),
}
CAP_SECONDS = 600.0


def solve(state, level, memorize, seed, max_seconds=CAP_SECONDS):
    """One restart-until-solved search: (solved grid or None, playouts, engine seconds)."""
    res = search_batch(
        "sudoku",
        state,
        seed,
        algo="iterative",
        level=level,
        memorize=memorize,
        max_seconds=max_seconds,
    )
    final = state.copy()
    for move in res.moves[0]:
        S.play(final, move)
    grid = S.grid_of(final) if res.score[0] == int(state[S.CELLS]) else None
    return grid, int(res.playouts[0]), float(res.seconds[0])


def run(method, problems, seed):
    level, memorize, _, _ = METHODS[method]
    row = dict(method=method, solved=0, playouts=0, seconds=0.0)
    c0, t0 = time.process_time(), time.perf_counter()
    for i, problem in enumerate(problems):
        grid, playouts, seconds = solve(
            S.state_from_grid(problem), level, memorize, search_seeds(seed, i, 1)
        )
        if grid is None or not IO.check_solution(problem, grid):
            raise RuntimeError(f"{method}: problem {i} not solved correctly")
        row["solved"] += 1
        row["playouts"] += playouts
        row["seconds"] += seconds
    row["cpu"] = time.process_time() - c0
    row["wall"] = time.perf_counter() - t0
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=100, help="first N stored problems")
    ap.add_argument("--methods", default="l1m,l2m,l1,l2,sampling")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", help="write the rows to this file")
    args = ap.parse_args()
    numba.set_num_threads(1)  # one core; also avoids waking a second thread per batch call
    problems = IO.stored_problems()[: args.problems]
    warm = S.state_from_grid(problems[0])
    solve(warm, 1, True, search_seeds(0, 0, 1), max_seconds=0.01)
    rows = []
    print(f"{len(problems)} stored 16x16 problems, 66% empty, one core, seed {args.seed}")
    print(
        f"{'method':32} {'solved':>6} {'playouts':>11} {'engine s':>9} "
        f"{'cpu s':>8} {'wall s':>8} {'paper s':>8}"
    )
    for method in args.methods.split(","):
        row = run(method, problems, args.seed)
        _, _, label, paper = METHODS[method]
        row.update(label=label, paper_seconds=paper, problems=len(problems))
        rows.append(row)
        print(
            f"{label:32} {row['solved']:>6} {row['playouts']:>11} "
            f"{row['seconds']:>9.2f} {row['cpu']:>8.2f} {row['wall']:>8.2f} {paper:>8.2f}",
            flush=True,
        )
    if args.json:
        meta = dict(numba=numba.__version__, threads=1, seed=args.seed)
        with open(args.json, "w") as f:
            json.dump(dict(meta=meta, rows=rows), f, indent=2)


if __name__ == "__main__":
    main()
