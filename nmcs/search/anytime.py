"""Pieces shared by the searches that run until a budget is spent (iterative NMCS, iterative
beam search, UCT): the improvement trace, a cheap seconds budget, the restart loop of the
iterative algorithms (``build_restarts``), and the state copy every search uses.

The budget clock is a float64[4] array ``[start, last_check, stride, since_check]``: the clock
is read every ``stride`` calls, and ``stride`` doubles while calls are shorter than 0.1 ms, so a
search reads it about every 0.1 ms whatever one step costs.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.core.clock import now
from nmcs.search.engine import lowest_served_level

TRACE_SECONDS, TRACE_PLAYOUTS, TRACE_SCORE = 0, 1, 2
_START, _LAST, _STRIDE, _SINCE = 0, 1, 2, 3
NO_SCORE = -(2**62)  # below every score
NO_TARGET = 2**62  # the target of a game without one: never reached
PLAYOUTS, PLAYOUT_MOVES = 0, 1  # the entries of a search's ``stats`` counters


@njit(cache=True, inline="always")
def copy_into(dst, src):
    """dst[:] = src with an explicit loop (numba's slice assignment costs more for short
    states, and compiles a formatted shape-mismatch error: about 2 s of a pair's first
    compile)."""
    for j in range(src.shape[0]):
        dst[j] = src[j]


def state_copier(game):
    """The state copy of ``game``'s searches: ``copy_into``, or, for a game whose state has a
    fixed size (its kernel module's ``STATE_SIZE``), a copy of that many entries that the
    compiler unrolls. The copy runs before every playout of a nested search: on the left move
    (3 entries) the unrolled copy made the level-3 search 15% faster than the loop over a
    length known only at run time."""
    size = getattr(game, "STATE_SIZE", None)
    if size is None:
        return copy_into

    @njit(inline="always")
    def copy_state(dst, src):
        for j in range(size):
            dst[j] = src[j]

    return copy_state


def playout_caller(game):
    """``run_playout(state, rng, seq, record)``: the game's playout. ``record`` (whether it
    writes its moves into ``seq``) is the literal of each call, so numba compiles the playout
    once for True and once for False, each specialised, unless the game sets
    ``RECORD_AT_RUN_TIME = True``: then it is passed as a run-time bool and the playout compiles
    once. SameGame does: its long playout compiled in 2.9 s, for each first compile of a
    nested, iterative, reflexive or UCT search, and with the flag at run time its level-1
    search ran 2.6% faster and its UCT 1.9% slower (``compare_commits.py``, 3 pairs). Morpion's
    level 1 ran 4.5% slower that way, so the other games keep the literal."""
    playout = game.playout
    if not getattr(game, "RECORD_AT_RUN_TIME", False):
        return playout  # the kernel itself: no inlined layer, the code compiles as before

    @njit(inline="always")
    def run_playout(state, rng, seq, record):
        return playout(state, rng, seq, np.bool_(record))

    return run_playout


def refcounted_kernels(game) -> None:
    """Have numba compile ``game``'s kernels with its reference counting (NRT), whichever
    caller it types them from first. The search functions that allocate nothing are compiled
    without it (``_nrt=False``: numba increfs and decrefs every array of a workspace tuple at
    every call, an atomic operation each, which made NRPA 2.6 times and the budgeted nested
    search 8.5 times slower), and numba passes that flag on to a function it first compiles
    from inside one of them: a kernel that allocates (SameGame's playout) would then not
    compile (``tests/test_entry_levels.py``)."""
    names = ("legal_moves", "play", "score", "playout", "code", "bias", "target_score")
    steps = ("policy_scratch", "policy_begin", "policy_moves", "policy_play", "policy_end")
    for name in names + steps:
        options = getattr(getattr(game, name, None), "targetoptions", None)  # a dispatcher's
        if options is not None:
            options.setdefault("_nrt", True)


def level_dispatch(searches):
    """One jitted ``search(state, level, a, b, c, d, e)`` over per-level searches
    ``searches[k](state, a, b, c, d, e)`` (k = 0: one playout), for the searches whose levels
    are functions of their own (nested search). Each test is inlined (``inline="always"``),
    so the dispatch is no compiled layer of its own between the entry point and the playouts.

    It serves the levels that the engine runs in an entry point compiled for
    ``len(searches) - 1`` levels (``nmcs.search.engine.lowest_served_level``: level 0, 1, 2,
    3, or 4 up) and refuses a lower one: a branch for a level no search of the entry runs would be
    compiled for nothing (a copy of an inlined lower level, seconds of the first run)."""
    lowest = lowest_served_level(len(searches) - 1)

    def over(lower, search, k):
        @njit(inline="always")
        def dispatch(state, level, a, b, c, d, e):
            if level < k:
                return lower(state, level, a, b, c, d, e)
            return search(state, a, b, c, d, e)

        return dispatch

    base = searches[lowest]

    @njit(inline="always")
    def dispatch_lowest(state, level, a, b, c, d, e):
        if level < lowest:
            raise ValueError("level below those this search was compiled for")
        return base(state, a, b, c, d, e)

    dispatch = dispatch_lowest
    for k in range(lowest + 1, len(searches)):
        dispatch = over(dispatch, searches[k], k)
    return dispatch


@njit(cache=True)
def start_clock():
    clock = np.empty(4)
    t = now()
    clock[_START] = t
    clock[_LAST] = t
    clock[_STRIDE] = 1.0
    clock[_SINCE] = 0.0
    return clock


@njit(cache=True)
def elapsed(clock):
    return now() - clock[_START]


@njit(cache=True)
def time_is_up(clock, max_seconds):
    """True once ``max_seconds`` (> 0) have passed since ``start_clock``."""
    clock[_SINCE] += 1.0
    if clock[_SINCE] < clock[_STRIDE]:
        return False
    clock[_SINCE] = 0.0
    t = now()
    if t - clock[_START] >= max_seconds:
        return True
    if t - clock[_LAST] < 1e-4:
        clock[_STRIDE] *= 2.0
    clock[_LAST] = t
    return False


@njit(cache=True)
def record_improvement(trace, n_trace, clock, playouts, score):
    """Append (seconds, playouts, score) to the trace; a full trace keeps its latest best.
    Returns the new number of rows."""
    row = min(n_trace, trace.shape[0] - 1)
    trace[row, TRACE_SECONDS] = elapsed(clock)
    trace[row, TRACE_PLAYOUTS] = playouts
    trace[row, TRACE_SCORE] = score
    return row + 1


def target_score_kernel(game):
    """The game's ``target_score(state)`` (a score no game can beat: a solved Sudoku), or one
    that returns NO_TARGET for a game without it."""
    target_score = getattr(game, "target_score", None)
    if target_score is not None:
        return target_score

    @njit
    def no_target(state):
        return NO_TARGET

    return no_target


class RestartWorkspace(NamedTuple):
    """Buffers of an iterative search: the inner search's, its counters, and a copy of the
    position and a move buffer for the search under way (the best game stays in ``seq``)."""

    inner: tuple
    stats: np.ndarray
    scratch_state: np.ndarray
    scratch_seq: np.ndarray


def build_restarts(game, begin, once):
    """The engine's ``run`` of an iterative algorithm, written once for every inner search:
    searches repeated from the same position until ``params.max_seconds`` and/or
    ``params.max_playouts`` are spent (0: no limit of that kind) or a game reaches the target
    score, keeping the best game and an improvement trace. With neither budget, one search and
    no trace: the algorithm without restarts (algo=beam) shares the compiled loop of the one
    with them (algo=iterative_beam).

    - ``begin(params, ws, clock)`` runs once before the first search (a search that can be cut
      short takes its budget and clock here);
    - ``once(state, params, rng, ws, seq)`` runs one search from ``state`` (a
      ``RestartWorkspace``), plays its game on ``state``, writes its moves into ``seq`` and
      returns ``(length, cut)``, ``cut`` True when the budget stopped it short (its best game
      so far counts, and no search follows).

    ``run`` plays the best game on the position and returns (its length, trace rows)."""
    score = game.score
    play = game.play
    target_score = target_score_kernel(game)

    @njit
    def run(state, params, rng, ws, seq, trace):
        clock = start_clock()
        begin(params, ws, clock)
        stats = ws.stats
        best = NO_SCORE
        best_len = 0
        n_trace = np.int64(0)  # not a literal 0: one compile of record_improvement
        target = target_score(state)
        restarts = params.max_playouts > 0 or params.max_seconds > 0
        while True:
            copy_into(ws.scratch_state, state)
            length, cut = once(ws.scratch_state, params, rng, ws, ws.scratch_seq)
            s = score(ws.scratch_state)
            if s > best:
                best = s
                best_len = length
                # A loop, not seq[:length] = ...: numba compiles an array-to-array slice
                # assignment with a formatted shape error (2 s of a first compile).
                for j in range(length):
                    seq[j] = ws.scratch_seq[j]
                n_trace = record_improvement(trace, n_trace, clock, stats[PLAYOUTS], s)
            if best >= target or cut or not restarts:
                break
            if params.max_playouts > 0 and stats[PLAYOUTS] >= params.max_playouts:
                break
            if params.max_seconds > 0 and time_is_up(clock, params.max_seconds):
                break
        # The best game is the last improvement; replay it onto the position.
        for j in range(best_len):
            play(state, seq[j])
        return best_len, n_trace if restarts else 0

    return run
