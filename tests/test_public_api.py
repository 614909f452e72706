"""The public API: what ``nmcs`` exports, and that the Python API validates like run.py."""

import numpy as np
import pytest

import nmcs


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
