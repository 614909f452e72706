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
from nmcs.search.nested import MAX_LEVEL, NEVER_MEMORIZE
from nmcs.search.uct import DEFAULT_C

# Tree size of a UCT search limited only by seconds, when uct_nodes is not given.
UCT_DEFAULT_NODES = 1_000_000


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
    """Seeds of searches start..start+count-1 of a cell with base ``seed``."""
    return seeds_for(seed, range(start, start + count))


def seeds_for(seed, indices):
    """Search i of a cell with base ``seed`` gets the first word of SeedSequence([seed, i]), so a
    search's seed depends on neither chunking nor the number of workers."""
    return np.array(
        [np.random.SeedSequence([seed, int(i)]).generate_state(1, np.uint64)[0] for i in indices],
        dtype=np.uint64,
    )


def search_batch(
    game,
    state0,
    seeds,
    algo="nested",
    level=1,
    memorize=True,
    memorize_from=1,
    max_seconds=0.0,
    max_playouts=0,
    workers=1,
    games=None,
    uct_c=DEFAULT_C,
    uct_nodes=0,
    uct_edges=0,
):
    """Run one search per seed from ``state0`` and return a BatchResult.

    ``algo="nested"`` and ``"iterative"`` use ``level``, ``memorize`` and (iterative) the budget;
    with ``memorize`` the levels from ``memorize_from`` up memorize (``memorize_from=2``: every
    level but level 1, whose playouts then give a score and no sequence).
    ``algo="reflexive"`` plays one Reflexive Monte-Carlo game of level ``level`` with ``games``
    lower-level games per step: an int (the same at every level) or one count per level from
    the ground up (the paper's 78-move record: ``level=2, games=(100, 1000)``).
    ``algo="uct"`` runs UCT from the root for ``max_playouts`` simulations and/or
    ``max_seconds`` with constant ``uct_c`` and returns the best game found; its tree holds
    ``uct_nodes`` nodes (0: ``max_playouts + 1``, enough never to fill) and ``uct_edges`` edges
    (0: ``uct_nodes`` x min(max branching, 32)) per worker.
    """
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
    if not 1 <= memorize_from <= MAX_LEVEL:
        raise ValueError(f"memorize_from = {memorize_from}: must be from 1 to {MAX_LEVEL}")
    iparams[E.P_MEMORIZE] = int(memorize_from) if memorize else NEVER_MEMORIZE
    iparams[E.P_MAX_PLAYOUTS] = max_playouts
    fparams = np.zeros(E.N_FPARAMS, np.float64)
    fparams[E.F_MAX_SECONDS] = max_seconds
    if algo == "reflexive":
        iparams[E.P_GAMES : E.P_GAMES + MAX_LEVEL] = reflexive_games(level, games)
    if algo == "uct":
        nodes, edges = uct_capacity(
            kernels, state0, uct_c, uct_nodes, uct_edges, max_seconds, max_playouts
        )
        iparams[E.P_UCT_NODES] = nodes
        iparams[E.P_UCT_EDGES] = edges
        fparams[E.F_UCT_C] = uct_c
    max_moves = int(kernels.max_moves(state0))
    out_int = np.zeros((n, E.N_OUT_INT), np.int64)
    out_seconds = np.zeros(n, np.float64)
    out_moves = np.zeros((n, max_moves + 1), np.int32)
    trace_len = E.TRACE_LEN if algo in ("iterative", "uct") else 1
    out_trace = np.zeros((n, trace_len, 3), np.float64)
    out_ntrace = np.zeros(n, np.int64)
    outputs = (out_int, out_seconds, out_moves, out_trace, out_ntrace)
    engine.run_chunk(state0, seeds, (iparams, fparams), outputs, int(workers))
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


def reflexive_games(level, games):
    """The MAX_LEVEL games-per-step slots of a reflexive search (unused levels get 0)."""
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level = {level}: must be an integer from 0 to {MAX_LEVEL}")
    if games is None:
        if level == 0:
            games = ()
        else:
            raise ValueError("algo=reflexive needs games (an int, or one count per level)")
    if np.ndim(games) == 0:
        games = [int(games)] * level
    games = [int(g) for g in games]
    if len(games) != level:
        raise ValueError(f"games = {games}: need one count per level, {level} for level {level}")
    if any(g < 1 for g in games):
        raise ValueError(f"games = {games}: every count must be >= 1")
    return games + [0] * (MAX_LEVEL - level)


def uct_capacity(kernels, state0, c, nodes, edges, max_seconds, max_playouts):
    """Checked UCT parameters: the (nodes, edges) capacities of the tree."""
    if not c > 0:
        raise ValueError(f"uct_c = {c}: must be > 0")
    if max_playouts <= 0 and max_seconds <= 0:
        raise ValueError("algo=uct needs max_playouts and/or max_seconds")
    if nodes < 0 or edges < 0:
        raise ValueError("uct_nodes and uct_edges must be >= 0 (0 = default)")
    if nodes == 0:
        nodes = max_playouts + 1 if max_playouts > 0 else UCT_DEFAULT_NODES
    if edges == 0:
        edges = nodes * min(int(kernels.max_branching(state0)), 32)
    return int(nodes), int(edges)
