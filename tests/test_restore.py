"""Restoring a published experiment into outputs/ (python -m analysis.restore): a run then
extends its cells in place, and the cell ends as if it had never moved."""

import json
import shutil

import pandas as pd
import pytest

from analysis.publish import publish, read_published
from analysis.restore import restore_experiment
from tests.helpers import run_cli, run_python

pytestmark = pytest.mark.experiment

CELL = ["-m", "experiment_name=restoretest", "scale=paper", "level=1,2"]


def sweep(outputs, n):
    run_cli(*CELL, f"n_searches={n}", "progress=false", f"hydra.sweep.dir={outputs / 'paper'}")


def test_a_restored_cell_resumes_into_the_same_results_as_one_run(tmp_path):
    outputs, published = tmp_path / "outputs", tmp_path / "published"
    sweep(outputs, 6)
    publish(outputs, "paper", published)
    shutil.rmtree(outputs)  # a new machine: only the published folder came along

    lines = restore_experiment(published / "restoretest", outputs)
    assert len(lines) == 2 and all("6 searches restored" in line for line in lines), lines
    sweep(outputs, 10)
    fresh = tmp_path / "fresh"
    sweep(fresh, 10)
    for level in (1, 2):
        name = f"experiment_name=restoretest,level={level}"
        resumed = pd.read_parquet(outputs / "paper" / "restoretest" / name / "results.parquet")
        whole = pd.read_parquet(fresh / "paper" / "restoretest" / name / "results.parquet")
        assert resumed["search"].tolist() == list(range(10))
        for column in ("cell", "score", "playouts", "search_seed"):
            assert resumed[column].tolist() == whole[column].tolist(), column
        assert resumed["moves"].isna().tolist() == [True] * 6 + [False] * 4
        meta = json.loads((outputs / "paper" / "restoretest" / name / "meta.json").read_text())
        assert meta["n_done"] == 10 and meta["finished"]

    # Restoring again adds nothing; publishing again packs the whole cell.
    again = restore_experiment(published / "restoretest", outputs)
    assert all("nothing to restore" in line for line in again), again
    publish(outputs, "paper", published)
    rows, metas, _ = read_published(published / "restoretest")
    assert sorted(rows.groupby("cell_dir")["count"].sum().tolist()) == [10, 10]


def test_restore_refuses_an_unknown_experiment_and_a_folder_of_another_config(tmp_path):
    outputs, published = tmp_path / "outputs", tmp_path / "published"
    sweep(outputs, 3)
    publish(outputs, "paper", published)
    proc = run_python(
        "-m", "analysis.restore", "--from", str(published), "--experiment", "nope", check=False
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"restore: error: no published experiment 'nope' in {published} (published: restoretest)"
    ]
    meta_path = (
        outputs / "paper" / "restoretest" / "experiment_name=restoretest,level=1" / "meta.json"
    )
    meta = json.loads(meta_path.read_text())
    meta["identity"]["level"] = 5
    meta_path.write_text(json.dumps(meta))
    lines = restore_experiment(published / "restoretest", outputs)
    assert any("level=1: skipped" in line and "another config" in line for line in lines), lines
