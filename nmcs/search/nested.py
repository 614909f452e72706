"""Nested Monte-Carlo Search (Cazenave 2009), written once for every game.

``build_nested(game, levels)`` takes a game module (see ``nmcs.games``) and the highest level it
must run, and returns jitted functions:

- ``new_workspace(state0, stats)``: the per-level buffers a search needs, allocated once per
  worker (a ``NestedWorkspace``; ``stats`` counts playouts and their moves);
- ``nested(state, level, memorize, rng, ws, seq)``: level 0 is one playout (``sample``); level
  l >= 1 plays a whole game, trying every legal move at each step followed by a level l-1 search,
  and plays the move of the best one (ties broken uniformly at random). A level l >= ``memorize``
  (an int: the lowest level that memorizes; 1 = every level, ``NEVER_MEMORIZE`` = none) keeps
  the best sequence found so far and plays its next move when no child improves on it (the
  paper's pseudo-code, lines 7-10). ``memorize = 2`` is the pseudo-code read with a ``sample``
  that returns a score and no sequence: level 1 then follows only its best child of each step.
  The search plays on ``state`` in place, writes the moves it played into ``seq`` and returns
  their number; the score is ``game.score(state)`` afterwards;
- algo=iterative: nested searches repeated from the same position until a budget of seconds
  and/or playouts is spent, keeping the best and an anytime trace (the restart loop is
  ``nmcs.search.anytime.build_restarts``, shared with iterative beam search).

A game may define ``target_score(state)``, a score no game can beat (a solved Sudoku). A search
then stops as soon as one of its playouts or lower searches reaches it and returns that game
(``stop_at_target``, the default; with ``stop_at_target=false`` the nested search runs to its
end as the paper's pseudo-code does, so a level without memorization can lose a solution one of
its playouts found), and an iterative search stops at the first search that returns such a game
("restart until solved") either way. Games without it (the tree problems, Morpion, SameGame) are
searched exactly as in the paper's pseudo-code.

Levels are unrolled (level k calls a distinct level k-1 function) rather than recursive, because
recursive jitted functions without signatures can crash numba's on-disk cache (numba issue 6061).

Two tricks keep the inner loops free of allocation and copying:
- the level-1 search does not record the moves of its playouts; it saves the one-word generator
  state before each playout and, when the best sequence's next move is needed but is only known
  as "the playout after the last improvement", replays that playout to learn its moves
  (improvements are rare, playouts are not);
- a level k >= 2 search lets children write their sequences into one of two buffers and swaps the
  buffers when a child becomes the best of its step.

Workspace (a tuple; L = MAX_LEVEL + 1, S = state size, B = max branching, M = max moves + 1)::

    states  [L, S]     states[k]: the child position that a level-k search hands to level k-1
    moves   [L, B]     moves[k]: legal moves at the current step of the level-k search
    seqs    [L, 2, M]  seqs[k]: the two child-sequence buffers of the level-k search
    cont    [M]        the replayed continuation of a level-1 playout
    aux     uint64[1]  generator state used for replays
    stats   int64[2]   playouts started, moves played in playouts (counted since allocation)
    ctl     float64[7] only with a budget: the budget clock (``nmcs.search.anytime``, entries
                       0-3), the seconds and playouts after which a search is cut (0: no limit
                       of that kind), and the cut flag (1.0 once the budget cut a search short)

The level functions take ``(state, level, memorize, target, rng, ws, seq)``: ``target`` is the
game's target score, or NO_TARGET when a search must not stop at it (``stop_at_target=false``).

Cutting a search short (a budget, set by ``iterative``): the level-1 search checks the budget
after every playout, and a search whose budget is spent returns at once the best complete game
it knows: the better of its best sequence (memorized) and the best child of its current step;
each level above then returns the best of its own candidates and the game that came up. So a
budgeted search stops within one playout of its budget (about 0.1 ms of clock checks), not
after the nested search that was running. The searches without a budget (algo=nested) are
compiled without that code.
"""

import functools
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.search.anytime import (
    NO_SCORE,
    NO_TARGET,
    PLAYOUT_MOVES,
    PLAYOUTS,
    RestartWorkspace,
    build_restarts,
    level_dispatch,
    playout_caller,
    refcounted_kernels,
    start_clock,
    state_copier,
    target_score_kernel,
    time_is_up,
)
from nmcs.search.registry import Algorithm, DaskPlan, Settings, register

MAX_LEVEL = 6
NEVER_MEMORIZE = MAX_LEVEL + 1  # the ``memorize`` argument of a search that never memorizes


class NestedWorkspace(NamedTuple):
    """Per-worker buffers of a nested search without a budget (see the module docstring)."""

    states: np.ndarray
    moves: np.ndarray
    seqs: np.ndarray
    cont: np.ndarray
    aux: np.ndarray
    stats: np.ndarray


class BudgetedWorkspace(NamedTuple):
    """Per-worker buffers of a nested search that a budget can cut short: those of
    ``NestedWorkspace`` and ``ctl`` (``CTL_*``)."""

    states: np.ndarray
    moves: np.ndarray
    seqs: np.ndarray
    cont: np.ndarray
    aux: np.ndarray
    stats: np.ndarray
    ctl: np.ndarray


# ctl, float64[7]: the budget clock (``nmcs.search.anytime``, its first 4 entries, so that
# ``time_is_up(ctl, ...)`` reads it in place), the budget and the cut flag.
CTL_CLOCK = 4  # entries 0-3
CTL_SECONDS, CTL_PLAYOUTS, CTL_CUT = 4, 5, 6
CTL_SIZE = 7


class _Kernels(NamedTuple):
    """The game's kernels that the level functions close over."""

    legal_moves: Any
    play: Any
    score: Any
    playout: Any  # nmcs.search.anytime.playout_caller's
    copy_into: Any  # nmcs.search.anytime.state_copier's


def _make_new_workspace(max_moves, max_branching, budgeted):
    """``new_workspace(state0, stats)``: the buffers of a search (module docstring)."""

    @njit
    def new_workspace(state0, stats):
        n_levels = MAX_LEVEL + 1
        m = max_moves(state0) + 1
        states = np.empty((n_levels, state0.shape[0]), state0.dtype)
        moves = np.empty((n_levels, max_branching(state0)), np.int32)
        seqs = np.empty((n_levels, 2, m), np.int32)
        cont = np.empty(m, np.int32)
        aux = np.zeros(1, np.uint64)
        if budgeted:
            ctl = np.zeros(CTL_SIZE, np.float64)
            clock = start_clock()
            for j in range(CTL_CLOCK):  # a loop: a slice assignment compiles for 2 s
                ctl[j] = clock[j]
            return BudgetedWorkspace(states, moves, seqs, cont, aux, stats, ctl)
        return NestedWorkspace(states, moves, seqs, cont, aux, stats)

    return new_workspace


def _make_out_of_budget():
    """``out_of_budget(ws)``: the budget check of a budgeted level 1."""

    # Called after every playout of a budgeted level 1, so compiled without reference counting
    # like the level functions: compiled with it (as it was when first typed from the level-1
    # search inlined in the entry point), it increfs and decrefs the workspace's arrays at each
    # call, and the left move's level-2 iterative search ran 8.5 times slower.
    @njit(_nrt=False)  # type: ignore[call-overload]
    def out_of_budget(ws):
        """True (and the cut flag set) once the search's budget is spent."""
        ctl = ws.ctl
        if ctl[CTL_PLAYOUTS] > 0 and ws.stats[PLAYOUTS] >= ctl[CTL_PLAYOUTS]:
            ctl[CTL_CUT] = 1.0
        elif ctl[CTL_SECONDS] > 0 and time_is_up(ctl, ctl[CTL_SECONDS]):
            ctl[CTL_CUT] = 1.0
        return ctl[CTL_CUT] != 0.0

    return out_of_budget


def _make_sample(playout):
    """``sample``: a level-0 search, one playout."""

    @njit(inline="always")
    def sample(state, memorize, target, rng, ws, seq):
        stats = ws.stats
        n = playout(state, rng, seq, True)
        stats[PLAYOUTS] += 1
        stats[PLAYOUT_MOVES] += n
        return n

    return sample


def _make_memorizing(fixed):
    """``memorizing(memorize)``: whether a level 1 memorizes; ``fixed`` True or False, or
    None: ``memorize`` says so at run time."""
    if fixed is None:

        @njit(inline="always")
        def memorizing(memorize):
            return memorize <= 1
    else:

        @njit(inline="always")
        def memorizing(memorize):
            return fixed

    return memorizing


def _make_level1_kind(memorizing, kernels, out_of_budget, budgeted, check_target):
    """``level1_of_kind``: a level-1 search that memorizes as ``memorizing`` says."""
    legal_moves, play, score, playout, copy_into = kernels

    @njit(inline="always", _nrt=False)  # type: ignore[call-overload]
    def level1_of_kind(state, memorize, target, rng, ws, seq):
        memorizes = memorizing(memorize)
        stats = ws.stats
        cont = ws.cont
        aux = ws.aux
        child = ws.states[1]
        legal = ws.moves[1]
        best = NO_SCORE
        played = 0
        pending = False  # the best sequence's tail is a playout not replayed yet
        pending_rng = np.uint64(0)
        best_end = 0  # with the tail replayed: seq[played:best_end] is the best sequence's rest
        n_playouts = 0
        n_moves = 0
        while True:
            n = legal_moves(state, legal)
            if n == 0:
                break
            step_best = NO_SCORE
            ties = 0
            step_move = -1
            step_rng = np.uint64(0)
            for i in range(n):
                move = legal[i]
                copy_into(child, state)
                play(child, move)
                saved = rng[0]
                n_moves += playout(child, rng, cont, False)
                n_playouts += 1
                s = score(child)
                if check_target and s >= target:
                    # A playout reached the game's target score: that game is the answer.
                    stats[PLAYOUTS] += n_playouts
                    stats[PLAYOUT_MOVES] += n_moves
                    seq[played] = move
                    play(state, move)
                    aux[0] = saved
                    k = playout(state, aux, seq[played + 1 :], True)
                    return played + 1 + k
                if s == step_best:
                    ties += 1
                    if below(rng, ties) == 0:
                        step_move = move
                        step_rng = saved
                else:
                    better = s > step_best
                    step_best = max(s, step_best)
                    ties = 1 if better else ties
                    step_move = move if better else step_move
                    step_rng = saved if better else step_rng
                if budgeted:
                    stats[PLAYOUTS] += n_playouts
                    stats[PLAYOUT_MOVES] += n_moves
                    n_playouts = 0
                    n_moves = 0
                    if out_of_budget(ws):
                        if memorizes and best >= step_best:
                            # The best sequence: its tail still to replay from here, or stored.
                            if pending:
                                aux[0] = pending_rng
                                return played + playout(state, aux, seq[played:], True)
                            for j in range(played, best_end):
                                play(state, seq[j])
                            return best_end
                        # The best child of this step, and its playout.
                        seq[played] = step_move
                        play(state, step_move)
                        aux[0] = step_rng
                        return played + 1 + playout(state, aux, seq[played + 1 :], True)
            if not memorizes:
                seq[played] = step_move
            elif step_best > best:
                best = step_best
                seq[played] = step_move
                # The rest of the new best sequence is the winning playout, which started from
                # the position after step_move, i.e. from the next step's position. Replay it
                # only if a later step needs it (no child improves before the game ends).
                pending = True
                pending_rng = step_rng
            elif pending:
                copy_into(child, state)
                aux[0] = pending_rng
                k = playout(child, aux, cont, True)
                for j in range(k):
                    seq[played + j] = cont[j]
                pending = False
                best_end = played + k
            play(state, seq[played])
            played += 1
        stats[PLAYOUTS] += n_playouts
        stats[PLAYOUT_MOVES] += n_moves
        return played

    return level1_of_kind


def _make_level1(split_level1, kernels, out_of_budget, budgeted, check_target):
    """``level1``: two kinds of level 1 picked by ``memorize`` (``split_level1``), or one that
    reads it."""
    shared = (kernels, out_of_budget, budgeted, check_target)
    if split_level1:
        level1_memorized = _make_level1_kind(_make_memorizing(True), *shared)
        level1_plain = _make_level1_kind(_make_memorizing(False), *shared)

        @njit(inline="always", _nrt=False)  # type: ignore[call-overload]
        def level1(state, memorize, target, rng, ws, seq):
            if memorize <= 1:
                return level1_memorized(state, memorize, target, rng, ws, seq)
            return level1_plain(state, memorize, target, rng, ws, seq)
    else:
        level1 = _make_level1_kind(_make_memorizing(None), *shared)

    return level1


def _make_level(lower, k, kernels, budgeted, check_target):
    """``level_k``: the level-``k`` search, over ``lower``, the level-(k-1) search."""
    legal_moves, play, score, _, copy_into = kernels  # no playout: level 1 plays them

    @njit(_nrt=False)  # type: ignore[call-overload]
    def level_k(state, memorize, target, rng, ws, seq):
        seqs = ws.seqs
        child = ws.states[k]
        legal = ws.moves[k]
        best = NO_SCORE
        played = 0
        cur = 0  # the buffer the next child writes into; 1 - cur holds the step's best
        best_end = 0  # seq[played:best_end]: the rest of the best sequence (memorized)
        while True:
            n = legal_moves(state, legal)
            if n == 0:
                break
            step_best = NO_SCORE
            ties = 0
            step_move = -1
            step_len = 0
            for i in range(n):
                copy_into(child, state)
                play(child, legal[i])
                length = lower(child, memorize, target, rng, ws, seqs[k, cur])
                s = score(child)
                if check_target and s >= target:
                    # A lower search reached the game's target score: that game is the answer.
                    seq[played] = legal[i]
                    found = seqs[k, cur]
                    for j in range(length):
                        seq[played + 1 + j] = found[j]
                    for j in range(length + 1):
                        play(state, seq[played + j])
                    return played + 1 + length
                if s == step_best:
                    ties += 1
                    take = below(rng, ties) == 0
                else:
                    take = s > step_best
                    step_best = max(s, step_best)
                    ties = 1 if take else ties
                step_move = legal[i] if take else step_move
                step_len = length if take else step_len
                cur = 1 - cur if take else cur
                if budgeted:
                    if ws.ctl[CTL_CUT] != 0.0:
                        # The budget is spent: the best sequence if it is at least as good
                        # as this step's best child (which includes the child just searched).
                        if memorize <= k and best >= step_best:
                            for j in range(played, best_end):
                                play(state, seq[j])
                            return best_end
                        seq[played] = step_move
                        found = seqs[k, 1 - cur]
                        for j in range(step_len):
                            seq[played + 1 + j] = found[j]
                        for j in range(step_len + 1):
                            play(state, seq[played + j])
                        return played + 1 + step_len
            if memorize > k:
                seq[played] = step_move
            elif step_best > best:
                best = step_best
                seq[played] = step_move
                best_seq = seqs[k, 1 - cur]
                for j in range(step_len):
                    seq[played + 1 + j] = best_seq[j]
                best_end = played + 1 + step_len
            play(state, seq[played])
            played += 1
        return played

    return level_k


@functools.cache
def build_nested(game, levels: int = MAX_LEVEL, budgeted: bool = False):
    """Jitted nested search functions specialised to ``game``'s kernels, for levels 0 to
    ``levels`` (each level is a function of its own, so unused levels are not compiled; built
    once per game, levels, budget and process). ``budgeted``: the searches can be cut short by
    a budget (algo=iterative); without it (algo=nested) the budget code is not compiled at all,
    and the workspace passed from level to level is one array smaller.

    Why the workspace is kept small: numba passes every array of a tuple argument as 7-11
    separate machine words, and a level-k search calls its level-(k-1) search once per child,
    so each array in the workspace costs every one of those calls (four more arrays made the
    level-3 left-move search 25% slower)."""
    legal_moves = game.legal_moves
    play = game.play
    score = game.score
    playout = playout_caller(game)  # record: a literal unless the game says otherwise
    max_moves = game.max_moves
    max_branching = game.max_branching
    copy_into = state_copier(game)
    refcounted_kernels(game)  # the level functions below are compiled without it

    new_workspace = _make_new_workspace(max_moves, max_branching, budgeted)
    out_of_budget = _make_out_of_budget()
    sample = _make_sample(playout)

    # Level 1 is inlined into level 2 (no call per level-1 search, the commonest call), and
    # the level functions are compiled without reference counting (_nrt=False: they allocate
    # nothing, and numba's increfs and decrefs of every array they touch cost an atomic
    # operation each per call).
    #
    # Two kinds of level 1 for a game with a fixed-size state (``STATE_SIZE``, the tree
    # problems, whose playouts take nanoseconds): one that memorizes and one that does not, each
    # with the choice a compile-time constant, picked once per level-1 search. Its playout loop
    # then carries fewer live values: the left move's level-3 search ran 13% faster (memorized)
    # and 9% faster (not) on an Intel Xeon. Other games compile one level 1 that reads
    # ``memorize``: with their longer playouts the second copy only added code (SameGame's
    # level 1 ran 2.8% slower with it, Morpion's 1.2%).
    split_level1 = getattr(game, "STATE_SIZE", None) is not None
    # For the same games a search does not check a target score the game does not have (11% of
    # the memorized level-3 left-move search). Elsewhere the check stays: without it Morpion's
    # level 1 ran 1.5% slower (the machine code laid out otherwise).
    check_target = not split_level1 or getattr(game, "target_score", None) is not None
    kernels = _Kernels(legal_moves, play, score, playout, copy_into)
    level1 = _make_level1(split_level1, kernels, out_of_budget, budgeted, check_target)

    searches = [sample, level1][: levels + 1]  # levels = 0: the level-0 entry, one playout
    for k in range(2, levels + 1):
        searches.append(_make_level(searches[-1], k, kernels, budgeted, check_target))
    nested = level_dispatch(searches)

    return new_workspace, nested


# --- The registry records: algo=nested and algo=iterative -------------------------------------


class NestedParams(NamedTuple):
    level: int
    memorize: int  # the lowest level that memorizes; NEVER_MEMORIZE: none
    stop_at_target: bool  # stop at a playout that reaches the game's target score


class IterativeParams(NamedTuple):
    level: int
    memorize: int
    max_seconds: float  # 0: no limit of that kind
    max_playouts: int
    stop_at_target: bool


@dataclass
class NestedConfig:
    """``algo=nested``: NMCS of ``level`` (0 = one playout), ``memorize`` the best sequence."""

    name: str = "nested"

    def check(self, settings: Settings) -> None:
        pass


@dataclass
class IterativeConfig:
    """``algo=iterative``: nested searches repeated until ``budget.*`` is spent."""

    name: str = "iterative"

    def check(self, settings: Settings) -> None:
        pass


def memorize_param(settings: Settings) -> int:
    """The ``memorize`` argument of the searches: the lowest level that memorizes."""
    return int(settings.memorize_from) if settings.memorize else NEVER_MEMORIZE


def nested_params(options, settings, kernels, state0):
    return NestedParams(
        int(settings.level), memorize_param(settings), bool(settings.stop_at_target)
    )


def iterative_params(options, settings, kernels, state0):
    return IterativeParams(
        int(settings.level),
        memorize_param(settings),
        float(settings.max_seconds),
        int(settings.max_playouts),
        bool(settings.stop_at_target),
    )


def build_nested_search(game, levels: int):
    """``(new_workspace, run)`` of algo=nested for the engine (``nmcs.search.engine``)."""
    new_nested_workspace, nested = build_nested(game, levels)
    target_score = target_score_kernel(game)

    @njit
    def new_workspace(state0, params, stats):
        return new_nested_workspace(state0, stats)

    @njit
    def run(state, params, rng, ws, seq, trace):
        target = target_score(state) if params.stop_at_target else NO_TARGET
        return nested(state, params.level, params.memorize, target, rng, ws, seq), 0

    return new_workspace, run


def build_iterative_search(game, levels: int):
    """``(new_workspace, run)`` of algo=iterative for the engine: nested searches restarted
    (``build_restarts``), the one under way cut short when the budget is spent."""
    new_nested_workspace, nested = build_nested(game, levels, budgeted=True)
    target_score = target_score_kernel(game)

    @njit
    def new_workspace(state0, params, stats):
        nws = new_nested_workspace(state0, stats)
        # cont has max moves + 1 entries, the length of any move-sequence buffer.
        return RestartWorkspace(nws, stats, np.empty_like(state0), np.empty_like(nws.cont))

    @njit(inline="always")
    def begin(params, ws, clock):
        ctl = ws.inner.ctl
        for j in range(CTL_CLOCK):  # a loop: a slice assignment compiles for 2 s
            ctl[j] = clock[j]
        ctl[CTL_SECONDS] = params.max_seconds
        ctl[CTL_PLAYOUTS] = params.max_playouts
        ctl[CTL_CUT] = 0.0

    @njit(inline="always")  # no compiled layer between the restarts and the search
    def once(state, params, rng, ws, seq):
        target = target_score(state) if params.stop_at_target else NO_TARGET
        length = nested(state, params.level, params.memorize, target, rng, ws.inner, seq)
        return length, ws.inner.ctl[CTL_CUT] != 0.0

    return new_workspace, build_restarts(game, begin, once)


def nested_dask_plan(options: dict, settings: Settings) -> DaskPlan:
    """Dask: a top-level beam of width 1 on the master (which memorizes) over nested searches
    of the level below on the workers."""
    if not settings.memorize or settings.memorize_from != 1:
        raise ValueError(
            "parallel.backend=dask runs algo=nested with memorize=true and memorize_from=1 "
            "(its top level is a beam of width 1, which memorizes)"
        )
    return DaskPlan(1, "nested", {"memorize": True})


NESTED = register(
    Algorithm(
        name="nested",
        config=NestedConfig,
        params=nested_params,
        build=build_nested_search,
        max_level=MAX_LEVEL,
        memorizes=True,
        stop_rule=True,
        per_level=True,
        dask_plan=nested_dask_plan,
    )
)
ITERATIVE = register(
    Algorithm(
        name="iterative",
        config=IterativeConfig,
        params=iterative_params,
        build=build_iterative_search,
        needs_budget=True,
        writes_trace=True,
        max_level=MAX_LEVEL,
        memorizes=True,
        stop_rule=True,
        per_level=True,
    )
)
