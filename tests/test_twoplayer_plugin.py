"""Adding a two-player game takes one module and one YAML file: tic-tac-toe, written outside
the package (``tests/data/toy_twoplayer/``: ``toy_tictactoe.py`` and ``game/tictactoe.yaml``),
loaded from ``NMCS_PLUGINS`` in subprocesses (so this process keeps the built-in games), is
listed by ``nmcs.game_names()``, passes the conformance checks of the two-player games and
plays a match cell through ``run.py`` with its YAML found through ``hydra.searchpath``."""

import ast

import pandas as pd
import pytest
from helpers import REPO, run_python

pytestmark = pytest.mark.experiment

TOY = REPO / "tests" / "data" / "toy_twoplayer"
ENV = {"NMCS_PLUGINS": "toy_tictactoe", "PYTHONPATH": f"{TOY}:{REPO}"}
BUILTIN = ["breakthrough", "knightthrough", "domineering", "nogo", "atarigo"]


def test_the_toy_game_is_one_module_and_one_yaml():
    files = sorted(
        p.relative_to(TOY).as_posix()
        for p in TOY.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert files == ["game/tictactoe.yaml", "toy_tictactoe.py"]


def test_the_toy_game_is_listed_and_takes_the_next_id():
    code = (
        "import nmcs\n"
        "from nmcs.games.twoplayer import protocol as P\n"
        "names = nmcs.game_names()\n"
        "print(names)\n"
        "print(dict(P.GAMES))\n"
        "s = P.parse('tictactoe 3x3, draw\\n3 x o x\\n2 x o o\\n1 o x x')\n"
        "print(P.outcome(s, 0), P.outcome(s, 1), int(s[P.TO_MOVE]), P.draw(s).splitlines()[0])\n"
    )
    out = run_python("-c", code, env=ENV).stdout.splitlines()
    names, ids = ast.literal_eval(out[0]), ast.literal_eval(out[1])
    assert names[-1] == "tictactoe" and set(BUILTIN) < set(names)
    # The built-in games keep ids 0-4 (states and results do not change); the plugin is 5.
    assert ids == {**{name: i for i, name in enumerate(BUILTIN)}, "tictactoe": 5}
    assert out[2] == "0 0 1 tictactoe 3x3, draw, ply 9"  # a draw reads back as one


def test_the_conformance_checks_pick_the_toy_game_up():
    proc = run_python(
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_conformance.py",
        "-k",
        "tictactoe",
        env=ENV,
    )
    assert "5 passed" in proc.stdout, proc.stdout[-2000:]


def test_a_match_cell_of_the_toy_game_runs_through_run_py(tmp_path):
    out = tmp_path / "cell"
    run_python(
        "run.py",
        "experiment=twoplayer_matches",
        "game=tictactoe",
        "game.size=4",
        "n_matches=4",
        "budget.playouts=30",
        "progress=false",
        f"hydra.searchpath=[file://{TOY}]",
        f"hydra.run.dir={out}",
        env=ENV,
    )
    rows = pd.read_parquet(out / "results.parquet")
    assert rows["game"].tolist() == ["tictactoe"] * 4
    assert (rows["rows"] == 4).all() and (rows["cols"] == 4).all()
    assert rows["a_first"].tolist() == [1, 0, 1, 0]
    assert rows["player_a"][0] == "NMC(1)+COW" and rows["player_b"][0] == "MCS"
    assert (rows["length"] == rows["moves"].map(len)).all() and (rows["length"] <= 16).all()
    assert all(final.startswith("tictactoe 4x4, ") for final in rows["final"])
