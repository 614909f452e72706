"""Parallel searches (nmcs.search.master on nmcs.search.executors): the same result in this
process and on 1 or 2 Dask worker processes; budgets stop the search with a complete game."""

import numpy as np
import pytest

from nmcs.games import game_module
from nmcs.harness.parallel import parallel_search

leftmove = game_module("leftmove")


def replayed_score(state0, moves):
    state = state0.copy()
    for move in moves:
        leftmove.play(state, move)
    return int(leftmove.score(state))


@pytest.fixture(scope="module")
def in_process():
    state0 = leftmove.make_state(depth=24)
    return state0, parallel_search("leftmove", state0, seed=3, level=2, top_width=2, workers=0)


@pytest.mark.parametrize("workers", [1, 2])
def test_dask_workers_give_the_in_process_result(in_process, workers):
    state0, expected = in_process
    res = parallel_search("leftmove", state0, seed=3, level=2, top_width=2, workers=workers)
    assert res.stopped == "finished" and res.score == expected.score
    assert np.array_equal(res.moves, expected.moves) and res.playouts == expected.playouts
    assert res.playout_moves == expected.playout_moves


def test_the_result_is_a_complete_game_with_its_score(in_process):
    state0, res = in_process
    assert len(res.moves) == 24 and replayed_score(state0, res.moves) == res.score
    assert res.steps == 24


def test_the_remote_searches_count_playouts_and_their_moves():
    # Level 1 on a depth-n binary tree: at step k two children, each with one playout of
    # n - k - 1 moves: 2n playouts, n(n - 1) moves, as the sequential search counts them.
    n = 12
    res = parallel_search("leftmove", leftmove.make_state(depth=n), seed=0, level=1, workers=0)
    assert (res.playouts, res.playout_moves) == (2 * n, n * (n - 1))


def test_another_seed_gives_another_search(in_process):
    state0, expected = in_process
    res = parallel_search("leftmove", state0, seed=4, level=2, top_width=2, workers=0)
    assert not np.array_equal(res.moves, expected.moves) or res.playouts != expected.playouts


@pytest.mark.parametrize(
    "budget,stopped",
    [({"max_playouts": 300}, "playouts"), ({"stop_score": 10}, "score")],
)
def test_a_budget_stops_early_with_the_best_complete_game(budget, stopped):
    state0 = leftmove.make_state(depth=40)
    full = parallel_search("leftmove", state0, seed=1, level=2, workers=0)
    res = parallel_search("leftmove", state0, seed=1, level=2, workers=0, **budget)
    assert res.stopped == stopped and res.playouts < full.playouts
    assert len(res.moves) == 40 and replayed_score(state0, res.moves) == res.score
    if "max_playouts" in budget:
        # It stops at the first finished child search past the budget.
        assert 300 <= res.playouts < 300 + 40 * 41
    else:
        assert res.score >= 10


def test_level_zero_is_refused():
    with pytest.raises(ValueError, match="level = 0: a parallel search needs level >= 1"):
        parallel_search("leftmove", leftmove.make_state(depth=5), seed=0, level=0)


class _TwoWorkers:
    def scheduler_info(self):
        return {"workers": {"a": {}, "b": {}}}


@pytest.mark.parametrize(
    "n, child_seconds, tasks",
    [
        (28, None, 8),  # first step: a few tasks per worker
        (28, 0.5, 28),  # long searches: one task per child, the best balance
        (112, 0.001, 2),  # 0.1 s of searching in all: one task per worker
        (112, 0.004, 8),  # 0.45 s: tasks of at least 0.05 s, a multiple of the workers
    ],
)
def test_tasks_follow_the_size_of_the_searches(n, child_seconds, tasks):
    from nmcs.search.executors import DaskExecutor

    assert DaskExecutor(_TwoWorkers()).tasks_per_step(n, child_seconds) == tasks


def _cells(folder):
    import pandas as pd

    rows = pd.concat(pd.read_parquet(p) for p in sorted(folder.glob("*/*/results.parquet")))
    return rows.sort_values(["cell", "search"]).reset_index(drop=True)


def test_a_run_py_sweep_on_dask_workers_gives_the_results_of_one_worker(tmp_path):
    """The issue's 'done when': a sweep on a LocalCluster of several workers, the same results
    as with one (and the parallel backend is a cell of its own, apart from the threads')."""
    from tests.helpers import run_python

    sweep = [
        "run.py",
        "-m",
        "game=morpion",
        "algo=beam",
        "level=2",
        "algo.beam=[1,1],[2,1]",
        "n_searches=2",
        "progress=false",
        "parallel.backend=dask",
    ]
    for workers in (1, 2):
        run_python(
            *sweep, f"parallel.workers={workers}", f"hydra.sweep.dir={tmp_path / str(workers)}"
        )
    one, two = _cells(tmp_path / "1"), _cells(tmp_path / "2")
    assert len(one) == 4 and set(one["parallel_backend"]) == {"dask"}
    for column in ("cell", "search", "score", "length", "playouts"):
        assert (one[column] == two[column]).all(), column
    assert all((a == b).all() for a, b in zip(one["moves"], two["moves"], strict=True))


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["parallel.backend=spark"], "parallel.backend = spark: must be one of none, dask"),
        (["parallel.backend=dask", "algo=uct", "budget.playouts=10"], "parallel.backend=dask"),
        (["parallel.backend=dask", "memorize=false"], "memorize=true"),
        (["parallel.address=tcp://127.0.0.1:9"], "parallel.address: only with parallel.backend"),
        (
            ["parallel.backend=dask", "parallel.address=tcp://127.0.0.1:9", "level=1"],
            "parallel.address = tcp://127.0.0.1:9: no Dask scheduler answers there",
        ),
    ],
)
def test_bad_parallel_settings_stop_with_one_line(tmp_path, overrides, message):
    from tests.helpers import run_python

    proc = run_python(
        "run.py",
        "n_searches=1",
        "progress=false",
        f"hydra.run.dir={tmp_path / 'cell'}",
        *overrides,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = [line for line in proc.stderr.strip().splitlines() if "distributed" not in line]
    assert message in lines[-1] and len(lines) == 1, proc.stderr[-2000:]
