"""The NRPA experiments at quick scale through run.py and the analysis: the levels figure and
table, the anytime curves at equal playouts, and their claims in the report."""

import pytest
from helpers import run_quick_experiments

pytestmark = pytest.mark.experiment

EXPERIMENTS = (
    "nrpa_levels",
    "nrpa_levels_samegame",
    "nrpa_levels_leftmove",
    "algorithms_equal_playouts",
    "algorithms_equal_playouts_beam",
)


def test_nrpa_experiments_at_quick_scale(tmp_path):
    outputs = run_quick_experiments(tmp_path, EXPERIMENTS)
    figures = outputs / "figures" / "quick"
    tables = outputs / "tables" / "quick"
    for stem in ("nrpa_levels", "algorithms_equal_playouts"):
        assert (figures / f"{stem}.png").exists()
        assert (tables / f"{stem}.csv").exists()
    report = (outputs / "REPRODUCTION.md").read_text()
    assert "### NRPA by level (Rosin 2011)" in report
    assert "Morpion 5D: level 2 beats level 1 (N = 100)" in report
    assert "Algorithms at equal playouts" in report
    assert "GNRPA with tau = 1 and no bias plays NRPA's games (same seeds) | identity" in report
    assert "identical scores | agrees" in report
    levels = (tables / "nrpa_levels.csv").read_text()
    for series in ("Morpion 5D", "Morpion 5T", "SameGame (total)", "left move"):
        assert series in levels
    curves = (tables / "algorithms_equal_playouts.csv").read_text()
    # (At quick scale a beam search of 16 does not finish within the budget: no beam curve.)
    for algo in ("iterative", "nrpa", "gnrpa", "uct"):
        assert f",{algo}," in curves
