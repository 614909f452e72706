"""Faults outside a cell's own files, and inputs that used to pass without a word: each is one
line now (exit status 1 for the file system, 2 for the input), with nothing computed lost.

- a read-only experiment folder, which Hydra makes before the cell starts;
- a file-size limit met while Hydra writes ``.hydra/*.yaml``;
- ``workers`` over the machine's threads (said, then run on those);
- ``python -m analysis --from`` a folder with no published results;
- ``experiment_results`` on a folder that holds experiments rather than cells.

(A seed out of range, ``memorize_from`` without ``memorize`` and a scheduler address that is
none are refused by the pre-flight check: tests/test_safety_refusals.py.)"""

import errno
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO, run_analysis, run_cli

import nmcs
from nmcs.harness.configs import machine_threads
from nmcs.harness.results import ResultsFileError

pytestmark = pytest.mark.experiment

CELL = ("level=1", "n_searches=2", "progress=false")


def _said(stderr: str) -> list[str]:
    assert "Traceback" not in stderr, stderr[-3000:]
    return [line for line in stderr.splitlines() if line.startswith("run.py:")]


def test_a_read_only_experiment_folder_is_one_line(tmp_path, monkeypatch):
    # Root may write anywhere; the file system's answer to everyone else is made here.
    read_only = tmp_path / "read_only"
    real = Path.mkdir

    def mkdir(self, *args, **kwargs):
        if str(self).startswith(str(read_only)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", mkdir)
    for run, key in (("", "hydra.run.dir"), ("-m", "hydra.sweep.dir")):
        out = read_only / "experiment"
        done = run_cli(*filter(None, [run]), *CELL, f"{key}={out}", check=False)
        assert done.returncode == 1
        [line] = _said(done.stderr)
        assert line.startswith(f"run.py: error: cannot write {out}"), line
        assert "Read-only file system; the file system is read-only: write the outputs " in line
    assert not read_only.exists()


def test_a_file_size_limit_met_by_hydras_files_is_one_line(tmp_path):
    run_cli(*CELL, f"hydra.run.dir={tmp_path / 'warm'}")  # compiled code cached: no write left
    out = tmp_path / "limited"
    done = subprocess.run(
        [sys.executable, "run.py", *CELL, f"hydra.run.dir={out}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        # 1 KB: Hydra's .hydra/hydra.yaml is larger (Python ignores SIGXFSZ: the write fails).
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024)),
    )
    assert done.returncode == 1, done.stderr[-3000:]
    [line] = _said(done.stderr)
    assert line.startswith(f"run.py: error: cannot write {out}/.hydra/"), line
    assert (
        "File too large; the file is too large for this file system or for the file-size " in line
    )
    assert not (out / "chunks").exists()  # nothing ran


def test_workers_over_the_machines_threads_are_said_then_capped(tmp_path):
    threads = machine_threads()
    done = run_cli(*CELL, "workers=1000", f"hydra.run.dir={tmp_path / 'cell'}")
    assert _said(done.stderr) == [
        f"run.py: workers = 1000: this machine runs {threads} threads at once "
        f"(NUMBA_NUM_THREADS); the cells run on {threads}"
    ]
    assert (tmp_path / "cell" / "results.parquet").exists()


def test_analysis_from_a_folder_without_published_results_is_refused(tmp_path):
    (tmp_path / "empty" / "some_folder").mkdir(parents=True)
    done = run_analysis(
        "analysis", "--from", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"analysis: error: --from {tmp_path / 'empty'}: no published results in it (no "
        "<experiment>/results.parquet); give a folder written by python -m analysis.publish, "
        "such as results/paper"
    ]
    assert not (tmp_path / "out").exists()


def test_experiment_results_of_a_folder_of_experiments_names_them(tmp_path):
    for experiment in ("a_exp", "b_exp"):
        cell = tmp_path / "quick" / experiment / "level=1"
        cell.mkdir(parents=True)
        (cell / "meta.json").write_text("{}")
    with pytest.raises(ResultsFileError) as error:
        nmcs.experiment_results(tmp_path / "quick")
    assert str(error.value) == (
        f"'{tmp_path / 'quick'}' holds experiments, not cells (a_exp, b_exp): give one of "
        f"them, {tmp_path / 'quick' / 'a_exp'}"
    )
    with pytest.raises(ResultsFileError, match=r"holds experiments, not cells \(quick/a_exp, "):
        nmcs.experiment_results(tmp_path)
    assert nmcs.experiment_results(tmp_path / "quick" / "a_exp").empty  # no finished cell yet
