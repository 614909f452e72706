"""Every search is counted once, whatever folders hold it; verdicts need enough data; a stopped
or finished cell says what it did in one line."""

import signal
import sys
import time

import numpy as np
import pandas as pd
import pytest
from helpers import REPO, run_cli, start_run_py

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    Context,
    prediction_interval,
    verdict_interval,
    verdict_sign,
    verdict_single_run,
)
from nmcs.harness.results import cpu_hours, experiment_results, read_results
from nmcs.harness.summary import markdown_table, mean_ci

pytestmark = pytest.mark.experiment

DEPTH = 12  # small trees: the whole sequence below takes a few seconds of search
N = 40


def sweep(outputs, *args):
    return run_cli(
        "-m",
        *args,
        f"game.depth={DEPTH}",
        "progress=false",
        f"hydra.sweep.dir={outputs / 'quick'}",
    )


def summary(outputs):
    return pd.read_csv(outputs / "quick" / "adhoc_leftmove_nested" / "summary.csv")


def test_the_same_search_is_counted_once(tmp_path):
    # `make run`, then the README's sweep: the memorized cells are named twice.
    sweep(tmp_path, "level=0,1,2,3", f"n_searches={N}")
    second = sweep(tmp_path, "level=0,1,2,3", "memorize=false,true", f"n_searches={N}")
    assert second.stdout.count("copied from a folder of the same cell") == 4
    table = summary(tmp_path)
    assert len(table) == 8 and (table["n"] == N).all()
    # Raising n_searches extends the existing cells in place (no new folder).
    sweep(tmp_path, "level=2,3", f"n_searches={2 * N}")
    cells = tmp_path / "quick" / "adhoc_leftmove_nested"
    folders = sorted(p.name for p in cells.iterdir())
    assert [f for f in folders if "n_searches" in f] == []
    assert len(pd.read_parquet(cells / f"game.depth={DEPTH},level=3" / "results.parquet"))
    table = summary(tmp_path).set_index(["level", "memorize"])["n"]
    assert (
        table[(3, True)] == table[(2, True)] == 2 * N
    )  # level=3 holds 2N, level=3,memorize=True N of them
    assert table[(3, False)] == table[(1, True)] == N
    # The analysis reads each search once too.
    ctx = Context(tmp_path, "quick")
    df = ctx.results("adhoc_leftmove_nested")
    assert not df.duplicated(["cell", "search"]).any()
    counts = df.groupby(["level", "memorize"]).size()
    assert counts[(3, True)] == 2 * N and counts[(0, False)] == N
    # Rows of the same cell carry the same hash in both folders, and only there.
    base = pd.read_parquet(cells / f"game.depth={DEPTH},level=3" / "results.parquet")
    named = pd.read_parquet(cells / f"game.depth={DEPTH},level=3,memorize=True" / "results.parquet")
    assert base["cell"].nunique() == 1 and set(named["cell"]) == set(base["cell"])
    assert named["score"].tolist() == base["score"].iloc[:N].tolist()
    assert set(df[df["memorize"] == False]["cell"]).isdisjoint(base["cell"])  # noqa: E712
    # A finished cell run again says so and computes nothing.
    again = run_cli(
        f"game.depth={DEPTH}",
        "level=3",
        f"n_searches={2 * N}",
        "progress=false",
        f"hydra.run.dir={tmp_path / 'quick' / 'adhoc_leftmove_nested' / 'level3'}",
    )
    assert "searches copied from a folder of the same cell" in again.stdout
    again = run_cli(
        f"game.depth={DEPTH}",
        "level=3",
        f"n_searches={2 * N}",
        "progress=false",
        f"hydra.run.dir={tmp_path / 'quick' / 'adhoc_leftmove_nested' / 'level3'}",
    )
    assert f"cell complete ({2 * N} searches), nothing to run" in again.stdout


@pytest.mark.unit
def test_rows_without_cpu_time_read_nan_and_cpu_hours_refuses_them(tmp_path):
    old = pd.DataFrame(
        {"experiment": "exp", "cell": "c1", "search": [0, 1], "seconds": [3600.0, 7200.0]}
    )
    new = old.assign(cell="c2", cpu_seconds=[1800.0, 1800.0])
    match = old.assign(cell="m1", kind="matches")
    for name, rows in (("old", old), ("new", new), ("match", match)):
        rows.to_parquet(tmp_path / f"{name}.parquet", index=False)
    rows = read_results([tmp_path / "old.parquet", tmp_path / "new.parquet"])
    assert rows["cpu_seconds"].isna().tolist() == [True, True, False, False]  # never the wall
    assert read_results(tmp_path / "old.parquet", ["cpu_seconds"])["cpu_seconds"].isna().all()
    assert "cpu_seconds" not in read_results(tmp_path / "old.parquet", ["seconds"])
    assert "cpu_seconds" not in read_results(tmp_path / "match.parquet")  # no CPU time per row
    assert cpu_hours(rows[rows["cell"] == "c2"]) == 1.0
    message = (
        "rows of cell c1 of exp carry no CPU time (published before CPU time was recorded); "
        "pass fallback_wall=True to use wall time"
    )
    with pytest.raises(ValueError) as refused:
        cpu_hours(rows)
    assert str(refused.value) == message
    assert cpu_hours(rows, fallback_wall=True) == 4.0
    assert cpu_hours(rows.iloc[:0]) == 0.0
    # A published row of a cell stored as counts stands for ``count`` searches.
    assert cpu_hours(new.iloc[:1].assign(count=4)) == 2.0


@pytest.mark.unit
def test_the_published_results_carry_no_cpu_time():
    published = REPO / "results" / "paper" / "leftmove_realtime"
    if not (published / "results.parquet").exists():
        pytest.skip("no published paper-scale results in this checkout")
    rows = experiment_results(published, columns=["experiment", "cpu_seconds", "seconds"])
    assert len(rows) and rows["cpu_seconds"].isna().all()
    with pytest.raises(ValueError, match=r"^rows of \d+ cells of leftmove_realtime carry no CPU"):
        cpu_hours(rows)
    assert cpu_hours(rows, fallback_wall=True) == pytest.approx(rows["seconds"].sum() / 3600)


def test_summary_marks_unset_budgets_and_names_the_half_width(tmp_path):
    sweep(tmp_path, "level=1", "n_searches=5")
    text = (tmp_path / "quick" / "adhoc_leftmove_nested" / "summary.md").read_text()
    header = next(line for line in text.splitlines() if line.startswith("| experiment"))
    row = next(line for line in text.splitlines() if line.startswith("| adhoc"))
    cols = dict(zip(header.strip("|").split(" | "), row.strip("|").split(" | "), strict=True))
    cols = {k.strip(): v.strip() for k, v in cols.items()}
    assert cols["budget_seconds"] == "-" and cols["budget_playouts"] == "-"
    assert "ci95_halfwidth" in cols and cols["level"] == "1"


def test_mean_ci_is_the_student_t_interval():
    """The summaries' half-width (scipy.special's t quantile) is scipy.stats' t interval."""
    from scipy import stats

    rng = np.random.default_rng(0)
    for n in (2, 3, 10, 1000):
        values = rng.normal(size=n)
        mean, half = mean_ci(values)
        low, high = stats.t.interval(0.95, n - 1, loc=values.mean(), scale=stats.sem(values))
        assert mean == values.mean()
        assert half == pytest.approx((high - low) / 2, rel=1e-12)
    assert mean_ci([4.0]) == (4.0, 0.0)


def test_markdown_prints_integral_floats_as_integers():
    text = markdown_table(pd.DataFrame({"depth": [60.0], "p": [0.12345], "b": [np.nan]}))
    assert text.splitlines()[-1] == "| 60 | 0.1235 | - |"


def test_ctrl_c_prints_one_line_and_keeps_the_chunks(tmp_path):
    out = tmp_path / "cell"
    proc = start_run_py(out, "n_searches=100000")
    deadline = time.time() + 120
    while not list((out / "chunks").glob("*.parquet")) and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130
    # run.py's own lines: on an empty cache, the compiler's progress lines come before them.
    lines = [line for line in err.splitlines() if line.startswith("run.py:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("run.py: interrupted: ") and "run the same command" in lines[0]
    saved = int(lines[0].split("interrupted: ")[1].split()[0])
    chunks = pd.concat(pd.read_parquet(p) for p in (out / "chunks").glob("*.parquet"))
    assert saved == len(chunks) > 0


@pytest.mark.parametrize(
    "interval,target,expected",
    [
        ((0.40, 0.42), (0.405, 0.415), NOT_ENOUGH),  # wider than the paper's rounding
        ((0.410, 0.414), (0.405, 0.415), AGREES),
        ((0.810, 0.815), (0.795, 0.805), DIFFERS),
        ((float("nan"), 1.0), (0.0, 2.0), NOT_ENOUGH),
    ],
)
def test_verdict_interval(interval, target, expected):
    assert verdict_interval(*interval, *target) == expected


def test_verdict_sign():
    assert verdict_sign(0.1, 2.0) == AGREES
    assert verdict_sign(-2.0, -0.1) == DIFFERS
    assert verdict_sign(-0.1, 2.0) == NOT_ENOUGH


def test_prediction_interval_of_one_run():
    # Below 39 runs no pair of order statistics covers a new run with probability 0.95.
    assert np.isnan(prediction_interval(np.arange(38))[0])
    assert prediction_interval(np.arange(39)) == (0.0, 38.0)  # coverage 38/40 = 0.95
    assert prediction_interval(np.arange(79)) == (1.0, 77.0)  # k = 2: coverage 76/80
    assert verdict_single_run(np.arange(20), 5) == NOT_ENOUGH
    assert verdict_single_run(np.arange(100), 50) == AGREES
    assert verdict_single_run(np.arange(100), 120) == DIFFERS


def test_prediction_interval_covers_one_new_run_95_percent_of_the_time():
    rng = np.random.default_rng(1)
    trials, n = 4000, 39
    hits = 0
    for _ in range(trials):
        x = rng.normal(size=n + 1)
        low, high = prediction_interval(x[:n])
        hits += low <= x[n] <= high
    # Exact coverage 0.95; a 99.9% binomial band around it.
    half = 3.29 * np.sqrt(0.95 * 0.05 / trials)
    assert abs(hits / trials - 0.95) < half


def test_a_ctrl_c_in_a_finalizer_is_not_printed_and_other_unraisables_still_are():
    # The garbage collector may run a finalizer (Dask's Future.__del__) when the signal comes:
    # Python hands that KeyboardInterrupt to sys.unraisablehook, which prints it with a
    # traceback unless the installed hook drops it. The hook before it (here a recorder in
    # place of Python's printer) must still get every other exception.
    import gc
    import os

    from nmcs.harness import interrupt

    class SignalledWhileCollected:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)

    class Broken:
        def __del__(self):
            raise ValueError("a finalizer's own error")

    printed = []
    previous = signal.getsignal(signal.SIGINT), sys.unraisablehook
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.unraisablehook = lambda unraisable: printed.append(unraisable.exc_type)
    try:
        interrupt.install()
        SignalledWhileCollected()
        gc.collect()
        assert printed == []
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
        Broken()
        gc.collect()
        assert printed == [ValueError]
    finally:
        interrupt._INTERRUPTED.clear()
        signal.signal(signal.SIGINT, previous[0])
        sys.unraisablehook = previous[1]


def test_a_ctrl_c_swallowed_by_a_callback_is_raised_again_before_the_next_chunk():
    # numba's compiler calls back into Python from LLVM; a KeyboardInterrupt raised inside such a
    # ctypes callback is dropped (sys.unraisablehook). The handler records it; check() raises it.
    import os

    from nmcs.harness import interrupt

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupt.install()
        interrupt.check()  # nothing came yet
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)
        except KeyboardInterrupt:
            pass  # what the callback does with it
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
    finally:
        interrupt._INTERRUPTED.clear()
        signal.signal(signal.SIGINT, previous)
