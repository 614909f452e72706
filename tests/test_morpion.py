"""Morpion Solitaire 5D/5T: rules against a brute-force reference, hand-checked rule cases, the
record games in Pentasol notation, bad files, the mobility policy and a seeded search."""

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from nmcs.core.rng import new_rng
from nmcs.games import morpion as M
from nmcs.games.morpion.psol import psol_text, read_psol, replay_psol, write_psol
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.unit

DATA = Path(__file__).parent / "data"
RECORD_5D = DATA / "record_5D_82.psol"
RECORD_5T = DATA / "record_5T_170_bruneau.psol"


class Reference:
    """Morpion by brute force on sets: dots, and the (cell, direction) pairs used by lines,
    cells for 5D, segment starts for 5T. Shares nothing with the engine but the cross."""

    def __init__(self, variant):
        self.touching = variant == "5T"
        self.dots = set(M.cross_cells())
        self.used = set()

    def _marks(self, cells, d):
        return [(c, d) for c in (cells[:4] if self.touching else cells)]

    def legal(self):
        """Moves as (x, y, d, k): new dot, direction, its index along the line."""
        out = set()
        for d, (dx, dy) in enumerate(M.DELTAS):
            starts = {(x - j * dx, y - j * dy) for x, y in self.dots for j in range(5)}
            for sx, sy in starts:
                cells = [(sx + i * dx, sy + i * dy) for i in range(5)]
                empty = [i for i, c in enumerate(cells) if c not in self.dots]
                if len(empty) == 1 and not any(m in self.used for m in self._marks(cells, d)):
                    k = empty[0]
                    out.add((*cells[k], d, k))
        return out

    def play(self, move):
        x, y, d, k = move
        dx, dy = M.DELTAS[d]
        cells = [(x + (i - k) * dx, y + (i - k) * dy) for i in range(5)]
        self.dots.add((x, y))
        self.used.update(self._marks(cells, d))


def legal_set(state):
    out = np.empty(M.max_branching(state), np.int32)
    n = M.legal_moves(state, out)
    return out[:n].copy()


def board_ascii(moves):
    """Rows of the 10 x 10 box with one extra cell around: # cross, o new dot, . empty."""
    new = {M.decode(c)[:2] for c in moves}
    cross = set(M.cross_cells())
    rows = []
    for y in range(M.BOX - 1, M.BOX + 11):
        rows.append(
            "".join(
                "#" if (x, y) in cross else "o" if (x, y) in new else "."
                for x in range(M.BOX - 1, M.BOX + 11)
            )
        )
    return rows


@pytest.mark.parametrize("variant", ["5D", "5T"])
def test_starting_position(variant):
    state = M.make_state(variant=variant)
    assert board_ascii([]) == [
        "............",
        "....####....",
        "....#..#....",
        "....#..#....",
        ".####..####.",
        ".#........#.",
        ".#........#.",
        ".####..####.",
        "....#..#....",
        "....#..#....",
        "....####....",
        "............",
    ]
    moves = legal_set(state)
    # 28, the count every Morpion program starts from, and the same set as the brute force.
    assert len(moves) == 28
    assert sorted(M.decode(c) for c in moves) == sorted(Reference(variant).legal())
    assert M.score(state) == 0


@pytest.mark.parametrize("variant", ["5D", "5T"])
def test_random_games_match_the_reference(variant):
    rng = np.random.default_rng(11)
    for _ in range(3):
        state = M.make_state(variant=variant)
        ref = Reference(variant)
        while True:
            moves = legal_set(state)
            decoded = [M.decode(c) for c in moves]
            assert len(set(decoded)) == len(decoded)
            assert set(decoded) == ref.legal()
            assert all(M.encode(*mv) == c for mv, c in zip(decoded, moves, strict=True))
            if len(moves) == 0:
                break
            code = moves[rng.integers(len(moves))]
            M.play(state, code)
            ref.play(M.decode(code))
        assert M.score(state) == len(ref.dots) - 36


@pytest.mark.parametrize("variant", ["5D", "5T"])
def test_random_playout_lengths_match_an_exact_random_walk(variant):
    # The playout drops dead moves lazily; its game lengths must have the distribution of a
    # uniform walk over the exact legal moves (means within 4 standard errors).
    state0 = M.make_state(variant=variant)
    none = np.empty(0, np.int32)
    fast = np.array([M.playout(state0.copy(), new_rng(s), none, False) for s in range(3000)])
    rng = np.random.default_rng(1)
    walk = []
    for _ in range(1500):
        state = state0.copy()
        while len(moves := legal_set(state)):
            M.play(state, moves[rng.integers(len(moves))])
        walk.append(M.score(state))
    walk = np.array(walk)
    se = np.sqrt(fast.var() / len(fast) + walk.var() / len(walk))
    assert abs(fast.mean() - walk.mean()) < 4 * se


def _psol_code(px, py, dchar, kp, ref=(28, 28)):
    """Engine code of a Pentasol move for reference point (28, 28)."""
    x, y = px - ref[0] + 3 + M.BOX, py - ref[1] + 3 + M.BOX
    return M.encode(x, y, M.DIR_CHARS.index(dchar), 2 - kp)


def test_touching_rule_by_hand():
    # Pentasol column x = 28 is column 3 of the box: cross dots at y = 25..28 and 31..34.
    # Move 1 adds (28,29) with the vertical line y = 25..29. Then, on the same column:
    #   line y = 29..33 (new dot (28,30)) shares only the end dot (28,29): 5T yes, 5D no;
    #   line y = 28..32 (new dot (28,30)) shares two dots: refused by both.
    first = _psol_code(28, 29, "|", -2)
    touching = _psol_code(28, 30, "|", +1)
    overlapping = _psol_code(28, 30, "|", 0)
    for variant, touching_ok in (("5D", False), ("5T", True)):
        state = M.make_state(variant=variant)
        assert first in legal_set(state)
        # before move 1 neither window has 4 dots ((28,29) and (28,30) are both empty)
        assert touching not in legal_set(state) and overlapping not in legal_set(state)
        M.play(state, first)
        moves = legal_set(state)
        assert (touching in moves) == touching_ok, variant
        assert overlapping not in moves, variant
        assert M.line_cells(touching)[0] == M.line_cells(first)[-1]


def test_crossing_lines_of_different_directions_are_legal():
    # Every pair of lines of the 5D record that share a dot has two different directions.
    _, moves = read_psol(RECORD_5D, variant="5D")
    cells = [set(M.line_cells(c)) for c in moves]
    dirs = [M.decode(c)[2] for c in moves]
    shared = [
        (i, j)
        for j in range(len(moves))
        for i in range(j)
        if dirs[i] != dirs[j] and cells[i] & cells[j]
    ]
    assert len(shared) > 50  # crossings are common and all were accepted by replay
    same_dir = [
        (i, j)
        for j in range(len(moves))
        for i in range(j)
        if dirs[i] == dirs[j] and cells[i] & cells[j]
    ]
    assert same_dir == []  # 5D: never a shared dot in one direction


def test_record_5d_replays_to_the_end():
    state0, moves = read_psol(RECORD_5D, variant="5D")
    assert len(moves) == 82
    state = state0.copy()
    for c in moves:
        M.play(state, c)
    assert M.score(state) == 82
    assert len(legal_set(state)) == 0
    assert psol_text(moves) == RECORD_5D.read_text().rstrip("\n") + "\n"


def test_record_5t_replays_to_the_end_and_breaks_5d():
    state0, moves = read_psol(RECORD_5T, variant="5T")
    assert len(moves) == 170
    state = state0.copy()
    for c in moves:
        M.play(state, c)
    assert M.score(state) == 170
    assert len(legal_set(state)) == 0
    # Move 2 touches move 1's vertical line end to end: fine in 5T, not in 5D.
    with pytest.raises(
        ValueError,
        match=r"record_5T_170_bruneau.psol:3: move 2 \(28,30\) \| "
        r"\+1 is illegal under 5D: the line overlaps a line in the same "
        r"direction",
    ):
        read_psol(RECORD_5T, variant="5D")
    # The records stay well inside the playable square.
    for c in moves:
        x, y = M.decode(c)[:2]
        assert M.BOX - 8 <= x <= M.BOX + 17 and M.BOX - 8 <= y <= M.BOX + 17


@pytest.mark.parametrize("variant", ["5D", "5T"])
def test_psol_round_trip(tmp_path, variant):
    state0 = M.make_state(variant=variant)
    state = state0.copy()
    moves = np.empty(M.max_moves(state0) + 1, np.int32)
    n = M.playout(state, new_rng(5), moves, True)
    path = tmp_path / "game.psol"
    write_psol(path, moves[:n])
    again0, again = read_psol(path, variant=variant)
    np.testing.assert_array_equal(again, moves[:n])
    np.testing.assert_array_equal(again0, state0)
    assert M.describe(state0, moves[:n]) == path.read_text()
    # another reference point is the same game
    write_psol(path, moves[:n], ref=(40, 3))
    np.testing.assert_array_equal(read_psol(path, variant=variant)[1], moves[:n])


@pytest.mark.parametrize(
    "text,pattern",
    [
        ("", r"game.psol:1: empty file"),
        ("28,28\n", r"game.psol:1: expected the reference point"),
        ("(28,28)\n(27,27) / 0\n(31,35) x -2\n", r"game.psol:3: expected a move"),
        ("(28,28)\n\n(27,27) / 3\n", r"game.psol:3: offset k must be between -2 and 2"),
        ("(28,28)\n(27,27) / 0\n(27,27) - 0\n", r"game.psol:3: move 2 .* the dot is already"),
        ("(28,28)\n(27,27) - 0\n", r"game.psol:2: move 1 .*: the line needs 4 existing dots"),
        ("(28,28)\n(90,27) - 0\n", r"game.psol:2: move 1 .*: the dot is off the board"),
    ],
)
def test_bad_files_name_the_line(tmp_path, text, pattern):
    path = tmp_path / "game.psol"
    path.write_text(text)
    with pytest.raises(ValueError, match=pattern) as err:
        read_psol(path)
    assert "\n" not in str(err.value)


def test_bad_options():
    with pytest.raises(ValueError, match="game.variant must be one of 5D, 5T, got '5X'"):
        M.make_state(variant="5X")
    with pytest.raises(ValueError, match="game.policy must be one of random, mobility"):
        M.make_state(policy="greedy")


@pytest.mark.parametrize("variant", ["5D", "5T"])
def test_mobility_picks_among_the_most_mobile_moves(variant):
    rng = np.random.default_rng(3)
    state = M.make_state(variant=variant, policy="mobility")
    for step in range(40):
        moves = legal_set(state)
        if len(moves) == 0:
            break
        after = []
        for c in moves:
            child = state.copy()
            M.play(child, c)
            after.append(len(legal_set(child)))
            assert M.mobility_after(state, c) == after[-1]
        best = {int(c) for c, a in zip(moves, after, strict=True) if a == max(after)}
        firsts = set()
        for seed in range(40):
            child = state.copy()
            out = np.empty(M.max_moves(state) + 1, np.int32)
            M.playout(child, new_rng(seed), out, True)
            firsts.add(int(out[0]))
        assert firsts <= best, step
        if len(best) <= 4:  # 40 draws reach every tied move (they could all miss one: < 1e-4)
            assert firsts == best, step
        M.play(state, moves[rng.integers(len(moves))])


def test_mobility_plays_longer_best_of_10_games():
    # Reflexive paper Tables 1-2: sampling with mobility beats random moves on best-of-N.
    def best_of_10(policy):
        state0 = M.make_state(variant="5D", policy=policy)
        none = np.empty(0, np.int32)
        lengths = [M.playout(state0.copy(), new_rng(s), none, False) for s in range(1000)]
        return np.max(np.reshape(lengths, (-1, 10)), axis=1).mean()

    assert best_of_10("mobility") > best_of_10("random") + 0.5


@pytest.mark.parametrize("variant,policy", [("5D", "random"), ("5T", "mobility")])
def test_level1_search_replays_to_its_score(variant, policy):
    state0 = M.make_state(variant=variant, policy=policy)
    res = search_batch("morpion", state0, search_seeds(2, 0, 2), level=1, memorize=True)
    for i in range(2):
        state = state0.copy()
        for c in res.moves[i]:
            assert c in legal_set(state)
            M.play(state, c)
        assert len(legal_set(state)) == 0
        assert M.score(state) == res.score[i] == len(res.moves[i])
        # the best random playout of a level-1 search is already long, and it stays more than
        # 10 cells away from the edge of the playable square
        assert res.score[i] >= 50
        for c in res.moves[i]:
            assert all(M.LO + 10 < v < M.HI - 10 for v in M.decode(c)[:2])
        text = M.describe(state0, res.moves[i])
        np.testing.assert_array_equal(replay_psol(text, variant=variant)[1], res.moves[i])


def test_draw_png_and_svg(tmp_path):
    from nmcs.games.morpion.draw import save_game

    _, moves = read_psol(RECORD_5D, variant="5D")
    files = save_game(moves, tmp_path / "r82", title="82")
    assert [f.suffix for f in files] == [".psol", ".png", ".svg"]
    assert files[0].read_text() == RECORD_5D.read_text()
    assert files[1].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert files[2].read_text().lstrip().startswith("<?xml")
    assert all(f.stat().st_size > 10_000 for f in files[1:])
    # What the pictures show: the 36 dots of the cross, the 82 moves' lines and numbered dots.
    from PIL import Image

    from nmcs.games.morpion.draw import layout

    pic = layout(moves, title="82")
    assert len(pic["cross"]) == 36 and len(pic["lines"]) == len(pic["dots"]) == 82
    with Image.open(files[1]) as png:
        assert png.size == pic["size"]
    svg = ET.parse(files[2]).getroot()
    assert (svg.get("width"), svg.get("height")) == tuple(str(v) for v in pic["size"])
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert texts == [str(i) for i in range(1, 83)] + ["82"]
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}circle"))) == 36 + 82
    # the harness hook: game.save_game(state0, moves, path_stem)
    state0 = M.make_state(variant="5D")
    hook = M.save_game(state0, moves, tmp_path / "best_game")
    assert [f.name for f in hook] == ["best_game.psol", "best_game.png", "best_game.svg"]
    np.testing.assert_array_equal(read_psol(hook[0], variant="5D")[1], moves)
