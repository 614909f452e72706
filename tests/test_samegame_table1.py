"""The quick SameGame Table 1 through run.py and the analysis command."""

import pandas as pd
import pytest
from helpers import run_analysis, run_cli

pytestmark = pytest.mark.experiment


def test_quick_table1(tmp_path):
    for experiment in ("samegame_table1", "samegame_table1_level3"):
        run_cli(
            "-m",
            f"experiment={experiment}",
            "scale=quick",
            "progress=false",
            f"hydra.sweep.dir={tmp_path / 'quick'}",
        )
    results = pd.concat(pd.read_parquet(p) for p in tmp_path.glob("quick/*/*/results.parquet"))
    assert set(results["instance"]) == {"0", "1", "2"}
    assert (results["game"] == "samegame").all() and (results["score"] > 0).all()
    run_analysis("analysis", "--outputs", str(tmp_path))
    table = pd.read_csv(tmp_path / "tables" / "quick" / "samegame_table1.csv")
    assert len(table) >= 3
    cells = pd.read_csv(tmp_path / "tables" / "quick" / "samegame_table1_cells.csv")
    # Quick scale: level 1 on positions 0-2, both memorization settings; per-position means
    # are the means of the searches found in the results.
    assert len(cells) == 6 and set(cells["level"]) == {1}
    means = results.groupby(["instance", "memorize"])["score"].mean().to_numpy()
    assert sorted(cells["mean"].round(6)) == sorted(means.round(6))
    assert (tmp_path / "figures" / "quick" / "samegame_table1.png").stat().st_size > 0
    # Each cell's best game is saved in the game's notation and drawn (strip and animation).
    for suffix in ("txt", "png", "gif"):
        assert list(tmp_path.glob(f"quick/samegame_table1/*/best_game.{suffix}"))
