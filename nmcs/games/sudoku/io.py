"""Sudoku problems: a seeded generator, the stored 16x16 set, and text readers.

Generator. ``generate(n, empty_fraction, seed)`` fills an empty n^2 x n^2 grid by a randomized
depth-first search (smallest domain first, values in random order, restarting with fresh random
draws if it ever needs more than a few thousand nodes), then empties ``round(empty_fraction *
C)`` cells chosen uniformly at random. Every problem therefore has at least one solution (the
grid it came from); uniqueness is not required (the paper's CSP solvers stop at the first
solution and the paper does not publish its procedure). Everything is drawn from
``numpy.random.default_rng(SeedSequence([seed, n, round(empty_fraction * 10**6)]))``, so a
problem depends only on (n, empty_fraction, seed).

Text format (the stored set, ``nmcs/data/sudoku16_66pct_100.txt``): UTF-8, one problem per
line, cells row by row (N^2 characters, no separators); a given is one symbol ``1``-``9`` then
``A``-``G`` for 10-16 (case-insensitive), an empty cell is ``.`` or ``0``. Blank lines and lines
starting with ``#`` are ignored. For 9x9 this is the common one-line 81-character format, e.g.::

    4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......

Stored set: problem i of the 100 is ``generate(4, 0.66, STORED_SEED + i)``; the header of the
file records this and ``tests/test_sudoku.py`` regenerates the file and compares it byte for
byte. Regenerate with ``python -m nmcs.games.sudoku.io``.
"""

from pathlib import Path

import numpy as np

from nmcs.games.sudoku.rules import state_from_grid

SYMBOLS = "123456789ABCDEFG"
STORED_PATH = Path(__file__).resolve().parents[2] / "data" / "sudoku16_66pct_100.txt"
STORED_SEED = 2009
STORED_COUNT = 100
STORED_EMPTY_FRACTION = 0.66
_NODE_LIMIT = 5000


def _random_full_grid(n, rng):
    """A complete valid grid from a randomized smallest-domain-first depth-first search."""
    size = n * n
    cells = size * size
    units = [
        (cell // size, size + cell % size, 2 * size + (cell // size // n) * n + cell % size // n)
        for cell in range(cells)
    ]
    while True:  # a restart draws new random orders; in practice one attempt suffices
        values = [0] * cells
        used = [0] * (3 * size)  # values taken in each row, column and box
        if _fill(values, used, units, size, rng, [0]):
            return np.array(values, dtype=np.int64).reshape(size, size)


def _fill(values, used, units, size, rng, nodes):
    """Complete ``values`` in place by depth-first search; False after _NODE_LIMIT nodes
    (``nodes`` is a one-element counter) or on a dead end."""
    full = (1 << size) - 1
    best, best_dom, best_k = -1, 0, size + 1
    for cell in range(len(values)):
        if values[cell]:
            continue
        a, b, c = units[cell]
        dom = full & ~(used[a] | used[b] | used[c])
        k = dom.bit_count()
        if k < best_k:
            best, best_dom, best_k = cell, dom, k
            if k <= 1:
                break
    if best < 0:
        return True
    if best_k == 0:
        return False
    choices = [v for v in range(size) if best_dom >> v & 1]
    a, b, c = units[best]
    for i in rng.permutation(len(choices)):
        nodes[0] += 1
        if nodes[0] > _NODE_LIMIT:
            return False
        values[best] = choices[i] + 1
        bit = 1 << choices[i]
        used[a] |= bit
        used[b] |= bit
        used[c] |= bit
        if _fill(values, used, units, size, rng, nodes):
            return True
        used[a] &= ~bit
        used[b] &= ~bit
        used[c] &= ~bit
    values[best] = 0
    return False


def generate(n=4, empty_fraction=0.66, seed=0):
    """An n^2 x n^2 problem (N x N int array, 0 = empty) with round(empty_fraction * N^2) empty
    cells, from a random complete grid; a pure function of (n, empty_fraction, seed)."""
    if n not in (2, 3, 4):
        raise ValueError(f"n must be 3 or 4, got {n}")
    if not 0.0 <= empty_fraction <= 1.0:
        raise ValueError(f"empty_fraction must be between 0 and 1, got {empty_fraction}")
    key = [int(seed), n, int(round(empty_fraction * 10**6))]
    rng = np.random.default_rng(np.random.SeedSequence(key))
    grid = _random_full_grid(n, rng)
    cells = grid.size
    n_empty = int(round(empty_fraction * cells))
    emptied = rng.permutation(cells)[:n_empty]
    problem = grid.copy().reshape(-1)
    problem[emptied] = 0
    return problem.reshape(grid.shape)


def format_line(grid):
    """A problem as one line of N^2 symbols ('.' for empty)."""
    return "".join("." if v == 0 else SYMBOLS[v - 1] for v in np.asarray(grid).reshape(-1))


def parse_line(line, where="line"):
    """A one-line problem (81 or 256 characters) as an N x N int array (0 = empty).

    Raises ValueError naming ``where`` and the row and column of the first bad character; does
    not check givens against each other (``sudoku.state_from_grid`` does)."""
    text = line.strip()
    sizes = {81: 9, 256: 16}
    if len(text) not in sizes:
        raise ValueError(f"{where}: expected 81 (9x9) or 256 (16x16) characters, got {len(text)}")
    size = sizes[len(text)]
    grid = np.zeros(size * size, dtype=np.int64)
    for i, ch in enumerate(text.upper()):
        if ch in ".0":
            continue
        v = SYMBOLS.find(ch) + 1
        if not 1 <= v <= size:
            r, c = divmod(i, size)
            allowed = f"1-9 or A-{SYMBOLS[size - 1]}" if size > 9 else "1-9"
            raise ValueError(
                f"{where}: value '{ch}' out of range ({allowed}, '.' or '0' for empty) at row "
                f"{r + 1}, column {c + 1}"
            )
        grid[i] = v
    return grid.reshape(size, size)


def read_problems(path_or_text, check=True):
    """The problems of a file (a path) or of a string holding its text, as N x N arrays.

    With ``check`` each problem is also built into a game state, so givens that contradict each
    other raise ValueError naming the line, row and column."""

    if isinstance(path_or_text, Path) or (
        isinstance(path_or_text, str) and "\n" not in path_or_text and Path(path_or_text).is_file()
    ):
        name = str(path_or_text)
        text = Path(path_or_text).read_text(encoding="utf-8")
    else:
        name = "text"
        text = path_or_text
    problems = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{name}, line {lineno}"
        grid = parse_line(line, where)
        if check:
            state_from_grid(grid, where)
        problems.append(grid)
    return problems


def stored_text(count=STORED_COUNT, seed=STORED_SEED, empty_fraction=STORED_EMPTY_FRACTION):
    """The exact text of the stored set (regenerated from the generator)."""
    lines = [
        "# nmcs 16x16 Sudoku problems, one per line, row by row: 1-9 A-G = 1-16, '.' = empty",
        f"# problem i (0-based) = nmcs.games.sudoku.io.generate(n=4, "
        f"empty_fraction={empty_fraction}, seed={seed} + i); {count} problems",
    ]
    for i in range(count):
        lines.append(format_line(generate(4, empty_fraction, seed + i)))
    return "\n".join(lines) + "\n"


def check_solution(problem, grid):
    """True when ``grid`` (N x N, values 1..N) solves ``problem`` (N x N, 0 = empty): it keeps
    every given and each row, column and box holds every value once. Plain numpy, sharing no
    code with the game kernels, so the tests can trust it."""
    problem = np.asarray(problem)
    grid = np.asarray(grid)
    if grid.shape != problem.shape or grid.ndim != 2:
        return False
    size = grid.shape[0]
    n = int(round(size**0.5))
    if n * n != size:
        return False
    given = problem != 0
    if not np.array_equal(grid[given], problem[given]):
        return False
    want = np.arange(1, size + 1)
    boxes = grid.reshape(n, n, n, n).transpose(0, 2, 1, 3).reshape(size, size)
    return all(
        np.array_equal(np.sort(unit), want) for units in (grid, grid.T, boxes) for unit in units
    )


_STORED = None


def stored_problems():
    """The 100 stored 16x16 problems (read once per process)."""
    global _STORED
    if _STORED is None:
        _STORED = read_problems(STORED_PATH, check=False)
    return _STORED


if __name__ == "__main__":
    STORED_PATH.parent.mkdir(parents=True, exist_ok=True)
    STORED_PATH.write_text(stored_text(), encoding="utf-8")
    print(f"wrote {STORED_PATH}")
