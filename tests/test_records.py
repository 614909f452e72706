"""The records are the only place a fact about a game or an algorithm lives: the generic
registry finds modules by itself, a game's kernels are checked against the one game protocol
when it registers, an algorithm names the capabilities it requires, its Dask plan and its
added options sit on its record, and every default is written once (the dataclass; the YAML
only selects the schema)."""

import sys
import types
from dataclasses import dataclass, field, fields
from pathlib import Path

import pytest

from nmcs.core.options import option_meanings
from nmcs.core.registry import Registry
from nmcs.games import registry as games
from nmcs.games.protocol import CAPABILITIES, GameKernels, check_kernels, members
from nmcs.games.twoplayer import protocol as twoplayer
from nmcs.harness.parallel import dask_plan
from nmcs.harness.results import added_algo_options
from nmcs.search import registry as algorithms
from nmcs.search.registry import Algorithm, DaskPlan

CONF = Path(__file__).resolve().parents[1] / "conf"

pytestmark = pytest.mark.unit


def test_the_registry_imports_every_module_of_its_package(tmp_path, monkeypatch):
    package = tmp_path / "regpkg"
    package.mkdir()
    (package / "__init__.py").write_text(
        "from nmcs.core.registry import Registry\n"
        "REG = Registry('thing', 'regpkg', ('regpkg.b',), lambda record: record[1])\n"
    )
    for name in ("a", "b", "c"):
        (package / f"{name}.py").write_text(
            f"from regpkg import REG\nREG.register('{name}', ('{name}', __name__))\n"
        )
    (package / "_private.py").write_text("raise AssertionError('a private module is imported')")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NMCS_PLUGINS", raising=False)
    try:
        registry = sys.modules.get("regpkg") or __import__("regpkg")
        reg: Registry = registry.REG
        assert reg.names() == ["b", "a", "c"]  # the ordered module first, then found ones
        assert reg.get("c") == ("c", "regpkg.c")
        with pytest.raises(ValueError, match=r"^unknown thing 'd' \(allowed: b, a, c\)$"):
            reg.get("d")
    finally:
        for module in [m for m in sys.modules if m == "regpkg" or m.startswith("regpkg.")]:
            del sys.modules[module]


def test_a_game_missing_a_kernel_is_refused_in_one_line():
    kernels = types.ModuleType("nokernels")
    for name in members(GameKernels):
        setattr(kernels, name, lambda *args: 0)
    del kernels.score
    record = types.SimpleNamespace(name="broken", cells="searches", kernels=kernels)
    with pytest.raises(ValueError) as error:
        check_kernels(record)
    assert str(error.value) == (
        "game broken: kernels nokernels lack score (nmcs.games.protocol.GameKernels)"
    )


def test_a_twoplayer_rules_module_missing_a_member_is_refused_in_one_line():
    module = types.ModuleType("halfgame")
    module.NAME = "halfgame"
    with pytest.raises(ValueError) as error:
        twoplayer.add_game(module)
    assert str(error.value) == (
        "two-player game module halfgame: no DEFAULT_ROWS, DEFAULT_COLS, fill_initial, "
        "legal_moves, play, max_moves, rule_winner"
    )


def test_every_game_follows_the_protocol_of_its_kind():
    for name in games.names():
        record = games.game(name)
        check_kernels(record)
        if record.cells == "matches":
            for module in twoplayer.MODULES.values():
                assert all(hasattr(module, m) for m in twoplayer.REQUIRED), module.__name__


def test_algorithms_require_declared_capabilities_only():
    for name in algorithms.names():
        assert set(algorithms.algorithm(name).requires) <= set(CAPABILITIES), name
    nrpa = algorithms.algorithm("nrpa")
    assert nrpa.requires == ("code",)
    bad = Algorithm(name="bad", config=object, params=print, build=print, requires=("codes",))
    with pytest.raises(ValueError, match="requires codes: not a game capability"):
        algorithms.REGISTRY._check(bad)  # type: ignore[misc]


def test_a_game_without_a_required_capability_is_refused_and_named():
    assert algorithms.lacks(algorithms.algorithm("nrpa"), "morpion") is None
    assert algorithms.lacks(algorithms.algorithm("nrpa"), "breakthrough") == (
        "algo=nrpa: game=breakthrough has no code kernel "
        "(allowed: leftmove, leftmost, sudoku, samegame, morpion)"
    )
    assert algorithms.lacks(algorithms.algorithm("fc"), "morpion") == (
        "algo=fc is for game=sudoku, not game=morpion"
    )


def test_the_added_options_are_declared_beside_the_options():
    """The options added after results were published, with the old behaviour's values (the
    published results' cell identities depend on these)."""
    assert added_algo_options() == {
        "beam": {"ties": "random", "merge_duplicates": False},
        "iterative_beam": {"ties": "random", "merge_duplicates": False},
        "nrpa": {"batch": 1},
        "gnrpa": {"batch": 1},
    }


def test_the_dask_plans_live_on_the_records():
    able = [n for n in algorithms.names() if algorithms.algorithm(n).dask_plan is not None]
    assert able == ["nested", "beam", "nrpa", "gnrpa"]
    assert dask_plan("nested", 2, True, 1, {}) == DaskPlan(1, "nested", {"memorize": True})
    assert dask_plan("beam", 1, True, 1, {"beam": [4]}) == DaskPlan(4, "nested", {})
    assert dask_plan("beam", 3, True, 1, {"beam": [1, 2, 3]}) == DaskPlan(
        3, "beam", {"beam": [1, 2]}
    )
    assert dask_plan("gnrpa", 2, True, 1, {"batch": 3, "tau": 0.5}) == DaskPlan(
        3, "gnrpa", {"batch": 1, "tau": 0.5}, "nrpa"
    )
    with pytest.raises(ValueError, match=r"algo=uct has no master/remote version \(allowed: "):
        dask_plan("uct", 1, True, 1, {})
    with pytest.raises(ValueError, match="memorize=true and memorize_from=1"):
        dask_plan("nested", 2, False, 1, {})


@pytest.mark.parametrize("group", ["algo", "game"])
def test_every_default_is_written_once(group):
    """The YAML files select their schema and set ``name``; the defaults are the dataclass's,
    and so are the meanings (the comment beside each default)."""
    for path in sorted((CONF / group).glob("*.yaml")):
        keys = [
            line.split(":")[0]
            for line in path.read_text().splitlines()
            if line and not line[0].isspace() and not line.startswith("#")
        ]
        assert keys == ["defaults", "name"], path.name
    for name in algorithms.names():
        config = algorithms.algorithm(name).config
        assert [f.name for f in fields(config)][0] == "name"


# Options whose meaning is still to be written beside their default, in a module being edited
# elsewhere; remove each from here once it is.
NO_MEANING_YET = {
    ("nrpa", "iterations"),
    ("nrpa", "alpha"),
    ("gnrpa", "iterations"),
    ("gnrpa", "alpha"),
    ("gnrpa", "tau"),
}


def _options_without_meaning(records) -> set[tuple[str, str]]:
    return {
        (name, key)
        for name, options in records
        for key, meaning in option_meanings(options).items()
        if key != "name" and not meaning
    }


def test_every_option_has_its_meaning_beside_its_default():
    """The generated reference shows it (docs/hooks/reference.py); the YAML holds none."""
    records = [(n, games.game(n).options) for n in games.names()]
    records += [(n, algorithms.algorithm(n).config) for n in algorithms.names()]
    for name, options in records:
        assert set(option_meanings(options)) >= {f.name for f in fields(options)}, name
    assert _options_without_meaning(records) <= NO_MEANING_YET


def test_a_meaning_is_the_comment_on_the_line_of_the_default_or_right_above_it():
    assert option_meanings(_Commented) == {
        "name": "",
        "depth": "the depth of the tree",
        "width": "a meaning too long for one line, written above it",
        "bare": "",
    }


@dataclass
class _Commented:
    name: str = "x"
    depth: int = 3  # the depth of the tree
    # a meaning too long for one line,
    # written above it
    width: list[int] = field(default_factory=lambda: [1])
    bare: int = 0
