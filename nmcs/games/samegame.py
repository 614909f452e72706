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
    POLICY   playout policy: 0 = uniform random over groups, 1 = TabuColorRandom
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

Playouts: POLICY 0 picks uniformly among all groups. POLICY 1 is TabuColorRandom (Schadd et al.
2008, as Cazenave states it): at the start of the playout the colour with the most cells is tabu
(ties go to the lowest colour number); a tabu move is played only if no other move exists, or if
it removes all the remaining cells of the tabu colour. A playout copies the board once into a
padded scratch buffer (allocated once per playout, never per move) and picks each move by
rejection sampling (see ``playout``), so it never lists all the groups. ``play`` and
``legal_moves`` use a separate, allocation-free depth-first search that keeps its stack in the
grid itself (pointer reversal); the conformance test checks each against the other by replaying
playouts move by move.
"""

import numpy as np
from numba import njit

from nmcs.search.rng import below

NAME = "samegame"
HDR = 8
WIDTH, HEIGHT, COLORS, POLICY, SCORE, PLAYED, NCOLS, CELLS = range(HDR)
POLICY_RANDOM, POLICY_TABU = 0, 1
# A small board for tests that run deep searches (a level-2 search on a 15x15 board takes
# minutes): make_state(**SMALL_OPTIONS).
SMALL_OPTIONS = dict(instance=None, width=8, height=8, colors=4, board_seed=0)
POLICIES = {"random": POLICY_RANDOM, "tabu": POLICY_TABU}
EMPTY = -1
CLEAR_BONUS = 1000
MAX_SIDE = 64
MAX_COLORS = 20
# Playouts: cell draws before listing the cells of groups, and the share of listed allowed
# cells (1/SPARSE of the board) below which the next move lists them at once.
TRIES, SPARSE = 24, 4


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


def make_state(instance=0, width=15, height=15, colors=5, board_seed=0, policy="tabu"):
    """Initial state: position ``instance`` (0..19) of the standard test set (15x15, 5 colours),
    or, with ``instance=None``, a uniformly random ``width`` x ``height`` board with ``colors``
    colours drawn from ``board_seed``. ``policy`` is the playout policy: tabu | random."""
    from nmcs.games import samegame_io

    if policy not in POLICIES:
        raise ValueError(f"game.policy must be one of {', '.join(POLICIES)}, got '{policy}'")
    if instance is not None:
        if (width, height, colors) != (15, 15, 5):
            raise ValueError(
                f"game.instance={instance} is a 15x15 board with 5 colours; set game.instance=null "
                f"for a random {width}x{height} board with {colors} colours"
            )
        grid = samegame_io.standard_board(instance)
    else:
        grid = samegame_io.random_board(board_seed, width, height, colors)
    return state_from_grid(grid, colors=colors, policy=policy)


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
    size = _mark_group(state, move)
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


# Playout scratch: one int32 buffer per playout, three regions of (W + 2) * (H + 1) slots:
#   [0, P)    the board, padded: cell (c, r) at (c + 1) * (H + 1) + r; the extra row and the two
#             extra columns hold -1, so the four neighbours of a cell need no bounds test
#   [P, 2P)   visit stamps of the flood fill (one stamp per try, so nothing is cleared)
#   [2P, 3P)  the cells of the last group filled
#   [3P, 4P)  the cells that have a neighbour of their colour: allowed colours from the
#             front, the tabu colour from the back
#   [4P, 5P)  size of the group of each cell filled during the current move (a rejected group
#             is not filled again when drawn again)


@njit(cache=True, inline="always")
def _flood(buf, cell, stamp, pitch, vis, cells):
    """Fill the group of ``cell`` on the padded board; its cells go to buf[cells:], return n."""
    x = buf[cell]
    buf[vis + cell] = stamp
    buf[cells] = cell
    n = 1
    t = 0
    while t < n:
        i = buf[cells + t]
        t += 1
        nb = i + 1
        if buf[nb] == x and buf[vis + nb] != stamp:
            buf[vis + nb] = stamp
            buf[cells + n] = nb
            n += 1
        nb = i - 1
        if buf[nb] == x and buf[vis + nb] != stamp:
            buf[vis + nb] = stamp
            buf[cells + n] = nb
            n += 1
        nb = i + pitch
        if buf[nb] == x and buf[vis + nb] != stamp:
            buf[vis + nb] = stamp
            buf[cells + n] = nb
            n += 1
        nb = i - pitch
        if buf[nb] == x and buf[vis + nb] != stamp:
            buf[vis + nb] = stamp
            buf[cells + n] = nb
            n += 1
    return n


@njit(cache=True, inline="always")
def _collapse_padded(state, buf, pitch, cmin, cmax):
    """``_collapse`` on the padded board (removed cells hold -1)."""
    emptied = False
    for c in range(cmin, cmax + 1):
        base = (c + 1) * pitch
        top = state[HDR + c]
        dst = base
        for i in range(base, base + top):
            v = buf[i]
            if v >= 0:
                buf[dst] = v
                dst += 1
        for i in range(dst, base + top):
            buf[i] = EMPTY
        state[HDR + c] = dst - base
        if dst == base:
            emptied = True
    if emptied:
        ncols = state[NCOLS]
        dst = cmin
        for c in range(cmin, ncols):
            hc = state[HDR + c]
            if hc == 0:
                continue
            if dst != c:
                src = (c + 1) * pitch
                to = (dst + 1) * pitch
                for r in range(hc):
                    buf[to + r] = buf[src + r]
                    buf[src + r] = EMPTY
                state[HDR + dst] = hc
                state[HDR + c] = 0
            dst += 1
        state[NCOLS] = dst


@njit(cache=True, inline="always")
def _fill_sized(buf, cell, stamp, pitch, vis, cells, sizes):
    """``_flood``, then the group's size written at each of its cells."""
    n = _flood(buf, cell, stamp, pitch, vis, cells)
    for t in range(n):
        buf[sizes + buf[cells + t]] = n
    return n


@njit(cache=True)
def playout(state, rng, moves, record):
    # Moves are drawn by rejection sampling, which never labels the whole board: draw a cell
    # uniformly from a set S holding every cell of the allowed groups, fill its group (n cells)
    # and accept it with probability 1/n if the policy allows it. A group is accepted with
    # probability n/|S| * 1/n = 1/|S| per try whatever its size, so the move is uniform over the
    # allowed groups. Two stages, each uniform, so their mixture is uniform too:
    # 1. S = all the cells (no preparation), at most `tries` times;
    # 2. S = the cells that have a neighbour of their colour, listed by one pass over the board
    #    (allowed colours at the front of buf[lists:], the tabu colour at the back); this pass
    #    also decides when the game is over and when TabuColorRandom must allow tabu groups.
    # Stage 2 tells how dense the allowed cells are, which sets `tries` for the next move:
    # when stage 1 would mostly fail, it is skipped.
    w, h, k = state[WIDTH], state[HEIGHT], state[COLORS]
    g = HDR + w + k
    cnt = HDR + w
    pitch = h + 1
    n_pad = (w + 2) * pitch
    vis = n_pad
    cells = 2 * n_pad
    lists = 3 * n_pad
    back = 4 * n_pad - 1
    sizes = 4 * n_pad
    buf = np.empty(5 * n_pad, np.int32)
    for j in range(n_pad):
        buf[j] = EMPTY
        buf[vis + j] = 0
    ncols0 = state[NCOLS]
    for c in range(ncols0):
        for r in range(state[HDR + c]):
            buf[(c + 1) * pitch + r] = state[g + c * h + r]
    tabu = -1
    if state[POLICY] == POLICY_TABU:
        most = 0
        for x in range(k):
            if state[cnt + x] > most:
                most = state[cnt + x]
                tabu = x
    stamp = 0
    played = 0
    tries = TRIES
    while state[CELLS] > 0:
        found = False
        n = 0
        # One stamp per move: groups are disjoint, so fills of different groups never meet,
        # and a cell stamped this move has its group's size in buf[sizes + cell].
        stamp += 1
        cached = False  # the accepted group's cells are not in buf[cells:] yet
        tabu_split = False  # a tabu group smaller than all the tabu cells was met this move
        for _ in range(tries):
            j = below(rng, state[CELLS])
            c = 0
            while j >= state[HDR + c]:
                j -= state[HDR + c]
                c += 1
            cell = (c + 1) * pitch + j
            x = buf[cell]
            # Most tries hit a single cell or a group the policy refuses: reject them before
            # filling anything.
            if (
                x != buf[cell + 1]
                and x != buf[cell - 1]
                and x != buf[cell + pitch]
                and (x != buf[cell - pitch])
            ):
                continue
            if x == tabu and tabu_split:
                continue
            cached = buf[vis + cell] == stamp
            if cached:
                n = buf[sizes + cell]
            else:
                n = _fill_sized(buf, cell, stamp, pitch, vis, cells, sizes)
            if x == tabu and n != state[cnt + tabu]:
                tabu_split = True
                continue
            if below(rng, n) == 0:
                found = True
                break
        if not found:
            nf = 0
            nb = 0
            for c in range(state[NCOLS]):
                base = (c + 1) * pitch
                for i in range(base, base + state[HDR + c]):
                    x = buf[i]
                    if (
                        x == buf[i + 1]
                        or x == buf[i - 1]
                        or x == buf[i + pitch]
                        or (x == buf[i - pitch])
                    ):
                        if x == tabu:
                            buf[back - nb] = i
                            nb += 1
                        else:
                            buf[lists + nf] = i
                            nf += 1
            # Tabu cells join the draw if they form one group (all of them have a neighbour of
            # their colour, and one fill reaches them all), or if no other colour has a group.
            tabu_ok = nb >= 2 and nb == state[cnt + tabu]
            if tabu_ok:
                i = buf[back]
                if buf[vis + i] != stamp:
                    _fill_sized(buf, i, stamp, pitch, vis, cells, sizes)
                tabu_ok = buf[sizes + i] == nb
            if nf == 0 and not tabu_ok:
                if nb == 0:
                    break
                tabu_ok = True
            total = nf + nb if tabu_ok else nf
            while True:
                j = below(rng, total)
                cell = buf[lists + j] if j < nf else buf[back - (j - nf)]
                cached = buf[vis + cell] == stamp
                if cached:
                    n = buf[sizes + cell]
                else:
                    n = _fill_sized(buf, cell, stamp, pitch, vis, cells, sizes)
                if below(rng, n) == 0:
                    break
            tries = TRIES if nf * SPARSE >= state[CELLS] else 0
        if cached:
            stamp += 1
            _flood(buf, cell, stamp, pitch, vis, cells)
        lo = buf[cells]
        hi = lo
        color = buf[lo]
        for t in range(n):
            i = buf[cells + t]
            buf[i] = EMPTY
            lo = min(lo, i)
            hi = max(hi, i)
        if record:
            moves[played] = (lo // pitch - 1) * h + lo % pitch
        played += 1
        _collapse_padded(state, buf, pitch, lo // pitch - 1, hi // pitch - 1)
        _score_move(state, color, n)
    for c in range(ncols0):
        for r in range(h):
            state[g + c * h + r] = buf[(c + 1) * pitch + r]
    return played
