"""One entry point that runs many independent seeded searches of any algorithm on one game.

``build_engine(game)`` returns ``run_chunk``, a parallel jitted function: searches are spread over
numba threads (``prange`` over workers, each with its own workspace), and every search seeds its
own generator from its seed, so results do not depend on the number of workers.

A game's compiled entry point lives in ``nmcs/engines/<game>.py``: a module-level
``@njit(cache=True)`` function that calls ``run_chunk``. Numba caches it on disk, whereas a
factory-built function used directly as the entry point would recompile in every process.

``run_chunk(state0, seeds, (iparams, fparams), (out_int, out_seconds, out_moves, out_trace,
out_ntrace), n_workers)`` takes its parameters as small arrays, so that adding an algorithm adds
a code and a few slots, not a new signature::

    iparams int64:  [ALGO, LEVEL, MEMORIZE (lowest memorizing level), MAX_PLAYOUTS,
                     GAMES_1 .. GAMES_6, UCT_NODES, UCT_EDGES]
    fparams float64: [MAX_SECONDS, UCT_C]
    out_int int64 [n, 4]: SCORE, LENGTH, PLAYOUTS, PLAYOUT_MOVES per search
    out_seconds float64 [n], out_moves int32 [n, max_moves], out_trace float64 [n, T, 3],
    out_ntrace int64 [n]
"""

import numpy as np
from numba import njit, prange

from nmcs.search.clock import now
from nmcs.search.nested import MAX_LEVEL, PLAYOUT_MOVES, PLAYOUTS, build_nested
from nmcs.search.reflexive import build_reflexive
from nmcs.search.rng import new_rng  # noqa: F401  (re-exported for callers that seed by hand)
from nmcs.search.uct import build_uct

# Algorithm codes.
ALGO_NESTED, ALGO_ITERATIVE, ALGO_REFLEXIVE, ALGO_UCT = 0, 1, 2, 3
ALGORITHMS = {
    "nested": ALGO_NESTED,
    "iterative": ALGO_ITERATIVE,
    "reflexive": ALGO_REFLEXIVE,
    "uct": ALGO_UCT,
}
# iparams / fparams slots.
P_ALGO, P_LEVEL, P_MEMORIZE, P_MAX_PLAYOUTS = 0, 1, 2, 3
# Reflexive: iparams[P_GAMES + l - 1] = games per step of a level-l game, l = 1..MAX_LEVEL.
P_GAMES = 4
# UCT: capacities of the node and edge pools (allocated once per worker).
P_UCT_NODES = P_GAMES + MAX_LEVEL
P_UCT_EDGES = P_UCT_NODES + 1
N_IPARAMS = P_UCT_EDGES + 1
F_MAX_SECONDS = 0
F_UCT_C = 1
N_FPARAMS = 2
# out_int columns.
OUT_SCORE, OUT_LENGTH, OUT_PLAYOUTS, OUT_PLAYOUT_MOVES = 0, 1, 2, 3
N_OUT_INT = 4
TRACE_LEN = 256


def build_engine(game):
    """The parallel ``run_chunk`` function for ``game`` (a module following nmcs.games)."""
    new_workspace, nested, iterative = build_nested(game)
    new_reflexive_workspace, reflexive = build_reflexive(game)
    new_uct_workspace, uct = build_uct(game)
    score = game.score

    @njit
    def run_one(
        state0,
        seed,
        iparams,
        fparams,
        ws,
        rws,
        uws,
        scratch_state,
        scratch_seq,
        out_int,
        out_seconds,
        out_moves,
        out_trace,
        out_ntrace,
        i,
    ):
        stats = ws[5]
        stats[:] = 0
        rng = np.empty(1, np.uint64)
        rng[0] = seed
        level = iparams[P_LEVEL]
        memorize = iparams[P_MEMORIZE]  # the lowest level that memorizes
        seq = out_moves[i]
        t0 = now()
        algo = iparams[P_ALGO]
        if algo == ALGO_ITERATIVE:
            length, n_trace = iterative(
                state0,
                level,
                memorize,
                rng,
                ws,
                seq,
                scratch_state,
                scratch_seq,
                fparams[F_MAX_SECONDS],
                iparams[P_MAX_PLAYOUTS],
                out_trace[i],
            )
            out_ntrace[i] = n_trace
            # The best score is the last trace entry; replay its sequence to be sure it holds.
            scratch_state[:] = state0
            for j in range(length):
                game.play(scratch_state, seq[j])
        elif algo == ALGO_UCT:
            length, n_trace = uct(
                state0,
                fparams[F_UCT_C],
                rng,
                uws,
                seq,
                fparams[F_MAX_SECONDS],
                iparams[P_MAX_PLAYOUTS],
                out_trace[i],
            )
            out_ntrace[i] = n_trace
            scratch_state[:] = state0
            for j in range(length):
                game.play(scratch_state, seq[j])
        elif algo == ALGO_REFLEXIVE:
            scratch_state[:] = state0
            games = iparams[P_GAMES : P_GAMES + MAX_LEVEL]
            length = reflexive(scratch_state, level, games, rng, rws, seq)
            out_ntrace[i] = 0
        else:
            scratch_state[:] = state0
            length = nested(scratch_state, level, memorize, rng, ws, seq)
            out_ntrace[i] = 0
        out_seconds[i] = now() - t0
        out_int[i, OUT_SCORE] = score(scratch_state)
        out_int[i, OUT_LENGTH] = length
        out_int[i, OUT_PLAYOUTS] = stats[PLAYOUTS]
        out_int[i, OUT_PLAYOUT_MOVES] = stats[PLAYOUT_MOVES]

    @njit(parallel=True)
    def run_chunk(state0, seeds, params, outputs, n_workers):
        iparams, fparams = params
        out_int, out_seconds, out_moves, out_trace, out_ntrace = outputs
        n = seeds.shape[0]
        workers = max(1, min(n_workers, n))
        # Only a UCT run gets a tree of the requested size; the others get a token one.
        is_uct = iparams[P_ALGO] == ALGO_UCT
        n_nodes = iparams[P_UCT_NODES] if is_uct else 1
        n_edges = iparams[P_UCT_EDGES] if is_uct else 1
        for w in prange(workers):
            ws = new_workspace(state0)
            rws = new_reflexive_workspace(state0, ws[5])
            uws = new_uct_workspace(state0, n_nodes, n_edges, ws[5])
            scratch_state = np.empty_like(state0)
            scratch_seq = np.empty(out_moves.shape[1], np.int32)
            # Contiguous blocks: neighbouring output rows written by different threads would
            # share cache lines.
            for i in range(w * n // workers, (w + 1) * n // workers):
                run_one(
                    state0,
                    seeds[i],
                    iparams,
                    fparams,
                    ws,
                    rws,
                    uws,
                    scratch_state,
                    scratch_seq,
                    out_int,
                    out_seconds,
                    out_moves,
                    out_trace,
                    out_ntrace,
                    i,
                )

    return run_chunk
