"""The public API: what ``nmcs`` exports, and that the Python API validates like run.py."""

import numpy as np
import pytest

import nmcs

pytestmark = pytest.mark.unit


def test_every_exported_name_resolves():
    for name in nmcs.__all__:
        assert getattr(nmcs, name) is not None, name
    assert nmcs.game_names()[:2] == ["leftmove", "leftmost"]
    assert {"nested", "iterative", "reflexive", "uct"} <= set(nmcs.algorithm_names())


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"level": 7}, "level = 7: must be an integer from 0 to 6"),
        ({"level": 1, "max_seconds": 5.0}, "algo=nested runs to completion and takes no budget"),
        ({"algo": "iterative"}, "algo=iterative needs budget.seconds and/or budget.playouts"),
        ({"algo": "bogus"}, "unknown algo 'bogus' (allowed: nested, iterative"),
        ({"algo": "nested", "games": 3}, "unknown option 'games' for algo=nested (allowed: none)"),
        ({"algo": "uct", "max_playouts": 10, "uct_c": -1.0}, "algo.c = -1.0: must be > 0"),
    ],
)
def test_search_batch_refuses_what_run_py_refuses(kwargs, message):
    state0 = nmcs.make_state("leftmove", depth=5)
    with pytest.raises(nmcs.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        nmcs.search_batch("leftmove", state0, nmcs.search_seeds(0, 0, 1), **kwargs)


def test_make_state_checks_options_by_their_config_key():
    with pytest.raises(ValueError, match="game.depth must be between 1 and 1000, got 0"):
        nmcs.make_state("leftmove", depth=0)
    np.testing.assert_array_equal(
        nmcs.make_state("leftmove"), nmcs.make_state("leftmove", depth=60)
    )


# Each misuse once accepted, now refused with one line (types as well as ranges).
@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"level": 2.9}, "level = 2.9: must be an integer"),
        ({"level": "2"}, "level = '2': must be an integer"),
        ({"level": True}, "level = True: must be an integer"),
        ({"memorize": "no"}, "memorize = 'no': must be True or False"),
        ({"memorize": "false"}, "memorize = 'false': must be True or False"),
        ({"memorize": 1}, "memorize = 1: must be True or False"),
        ({"workers": -3}, "workers = -3: must be an integer >= 0"),
        ({"workers": 1.5}, "workers = 1.5: must be an integer >= 0"),
        ({"memorize_from": 5, "level": 3}, "memorize_from = 5: greater than level = 3"),
        ({"stop_at_target": "yes"}, "stop_at_target = 'yes': must be True or False"),
        ({"max_playouts": -1, "algo": "iterative"}, "max_playouts = -1: must be >= 0"),
        (
            {"max_seconds": "1", "algo": "iterative"},
            "max_seconds = '1': must be a finite number >= 0",
        ),
    ],
)
def test_search_batch_refuses_wrong_types(kwargs, message):
    state0 = nmcs.make_state("leftmove", depth=5)
    with pytest.raises(nmcs.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        nmcs.search_batch("leftmove", state0, nmcs.search_seeds(0, 0, 1), **kwargs)


@pytest.mark.parametrize(
    "game,state,message",
    [
        ("leftmove", [1, 2, 3], "must be a 1-D numpy array of int64"),
        ("leftmove", np.array([1, 2, 3, 4]), "must have 3 entries, got 4"),
        ("leftmove", np.array([[60, 0, 0]]), "got shape (1, 3)"),
        ("leftmove", np.array([60.0, 0, 0]), "of float64"),
        ("leftmove", np.array([5, 7, 0]), "played"),
        ("leftmost", np.array([1, 2, 3]), "must have 4 entries, got 3"),
        ("morpion", np.array([1, 2, 3]), "state0 of game=morpion"),
        ("samegame", np.array([1, 2, 3]), "state0 of game=samegame"),
        ("sudoku", np.array([1, 2, 3]), "state0 of game=sudoku"),
    ],
)
def test_search_batch_refuses_a_state_that_is_not_the_games(game, state, message):
    with pytest.raises(nmcs.ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        nmcs.search_batch(game, state, nmcs.search_seeds(0, 0, 1), level=0)


def test_search_batch_refuses_a_two_player_game_and_bad_seeds():
    state0 = nmcs.make_state("breakthrough")
    with pytest.raises(nmcs.ConfigError, match="two-player game"):
        nmcs.search_batch("breakthrough", state0, nmcs.search_seeds(0, 0, 1))
    with pytest.raises(nmcs.ConfigError, match="seeds: must be"):
        nmcs.search_batch("leftmove", nmcs.make_state("leftmove"), [-1, 2])
    with pytest.raises(nmcs.ConfigError, match="seeds: must be"):
        nmcs.search_batch("leftmove", nmcs.make_state("leftmove"), [0.5])


def test_parallel_search_refuses_a_level_out_of_range():
    from nmcs.harness.parallel import parallel_search

    state0 = nmcs.make_state("leftmove", depth=5)
    for level in (7, 0, 2.5, True):
        with pytest.raises(nmcs.ConfigError, match="level = "):
            parallel_search("leftmove", state0, seed=0, level=level)


def test_game_names_lists_every_game_with_its_kind():
    from nmcs.games import registry

    names = nmcs.game_names()
    assert {"leftmove", "morpion", "breakthrough", "domineering", "nogo", "atarigo"} <= set(names)
    assert {registry.game(n).cells for n in names} == {"searches", "matches"}
