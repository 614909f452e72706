"""Ctrl-C that is never lost.

Python delivers SIGINT as a KeyboardInterrupt at the next bytecode, which may run inside a
ctypes callback: numba's compiler calls back into Python from LLVM (llvmlite's object cache),
and an exception raised there is printed as "Exception ignored" and dropped, so the run went on
as if no Ctrl-C had come. The handler below also records the interrupt; the loops that run
searches call ``check()`` before each chunk, which raises it again where it cannot be dropped.
"""

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_INTERRUPTED = threading.Event()


def _on_sigint(signum, frame):
    _INTERRUPTED.set()
    raise KeyboardInterrupt


def install() -> None:
    """Record every Ctrl-C (main thread only; a no-op where SIGINT is ignored, as in a
    background job of a non-interactive shell)."""
    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_sigint)


def check() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came, even one that was swallowed."""
    if _INTERRUPTED.is_set():
        raise KeyboardInterrupt


@contextmanager
def deferred() -> Iterator[None]:
    """A block that a Ctrl-C does not cut (main thread only): it is recorded, and ``check()``
    raises it later. For cleanup that must finish once a first Ctrl-C came, such as closing a
    Dask cluster (a second one would leave its processes to die with tracebacks)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGINT) if main else None
    if previous in (None, signal.SIG_IGN):
        yield
        return
    signal.signal(signal.SIGINT, lambda signum, frame: _INTERRUPTED.set())
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
