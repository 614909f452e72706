"""The independent plain-Python Sudoku NMCS (``analysis.independent.sudoku_stop_rule``, which
shares no code with the engine): playout counts on a hand-checked case, valid solutions, and the
three stop rules on one random stream (the "playout" run is a prefix of the "none" run)."""

import random

import pytest

from analysis.independent import sudoku_stop_rule as S
from nmcs.games.sudoku import io as IO

pytestmark = pytest.mark.statistical


def pattern_grid():
    """A valid complete grid: row r is the row 0 cycle shifted by 4 * (r % 4) + r // 4."""
    return [(4 * (r % 4) + r // 4 + c) % 16 + 1 for r in range(16) for c in range(16)]


def rows(flat):
    return [flat[r * 16 : (r + 1) * 16] for r in range(16)]


def run(grid, level, stop, seed=0):
    search = S.Search(random.Random(seed), level, stop)
    solution = search.solve(grid)
    assert solution is not None and IO.check_solution(rows(grid), rows(solution))
    return search


# Cells 0, 8, 32, 40 (rows 0 and 2, columns 0 and 8) hold 1, 9, 9, 1: emptied, each has the
# domain {1, 9} and both ways of filling them solve the grid. Cell 0 is chosen first (lowest
# index); its two values leave the other three cells with one value each when it is their turn.
SWAP = [0 if cell in (0, 8, 32, 40) else v for cell, v in enumerate(pattern_grid())]


@pytest.mark.parametrize(
    "level, stop, playouts",
    [
        # level 1: 2 playouts after cell 0's two values, then one per remaining step (the last
        # from the filled grid) = 5; the first playout already fills the grid.
        (1, "none", 5),
        (1, "playout", 1),
        (1, "lower", 5),
        # level 2: each value of cell 0 is followed by a level-1 search of 3 playouts (6), then
        # level-1 searches of 2, 1 and 0 playouts (the last from the filled grid) = 9; "lower"
        # stops after the first level-1 search.
        (2, "none", 9),
        (2, "playout", 1),
        (2, "lower", 3),
    ],
)
def test_hand_checked_playout_counts(level, stop, playouts):
    search = run(SWAP, level, stop)
    assert (search.playouts, search.searches, search.first_full) == (playouts, 1, 1)


def test_start_and_playout_scores():
    dom, sizes, n = S.start(SWAP)
    assert n == 252 and [sizes[c] for c in (0, 8, 32, 40)] == [2] * 4
    assert S.VALUES[dom[0]] == (0, 8)
    problem = [int(v) for v in IO.stored_problems()[0].reshape(-1)]
    dom, sizes, n = S.start(problem)
    assert n == sum(1 for v in problem if v) == 87
    search = S.Search(random.Random(1), 1, "none")
    for _ in range(50):
        d, s = dom[:], sizes[:]
        score, moves = search.sample(d, s, n)
        assert score == n + len(moves) and len({c for c, _ in moves}) == len(moves)
        # the game ended because a cell has no value left, or because the grid is full
        assert min(s) == 0 or score == 256
    assert search.playouts == 50
    with pytest.raises(ValueError):
        S.start([1, 1] + [0] * 254)


@pytest.fixture(scope="module")
def solved_4():
    """Stored problem 4 (an easy one) and a solution found by a level-1 search."""
    problem = [int(v) for v in IO.stored_problems()[4].reshape(-1)]
    search = run(problem, 1, "playout", seed=3)
    return problem, search.solve(problem)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_stop_rules_share_one_random_stream(solved_4, level, seed):
    # The three rules make the same random draws until the first playout that fills the grid:
    # there "playout" stops; "lower" stops when the level-1 search around it ends (level 2) or
    # runs like "none" (level 1); "none" finishes its search, which returns that solution.
    _, solution = solved_4
    rng = random.Random(seed)
    empty = set(rng.sample(range(256), 130))  # enough that the first playout rarely solves it
    grid = [0 if cell in empty else v for cell, v in enumerate(solution)]
    a, b, c = (run(grid, level, stop, seed) for stop in ("playout", "none", "lower"))
    assert a.playouts == a.first_full == b.first_full == c.first_full
    assert a.searches == b.searches == c.searches
    assert a.playouts <= c.playouts <= b.playouts
    if level == 1:
        assert c.playouts == b.playouts
    # these seeds need more than one playout (seed 1 at level 1 three searches)
    assert a.playouts > 1


def test_cap_records_unsolved():
    problem = [int(v) for v in IO.stored_problems()[0].reshape(-1)]
    search = S.Search(random.Random(0), 2, "none", cap=50)
    assert search.solve(problem) is None and search.playouts == 50
