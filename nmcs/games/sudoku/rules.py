"""n^2 x n^2 Sudoku as a constraint satisfaction problem (NMCS paper, section 5.3).

Each cell is a variable whose domain is the set of values its row, column and box still allow.
Assigning a value removes it from the domains of the cell's peers (forward checking). The next
variable is always the unassigned cell with the smallest domain (ties: lowest cell index), and
the legal moves are the values of its domain, so a search tries every value of that variable
and a playout picks one uniformly at random. As soon as some unassigned cell has an empty
domain the game is over (a dead end): ``legal_moves`` returns 0.

Score = number of assigned cells, givens included. The paper's solution has "the maximal depth
of 256", i.e. all cells, so a solution scores n^4 (256 for 16x16, 81 for 9x9) and a dead end
scores the givens plus the cells the search managed to fill.

Sizes: n = 3 (9x9) or n = 4 (16x16); N = n^2 values and cells per row, C = N^2 cells,
W = ceil(C / 64) words per cell bitset.

State layout (int64[10 + C + (N + 1) * W])::

    index: 0     1     2       3       4          5        6        7         8
         +-----+-----+-------+-------+----------+--------+--------+---------+---------+---+
         | BOX | N   | CELLS | WORDS | ASSIGNED | GIVENS | BUCKET | DIV_N   | DIV_BOX | 0 |
         +-----+-----+-------+-------+----------+--------+--------+---------+---------+---+
    DIV_N, DIV_BOX: ceil(2^22 / N), ceil(2^22 / n): x // N == (x * DIV_N) >> 22 for the small
                    x used here (checked in the tests), cheaper than a division in ``play``
    10 .. 10+C-1       DOM[c], one word per cell c = row * N + col:
                         unassigned: (count << 32) | mask   mask bit v = value v+1 allowed,
                                                            count = popcount(mask)
                         assigned:   -(v + 1)              v = 0-based value (so DOM < 0)
    BUCKET .. +(N+1)*W  BUCKETS[k][w]: bit i set <=> cell 64*w + i is unassigned and has
                        exactly k values left (k = 0..N); bucket 0 non-empty = dead end

Keeping the count next to the mask makes removing a value one subtraction, and the buckets make
"smallest domain, lowest index" a scan of a few words instead of all C cells.

Move encoding: ``cell * N + v`` (cell = row * N + col, v = 0-based value), e.g. on 16x16 the
move 4100 = 256 * 16 + 4 puts the value 5 at row 16, column 1 (1-based).

NRPA code (``code``): the move itself, i.e. the pair (cell, value), as
NRPA is usually applied to constraint problems (a variable-value pair); it does not depend on
the order the cells were filled in.

Problems (generator, stored set, 9x9 reader) live in ``nmcs.games.sudoku.io``; forward checking
in ``nmcs.games.sudoku.fc`` (``algo=fc``); "restart until solved" is ``algo=iterative``.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from nmcs.core.rng import below

NAME = "sudoku"
BOX, SIZE, CELLS, WORDS, ASSIGNED, GIVENS, BUCKET, DIV_N, DIV_BOX = 0, 1, 2, 3, 4, 5, 6, 7, 8
HEADER = 10
DIV_SHIFT = 22
DOM = HEADER
COUNT_SHIFT = 32
COUNT_ONE = np.int64(1) << np.int64(COUNT_SHIFT)
LOW_MASK = COUNT_ONE - np.int64(1)
SYMBOLS = "123456789ABCDEFG"


def empty_state(n):
    """The state of an n^2 x n^2 grid with no givens (every domain full)."""
    if n not in (2, 3, 4):
        raise ValueError(f"game.n must be 3 or 4 (2 for tiny tests), got {n}")
    size = n * n
    cells = size * size
    words = (cells + 63) // 64
    bucket = HEADER + cells
    state = np.zeros(bucket + (size + 1) * words, dtype=np.int64)
    state[BOX], state[SIZE], state[CELLS], state[WORDS] = n, size, cells, words
    state[BUCKET] = bucket
    state[DIV_N] = -(-(1 << DIV_SHIFT) // size)
    state[DIV_BOX] = -(-(1 << DIV_SHIFT) // n)
    state[DOM : DOM + cells] = (size << COUNT_SHIFT) | ((1 << size) - 1)
    for c in range(cells):
        state[bucket + size * words + c // 64] |= np.int64(1) << np.int64(c % 64)
    return state


def state_from_grid(grid, where="problem"):
    """The state of a problem given as an N x N array (0 = empty, 1..N = given).

    Raises ValueError with one line naming ``where`` and the (1-based) row and column when a
    value is out of range, two givens share a row, column or box, or the givens alone leave an
    empty cell without any possible value."""
    grid = np.asarray(grid)
    size = grid.shape[0]
    n = int(round(size**0.5))
    if grid.ndim != 2 or grid.shape[1] != size or n * n != size or n not in (2, 3, 4):
        raise ValueError(f"{where}: expected a 9x9 or 16x16 grid, got shape {grid.shape}")
    bad = np.argwhere((grid < 0) | (grid > size))
    if len(bad):
        r, c = bad[0]
        raise ValueError(
            f"{where}: value {grid[r, c]} out of range 1..{size} at row {r + 1}, column {c + 1}"
        )
    _check_givens(grid, n, where)
    state = empty_state(n)
    for r in range(size):
        for c in range(size):
            if grid[r, c]:
                play(state, (r * size + c) * size + int(grid[r, c]) - 1)
                state[GIVENS] += 1
    if dead_cell(state) >= 0:
        c = dead_cell(state)
        raise ValueError(
            f"{where}: the givens leave no possible value at row {c // size + 1}, "
            f"column {c % size + 1}"
        )
    return state


def _check_givens(grid, n, where):
    size = n * n
    seen = {}
    for r in range(size):
        for c in range(size):
            v = int(grid[r, c])
            if not v:
                continue
            for unit, kind in (
                (("row", r), "row"),
                (("col", c), "column"),
                (("box", r // n, c // n), "box"),
            ):
                key = (unit, v)
                if key in seen:
                    r0, c0 = seen[key]
                    raise ValueError(
                        f"{where}: givens contradict: value {v} at row {r0 + 1}, column {c0 + 1} "
                        f"and at row {r + 1}, column {c + 1} (same {kind})"
                    )
                seen[key] = (r, c)


def grid_of(state):
    """The N x N grid of a state: 1..N for assigned cells, 0 for unassigned ones."""
    size = int(state[SIZE])
    dom = state[DOM : DOM + size * size]
    return np.where(dom < 0, -dom, 0).reshape(size, size).astype(np.int64)


def format_grid(grid):
    """A grid as N lines of symbols (1-9, A-G for 10-16, '.' for empty), boxes spaced apart."""
    size = len(grid)
    n = int(round(size**0.5))
    lines = []
    for r in range(size):
        if r and r % n == 0:
            lines.append("")
        row = ["." if v == 0 else SYMBOLS[v - 1] for v in grid[r]]
        lines.append("  ".join(" ".join(row[b : b + n]) for b in range(0, size, n)))
    return "\n".join(lines)


def describe(state0, moves):
    """The grid reached by ``moves`` from ``state0`` and its score."""
    state = state0.copy()
    for m in moves:
        play(state, m)
    cells = int(state[CELLS])
    return f"{int(score(state))}/{cells} cells assigned\n{format_grid(grid_of(state))}"


@njit(cache=True)
def max_moves(state):
    return state[CELLS] - state[ASSIGNED]


@njit(cache=True)
def max_branching(state):
    return state[SIZE]


@njit(cache=True)
def code(state, move):
    """NRPA move code: (cell, value) = the move itself (see the module docstring)."""
    return np.int64(move)


@njit(cache=True)
def dead_cell(state):
    """The lowest unassigned cell with an empty domain, or -1."""
    base = state[BUCKET]
    for w in range(state[WORDS]):
        x = state[base + w]
        if x != 0:
            return w * 64 + trailing_zeros(x)
    return -1


@njit(cache=True, inline="always")
def next_variable(state):
    """The unassigned cell with the smallest domain (lowest index among ties); -1 when every
    cell is assigned, -2 when some unassigned cell has an empty domain."""
    words = state[WORDS]
    base = state[BUCKET]
    for k in range(state[SIZE] + 1):
        row = base + k * words
        for w in range(words):
            x = state[row + w]
            if x != 0:
                if k == 0:
                    return -2
                return w * 64 + trailing_zeros(x)
    return -1


@njit(cache=True)
def legal_moves(state, out):
    cell = next_variable(state)
    if cell < 0:
        return 0
    size = state[SIZE]
    mask = state[DOM + cell] & LOW_MASK
    k = 0
    while mask != 0:
        out[k] = cell * size + trailing_zeros(mask)
        mask &= mask - 1
        k += 1
    return k


@njit(cache=True, inline="always")
def _remove(state, p, bit, base, words):
    """Remove value ``bit`` from the domain of the cell at state index ``p`` if it is there,
    moving the cell to the bucket of its new count."""
    d = state[p]
    if d > 0 and (d & bit) != 0:
        state[p] = d - bit - COUNT_ONE
        k = d >> COUNT_SHIFT
        cell = p - DOM
        w = base + (cell >> 6)
        b = np.int64(1) << (cell & 63)
        state[w + k * words] ^= b
        state[w + (k - 1) * words] |= b


@njit(cache=True)
def play(state, move):
    # Header words are read once: the stores below could alias them, so LLVM would reload them.
    size = state[SIZE]
    n = state[BOX]
    div_n = state[DIV_N]
    div_box = state[DIV_BOX]
    base = state[BUCKET]
    words = state[WORDS]
    move = np.int64(move)
    cell = (move * div_n) >> DIV_SHIFT
    v = move - cell * size
    r = (cell * div_n) >> DIV_SHIFT
    c = cell - r * size
    k = state[DOM + cell] >> COUNT_SHIFT
    state[base + k * words + (cell >> 6)] ^= np.int64(1) << (cell & 63)
    state[DOM + cell] = -(v + 1)
    state[ASSIGNED] += 1
    bit = np.int64(1) << v
    row = DOM + r * size
    col = DOM + c
    for j in range(size):
        _remove(state, row + j, bit, base, words)
        _remove(state, col + j * size, bit, base, words)
    # The rest of the box: its cells in row r or column c were done above.
    r0 = ((r * div_box) >> DIV_SHIFT) * n
    c0 = ((c * div_box) >> DIV_SHIFT) * n
    for rr in range(r0, r0 + n):
        if rr != r:
            p = DOM + rr * size
            for cc in range(c0, c0 + n):
                if cc != c:
                    _remove(state, p + cc, bit, base, words)


@njit(cache=True)
def score(state):
    return state[ASSIGNED]


@njit(cache=True)
def target_score(state):
    """A solution assigns every cell: searches stop as soon as they find one."""
    return state[CELLS]


@njit(cache=True, inline="always")
def random_value_move(state, cell, rng):
    """A uniformly random value of ``cell``'s (non-empty) domain, as a move."""
    d = state[DOM + cell]
    mask = d & LOW_MASK
    for _ in range(below(rng, d >> COUNT_SHIFT)):
        mask &= mask - 1
    return cell * state[SIZE] + trailing_zeros(mask)


@njit(cache=True)
def playout(state, rng, moves, record):
    played = 0
    while True:
        cell = next_variable(state)
        if cell < 0:
            return played
        move = random_value_move(state, cell, rng)
        if record:
            moves[played] = move
        play(state, move)
        played += 1
