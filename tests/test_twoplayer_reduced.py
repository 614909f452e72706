"""The reduced paper table (benchmarks/twoplayer_reduced.py): its cells are the full table's
cells (same folders and identities, fewer matches), and its quick version runs end to end."""

import importlib.util
import json
import time

import pandas as pd
import pytest
from helpers import REPO, run_analysis, run_cli
from hydra import compose, initialize_config_dir

from nmcs.harness import cli
from nmcs.harness.cell import cell_hash
from nmcs.harness.match_cell import validate_match

pytestmark = pytest.mark.experiment

spec = importlib.util.spec_from_file_location(
    "twoplayer_reduced", REPO / "benchmarks" / "twoplayer_reduced.py"
)
reduced = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reduced)


def test_paper_commands_are_the_paper_experiments_with_fewer_matches():
    cmds = reduced.commands("paper")
    assert [c[1] for c in cmds] == [
        "experiment=twoplayer_paper_playouts",
        "experiment=twoplayer_paper_playouts_misere",
        "experiment=twoplayer_paper_time",
        "experiment=twoplayer_paper_time_misere",
    ]
    assert all("scale=paper" in c for c in cmds)
    assert [next(a for a in c if a.startswith("n_matches=")) for c in cmds] == [
        "n_matches=100",
        "n_matches=100",
        "n_matches=40",
        "n_matches=40",
    ]
    assert all("player_a=nmc1_cow,nmc2_cow" in c and "budget.ms=320" in c for c in cmds[2:])
    with pytest.raises(ValueError, match="scale must be 'quick' or 'paper'"):
        reduced.commands("full")
    with pytest.raises(ValueError, match="n_matches must be a positive integer"):
        reduced.commands("paper", n_matches=0)


def test_a_reduced_cell_is_the_full_cell():
    # n_matches is not in a cell's identity: running the full table later extends these cells.
    cli.register()
    base = [
        "experiment=twoplayer_paper_time_misere",
        "scale=paper",
        "game=nogo",
        "player_a=nmc2_cow",
        "budget.ms=320",
    ]
    with initialize_config_dir(config_dir=str(cli.CONFIG_DIR), version_base="1.3"):
        full = validate_match(compose("config", overrides=base))
        part = validate_match(compose("config", overrides=[*base, "n_matches=40"]))
    assert full.n == 500 and part.n == 40
    assert cell_hash(full.identity) == cell_hash(part.identity)


def test_quick_reduced_table_runs_and_is_marked_reduced(tmp_path):
    t = time.perf_counter()
    # The script's command line, each of its run.py commands in this process.
    reduced.main(
        ["--scale", "quick", "--outputs", str(tmp_path), "progress=false"],
        run_py=lambda args: run_cli(*args),
    )
    seconds = time.perf_counter() - t
    # About 20 s here (2026-11-28) with numba's cache warm (a cold cache adds the
    # compilation); the bound leaves room for a loaded machine.
    assert seconds < 180, seconds
    quick = tmp_path / "quick"
    for experiment, cells in (
        ("twoplayer_paper_playouts", 10),
        ("twoplayer_paper_playouts_misere", 8),
        ("twoplayer_paper_time", 10),
        ("twoplayer_paper_time_misere", 8),
    ):
        summary = pd.read_csv(quick / experiment / "summary.csv")
        assert len(summary) == cells and (summary["n"] == 2).all(), experiment
    cell = next((quick / "twoplayer_paper_time").glob("budget.ms=10,game=nogo,player_a=nmc2_cow"))
    meta = json.loads((cell / "meta.json").read_text())
    assert "n_matches=2" in (meta.get("command_line") or meta.get("overrides"))
    run_analysis("analysis", "--outputs", str(tmp_path), "--scale", "quick")
    report = (tmp_path / "REPRODUCTION.md").read_text()
    section = report.split("NMCS for two-player games")[1].split("\n### ")[0]
    claims = [line for line in section.splitlines() if line.startswith("| at 10 ms")]
    assert len(claims) == 18 and all("(reduced runs: " in line for line in claims)
