"""A game's declared bounds are checked, not trusted (``nmcs.games.bounds``): a kernel that lists
more moves than ``max_branching`` or plays longer than ``max_moves`` is stopped with one line
naming the game and the bound, before a compiled search writes past a buffer, and the check
runs once per game and bounds in a process. The toy game breaking its bounds through
``run.py`` and the conformance test: tests/test_toy_game.py."""

import types

import numpy as np
import pytest
from numba import njit

from nmcs.core.errors import PluginError
from nmcs.games import bounds, registry

pytestmark = pytest.mark.unit


@njit(cache=True)
def _three_moves(state, out):
    # Writes three moves whatever the buffer's size, as a kernel that trusts its bound does.
    if state[1] >= state[0]:
        return 0
    for m in range(3):
        out[m] = m
    return 3


@njit(cache=True)
def _three_moves_said_two(state, out):
    # Lists two, but writes a third entry past them: past the buffer if it holds two.
    if state[1] >= state[0]:
        return 0
    for m in range(3):
        out[m] = m
    return 2


@njit(cache=True)
def _play(state, move):
    state[1] += 1


@njit(cache=True)
def _playout(state, rng, moves, record):
    n = 0
    while state[1] < state[0]:
        if record:
            moves[n] = 0
        state[1] += 1
        n += 1
    return n


def _record(name, width, length, legal_moves=_three_moves, playout=_playout):
    kernels = types.SimpleNamespace(
        __name__=f"toy_{name}",
        max_branching=lambda state: width,
        max_moves=lambda state: length,
        legal_moves=legal_moves,
        play=_play,
        playout=playout,
    )
    return types.SimpleNamespace(name=name, kernels=kernels)


STATE = np.array([4, 0], np.int64)  # a game of 4 moves, 3 legal moves in each position


def test_a_kernel_that_keeps_its_bounds_passes():
    bounds.check_bounds(_record("kept", 3, 4), STATE)


def test_more_legal_moves_than_max_branching_are_named_in_one_line():
    with pytest.raises(PluginError) as error:
        bounds.check_bounds(_record("narrow", 2, 4), STATE)
    assert str(error.value) == (
        "game narrow (toy_narrow): legal_moves listed 3 moves, more than max_branching = 2; "
        "make max_branching an upper bound on the legal moves of every position of the game"
    )


def test_a_write_past_the_buffer_is_caught_even_when_the_count_keeps_the_bound():
    with pytest.raises(PluginError, match=r"legal_moves wrote past the end of its buffer, more "):
        bounds.check_bounds(_record("liar", 2, 4, _three_moves_said_two), STATE)


def test_a_game_longer_than_max_moves_is_named_in_one_line():
    with pytest.raises(PluginError) as error:
        bounds.check_bounds(_record("short", 3, 3), STATE)
    assert str(error.value) == (
        "game short (toy_short): a random game played more than max_moves = 3 moves; make "
        "max_moves an upper bound on the moves of every game from the position"
    )


def test_a_playout_longer_than_max_moves_is_named_too():
    @njit
    def endless_playout(state, rng, moves, record):
        for n in range(6):  # two moves past the end of the game
            moves[n] = 0
        return 6

    with pytest.raises(PluginError, match=r"^game long \(toy_long\): its playout played more "):
        bounds.check_bounds(_record("long", 3, 4, playout=endless_playout), STATE)


def test_the_check_runs_once_per_game_and_bounds_in_a_process():
    calls = []
    record = _record("counted", 3, 4)
    record.kernels.play = lambda state, move: (calls.append(move), _play(state, move))
    bounds.check_bounds(record, STATE)
    assert len(calls) == bounds.GAMES * 4
    bounds.check_bounds(record, STATE)  # the same bounds: not again
    assert len(calls) == bounds.GAMES * 4


@pytest.mark.parametrize(
    "name", [n for n in registry.names() if registry.game(n).cells == "searches"]
)
def test_every_game_keeps_its_bounds_from_its_small_position(name):
    record = registry.game(name)
    bounds.check_bounds(record, record.make_state(**record.small_options))
