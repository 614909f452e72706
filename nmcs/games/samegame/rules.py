"""SameGame (NMCS paper, section 5.2): remove groups of same-coloured cells on a W x H grid.

A move removes a group of at least 2 orthogonally connected cells of one colour and scores
(n - 2)^2; the cells above fall down, and an empty column is closed by shifting the columns on
its right to the left; clearing the board adds 1,000. The game ends when no group of 2 or more
cells remains (the cells left on the board cost nothing).

State layout (int32[8 + W + K + W*H])::

    index:  0   1   2   3        4       5        6       7
          +---+---+---+--------+-------+--------+-------+-------+
          | W | H | K | POLICY | SCORE | PLAYED | NCOLS | CELLS |      header
          +---+---+---+--------+-------+--------+-------+-------+
          | HEIGHTS[0 .. W-1]        cells in each column               offset 8
          | COUNTS[0 .. K-1]         cells of each colour               offset 8 + W
          | GRID[0 .. W*H-1]         colour of cell i = c*H + r, or -1  offset 8 + W + K
          +--------------------------------------------------------------

    W, H, K  width, height and number of colours
    POLICY   playout policy: 0 = uniform random over groups, 1 = TabuColorRandom, 2 = every
             group with GNRPA's bias against the tabu colour (policy steps only)
    SCORE    points so far; PLAYED moves so far
    NCOLS    non-empty columns (always the leftmost NCOLS); CELLS cells left on the board

GRID is column-major with row 0 at the BOTTOM (gravity compacts a column towards index c*H,
closing a column shifts whole H-cell blocks), so the board as drawn is::

          column 0     column 1           column W-1
    r=H-1 | H-1      | 2H-1     | ...   | W*H-1   |   top
     ...  | ...      | ...      |       | ...     |
    r=1   | 1        | H+1      |       | (W-1)H+1|
    r=0   | 0        | H        | ...   | (W-1)H  |   bottom

Every cell above HEIGHTS[c] and every cell of a column >= NCOLS is -1, so two states of the same
position are equal arrays. The state holds no scratch space: the search copies it once per child,
and a canonical state is what the conformance test compares.

Move encoding: the smallest cell index i = c*H + r of the group in the CURRENT board (its
leftmost column, lowest cell there). ``legal_moves`` lists them in increasing order.

NRPA code (``code``): ``cell * MAX_COLORS + colour``, the group's reference cell (the move
above, in the current board's coordinates) and its colour. The NRPA SameGame literature codes a
move by its colour and the cells of its group (Cazenave's NRPA/GNRPA SameGame experiments, e.g.
Cazenave 2020, "Generalized Nested Rollout Policy Adaptation", arXiv:2003.10024, section on
SameGame, as we read it; we could not check the exact hashing). A hash of the whole cell set
needs a flood fill per legal move per step; we take the cheaper (cell, colour) pair, which
names the same group when the board below and left of it is unchanged. See docs/nrpa.md.

Playouts: POLICY 0 picks uniformly among all groups. POLICY 1 is TabuColorRandom (Schadd et al.
2008, as Cazenave states it): at the start of the playout the colour with the most cells is tabu
(ties go to the lowest colour number); a tabu move is played only if no other move exists, or if
it removes all the remaining cells of the tabu colour. A playout copies the board once into
bitboards (one uint64 per column and colour, H <= 64, in a scratch buffer allocated once per
playout, never per move) and picks each move by rejection sampling (see ``playout``), so it
never lists all the groups. ``play`` and ``legal_moves`` use a separate, allocation-free
depth-first search that keeps its stack in the grid itself (pointer reversal); the conformance
test checks each against the other by replaying playouts move by move.
"""

import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit
from numba.core import types as nbtypes
from numba.extending import intrinsic

from nmcs.core.rng import below

NAME = "samegame"
HDR = 8
WIDTH, HEIGHT, COLORS, POLICY, SCORE, PLAYED, NCOLS, CELLS = range(HDR)
POLICY_RANDOM, POLICY_TABU, POLICY_BIAS = 0, 1, 2
# A small board for tests that run deep searches (a level-2 search on a 15x15 board takes
# minutes): make_state(**SMALL_OPTIONS).
SMALL_OPTIONS = dict(instance=None, width=8, height=8, colors=4, board_seed=0)
POLICIES = {"random": POLICY_RANDOM, "tabu": POLICY_TABU, "bias": POLICY_BIAS}
# GNRPA's beta of a group of the tabu colour under POLICY_BIAS (every other group: 0): such a
# group is e^2, about 7.4 times, less likely than another of equal weight. Not tuned.
TABU_BETA = -2.0
# The policy steps write betas (POLICY_BIAS): GNRPA's bias is compiled in.
POLICY_BETAS = True
EMPTY = -1
CLEAR_BONUS = 1000
MAX_SIDE = 64
MAX_COLORS = 20
# The searches pass the playout's ``record`` flag as a run-time bool, not a literal (see
# ``nmcs.search.anytime.playout_caller``): one compiled playout instead of two.
RECORD_AT_RUN_TIME = True


# ---------------------------------------------------------------------------------------------
# Python level


def state_from_grid(grid, colors=None, policy="tabu"):
    """State of a board given as an H x W array of colours (-1 = empty), row 0 = TOP row, as the
    board files and pictures show it. Empty cells must lie above the others in their column and
    empty columns on the right (the shape a game can reach)."""
    grid = np.asarray(grid)
    if grid.ndim != 2 or grid.size == 0:
        raise ValueError(f"board must be a non-empty 2-D array, got shape {grid.shape}")
    h, w = grid.shape
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"board size {w}x{h}: width and height must be 1..{MAX_SIDE}")
    if colors is None:
        colors = int(grid.max()) + 1 if (grid >= 0).any() else 1
    if not 1 <= colors <= MAX_COLORS:
        raise ValueError(f"game.colors must be 1..{MAX_COLORS}, got {colors}")
    if policy not in POLICIES:
        raise ValueError(f"game.policy must be one of {', '.join(POLICIES)}, got '{policy}'")
    if grid.min() < EMPTY or grid.max() >= colors:
        raise ValueError(f"board colours must be in 0..{colors - 1} (or -1 for empty)")
    state = np.full(HDR + w + colors + w * h, EMPTY, dtype=np.int32)
    state[:HDR] = 0
    state[[WIDTH, HEIGHT, COLORS, POLICY]] = w, h, colors, POLICIES[policy]
    cols = grid[::-1].T  # cols[c, r], r = 0 at the bottom
    goff = HDR + w + colors
    ncols = 0
    for c in range(w):
        filled = cols[c] >= 0
        hc = int(filled.sum())
        if not filled[:hc].all():
            raise ValueError(f"board column {c} has an empty cell below a filled one")
        if hc > 0 and ncols != c:
            raise ValueError(f"board column {c} is filled but a column on its left is empty")
        if hc > 0:
            ncols = c + 1
        state[HDR + c] = hc
        state[goff + c * h : goff + (c + 1) * h] = cols[c]
    for x in range(colors):
        state[HDR + w + x] = int((grid == x).sum())
    state[NCOLS] = ncols
    state[CELLS] = int((grid >= 0).sum())
    return state


def to_grid(state):
    """The board as an H x W array of colours (-1 = empty), row 0 = TOP row."""
    w, h, k = int(state[WIDTH]), int(state[HEIGHT]), int(state[COLORS])
    goff = HDR + w + k
    cols = np.asarray(state[goff : goff + w * h]).reshape(w, h)
    return cols.T[::-1].copy()


def cell_of(state, move):
    """(column from the left, row from the bottom) of move code ``move``."""
    h = int(state[HEIGHT])
    return int(move) // h, int(move) % h


def describe(state0, moves):
    """Moves as 'column,row(+points)' from the left/bottom of the board at each move."""
    state = state0.copy()
    parts = []
    for m in moves:
        before = int(state[SCORE])
        c, r = cell_of(state, m)
        play(state, np.int32(m))
        parts.append(f"{c},{r}(+{int(state[SCORE]) - before})")
    return " ".join(parts)


# ---------------------------------------------------------------------------------------------
# Kernels


@njit(cache=True)
def max_moves(state):
    # Every move removes at least two cells.
    return max(1, state[WIDTH] * state[HEIGHT] // 2)


@njit(cache=True)
def max_branching(state):
    # Groups of two or more cells are disjoint.
    return max(1, state[WIDTH] * state[HEIGHT] // 2)


@njit(cache=True)
def score(state):
    return state[SCORE]


@njit(cache=True)
def code(state, move):
    """NRPA move code: (reference cell, colour) = ``move * MAX_COLORS + colour``."""
    colour = state[HDR + state[WIDTH] + state[COLORS] + move]
    return np.int64(move) * MAX_COLORS + np.int64(colour)


@njit(cache=True, inline="always")
def _neighbour(i, d, w, h):
    """Cell next to i in direction d (0 up, 1 down, 2 left, 3 right), or -1 off the grid."""
    if d == 0:
        return i + 1 if i % h != h - 1 else -1
    if d == 1:
        return i - 1 if i % h != 0 else -1
    if d == 2:
        return i - h if i >= h else -1
    return i + h if i + h < w * h else -1


@njit(cache=True)
def _mark_group(state, start):
    """Mark the group of cell ``start`` by depth-first search and return its size.

    A visited cell of colour x holds x + K * (1 + p), p being the direction back to the cell it
    was reached from (4 for ``start``): the grid is the DFS stack, so nothing is allocated.
    Visited values are >= K, so a cell is never entered twice."""
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    x = state[g + start]
    state[g + start] = x + k * 5
    size = 1
    cur = start
    d = 0
    while True:
        while d < 4:
            nb = _neighbour(cur, d, w, h)
            if nb >= 0 and state[g + nb] == x:
                state[g + nb] = x + k * (1 + (d ^ 1))
                size += 1
                cur = nb
                d = 0
            else:
                d += 1
        back = state[g + cur] // k - 1
        if back == 4:
            return size
        parent = _neighbour(cur, back, w, h)
        d = (back ^ 1) + 1  # resume the parent after the direction that led here
        cur = parent


@njit(cache=True)
def _unmark(state, first_col):
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    for c in range(first_col, state[NCOLS]):
        for i in range(c * h, c * h + state[HDR + c]):
            if state[g + i] >= k:
                state[g + i] %= k


@njit(cache=True)
def legal_moves(state, out):
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    n = 0
    for c in range(state[NCOLS]):
        for i in range(c * h, c * h + state[HDR + c]):
            # Unvisited cells hold their colour; cells of groups found earlier hold >= K, so
            # the first cell met of each group is its smallest index.
            if state[g + i] < k and _mark_group(state, i) >= 2:
                out[n] = i
                n += 1
    _unmark(state, 0)
    return n


@njit(cache=True)
def _collapse(state, cmin, cmax):
    """Let cells fall in columns cmin..cmax, dropping every cell whose value is not a colour
    (removed cells), then close the columns that became empty."""
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    emptied = False
    for c in range(cmin, cmax + 1):
        base = g + c * h
        top = state[HDR + c]
        dst = 0
        for r in range(top):
            v = state[base + r]
            if 0 <= v < k:
                state[base + dst] = v
                dst += 1
        for r in range(dst, top):
            state[base + r] = EMPTY
        state[HDR + c] = dst
        if dst == 0:
            emptied = True
    if emptied:
        ncols = state[NCOLS]
        dst = cmin
        for c in range(cmin, ncols):
            hc = state[HDR + c]
            if hc == 0:
                continue
            if dst != c:
                src = g + c * h
                to = g + dst * h
                for r in range(hc):
                    state[to + r] = state[src + r]
                    state[src + r] = EMPTY
                state[HDR + dst] = hc
                state[HDR + c] = 0
            dst += 1
        state[NCOLS] = dst


@njit(cache=True, inline="always")
def _score_move(state, color, size):
    state[SCORE] += (size - 2) * (size - 2)
    state[PLAYED] += 1
    state[HDR + state[WIDTH] + color] -= size
    state[CELLS] -= size
    if state[CELLS] == 0:
        state[SCORE] += CLEAR_BONUS


@njit(cache=True)
def play(state, move):
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    color = state[g + move]
    # int64 as in legal_moves: one compile of _mark_group, not one per integer type (0.4 s of
    # a first run)
    size = _mark_group(state, np.int64(move))
    # The group's cells are the values >= K; scan only the columns it can reach.
    cmin = move // h
    cmax = cmin
    found = 0
    i = move
    while found < size:
        if state[g + i] >= k:
            found += 1
            cmax = i // h
        i += 1
    _collapse(state, cmin, cmax)
    _score_move(state, color, size)


# Playout scratch: one uint64 buffer per playout (allocated once per playout, never per move),
# a block of K + 1 words per column slot; slot s = c + 1 holds column c, and slots 0 and W + 1
# are zero padding (as are the words of columns >= NCOLS), so the left and right neighbours of
# a column need no bounds test:
#   [s*B, s*B + K)   BITS: bit r of word x is set iff cell (c, r) has colour x (r = 0 at the
#                    bottom, H <= 64)
#   s*B + K          the group being filled: its cells in column c (zero outside a fill)
# and after the (W + 2) * B words, two more rows of W + 2 words:
#   ALLOWED[s]       cells of column c that have a neighbour of their colour, allowed colours
#   TABUADJ[s]       the same for the tabu colour
# where B = K + 1.

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@intrinsic
def _popcount(typingctx, x):
    """Number of set bits of a uint64."""

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return nbtypes.uint64(nbtypes.uint64), codegen


@intrinsic
def _ctz(typingctx, x):
    """Index of the lowest set bit of a non-zero uint64."""

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], llvm_ir.Constant(llvm_ir.IntType(1), 1))

    return nbtypes.uint64(nbtypes.uint64), codegen


@njit(cache=True, inline="always")
def _vfill(m, s):
    """The runs of column mask ``m`` that hold a bit of ``s`` (s a subset of m)."""
    while True:
        t = (s | (s << _ONE) | (s >> _ONE)) & m
        if t == s:
            return s
        s = t


@njit(cache=True, inline="always")
def _fill_group(buf, b, x, c0, seed, ncols):
    """Fill the group of colour x holding the bits ``seed`` of column c0 into the group words
    (buf[s*b + b - 1]); return (size, first column, last column). ``todo`` holds the columns
    to check (bit c for column c, W <= 64): those next to a column whose part grew."""
    gw = b - 1
    g0 = _vfill(buf[(c0 + 1) * b + x], seed)
    buf[(c0 + 1) * b + gw] = g0
    n = np.int64(_popcount(g0))
    lo = c0
    hi = c0
    todo = _ZERO
    if c0 > 0:
        todo |= _ONE << np.uint64(c0 - 1)
    if c0 < ncols - 1:
        todo |= _ONE << np.uint64(c0 + 1)
    while todo != _ZERO:
        c = np.int64(_ctz(todo))
        todo &= todo - _ONE
        i = (c + 1) * b
        old = buf[i + gw]
        m = buf[i + x]
        grow = m & (buf[i - b + gw] | buf[i + b + gw]) & ~old
        if grow != _ZERO:
            new = _vfill(m, old | grow)
            buf[i + gw] = new
            n += np.int64(_popcount(new & ~old))
            if c < lo:
                lo = c
            if c > hi:
                hi = c
            if c > 0:
                todo |= _ONE << np.uint64(c - 1)
            if c < ncols - 1:
                todo |= _ONE << np.uint64(c + 1)
    return n, lo, hi


@njit(cache=True, inline="always")
def _clear_group(buf, b, lo, hi):
    for c in range(lo, hi + 1):
        buf[(c + 1) * b + b - 1] = _ZERO


@njit(cache=True, inline="always")
def _select(buf, row, j):
    """Column and bit (as a one-bit mask) of the j-th set bit of the masks buf[row + 1 ...]."""
    c = 0
    while True:
        m = buf[row + c + 1]
        p = np.int64(_popcount(m))
        if j < p:
            break
        j -= p
        c += 1
    for _ in range(j):
        m &= m - _ONE
    return c, m & ~(m - _ONE)


@njit(cache=True, inline="always")
def _adjacency(buf, b, k, tabu, c_from, c_to):
    """Mark, in columns c_from..c_to, the cells that have a neighbour of their colour (ALLOWED
    and TABUADJ); return how many marks each row gained."""
    w2 = buf.shape[0] // (b + 2)
    allowed = w2 * b
    tabuadj = allowed + w2
    df = 0
    db = 0
    for c in range(c_from, c_to + 1):
        i = (c + 1) * b
        al = _ZERO
        for x in range(k):
            m = buf[i + x]
            al |= m & ((m << _ONE) | (m >> _ONE) | buf[i - b + x] | buf[i + b + x])
        tb = _ZERO
        if tabu >= 0:
            m = buf[i + tabu]
            tb = m & ((m << _ONE) | (m >> _ONE) | buf[i - b + tabu] | buf[i + b + tabu])
            al ^= tb  # colours are disjoint: tb is a subset of al
        df += np.int64(_popcount(al)) - np.int64(_popcount(buf[allowed + c + 1]))
        db += np.int64(_popcount(tb)) - np.int64(_popcount(buf[tabuadj + c + 1]))
        buf[allowed + c + 1] = al
        buf[tabuadj + c + 1] = tb
    return df, db


@njit(cache=True, inline="always")
def _to_bitboards(state, buf, b, g, h):
    """Each column's cells as one uint64 per colour, in ``buf``'s column blocks."""
    for c in range(state[NCOLS]):
        for r in range(state[HDR + c]):
            i = (c + 1) * b + state[g + c * h + r]
            buf[i] |= _ONE << np.uint64(r)


@njit(cache=True, inline="always")
def _from_bitboards(state, buf, b, k, g, h, ncols0):
    """The grid of ``state`` rewritten from the column blocks of ``buf``."""
    for c in range(ncols0):
        for r in range(h):
            state[g + c * h + r] = EMPTY
    for c in range(state[NCOLS]):
        for x in range(k):
            m = buf[(c + 1) * b + x]
            while m != _ZERO:
                state[g + c * h + np.int64(_ctz(m))] = x
                m &= m - _ONE


@njit(cache=True, inline="always")
def _tabu_colour(state, cnt, k):
    """The colour the tabu policy keeps for last (the most frequent), -1 without the policy."""
    tabu = -1
    if state[POLICY] == POLICY_TABU:
        most = 0
        for x in range(k):
            if state[cnt + x] > most:
                most = state[cnt + x]
                tabu = x
    return tabu


@njit(cache=True, inline="always")
def _draw_group(buf, rng, b, nf, total, ncols, allowed, tabuadj):
    """A group drawn uniformly among the marked ones (the first ``nf`` allowed, the rest
    tabu), by rejection (see ``playout``): its colour, size and first and last columns, the
    group's cells left marked in the group word of its columns."""
    while True:
        j = below(rng, total)
        if j < nf:
            c, bit = _select(buf, allowed, j)
        else:
            c, bit = _select(buf, tabuadj, j - nf)
        i = (c + 1) * b
        x = 0
        while buf[i + x] & bit == _ZERO:
            x += 1
        n, lo, hi = _fill_group(buf, b, x, c, bit, ncols)
        if below(rng, n) < 2:
            return x, n, lo, hi
        _clear_group(buf, b, lo, hi)


@njit(cache=True, inline="always")
def _remove_group(state, buf, b, k, lo, hi):
    """Take the marked group out of columns ``lo`` to ``hi``: in each, its runs of cells from
    the lowest up, shifting every colour word down by the run's length above each run.
    Returns whether a column was emptied."""
    emptied = False
    for c in range(lo, hi + 1):
        i = (c + 1) * b
        gm = buf[i + b - 1]
        buf[i + b - 1] = _ZERO
        state[HDR + c] -= np.int64(_popcount(gm))
        if state[HDR + c] == 0:
            emptied = True
            for y in range(k):
                buf[i + y] = _ZERO
            continue
        while gm != _ZERO:
            # The lowest run of the group in this column: bits p .. p + run - 1.
            lowbit = gm & ~(gm - _ONE)
            seg = ((gm + lowbit) ^ gm) & gm
            run = _popcount(seg)
            low = lowbit - _ONE
            for y in range(k):
                m = buf[i + y]
                buf[i + y] = (m & low) | ((m >> run) & ~low)
            gm = (gm & ~seg) >> run
    return emptied


@njit(cache=True, inline="always")
def _close_columns(state, buf, b, k, lo, ncols):
    """Move the column blocks right of an emptied column left, closing the gaps."""
    dst = lo
    for c in range(lo, ncols):
        hc = state[HDR + c]
        if hc == 0:
            continue
        if dst != c:
            for y in range(k):
                buf[(dst + 1) * b + y] = buf[(c + 1) * b + y]
            state[HDR + dst] = hc
            state[HDR + c] = 0
        dst += 1
    for c in range(dst, ncols):
        for y in range(k):
            buf[(c + 1) * b + y] = _ZERO
    state[NCOLS] = dst


@njit(cache=True)
def playout(state, rng, moves, record):
    # Bitboards: each column is one uint64 per colour. Each move marks, for every column, the
    # cells that have a neighbour of their colour (the cells of groups of 2 or more), split into
    # allowed colours and the tabu colour, then draws the move by rejection sampling: draw a
    # cell uniformly from the set S of the marked cells the policy allows, fill its group (n
    # cells) and accept it with probability 2/n (every group has n >= 2 cells). A group is
    # accepted with probability n/|S| * 2/n = 2/|S| per try whatever its size, so the move is
    # uniform over the allowed groups. Removing a group shifts the bits above each removed cell
    # down in every colour word of its column; an empty column is closed by moving the column
    # blocks on its right.
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    cnt = HDR + w
    b = k + 1
    allowed = (w + 2) * b
    tabuadj = allowed + w + 2
    buf = np.zeros(allowed + 2 * (w + 2), np.uint64)
    ncols0 = state[NCOLS]
    _to_bitboards(state, buf, b, g, h)
    tabu = _tabu_colour(state, cnt, k)
    played = 0
    # The marks of every column before the first move, of the columns a move changed before
    # the next: one call of the inlined _adjacency, not two (compile time).
    nf = np.int64(0)
    nb = np.int64(0)
    c_from = np.int64(0)
    c_to = ncols0 - 1
    while state[CELLS] > 0:
        df, db = _adjacency(buf, b, k, tabu, c_from, c_to)
        nf += df
        nb += db
        ncols = state[NCOLS]
        # Tabu cells join the draw if they form one group (all of them have a neighbour of
        # their colour, and one fill reaches them all), or if no other colour has a group.
        tabu_ok = False
        if nb >= 2 and nb == state[cnt + tabu]:
            c, bit = _select(buf, tabuadj, 0)
            n, lo, hi = _fill_group(buf, b, tabu, c, bit, ncols)
            _clear_group(buf, b, lo, hi)
            tabu_ok = n == nb
        if nf == 0 and not tabu_ok:
            if nb == 0:
                break
            tabu_ok = True
        total = nf + nb if tabu_ok else nf
        x, n, lo, hi = _draw_group(buf, rng, b, nf, total, ncols, allowed, tabuadj)
        if record:
            moves[played] = lo * h + np.int64(_ctz(buf[(lo + 1) * b + b - 1]))
        played += 1
        emptied = _remove_group(state, buf, b, k, lo, hi)
        if emptied:
            _close_columns(state, buf, b, k, lo, ncols)
        # Only the columns of the group, their neighbours and (after a closed column) the
        # columns that moved can have changed their marks.
        c_from = lo - 1 if lo > 0 else 0
        c_to = ncols - 1 if emptied or hi == ncols - 1 else hi + 1
        _score_move(state, x, n)
    _from_bitboards(state, buf, b, k, g, h, ncols0)
    return played


# ---------------------------------------------------------------------------------------------
# Policy steps: the moves a policy-learning search's playouts choose from (NRPA, GNRPA).
#
# The searches step through a playout themselves (they draw each move from their policy), so
# the game lists the moves for them, with their codes, from the same bitboards as ``playout``
# (one scratch buffer for the whole playout, ``policy_scratch`` words):
#
#   [0, (W + 2) * B)         the column blocks of ``playout`` (colour words, group word)
#   VISITED[s]               (W + 2) words: cells of column slot s already in a listed group
#   META                     3 words: tabu colour + 1 (0: none), NCOLS at the start, POLICY
#
# The rule of the tabu policy (POLICY 1) is the one of the SameGame NRPA literature's engines:
# the colour with the most cells when the playout starts is tabu (ties: the lowest colour); its
# groups are left out of the list unless the group is all that remains of that colour, or it has
# two cells and the game has played ten moves or more; and if nothing else is left, every tabu
# group is listed. POLICY 0 lists every group. POLICY 2 lists every group too, and gives each
# group of the tabu colour GNRPA's beta ``TABU_BETA`` (algo=gnrpa; ``check_search`` refuses it
# to every other algorithm, which has no bias). Moves and codes are those of ``legal_moves``
# and ``code``; the list is in increasing cell order, tabu groups last.

_STEP_META = 3


@njit(cache=True)
def policy_scratch(state):
    """Words of the scratch buffer of ``policy_begin`` .. ``policy_end``."""
    w2 = state[WIDTH] + 2
    return w2 * (state[COLORS] + 1) + w2 + _STEP_META


@njit(cache=True)
def policy_begin(state, scratch):
    """Start a policy playout from ``state``: its bitboards and tabu colour into ``scratch``."""
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    b = k + 1
    w2 = w + 2
    for j in range(scratch.shape[0]):
        scratch[j] = _ZERO
    _to_bitboards(state, scratch, b, HDR + w + k, h)
    meta = w2 * b + w2
    tabu = -1
    if state[POLICY] != POLICY_RANDOM:
        most = 0
        for x in range(k):
            if state[HDR + w + x] > most:
                most = state[HDR + w + x]
                tabu = x
    scratch[meta] = np.uint64(tabu + 1)
    scratch[meta + 1] = np.uint64(state[NCOLS])
    scratch[meta + 2] = np.uint64(state[POLICY])


@njit(cache=True, inline="always")
def _colour_at(buf, i, bit):
    x = 0
    while buf[i + x] & bit == _ZERO:
        x += 1
    return x


@njit(cache=True)
def policy_moves(state, scratch, out, codes, betas, biased):
    """The moves the policy may play now, into ``out`` with their codes (and, if ``biased``,
    their betas); returns how many (0: game over)."""
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    b = k + 1
    w2 = w + 2
    vis = w2 * b
    meta = vis + w2
    tabu = np.int64(scratch[meta]) - 1
    soft = scratch[meta + 2] == POLICY_BIAS
    tabu_left = state[HDR + w + tabu] if tabu >= 0 else 0
    late = state[PLAYED] >= 10
    ncols = state[NCOLS]
    last = out.shape[0] - 1
    n = 0
    nt = 0  # tabu groups left out, kept from the end of ``out`` down
    for c in range(ncols):
        i = (c + 1) * b
        cand = _ZERO
        for x in range(k):
            m = scratch[i + x]
            cand |= m & ((m << _ONE) | (m >> _ONE) | scratch[i - b + x] | scratch[i + b + x])
        cand &= ~scratch[vis + c + 1]
        while cand != _ZERO:
            # The lowest cell not yet listed: its group's smallest cell (every cell of a
            # group has a neighbour of its colour, so cells left of here were listed).
            bit = cand & ~(cand - _ONE)
            x = _colour_at(scratch, i, bit)
            size, lo, hi = _fill_group(scratch, b, x, c, bit, ncols)
            for cc in range(lo, hi + 1):
                j = (cc + 1) * b + b - 1
                scratch[vis + cc + 1] |= scratch[j]
                scratch[j] = _ZERO
            cand &= ~scratch[vis + c + 1]
            move = c * h + np.int64(_ctz(bit))
            if x == tabu and not soft and not (size == tabu_left or (size == 2 and late)):
                out[last - nt] = move
                codes[last - nt] = move * MAX_COLORS + x
                nt += 1
            else:
                out[n] = move
                codes[n] = move * MAX_COLORS + x
                if biased:
                    betas[n] = TABU_BETA if soft and x == tabu else 0.0
                n += 1
    for c in range(ncols):
        scratch[vis + c + 1] = _ZERO
    if n == 0:
        # Only tabu groups: every one of them, in the order found. Swapping the ends toward the
        # middle puts the j-th found at j even when the kept ones fill more than half of ``out``.
        for j in range(nt):
            k = last - j
            if j < k:
                out[j], out[k] = out[k], out[j]
                codes[j], codes[k] = codes[k], codes[j]
            if biased:
                betas[j] = 0.0
        n = nt
    return n


def check_search(state0, algo):
    """ValueError (one line) if ``algo`` cannot honour the playout policy of ``state0``: the
    bias policy is GNRPA's (its beta); no other search has a bias to give it."""
    if int(state0[POLICY]) == POLICY_BIAS and algo != "gnrpa":
        raise ValueError(
            f"game.policy=bias is GNRPA's bias against the tabu colour: for algo=gnrpa only "
            f"(algo={algo}: game.policy=random or tabu)"
        )


@njit(cache=True)
def policy_play(state, scratch, move):
    """Play ``move`` (listed by ``policy_moves``) on the scratch bitboards; the header of
    ``state`` (score, counts, heights) follows, its grid waits for ``policy_end``."""
    h, k = state[HEIGHT], state[COLORS]
    b = k + 1
    c = move // h
    bit = _ONE << np.uint64(move % h)
    x = _colour_at(scratch, (c + 1) * b, bit)
    ncols = state[NCOLS]
    size, lo, hi = _fill_group(scratch, b, x, c, bit, ncols)
    if _remove_group(state, scratch, b, k, lo, hi):
        _close_columns(state, scratch, b, k, lo, ncols)
    _score_move(state, x, size)


@njit(cache=True)
def policy_end(state, scratch):
    """End a policy playout: the grid of ``state`` rewritten from the scratch bitboards."""
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    b = k + 1
    w2 = w + 2
    ncols0 = np.int64(scratch[w2 * b + w2 + 1])
    _from_bitboards(state, scratch, b, k, HDR + w + k, h, ncols0)
