"""Parallel NRPA: ``algo.batch`` in the kernel (B level-(L-1) searches per top-level iteration,
from the same policy), and its distributed master (nmcs.search.nrpa_master) with the top level
here and the searches below on Dask workers: its adaptation against the kernel's, the two in
distribution, and a run.py cell on two workers against the master in this process."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nmcs.games import leftmove
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.parallel import dask_batch
from nmcs.harness.summary import pooled_bins
from nmcs.search import nrpa
from nmcs.search.executors import InProcess
from nmcs.search.nrpa_master import adapt
from tests.helpers import exact_best_of, run_python

pytestmark = pytest.mark.dask


def test_batch_with_alpha_zero_is_the_best_of_n_times_b_uniform_playouts():
    # alpha = 0: the policy stays uniform, so a level-1 search of N iterations of B playouts
    # each returns the best of N x B uniform playouts.
    depth, n_iter, batch, n = 9, 4, 3, 20000
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=depth),
        search_seeds(12, 0, n),
        algo="nrpa",
        level=1,
        iterations=n_iter,
        alpha=0.0,
        batch=batch,
    )
    assert (res.playouts == n_iter * batch).all()
    expected = np.array([float(p) * n for p in exact_best_of(depth, n_iter * batch)])
    counts = np.bincount(res.score, minlength=depth + 1)
    groups = pooled_bins(expected)
    _, p_value = stats.chisquare(
        [counts[g].sum() for g in groups], [expected[g].sum() for g in groups]
    )
    assert p_value > 1e-3


def test_batch_runs_only_at_the_top_level():
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=8),
        search_seeds(0, 0, 3),
        algo="nrpa",
        level=2,
        iterations=3,
        batch=2,
    )
    assert (res.playouts == 3 * 2 * 3).all()  # N x B level-1 searches of N playouts


@pytest.mark.parametrize("tau", [1.0, 2.0])
def test_the_masters_adaptation_is_the_kernels(tau):
    depth = 6
    state0 = leftmove.make_state(depth=depth)
    params = nrpa.NrpaParams(1, 2, 0.7, tau, 0.0, 0, 1 << 12)
    new_workspace, _, kernel_adapt = nrpa.build_nrpa(leftmove)
    ws = new_workspace(state0, params, np.zeros(2, np.int64))
    policy: dict[int, float] = {}
    rng = np.random.default_rng(5)
    for _ in range(6):
        seq = rng.integers(0, 2, depth).astype(np.int32)
        ws.c_ok[1] = 0  # a new sequence: the kernel caches its slots again
        kernel_adapt(state0, 1, seq, depth, params, ws)
        adapt(leftmove, state0, seq, policy, 0.7, tau)
    table = {int(ws.keys[1, i]): float(ws.vals[1, i]) for i in ws.slots[1, : ws.used[1]]}
    assert table.keys() == policy.keys()
    for code, weight in policy.items():
        assert table[code] == pytest.approx(weight, abs=1e-12)


def master_scores(state0, seeds, level, **options):
    res = dask_batch(
        "leftmove", state0, seeds, "nrpa", level, True, 1, options, executor=InProcess()
    )
    return res


def test_the_master_agrees_in_distribution_with_the_kernel():
    # The same algorithm (N = 3, B = 2, level 2) run by the master with its searches below in
    # this process, and by the kernel: a two-sample chi-square on the scores.
    depth, options = 9, {"iterations": 3, "alpha": 1.0, "batch": 2}
    state0 = leftmove.make_state(depth=depth)
    master = master_scores(state0, search_seeds(8, 0, 1500), 2, **options)
    assert (master.playouts == 3 * 2 * 3).all()
    kernel = search_batch(
        "leftmove", state0, search_seeds(9, 0, 20000), algo="nrpa", level=2, **options
    )
    ours = np.bincount(kernel.score, minlength=depth + 1)
    theirs = np.bincount(master.score, minlength=depth + 1)
    pooled = ours + theirs
    groups = pooled_bins(pooled * min(ours.sum(), theirs.sum()) / pooled.sum())
    table = np.array([[ours[g].sum() for g in groups], [theirs[g].sum() for g in groups]])
    _, p_value, _, _ = stats.chi2_contingency(table)
    assert p_value > 1e-3, table


def test_a_run_py_cell_on_two_workers_gives_the_masters_result_here(tmp_path):
    run_python(
        "run.py",
        "game.depth=14",
        "algo=nrpa",
        "level=2",
        "algo.iterations=4",
        "algo.batch=3",
        "n_searches=2",
        "progress=false",
        "parallel.backend=dask",
        "parallel.workers=2",
        f"hydra.run.dir={tmp_path / 'cell'}",
    )
    rows = pd.read_parquet(tmp_path / "cell" / "results.parquet").sort_values("search")
    assert set(rows["parallel_backend"]) == {"dask"} and set(rows["algo_batch"]) == {3}
    here = master_scores(
        leftmove.make_state(depth=14),
        rows["search_seed"].to_numpy(np.uint64),
        2,
        iterations=4,
        alpha=1.0,
        batch=3,
    )
    assert list(rows["score"]) == list(here.score)
    assert list(rows["playouts"]) == list(here.playouts) == [4 * 3 * 4] * 2
    for moves, expected in zip(rows["moves"], here.moves, strict=True):
        assert list(moves) == list(expected)
