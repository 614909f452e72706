"""Sudoku as a CSP: propagation, variable order, dead ends, problem files, and the solvers (every
solution checked by the independent ``check_solution``)."""

import numpy as np
import pytest

from nmcs.core.rng import new_rng
from nmcs.games import sudoku as S
from nmcs.games.sudoku import io as IO
from nmcs.games.sudoku.fc import solve_fc
from nmcs.harness.batch import ConfigError, search_batch, search_seeds

pytestmark = pytest.mark.compile

# A classic 9x9 puzzle (Project Euler 96, grid 01) in the one-line format, and its solution.
P9 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
S9 = "483921657967345821251876493548132976729564138136798245372689514814253769695417382"


def naive_domains(state):
    """Domains recomputed from the grid alone: (mask per cell, -1 for assigned)."""
    n = int(state[S.BOX])
    size = n * n
    grid = S.grid_of(state)
    out = np.full(size * size, -1, np.int64)
    for r in range(size):
        for c in range(size):
            if grid[r, c]:
                continue
            r0, c0 = r - r % n, c - c % n
            used = set(grid[r]) | set(grid[:, c]) | set(grid[r0 : r0 + n, c0 : c0 + n].ravel())
            out[r * size + c] = sum(1 << (v - 1) for v in range(1, size + 1) if v not in used)
    return out


def assert_consistent(state):
    """DOM masks, counts and buckets agree with the naive domains."""
    size = int(state[S.SIZE])
    cells = size * size
    words = int(state[S.WORDS])
    want = naive_domains(state)
    dom = state[S.DOM : S.DOM + cells]
    assert int(state[S.ASSIGNED]) == int((want < 0).sum())
    for cell in range(cells):
        if want[cell] < 0:
            assert dom[cell] < 0
            continue
        mask = int(dom[cell]) & int(S.LOW_MASK)
        count = int(dom[cell]) >> S.COUNT_SHIFT
        assert mask == want[cell], f"cell {cell}"
        assert count == bin(mask).count("1")
        for k in range(size + 1):
            word = int(state[int(state[S.BUCKET]) + k * words + cell // 64])
            assert bool(word >> (cell % 64) & 1) == (k == count), f"cell {cell} bucket {k}"


def test_play_removes_value_from_row_column_and_box_only():
    state = S.empty_state(2)  # 4x4, values 1..4, 2x2 boxes
    S.play(state, (1 * 4 + 2) * 4 + 0)  # value 1 at row 2, column 3 (1-based)
    doms = state[S.DOM : S.DOM + 16] & S.LOW_MASK
    lost = {c for c in range(16) if state[S.DOM + c] >= 0 and not doms[c] & 1}
    # Row 2: cells 4,5,7; column 3: cells 2,10,14; box (rows 1-2, columns 3-4): 3.
    assert lost == {4, 5, 7, 2, 10, 14, 3}
    assert state[S.DOM + 6] == -1
    assert S.score(state) == 1
    assert_consistent(state)


def test_propagation_matches_naive_domains_along_random_games():
    rng = np.random.default_rng(5)
    legal = np.empty(16, np.int32)
    for n in (3, 4):
        for _ in range(3):
            state = S.empty_state(n)
            while (k := S.legal_moves(state, legal)) > 0:
                S.play(state, legal[rng.integers(k)])
                assert_consistent(state)


def test_magic_division_is_exact():
    for n in (2, 3, 4):
        size = n * n
        state = S.empty_state(n)
        x = np.arange(size * size * size)
        assert np.array_equal((x * int(state[S.DIV_N])) >> S.DIV_SHIFT, x // size)
        assert np.array_equal((x[:size] * int(state[S.DIV_BOX])) >> S.DIV_SHIFT, x[:size] // n)


def test_next_variable_is_smallest_domain_lowest_index():
    grid = np.zeros((9, 9), np.int64)
    # Row 0 holds 1..7 in columns 0..6: cells 7 and 8 have domain {8, 9}; so does nothing else.
    grid[0, :7] = np.arange(1, 8)
    state = S.state_from_grid(grid)
    legal = np.empty(9, np.int32)
    k = S.legal_moves(state, legal)
    assert sorted(legal[:k].tolist()) == [7 * 9 + 7, 7 * 9 + 8]  # cell 7, values 8 and 9
    # On generated problems and along random games: always the naive argmin (first index).
    rng = np.random.default_rng(2)
    for seed in range(6):
        state = S.state_from_grid(IO.generate(3 + seed % 2, 0.3 + 0.1 * seed, seed=seed))
        legal = np.empty(16, np.int32)
        while (k := S.legal_moves(state, legal)) > 0:
            size = int(state[S.SIZE])
            naive = naive_domains(state)
            counts = [bin(d).count("1") if d >= 0 else 99 for d in naive]
            best = int(np.argmin(counts))
            assert {int(m) // size for m in legal[:k]} == {best}
            assert sorted(int(m) % size for m in legal[:k]) == [
                v for v in range(size) if naive[best] >> v & 1
            ]
            S.play(state, legal[rng.integers(k)])


def test_dead_end_stops_everything():
    grid = np.zeros((9, 9), np.int64)
    grid[0, 1:] = [2, 3, 4, 5, 6, 7, 8, 9]  # cell 0 must be 1 ...
    state = S.state_from_grid(grid)
    S.play(state, 9 * 9 + 0)  # ... but put 1 at row 1, column 0 (same column, same box)
    assert S.dead_cell(state) == 0
    assert S.legal_moves(state, np.empty(9, np.int32)) == 0
    before = state.copy()
    assert S.playout(state, new_rng(1), np.empty(81, np.int32), True) == 0
    assert np.array_equal(state, before)
    assert S.score(state) == 9


def test_givens_that_leave_a_cell_empty_are_refused():
    grid = np.zeros((9, 9), np.int64)
    grid[0, 1:] = [2, 3, 4, 5, 6, 7, 8, 9]
    grid[5, 0] = 1
    with pytest.raises(ValueError, match="no possible value at row 1, column 1"):
        S.state_from_grid(grid, "p")


def test_playout_of_a_solved_or_forced_grid():
    solution = IO.parse_line(S9)
    state = S.state_from_grid(solution)
    assert S.score(state) == 81 and S.legal_moves(state, np.empty(9, np.int32)) == 0
    # One empty cell: the only playout fills it and scores 81.
    grid = solution.copy()
    grid[3, 5] = 0
    state = S.state_from_grid(grid)
    moves = np.empty(2, np.int32)
    assert S.playout(state, new_rng(0), moves, True) == 1
    assert moves[0] == (3 * 9 + 5) * 9 + solution[3, 5] - 1
    assert S.score(state) == 81


def test_reader_9x9_one_line_format():
    grid = IO.parse_line(P9)
    assert grid.shape == (9, 9) and grid[0, 2] == 3 and grid[8, 6] == 3
    dots = P9.replace("0", ".")
    assert np.array_equal(IO.parse_line(dots), grid)
    problems = IO.read_problems(f"# two puzzles\n{P9}\n\n{dots}\n")
    assert len(problems) == 2
    assert IO.check_solution(grid, IO.parse_line(S9))


@pytest.mark.parametrize(
    "text,message",
    [
        (P9[:80], "text, line 2: expected 81 \\(9x9\\) or 256 \\(16x16\\) characters, got 80"),
        (P9[:10] + "A" + P9[11:], "text, line 2: value 'A' out of range .* at row 2, column 2"),
        (P9[:10] + "x" + P9[11:], "text, line 2: value 'X' out of range .* at row 2, column 2"),
        (
            "3" + P9[1:],
            "text, line 2: givens contradict: value 3 at row 1, column 1 and at row 1, "
            "column 3 \\(same row\\)",
        ),
        (
            P9[:10] + "3" + P9[11:],
            "text, line 2: givens contradict: value 3 at row 1, column 3 and at row 2, "
            "column 2 \\(same box\\)",
        ),
    ],
)
def test_bad_input_one_line_with_place(text, message):
    with pytest.raises(ValueError, match=message) as err:
        IO.read_problems("# header\n" + text + "\n")
    assert "\n" not in str(err.value)


def test_bad_16x16_value_and_options():
    line = IO.format_line(IO.stored_problems()[0])
    with pytest.raises(ValueError, match="value 'H' out of range .* row 1, column 1"):
        IO.parse_line("H" + line[1:])
    with pytest.raises(ValueError, match="game.n"):
        S.make_state(n=5)
    with pytest.raises(ValueError, match="game.problem"):
        S.make_state(problem=100)
    with pytest.raises(ValueError, match="problem=null"):
        S.make_state(n=3, problem=0)


def test_generator_is_reproducible_and_valid():
    a = IO.generate(3, 0.5, seed=11)
    assert np.array_equal(a, IO.generate(3, 0.5, seed=11))
    assert not np.array_equal(a, IO.generate(3, 0.5, seed=12))
    assert (a == 0).sum() == round(0.5 * 81)
    grid = IO.generate(4, 0.0, seed=3)
    assert IO.check_solution(grid, grid)  # a complete grid is a valid solution of itself


def test_stored_set_is_what_the_generator_makes():
    assert IO.STORED_PATH.read_text(encoding="utf-8") == IO.stored_text()
    problems = IO.read_problems(IO.STORED_PATH)  # also checks every problem's givens
    assert len(problems) == 100
    assert all((p == 0).sum() == round(0.66 * 256) for p in problems)
    assert np.array_equal(S.grid_of(S.make_state()), problems[0])


def test_checker_rejects_wrong_grids():
    problem = IO.parse_line(P9)
    good = IO.parse_line(S9)
    bad = good.copy()
    bad[0, 0], bad[0, 1] = bad[0, 1], bad[0, 0]  # rows still fine, columns are not
    assert not IO.check_solution(problem, bad)
    other = good.copy()
    other[[0, 1]] = other[[1, 0]]  # a valid grid that changes givens
    assert not IO.check_solution(problem, other)


def test_forward_checking_solves_and_is_checked():
    solved, nodes, _, grid = solve_fc(S.state_from_grid(IO.parse_line(P9)), seed=1, max_nodes=10**6)
    assert solved == 1 and nodes >= 81 - 32
    assert np.array_equal(grid, IO.parse_line(S9))
    for seed in range(3):
        problem = IO.generate(4, 0.5, seed=seed)
        solved, nodes, _, grid = solve_fc(S.state_from_grid(problem), seed=seed, max_seconds=30)
        assert solved == 1 and IO.check_solution(problem, grid)
    # A cap stops it: a node budget below the number of empty cells cannot solve.
    solved, nodes, _, grid = solve_fc(S.make_state(), seed=0, max_nodes=100)
    assert solved == 0 and nodes == 100 and grid is None


def test_forward_checking_detects_no_solution():
    grid = IO.parse_line(P9)
    grid[0, 0] = 5  # consistent givens, but the puzzle (unique solution: 4 there) now has none
    solved, nodes, _, _ = solve_fc(S.state_from_grid(grid), seed=0, max_nodes=10**7)
    assert solved == -1 and nodes > 0


def solved_grid(state0, moves):
    """The grid after ``moves`` from ``state0``, or None if it is not complete."""
    state = state0.copy()
    for move in moves:
        S.play(state, move)
    return S.grid_of(state) if state[S.ASSIGNED] == state[S.CELLS] else None


def test_fc_algorithm_solves_an_easy_problem_and_is_checked():
    problem = IO.parse_line(P9)
    state0 = S.state_from_grid(problem)
    res = search_batch("sudoku", state0, search_seeds(0, 0, 3), algo="fc", max_playouts=10**6)
    for i in range(3):
        assert res.score[i] == 81 and res.length[i] == 81 - int(state0[S.ASSIGNED])
        assert np.array_equal(solved_grid(state0, res.moves[i]), IO.parse_line(S9))
        assert res.playouts[i] >= res.length[i]  # nodes
    # The kernel from Python and the registered algorithm agree, node for node.
    solved, nodes, _, grid = solve_fc(state0, seed=int(res.seed[0]), max_nodes=10**6)
    assert solved == 1 and nodes == res.playouts[0]
    # At the cap: unsolved, no moves, the givens as the score.
    capped = search_batch(
        "sudoku", S.make_state(), search_seeds(0, 0, 1), algo="fc", max_playouts=100
    )
    assert capped.playouts[0] == 100 and capped.length[0] == 0 and capped.score[0] < 256


def test_fc_refuses_other_games_and_a_missing_cap():
    with pytest.raises(ConfigError, match="algo=fc is for game=sudoku, not game=morpion"):
        search_batch(
            "morpion", np.zeros(1, np.int32), search_seeds(0, 0, 1), algo="fc", max_seconds=1
        )
    with pytest.raises(ConfigError, match="needs budget"):
        search_batch("sudoku", S.make_state(), search_seeds(0, 0, 1), algo="fc")


def test_restart_until_solved_with_checker():
    """algo=iterative stops at the first game that solves the grid (its target score)."""
    problems = IO.stored_problems()
    for i in range(3):
        state0 = S.state_from_grid(problems[i])
        res = search_batch(
            "sudoku",
            state0,
            search_seeds(0, i, 1),
            algo="iterative",
            level=1,
            memorize=True,
            max_seconds=60,
        )
        assert res.score[0] == 256
        assert IO.check_solution(problems[i], solved_grid(state0, res.moves[0]))
        assert res.trace[0][-1, 2] == 256
    problem = IO.parse_line(P9)
    state0 = S.state_from_grid(problem)
    res = search_batch(
        "sudoku",
        state0,
        search_seeds(4, 0, 1),
        algo="iterative",
        level=0,
        memorize=False,
        max_playouts=100000,
    )
    assert res.score[0] == 81 and IO.check_solution(problem, solved_grid(state0, res.moves[0]))
    # A cap too small to solve: the search stops there, unsolved.
    res = search_batch(
        "sudoku",
        S.make_state(),
        search_seeds(0, 0, 1),
        algo="iterative",
        level=0,
        memorize=False,
        max_playouts=5,
    )
    assert res.score[0] < 256 and res.playouts[0] == 5


def test_stop_at_target_changes_effort_not_correctness():
    """stop_at_target=false (the paper's pseudo-code): no early stop inside a nested search, the
    restarts still stop at a solved grid; every solution checked."""
    problems = IO.stored_problems()
    effort = {True: 0, False: 0}
    for stop in (True, False):
        for i in range(3):
            state0 = S.state_from_grid(problems[i])
            res = search_batch(
                "sudoku",
                state0,
                search_seeds(0, i, 1),
                algo="iterative",
                level=1,
                memorize=False,
                max_seconds=60,
                stop_at_target=stop,
            )
            assert res.score[0] == 256
            assert IO.check_solution(problems[i], solved_grid(state0, res.moves[0]))
            effort[stop] += int(res.playouts[0])
    assert effort[True] != effort[False]
    # One nested search without the early stop plays to the end of its game: more playouts
    # than the same search with it, and its moves replay to its score.
    state0 = S.state_from_grid(problems[0])
    seeds = search_seeds(1, 0, 4)
    runs = {
        stop: search_batch(
            "sudoku", state0, seeds, algo="nested", level=1, memorize=True, stop_at_target=stop
        )
        for stop in (True, False)
    }
    assert (runs[False].playouts >= runs[True].playouts).all()
    for i in range(4):
        state = state0.copy()
        for move in runs[False].moves[i]:
            S.play(state, move)
        assert S.score(state) == runs[False].score[i]
    with pytest.raises(ConfigError, match="stop_at_target = false: algo=beam does not take it"):
        search_batch("sudoku", state0, seeds, algo="beam", stop_at_target=False)


def test_quick_table2_and_effort_through_run_py_and_report(tmp_path):
    """Table 2 and the effort figure as a user runs them (fewer cells than the quick scale),
    then their claims in the reproduction report; one line for algo=fc on another game."""
    from helpers import run_analysis, run_cli, run_python

    sweep = f"hydra.sweep.dir={tmp_path / 'quick'}"
    run_cli("-m", "experiment=sudoku_table2", "game.problem=0,1,2", "progress=false", sweep)
    run_cli(
        "-m",
        "experiment=sudoku_effort",
        "game.empty_fraction=0.5,0.65,0.9",
        "game.problem_seed=10000,10001",
        "progress=false",
        sweep,
    )
    from nmcs.harness.results import experiment_results

    df = experiment_results(tmp_path / "quick" / "sudoku_table2")
    assert len(df) == 10 * 3  # 6 methods + 4 without the early stop
    nmcs = df[df["algo"] == "iterative"]
    assert (nmcs["score"] == 256).all()
    for _, row in nmcs.iterrows():
        state0 = S.make_state(problem=int(row["problem"]))
        assert IO.check_solution(
            IO.stored_problems()[row["problem"]], solved_grid(state0, row["moves"])
        )
    run_analysis("analysis", "--outputs", str(tmp_path))
    report = (tmp_path / "REPRODUCTION.md").read_text()
    assert "NMCS level 1 needs less effort than iterative sampling" in report
    assert "NMCS (level 1) is more than 200,000 times faster than forward checking" in report
    assert "forward checking fails on 21 of 100 problems within 20,000 s" in report
    assert "the hardest problems have close to 66% empty cells" in report
    assert (tmp_path / "figures" / "quick" / "sudoku_effort_vs_empty.png").exists()
    bad = run_python("run.py", "algo=fc", "game=morpion", "budget.seconds=1", check=False)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "run.py: error: algo=fc is for game=sudoku, not game=morpion"


def test_the_peak_of_the_effort_curve_comes_with_a_bootstrap_interval():
    import pandas as pd

    from analysis.sudoku import peak_interval

    rng = np.random.default_rng(1)
    fractions = [0.55, 0.6, 0.65, 0.7, 0.75]
    centre = {0.55: 1e3, 0.6: 1e4, 0.65: 1e6, 0.7: 1e4, 0.75: 1e3}
    clear = pd.DataFrame(
        [(f, centre[f] * rng.uniform(0.9, 1.1)) for f in fractions for _ in range(10)],
        columns=["empty_fraction", "playouts"],
    )
    assert peak_interval(clear, np.random.default_rng(0)) == (0.65, 0.65, 0.65)
    # the same effort everywhere up to noise: the peak could be anywhere
    flat = clear.assign(playouts=rng.lognormal(0, 2, len(clear)))
    _, low, high = peak_interval(flat, np.random.default_rng(0))
    assert low <= 0.6 and high >= 0.7
