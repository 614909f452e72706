"""Where first runs spend their time: every numba compilation, one line each, in the file named
by ``NMCS_COMPILE_LOG`` (set it before Python starts; the processes a run starts, ``run.py``
commands and Dask workers, inherit it and append to the same file).

A line holds, tab-separated: the process id, the start (Unix seconds), the CPU seconds of the
compilation (process time: with the functions numba compiled inside it), the compiled
function (module and name: an entry point's module names its game, algorithm and levels) and
the running test (``PYTEST_CURRENT_TEST``, ``-`` outside pytest). Only outermost compilations
are logged, so the CPU seconds add up. ``python benchmarks/test_time.py --summarize <log>``
sums them (in all, per test file, and the functions compiled more than once). Nothing is installed
without the variable.
"""

import os
import threading
import time

from numba.core import event

ENV = "NMCS_COMPILE_LOG"


class CompileLog(event.Listener):
    """Appends a line to ``path`` at the end of every outermost numba compilation."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()  # each thread's stack of compilations in progress

    def _stack(self) -> list:
        if not hasattr(self._local, "stack"):
            self._local.stack = []
        return self._local.stack

    def on_start(self, ev: event.Event) -> None:
        self._stack().append((time.process_time(), time.time()))

    def on_end(self, ev: event.Event) -> None:
        stack = self._stack()
        if not stack:
            return
        cpu0, wall0 = stack.pop()
        if stack:
            return  # compiled inside another compilation: counted in it
        func = ev.data["dispatcher"].py_func
        test = os.environ.get("PYTEST_CURRENT_TEST", "-").split(" ")[0]
        line = (
            f"{os.getpid()}\t{wall0:.2f}\t{time.process_time() - cpu0:.2f}\t"
            f"{func.__module__}.{func.__qualname__}\t{test}\n"
        )
        with open(self.path, "a") as out:  # one short write: lines of processes do not mix
            out.write(line)


_INSTALLED: list[CompileLog] = []


def install() -> None:
    """Log numba's compilations to ``$NMCS_COMPILE_LOG``, if set (once per process)."""
    path = os.environ.get(ENV)
    if path and not _INSTALLED:
        _INSTALLED.append(CompileLog(path))
        event.register("numba:compile", _INSTALLED[0])
