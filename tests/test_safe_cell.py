"""A cell no one can corrupt (docs/safety.md): one writer per cell, checked chunks, unique
temporary names, file-system faults in one line, streamed items, SIGTERM like Ctrl-C, and cells
written by earlier versions (no lock, no recorded times) still resumed and never quarantined.

Most tests drive the cell driver with a stand-in cell (no compiled search: an item's row is a
function of its index); the signal and two-process tests run ``run.py`` itself."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import nullcontext, redirect_stderr
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pytest
from helpers import run_cli, start_run_py, terminal_lines

from nmcs.core.errors import ConfigError
from nmcs.harness import cell as driver
from nmcs.harness import cell_files
from nmcs.harness.cell_files import CellLocked, CellWriteError
from nmcs.harness.results import cpu_hours, read_results

pytestmark = pytest.mark.experiment


@dataclass
class StandIn:
    """A cell whose item i scores i * i + seed."""

    n: int
    seed: int = 0
    kind: str = "searches"
    unit: str = "search"
    workers: int = 1
    chunk_seconds: float = 1e-3
    progress: bool = False
    config: dict = field(default_factory=dict)
    calls: list = field(default_factory=list)

    @property
    def identity(self) -> dict:
        return {"stand_in": True, "seed": self.seed}

    def meta(self) -> dict:
        return {}

    def session(self, out_dir):
        return nullcontext(self.run_chunk)

    def run_chunk(self, cell, indices):
        self.calls.extend(indices)
        return pd.DataFrame(
            {"cell": cell, "search": indices, "score": [i * i + self.seed for i in indices]}
        )

    def finish(self, results, out_dir):
        pass

    hunts = False

    def after_saved(self, rows, out_dir, n_saved):
        return None


def _rows(folder: Path) -> list[int]:
    return pd.read_parquet(folder / "results.parquet")["search"].tolist()


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def _old_style_cell(folder: Path, cell: StandIn, items: range) -> None:
    """A cell folder as the versions before the lock and the checks wrote it: chunks by plain
    ``to_parquet`` (fixed ``.tmp`` names, no metadata), meta.json without the new entries, no
    lock, and the temporary files a killed run of those versions left."""
    chunks = folder / "chunks"
    chunks.mkdir(parents=True)
    name = driver.cell_hash(cell.identity)
    rows = cell.run_chunk(name, list(items))
    rows.to_parquet(chunks / f"{items[0]:08d}-{items[-1]:08d}.parquet", index=False)
    meta = {"kind": "searches", "identity": cell.identity, "cell": name, "n_done": len(items)}
    (folder / "meta.json").write_text(json.dumps(meta))
    (folder / "meta.json.tmp").write_text("{")  # a killed write of the old fixed name
    (chunks / "00000099-00000100.parquet.tmp").write_bytes(b"PAR1")


def test_a_cell_written_the_old_way_resumes_untouched(tmp_path, capsys):
    """The long runs started before the lock existed: their chunks are merged (never
    quarantined), only the missing items run, and the old temporary files go."""
    folder = tmp_path / "old"
    _old_style_cell(folder, StandIn(10), range(0, 6))
    cell = StandIn(10)
    results = driver.run(cell, folder)
    assert cell.calls == [6, 7, 8, 9]
    assert results["search"].tolist() == list(range(10))
    assert results["score"].tolist() == [i * i for i in range(10)]
    assert not (folder / "quarantine").exists()
    assert "moved" not in capsys.readouterr().out
    assert not _leftovers(folder)
    assert not (folder / "lock").exists()
    assert json.loads((folder / "meta.json").read_text())["seconds_per_item"] > 0


def test_a_cell_started_before_cpu_time_was_recorded_resumes_with_nan_for_its_old_rows(
    tmp_path,
):
    """A search cell whose first chunks have no ``cpu_seconds`` (written before it existed):
    they are merged, never quarantined, and their rows read NaN, never their wall time."""
    out = tmp_path / "cell"
    args = ("game.depth=12", "level=1", "workers=1", "progress=false", f"hydra.run.dir={out}")
    run_cli(*args, "n_searches=6")
    # The cell as an earlier version leaves it midway: chunks without the column, no results.
    for path in (out / "chunks").glob("*.parquet"):
        pd.read_parquet(path).drop(columns="cpu_seconds").to_parquet(path, index=False)
    (out / "results.parquet").unlink()
    resumed = run_cli(*args, "n_searches=10")
    assert "moved" not in resumed.stdout and not (out / "quarantine").exists()
    df = pd.read_parquet(out / "results.parquet")
    assert df["search"].tolist() == list(range(10))
    # Only the missing searches ran: the old rows kept, with no CPU time.
    assert df["cpu_seconds"].iloc[:6].isna().all() and (df["cpu_seconds"].iloc[6:] > 0).all()
    columns = list(df.columns)  # the new chunk's order: CPU beside wall seconds
    assert columns.index("cpu_seconds") == columns.index("seconds") + 1
    rows = read_results(out / "results.parquet", columns=["cpu_seconds", "seconds"])
    assert rows["cpu_seconds"].isna().sum() == 6
    with pytest.raises(ValueError, match="carry no CPU time"):
        cpu_hours(rows)
    wall = rows["seconds"].iloc[:6].sum() + rows["cpu_seconds"].iloc[6:].sum()
    assert cpu_hours(rows, fallback_wall=True) == pytest.approx(wall / 3600)


def test_foreign_and_broken_chunks_are_quarantined_and_rerun(tmp_path, capsys):
    folder = tmp_path / "cell"
    driver.run(StandIn(8), folder)
    # Another cell's chunk (another seed), a truncated chunk and a file that is no Parquet.
    other = tmp_path / "other"
    driver.run(StandIn(8, seed=5), other)
    foreign = folder / "chunks" / "foreign.parquet"
    foreign.write_bytes(next((other / "chunks").glob("*.parquet")).read_bytes())
    first = sorted((folder / "chunks").glob("0*.parquet"))[0]
    whole = first.read_bytes()
    first.write_bytes(whole[: len(whole) // 2])
    (folder / "chunks" / "junk.parquet").write_bytes(b"not parquet at all")
    (folder / "results.parquet").unlink()
    cell = StandIn(8)
    results = driver.run(cell, folder)
    lines = [line for line in capsys.readouterr().out.splitlines() if "moved" in line]
    assert len(lines) == 3, lines
    assert any("foreign.parquet" in line and "rows of another cell" in line for line in lines)
    assert any(first.name in line and "unreadable or truncated" in line for line in lines)
    moved = sorted(p.name for p in (folder / "quarantine").iterdir())
    names = [first.name, "foreign.parquet", "junk.parquet"]
    assert moved == sorted(f"{name}.quarantined" for name in names)
    # Only the truncated chunk's items ran again.
    assert cell.calls == pd.read_parquet(io.BytesIO(whole))["search"].tolist()
    # Exactly the cell's rows, none of the foreign ones.
    assert results["search"].tolist() == list(range(8))
    assert results["score"].tolist() == [i * i for i in range(8)]


def test_an_unreadable_results_file_is_quarantined_and_gathered_again(tmp_path, capsys):
    folder = tmp_path / "cell"
    driver.run(StandIn(5), folder)
    path = folder / "results.parquet"
    path.write_bytes(path.read_bytes()[:40])
    cell = StandIn(5)
    assert driver.run(cell, folder)["search"].tolist() == list(range(5))
    assert cell.calls == []  # gathered from the chunks: nothing ran again
    assert "moved results.parquet" in capsys.readouterr().out


def test_a_live_lock_refuses_a_second_writer(tmp_path):
    folder = tmp_path / "cell"
    folder.mkdir()
    holder = {"host": socket.gethostname(), "pid": os.getpid(), "started": "now"}
    (folder / "lock").write_text(json.dumps(holder))
    with pytest.raises(CellLocked) as error:
        driver.run(StandIn(3), folder)
    assert isinstance(error.value, ConfigError)  # run.py: one line, exit status 2
    assert str(error.value) == (
        f"{folder} is being run by pid {os.getpid()} on {socket.gethostname()} (since now): "
        f"wait for it to end, or stop it; if that process is gone, remove {folder / 'lock'}"
    )
    assert not (folder / "meta.json").exists()
    assert json.loads((folder / "lock").read_text()) == holder  # not ours to remove


def test_a_lock_of_another_host_is_not_taken(tmp_path):
    folder = tmp_path / "cell"
    folder.mkdir()
    (folder / "lock").write_text(json.dumps({"host": "elsewhere", "pid": 1, "started": "x"}))
    with pytest.raises(CellLocked, match="pid 1 on elsewhere"):
        driver.run(StandIn(3), folder)


def test_a_stale_lock_is_taken_over(tmp_path, capsys):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    folder = tmp_path / "cell"
    folder.mkdir()
    (folder / "lock").write_text(
        json.dumps({"host": socket.gethostname(), "pid": dead.pid, "started": "then"})
    )
    assert driver.run(StandIn(4), folder)["search"].tolist() == [0, 1, 2, 3]
    out = capsys.readouterr().out
    assert f"taking over the lock left by pid {dead.pid} on {socket.gethostname()}" in out
    assert not (folder / "lock").exists()


def test_the_lock_is_released_on_every_way_out(tmp_path):
    class Failing(StandIn):
        def run_chunk(self, cell, indices):
            if 3 in indices:
                raise KeyboardInterrupt
            return super().run_chunk(cell, indices)

    folder = tmp_path / "cell"
    with pytest.raises(
        driver.CellInterrupted, match=r"^interrupted: [0-3] of 5 searches .* are saved"
    ):
        driver.run(Failing(5), folder)
    assert not (folder / "lock").exists() and not _leftovers(folder)
    with pytest.raises(ConfigError, match="holds results of another config"):
        driver.run(StandIn(5, seed=1), folder)
    assert not (folder / "lock").exists()
    assert driver.run(StandIn(5), folder)["search"].tolist() == list(range(5))


def test_temporary_names_are_unique():
    path = Path("x/meta.json")
    names = {cell_files.temporary_name(path) for _ in range(100)}
    assert len(names) == 100
    assert all(n.parent == path.parent and n.name.endswith(".tmp") for n in names)


@pytest.mark.parametrize(
    ("code", "advice"),
    [
        (errno.ENOSPC, "the disk is full: free some space"),
        (errno.EROFS, "the file system is read-only: write the outputs elsewhere"),
        (errno.EACCES, "the folder is not writable"),
        (errno.EFBIG, "the file is too large for this file system"),
    ],
)
def test_a_file_system_fault_is_one_line_and_leaves_no_partial_file(
    tmp_path, monkeypatch, code, advice
):
    folder = tmp_path / "cell"
    driver.run(StandIn(3), folder)  # saved before the fault
    real = pd.DataFrame.to_parquet

    def half_written(self, path, *args, **kwargs):
        Path(path).write_bytes(b"PAR1 partial")  # the bytes a full disk let through
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(pd.DataFrame, "to_parquet", half_written)
    with pytest.raises(CellWriteError) as error:
        driver.run(StandIn(6), folder)
    message = error.value.strerror
    assert "\n" not in message
    assert message.startswith(f"cannot write {folder / 'chunks'}/00000003-00000003.parquet: ")
    assert advice in message and message.endswith("(saved results are kept)")
    assert not _leftovers(folder) and not (folder / "lock").exists()
    monkeypatch.setattr(pd.DataFrame, "to_parquet", real)
    assert driver.run(StandIn(6), folder)["search"].tolist() == list(range(6))


def test_items_are_streamed_not_listed(tmp_path):
    """Nothing in proportion to n before the searches run: the items to run come from a
    generator, and a cell larger than MAX_ITEMS is refused in one line."""
    todo = driver._todo(10**13, {0, 2})
    assert [next(todo) for _ in range(3)] == [1, 3, 4]
    with pytest.raises(ConfigError, match=r"^n_searches = 10000001: at most 10000000 in one"):
        driver.run(StandIn(driver.MAX_ITEMS + 1), tmp_path / "big")
    assert not (tmp_path / "big").exists()


def test_the_estimate_reads_earlier_runs(tmp_path):
    from nmcs.harness.estimate import WARN_SECONDS, estimate, timing_key

    outputs = tmp_path / "outputs"
    cell = StandIn(1000)
    done = outputs / "paper" / "exp" / "cell"
    done.mkdir(parents=True)
    meta = {"identity": {**cell.identity, "seed": 7}, "seconds_per_item": 2.0, "started": "a"}
    (done / "meta.json").write_text(json.dumps(meta))
    assert timing_key(meta["identity"]) == timing_key(cell.identity)  # the seed aside
    line = estimate([cell, StandIn(5, seed=3)], outputs)  # 1005 searches of 2 s on 1 thread
    assert line is not None and line.startswith(
        "run.py: this command may take up to 34 min (2 cells, 1,005 items"
    )
    assert estimate([StandIn(int(WARN_SECONDS / 2))], outputs) is None  # 10 min: no line
    assert estimate([StandIn(10**6, seed=1)], tmp_path / "none") is None  # nothing known


def test_the_estimate_counts_only_the_items_left_to_run(tmp_path):
    """Items a cell's folder holds already are not run again, so they are not counted: a cell
    whose items are all saved says nothing; a folder of another cell saves none of this one."""
    from nmcs.harness.estimate import estimate, saved_items

    outputs = tmp_path / "outputs"
    folder = outputs / "paper" / "exp" / "cell"
    driver.run(StandIn(2), folder)  # 2 of the 8 items saved
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "seconds_per_item": 3600.0}))
    assert saved_items(StandIn(8), folder) == 2
    assert saved_items(StandIn(8, seed=1), folder) == 0  # another cell's folder
    assert saved_items(StandIn(8), tmp_path / "none") == 0
    line = estimate([StandIn(8)], outputs, folder_of=lambda cell: folder)
    assert line is not None and line.startswith(
        "run.py: this command may take up to 6.0 h (1 cell, 6 items left to run, 2 saved already,"
    ), line
    assert estimate([StandIn(2)], outputs, folder_of=lambda cell: folder) is None  # all saved
    # A folder unknown: every item counts.
    assert "8.0 h (1 cell, 8 items left to run, at" in estimate([StandIn(8)], outputs)


def test_run_py_estimates_the_items_left_in_the_folders_hydra_runs_the_cells_in(
    tmp_path, monkeypatch
):
    """The pre-flight check finds each cell's folder as Hydra names it (a run's and a sweep's):
    a cell of 8 searches with 2 saved is 6 searches left; with all of them saved, no line."""
    from nmcs.harness.cli import preflight

    folder = tmp_path / "outputs" / "quick" / "adhoc_leftmove_nested" / "level=1"
    run_cli("level=1", "n_searches=2", "progress=false", f"hydra.run.dir='{folder}'")
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps({**meta, "seconds_per_item": 3600.0}))
    monkeypatch.chdir(tmp_path)  # where outputs/ is read and the folders are named from

    def said(*argv):
        stderr = io.StringIO()
        with redirect_stderr(stderr):
            preflight([*argv, "level=1", "workers=1", "progress=false"])
        return [line for line in stderr.getvalue().splitlines() if "may take up to" in line]

    for multirun in ([], ["-m"]):
        [line] = said(*multirun, "n_searches=8")
        assert "6.0 h (1 cell, 6 items left to run, 2 saved already," in line, line
        assert said(*multirun, "n_searches=2") == []
    [line] = said("n_searches=8", f"hydra.run.dir={tmp_path / 'elsewhere'}")
    assert "8.0 h (1 cell, 8 items left to run, at" in line, line


def _run_py(out: Path) -> subprocess.Popen:
    return start_run_py(out, "n_searches=300")


def test_sigterm_stops_like_ctrl_c_and_the_rerun_resumes(tmp_path):
    out = tmp_path / "cell"
    proc = _run_py(out)
    deadline = time.time() + 300
    while not list((out / "chunks").glob("*.parquet")) and time.time() < deadline:
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the cell finished before SIGTERM came")
    assert proc.returncode == 143, err
    lines = terminal_lines(err)
    assert len(lines) == 1 and lines[0].startswith("run.py: terminated (SIGTERM): "), err
    assert "run the same command again to finish them" in lines[0]
    assert not (out / "lock").exists() and not _leftovers(out)
    saved = {i for p in (out / "chunks").glob("*.parquet") for i in pd.read_parquet(p)["search"]}
    rerun = _run_py(out)
    rerun.communicate(timeout=600)
    assert rerun.returncode == 0
    assert _rows(out) == list(range(300)) and saved


def test_two_processes_on_one_cell(tmp_path):
    """The second one says so in one line (exit status 2) or finds the cell complete; the
    cell holds exactly its rows, with no temporary file left."""
    out = tmp_path / "cell"
    first, second = _run_py(out), _run_py(out)
    results = [p.communicate(timeout=600) for p in (first, second)]
    codes = sorted(p.returncode for p in (first, second))
    errors = "".join(err for _, err in results)
    assert "Traceback" not in errors, errors
    assert codes in ([0, 0], [0, 2]), errors
    if codes == [0, 2]:
        refused = next(
            err for (_, err), p in zip(results, (first, second), strict=True) if p.returncode
        )
        said = [line for line in refused.splitlines() if line.startswith("run.py:")]
        assert len(said) == 1 and said[0].startswith(f"run.py: error: {out} is being run by pid ")
    assert _rows(out) == list(range(300)) and not _leftovers(out)


def test_run_py_reports_a_full_disk_in_one_line(tmp_path, monkeypatch):
    """Through run.py's command: exit status 1, one line naming the path, no partial file."""
    from helpers import run_cli

    def full(self, path, *args, **kwargs):
        Path(path).write_bytes(b"PAR1")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    out = tmp_path / "cell"
    monkeypatch.setattr(pd.DataFrame, "to_parquet", full)
    proc = run_cli("level=1", "n_searches=3", "progress=false", f"hydra.run.dir={out}", check=False)
    assert proc.returncode == 1
    said = [line for line in proc.stderr.splitlines() if line.startswith("run.py:")]
    assert len(said) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert said[0].startswith(f"run.py: error: cannot write {out / 'chunks'}/")
    assert "No space left on device; the disk is full" in said[0]
    assert not _leftovers(out) and not (out / "lock").exists()
