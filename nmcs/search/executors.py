"""Where the remote searches of a parallel search run (``nmcs.search.master``).

- ``InProcess()``: one after the other in this process, each when the master asks for its
  result, so a budget stops the search between two of them;
- ``DaskExecutor(client)``: on the workers of a ``dask.distributed`` cluster: an embedded
  ``LocalCluster`` (``DaskExecutor.local(n_workers)``), a running scheduler
  (``DaskExecutor.connect("tcp://host:8786")``) or a dask-jobqueue cluster on SLURM
  (``DaskExecutor(Client(SLURMCluster(...)))``, see ``docs/beam.md``).

An executor has four methods: ``tasks_per_step(n, child_seconds)`` says into how many tasks
the master splits the n children of a step (``child_seconds``: the mean search time of a child
in the previous step, None at the first), ``submit(fn, *args)`` returns a handle,
``as_completed(handles)`` yields ``(index, result)`` pairs as results arrive (index: the
position in ``handles``), and ``cancel(handles)`` drops what has not run yet. How the
children are split changes nothing in the result: each child's search is seeded from its place
in the tree.
"""

import signal
from collections.abc import Callable, Iterator
from typing import Any, Protocol


class Executor(Protocol):
    def tasks_per_step(self, n_children: int, child_seconds: float | None) -> int: ...

    def submit(self, fn: Callable, *args: Any) -> Any: ...

    def as_completed(self, handles: list) -> Iterator[tuple[int, Any]]: ...

    def cancel(self, handles: list) -> None: ...


class InProcess:
    """Runs each task in this process when its result is asked for."""

    def tasks_per_step(self, n_children: int, child_seconds: float | None) -> int:
        return n_children  # one per child: a budget is checked after every search

    def submit(self, fn: Callable, *args: Any):
        return [fn, args, False]  # [function, arguments, cancelled]

    def as_completed(self, handles: list):
        for index, handle in enumerate(handles):
            fn, args, cancelled = handle
            if not cancelled:
                yield index, fn(*args)

    def cancel(self, handles: list) -> None:
        for handle in handles:
            handle[2] = True


class DaskExecutor:
    """Runs each task on a worker of a ``dask.distributed`` cluster."""

    # Tasks per worker at the first step: a few, so that a slow one is balanced by the others.
    TASKS_PER_WORKER = 4
    # Later steps: tasks as small as possible (the best balance at the step's end, where the
    # master waits for the last child) but not under this many seconds of searching, so that a
    # task's round trip (a few ms through the scheduler) stays small beside its work.
    MIN_TASK_SECONDS = 0.05

    def __init__(self, client):
        self.client = client

    def tasks_per_step(self, n_children: int, child_seconds: float | None) -> int:
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        if child_seconds is None:
            return min(n_children, self.TASKS_PER_WORKER * workers)
        # A multiple of the workers, so that equal tasks end together.
        rounds = int(n_children * child_seconds / (workers * self.MIN_TASK_SECONDS))
        return min(n_children, workers * max(1, rounds))

    @classmethod
    def local(cls, n_workers: int, **options: Any) -> "DaskExecutor":
        """An embedded cluster of ``n_workers`` single-threaded worker processes (``options``:
        more ``LocalCluster`` arguments).

        The workers never see SIGINT: a terminal's Ctrl-C reaches every process of its
        foreground group, and a worker stopped by it prints its tracebacks and breaks the
        others' connections; this process gets the KeyboardInterrupt and closes them
        (``close``). SIGINT is blocked while Dask starts its threads here, and stays blocked
        in them: they spawn the workers, which inherit the mask."""
        from dask.distributed import Client, LocalCluster

        options = {
            "n_workers": n_workers,
            "threads_per_worker": 1,
            "processes": True,
            "dashboard_address": None,
            # The scheduler's HTTP server (on even without the dashboard) on a free port: two
            # clusters at once never compete for 8787 (Dask warns and moves the second).
            "scheduler_kwargs": {"dashboard_address": "127.0.0.1:0"},
            **options,
        }
        blocking = hasattr(signal, "pthread_sigmask")
        if blocking:
            # The resource tracker unblocks SIGINT in the thread that first starts it (Python
            # 3.11): start it here, before the mask.
            from multiprocessing import resource_tracker

            resource_tracker.ensure_running()
            previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            return cls(Client(LocalCluster(**options)))
        finally:
            if blocking:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)

    @classmethod
    def connect(cls, address: str, timeout: float = 10.0) -> "DaskExecutor":
        """The workers of a running scheduler, e.g. ``tcp://host:8786``; OSError if none
        answers within ``timeout`` seconds."""
        from dask.distributed import Client

        return cls(Client(address, timeout=timeout))

    def submit(self, fn: Callable, *args: Any):
        # pure=False: two children with the same arguments are still two searches.
        return self.client.submit(fn, *args, pure=False)

    def as_completed(self, handles: list):
        from dask.distributed import as_completed

        index = {future.key: i for i, future in enumerate(handles)}
        for future in as_completed(handles):
            yield index[future.key], future.result()

    def cancel(self, handles: list) -> None:
        self.client.cancel([f for f in handles if not f.done()])

    def close(self) -> None:
        cluster = getattr(self.client, "cluster", None)
        self.client.close()
        if cluster is not None:
            cluster.close()
