"""Parallel searches (nmcs.search.master on nmcs.search.executors): the same result in this
process and on 1 or 2 Dask worker processes; budgets stop the search with a complete game.
run.py on Dask: its log in the cell's folder, a Ctrl-C and an unreachable scheduler in one
line."""

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from nmcs.games import game_module
from nmcs.harness.parallel import parallel_search
from tests.helpers import REPO, terminal_lines

pytestmark = pytest.mark.dask

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


def test_a_master_search_counts_the_cpu_time_of_its_remote_searches(in_process):
    from nmcs.harness.parallel import dask_batch
    from nmcs.search.executors import InProcess

    state0, res = in_process
    assert 0 < res.remote_cpu_seconds <= res.seconds * 1.5 + 0.05
    # A row run in this process: the process's CPU time, which holds the remote searches
    # already (they are not counted twice).
    seeds = np.array([3], np.uint64)
    row = dask_batch("leftmove", state0, seeds, "nested", 2, True, 1, {}, InProcess())
    assert 0 < row.cpu_seconds[0] <= row.seconds[0] * 1.5 + 0.05


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
    with pytest.raises(
        ValueError, match="level = 0: a parallel search needs an integer from 1 to 6"
    ):
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
        "game.depth=12",  # the left move: a quick compile (Morpion's beam compiles for 25 s)
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
    # the master's process and the workers' threads: CPU time of its own, never a copy of wall
    assert (two["cpu_seconds"] > 0).all() and not two["cpu_seconds"].equals(two["seconds"])
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
    from tests.helpers import preflight_error

    out = tmp_path / "cell"
    lines = preflight_error("n_searches=1", "progress=false", f"hydra.run.dir={out}", *overrides)
    assert message in lines[-1] and len(lines) == 1, lines
    assert not out.exists()


# A quick Dask cell: level 2 on a depth-20 binary tree, a few searches.
QUICK_DASK = ["game.depth=20", "level=2", "progress=false", "parallel.backend=dask"]


def test_dask_logs_to_the_cell_folder_not_the_terminal(tmp_path):
    """The scheduler's, nannies' and workers' INFO lines go to <cell>/dask.log."""
    from tests.helpers import run_python

    cell = tmp_path / "cell"
    proc = run_python(
        "run.py", *QUICK_DASK, "n_searches=2", "parallel.workers=1", f"hydra.run.dir={cell}"
    )
    assert "distributed" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert proc.stderr == "", proc.stderr
    log = (cell / "dask.log").read_text()
    assert "INFO distributed.scheduler:" in log and "INFO distributed.nanny:" in log, log
    assert "distributed" not in (cell / "run.log").read_text()
    assert (cell / "results.parquet").exists()


def _live_processes(group: int) -> list[str]:
    """The processes of a process group that still run (a zombie waits for a parent that has
    gone; it runs nothing)."""
    ps = subprocess.run(["ps", "-eo", "pgid=,stat=,args="], capture_output=True, text=True)
    return [
        line
        for line in ps.stdout.splitlines()
        if line.split()[0] == str(group) and not line.split()[1].startswith("Z")
    ]


def test_ctrl_c_on_dask_prints_one_line_and_stops_the_workers(tmp_path):
    """A terminal's Ctrl-C reaches the whole foreground process group, Dask's workers and
    nannies included: one line, exit status 130, no traceback, no process left."""
    cell = tmp_path / "cell"
    proc = subprocess.Popen(
        [
            sys.executable,
            "run.py",
            *QUICK_DASK,
            "n_searches=100000",
            "chunk_seconds=0.05",
            "parallel.workers=2",
            f"hydra.run.dir={cell}",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        # A child inherits an ignored SIGINT (a test suite in the background of a shell).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 300
    while not list((cell / "chunks").glob("*.parquet")) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # children's searches in flight on the workers
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    lines = terminal_lines(err)
    assert len(lines) == 1 and lines[0].startswith("run.py: interrupted: "), err
    assert "Traceback" not in out and "distributed" not in out, out
    saved = int(lines[0].split("interrupted: ")[1].split()[0])
    # The terminal shows one line; Dask's own log file may record a connection it saw closed
    # while the cluster shut down under load (a traceback from distributed's batched send).
    assert saved > 0 and (cell / "dask.log").exists()
    time.sleep(1)
    assert not _live_processes(proc.pid)


def _refusal(tmp_path, port: socket.socket) -> tuple[str, float]:
    """run.py's error line for a Dask cell whose parallel.address is ``port``, and how long
    the command took; it must exit with status 2 and make no folder."""
    from tests.helpers import run_python

    address = f"tcp://127.0.0.1:{port.getsockname()[1]}"
    started = time.perf_counter()
    proc = run_python(
        "run.py",
        *QUICK_DASK,
        "n_searches=1",
        f"parallel.address={address}",
        f"hydra.run.dir={tmp_path / 'cell'}",
        check=False,
    )
    seconds = time.perf_counter() - started
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and proc.stdout == "", proc.stdout + proc.stderr
    assert lines[0].startswith(f"run.py: error: parallel.address = {address}: "), lines[0]
    assert lines[0].endswith(
        "expected the address of a running Dask scheduler, e.g. tcp://host:8786"
    )
    assert not tmp_path.joinpath("cell").exists()  # the analysis would see an unfinished cell
    return lines[0], seconds


def test_an_unreachable_scheduler_is_refused_within_seconds(tmp_path):
    """No scheduler at parallel.address: one line naming it, exit status 2, no folder, within
    5 s: at once where nothing listens, after ANSWER_SECONDS where nothing answers (on a
    machine so busy that starting run.py takes most of the 5 s, that much after the first)."""
    from nmcs.harness.parallel import ANSWER_SECONDS

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, so that nothing else listens there
        line, refused = _refusal(tmp_path, closed)
    assert "connection refused: nothing listens on port" in line
    assert refused < 5, refused
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)  # connections complete, and nothing is ever said
        line, unanswered = _refusal(tmp_path, silent)
    assert f"no answer within {ANSWER_SECONDS:g} s" in line
    assert unanswered < max(5, refused + ANSWER_SECONDS + 1), (refused, unanswered)


def test_check_scheduler_wants_a_scheduler():
    """A scheduler passes; a worker's address, or something that does not speak Dask, not."""
    import threading

    from distributed import LocalCluster

    from nmcs.harness.parallel import check_scheduler
    from nmcs.harness.validate import ConfigError

    with LocalCluster(
        n_workers=1, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=":0"
    ) as cluster:
        check_scheduler(cluster.scheduler_address)
        [worker] = cluster.scheduler_info["workers"]
        with pytest.raises(ConfigError, match="a Dask Worker answers there, not a scheduler"):
            check_scheduler(worker)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)

        def banner():
            conn, _ = server.accept()
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH\r\n")
                time.sleep(1)

        threading.Thread(target=banner, daemon=True).start()
        address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
        with pytest.raises(ConfigError, match="does not speak Dask"):
            check_scheduler(address)
    with pytest.raises(ConfigError, match="parallel.address = foo: not a scheduler address"):
        check_scheduler("foo")


def test_a_ctrl_c_in_a_deferred_block_is_raised_after_it():
    """interrupt.deferred: closing a cluster is not cut by a second Ctrl-C."""
    from nmcs.harness import interrupt

    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with interrupt.deferred():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.1)  # no KeyboardInterrupt here
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
    finally:
        interrupt._INTERRUPTED.clear()
        signal.signal(signal.SIGINT, previous)


def test_dask_log_records_go_to_the_file_and_warnings_also_to_the_terminal(tmp_path, capsys):
    import logging

    from nmcs.harness.parallel import _dask_log

    scheduler = logging.getLogger("distributed.scheduler")
    before = (scheduler.handlers[:], scheduler.propagate)
    log = tmp_path / "dask.log"
    with _dask_log(log) as terminal:
        scheduler.info("State start")
        scheduler.warning("Worker is at 96% memory usage.\nRestarting")
        terminal.setLevel(logging.CRITICAL + 1)  # closing: the file only
        scheduler.warning("Cluster closed")
    text = log.read_text()
    assert "INFO distributed.scheduler: State start" in text and "Cluster closed" in text
    assert capsys.readouterr().err == (
        f"run.py: dask warning: Worker is at 96% memory usage. (more in {log})\n"
    )
    assert (scheduler.handlers, scheduler.propagate) == before


def test_dask_says_nothing_on_the_terminal_once_a_stop_signal_came(tmp_path, capsys):
    """Cancelling Dask's futures on a Ctrl-C or SIGTERM can make Dask log an error (a callback
    that meets a future cut before it was set); the terminal keeps the stop's one line, the
    log file keeps the record."""
    import logging

    from nmcs.harness import interrupt
    from nmcs.harness.parallel import _dask_log

    log = tmp_path / "dask.log"
    try:
        with _dask_log(log):
            interrupt._INTERRUPTED.set()
            logging.getLogger("tornado.application").error("Exception in callback cancel")
    finally:
        interrupt._INTERRUPTED.clear()
    assert capsys.readouterr().err == ""
    assert "ERROR tornado.application: Exception in callback cancel" in log.read_text()
