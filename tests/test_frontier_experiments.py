"""The frontier experiments at quick scale through run.py and the analysis: SameGame's frontier
(RECORDS.md's SameGame section, every saved game replayed, with its rerun command), the
playout rules at equal time, and Morpion 5T at level 4 beside the level-3 5T hunt."""

import pytest
from helpers import run_quick_experiments

pytestmark = pytest.mark.experiment

EXPERIMENTS = (
    "samegame_frontier",
    "samegame_nrpa_policy",
    "samegame_gnrpa_bias",
    "morpion_5t_level4",
)


def test_frontier_experiments_at_quick_scale(tmp_path):
    outputs = run_quick_experiments(tmp_path, EXPERIMENTS)
    records = (outputs / "RECORDS.md").read_text()
    samegame = records.split("## SameGame")[1]
    # Quick scale: positions 0 and 1, 2 level-2 searches each; each best game saved and replayed.
    rows = [line for line in samegame.splitlines() if line.startswith(("| 0 (1) |", "| 1 (2) |"))]
    assert len(rows) == 2
    assert all(
        "python -m nmcs.harness.rerun" in r and "[png](quick/samegame_frontier/" in r for r in rows
    )
    assert "| ours: the best game of each position (2 of 20 positions) |" in samegame
    assert "### Morpion 5T at level 2 (`morpion_5t_level4`)" in records
    report = (outputs / "REPRODUCTION.md").read_text()
    section = report.split("### SameGame NRPA: the playout rule at equal time")[1].split("###")[0]
    rows = [line for line in section.splitlines() if line.startswith("| position")]
    # Against every group and against GNRPA's bias on 3 positions; 3 searches a side, below
    # the 30 a verdict needs.
    assert len(rows) == 6 and all("| not enough data |" in r for r in rows)
    section = report.split("### Records (SameGame)")[1].split("###")[0]
    assert section.count("only 2 of 20 positions run") == 5
    tables = outputs / "tables" / "quick"
    for stem in ("samegame_frontier_positions", "samegame_frontier_totals", "samegame_nrpa_policy"):
        assert (tables / f"{stem}.csv").exists()
