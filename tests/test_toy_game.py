"""Adding a game touches one module and one YAML file (docs/extending.md, "Adding a game"):
a toy game written outside the package (``tests/data/toy_game/``) is found through
``NMCS_PLUGINS``, checked against the game protocol as it registers, searched by the
algorithms that can (NRPA too: it has move codes) and run by ``run.py``; a game missing a
kernel is refused in one line."""

import textwrap

import pandas as pd
import pytest
from helpers import REPO, run_python

pytestmark = pytest.mark.experiment

TOY = REPO / "tests" / "data" / "toy_game"
ENV = {"NMCS_PLUGINS": "toy_steps", "PYTHONPATH": f"{TOY}:{REPO}"}


def test_the_toy_game_is_one_module_and_one_yaml():
    files = sorted(
        p.relative_to(TOY).as_posix()
        for p in TOY.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    assert files == ["game/steps.yaml", "toy_steps.py"]


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


def test_a_game_missing_a_kernel_is_refused_in_one_line(tmp_path):
    broken = tmp_path / "toy_broken.py"
    broken.write_text(
        (TOY / "toy_steps.py")
        .read_text()
        .replace('NAME = "steps"', 'NAME = "broken"')
        .replace('name: str = "steps"', 'name: str = "broken"')
        .replace("def score(state)", "def _score(state)")
    )
    code = textwrap.dedent(
        """
        import nmcs
        try:
            nmcs.game_names()
        except ValueError as error:
            print(error)
        """
    )
    done = run_python(
        "-c", code, env={"NMCS_PLUGINS": "toy_broken", "PYTHONPATH": f"{tmp_path}:{REPO}"}
    )
    assert done.stdout.strip() == (
        "game broken: kernels toy_broken lack score (nmcs.games.protocol.GameKernels)"
    )
