"""A lab adds its own game by the guide (docs/howto/add-game.md), which shows the toy game of
``tests/data/toy_game/`` as its example: one module and one YAML file, found through
``NMCS_PLUGINS``, checked against the game protocol as it registers and against its declared
bounds before its first search, searched by every algorithm that can (NRPA too: it has move
codes), run by ``run.py``, and passing the tests that read the registries. Its mistakes
(no YAML file, a plugin not on the path, a kernel with other arguments, a bound too low, a
kernel numba cannot compile) are one line each, exit status 2 (a PluginError from the Python
API); a bound too low fails the conformance test cleanly."""

import os
import re
import subprocess
import sys
from dataclasses import fields

import pandas as pd
import pytest
from helpers import REPO, run_python

from nmcs.games.protocol import CAPABILITIES, GameKernels, PolicyKernels, members
from nmcs.games.registry import Game

pytestmark = pytest.mark.experiment

TOY = REPO / "tests" / "data" / "toy_game"
ENV = {"NMCS_PLUGINS": "toy_steps", "PYTHONPATH": f"{TOY}:{REPO}"}
GUIDE = REPO / "docs" / "howto" / "add-game.md"


def test_the_toy_game_is_one_module_and_one_yaml():
    files = sorted(
        p.relative_to(TOY).as_posix()
        for p in TOY.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert files == ["game/steps.yaml", "toy_steps.py"]


@pytest.mark.unit
def test_the_guide_shows_the_toy_game_and_names_everything_a_game_may_set():
    guide = GUIDE.read_text()
    for path in ("tests/data/toy_game/toy_steps.py", "tests/data/toy_game/game/steps.yaml"):
        assert f'--8<-- "{path}"' in guide, path
    named = set(re.findall(r"`(\w+)", guide))
    assert {f.name for f in fields(Game)} <= named
    assert set(members(GameKernels)) | set(members(PolicyKernels)) <= named
    assert set(CAPABILITIES) <= named


@pytest.mark.unit
@pytest.mark.parametrize("guide", ["add-game.md", "add-algorithm.md"])
def test_the_guides_put_each_meaning_beside_its_default_and_nothing_else_in_the_yaml(guide):
    text = " ".join((REPO / "docs" / "howto" / guide).read_text().split())
    assert "its meaning is the comment beside it" in text
    assert "`defaults` and `name`" in text or "`name: NAME`, and nothing else" in text
    assert "each with a comment" not in text
    extending = (REPO / "docs" / "extending.md").read_text()
    assert f"(howto/{guide})" in extending


def test_the_toy_game_runs_through_run_py_with_nested_search_and_nrpa(tmp_path):
    out = tmp_path / "out"
    run_python(
        "run.py",
        "-m",
        "game=steps",
        "algo=nested,nrpa",
        "level=1",
        "n_searches=20",
        "progress=false",
        f"hydra.searchpath=[file://{TOY}]",
        f"hydra.sweep.dir={out}",
        env=ENV,
    )
    cells = sorted(out.glob("adhoc_steps_*/*/results.parquet"))
    df = pd.concat([pd.read_parquet(p) for p in cells])
    assert set(df["algo"]) == {"nested", "nrpa"}
    assert (df["length"] == 8).all() and (df["score"] <= 16).all()
    # Level-1 nested search with memorization on 3 equal-length steps finds well above the
    # random mean of 8 (each step: the best of 3 children's playouts).
    assert df[df["algo"] == "nested"]["score"].mean() > 10


# The tests that read the registries' lists of games and algorithms (the conformance test on
# the toy game only: the built-in games run it in the suite itself; of tests/test_entry_levels.py,
# those that read the algorithms' records: the others search leftmove, with a kernel and a
# process of their own, whatever is registered).
REGISTRY_TESTS = [
    "tests/test_records.py",
    "tests/test_bounds.py",
    *(
        f"tests/test_entry_levels.py::{test}"
        for test in (
            "test_each_entry_serves_exactly_the_levels_sent_to_it",
            "test_a_record_with_bad_level_brackets_is_refused",
            "test_beam_search_has_entry_points_for_level_0_level_1_and_every_level_above",
            "test_an_algorithm_whose_build_ignores_levels_has_one_entry_point_for_all",
        )
    ),
    "tests/test_public_api.py",
    "tests/test_algo_columns.py",
    "tests/test_nrpa.py::test_codes_identify_moves_across_positions",
    "tests/test_conformance.py",
    "tests/test_docs.py::test_every_game_is_named_with_its_options_and_their_meanings",
]


def _pytest(*args, env):
    """``python -m pytest -rA *args`` in its own process with ``env`` (its test outcomes
    listed one a line), leaving this run's timings alone (no cache)."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=900,
    )


def test_the_tests_that_read_the_registries_pass_with_the_toy_game_registered():
    done = _pytest(*REGISTRY_TESTS, "-k", "not test_conformance or steps or cover", env=ENV)
    assert done.returncode == 0, done.stdout[-3000:]
    ran = re.findall(
        r"^PASSED tests/test_conformance.py::(\w+)\[(?:\w+-)?steps\]", done.stdout, re.M
    )
    assert "test_every_algorithm_replays_repeats_and_ignores_workers_on_every_game" in ran
    assert "test_random_walk_ends_within_max_moves" in ran


def _broken(tmp_path, name, old, new):
    """The toy game as module ``name`` in ``tmp_path``, with ``old`` replaced by ``new``."""
    text = (TOY / "toy_steps.py").read_text()
    assert old in text
    (tmp_path / f"{name}.py").write_text(text.replace(old, new))
    return {"NMCS_PLUGINS": name, "PYTHONPATH": f"{tmp_path}:{REPO}"}


NARROW = ("def max_branching(state):\n    return 3", "def max_branching(state):\n    return 2")


@pytest.mark.parametrize(
    ("name", "change", "searchpath", "said"),
    [
        (
            "toy_steps",
            None,
            False,
            "game=steps is registered by toy_steps ({toy}/toy_steps.py) but has no "
            "game/steps.yaml: write it (defaults: [/schema_game_steps@_here_], then name: "
            "steps) in conf/game/, or in a folder <dir>/game/ given as "
            "hydra.searchpath=[file://<dir>]",
        ),
        (
            "toy_stepz",
            None,
            True,
            "NMCS_PLUGINS: no module 'toy_stepz' on the Python path; check the name, and add "
            "the folder that holds toy_stepz.py to PYTHONPATH",
        ),
        (
            "toy_signature",
            ("def legal_moves(state, out):", "def legal_moves(state):\n    out = state"),
            True,
            "game steps ({tmp}/toy_signature.py): legal_moves takes (state); the protocol "
            "calls it with (state, out): give it those arguments",
        ),
        (
            "toy_narrow",
            NARROW,
            True,
            "game steps ({tmp}/toy_narrow.py): legal_moves listed 3 moves, more than "
            "max_branching = 2; make max_branching an upper bound on the legal moves of every "
            "position of the game",
        ),
    ],
)
def test_a_plugin_mistake_is_one_line_naming_the_game_the_file_and_the_fix(
    tmp_path, name, change, searchpath, said
):
    env = _broken(tmp_path, name, *change) if change else {**ENV, "NMCS_PLUGINS": name}
    out = tmp_path / "out"
    args = ["game=steps", "n_searches=2", "progress=false", f"hydra.run.dir={out}"]
    done = run_python(
        "run.py", *args, *([f"hydra.searchpath=[file://{TOY}]"] if searchpath else []),
        env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr[-3000:]
    assert done.stderr.strip().splitlines() == [
        "run.py: error: " + said.format(toy=TOY, tmp=tmp_path)
    ]
    assert not out.exists()


# A kernel numba cannot type: a string added to a move.
UNTYPED_LEGAL = ("        out[m] = m\n", "        out[m] = m + 'one'\n")
UNTYPED_SCORE = ("    return state[SCORE]\n", "    return state[SCORE] + 'one'\n")


def _line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_kernel_numba_cannot_compile_is_one_line_naming_the_game_the_kernel_and_numbas_error(
    tmp_path,
):
    env = _broken(tmp_path, "toy_untyped", *UNTYPED_LEGAL)
    out = tmp_path / "out"
    args = ["game=steps", "n_searches=2", "progress=false", f"hydra.run.dir={out}"]
    done = run_python("run.py", *args, f"hydra.searchpath=[file://{TOY}]", env=env, check=False)
    assert done.returncode == 2, done.stderr[-3000:]
    module = tmp_path / "toy_untyped.py"
    line = _line_of(module, "+ 'one'")
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith(
        f"run.py: error: game steps ({module}): numba cannot compile legal_moves ({module}, "
        f"line {line}): No implementation of function "
    ), said
    assert said[0].endswith("; fix it to compile in nopython mode") and "\x1b" not in said[0]
    assert not out.exists()


def test_the_api_raises_one_line_for_a_kernel_numba_cannot_compile_into_a_search(
    tmp_path, monkeypatch
):
    """``search_batch`` on a game whose ``score`` numba cannot type (found only as the search
    that calls it compiles): a PluginError naming the game, the algorithm and the kernel. The
    game is registered in this process for this test only, under a name of its own; level 0,
    the smallest entry point that calls ``score``."""
    import importlib.util

    from nmcs import search_batch, search_seeds
    from nmcs.core.errors import PluginError
    from nmcs.games import registry

    text = (TOY / "toy_steps.py").read_text().replace(*UNTYPED_SCORE)
    text = text.replace('NAME = "steps"', 'NAME = "steps_untyped"')
    module_path = tmp_path / "toy_untyped_score.py"
    module_path.write_text(text.replace("GAME = register(", "GAME = ("))  # registered below
    spec = importlib.util.spec_from_file_location("toy_untyped_score", module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_untyped_score", module)
    spec.loader.exec_module(module)
    registry.names()  # the registry loaded first, so that the record below is taken back after
    monkeypatch.setitem(registry.REGISTRY._records, "steps_untyped", module.GAME)
    with pytest.raises(PluginError) as error:
        search_batch("steps_untyped", module.make_state(), search_seeds(0, 0, 2), level=0)
    line = _line_of(module_path, "+ 'one'")
    message = str(error.value)
    assert message.startswith(
        f"game steps_untyped ({module_path}) with algo=nested: numba cannot compile score "
        f"({module_path}, line {line}): No implementation of function "
    ), message
    assert "\n" not in message


def test_a_bound_too_low_fails_the_conformance_test_in_one_line_not_an_abort(tmp_path):
    env = _broken(tmp_path, "toy_narrow", *NARROW)
    done = _pytest("tests/test_conformance.py", "-k", "steps and (bounds or nested)", env=env)
    assert done.returncode == 1, done.stdout[-3000:]  # failures, not a crash (134: an abort)
    line = "game steps ({}/toy_narrow.py): legal_moves listed 3 moves, more than max_branching = 2"
    assert line.format(tmp_path) in done.stdout
    assert re.search(r"\d+ failed|\d+ error", done.stdout) and "passed" not in done.stdout
