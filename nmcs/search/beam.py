"""Monte-Carlo Beam Search (Cazenave 2012, Algorithm 2), written once for every game.

``build_beam(game, levels)`` takes a game module (see ``nmcs.games``) and returns jitted functions:

- ``new_workspace(state0, width)``: the buffers of a search whose beams hold at most ``width``
  positions, allocated once per worker;
- algo=iterative_beam: beam searches repeated from the same position until a budget of seconds
  and/or playouts is spent, keeping the best game and an anytime trace (for the time figures;
  the restart loop is ``nmcs.search.anytime.build_restarts``, shared with iterative NMCS);
  algo=beam runs in the same loop with no budget, so one search (``build_beam_search``);
- ``beam(state, level, spec, rng, ws, seq, stats)``: a beam search of ``level`` from
  ``state``; level l >= 1 keeps a beam of at most ``spec[l - 1]`` positions, level 0 is one
  playout; ``spec[TIES]`` and ``spec[MERGE]`` hold the tie and duplicate rules, ``spec[LIMIT]``
  the playout budget that cuts the search (0: none; ``beam_spec``).
  It plays the best game found on ``state`` in place, writes its moves into ``seq`` and returns
  their number (the same contract as ``nmcs.search.nested``). ``stats`` counts playouts and
  playout moves.

One step of a level-l search (the paper's loop body)::

    next beam = for each position b of the beam:
                  b advanced by the next move of its best game    (memorization; b is kept
                                                                   as it is if it is terminal)
                + for each legal move m of b: b+m searched at level l-1 (a playout at level 1)
    beam      = the best spec[l-1] of the next beam, by the score of their best game

and the search stops when no position of the beam has a legal move (the paper's
``beam = nextBeam``). The best game of the final beam is the result.

Choices where the paper is silent (documented in ``docs/beam.md``), the defaults first:
- ties between children (``algo.ties=random``) are broken uniformly at random by reservoir
  sampling at the boundary of the kept set: with ``t`` children seen at the lowest kept score,
  of which ``k`` are kept, a new one replaces one of those ``k`` when ``below(t) < k``. With a
  width of 1 this is exactly nested search's rule (one draw per tie), so a beam of width 1 at
  every level plays the same games as ``nmcs.search.nested`` with memorization, move for move,
  from the same seed.
  ``algo.ties=first``: the child found first (beam order, then move-generation order) wins a
  tie, with no draw;
- a memorized position wins a tie against a child (the pseudo-code replaces the best
  sequence only by a strictly better one), and earlier beam positions win ties among
  memorized ones;
- the start position, which has no game yet, is not kept; the same position may sit twice in a
  beam (memorized and as a child; ``algo.merge_duplicates=false``), as the pseudo-code's
  loops produce. ``algo.merge_duplicates=true`` reads Algorithm 2's ``nextBeam`` as a set: a
  position reached twice is kept once, with its better game (a memorized one on equal scores,
  else the first found). Positions are compared on the game's ``POSITION_SIZE`` leading state
  words (default: the whole state; Morpion leaves out its history-ordered move list), first by
  a 64-bit hash, then word by word;
- a game may declare ``target_score``: the first game that reaches it is returned at once, as
  nested search does.

Workspace (a tuple; L = levels + 1, W = width, S = state size, B = max branching,
M = max moves + 1). Per level k, two beams (``cur`` and ``1 - cur``) of W entries, and the kept
children of the step::

    bstate  [L, 2, W, S]  positions of the beam
    bseq    [L, 2, W+1, M]  best game of each position, from the search's start (prefix
                          included); bseq[k, 0, W]: level k's best game so far (with a budget)
    binfo   [L, 2, W+1, 4]  POS (moves played to reach the position), LEN (of bseq), SCORE,
                          HASH (of the position; with merge_duplicates)
    cseq    [L, W, M]     kept children: their lower search's game, from the child position
    cinfo   [L, W, 6]     PARENT (beam index), MOVE, LEN, SCORE, ORDER (found in the step),
                          CHASH (of the child position; with merge_duplicates)
    child   [L, 2, S]     [0]: the position handed to the lower search; [1]: a copy of it
                          (with merge_duplicates; a kept child's position is kept in its slot
                          of the next beam's bstate, free until the step ends)
    cbuf    [L, M]        the lower search's game
    legal   [L, B]        legal moves of a beam position
    nbeam   int64[L]      current beam size per level
"""

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.search.anytime import (
    NO_SCORE,
    PLAYOUT_MOVES,
    PLAYOUTS,
    RestartWorkspace,
    build_restarts,
    copy_into,
    level_dispatch,
    refcounted_kernels,
    target_score_kernel,
)
from nmcs.search.nested import MAX_LEVEL
from nmcs.search.registry import Algorithm, DaskPlan, Settings, added_option, register

POS, LEN, SCORE, HASH = 0, 1, 2, 3
PARENT, MOVE, CLEN, CSCORE, ORDER, CHASH = 0, 1, 2, 3, 4, 5
# The search's spec (int64[SPEC_SIZE]): the beam sizes of levels 1..MAX_LEVEL, then the rules.
TIES, MERGE, LIMIT = MAX_LEVEL, MAX_LEVEL + 1, MAX_LEVEL + 2
SPEC_SIZE = MAX_LEVEL + 3
TIE_RULES = ("random", "first")  # spec[TIES] is the index
FNV_PRIME = 0x100000001B3


def _make_position_tests(position_size):
    """``position_hash`` and ``same_position``, on the first ``position_size`` words of a
    state (0: all of them)."""

    @njit(inline="always")
    def position_words(state):
        return position_size if position_size > 0 else state.shape[0]

    @njit(_nrt=False)  # type: ignore[call-overload]
    def position_hash(state):
        h = np.int64(-3750763034362895579)  # FNV-1a offset basis (as int64)
        for j in range(position_words(state)):
            h = (h ^ state[j]) * FNV_PRIME
        return h

    @njit(_nrt=False)  # type: ignore[call-overload]
    def same_position(a, b):
        for j in range(position_words(a)):
            if a[j] != b[j]:
                return False
        return True

    return position_hash, same_position


def _make_new_workspace(max_moves, max_branching):
    """``new_workspace(state0, width)``: the buffers of a search (module docstring)."""

    @njit
    def new_workspace(state0, width):
        n_levels = MAX_LEVEL + 1
        w = max(1, width)
        m = max_moves(state0) + 1
        s = state0.shape[0]
        bstate = np.empty((n_levels, 2, w, s), state0.dtype)
        # One slot past the widest beam (index w of buffer 0): each level's best game so far,
        # kept only under a playout budget (the game a cut search returns).
        bseq = np.empty((n_levels, 2, w + 1, m), np.int32)
        binfo = np.zeros((n_levels, 2, w + 1, 4), np.int64)
        cseq = np.empty((n_levels, w, m), np.int32)
        cinfo = np.zeros((n_levels, w, 6), np.int64)
        child = np.empty((n_levels, 2, s), state0.dtype)
        cbuf = np.empty((n_levels, m), np.int32)
        legal = np.empty((n_levels, max_branching(state0)), np.int32)
        nbeam = np.zeros(n_levels, np.int64)
        return bstate, bseq, binfo, cseq, cinfo, child, cbuf, legal, nbeam

    return new_workspace


def _make_sample(playout):
    """``sample``: a level-0 search, one playout of the game's policy."""

    @njit(inline="always")  # a compiled layer less above every playout (compile time)
    def sample(state, spec, rng, ws, seq, stats):
        n = playout(state, rng, seq, True)
        stats[PLAYOUTS] += 1
        stats[PLAYOUT_MOVES] += n
        return n

    return sample


def _make_keep_child(same_position):
    """``keep_child``: a child offered to the kept set of a step, and its helpers."""

    @njit(_nrt=False)  # type: ignore[call-overload]
    def boundary(cinfo, kept):
        """The lowest kept score and how many kept children have it."""
        low = cinfo[0, CSCORE]
        for j in range(1, kept):
            low = min(low, cinfo[j, CSCORE])
        n_low = np.int64(0)
        for j in range(kept):
            if cinfo[j, CSCORE] == low:
                n_low += 1
        return low, n_low

    @njit(_nrt=False)  # type: ignore[call-overload]
    def nth_at(cinfo, kept, value, nth):
        """The index of the ``nth`` kept child whose score is ``value``."""
        for j in range(kept):
            if cinfo[j, CSCORE] == value:
                if nth == 0:
                    return j
                nth -= 1
        return -1

    @njit(_nrt=False)  # type: ignore[call-overload]
    def last_found_at(cinfo, kept, value):
        """The index of the kept child of score ``value`` found last in the step."""
        last = -1
        for j in range(kept):
            if cinfo[j, CSCORE] == value and (last < 0 or cinfo[j, ORDER] > cinfo[last, ORDER]):
                last = j
        return last

    @njit(_nrt=False)  # type: ignore[call-overload]
    def keep_child(k, ws, rng, cur, kept, width, ties, parent, move, length, s, order, h, spec):
        """Offer a child (its game is in ``cbuf[k]``) to the kept set of the step, the best
        ``width`` children so far; ``ties`` counts the children seen at the lowest kept score
        once the set is full (random ties). Returns the new (kept, ties)."""
        bstate, _, _, cseq, cinfo, child, cbuf, _, _ = ws
        first = spec[TIES] == 1
        merge = spec[MERGE] != 0
        slot = -1
        same = -1
        if merge:
            # The kept child at the same position, if any: its position waits in its slot of
            # the next beam, this one's in child[k, 1].
            for j in range(kept):
                if cinfo[k, j, CHASH] == h and same_position(child[k, 1], bstate[k, 1 - cur, j]):
                    same = j
                    break
        if same >= 0:
            # A position already kept: one entry, with the better game (the first on ties).
            if s > cinfo[k, same, CSCORE]:
                slot = same
                ties = 0  # the boundary may move: recounted below
        elif kept < width:
            slot = kept
            kept += 1
        else:
            low, n_low = boundary(cinfo[k], kept)
            if s > low:
                if first:
                    slot = last_found_at(cinfo[k], kept, low)  # the first found stay
                else:
                    # Evict one of the lowest, uniformly (no draw for a single one).
                    slot = nth_at(cinfo[k], kept, low, below(rng, n_low) if n_low > 1 else 0)
                if n_low == 1:
                    ties = 0  # the boundary moves up: recounted below
            elif s == low and not first:
                # Reservoir sampling among the ties: the n_low kept are a uniform subset of
                # the ``ties`` seen; width 1 gives nested search's one draw per tie.
                ties += 1
                pick = below(rng, ties)
                if pick < n_low:
                    slot = nth_at(cinfo[k], kept, low, pick)
        if slot >= 0:
            cinfo[k, slot, PARENT] = parent
            cinfo[k, slot, MOVE] = move
            cinfo[k, slot, CLEN] = length
            cinfo[k, slot, CSCORE] = s
            if slot != same:
                cinfo[k, slot, ORDER] = order
                cinfo[k, slot, CHASH] = h
                if merge:
                    copy_into(bstate[k, 1 - cur, slot], child[k, 1])
            for j in range(length):
                cseq[k, slot, j] = cbuf[k, j]
        if kept == width and ties == 0:
            # Every child seen above the boundary is kept, so the boundary's tie count is the
            # number kept at it (also when the set has just become full).
            ties = boundary(cinfo[k], kept)[1]
        return kept, ties

    return keep_child


def _make_never_below():
    """``never_below``: the lower search of level 1, which plays its playouts itself."""

    @njit(inline="always")
    def never_below(state, k, spec, rng, ws, seq, stats):
        return np.int64(0)  # level 1 plays its playouts itself: never called

    return never_below


def _make_level(recursive, lower, game, target_score, position_hash, sample, keep_child, advance):
    """Level 1 alone (``recursive`` False), inlined where it is called (``beam``): one
    compiled layer less above the playouts, which each layer optimises and emits again; or
    every level from 2 up (True): one function that calls itself for the level below, so a
    level-2 or level-3 search compiles one level body, not one per level."""
    legal_moves, play, score = game.legal_moves, game.play, game.score
    # lower: never_below, or the function itself when recursive (set below)

    @njit(inline="never" if recursive else "always", _nrt=False)  # type: ignore[call-overload]
    def level(state, k, spec, rng, ws, seq, stats):
        bstate, bseq, binfo, cseq, cinfo, child, cbuf, legal, nbeam = ws
        width = spec[k - 1]
        merge = spec[MERGE] != 0
        limit = spec[LIMIT]
        top = bseq.shape[2] - 1  # the best-game slot (buffer 0)
        binfo[k, 0, top, SCORE] = NO_SCORE
        target = target_score(state)
        # np.int64 rather than literal 0s: numba types a call whose argument starts as a
        # literal once per type, and would compile keep_child and advance twice.
        cur = np.int64(0)
        # The start position: no game yet (SCORE = NO_SCORE, LEN = POS = 0).
        copy_into(bstate[k, cur, 0], state)
        binfo[k, cur, 0, POS] = 0
        binfo[k, cur, 0, LEN] = 0
        binfo[k, cur, 0, SCORE] = NO_SCORE
        nbeam[k] = 1
        while True:
            kept = np.int64(0)
            ties = np.int64(0)
            order = np.int64(0)
            moving = False
            for b in range(nbeam[k]):
                pos = binfo[k, cur, b, POS]
                n = legal_moves(bstate[k, cur, b], legal[k])
                if n > 0:
                    moving = True
                for i in range(n):
                    copy_into(child[k, 0], bstate[k, cur, b])
                    play(child[k, 0], legal[k, i])
                    h = 0
                    if merge:
                        h = position_hash(child[k, 0])
                        copy_into(child[k, 1], child[k, 0])
                    if k == 1:
                        length = sample(child[k, 0], spec, rng, ws, cbuf[k], stats)
                    else:
                        length = lower(child[k, 0], k - 1, spec, rng, ws, cbuf[k], stats)
                    s = score(child[k, 0])
                    if s >= target:
                        # A lower search reached the game's target score: that game is
                        # the answer.
                        for j in range(pos):
                            seq[j] = bseq[k, cur, b, j]
                        seq[pos] = legal[k, i]
                        for j in range(length):
                            seq[pos + 1 + j] = cbuf[k, j]
                        for j in range(pos + 1 + length):
                            play(state, seq[j])
                        return pos + 1 + length
                    if limit > 0:
                        if s > binfo[k, 0, top, SCORE]:
                            # The best game found at this level (the first on ties).
                            for j in range(pos):
                                bseq[k, 0, top, j] = bseq[k, cur, b, j]
                            bseq[k, 0, top, pos] = legal[k, i]
                            for j in range(length):
                                bseq[k, 0, top, pos + 1 + j] = cbuf[k, j]
                            binfo[k, 0, top, SCORE] = s
                            binfo[k, 0, top, LEN] = pos + 1 + length
                        if stats[PLAYOUTS] >= limit:
                            # The budget is spent (at this playout, or below): the best
                            # game found at this level is the answer.
                            best_len = binfo[k, 0, top, LEN]
                            for j in range(best_len):
                                seq[j] = bseq[k, 0, top, j]
                                play(state, seq[j])
                            return best_len
                    kept, ties = keep_child(
                        k, ws, rng, cur, kept, width, ties,
                        b, legal[k, i], length, s, order, h, spec,
                    )  # fmt: skip
                    order += 1
            if not moving:
                break
            cur = advance(k, ws, rng, cur, kept, width, spec)
        # The best game of the final beam (earlier positions win ties).
        best = 0
        for b in range(1, nbeam[k]):
            if binfo[k, cur, b, SCORE] > binfo[k, cur, best, SCORE]:
                best = b
        length = binfo[k, cur, best, LEN]
        for j in range(length):
            seq[j] = bseq[k, cur, best, j]
        copy_into(state, bstate[k, cur, best])
        return length

    if recursive:
        lower = level
    return level


def _make_advance(play, position_hash, same_position):
    """``advance``: the next beam of a step."""

    @njit(_nrt=True)  # type: ignore[call-overload]
    def advance(k, ws, rng, cur, kept, width, spec):
        """Build the next beam (into buffer 1 - cur) from the memorized positions and the kept
        children: the best ``width`` of them, memorized ones first on ties (each position once
        with merge_duplicates). Returns 1 - cur."""
        bstate, bseq, binfo, cseq, cinfo, _, _, _, nbeam = ws
        first = spec[TIES] == 1
        merge = spec[MERGE] != 0
        nxt = 1 - cur
        n_old = nbeam[k]
        used_old = np.zeros(n_old, np.bool_)
        used_child = np.zeros(kept, np.bool_)
        n_new = 0
        while n_new < width:
            # The best remaining memorized position (a game already found) ...
            bo = -1
            for b in range(n_old):
                if not used_old[b] and binfo[k, cur, b, SCORE] > NO_SCORE:
                    if bo < 0 or binfo[k, cur, b, SCORE] > binfo[k, cur, bo, SCORE]:
                        bo = b
            # ... against the best remaining child, uniformly among equal ones (a draw only
            # when several tie, so a width of 1 never draws here), or the first found.
            bc = -1
            n_eq = 0
            for c in range(kept):
                if not used_child[c]:
                    if bc < 0 or cinfo[k, c, CSCORE] > cinfo[k, bc, CSCORE]:
                        bc = c
                        n_eq = 1
                    elif cinfo[k, c, CSCORE] == cinfo[k, bc, CSCORE]:
                        n_eq += 1
                        if first and cinfo[k, c, ORDER] < cinfo[k, bc, ORDER]:
                            bc = c
            if n_eq > 1 and not first:
                pick = below(rng, n_eq)
                for c in range(kept):
                    if not used_child[c] and cinfo[k, c, CSCORE] == cinfo[k, bc, CSCORE]:
                        if pick == 0:
                            bc = c
                            break
                        pick -= 1
            if bo < 0 and bc < 0:
                break
            take_child = bc >= 0 and (bo < 0 or cinfo[k, bc, CSCORE] > binfo[k, cur, bo, SCORE])
            dst_state = bstate[k, nxt, n_new]
            dst_seq = bseq[k, nxt, n_new]
            if take_child:
                used_child[bc] = True
                parent = cinfo[k, bc, PARENT]
                pos = binfo[k, cur, parent, POS]
                length = cinfo[k, bc, CLEN]
                copy_into(dst_state, bstate[k, cur, parent])
                play(dst_state, np.int32(cinfo[k, bc, MOVE]))  # int32: play compiles once
                for j in range(pos):
                    dst_seq[j] = bseq[k, cur, parent, j]
                dst_seq[pos] = cinfo[k, bc, MOVE]
                for j in range(length):
                    dst_seq[pos + 1 + j] = cseq[k, bc, j]
                binfo[k, nxt, n_new, POS] = pos + 1
                binfo[k, nxt, n_new, LEN] = pos + 1 + length
                binfo[k, nxt, n_new, SCORE] = cinfo[k, bc, CSCORE]
            else:
                used_old[bo] = True
                pos = binfo[k, cur, bo, POS]
                length = binfo[k, cur, bo, LEN]
                copy_into(dst_state, bstate[k, cur, bo])
                for j in range(length):
                    dst_seq[j] = bseq[k, cur, bo, j]
                if pos < length:
                    play(dst_state, bseq[k, cur, bo, pos])
                    pos += 1
                binfo[k, nxt, n_new, POS] = pos
                binfo[k, nxt, n_new, LEN] = length
                binfo[k, nxt, n_new, SCORE] = binfo[k, cur, bo, SCORE]
            if merge:
                # Candidates come best first, so a position already in the next beam holds
                # the better game (or the memorized one): this slot is reused.
                h = position_hash(dst_state)
                binfo[k, nxt, n_new, HASH] = h
                duplicate = False
                for j in range(n_new):
                    if binfo[k, nxt, j, HASH] == h and same_position(bstate[k, nxt, j], dst_state):
                        duplicate = True
                        break
                if duplicate:
                    continue
            n_new += 1
        nbeam[k] = n_new
        return nxt

    return advance


def _make_entry(levels, level_search, sample):
    """``beam(state, level, spec, rng, ws, seq, stats)``: the levels compiled, ``level_search``
    (``_make_level``) above level 0, one playout (``sample``) at level 0."""
    if levels >= 2:
        # The entry point of levels 2 and up (``level_brackets`` of the registry records).
        search = level_search

        @njit(inline="always")
        def beam(state, level, spec, rng, ws, seq, stats):
            if level < 2:
                raise ValueError("level below those this search was compiled for")
            return search(state, np.int64(level), spec, rng, ws, seq, stats)

    elif levels == 1:
        # Level 1 called straight from here, not through level_dispatch and a wrapper: numba
        # copies an inlined function's IR into each inlined layer above it.
        level1 = level_search

        @njit(inline="always")
        def beam(state, level, spec, rng, ws, seq, stats):
            if level < 1:
                raise ValueError("level below those this search was compiled for")
            return level1(state, np.int64(1), spec, rng, ws, seq, stats)

    else:
        beam = level_dispatch([sample])

    return beam


def build_beam(game, levels: int = MAX_LEVEL):
    """Jitted beam search functions specialised to ``game``'s kernels, for level 0
    (``levels`` = 0), level 1 (1), or every level from 2 up (2 or more: one function that calls
    itself, ``_make_level``)."""
    play = game.play
    playout = game.playout
    max_moves = game.max_moves
    max_branching = game.max_branching
    target_score = target_score_kernel(game)
    position_size = getattr(game, "POSITION_SIZE", 0)  # 0: the whole state

    # The search functions below that allocate nothing (the levels, keep_child, the position
    # and sort helpers) are compiled without numba's reference counting (_nrt=False): with it
    # Morpion's level-2 beam search ran 1.15 times slower and the left move's level 3 1.6 times
    # (results identical). ``advance`` allocates: its flag is set (_nrt=True) so that it does
    # not take its callers'.
    refcounted_kernels(game)

    position_hash, same_position = _make_position_tests(position_size)
    new_workspace = _make_new_workspace(max_moves, max_branching)
    sample = _make_sample(playout)
    keep_child = _make_keep_child(same_position)
    never_below = _make_never_below()
    advance = _make_advance(play, position_hash, same_position)
    level_search = None  # level 0: one playout, no level function
    if levels >= 1:
        level_search = _make_level(
            levels >= 2, never_below, game, target_score, position_hash, sample, keep_child, advance
        )
    return new_workspace, _make_entry(levels, level_search, sample)


# ---------------------------------------------------------------- registry records

# A beam wider than this is refused (its workspace would hold this many positions per level).
MAX_WIDTH = 1 << 16


class BeamParams(NamedTuple):
    """The parameters of both beam algorithms: one numba type, so that they share one compiled
    entry point per game (``build_beam_search``)."""

    level: int
    spec: np.ndarray  # int64[SPEC_SIZE]: spec[l - 1] is the beam of level l; the rules (beam_spec)
    max_seconds: float  # restarts until this budget is spent (0: no limit of that kind)
    max_playouts: int  # (both 0: one search, algo=beam)


def beam_widths(level: int, beam) -> list[int]:
    """The MAX_LEVEL beam sizes of a level-``level`` search (unused levels get 1); ValueError
    naming ``algo.beam`` if ``beam`` does not fit the level."""
    values: list = []
    try:
        values = [beam] if np.ndim(beam) == 0 else list(beam)
        sizes = [int(s) for s in values if not isinstance(s, bool | np.bool_ | str)]
    except (TypeError, ValueError):
        sizes = []
    if (
        len(sizes) != len(values)
        or not sizes
        or min(sizes) < 1
        or max(sizes) > MAX_WIDTH
        or (len(sizes) > 1 and len(sizes) != level)
    ):
        raise ValueError(
            f"algo.beam = {beam!r}: one size for every level, or {level} sizes [s1, ..., "
            f"s{level}] (s1 at level 1), each from 1 to {MAX_WIDTH}"
        )
    if len(sizes) == 1:
        sizes = sizes * max(level, 1)
    return sizes + [1] * (MAX_LEVEL - len(sizes))


def check_rules(ties, merge_duplicates) -> None:
    """ValueError naming ``algo.ties`` or ``algo.merge_duplicates`` if one is not allowed."""
    if not isinstance(ties, str) or ties not in TIE_RULES:
        raise ValueError(f"algo.ties = {ties!r}: must be one of {', '.join(TIE_RULES)}")
    if not isinstance(merge_duplicates, bool | np.bool_):
        raise ValueError(
            f"algo.merge_duplicates = {merge_duplicates!r}: must be true or false (a boolean)"
        )


def beam_spec(level: int, options, max_playouts: int = 0) -> np.ndarray:
    """The kernel's spec of a search: the beam sizes (``beam_widths``), then the tie rule
    (index in ``TIE_RULES``), the duplicate rule (0/1) and the playout budget that cuts the
    search (0: none)."""
    check_rules(options.ties, options.merge_duplicates)
    rules = [TIE_RULES.index(options.ties), int(bool(options.merge_duplicates))]
    return np.array(beam_widths(level, options.beam) + rules + [int(max_playouts)], np.int64)


@dataclass
class BeamConfig:
    """``algo=beam``: Monte-Carlo Beam Search of ``level`` with beams ``beam`` = [s1, ..., sL]
    (one value: the same at every level); all 1 = nested search with memorization. ``ties``:
    children of equal score ordered at ``random`` or ``first`` found; ``merge_duplicates``: a
    position reached twice in the next beam is kept once (docs/beam.md). Runs to completion,
    or, with ``budget.playouts``, is cut at that playout and returns the best game it found
    (a time budget is refused: the result would depend on the machine)."""

    name: str = "beam"
    beam: list[int] = field(default_factory=lambda: [1])  # beam widths s1..s_level, ground up
    ties: str = added_option("random", "random")  # equal children: random or first (move order)
    merge_duplicates: bool = added_option(False, False)  # true: a position once per beam

    def check(self, settings: Settings) -> None:
        beam_widths(settings.level, self.beam)
        check_rules(self.ties, self.merge_duplicates)
        if settings.max_seconds > 0:
            raise ValueError(
                "budget.seconds: algo=beam is cut by budget.playouts only (a time cut would make "
                "its game depend on the machine); algo=iterative_beam takes both"
            )


@dataclass
class IterativeBeamConfig:
    """``algo=iterative_beam``: beam searches repeated until ``budget.*`` is spent (the same
    options as ``algo=beam``)."""

    name: str = "iterative_beam"
    beam: list[int] = field(default_factory=lambda: [1])  # beam widths s1..s_level, ground up
    ties: str = added_option("random", "random")  # equal children: random or first (move order)
    merge_duplicates: bool = added_option(False, False)  # true: a position once per beam

    def check(self, settings: Settings) -> None:
        beam_widths(settings.level, self.beam)
        check_rules(self.ties, self.merge_duplicates)


def beam_params(options, settings, kernels, state0):
    """One search (no restart budget), cut at ``budget.playouts`` by its spec."""
    return BeamParams(
        int(settings.level), beam_spec(settings.level, options, settings.max_playouts), 0.0, 0
    )


def iterative_beam_params(options, settings, kernels, state0):
    return BeamParams(
        int(settings.level),
        beam_spec(settings.level, options),
        float(settings.max_seconds),
        int(settings.max_playouts),
    )


def _new_workspace(new_beam_workspace):
    """The engine's ``new_workspace`` of both beam algorithms (``inner``: the kernel's
    buffers, sized for the widest beam of the search)."""

    @njit
    def new_workspace(state0, params, stats):
        width = np.int64(1)  # not a literal: one compile of new_beam_workspace
        for k in range(max(params.level, 1)):
            width = max(width, params.spec[k])
        kernel_ws = new_beam_workspace(state0, width)
        seq_len = kernel_ws[6].shape[1]  # cbuf: max moves + 1
        scratch_seq = np.empty(seq_len, np.int32)
        return RestartWorkspace(kernel_ws, stats, np.empty_like(state0), scratch_seq)

    return new_workspace


def build_beam_search(game, levels: int):
    """``(new_workspace, run)`` of both beam algorithms for the engine: beam searches restarted
    (``build_restarts``) until the budget of ``params`` is spent (algo=iterative_beam), or one
    search when it has none (algo=beam: its spec holds the playout budget that cuts it). One
    builder, so one compiled entry point per game serves both (a second one cost about 10 s
    of a first run). A beam search that has started finishes, so a restart budget can be
    overshot by one search (iterative NMCS cuts its running search instead; the beam kernels
    check only the playout budget of their spec)."""
    new_beam_workspace, beam = build_beam(game, levels)

    @njit(inline="always")
    def begin(params, ws, clock):
        pass

    @njit(inline="always")  # no compiled layer between the restarts and the search
    def once(state, params, rng, ws, seq):
        return beam(state, params.level, params.spec, rng, ws.inner, seq, ws.stats), False

    return _new_workspace(new_beam_workspace), build_restarts(game, begin, once)


def beam_dask_plan(options: dict, settings: Settings) -> DaskPlan:
    """Dask: a top-level beam of ``s_L`` on the master over lower beams of widths ``s_1 ..
    s_L-1`` on the workers (at level 1 the children's searches are playouts)."""
    level = settings.level
    widths = beam_widths(level, options.get("beam", BeamConfig().beam))[:level]
    if level == 1:
        return DaskPlan(widths[0], "nested", {})
    return DaskPlan(widths[-1], "beam", {"beam": widths[:-1]})


BEAM = register(
    Algorithm(
        name="beam",
        config=BeamConfig,
        params=beam_params,
        build=build_beam_search,
        needs_budget=None,
        max_level=MAX_LEVEL,
        level_brackets=(0, 1),
        per_level=True,
        dask_plan=beam_dask_plan,
    )
)
ITERATIVE_BEAM = register(
    Algorithm(
        name="iterative_beam",
        config=IterativeBeamConfig,
        params=iterative_beam_params,
        build=build_beam_search,
        needs_budget=True,
        writes_trace=True,
        max_level=MAX_LEVEL,
        level_brackets=(0, 1),
        per_level=True,
    )
)
