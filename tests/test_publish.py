"""Publishing results: RUNS.md lists every published cell, and a run made smaller than its scale
on the command line is said beside each of its results."""

import json

import pandas as pd

from analysis.__main__ import mark_reduced, reduced_runs
from analysis.common import Claim, Context
from analysis.publish import publish, reduced_overrides


def make_cell(root, experiment, cell, n, overrides=None):
    folder = root / experiment / cell
    folder.mkdir(parents=True)
    pd.DataFrame({"search": range(n), "score": [1] * n, "seconds": [0.5] * n}).to_parquet(
        folder / "results.parquet"
    )
    meta = {"git_commit": "abcdef0123456789", "git_dirty": False, "finished": "now"}
    if overrides is not None:
        meta["overrides"] = overrides
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_reduced_overrides_name_only_the_size_keys():
    meta = {"overrides": ["experiment=e", "scale=paper", "n_searches=3", "memorize=true"]}
    assert reduced_overrides(meta) == "n_searches=3"
    assert reduced_overrides({"overrides": ["experiment=e", "memorize=true"]}) == ""
    assert reduced_overrides({}) == ""  # cells run before overrides were recorded


def test_publishing_again_keeps_the_cells_published_before(tmp_path):
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    make_cell(outputs / "paper", "first", "a=1", 4)
    publish(outputs, "paper", target)
    (outputs / "paper" / "first").rename(tmp_path / "gone")  # a later session's fresh outputs
    make_cell(outputs / "paper", "second", "b=1", 2, ["experiment=second", "n_searches=2"])
    copied = publish(outputs, "paper", target)
    assert list(copied["experiment"]) == ["second"]
    runs = (target / "RUNS.md").read_text()
    assert "| first | a=1 | 4 |" in runs
    assert "| second | b=1 | 2 | n_searches=2 |" in runs
    # seconds is the cell's total, kept through the compact copy
    assert "| 2 |" in runs.split("| first | a=1 |")[1].split("\n")[0]


def test_a_reduced_run_is_said_beside_its_results_and_in_its_command(tmp_path):
    make_cell(tmp_path, "small", "a=1", 3, ["experiment=small", "scale=paper", "n_searches=3"])
    make_cell(tmp_path, "full", "a=1", 10, ["experiment=full", "scale=paper"])
    reduced = reduced_runs(Context(tmp_path, "paper", published=tmp_path))
    assert reduced == {"small": "n_searches=3"}
    cmd = "python run.py -m experiment={} scale=paper && python -m analysis"
    small = mark_reduced(Claim("s", "c", "1", "2 [1, 3]", "agrees", cmd.format("small")), reduced)
    assert small.ours == "2 [1, 3] (reduced run: n_searches=3)"
    assert "experiment=small scale=paper n_searches=3 &&" in small.command
    full = Claim("s", "c", "1", "2", "agrees", cmd.format("full"))
    assert mark_reduced(full, reduced) == full
