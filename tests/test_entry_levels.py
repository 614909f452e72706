"""Which levels an entry point compiles (``nmcs.search.engine``): every level runs in exactly
one entry, whose level dispatch holds the levels that entry serves and refuses the others; and
the nested search's level functions, compiled without reference counting, still take a game
kernel that allocates, whichever of its callers numba types first."""

import dataclasses
import os
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from nmcs.games import leftmove
from nmcs.harness.batch import search_batch
from nmcs.search import registry
from nmcs.search.anytime import NO_TARGET
from nmcs.search.engine import (
    LEVEL_BRACKETS,
    compiled_levels,
    entry_levels,
    level_brackets,
    lowest_served_level,
)
from nmcs.search.nested import build_nested

pytestmark = pytest.mark.compile


@pytest.mark.parametrize("brackets", [LEVEL_BRACKETS, (0, 1)])
@pytest.mark.parametrize("max_level", range(1, 7))
def test_each_entry_serves_exactly_the_levels_sent_to_it(max_level, brackets):
    entries = {compiled_levels(level, max_level, brackets) for level in range(max_level + 1)}
    for levels in entries:
        sent = [
            lv for lv in range(max_level + 1) if compiled_levels(lv, max_level, brackets) == levels
        ]
        assert sent == list(range(lowest_served_level(levels, brackets), levels + 1))


@pytest.mark.parametrize("brackets", [(1, 0), (0, 0), [0, 1], (-1,), (0, 1.5), (True,)])
def test_a_record_with_bad_level_brackets_is_refused(brackets):
    record = registry.algorithm("beam")
    with pytest.raises(ValueError, match="level_brackets .* must be None or a tuple"):
        dataclasses.replace(record, name="bad", level_brackets=brackets)


def test_beam_search_has_entry_points_for_level_0_level_1_and_every_level_above():
    # Levels 2 and up run in one function that calls itself (nmcs.search.beam._make_level).
    for name in ("beam", "iterative_beam"):
        record = registry.algorithm(name)
        levels = [entry_levels(record, level) for level in range(record.max_level + 1)]
        assert levels == [0, 1] + [record.max_level] * (record.max_level - 1)
        assert lowest_served_level(record.max_level, level_brackets(record)) == 2


def test_an_algorithm_whose_build_ignores_levels_has_one_entry_point_for_all():
    # Reflexive search, UCT and forward checking take ``levels`` and ignore it, and NRPA runs
    # every level with one function that calls itself: one entry point each (a sweep over
    # levels 0-3 compiled reflexive search four times).
    one_entry = {name for name in registry.names() if not registry.algorithm(name).per_level}
    assert {"reflexive", "uct", "fc", "nrpa", "gnrpa"} <= one_entry
    assert not {"nested", "iterative", "beam", "iterative_beam"} & one_entry
    for name in registry.names():
        record = registry.algorithm(name)
        levels = [entry_levels(record, level) for level in range(record.max_level + 1)]
        if record.per_level:
            brackets = level_brackets(record)
            assert levels == [
                compiled_levels(lv, record.max_level, brackets) for lv in range(len(levels))
            ]
        else:
            assert set(levels) == {record.max_level}


@pytest.mark.parametrize(
    ("pair", "budget"),
    [(("nrpa", "gnrpa"), {}), (("beam", "iterative_beam"), {"max_playouts": 50})],
)
def test_algorithms_of_one_builder_share_one_compiled_entry_point(pair, budget):
    # An entry point is keyed on the builder and compiled once per numba type of its
    # parameters: the pair's parameters must be of one type, or the entry compiles twice.
    import numba

    from nmcs.harness.batch import checked_call

    state0 = leftmove.make_state(8)
    records, types_ = [], []
    for name, extra in zip(pair, ({}, budget), strict=True):
        record, config, settings, _ = checked_call(
            "leftmove",
            name,
            level=2,
            memorize=True,
            memorize_from=1,
            stop_at_target=True,
            max_seconds=0.0,
            max_playouts=extra.get("max_playouts", 0),
            options={},
        )
        records.append(record)
        types_.append(numba.typeof(record.params(config, settings, leftmove, state0)))
    assert records[0].build is records[1].build
    assert types_[0] == types_[1], types_


def allocating_leftmove() -> types.ModuleType:
    """The left move whose playout allocates a scratch array (as SameGame's does) and then
    plays exactly as the left move's: the same draws, so the same searches."""
    from numba import njit

    game = types.ModuleType("allocating_leftmove")
    for name in ("legal_moves", "play", "score", "max_moves", "max_branching", "STATE_SIZE"):
        setattr(game, name, getattr(leftmove, name))
    inner = leftmove.playout

    @njit
    def playout(state, rng, moves, record):
        scratch = np.zeros(state.shape[0], np.int64)
        scratch[0] = inner(state, rng, moves, record)
        return scratch[0]

    game.playout = playout
    return game


def test_level_functions_take_an_allocating_kernel_and_refuse_unserved_levels():
    # Level 2's own entry: its dispatch reaches the level functions (no reference counting)
    # before any level-1 code compiled with it, so they are the first to type the playout.
    new_workspace, nested = build_nested(allocating_leftmove(), 2)
    state0 = leftmove.make_state(12)
    ws = new_workspace(state0, np.zeros(2, np.int64))
    seq = np.zeros(13, np.int32)
    seeds = np.arange(5, dtype=np.uint64)
    expected = search_batch("leftmove", state0, seeds, level=2, memorize=True, workers=1)
    for seed, score in zip(seeds, expected.score, strict=True):
        state = state0.copy()
        nested(state, 2, 1, NO_TARGET, np.array([seed], np.uint64), ws, seq)
        assert state[leftmove.LEFTS] == score
    with pytest.raises(ValueError, match="level below"):
        nested(state0.copy(), 1, 1, NO_TARGET, np.array([0], np.uint64), ws, seq)


# NRPA: one function for every level, calling itself (numba cannot load a recursive function
# cached on its own, numba issue 6061; here only the entry point that calls it is cached, with
# the recursive function's code linked into it).
RECURSIVE_SEARCHES = (
    "import hashlib\n"
    "from nmcs import make_state, search_batch, search_seeds\n"
    "state0 = make_state('leftmove', depth=10)\n"
    "for level in (1, 2):\n"
    "    res = search_batch('leftmove', state0, search_seeds(3, 0, 4), algo='nrpa',\n"
    "                       level=level, iterations=4)\n"
    "    for score, moves in zip(res.score, res.moves):\n"
    "        print(level, score, hashlib.sha1(moves.tobytes()).hexdigest())\n"
)


def test_a_search_that_calls_itself_loads_from_the_cache_in_a_new_process(tmp_path):
    """The second process loads NRPA's entry point from the numba cache (the suite's, shared
    with the other tests) and plays the same games as the first, at levels 1 and 2."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}

    def run():
        return subprocess.run(
            [sys.executable, "-c", RECURSIVE_SEARCHES],
            cwd=Path(__file__).resolve().parents[1],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )

    first, second = run(), run()
    assert not any("compiling" in line for line in second.stderr.splitlines())
    assert second.stdout == first.stdout
    assert len(second.stdout.splitlines()) == 8
