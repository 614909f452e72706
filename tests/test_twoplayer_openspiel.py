"""Cross-check of our Breakthrough against OpenSpiel's (an implementation nobody here wrote).

Random games are played in both engines from the same moves; at every step the player to
move, the legal move sets, the terminal test and the returns must agree. The misere version is
checked against OpenSpiel's ``misere`` game transform. Needs the optional extra
``twoplayer_oracle`` (``pip install -e '.[twoplayer_oracle]'``); skipped without it.

Action mapping: OpenSpiel's player 0 (black) starts on ranks 7-8 at the top of its drawing and
moves down; ours (x) starts on rows 1-2 at the bottom and moves up. OpenSpiel's action string
names the squares (``a7a6``, ``a7b6*`` for a capture) with ranks counted from the bottom, so
square (file, rank k) is our (file, row ROWS + 1 - k): the board mirrored top to bottom,
player 0 to player 0. OpenSpiel gives each side one home row on boards of fewer than 6 rows
(ours always two), so the small boards checked here have 6 rows.
"""

import re

import numpy as np
import pytest

from nmcs.games.twoplayer import protocol as P

pytestmark = pytest.mark.statistical

try:
    import pyspiel
except ImportError as err:  # not installed, or installed but broken
    pytest.skip(
        f"OpenSpiel is not importable ({err}); install the optional extra: "
        "pip install -e '.[twoplayer_oracle]'",
        allow_module_level=True,
    )


def _mapper(state, os_state):
    rows = int(state[P.ROWS])
    cache = {}

    def to_ours(action):
        move = cache.get(action)
        if move is None:
            text = os_state.action_to_string(os_state.current_player(), action)
            m = re.fullmatch(r"([a-z])(\d+)([a-z])(\d+)\*?", text)
            assert m, text
            ours = f"{m[1]}{rows + 1 - int(m[2])}{m[3]}{rows + 1 - int(m[4])}"
            move = cache[action] = P.parse_move(state, ours)
        return move

    return to_ours


def _cross_check(rows, cols, misere, n_games, seed):
    params = f"rows={rows},columns={cols}"
    name = f"misere(game=breakthrough({params}))" if misere else f"breakthrough({params})"
    game = pyspiel.load_game(name)
    rng = np.random.default_rng(seed)
    wins = [0, 0]
    steps = 0
    to_ours = None
    for _ in range(n_games):
        os_state = game.new_initial_state()
        ours = P.make_state("breakthrough", rows=rows, cols=cols, misere=misere)
        if to_ours is None:
            to_ours = _mapper(ours, os_state)
        while True:
            terminal = os_state.is_terminal()
            assert terminal == bool(P.is_terminal(ours)), P.draw(ours)
            if terminal:
                returns = os_state.returns()
                assert [P.outcome(ours, 0), P.outcome(ours, 1)] == [int(r) for r in returns]
                wins[int(np.argmax(returns))] += 1
                break
            assert os_state.current_player() == P.to_move(ours)
            actions = os_state.legal_actions()
            mapped = [to_ours(a) for a in actions]
            assert sorted(mapped) == sorted(P.legal_move_list(ours)), P.draw(ours)
            k = int(rng.integers(len(actions)))
            os_state.apply_action(actions[k])
            P.apply_move(ours, mapped[k])
            steps += 1
    return wins, steps


@pytest.mark.parametrize(
    "rows,cols,misere,n_games",
    [(8, 8, False, 1000), (8, 8, True, 300), (6, 4, False, 500), (6, 3, True, 500)],
)
def test_breakthrough_agrees_with_openspiel(rows, cols, misere, n_games):
    wins, steps = _cross_check(rows, cols, misere, n_games, seed=rows * 100 + cols + misere)
    assert sum(wins) == n_games and min(wins) > 0 and steps > n_games
