"""A budgeted search is cut short inside the nested search that is running when its budget is
spent (cancellation): it stops at the budget's playout, and returns a complete game,
the best one it knows, whose moves replay to its score."""

import numpy as np
import pytest

from nmcs.games.registry import game as game_record
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.unit

CASES = [
    # (game, options, level, memorize, memorize_from, playouts budget)
    ("leftmove", {"depth": 60}, 3, True, 1, 7_777),
    ("leftmove", {"depth": 60}, 3, False, 1, 7_777),
    # Level 2 on the left move, Morpion and SameGame: iterative entry points the fast tier
    # compiles for nothing else (5.5 s and 13 s from a cold cache), so they run with the
    # compile tier (the quick experiments compile them there anyway).
    pytest.param("leftmove", {"depth": 60}, 2, True, 2, 1_234, marks=pytest.mark.compile),
    pytest.param("morpion", {"variant": "5D"}, 2, True, 1, 3_000, marks=pytest.mark.compile),
    # a level-2 search: about 150,000 playouts
    pytest.param("morpion", {"variant": "5D"}, 2, False, 1, 3_000, marks=pytest.mark.compile),
    pytest.param(
        "samegame",
        {"instance": None, "width": 8, "height": 8, "colors": 4, "board_seed": 0},
        1,
        True,
        1,
        50,  # a level-1 search on this board: 111-138 playouts (seeds 3, 0-5)
        marks=pytest.mark.compile,
    ),
]
# Levels 1 and 2 on Morpion and SameGame, 2 and 3 on the left move: entry points other tests
# compile too (Morpion's level-3 and SameGame's level-2 iterative searches were compiled for
# these tests alone, 14 s of the suite's first run).


def replayed_score(record, options, moves):
    """The score of the game the moves play from the initial position (each move legal), and
    whether that game is over."""
    kernels = record.kernels
    state = record.make_state(**options)
    legal = np.empty(kernels.max_branching(state), np.int32)
    for move in moves:
        n = kernels.legal_moves(state, legal)
        assert move in legal[:n], "an illegal move in the returned game"
        kernels.play(state, move)
    return int(kernels.score(state)), kernels.legal_moves(state, legal) == 0


@pytest.mark.parametrize("game, options, level, memorize, memorize_from, budget", CASES)
def test_a_playout_budget_cuts_the_running_search(
    game, options, level, memorize, memorize_from, budget
):
    record = game_record(game)
    res = search_batch(
        game,
        record.make_state(**options),
        search_seeds(3, 0, 6),
        algo="iterative",
        level=level,
        memorize=memorize,
        memorize_from=memorize_from,
        max_playouts=budget,
    )
    # One level-`level` search needs far more playouts than the budget: it is the one cut.
    np.testing.assert_array_equal(res.playouts, budget)
    for i in range(len(res.score)):
        score, over = replayed_score(record, options, res.moves[i])
        assert over, "the returned game is complete"
        assert score == res.score[i]
        assert res.trace[i][-1, 2] == res.score[i]


def test_a_memorized_cut_search_returns_the_best_playout_it_ran():
    """Every level memorizing, a search's best game is the best of all the playouts under it, and
    a cut keeps that: with the same seed the playouts of a smaller budget are the first ones of a
    larger budget, so the returned score can only grow with the budget, seed by seed."""
    state = game_record("leftmove").make_state(depth=20)
    seeds = search_seeds(5, 0, 100)
    scores = np.array(
        [
            search_batch("leftmove", state, seeds, algo="iterative", level=3, max_playouts=p).score
            for p in (1, 10, 100, 1000, 10_000)
        ]
    )
    assert (np.diff(scores, axis=0) >= 0).all()
    assert scores[0].mean() < scores[-1].mean()


def test_a_seconds_budget_cuts_a_long_search():
    """A level-3 search of the depth-1000 left move plays about 2 billion playouts (a level-2
    search 2 million, 0.04 s here: the whole search would take a minute or so); with a 0.2 s
    budget it returns in well under a second (a generous bound: this is a check that the cut
    happens, not a timing)."""
    record = game_record("leftmove")
    options = {"depth": 1000}
    res = search_batch(
        "leftmove",
        record.make_state(**options),
        search_seeds(1, 0, 2),
        algo="iterative",
        level=3,
        max_seconds=0.2,
    )
    assert (res.seconds < 3.0).all()
    for i in range(2):
        score, over = replayed_score(record, options, res.moves[i])
        assert over and score == res.score[i]
