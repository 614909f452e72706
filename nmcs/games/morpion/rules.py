"""Morpion Solitaire 5D and 5T (NMCS paper section 5.1, Reflexive paper section 2) on rotated
bitboards with an incrementally maintained list of legal moves.

Rules. The game starts from the standard cross of 36 dots. A move adds one dot and draws a line
of 5 consecutive dots through it (the new dot and 4 existing ones), horizontally, vertically or
diagonally. 5D (disjoint): two lines in the same direction share no dot. 5T (touching): two
lines in the same direction may share one end dot, never more, i.e. they share no unit segment.
Lines in different directions may cross and share dots. Score = number of moves.

Board. 64 x 64 cells, cell (x, y) with y growing downward (Pentasol's convention); the 10 x 10
box of the cross has its top-left corner at (27, 27). Dots may only be placed in the playable
square [4, 59]^2, which leaves 23 free cells beyond the box on every side. The record games
reach 4 cells beyond the box (82 moves, 5D) and 7 (Bruneau's 170 moves, 5T), under a third of
that margin. A line that would leave the playable square is refused
(see MARKS below), so even a game that did reach the margin would stay inside the arrays and
only lose moves there; ``tests/test_morpion.py`` checks that long searched games stay far from
it.

Rotated bitboards. Every cell appears in one 64-bit word per direction, the word of the line
through it in that direction, at bit position t::

    dir  delta    words            word index of (x, y)   bit t
    0 -  (1, 0)   0 .. 63          y                      x
    1 |  (0, 1)   64 .. 127        64 + x                 y
    2 \\  (1, 1)   128 .. 254       128 + x - y + 63       x
    3 /  (1, -1)  255 .. 381       255 + x + y            x

so a window of 5 consecutive cells along a direction is 5 consecutive bits of one word, and
moving along the direction adds 1 to t. The "orientation coordinate" of a cell in direction d
is word * 64 + t (< 24448). Each direction has two planes of 382 words: DOTS (the dot, stored
once per direction) and MARKS (only the direction's own lines). For 5D a mark on a cell means a
line of that direction covers the cell; for 5T a mark at t means the unit segment t -> t + 1 is
covered. A window starting at t is free of conflicts when MARKS bits t..t+4 (5D) or t..t+3
(5T) are clear. Cells outside the playable square carry marks in every direction (for 5T also
the segments leaving it), which is how lines are kept inside.

Move encoding (int32)::

      bit  29 ....... 18  17 ........ 3   2 .. 0
          +-------------+--------------+--------+
          |    cell     |      w       |   k    |     code = cell << 18 | w << 3 | k
          +-------------+--------------+--------+
    cell  the new dot, y * 64 + x (redundant, it makes "same new dot" one comparison)
    w     orientation coordinate of the line's first cell (its word gives the direction)
    k     index of the new dot along the line, 0..4, counting from the first cell along delta

    e.g. the '/' line through (2,4) (3,3) (4,2) (5,1) (6,0), new dot (4,2):
          x: 0 1 2 3 4 5 6
      y 0:   . . . . . . o  <- index 4 (last along delta = (1,-1))
      y 1:   . . . . . o .
      y 2:   . . . . * . .  <- new dot, k = 2
      y 3:   . . . o . . .
      y 4:   . . o . . . .  <- first cell, w = (255 + 2 + 4) * 64 + 2, cell = 2 * 64 + 4
    Pentasol writes this move with k = 0 (its k is 2 - ours, see nmcs.games.morpion.psol).

NRPA code (``code``): the move itself. It names the line (w: its first cell and, by the word,
its direction) and the new dot (cell), which do not depend on the position the move is played
in, so the same move gets the same policy weight at every step. This is the line-and-point
coding of Rosin's Morpion experiments (IJCAI 2011, section 3) and of the public NRPA engines
(e.g. bnegreve/nrpa, which keys a move by its line and dot). Two moves that draw the same line
with different new dots are different codes.

State layout (int64)::

    0 VARIANT  0 = 5D, 1 = 5T        5 SPAN    5-bit (5D) or 4-bit (5T) mark mask of a line
    1 POLICY   0 = random, 1 = mobility
    2 NMOVES   moves played (score)  6 CAP     capacity of the legal-move list
    3 NCAND    legal moves listed    7 MAXMOV  bound on the number of moves (141 / 705)
    4 RADIUS   4 (5D) or 3 (5T)      8..15 reserved
    16 ..  398   DOTS  [382]
    398 .. 780   MARKS [382]
    780 .. 780 + CAP + 20   the legal moves, exactly and in a deterministic order; slots past
                            NCAND are zero (20 spare slots serve the random playout)

Incremental legal moves. After a move with new dot p and line starting at w, a listed move
dies iff its new dot is p or |w' - w| <= RADIUS (same direction), the windows that share a
cell (5D) or a segment (5T) with the new line; windows of different words are never that close
because window starts lie in [4, 55]. New moves can only be windows containing p; for each
direction the 9 bits around p of DOTS and MARKS index two 512-entry tables that give the
windows with exactly 4 dots and no conflict. So ``play`` costs one pass over the list plus
four table lookups, with no scan of the board. The random playout does not even pass over the
list: it drops a dead move only when it draws one (see ``_playout_random``).

Bounds. 5D: each (dot, direction) pair unmarked in that direction is used by at most 5 windows;
there are 144 - m such pairs after m moves and a legal window needs 4, so there are at most
180 legal moves and at most 141 moves (Demaine et al. 2006). 5T: the free half-edges at dots
stay 288 (a move adds 8 and uses 8), so at most 144 free segments join two dots; a legal
window holds at least 2 of them and a segment lies in at most 4 windows, so at most 288 legal
moves; games have at most 705 moves (Demaine et al. 2006).

Playouts: uniform random, or mobility (Reflexive paper 2.3): uniformly among the moves that
lead to a position with the most legal moves, counted without playing them.
"""

import functools

import numpy as np
from numba import njit

from nmcs.core.rng import below

NAME = "morpion"
VARIANTS = ("5D", "5T")
POLICIES = ("random", "mobility")

SIZE = 64
LO, HI = 4, 59  # playable square [LO, HI]^2
BOX = 27  # top-left corner of the 10 x 10 box of the starting cross
N_WORDS = 382
WORD_BASE = (0, 64, 128, 255)
DELTAS = ((1, 0), (0, 1), (1, 1), (1, -1))
CELL_STEP = (1, 64, 65, -63)  # y * 64 + x moves by this along each direction
DIR_CHARS = "-|\\/"

VARIANT, POLICY, NMOVES, NCAND, RADIUS, SPAN, CAP, MAXMOV = 0, 1, 2, 3, 4, 5, 6, 7
DOTS = 16
MARKS = DOTS + N_WORDS
CAND = MARKS + N_WORDS
MAX_BRANCHING = (180, 288)
# The position is the header and the two planes; the list of legal moves after them is the same
# set for the same position, but in an order that depends on how it was reached.
POSITION_SIZE = CAND
SLACK = 20  # room for the windows one move adds (at most 4 directions x 5) beyond CAP
MAX_MOVES = (141, 705)
RANDOM, MOBILITY = 0, 1

CROSS_ROWS = (
    "...####...",
    "...#..#...",
    "...#..#...",
    "####..####",
    "#........#",
    "#........#",
    "####..####",
    "...#..#...",
    "...#..#...",
    "...####...",
)


def _tables():
    win4 = np.zeros(512, np.int64)  # windows j (bits j..j+4) holding exactly 4 dots
    free = np.zeros((2, 512), np.int64)  # windows with no conflicting mark, per variant
    empty = np.zeros(512 * 5, np.int64)  # index of the empty cell of window j
    for m in range(512):
        for j in range(5):
            w = (m >> j) & 31
            if bin(w).count("1") == 4:
                win4[m] |= 1 << j
                empty[m * 5 + j] = (~w & 31).bit_length() - 1
            if (m >> j) & 31 == 0:
                free[0, m] |= 1 << j
            if (m >> j) & 15 == 0:
                free[1, m] |= 1 << j
    low = np.array([(i & -i).bit_length() - 1 if i else 0 for i in range(32)], np.int64)
    dirs = np.array([sum(lw >= b for b in WORD_BASE) - 1 for lw in range(N_WORDS)], np.int64)
    # Bytes keep the tables (3.6 kB) in L1 next to the state.
    small = (win4.astype(np.int8), free.ravel().astype(np.int8), empty.astype(np.int8))
    return *small, low.astype(np.int8), dirs


WIN4, FREE, EMPTY, LOWBIT, WORD_DIR = _tables()


def coord(d, x, y):
    """Orientation coordinate of cell (x, y) in direction d (plain Python)."""
    if d == 0:
        return y * 64 + x
    if d == 1:
        return (64 + x) * 64 + y
    if d == 2:
        return (128 + x - y + 63) * 64 + x
    return (255 + x + y) * 64 + x


def encode(x, y, d, k):
    """Code of the move adding (x, y) on the direction-d line whose first cell is k steps back."""
    dx, dy = DELTAS[d]
    return (y * 64 + x) << 18 | coord(d, x - k * dx, y - k * dy) << 3 | k


def decode(code):
    """(x, y, d, k) of a move code: new dot, direction, index of the dot along the line."""
    code = int(code)
    w, k = (code >> 3) & 32767, code & 7
    d = int(WORD_DIR[w >> 6])
    return (code >> 18) & 63, code >> 24, d, k


def line_cells(code):
    """The 5 cells of a move's line, in order along its direction."""
    x, y, d, k = decode(code)
    dx, dy = DELTAS[d]
    return [(x + (i - k) * dx, y + (i - k) * dy) for i in range(5)]


def _cell(d, lw, t):
    if d == 0:
        return t, lw
    if d == 1:
        return lw - 64, t
    if d == 2:
        return t, t - (lw - 128) + 63
    return t, (lw - 255) - t


def cross_cells():
    """The 36 dots of the starting cross, as board cells."""
    return [
        (BOX + c, BOX + r)
        for r, row in enumerate(CROSS_ROWS)
        for c, ch in enumerate(row)
        if ch == "#"
    ]


@functools.cache
def _start_words(v: int) -> tuple[np.ndarray, np.ndarray]:
    """The MARKS and DOTS words of variant ``v``'s starting position (as int64), the same in
    every game: computed once (a Python loop over every bit, 12 ms a state)."""

    def inside(x, y):
        return LO <= x <= HI and LO <= y <= HI

    marks = np.zeros(N_WORDS, np.uint64)
    for d in range(4):
        dx, dy = DELTAS[d]
        for lw in range(WORD_BASE[d], WORD_BASE[d + 1] if d < 3 else N_WORDS):
            for t in range(64):
                x, y = _cell(d, lw, t)
                out = not inside(x, y)
                if v == 1:  # 5T marks segments: also the one leaving the square
                    out = out or not inside(x + dx, y + dy)
                if out:
                    marks[lw] |= np.uint64(1) << np.uint64(t)
    dots = np.zeros(N_WORDS, np.uint64)
    for x, y in cross_cells():
        for d in range(4):
            o = coord(d, x, y)
            dots[o >> 6] |= np.uint64(1) << np.uint64(o & 63)
    words = marks.view(np.int64), dots.view(np.int64)
    for w in words:
        w.flags.writeable = False  # shared by every call
    return words


def make_state(variant="5D", policy="random"):
    """The starting cross for ``variant`` (5D or 5T) with playout ``policy`` (random or
    mobility)."""
    if variant not in VARIANTS:
        raise ValueError(f"game.variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if policy not in POLICIES:
        raise ValueError(f"game.policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    v = VARIANTS.index(variant)
    cap = MAX_BRANCHING[v]
    state = np.zeros(CAND + cap + SLACK, np.int64)
    state[VARIANT] = v
    state[POLICY] = POLICIES.index(policy)
    state[RADIUS] = 4 if v == 0 else 3
    state[SPAN] = 31 if v == 0 else 15
    state[CAP] = cap
    state[MAXMOV] = MAX_MOVES[v]
    marks, dots = _start_words(v)
    state[MARKS : MARKS + N_WORDS] = marks
    state[DOTS : DOTS + N_WORDS] = dots
    _init_moves(state)
    return state


@njit(cache=True)
def _init_moves(state):
    # Every window holding 4 dots contains a dot, so the windows around each dot find them all;
    # a window is listed once, from the first of its dots in scan order.
    n = 0
    span_free = FREE[state[VARIANT] * 512 :]
    for y in range(LO, HI + 1):
        for x in range(LO, HI + 1):
            if not (state[DOTS + y] >> x) & 1:
                continue
            for d in range(4):
                o = _coord(d, x, y)
                lw = o >> 6
                t = o & 63
                m = (state[DOTS + lw] >> (t - 4)) & 511
                mk = (state[MARKS + lw] >> (t - 4)) & 511
                win = WIN4[m] & span_free[mk]
                while win:
                    j = LOWBIT[win]
                    win &= win - 1
                    kk = EMPTY[m * 5 + j]
                    q = y * 64 + x + (j + kk - 4) * CELL_STEP[d]
                    code = (q << 18) | ((o - 4 + j) << 3) | kk
                    dup = False
                    for i in range(n):
                        if state[CAND + i] == code:
                            dup = True
                    if not dup:
                        state[CAND + n] = code
                        n += 1
    state[NCAND] = n


@njit(cache=True)
def _coord(d, x, y):
    if d == 0:
        return (y << 6) | x
    if d == 1:
        return ((64 + x) << 6) | y
    if d == 2:
        return ((191 + x - y) << 6) | x
    return ((255 + x + y) << 6) | x


@njit(cache=True)
def max_moves(state):
    return state[MAXMOV]


@njit(cache=True)
def max_branching(state):
    return state[CAP]


@njit(cache=True)
def legal_moves(state, out):
    n = state[NCAND]
    for i in range(n):
        out[i] = state[CAND + i]
    return n


@njit(cache=True)
def score(state):
    return state[NMOVES]


@njit(cache=True)
def code(state, move):
    """NRPA move code: the move itself (its line and new dot, see the module docstring)."""
    return np.int64(move)


@njit(cache=True)
def play(state, move):
    _play(state, np.int64(move))


@njit(cache=True)
def _play(state, code):
    p = code >> 18
    w = (code >> 3) & 32767
    x = p & 63
    y = p >> 6
    o0 = _coord(0, x, y)
    o1 = _coord(1, x, y)
    o2 = _coord(2, x, y)
    o3 = _coord(3, x, y)
    one = np.int64(1)
    state[DOTS + (o0 >> 6)] |= one << (o0 & 63)
    state[DOTS + (o1 >> 6)] |= one << (o1 & 63)
    state[DOTS + (o2 >> 6)] |= one << (o2 & 63)
    state[DOTS + (o3 >> 6)] |= one << (o3 & 63)
    state[MARKS + (w >> 6)] |= state[SPAN] << (w & 63)
    state[NMOVES] += 1
    # Drop the moves this one kills: same new dot, or a window overlapping the new line
    # (|w' - w| <= radius as one unsigned comparison). Writing every entry and advancing the
    # write index by the test keeps the loop free of unpredictable branches.
    radius = state[RADIUS]
    lo = np.uint64(w - radius)
    width = np.uint64(2 * radius)
    n = state[NCAND]
    kept = 0
    for i in range(n):
        c = state[CAND + i]
        state[CAND + kept] = c
        dead = ((c >> 18) == p) | ((np.uint64((c >> 3) & 32767) - lo) <= width)
        kept += 1 - np.int64(dead)
    # Add the windows through the new dot that now hold 4 dots and no conflict.
    free_base = state[VARIANT] * 512
    kept = _add_windows(state, o0, p, 1, free_base, kept)
    kept = _add_windows(state, o1, p, 64, free_base, kept)
    kept = _add_windows(state, o2, p, 65, free_base, kept)
    kept = _add_windows(state, o3, p, -63, free_base, kept)
    # Slots past the list stay zero, so equal positions are equal arrays.
    for i in range(kept, n):
        state[CAND + i] = 0
    state[NCAND] = kept


@njit(cache=True)
def _add_windows(state, o, p, step, free_base, n):
    lw = o >> 6
    t = o & 63
    m = (state[DOTS + lw] >> (t - 4)) & 511
    mk = (state[MARKS + lw] >> (t - 4)) & 511
    win = WIN4[m] & FREE[free_base + mk]
    while win:
        j = LOWBIT[win]
        win &= win - 1
        k = EMPTY[m * 5 + j]
        state[CAND + n] = ((p + (j + k - 4) * step) << 18) | ((o - 4 + j) << 3) | k
        n += 1
    return n


@njit(cache=True)
def _count_windows(dots_word, marks_word, t, free_base):
    m = (dots_word >> (t - 4)) & 511
    mk = (marks_word >> (t - 4)) & 511
    win = WIN4[m] & FREE[free_base + mk]
    # at most 5 windows: popcount of a 5-bit mask
    return (win & 1) + ((win >> 1) & 1) + ((win >> 2) & 1) + ((win >> 3) & 1) + (win >> 4)


@njit(cache=True)
def mobility_after(state, code):
    """Number of legal moves after playing ``code``, computed without playing it."""
    p = code >> 18
    w = (code >> 3) & 32767
    x = p & 63
    y = p >> 6
    o0 = _coord(0, x, y)
    o1 = _coord(1, x, y)
    o2 = _coord(2, x, y)
    o3 = _coord(3, x, y)
    radius = state[RADIUS]
    lo = np.uint64(w - radius)
    width = np.uint64(2 * radius)
    n = state[NCAND]
    kept = 0
    for i in range(n):
        c = state[CAND + i]
        dead = ((c >> 18) == p) | ((np.uint64((c >> 3) & 32767) - lo) <= width)
        kept += 1 - np.int64(dead)
    free_base = state[VARIANT] * 512
    line_word = w >> 6
    line_marks = state[SPAN] << (w & 63)
    one = np.int64(1)
    for dd in range(4):
        o = o0 if dd == 0 else (o1 if dd == 1 else (o2 if dd == 2 else o3))
        lw = o >> 6
        t = o & 63
        mw = state[MARKS + lw]
        if lw == line_word:
            mw |= line_marks
        kept += _count_windows(state[DOTS + lw] | (one << t), mw, t, free_base)
    return kept


@njit(cache=True)
def playout(state, rng, moves, record):
    if state[POLICY] == MOBILITY:
        return _playout_mobility(state, rng, moves, record)
    return _playout_random(state, rng, moves, record)


@njit(cache=True)
def _playout_random(state, rng, moves, record):
    # Lazy deletion: a move leaves the list only when it is drawn and found dead (its dot is
    # taken or a same-direction line now overlaps it). A draw is uniform over the list, so the
    # first live move drawn is uniform over the legal moves, and a move costs no scan of the
    # list. Dead entries are at most the few each move kills; if they ever filled the slack the
    # list is compacted. At the end the list is empty and its slots are zeroed, so the final
    # array equals the one ``play`` reaches with the same moves.
    span = state[SPAN]
    limit = state[CAP]
    free_base = state[VARIANT] * 512
    n = state[NCAND]
    used = n
    played = 0
    one = np.int64(1)
    while n > 0:
        i = below(rng, n)
        c = state[CAND + i]
        p = c >> 18
        w = (c >> 3) & 32767
        x = p & 63
        y = p >> 6
        if ((state[DOTS + y] >> x) & 1) | ((state[MARKS + (w >> 6)] >> (w & 63)) & span):
            n -= 1
            state[CAND + i] = state[CAND + n]
            continue
        if record:
            moves[played] = c
        played += 1
        o0 = _coord(0, x, y)
        o1 = _coord(1, x, y)
        o2 = _coord(2, x, y)
        o3 = _coord(3, x, y)
        state[DOTS + (o0 >> 6)] |= one << (o0 & 63)
        state[DOTS + (o1 >> 6)] |= one << (o1 & 63)
        state[DOTS + (o2 >> 6)] |= one << (o2 & 63)
        state[DOTS + (o3 >> 6)] |= one << (o3 & 63)
        state[MARKS + (w >> 6)] |= span << (w & 63)
        # The played entry is now dead too: drop it at once.
        n -= 1
        state[CAND + i] = state[CAND + n]
        if n > limit:
            n = _compact(state, n, span)
        n = _add_windows(state, o0, p, 1, free_base, n)
        n = _add_windows(state, o1, p, 64, free_base, n)
        n = _add_windows(state, o2, p, 65, free_base, n)
        n = _add_windows(state, o3, p, -63, free_base, n)
        used = max(used, n)
    for i in range(used):
        state[CAND + i] = 0
    state[NCAND] = 0
    state[NMOVES] += played
    return played


@njit(cache=True)
def _compact(state, n, span):
    """Keep the live entries of the list (at most CAP of them) in order; return how many."""
    kept = 0
    for i in range(n):
        c = state[CAND + i]
        p = c >> 18
        w = (c >> 3) & 32767
        dead = ((state[DOTS + (p >> 6)] >> (p & 63)) & 1) | (
            (state[MARKS + (w >> 6)] >> (w & 63)) & span
        )
        if dead == 0:
            state[CAND + kept] = c
            kept += 1
    return kept


@njit(cache=True)
def _playout_mobility(state, rng, moves, record):
    played = 0
    while True:
        n = state[NCAND]
        if n == 0:
            return played
        best = -1
        ties = 0
        choice = state[CAND]
        for i in range(n):
            c = state[CAND + i]
            v = mobility_after(state, c)
            if v > best:
                best = v
                ties = 1
                choice = c
            elif v == best:
                ties += 1
                if below(rng, ties) == 0:
                    choice = c
        if record:
            moves[played] = choice
        _play(state, choice)
        played += 1
