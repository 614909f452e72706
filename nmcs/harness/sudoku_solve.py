"""Solve one Sudoku problem the paper's way: repeat searches until one finds a solution.

- ``method="sampling"``: iterative sampling, i.e. level-0 searches (one random playout each)
  repeated until a playout assigns every cell;
- ``method="nested"``: NMCS of ``level`` (with or without ``memorize``) "restarted at the same
  level until a solution is found" (NMCS paper, 5.3);
- ``method="fc"``: forward checking (``nmcs.games.sudoku.fc``), for one interface to all rows of
  Table 2.

Searches run through the shared engine (``nmcs.harness.batch.search_batch``). Search i of a
problem gets seed ``splitmix64(key + (i + 1) * golden)`` where ``key`` is the first word of
``SeedSequence(seed)``; the searches are run in batches (1, 2, 4, ... up to ``max_batch``, so
cheap level-0 searches do not pay Python's per-call overhead one by one) and the result is the
first solving search in seed order, so it does not depend on the batching. Effort counts the
searches up to and including that one:

- ``playouts``: playouts started (machine-independent);
- ``seconds``: the engine's own time for those searches;
- ``wall``: wall time of the whole loop, including Python overhead and the searches of the last
  batch after the solving one (the honest cost of this implementation).
"""

import time
from dataclasses import dataclass

import numpy as np

from nmcs.games import sudoku as game
from nmcs.harness.batch import search_batch

METHODS = ("sampling", "nested", "fc")
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@dataclass
class SolveResult:
    solved: bool
    searches: int  # searches run up to the solving one (FC: 1)
    playouts: int  # playouts of those searches (FC: nodes)
    seconds: float  # engine time of those searches
    wall: float  # wall time of the whole call
    moves: np.ndarray | None  # the solving move sequence from the problem (None for FC)
    grid: np.ndarray | None  # the solution, N x N values 1..N


def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def search_seeds(seed, start, count):
    """Seeds of searches start..start+count-1 for ``seed`` (an int or a tuple of ints), vectorized
    so that thousands of level-0 searches cost no Python loop."""
    key = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    idx = np.arange(start + 1, start + count + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix64(key + idx * _GOLDEN)


def solve(
    state0,
    method="nested",
    level=1,
    memorize=True,
    seed=0,
    max_seconds=0.0,
    max_searches=0,
    max_playouts=0,
    max_batch=None,
):
    """Repeat searches from ``state0`` until one solves it, or a cap (wall seconds, searches,
    playouts; <= 0 = none) is reached; returns a SolveResult. For ``method="fc"`` one forward
    checking search runs with ``max_seconds`` and ``max_playouts`` (as nodes)."""
    if method not in METHODS:
        raise ValueError(f"unknown method '{method}' (allowed: {', '.join(METHODS)})")
    t0 = time.perf_counter()
    if method == "fc":
        from nmcs.games.sudoku.fc import solve_fc

        fc_seed = search_seeds(seed, 0, 1)[0]
        solved, nodes, seconds, grid = solve_fc(state0, fc_seed, max_seconds, max_playouts)
        return SolveResult(solved == 1, 1, nodes, seconds, time.perf_counter() - t0, None, grid)
    if method == "sampling":
        level, memorize = 0, False
    elif level < 1:
        raise ValueError(f"method 'nested' needs level >= 1, got {level}")
    if max_batch is None:
        max_batch = 1024 if level == 0 else 1
    target = int(state0[game.CELLS])
    searches = playouts = 0
    seconds = 0.0
    batch = 1
    while True:
        if max_searches > 0:
            batch = min(batch, max_searches - searches)
        res = search_batch(
            game.NAME, state0, search_seeds(seed, searches, batch), level=level, memorize=memorize
        )
        hit = np.flatnonzero(res.score == target)
        k = int(hit[0]) + 1 if len(hit) else batch
        searches += k
        playouts += int(res.playouts[:k].sum())
        seconds += float(res.seconds[:k].sum())
        if len(hit):
            moves = res.moves[k - 1]
            state = state0.copy()
            for m in moves:
                game.play(state, m)
            grid = game.grid_of(state)
            return SolveResult(
                True, searches, playouts, seconds, time.perf_counter() - t0, moves, grid
            )
        if (
            (max_searches > 0 and searches >= max_searches)
            or (max_playouts > 0 and playouts >= max_playouts)
            or (max_seconds > 0 and time.perf_counter() - t0 >= max_seconds)
        ):
            return SolveResult(
                False, searches, playouts, seconds, time.perf_counter() - t0, None, None
            )
        batch = min(2 * batch, max_batch)
