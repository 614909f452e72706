"""Adding an algorithm touches one search module and one config: a toy algorithm registered
from ``tests/toy_algorithm.py`` runs through the Python API and a ``run.py`` sweep."""

import numpy as np
import pandas as pd
import pytest
import toy_algorithm
from helpers import REPO, run_python

from nmcs.core.errors import ConfigError
from nmcs.games.leftmove import make_state
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.search import registry

pytestmark = pytest.mark.unit


def test_toy_algorithm_through_the_python_api():
    assert registry.algorithm("toy") is toy_algorithm.TOY
    state0 = make_state(depth=30)
    seeds = search_seeds(5, 0, 40)
    one = search_batch("leftmove", state0, seeds, algo="toy", level=0, k=1)
    many = search_batch("leftmove", state0, seeds, algo="toy", level=0, k=16)
    assert (one.playouts == 1).all() and (many.playouts == 16).all()
    # k = 1 is one playout of the game's policy: the same as a level-0 nested search.
    sample = search_batch("leftmove", state0, seeds, algo="nested", level=0)
    np.testing.assert_array_equal(one.score, sample.score)
    assert many.score.mean() > one.score.mean()
    assert all(len(m) == 30 for m in many.moves)
    with pytest.raises(ConfigError, match="algo.k = 0: must be >= 1"):
        search_batch("leftmove", state0, seeds, algo="toy", level=0, k=0)
    with pytest.raises(ConfigError, match="unknown option 'c' for algo=toy"):
        search_batch("leftmove", state0, seeds, algo="toy", c=1.0)


@pytest.mark.experiment
def test_toy_algorithm_sweeps_through_run_py(tmp_path):
    conf = tmp_path / "conf_extra"
    (conf / "algo").mkdir(parents=True)
    (conf / "algo" / "toy.yaml").write_text(toy_algorithm.TOY_YAML)
    env = {"NMCS_PLUGINS": "toy_algorithm", "PYTHONPATH": f"{REPO / 'tests'}:{REPO}"}
    out = tmp_path / "out"
    run_python(
        "run.py",
        "-m",
        "algo=toy",
        "algo.k=1,8",
        "level=0",
        "game.depth=20",
        "n_searches=30",
        "progress=false",
        f"hydra.searchpath=[file://{conf}]",
        f"hydra.sweep.dir={out}",
        env=env,
    )
    cells = sorted(out.glob("adhoc_leftmove_toy/*/results.parquet"))
    assert len(cells) == 2, cells
    df = pd.concat([pd.read_parquet(p) for p in cells])
    assert set(df["algo"]) == {"toy"}
    assert set(df["algo_options"]) == {"k=1", "k=8"}
    means = df.groupby("algo_options")["score"].mean()
    assert means["k=8"] > means["k=1"]
    bad = run_python(
        "run.py",
        "algo=toy",
        "algo.k=0",
        "level=0",
        f"hydra.searchpath=[file://{conf}]",
        f"hydra.run.dir={tmp_path / 'bad'}",
        env=env,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.strip() == "run.py: error: algo.k = 0: must be >= 1"
