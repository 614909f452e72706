"""Two-player game kernels: rules, misere, the protocol's invariants, text forms, bad input."""

import numpy as np
import pytest

from nmcs.games.twoplayer import protocol as P
from nmcs.games.twoplayer.layout import HEADER, STAMP

GAMES = list(P.GAMES)


def _board(state):
    return state[: HEADER + int(state[P.ROWS]) * int(state[P.COLS])]


def _random_game(state, rng):
    moves = []
    while not P.is_terminal(state):
        legal = P.legal_move_list(state)
        assert legal, "a position that is not over has a legal move"
        assert len(set(legal)) == len(legal)
        m = legal[rng.integers(len(legal))]
        P.apply_move(state, m)
        moves.append(m)
    return moves


@pytest.mark.parametrize("game", GAMES)
def test_random_games_end_with_a_result_and_misere_flips_it(game):
    rng = np.random.default_rng(7)
    bound = int(P.max_moves(P.make_state(game)))
    for _ in range(30):
        state = P.make_state(game)
        moves = _random_game(state, rng)
        assert P.depth(state) == len(moves) <= bound
        assert P.legal_move_list(state) == []
        o0, o1 = P.outcome(state, 0), P.outcome(state, 1)
        assert o0 in (-1, 1) and o1 == -o0  # none of these games can draw
        mis = P.make_state(game, misere=True)
        for m in moves:
            P.apply_move(mis, m)
        assert P.outcome(mis, 0) == -o0
        # The text of any position reads back to the same position.
        back = P.parse(P.draw(state))
        back[STAMP] = state[STAMP]
        assert np.array_equal(_board(back), _board(state))


@pytest.mark.parametrize("game", GAMES)
def test_initial_position_text(game):
    state = P.make_state(game, misere=True)
    text = P.draw(state)
    assert text.splitlines()[0].startswith(f"{game} ")
    assert "misere, x to move, ply 0" in text
    back = P.parse(text)
    back[STAMP] = state[STAMP]  # the flood-fill counter is scratch, not position
    assert np.array_equal(_board(back), _board(state))


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


@pytest.mark.parametrize("game", GAMES)
def test_random_move_is_uniform_over_the_legal_moves(game):
    # The Go-like games draw by rejection instead of generating every move: the draw must
    # still be uniform over exactly the legal moves. A mid-game position of each game:
    rng = np.random.default_rng(3)
    state = P.make_state(game, rows=5, cols=5)
    for _ in range(6):
        P.apply_move(state, P.legal_move_list(state)[rng.integers(len(P.legal_move_list(state)))])
    legal = P.legal_move_list(state)
    gen = np.array([11], dtype=np.uint64)
    buf = np.empty(P.max_branching(state), dtype=np.int32)
    n = 400 * len(legal)
    counts = {}
    for _ in range(n):
        m = int(P.random_move(state, gen, buf))
        counts[m] = counts.get(m, 0) + 1
    assert set(counts) == set(legal)
    expected = n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < len(legal) + 6 * (2 * len(legal)) ** 0.5  # far inside the chi-square tail
