"""Parallel searches on Dask: the remote process of Algorithm 4 (Cazenave 2012) and the Python
entry point that runs a master search with any executor.

    from nmcs.harness.parallel import parallel_search
    res = parallel_search("morpion", state0, seed=1, level=2, top_width=1,
                          lower_algo="nested", workers=4)      # root-parallel NMCS, 4 processes

``run.py ... parallel.backend=dask`` runs a cell's searches this way, one after the other
(``dask_batch``): ``algo=nested`` (with memorization) is a top-level beam of width 1 over
lower nested searches, ``algo=beam`` a top-level beam of ``s_L`` over lower beams of widths
``s_1 .. s_L-1`` (``dask_plan``). One cluster serves every search of the process.

The workers import ``nmcs`` and load its compiled engines from the on-disk numba cache, so a
task compiles nothing once the cache is warm (``parallel_search`` warms it in this process
before it starts the workers).
"""

import atexit
import os
import time
from functools import partial

import numpy as np

from nmcs.core.errors import ConfigError
from nmcs.games import game_module
from nmcs.harness.batch import BatchResult, search_batch
from nmcs.search.executors import DaskExecutor, InProcess
from nmcs.search.master import MasterResult, master_search


def remote_search(game: str, level: int, algo: str, options: dict, state, seed: int):
    """Algorithm 4: the lower-level search of one child position; returns its best game as
    (score, moves, playouts, playout_moves)."""
    res = search_batch(
        game, state, np.array([seed], np.uint64), algo=algo, level=level, workers=1, **options
    )
    return int(res.score[0]), res.moves[0], int(res.playouts[0]), int(res.playout_moves[0])


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
    options = {"memorize": True} if lower_algo == "nested" else {}
    options.update(lower_options or {})
    lower = partial(remote_search, game, level - 1, lower_algo, options)
    # Compile (or load) the engine here first, so that workers find it in the cache.
    remote_search(game, 0, lower_algo, options, state0, 0)
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


def dask_plan(algo: str, level: int, memorize: bool, memorize_from: int, options: dict) -> tuple:
    """``(top_width, lower_algo, lower_options)`` of a cell run with ``parallel.backend=dask``;
    ValueError (one line naming the key) for a search the master/remote version cannot run."""
    if level < 1:
        raise ValueError(f"level = {level}: parallel.backend=dask needs level >= 1")
    if algo == "nested":
        if not memorize or memorize_from != 1:
            raise ValueError(
                "parallel.backend=dask runs algo=nested with memorize=true and memorize_from=1 "
                "(its top level is a beam of width 1, which memorizes)"
            )
        return 1, "nested", {"memorize": True}
    if algo == "beam":
        from nmcs.search.beam import beam_widths  # noqa: PLC0415 - search module, on demand

        widths = beam_widths(level, options.get("beam", 1))[:level]
        if level == 1:
            return widths[0], "nested", {}  # the children's searches are playouts
        return widths[-1], "beam", {"beam": widths[:-1]}
    raise ValueError(
        f"parallel.backend=dask: algo={algo} has no master/remote version (allowed: nested, beam)"
    )


_EXECUTORS: dict = {}


def _executor(workers: int, address: str | None):
    """One Dask executor per (workers, address) and process, closed at exit."""
    key = (workers, address)
    if key not in _EXECUTORS:
        if address is not None:
            try:
                executor = DaskExecutor.connect(address)
            except OSError as error:
                raise ConfigError(
                    f"parallel.address = {address}: no Dask scheduler answers there "
                    f"({type(error).__name__})"
                ) from None
        else:
            executor = DaskExecutor.local(workers or os.cpu_count() or 1)
        _EXECUTORS[key] = executor
        atexit.register(executor.close)
    return _EXECUTORS[key]


def dask_batch(
    game: str,
    state0: np.ndarray,
    seeds: np.ndarray,
    algo: str,
    level: int,
    memorize: bool,
    memorize_from: int,
    options: dict,
    workers: int = 0,
    address: str | None = None,
) -> BatchResult:
    """The searches of ``seeds``, one after the other, each spread over Dask workers (the
    master here); the same results whatever ``workers`` and ``address``."""
    top_width, lower_algo, lower_options = dask_plan(algo, level, memorize, memorize_from, options)
    lower = partial(remote_search, game, level - 1, lower_algo, lower_options)
    remote_search(game, 0, lower_algo, lower_options, state0, 0)  # warm the cache here first
    executor = _executor(workers, address)
    kernels = game_module(game)
    found = []
    for seed in seeds:
        started = time.perf_counter()
        res = master_search(kernels, state0, int(seed), top_width, lower, executor)
        found.append((res, time.perf_counter() - started))
    return BatchResult(
        seed=np.asarray(seeds, np.uint64),
        score=np.array([r.score for r, _ in found], np.int64),
        length=np.array([len(r.moves) for r, _ in found], np.int64),
        playouts=np.array([r.playouts for r, _ in found], np.int64),
        playout_moves=np.array([r.playout_moves for r, _ in found], np.int64),
        seconds=np.array([t for _, t in found], np.float64),
        moves=[np.asarray(r.moves, np.int32) for r, _ in found],
        trace=[np.zeros((0, 3)) for _ in found],
    )
