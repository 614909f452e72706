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

from nmcs.core.errors import PluginError
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


# The kernels of the protocol as a game writes them (stand-ins for compiled functions, which
# hold the Python function as ``py_func``).
KERNELS = {
    "max_moves": lambda state: 0,
    "max_branching": lambda state: 0,
    "legal_moves": lambda state, out: 0,
    "play": lambda state, move: None,
    "score": lambda state: 0,
    "playout": lambda state, rng, moves, record: 0,
}


def _kernels(**changed):
    """The record of a game ``broken`` whose kernel module holds every member of the protocol,
    then ``changed`` (a value; None: left out)."""
    kernels = types.ModuleType("nokernels")
    kernels.__file__ = "/lab/nokernels.py"
    kernels.NAME = "broken"
    for name, function in KERNELS.items():
        setattr(kernels, name, types.SimpleNamespace(py_func=function))
    for name, value in changed.items():
        if value is None:
            delattr(kernels, name)
        else:
            setattr(kernels, name, value)
    return types.SimpleNamespace(name="broken", cells="searches", kernels=kernels)


def test_a_game_missing_or_misspelling_a_kernel_is_refused_in_one_line():
    assert {"NAME", *KERNELS} == set(members(GameKernels))
    check_kernels(_kernels())
    with pytest.raises(PluginError) as error:
        check_kernels(_kernels(score=None))
    assert str(error.value) == (
        "game broken (/lab/nokernels.py): kernels nokernels lack score; define them as "
        "nmcs.games.protocol.GameKernels says"
    )
    misspelt = _kernels(legal_moves=None, legal_move=types.SimpleNamespace(py_func=print))
    with pytest.raises(PluginError, match=r"lack legal_moves \(found legal_move for legal_moves"):
        check_kernels(misspelt)


def test_a_kernel_with_other_arguments_or_not_compiled_is_refused_in_one_line():
    with pytest.raises(PluginError) as error:
        check_kernels(_kernels(legal_moves=types.SimpleNamespace(py_func=lambda state: 0)))
    assert str(error.value) == (
        "game broken (/lab/nokernels.py): legal_moves takes (state); the protocol calls it "
        "with (state, out): give it those arguments"
    )
    defaulted = types.SimpleNamespace(py_func=lambda state, out, extra=1: 0)
    check_kernels(_kernels(legal_moves=defaulted))  # an argument with a default is fine
    with pytest.raises(PluginError) as error:
        check_kernels(_kernels(score=lambda state: 0))
    assert str(error.value) == (
        "game broken (/lab/nokernels.py): score is not compiled by numba: decorate it with "
        "@njit(cache=True) (it takes (state))"
    )
    with pytest.raises(PluginError, match=r"NAME = 'other' in nokernels, the record's name is"):
        check_kernels(_kernels(NAME="other"))


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (None, "NMCS_PLUGINS: no module 'lab_game' on the Python path; check the name, and add "
         "the folder that holds lab_game.py to PYTHONPATH"),
        ("import not_installed_here\n", "lab_game ({file}) imports 'not_installed_here', which "
         "is not installed: install it, or import it only where it is used"),
        ("x = 1\nundefined_name + 1\n", "lab_game ({file}, line 2) fails to import: NameError: "
         "name 'undefined_name' is not defined; fix the module (python -c 'import lab_game' "
         "shows the traceback)"),
    ],
)  # fmt: skip
def test_a_plugin_that_cannot_be_imported_is_said_in_one_line(tmp_path, monkeypatch, text, said):
    if text is not None:
        (tmp_path / "lab_game.py").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NMCS_PLUGINS", "lab_game")
    registry = Registry("thing", "nmcs.core", (), lambda record: "")
    with pytest.raises(PluginError) as error:
        registry.names()
    assert str(error.value) == said.format(file=tmp_path / "lab_game.py")
    assert "lab_game" not in sys.modules
    with pytest.raises(PluginError):  # the same again, not a half-loaded registry
        registry.names()


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
    coded = [n for n in games.names() if "code" in games.game(n).capabilities()]
    assert {"leftmove", "sudoku", "samegame", "morpion"} <= set(coded)
    assert algorithms.lacks(algorithms.algorithm("nrpa"), "breakthrough") == (
        f"algo=nrpa: game=breakthrough has no code kernel (allowed: {', '.join(coded)})"
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
    assert {"nested", "beam", "nrpa", "gnrpa"} <= set(able)
    assert not {"iterative", "reflexive", "uct", "fc"} & set(able)
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
    assert not _options_without_meaning(records)


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
