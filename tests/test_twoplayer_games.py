"""Two-player game kernels: the rules of the built-in games, text forms, bad input. The
protocol's invariants (random games end within the bound, misere flips the result, texts read
back, uniform random moves, a match replays) are checked on every registered two-player game
by tests/test_conformance.py."""

import pytest

from nmcs.games.twoplayer import protocol as P

pytestmark = pytest.mark.unit

GAMES = ["breakthrough", "knightthrough", "domineering", "nogo", "atarigo"]  # the built-in ones


def test_default_sizes_and_branching():
    sizes = {g: (int(s[P.ROWS]), int(s[P.COLS])) for g in GAMES for s in [P.make_state(g)]}
    assert sizes == {
        "breakthrough": (8, 8),
        "knightthrough": (8, 8),
        "domineering": (8, 8),
        "nogo": (9, 9),
        "atarigo": (7, 7),
    }
    counts = {g: len(P.legal_move_list(P.make_state(g))) for g in GAMES}
    # 8 pawns on the front row: 3 moves each but 2 at the edges; knights: 2 + 3 + ... jumps.
    assert counts == {
        "breakthrough": 22,
        "knightthrough": 40,
        "domineering": 56,
        "nogo": 81,
        "atarigo": 49,
    }


def _pos(text):
    return P.parse(text)


def test_breakthrough_moves_and_captures():
    s = _pos(
        """
        breakthrough 4x3, x to move
        4 . . .
        3 o o o
        2 . x .
        1 . . .
        """
    )
    names = sorted(P.move_name(s, m) for m in P.legal_move_list(s))
    assert names == ["b2a3", "b2c3"]  # straight ahead is blocked: no straight capture
    P.apply_move(s, P.parse_move(s, "b2a3"))
    assert s[P.COUNT0 + 1] == 2 and not P.is_terminal(s)


def test_breakthrough_goal_and_last_piece():
    s = _pos("breakthrough 4x3, x to move\n4 . . .\n3 x . .\n2 . . o\n1 . . .")
    P.apply_move(s, P.parse_move(s, "a3b4"))
    assert P.is_terminal(s) and P.outcome(s, 0) == 1
    s = _pos("breakthrough 4x3 misere, x to move\n4 o . .\n3 . x .\n2 . . .\n1 . . .")
    P.apply_move(s, P.parse_move(s, "b3a4"))  # captures o's last piece
    assert P.is_terminal(s) and P.outcome(s, 0) == -1  # misere: the rule winner loses


def test_knightthrough_jumps_forward_and_captures():
    s = _pos(
        "knightthrough 5x5, x to move\n5 . . . . .\n4 . . o . .\n3 . . . . .\n2 . . . . .\n"
        "1 . . x . ."
    )
    names = sorted(P.move_name(s, m) for m in P.legal_move_list(s))
    assert names == ["c1a2", "c1b3", "c1d3", "c1e2"]
    s = _pos(
        "knightthrough 5x5, x to move\n5 . . . . .\n4 . . . . .\n3 . o . . .\n2 . . . . o\n"
        "1 . . x . ."
    )
    P.apply_move(s, P.parse_move(s, "c1b3"))  # any jump may capture
    assert s[P.COUNT0 + 1] == 1


def test_domineering_orientation_and_end():
    s = _pos("domineering 2x3, x to move\n2 . . .\n1 . . .")
    assert sorted(P.move_name(s, m) for m in P.legal_move_list(s)) == ["a2", "b2", "c2"]
    P.apply_move(s, P.parse_move(s, "b2"))  # x covers b2 and b1: o has no horizontal pair
    assert P.is_terminal(s) and P.outcome(s, 0) == 1
    s = _pos("domineering 2x3, o to move, ply 1\n2 . x .\n1 . x .")
    assert P.is_terminal(s) and P.outcome(s, 1) == -1


def test_nogo_forbids_capture_and_suicide():
    s = _pos("nogo 3x3, x to move\n3 . o .\n2 o x o\n1 . . .")
    legal = {P.move_name(s, m) for m in P.legal_move_list(s)}
    # a3 and c3 would be stones without liberty (suicide); b1 joins b2 and keeps a1 and c1.
    assert legal == {"a1", "b1", "c1"}
    s = _pos("nogo 3x3, o to move\n3 . o .\n2 o x o\n1 . . .")
    assert "b1" not in {P.move_name(s, m) for m in P.legal_move_list(s)}  # would capture


def test_atarigo_capture_wins_and_suicide_is_illegal():
    s = _pos("atarigo 3x3, o to move\n3 . o .\n2 o x o\n1 . . .")
    P.apply_move(s, P.parse_move(s, "b1"))
    assert P.is_terminal(s) and P.outcome(s, 1) == 1
    s = _pos("atarigo 3x3, x to move\n3 . o .\n2 o . o\n1 . o .")
    assert "b2" not in {P.move_name(s, m) for m in P.legal_move_list(s)}


def test_no_legal_move_loses():
    s = _pos("breakthrough 4x2, x to move\n4 . .\n3 o o\n2 x x\n1 . .")
    # x's pawns are blocked straight ahead and can capture diagonally: not stuck.
    assert P.legal_move_list(s)
    s = _pos("nogo 2x2, x to move, ply 2\n2 o .\n1 . o")  # a1 and b2 are suicides
    assert P.is_terminal(s) and P.outcome(s, 0) == -1


BAD_TEXTS = [
    ("", "empty position text"),
    ("chess 8x8, x to move\n", "unknown two-player game 'chess'"),
    ("breakthrough 8x8 x to move\n", "bad first line"),
    ("domineering 2x2, x to move\n2 . .\n", "expected 2 board rows, got 1"),
    ("domineering 2x2, x to move\n2 . .\n1 . q\n", "unknown cell 'q'"),
    ("domineering 2x2, x to move\n2 . .\n1 . . .\n", "expected 2 cells, got 3"),
    ("domineering 2x2, x to move\n1 . .\n2 . .\n", "expected row label 2"),
    ("domineering 2x2, x to move\n2 x .\n1 . .\n", "odd number of covered cells"),
    ("nogo 30x3, x to move\n", "game.rows must be between 2 and 19, got 30"),
    ("nogo 2x2, x to move\n2 x o\n1 o .\n", "a group without liberty at a2"),
    ("breakthrough 4x2, x to move\n4 x .\n3 . .\n2 . .\n1 . o\n", "both players"),
]


@pytest.mark.parametrize("text,message", BAD_TEXTS)
def test_malformed_position_gives_one_clear_line(text, message):
    with pytest.raises(ValueError) as err:
        P.parse(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"game": "go"}, "unknown two-player game 'go'"),
        ({"game": "nogo", "rows": 1}, "game.rows must be between 2 and 19, got 1"),
        ({"game": "breakthrough", "rows": 3}, "game.rows must be between 4 and 19, got 3"),
        ({"game": "nogo", "cols": "9"}, "game.cols must be an integer"),
        ({"game": "nogo", "misere": "yes"}, "game.misere must be true or false"),
    ],
)
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        P.make_state(**kwargs)


def test_illegal_move_gives_one_clear_line():
    s = P.make_state("breakthrough")
    with pytest.raises(P.IllegalMoveError) as err:
        P.apply_move(s, P.parse_move(s, "a2a4"))
    msg = str(err.value)
    assert msg.startswith("breakthrough: illegal move") and "(a2a4) for x at ply 0" in msg
    assert "\n" not in msg
    with pytest.raises(ValueError, match="bad move 'e9'"):
        P.parse_move(s, "e9")
