"""Parallel searches on Dask: the remote process of Algorithm 4 (Cazenave 2012) and the Python
entry point that runs a master search with any executor.

    from nmcs.harness.parallel import parallel_search
    res = parallel_search("morpion", state0, seed=1, level=2, top_width=1,
                          lower_algo="nested", workers=4)      # root-parallel NMCS, 4 processes

``run.py ... parallel.backend=dask`` runs a cell's searches this way, one after the other
(``dask_batch``): ``algo=nested`` (with memorization) is a top-level beam of width 1 over
lower nested searches, ``algo=beam`` a top-level beam of ``s_L`` over lower beams of widths
``s_1 .. s_L-1`` (each algorithm record's ``dask_plan``). One cluster serves every search of a cell
(``dask_session``), which also sends Dask's log to ``<cell>/dask.log``; ``check_scheduler``
refuses an address where no scheduler answers before any folder is made.

The workers import ``nmcs`` and load its compiled engines from the on-disk numba cache, so a
task compiles nothing once the cache is warm (``parallel_search`` warms it in this process
before it starts the workers).
"""

import asyncio
import logging
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from nmcs.core.errors import ConfigError
from nmcs.games import game_module
from nmcs.harness import interrupt
from nmcs.harness.batch import BatchResult, algo_config, checked_call, run_batch, search_batch
from nmcs.search.executors import DaskExecutor, InProcess
from nmcs.search.master import MasterResult, master_search
from nmcs.search.nrpa import uses_bias
from nmcs.search.nrpa_master import nrpa_master_search
from nmcs.search.registry import DaskPlan, Settings, algorithm, names


def remote_search(game: str, level: int, algo: str, options: dict, state, seed: int):
    """Algorithm 4: the lower-level search of one child position; returns its best game as
    (score, moves, playouts, playout_moves, cpu_seconds), ``cpu_seconds`` the CPU time of the
    thread that ran this function (``time.thread_time``: the search and the work around it)."""
    started = time.thread_time()
    res = search_batch(
        game, state, np.array([seed], np.uint64), algo=algo, level=level, workers=1, **options
    )
    return _found(res, started)


def _found(res: BatchResult, started: float) -> tuple:
    """A remote search's answer: its best game, its counts and its thread's CPU seconds since
    ``started`` (``time.thread_time``)."""
    return (
        int(res.score[0]),
        res.moves[0],
        int(res.playouts[0]),
        int(res.playout_moves[0]),
        time.thread_time() - started,
    )


def remote_nrpa(
    game: str, level: int, algo: str, options: dict, state, seed: int, codes, weights
) -> tuple:
    """The remote level-``level`` NRPA (or GNRPA) search of a distributed NRPA
    (``nmcs.search.nrpa_master``), from the policy of the pairs (``codes``, ``weights``);
    returns its best game as (score, moves, playouts, playout_moves, cpu_seconds), as
    ``remote_search``."""
    started = time.thread_time()
    record, config, settings, game_record_ = checked_call(
        game,
        algo,
        level=level,
        memorize=True,
        memorize_from=1,
        stop_at_target=True,
        max_seconds=0.0,
        max_playouts=0,
        options=options,
    )
    params: Any = record.params(config, settings, game_record_.kernels, state)  # NrpaParams
    params = params._replace(
        policy_codes=np.asarray(codes, np.int64), policy_weights=np.asarray(weights, np.float64)
    )
    seeds = np.array([seed], np.uint64)
    res = run_batch(game_record_, record, config, settings, state, seeds, 1, params=params)
    return _found(res, started)


def parallel_search(
    game: str,
    state0: np.ndarray,
    seed: int,
    level: int,
    top_width: int = 1,
    lower_algo: str = "nested",
    lower_options: dict | None = None,
    workers: int = 0,
    address: str | None = None,
    max_seconds: float = 0.0,
    max_playouts: int = 0,
    stop_score: int | None = None,
) -> MasterResult:
    """A level-``level`` search whose top level runs here (a beam of ``top_width``; 1 = NMCS)
    and whose level-(``level`` - 1) searches run on ``workers`` Dask worker processes (0: in
    this process, one after the other), or on the cluster of the scheduler at ``address``.
    The result does not depend on ``workers`` or ``address``."""
    if isinstance(level, bool) or not isinstance(level, int | np.integer) or not 1 <= level <= 6:
        raise ConfigError(f"level = {level!r}: a parallel search needs an integer from 1 to 6")
    options = dict(lower_options or {})  # search_batch's defaults (memorized NMCS) otherwise
    lower = partial(remote_search, game, level - 1, lower_algo, options)
    # Compile (or load) the engine here first, so that workers find it in the cache.
    search_batch(
        game, state0, np.zeros(0, np.uint64), algo=lower_algo, level=level - 1, workers=1,
        **options,
    )  # fmt: skip
    executor: DaskExecutor | InProcess
    if address is not None:
        executor = DaskExecutor.connect(address)
    elif workers > 0:
        executor = DaskExecutor.local(workers)
    else:
        executor = InProcess()
    try:
        return master_search(
            game_module(game),
            state0,
            seed,
            top_width,
            lower,
            executor,
            max_seconds=max_seconds,
            max_playouts=max_playouts,
            stop_score=stop_score,
        )
    finally:
        if isinstance(executor, DaskExecutor) and address is None:
            executor.close()


def dask_plan(algo: str, level: int, memorize: bool, memorize_from: int, options: dict) -> DaskPlan:
    """How a cell run with ``parallel.backend=dask`` runs each search: the algorithm record's
    ``dask_plan`` (``nmcs.search.registry.DaskPlan``), its lower algorithm named; ValueError
    (one line naming the key) for a search the master/remote version cannot run."""
    if level < 1:
        raise ValueError(f"level = {level}: parallel.backend=dask needs level >= 1")
    record = algorithm(algo)
    if record.dask_plan is None:
        able = [name for name in names() if algorithm(name).dask_plan is not None]
        raise ValueError(
            f"parallel.backend=dask: algo={algo} has no master/remote version "
            f"(allowed: {', '.join(able)})"
        )
    settings = Settings(level=level, memorize=memorize, memorize_from=memorize_from)
    plan = record.dask_plan(options, settings)
    return plan._replace(lower_algo=plan.lower_algo or algo)  # None: the same algorithm


# A scheduler must accept a connection and speak within this many seconds (then answer
# Dask's identity request within as many).
ANSWER_SECONDS = 2.0
EXPECTED_ADDRESS = "expected the address of a running Dask scheduler, e.g. tcp://host:8786"


def check_scheduler(address: str, seconds: float = ANSWER_SECONDS) -> None:
    """ConfigError (one line naming the address) unless a Dask scheduler answers at
    ``address`` within ``seconds``: a closed port is refused at once, a host or a port that
    does not answer after ``seconds``. ``run.py`` checks before any folder is made.

    A plain socket first (a Dask server speaks first on a new connection; no import of
    ``distributed`` for an address that is wrong), then Dask's ``identity`` request: a
    scheduler, not a worker."""

    def refuse(why: str) -> ConfigError:
        return ConfigError(f"parallel.address = {address}: {why}; {EXPECTED_ADDRESS}")

    deadline = time.monotonic() + seconds
    scheme = address.split("://", 1)[0] if "://" in address else "tcp"
    try:
        parts = urlsplit(address if "://" in address else f"tcp://{address}")
        host, port = parts.hostname, parts.port
    except ValueError:
        host = port = None
    if scheme not in ("tcp", "tls") or not host or port is None:
        raise refuse("not a scheduler address")
    silent = f"no Dask scheduler answers there (no answer within {seconds:g} s)"
    try:
        with socket.create_connection((host, port), timeout=seconds) as probe:
            if scheme == "tcp":  # over TLS the client speaks first
                probe.settimeout(max(deadline - time.monotonic(), 0.01))
                if not probe.recv(1):
                    raise refuse("no Dask scheduler answers there (it closed the connection)")
    except socket.gaierror:
        raise refuse(f"no Dask scheduler answers there (unknown host {host})") from None
    except ConnectionRefusedError:
        raise refuse(
            f"no Dask scheduler answers there (connection refused: nothing listens on port {port})"
        ) from None
    except TimeoutError:
        raise refuse(silent) from None
    except OSError as error:
        raise refuse(f"no Dask scheduler answers there ({error.strerror or error})") from None
    if scheme == "tls":
        return  # the handshake needs the cluster's certificates: the job connects with them
    try:
        # The server spoke: the handshake has its own ``seconds`` (importing distributed
        # takes some).
        identity = asyncio.run(_identity(address, seconds))
    except (TimeoutError, OSError, ValueError, TypeError, KeyError):
        raise refuse("no Dask scheduler answers there (what answers does not speak Dask)") from None
    kind = identity.get("type") if isinstance(identity, dict) else None
    if kind != "Scheduler":
        raise refuse(f"a Dask {kind or 'server'} answers there, not a scheduler")


async def _identity(address: str, seconds: float) -> dict:
    """The ``identity`` of the Dask server at ``address`` (its ``type``: Scheduler, Worker,
    Nanny)."""
    from distributed.comm import connect

    async def ask() -> dict:
        comm = await connect(address, timeout=seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(ask(), seconds)


# The worker processes of an embedded cluster send their stderr to this file (``dask_setup``).
WORKER_LOG = "NMCS_DASK_WORKER_LOG"
_DASK_LOGGERS = ("distributed", "tornado")


def dask_setup(worker) -> None:
    """Dask preload of the embedded cluster's workers (``preload=["nmcs.harness.parallel"]``),
    run in each worker process as it starts: what the process writes on stderr (Dask's log,
    tracebacks) goes to the cell's log file named by ``$NMCS_DASK_WORKER_LOG``, not to the
    terminal."""
    path = os.environ.get(WORKER_LOG)
    if path:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        os.dup2(fd, 2)
        os.close(fd)


class _ToFile(logging.Handler):
    """Records appended to a file. Not a ``logging.StreamHandler``: ``LocalCluster`` raises
    every StreamHandler of ``distributed`` to WARNING for as long as it runs."""

    def __init__(self, path: Path):
        super().__init__()
        self.file = open(path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        self.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.file.write(self.format(record) + "\n")
            self.file.flush()
        except Exception:  # noqa: BLE001 - logging must not raise
            self.handleError(record)

    def close(self) -> None:
        self.file.close()
        super().close()


class _OneLine(logging.Handler):
    """A Dask warning on the terminal: its first line, and where the rest is (not a
    StreamHandler either). Silent once a Ctrl-C or SIGTERM came: what Dask says while the
    stop cancels its futures (a callback that fails on a future cut before it was set, closed
    streams) is the stop's noise, and the terminal gets the stop's one line only."""

    def __init__(self, log: Path):
        super().__init__(logging.WARNING)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        if interrupt.requested():
            return
        first = (record.getMessage().strip().splitlines() or [""])[0]
        try:
            print(
                f"run.py: dask {record.levelname.lower()}: {first} (more in {self.log})",
                file=sys.stderr,
                flush=True,
            )
        except Exception:  # noqa: BLE001 - logging must not raise
            self.handleError(record)


@contextmanager
def _dask_log(log: Path) -> Iterator[logging.Handler]:
    """Dask's log records of this process (scheduler, nanny, client, tornado) to ``log``, not
    to the terminal or the run's log; those of WARNING and above also to the terminal as one
    line, through the handler yielded (its level raised silences it)."""
    import distributed  # noqa: F401, PLC0415 - its import sets its loggers up: override them after

    file = _ToFile(log)
    terminal = _OneLine(log)
    manager = logging.Logger.manager
    names = [
        name
        for name in list(manager.loggerDict)
        if any(name == root or name.startswith(root + ".") for root in _DASK_LOGGERS)
    ]
    saved = []
    for name in dict.fromkeys([*_DASK_LOGGERS, *names]):
        logger = logging.getLogger(name)
        saved.append((logger, logger.handlers[:], logger.propagate))
        # The two roots write; every logger under them passes its records up to them (Dask
        # gives some their own terminal handler when it is imported before logging is set).
        top = name in _DASK_LOGGERS
        logger.handlers = [file, terminal] if top else []
        logger.propagate = not top
    try:
        yield terminal
    finally:
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate
        file.close()


@contextmanager
def dask_session(workers: int, address: str | None, log: Path) -> Iterator[DaskExecutor]:
    """The Dask executor of one cell: an embedded ``LocalCluster`` of ``workers`` processes (0:
    one per core) or the cluster of the scheduler at ``address``, closed (disconnected) on
    exit, a Ctrl-C included, without a word on the terminal.

    Dask's log goes to ``log`` (the embedded workers' stderr too); a warning reaches the
    terminal as one line while the cell runs. A Ctrl-C while the cluster starts or closes
    waits for that to end (``interrupt.deferred``): a cluster cut halfway would be closed at
    exit, with tracebacks."""
    with _dask_log(log) as terminal:
        with interrupt.deferred():
            executor = _start(workers, address, log)
        try:
            interrupt.check()  # a Ctrl-C while it started
            yield executor
        finally:
            terminal.setLevel(logging.CRITICAL + 1)  # closing talks: the log file only
            with interrupt.deferred():
                try:
                    executor.close()
                except Exception:  # noqa: BLE001 - a failed close loses nothing saved
                    logging.getLogger("distributed").exception("closing the Dask cluster")


def _start(workers: int, address: str | None, log: Path) -> DaskExecutor:
    if address is not None:
        try:
            return DaskExecutor.connect(address)
        except OSError as error:
            raise ConfigError(
                f"parallel.address = {address}: no Dask scheduler answers there "
                f"({type(error).__name__}); {EXPECTED_ADDRESS}"
            ) from None
    return DaskExecutor.local(
        workers or os.cpu_count() or 1,
        preload=["nmcs.harness.parallel"],  # dask_setup: the workers' stderr to the log
        env={WORKER_LOG: str(Path(log).resolve())},
    )


def dask_batch(
    game: str,
    state0: np.ndarray,
    seeds: np.ndarray,
    algo: str,
    level: int,
    memorize: bool,
    memorize_from: int,
    options: dict,
    executor: DaskExecutor | InProcess,
) -> BatchResult:
    """The searches of ``seeds``, one after the other, each spread over the workers of
    ``executor`` (the master here; ``dask_session``); the same results whatever the
    executor.

    A search's ``seconds`` is the master's wall time; its ``cpu_seconds`` is the CPU time of
    this process while the search ran (``time.process_time``: the top level, the Dask client
    and an embedded cluster's scheduler) plus the CPU time of the thread of each remote
    search on its worker (``time.thread_time``, reported with its result). The workers' own
    Dask traffic (receiving tasks, sending results) is not counted. With the ``InProcess``
    executor the remote searches run in this process, and its CPU time holds them already."""
    plan = dask_plan(algo, level, memorize, memorize_from, options)
    top_width, lower_algo, lower_options = (
        plan.top_width,
        plan.lower_algo or algo,
        plan.lower_options,
    )
    kernels = game_module(game)
    master: Callable
    if plan.master == "nrpa":
        lower = partial(remote_nrpa, game, level - 1, lower_algo, lower_options)
        lower(state0, 0, np.zeros(0, np.int64), np.zeros(0))  # warm the cache here first
        target = getattr(kernels, "target_score", None)
        config = algo_config(algorithm(algo), options)  # the YAML defaults of omitted options
        master = partial(
            nrpa_master_search,
            iterations=int(config.iterations),
            alpha=float(config.alpha),
            tau=float(getattr(config, "tau", 1.0)),  # NRPA has no temperature: 1
            batch=top_width,
            lower=lower,
            executor=executor,
            use_bias=uses_bias(config),
            stop_score=None if target is None else int(target(state0)),
        )
    else:
        lower = partial(remote_search, game, level - 1, lower_algo, lower_options)
        # Compile (or load) the workers' entry point here first, running nothing: the workers
        # then load it from the cache instead of each compiling it at once.
        search_batch(
            game, state0, np.zeros(0, np.uint64), algo=lower_algo, level=level - 1, workers=1,
            **lower_options,
        )  # fmt: skip
        master = partial(master_search, top_width=top_width, lower=lower, executor=executor)
    remote = not isinstance(executor, InProcess)  # else the process's CPU time holds them
    found = []
    for seed in seeds:
        interrupt.check()  # a Ctrl-C that the compiler swallowed while warming up
        started, cpu_started = time.perf_counter(), time.process_time()
        res = master(kernels, state0, int(seed))
        cpu = time.process_time() - cpu_started + (res.remote_cpu_seconds if remote else 0.0)
        found.append((res, time.perf_counter() - started, cpu))
    return BatchResult(
        seed=np.asarray(seeds, np.uint64),
        score=np.array([r.score for r, _, _ in found], np.int64),
        length=np.array([len(r.moves) for r, _, _ in found], np.int64),
        playouts=np.array([r.playouts for r, _, _ in found], np.int64),
        playout_moves=np.array([r.playout_moves for r, _, _ in found], np.int64),
        seconds=np.array([t for _, t, _ in found], np.float64),
        cpu_seconds=np.array([c for _, _, c in found], np.float64),
        moves=[np.asarray(r.moves, np.int32) for r, _, _ in found],
        trace=[np.zeros((0, 3)) for _ in found],
    )
