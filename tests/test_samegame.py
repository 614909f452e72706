"""SameGame: rules on hand-checked boards, TabuColorRandom, the standard test set, bad input, and
a level-1 search whose sequence replays to its score.

Boards are written as the files and pictures show them: first text row = TOP row. A move code is
the smallest cell index c * H + r of its group (column c from the left, row r from the bottom).
"""

import hashlib
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from nmcs.core.rng import new_rng
from nmcs.games import samegame as sg
from nmcs.games.samegame import io as sio
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.unit


def board(text):
    return np.array(
        [[-1 if v == "." else int(v) for v in row.split()] for row in text.strip().splitlines()]
    )


def legal(state):
    out = np.empty(sg.max_branching(state), np.int32)
    return out[: sg.legal_moves(state, out)].tolist()


def expect_state(text, colors, score, played, policy="tabu"):
    """The canonical state of board ``text`` after ``played`` moves scoring ``score``."""
    s = sg.state_from_grid(board(text), colors=colors, policy=policy)
    s[sg.SCORE], s[sg.PLAYED] = score, played
    return s


# --------------------------------------------------------------------------- rules, by hand


def test_scores_gravity_column_shift_and_clear_bonus():
    s = sg.state_from_grid(
        board("""
        0 1 1
        0 2 1
        0 0 2
    """),
        colors=3,
    )
    # 0s: column 0 (cells 0, 1, 2) and the bottom of column 1 (cell 3); 1s: cells 5, 7, 8.
    assert legal(s) == [0, 5]
    sio.apply_move(s, 0)  # 4 cells: (4 - 2)^2 = 4; column 0 empties and the rest shifts left
    np.testing.assert_array_equal(
        s,
        expect_state(
            """
        . 1 .
        1 1 .
        2 2 .
    """,
            colors=3,
            score=4,
            played=1,
        ),
    )
    assert legal(s) == [0, 1]
    sio.apply_move(s, 1)  # three 1s: +1
    np.testing.assert_array_equal(
        s,
        expect_state(
            """
        . . .
        . . .
        2 2 .
    """,
            colors=3,
            score=5,
            played=2,
        ),
    )
    sio.apply_move(s, 0)  # two 2s: +0, and the board is clear: +1000
    assert sg.score(s) == 5 + 1000
    assert s[sg.CELLS] == 0 and s[sg.NCOLS] == 0
    assert legal(s) == []


def test_cells_fall_into_place():
    s = sg.state_from_grid(
        board("""
        2 1
        1 1
        2 1
    """),
        colors=3,
    )
    assert legal(s) == [1]  # the 1s: cell 1 (column 0, row 1) and column 1
    sio.apply_move(s, 1)
    np.testing.assert_array_equal(
        s,
        expect_state(
            """
        . .
        2 .
        2 .
    """,
            colors=3,
            score=4,
            played=1,
        ),
    )


def test_middle_column_closes():
    s = sg.state_from_grid(
        board("""
        1 0 2
        1 0 2
    """),
        colors=3,
    )
    assert legal(s) == [0, 2, 4]
    sio.apply_move(s, 2)
    np.testing.assert_array_equal(
        s,
        expect_state(
            """
        1 2 .
        1 2 .
    """,
            colors=3,
            score=0,
            played=1,
        ),
    )
    assert legal(s) == [0, 2]


def test_big_group_score_and_no_bonus_with_cells_left():
    s = sg.state_from_grid(
        board("""
        0 0 0 0
        0 0 0 1
    """),
        colors=2,
    )
    sio.apply_move(s, 0)  # 7 cells: 25 points, one cell left, no bonus
    assert sg.score(s) == 25
    assert legal(s) == []


def test_game_over_without_groups():
    s = sg.state_from_grid(
        board("""
        0 1
        1 0
    """),
        colors=2,
    )
    assert legal(s) == []
    assert sg.playout(s.copy(), new_rng(0), np.empty(4, np.int32), True) == 0


def test_kernels_match_a_plain_python_model_on_random_boards():
    """play/legal_moves/playout against a slow, obvious model of the rules."""

    def groups(grid):  # grid[c][r], bottom-up columns (lists)
        seen, out = set(), []
        for c, col in enumerate(grid):
            for r in range(len(col)):
                if (c, r) in seen:
                    continue
                comp, stack = {(c, r)}, [(c, r)]
                while stack:
                    a, b = stack.pop()
                    for a2, b2 in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                        if (
                            0 <= a2 < len(grid)
                            and 0 <= b2 < len(grid[a2])
                            and (a2, b2) not in comp
                            and grid[a2][b2] == grid[c][r]
                        ):
                            comp.add((a2, b2))
                            stack.append((a2, b2))
                seen |= comp
                if len(comp) >= 2:
                    out.append(sorted(comp))
        return out

    rng = np.random.default_rng(5)
    for trial in range(30):
        w, h, k = rng.integers(1, 8), rng.integers(1, 8), rng.integers(2, 5)
        s = sg.state_from_grid(sio.random_board(trial, w, h, k), colors=k)
        grid = [list(col[col >= 0]) for col in board_cols(s)]
        score = 0
        while True:
            gs = groups(grid)
            codes = sorted(g[0][0] * h + g[0][1] for g in gs)
            assert legal(s) == codes
            if not gs:
                break
            g = gs[rng.integers(len(gs))]
            sio.apply_move(s, g[0][0] * h + g[0][1])
            for c, r in sorted(g, key=lambda cr: -cr[1]):
                del grid[c][r]
            grid = [col for col in grid if col]
            score += (len(g) - 2) ** 2 + (1000 if not grid else 0)
            assert sg.score(s) == score
            assert [list(col[col >= 0]) for col in board_cols(s) if (col >= 0).any()] == grid


def board_cols(s):
    """Columns of the state, bottom-up, including empty ones."""
    return sg.to_grid(s)[::-1].T


# --------------------------------------------------------------------------- playout policies


def first_moves(s, n, seed=0):
    moves = np.empty(sg.max_moves(s) + 1, np.int32)
    counts = Counter()
    for i in range(n):
        assert sg.playout(s.copy(), new_rng(seed * 1_000_003 + i), moves, True) >= 1
        counts[int(moves[0])] += 1
    return counts


def assert_uniform(counts, support, n):
    assert set(counts) == set(support), f"moves {sorted(counts)} != allowed {sorted(support)}"
    p = 1 / len(support)
    sd = np.sqrt(n * p * (1 - p))
    for m in support:
        assert abs(counts[m] - n * p) < 5 * sd, f"move {m}: {counts[m]} of {n}, expected {n * p}"


TABU_BOARD = """
    0 0 1 1
    2 2 0 0
    0 0 1 2
"""  # colour 0 has 6 cells: tabu. Non-tabu groups: the 1s (cell 5) and the 2s (cell 1).


def test_tabu_colour_is_avoided_while_other_groups_exist():
    s = sg.state_from_grid(board(TABU_BOARD), colors=3, policy="tabu")
    assert legal(s) == [0, 1, 2, 7, 8]  # three groups of 0s at 0, 2, 7
    assert_uniform(first_moves(s, 3000), [1, 8], 3000)


def test_random_policy_plays_every_group():
    s = sg.state_from_grid(board(TABU_BOARD), colors=3, policy="random")
    assert_uniform(first_moves(s, 5000), [0, 1, 2, 7, 8], 5000)


def test_tabu_moves_are_played_when_nothing_else_is_left():
    s = sg.state_from_grid(
        board("""
        0 0 1 0 0
        1 2 3 1 2
    """),
        colors=4,
        policy="tabu",
    )
    assert legal(s) == [1, 7]  # only the two groups of the tabu colour 0
    assert_uniform(first_moves(s, 2000), [1, 7], 2000)


def test_tabu_group_holding_all_tabu_cells_is_allowed():
    # Colours 0 and 2 both have 3 cells: the lower number, 0, is tabu. Its one group removes
    # all the 0s, so it competes with the 1s on equal terms.
    s = sg.state_from_grid(
        board("""
        0 0 0 1 1
        2 3 2 3 2
    """),
        colors=4,
        policy="tabu",
    )
    assert legal(s) == [1, 7]
    assert_uniform(first_moves(s, 2000), [1, 7], 2000)


def test_tabu_colour_is_fixed_at_playout_start():
    # Columns bottom-up: [1 0 0 1] [2 3 2 3] [0 0 3 1] [3 1 0 2]. Colour 0 has the most cells (5):
    # tabu. Only 0 groups exist (codes 1 and 8), so the first move is one of them. After code 1
    # the two 1s of column 0 meet: 1 now has 4 cells and 0 only 3, but 0 stays tabu, so the
    # second move must be the 1s (code 0), never the 0 group left (code 8).
    cols = [[1, 0, 0, 1], [2, 3, 2, 3], [0, 0, 3, 1], [3, 1, 0, 2]]
    s = sg.state_from_grid(np.array(cols).T[::-1], colors=4, policy="tabu")
    assert legal(s) == [1, 8]
    after = sio.apply_move(s.copy(), 1)
    assert legal(after) == [0, 8]
    moves = np.empty(sg.max_moves(s) + 1, np.int32)
    seconds = Counter()
    for i in range(400):
        sg.playout(s.copy(), new_rng(i), moves, True)
        if moves[0] == 1:
            seconds[int(moves[1])] += 1
    assert set(seconds) == {0} and seconds[0] > 100


def test_playout_statistics_match_an_exact_policy_sampler():
    """Mean score of the fast playouts (rejection sampling) against an exact, list-the-groups
    implementation of the same policies; a bias in the sampler would show here."""
    state0 = sg.make_state(instance=None, width=8, height=8, colors=4, board_seed=3)
    for policy in ("tabu", "random"):
        s0 = state0.copy()
        s0[sg.POLICY] = sg.POLICIES[policy]
        rng = np.random.default_rng(1)
        exact = []
        for _ in range(800):
            s = s0.copy()
            k = int(s[sg.COLORS])
            counts = s[sg.HDR + int(s[sg.WIDTH]) :][:k]
            tabu = int(np.argmax(counts)) if policy == "tabu" else -1
            while moves := legal(s):
                if tabu >= 0:
                    left = int(s[sg.HDR + int(s[sg.WIDTH]) + tabu])
                    ok = [
                        m
                        for m in moves
                        if s[sg.HDR + s[sg.WIDTH] + k + m] != tabu
                        or len(sio.group_cells(s, m)) == left
                    ]
                    moves = ok or moves
                sg.play(s, np.int32(moves[rng.integers(len(moves))]))
            exact.append(int(sg.score(s)))
        fast = []
        buf = np.empty(sg.max_moves(s0) + 1, np.int32)
        for i in range(4000):
            s = s0.copy()
            sg.playout(s, new_rng(i), buf, False)
            fast.append(int(sg.score(s)))
        se = np.sqrt(np.var(exact) / len(exact) + np.var(fast) / len(fast))
        assert abs(np.mean(exact) - np.mean(fast)) < 4 * se, (
            policy,
            np.mean(exact),
            np.mean(fast),
            se,
        )


# --------------------------------------------------------------------------- the standard set


def test_standard_set_loads():
    boards = sio.standard_set()
    assert len(boards) == 20
    for b in boards:
        assert b.shape == (15, 15)
        assert set(np.unique(b).tolist()) == {0, 1, 2, 3, 4}
    # Board 0 as printed in the file: first text row is the top row.
    assert boards[0][0].tolist() == [3, 1, 1, 4, 1, 0, 4, 0, 4, 4, 1, 1, 0, 2, 3]
    assert boards[0][14].tolist() == [1, 0, 1, 0, 1, 1, 2, 2, 1, 0, 0, 1, 4, 3, 2]
    s = sg.make_state(0)
    assert sg.to_grid(s).tolist() == boards[0].tolist()
    # Cell 0 is the bottom-left cell.
    assert s[sg.HDR + 15 + 5 + 0] == 1 and s[sg.HDR + 15 + 5 + 14] == 3


def test_packaged_copy_is_the_shared_file():
    assert hashlib.md5(sio.PACKAGED.read_bytes()).hexdigest() == sio.STANDARD_MD5
    shared = sio.shared_standard_path()
    if shared is not None:  # the shared copy is beside the repository on our machines and CI
        assert shared.read_bytes() == sio.PACKAGED.read_bytes()


def test_data_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("NMCS_DATA_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="NMCS_DATA_DIR"):
        sio.standard_path()
    (tmp_path / "samegame").mkdir()
    (tmp_path / "samegame" / sio.STANDARD_FILE).write_bytes(sio.PACKAGED.read_bytes())
    assert sio.standard_path() == tmp_path / "samegame" / sio.STANDARD_FILE


def test_random_boards_are_seeded():
    a = sg.make_state(instance=None, width=10, height=7, colors=3, board_seed=11)
    b = sg.make_state(instance=None, width=10, height=7, colors=3, board_seed=11)
    c = sg.make_state(instance=None, width=10, height=7, colors=3, board_seed=12)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert sg.to_grid(a).shape == (7, 10) and sg.to_grid(a).max() <= 2


# --------------------------------------------------------------------------- bad input


def standard_text():
    return sio.PACKAGED.read_text()


def one_line_error(text, match, **kw):
    args = dict(width=15, height=15, colors=5, count=20, source="f.txt") | kw
    with pytest.raises(ValueError, match=match) as err:
        sio.parse_boards(text, **args)
    assert "\n" not in str(err.value)


def test_ragged_row_names_board_and_row():
    lines = standard_text().splitlines()
    lines[16 * 3 + 4] += " 1"  # board 3, row 4
    one_line_error("\n".join(lines), r"f\.txt: board 3 row 4 \(line 53\): 16 cells, expected 15")


def test_colour_out_of_range_names_board_and_row():
    lines = standard_text().splitlines()
    lines[16 * 7 + 2] = lines[16 * 7 + 2].replace("3", "7", 1)  # board 7, row 2
    one_line_error("\n".join(lines), r"board 7 row 2 .*colour 7 out of range 0\.\.4")


def test_wrong_board_count():
    text = "\n\n".join(standard_text().split("\n\n")[:19])
    one_line_error(text, r"19 boards, expected 20")


def test_missing_row_names_board():
    lines = standard_text().splitlines()
    del lines[16 * 5 + 3]
    one_line_error("\n".join(lines), r"board 5 \(lines .*\) has 14 rows, expected 15")


def test_not_a_number():
    lines = standard_text().splitlines()
    lines[1] = lines[1].replace("3", "x", 1)
    one_line_error("\n".join(lines), r"board 0 row 1 \(line 2\): not an integer")


def test_illegal_moves_are_refused():
    s = sg.state_from_grid(
        board("""
        0 1 1
        0 2 1
        0 0 2
    """),
        colors=3,
    )
    with pytest.raises(ValueError, match="single cell"):
        sio.apply_move(s.copy(), 4)  # the lone 2
    with pytest.raises(ValueError, match="smallest cell, 5"):
        sio.apply_move(s.copy(), 8)  # a cell of the 1s, not its code
    with pytest.raises(ValueError, match="out of range"):
        sio.apply_move(s.copy(), 9)
    after = sio.apply_move(s.copy(), 0)
    with pytest.raises(ValueError, match="move 1 .*empty"):
        sio.replay(s, [0, 8])  # column 2 moved left: cell 8 is empty now
    np.testing.assert_array_equal(sio.replay(s, [0]), after)


@pytest.mark.parametrize(
    "options,match",
    [
        (dict(instance=20), "game.instance must be 0..19"),
        (dict(instance=3, width=10), "game.instance=3 is a 15x15 board"),
        (dict(policy="greedy"), "game.policy must be one of"),
        (dict(instance=None, colors=0), "game.colors must be 1..20"),
        (dict(instance=None, width=100), "game.width must be 1..64"),
        (dict(instance=None, board_seed=-1), "game.board_seed"),
    ],
)
def test_bad_options(options, match):
    with pytest.raises(ValueError, match=match):
        sg.make_state(**options)


# --------------------------------------------------------------------------- search


def test_level1_search_replays_to_its_score():
    s0 = sg.make_state(4)
    res = search_batch("samegame", s0, search_seeds(0, 0, 2), level=1, memorize=True)
    for i in range(2):
        final = sio.replay(s0, res.moves[i])
        assert sg.score(final) == res.score[i]
        assert legal(final) == []
        # A level-1 search beats the mean of its own playouts by far.
        assert res.score[i] > 500
    assert "(+" in sg.describe(s0, res.moves[0][:3])


def test_pictures(tmp_path):
    from nmcs.games.samegame import draw

    s0 = sg.state_from_grid(board(TABU_BOARD), colors=3)
    moves = np.empty(sg.max_moves(s0) + 1, np.int32)
    n = sg.playout(s0.copy(), new_rng(0), moves, True)
    frames = draw.game_frames(s0, moves[:n])
    assert len(frames) == n + 1 and len(frames[0][1]) >= 2  # each move's group is highlighted
    for path in (
        draw.save_board(s0, tmp_path / "b.png"),
        draw.save_game_strip(s0, moves[:n], tmp_path / "s.png"),
    ):
        assert path.read_bytes()[:4] == b"\x89PNG"
    assert draw.save_game_gif(s0, moves[:n], tmp_path / "g.gif").read_bytes()[:3] == b"GIF"
    with pytest.raises(ValueError, match="move 0 4 .* smallest cell, 1"):
        draw.game_frames(s0, [4])


def test_board_pixels_show_the_colours_and_the_group_to_remove():
    from nmcs.games.samegame import draw

    s0 = sg.state_from_grid(board(TABU_BOARD), colors=3)
    group = sio.group_cells(s0, 1)  # the two 2s of the middle row
    cell = 10
    pixels = draw.board_pixels(s0, group, cell)
    grid = sg.to_grid(s0)
    h, w = grid.shape
    assert pixels.shape == (h * cell + 1, w * cell + 1)
    centres = pixels[cell // 2 :: cell, cell // 2 :: cell]  # the middle pixel of every cell
    marked = np.zeros_like(grid, dtype=bool)
    for code in group:
        c, r = sg.cell_of(s0, code)
        marked[h - 1 - r, c] = True
    np.testing.assert_array_equal(
        centres, np.where(marked, draw.BLACK, draw.EMPTY + 1 + grid).astype(np.uint8)
    )
    # the frame is black, the cells' edges grid lines unless outlined
    assert (pixels[0] == draw.BLACK).all() and (pixels[:, -1] == draw.BLACK).all()
    assert pixels[cell, 3 * cell + cell // 2] == draw.GRID_LINE  # top right, not outlined


def test_strip_and_animation_of_a_standard_game(tmp_path):
    """One panel and one GIF frame per move plus the final board, at one size each."""
    from PIL import Image

    from nmcs.games.samegame import draw

    s0 = sg.make_state(instance=3)
    moves = np.empty(sg.max_moves(s0) + 1, np.int32)
    n = sg.playout(s0.copy(), new_rng(3), moves, True)
    assert n > 30
    stems = sg.save_game(s0, moves[:n], tmp_path / "best_game")  # the harness's hook
    assert [Path(p).name for p in stems] == ["best_game.png", "best_game.gif"]
    with Image.open(tmp_path / "best_game.gif") as gif:
        assert gif.n_frames == n + 1
        assert gif.info["duration"] == 500 and gif.info["loop"] == 0
        cell = draw.cell_size(s0, draw.GIF_BOARD)
        assert gif.size[0] > 15 * cell and gif.size[1] > 15 * cell
        sizes = set()
        for i in range(gif.n_frames):
            gif.seek(i)
            sizes.add(gif.size)
        assert len(sizes) == 1
        gif.seek(0)
        first = {c for _, c in gif.convert("RGB").getcolors()}
        # the first board shows all 5 colours of the palette
        assert {draw.rgb(c) for c in draw.PALETTE[1:6]} <= first
    with Image.open(tmp_path / "best_game.png") as strip:
        columns, rows = 10, -(-(n + 1) // 10)
        assert strip.size[0] % columns == 0 and strip.size[1] % rows == 0
        panel = strip.size[0] // columns, strip.size[1] // rows
        cell = draw.cell_size(s0, draw.STRIP_BOARD)
        assert 15 * cell + 1 < panel[0] < 15 * cell + 60
        assert 15 * cell + 1 < panel[1] < 15 * cell + 60


# --------------------------------------------------------------------------- NRPA's policy steps


def policy_moves(state):
    """The moves NRPA's playouts choose from at ``state`` (a playout starting there)."""
    width = sg.max_branching(state)
    out, codes, betas = np.empty(width, np.int32), np.empty(width, np.int64), np.zeros(width)
    scratch = np.zeros(sg.policy_scratch(state), np.uint64)
    sg.policy_begin(state, scratch)
    n = sg.policy_moves(state, scratch, out, codes, betas, False)
    return sorted(out[:n].tolist())


# Colour 0 (6 cells) is tabu: a group of 2 (cells 0, 3) and one of 4 (cells 5, 8, 10, 11). The
# others: 1s at cells 1-2 and 6, 9; 2s at cells 4, 7 (two cells each).
NRPA_TABU_BOARD = """
    1 0 0 0
    1 2 2 0
    0 0 1 1
"""


def test_nrpa_policy_leaves_out_tabu_groups_until_the_tenth_move():
    s = sg.state_from_grid(board(NRPA_TABU_BOARD), colors=3, policy="tabu")
    assert legal(s) == [0, 1, 4, 5, 6]
    assert policy_moves(s) == [1, 4, 6]  # no 0s
    s[sg.PLAYED] = 10  # once ten moves are played, a tabu group of two cells, not of four
    assert policy_moves(s) == [0, 1, 4, 6]
    r = sg.state_from_grid(board(NRPA_TABU_BOARD), colors=3, policy="random")
    assert policy_moves(r) == legal(r)


def test_nrpa_policy_allows_the_last_tabu_group_and_tabu_groups_when_alone():
    # The 0s in one group of all 3: allowed at once. Then only 0s: all of them.
    s = sg.state_from_grid(board("0 0 0 1 1\n2 3 2 3 2"), colors=4, policy="tabu")
    assert policy_moves(s) == legal(s) == [1, 7]
    s = sg.state_from_grid(board("0 0 1 0 0\n1 2 3 1 2"), colors=4, policy="tabu")
    assert policy_moves(s) == legal(s) == [1, 7]


def test_nrpa_policy_lists_every_tabu_group_when_they_fill_most_of_the_move_buffer():
    # One row: three groups of the tabu colour 0 and nothing else to play; the list buffer
    # holds max_branching = 4 moves, so the three fill most of it.
    s = sg.state_from_grid(board("0 0 1 0 0 2 0 0"), colors=3, policy="tabu")
    assert sg.max_branching(s) == 4
    assert policy_moves(s) == legal(s) == [0, 3, 6]


def test_gnrpa_bias_policy_lists_every_group_with_a_beta_against_the_tabu_colour():
    s = sg.state_from_grid(board(NRPA_TABU_BOARD), colors=3, policy="bias")
    width = sg.max_branching(s)
    out, codes, betas = np.empty(width, np.int32), np.empty(width, np.int64), np.zeros(width)
    scratch = np.zeros(sg.policy_scratch(s), np.uint64)
    sg.policy_begin(s, scratch)
    n = sg.policy_moves(s, scratch, out, codes, betas, True)
    beta = dict(zip(out[:n].tolist(), betas[:n].tolist(), strict=True))
    assert sorted(beta) == legal(s)  # every group, the 0s (tabu) at cells 0 and 5 too
    assert beta == {0: sg.TABU_BETA, 1: 0.0, 4: 0.0, 5: sg.TABU_BETA, 6: 0.0}


@pytest.mark.parametrize("algo", ["nested", "nrpa", "beam"])
def test_the_bias_policy_is_refused_to_searches_without_a_bias(algo):
    from nmcs.core.errors import ConfigError

    state0 = sg.make_state(instance=0, policy="bias")
    with pytest.raises(ConfigError, match=f"for algo=gnrpa only \\(algo={algo}: game.policy="):
        search_batch("samegame", state0, search_seeds(0, 0, 1), algo=algo, level=1)
