"""A cell's independent searches on Dask workers (``parallel.backend=dask_searches``).

Where ``parallel.backend=dask`` spreads the children of one search over the workers (the
master/remote version, ``nmcs.harness.parallel``), this mode sends whole searches: each task runs
a few searches of the cell, from their own seeds, with the same compiled entry point as a
thread of ``parallel.backend=none``. So the rows are those of threads, seed for seed, on any
number of workers, and a worker killed mid-task changes nothing: Dask runs its task again
elsewhere, from the same seeds.

The cluster is the one of ``nmcs.harness.parallel.dask_session``: an embedded ``LocalCluster``
of ``parallel.workers`` processes (0: one per core), or the scheduler at ``parallel.address``
(a cluster started by hand, or by dask-jobqueue on Slurm; docs/records.md). The client compiles
the entry point before the workers start (the terminal says so), and the workers load it from
the on-disk numba cache: a new worker compiles nothing. On a cluster whose workers do not share
this machine's disk, each worker compiles once, on its first task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nmcs.harness.batch import BatchResult, run_batch

# Tasks per worker in a chunk: a few, so that a slow task is balanced by the others, and a
# killed worker's task is a small part of the chunk.
TASKS_PER_WORKER = 4


def remote_searches(
    game: str, algo: str, options: Any, settings: Any, state0: np.ndarray, seeds: np.ndarray
) -> BatchResult:
    """On a worker: the searches of ``seeds``, one after the other (one thread)."""
    from nmcs.games import registry as games  # noqa: PLC0415 - imported in the worker
    from nmcs.search import registry as algorithms  # noqa: PLC0415

    return run_batch(
        games.game(game), algorithms.algorithm(algo), options, settings, state0, seeds, 1
    )


def split(n: int, workers: int) -> list[slice]:
    """The tasks of a chunk of ``n`` searches on ``workers`` workers: contiguous slices of
    nearly equal size, at most ``TASKS_PER_WORKER`` per worker and at least one search each."""
    tasks = max(1, min(n, TASKS_PER_WORKER * max(1, workers)))
    bounds = np.linspace(0, n, tasks + 1).round().astype(int)
    return [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def concat(parts: list[BatchResult]) -> BatchResult:
    """One BatchResult of several, in order."""
    return BatchResult(
        seed=np.concatenate([p.seed for p in parts]),
        score=np.concatenate([p.score for p in parts]),
        length=np.concatenate([p.length for p in parts]),
        playouts=np.concatenate([p.playouts for p in parts]),
        playout_moves=np.concatenate([p.playout_moves for p in parts]),
        seconds=np.concatenate([p.seconds for p in parts]),
        cpu_seconds=np.concatenate([p.cpu_seconds for p in parts]),
        moves=[m for p in parts for m in p.moves],
        trace=[t for p in parts for t in p.trace],
    )


@dataclass
class DaskSearches:
    """Runs batches of a cell's searches on the workers of a Dask client; ``workers`` is the
    number of workers when the cluster started (the cell driver sizes its chunks by it)."""

    client: Any
    game: str
    algo: str
    options: Any
    settings: Any
    state0: np.ndarray
    workers: int

    def __call__(self, seeds: np.ndarray) -> BatchResult:
        # The position goes with each task (a few kB): a scattered copy shared by the tasks of
        # successive chunks could be released by one chunk while the next one needs it.
        futures = [
            self.client.submit(
                remote_searches,
                self.game,
                self.algo,
                self.options,
                self.settings,
                self.state0,
                seeds[part],
                pure=False,
            )
            for part in split(len(seeds), self.workers)
        ]
        try:
            return concat([f.result() for f in futures])  # in order, whatever ends first
        except BaseException:  # a Ctrl-C: drop what has not run
            self.client.cancel(futures)
            raise


@contextmanager
def searches_session(cell: Any, log: Path, warm_up: Callable[[], None]) -> Iterator[DaskSearches]:
    """The Dask runner of one cell's searches: compile here first (``warm_up``), then start
    (or connect to) the cluster; closed on exit, a Ctrl-C included."""
    from nmcs.harness.parallel import dask_session  # noqa: PLC0415 - Dask, on demand

    warm_up()
    parallel = cell.parallel
    with dask_session(parallel.workers, parallel.address, log) as executor:
        client = executor.client
        workers = max(1, len(client.scheduler_info().get("workers", {})))
        print(
            f"dask: the cell's searches on {workers} workers "
            f"({'scheduler ' + parallel.address if parallel.address else 'embedded cluster'})",
            flush=True,
        )
        yield DaskSearches(
            client=client,
            game=cell.game.name,
            algo=cell.algo.name,
            options=cell.options,
            settings=cell.settings,
            state0=cell.state0,
            workers=workers,
        )
