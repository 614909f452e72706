"""One engine that runs many independent seeded searches of one algorithm on one game.

``build_search(game, build)`` takes a game's kernel module and an algorithm's builder (the
``build`` of its registry record, ``nmcs.search.registry``) and returns the jitted pieces of one
search; the compiled entry point of the (game, algorithm) pair (``nmcs.search.entry``, a
module-level ``@njit(cache=True, parallel=True)`` function generated on first use, so numba
caches it on disk and compiles only the pairs that run) spreads a chunk's searches over numba
threads (``prange`` over workers, each with its own workspace). Every search seeds its own
generator from its seed, so results do not depend on the number of workers.

``run_chunk(state0, seeds, params, out, n_workers)``: ``params`` is the algorithm's own
NamedTuple of engine parameters; ``out`` is an ``Outputs`` NamedTuple with one row per search.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.search.clock import now
from nmcs.search.nested import PLAYOUT_MOVES, PLAYOUTS

# Rows of an anytime trace kept per search (a full trace keeps its latest best).
TRACE_LEN = 256


class Outputs(NamedTuple):
    """One entry (row) per search of a chunk."""

    score: np.ndarray  # int64 [n]
    length: np.ndarray  # int64 [n], moves in the returned sequence
    playouts: np.ndarray  # int64 [n], playouts started (replays not counted)
    playout_moves: np.ndarray  # int64 [n], moves played inside those playouts
    seconds: np.ndarray  # float64 [n], wall time of the search
    moves: np.ndarray  # int32 [n, max moves + 1], the move sequence from state0
    trace: np.ndarray  # float64 [n, T, 3]: seconds, playouts, best score at each improvement
    n_trace: np.ndarray  # int64 [n], rows of trace used


def new_outputs(n, max_moves, trace_len):
    """Zeroed outputs of ``n`` searches."""
    return Outputs(
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.int64),
        np.zeros(n, np.float64),
        np.zeros((n, max_moves + 1), np.int32),
        np.zeros((n, trace_len, 3), np.float64),
        np.zeros(n, np.int64),
    )


def build_search(game, build):
    """``(new_workspace, run_one)`` of the algorithm built by ``build`` on ``game``'s kernels:
    ``run_one(state0, seed, params, ws, stats, state, out, i)`` runs search ``i`` of a chunk,
    seeding its own generator, and writes row ``i`` of ``out``. The parallel loop over workers
    that calls them is the entry point itself (``nmcs.search.entry.TEMPLATE``): one compiled
    layer less than a loop built here and wrapped there (about 2 s of compilation per pair)."""
    new_workspace, run = build(game)
    score = game.score

    @njit
    def run_one(state0, seed, params, ws, stats, state, out, i):
        stats[:] = 0
        rng = np.empty(1, np.uint64)
        rng[0] = seed
        t0 = now()
        state[:] = state0
        length, n_trace = run(state, params, rng, ws, out.moves[i], out.trace[i])
        out.seconds[i] = now() - t0
        out.n_trace[i] = n_trace
        out.score[i] = score(state)
        out.length[i] = length
        out.playouts[i] = stats[PLAYOUTS]
        out.playout_moves[i] = stats[PLAYOUT_MOVES]

    return new_workspace, run_one
