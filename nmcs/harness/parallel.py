"""Parallel searches on Dask: the remote process of Algorithm 4 (Cazenave 2012) and the Python
entry point that runs a master search with any executor.

    from nmcs.harness.parallel import parallel_search
    res = parallel_search("morpion", state0, seed=1, level=2, top_width=1,
                          lower_algo="nested", workers=4)      # root-parallel NMCS, 4 processes

The workers import ``nmcs`` and load its compiled engines from the on-disk numba cache, so a
task compiles nothing once the cache is warm (``parallel_search`` warms it in this process
before it starts the workers).
"""

from functools import partial

import numpy as np

from nmcs.games import game_module
from nmcs.harness.batch import search_batch
from nmcs.search.executors import DaskExecutor, InProcess
from nmcs.search.master import MasterResult, master_search


def remote_search(game: str, level: int, algo: str, options: dict, state, seed: int):
    """Algorithm 4: the lower-level search of one child position; returns its best game as
    (score, moves, playouts)."""
    res = search_batch(
        game, state, np.array([seed], np.uint64), algo=algo, level=level, workers=1, **options
    )
    return int(res.score[0]), res.moves[0], int(res.playouts[0])


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
    if level < 1:
        raise ValueError(f"level = {level}: a parallel search needs level >= 1")
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
