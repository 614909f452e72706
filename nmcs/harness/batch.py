"""Run a batch of independent seeded searches on one game from Python.

This is the one door from Python into the compiled engine: the harness calls it per chunk, and
tests, benchmarks and notebooks call it directly::

    from nmcs.games.leftmove import make_state
    from nmcs.harness.batch import search_batch, search_seeds
    res = search_batch("leftmove", make_state(depth=60), search_seeds(0, 0, 100), level=3,
                       memorize=True, workers=2)
    res.score, res.moves[0]
"""

from dataclasses import dataclass

import numpy as np

from nmcs.games import engine_module, game_module
from nmcs.search import engine as E


@dataclass
class BatchResult:
    """One entry per search."""

    seed: np.ndarray  # uint64, the search's own seed
    score: np.ndarray  # int64
    length: np.ndarray  # int64, moves in the returned sequence
    playouts: np.ndarray  # int64, playouts started (replays not counted)
    playout_moves: np.ndarray  # int64, moves played inside those playouts
    seconds: np.ndarray  # float64, wall time of the search
    moves: list  # int32 arrays, the move sequence from the initial state
    trace: list  # float64 arrays [k, 3]: seconds, playouts, best score at each improvement


def search_seeds(seed, start, count):
    """Seeds of searches start..start+count-1 of a cell with base ``seed``: search i gets the
    first word of ``SeedSequence([seed, i])``, so it does not depend on chunking or workers."""
    return np.array(
        [np.random.SeedSequence([seed, i]).generate_state(1, np.uint64)[0]
         for i in range(start, start + count)],
        dtype=np.uint64,
    )


def search_batch(game, state0, seeds, algo="nested", level=1, memorize=True, max_seconds=0.0,
                 max_playouts=0, workers=1):
    """Run one search per seed from ``state0`` and return a BatchResult."""
    if algo not in E.ALGORITHMS:
        raise ValueError(f"unknown algo '{algo}' (allowed: {', '.join(E.ALGORITHMS)})")
    kernels = game_module(game)
    engine = engine_module(game)
    state0 = np.ascontiguousarray(state0)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = seeds.shape[0]
    iparams = np.zeros(E.N_IPARAMS, np.int64)
    iparams[E.P_ALGO] = E.ALGORITHMS[algo]
    iparams[E.P_LEVEL] = level
    iparams[E.P_MEMORIZE] = int(bool(memorize))
    iparams[E.P_MAX_PLAYOUTS] = max_playouts
    fparams = np.zeros(E.N_FPARAMS, np.float64)
    fparams[E.F_MAX_SECONDS] = max_seconds
    max_moves = int(kernels.max_moves(state0))
    out_int = np.zeros((n, E.N_OUT_INT), np.int64)
    out_seconds = np.zeros(n, np.float64)
    out_moves = np.zeros((n, max_moves + 1), np.int32)
    trace_len = E.TRACE_LEN if algo == "iterative" else 1
    out_trace = np.zeros((n, trace_len, 3), np.float64)
    out_ntrace = np.zeros(n, np.int64)
    engine.run_chunk(state0, seeds, iparams, fparams, out_int, out_seconds, out_moves, out_trace,
                     out_ntrace, int(workers))
    lengths = out_int[:, E.OUT_LENGTH]
    return BatchResult(
        seed=seeds,
        score=out_int[:, E.OUT_SCORE].copy(),
        length=lengths.copy(),
        playouts=out_int[:, E.OUT_PLAYOUTS].copy(),
        playout_moves=out_int[:, E.OUT_PLAYOUT_MOVES].copy(),
        seconds=out_seconds,
        moves=[out_moves[i, : lengths[i]].copy() for i in range(n)],
        trace=[out_trace[i, : out_ntrace[i]].copy() for i in range(n)],
    )
