"""One engine that runs many independent seeded searches of one algorithm on one game.

``build_search(game, build, levels)`` takes a game's kernel module, an algorithm's builder (the
``build`` of its registry record, ``nmcs.search.registry``) and the highest level to compile,
and returns the jitted pieces of one search. The compiled entry point of the (game, algorithm,
levels) triple (``nmcs.search.entry``, a module-level ``@njit(cache=True, nogil=True)`` function
generated on first use, so numba caches it on disk and compiles only what runs) runs a block of
searches with one workspace; ``run_searches`` spreads a chunk's searches over threads, one block
each, the compiled code running without the GIL. Every search seeds its own generator from its
seed, so results do not depend on the number of workers.

``run_block(state0, seeds, params, out, lo, hi)``: searches ``lo`` to ``hi - 1``; ``params`` is
the algorithm's own NamedTuple of engine parameters; ``out`` is an ``Outputs`` NamedTuple with
one row per search.
"""

from concurrent.futures import ThreadPoolExecutor
from typing import Any, NamedTuple

import numpy as np
from numba import njit

# Rows of an anytime trace kept per search (a full trace keeps its latest best).
TRACE_LEN = 256


class Outputs(NamedTuple):
    """One entry (row) per search of a chunk."""

    score: np.ndarray  # int64 [n]
    length: np.ndarray  # int64 [n], moves in the returned sequence
    playouts: np.ndarray  # int64 [n], playouts started (replays not counted)
    playout_moves: np.ndarray  # int64 [n], moves played inside those playouts
    seconds: np.ndarray  # float64 [n], wall time of the search
    cpu_seconds: np.ndarray  # float64 [n], CPU time of the search's thread over its turn
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
        np.zeros(n, np.float64),
        np.zeros((n, max_moves + 1), np.int32),
        np.zeros((n, trace_len, 3), np.float64),
        np.zeros(n, np.int64),
    )


def build_search(game, build, levels):
    """``(new_workspace, run, score)``: the algorithm built by ``build`` on ``game``'s kernels
    (levels 0 to ``levels``) and the game's score. The loop over a block of searches that
    calls them is the entry point itself (``nmcs.core.generated.SEARCH_ENTRY``): search ``i``
    seeds its own generator, plays on a copy of ``state0`` and writes row ``i`` of ``out``. A
    loop (or a per-search function) built here would be one more compiled layer, and every layer
    optimises and emits again all the machine code below it (about 0.6 s for the left move,
    1.7 s for SameGame on the first run)."""
    new_workspace, run = build(game, levels)
    return _inlined(new_workspace), _inlined(run), game.score


def _inlined(dispatcher):
    """The same jitted function, inlined by numba into the entry point (``inline="always"``)
    instead of compiled on its own: one compiled layer less (see ``build_search``)."""
    return njit(inline="always")(dispatcher.py_func)


# The highest levels an entry point is compiled for: a search of level l runs in the entry of
# the first bracket >= l, levels above the last in the entry of the algorithm's largest level.
# Level 0 has an entry of its own: in the level-1 entry, its branch was one more inlined copy of
# the playout (NRPA's level-1 first compile on SameGame: 12.6 s to 10.1 s from Python).
LEVEL_BRACKETS = (0, 1, 2, 3)


def compiled_levels(level: int, max_level: int, brackets: tuple[int, ...] = LEVEL_BRACKETS) -> int:
    """The highest level compiled for a search of ``level``: its own level up to 3 (a level-2
    run compiles no level-3 code: a first run of Morpion's level-2 beam search took 24 s with
    levels up to 3, 13 s without), the most above; a sweep over levels 0-3 compiles four entry
    points. An algorithm may give its own ``brackets`` (``Algorithm.level_brackets``)."""
    for levels in brackets:
        if level <= levels:
            return min(levels, max_level)
    return max_level


def entry_levels(record: Any, level: int) -> int:
    """The ``levels`` of the entry point that runs the algorithm ``record`` (a registry
    record) at ``level``: its level bracket (``compiled_levels``), or ``max_level`` for every
    level of an algorithm whose build ignores its levels (``Algorithm.per_level``)."""
    if not record.per_level:
        return record.max_level
    return compiled_levels(level, record.max_level, level_brackets(record))


def level_brackets(record: Any) -> tuple[int, ...]:
    """The level brackets of the algorithm ``record``: its own, or ``LEVEL_BRACKETS``."""
    return record.level_brackets if record.level_brackets is not None else LEVEL_BRACKETS


def lowest_served_level(levels: int, brackets: tuple[int, ...] = LEVEL_BRACKETS) -> int:
    """The lowest level that the entry point compiled for ``levels`` runs (``compiled_levels``
    sends no lower one there): its own level up to 3, and 4 for any entry above 3. The
    level dispatch of such an entry (``nmcs.search.anytime.level_dispatch``) compiles no branch
    for the levels below, which the levels above may still inline: the level-2 nested search's
    entry no longer holds a second copy of the level-1 search (2 s of its first compile)."""
    below = [b for b in brackets if b < levels]
    return below[-1] + 1 if below else 0


def run_searches(run_block, state0, seeds, params, out, workers: int) -> None:
    """Every search of ``seeds`` into ``out``: ``workers`` threads, each running one contiguous
    block through the compiled ``run_block`` (neighbouring rows written by different threads
    would share cache lines)."""
    n = seeds.shape[0]
    workers = max(1, min(workers, n))
    bounds = [(w * n // workers, (w + 1) * n // workers) for w in range(workers)]
    if workers == 1:
        run_block(state0, seeds, params, out, 0, n)
        return
    with ThreadPoolExecutor(workers) as pool:
        futures = [pool.submit(run_block, state0, seeds, params, out, lo, hi) for lo, hi in bounds]
        for future in futures:
            future.result()
