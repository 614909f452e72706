"""Ctrl-C and SIGTERM that are never lost.

Python delivers SIGINT as a KeyboardInterrupt at the next bytecode, which may run where it
cannot be raised: inside a ctypes callback (numba's compiler calls back into Python from LLVM,
llvmlite's object cache) or a finalizer the garbage collector runs (a Dask ``Future.__del__``).
Python hands such an exception to ``sys.unraisablehook``, which prints it as "Exception
ignored" with a traceback, and drops it, so the run went on as if no Ctrl-C had come. The
handler below also records the interrupt; the loops that run searches call ``check()`` before
each chunk, which raises it again where it cannot be dropped; and ``install()`` keeps the
dropped one off the terminal.

SIGTERM (what Slurm, Kubernetes and ``kill`` send before killing) is handled the same way: the
cell stops at the end of the chunk in flight, its saved chunks are kept, and the process exits
with status 143 (128 + the signal) instead of 130.
"""

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_INTERRUPTED = threading.Event()
_SIGNAL = [signal.SIGINT]  # the last signal that stopped the run
_NAMES = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated (SIGTERM)"}
_PREVIOUS_HOOK = [sys.unraisablehook]  # the hook ``install()`` passes other exceptions on to


def _on_signal(signum, frame):
    _SIGNAL[0] = signal.Signals(signum)
    _INTERRUPTED.set()
    raise KeyboardInterrupt


def _quiet_unraisable(unraisable) -> None:
    """Drop the KeyboardInterrupt of a recorded signal that Python could not raise (it came in
    a finalizer or a callback); pass every other unraisable exception on."""
    if unraisable.exc_type is KeyboardInterrupt and _INTERRUPTED.is_set():
        return
    _PREVIOUS_HOOK[0](unraisable)


def install() -> None:
    """Record every Ctrl-C and SIGTERM (main thread only; a no-op for a signal that is ignored
    or already handled, as SIGINT in a background job of a non-interactive shell)."""
    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _on_signal)
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _on_signal)
        if sys.unraisablehook is not _quiet_unraisable:
            _PREVIOUS_HOOK[0] = sys.unraisablehook
            sys.unraisablehook = _quiet_unraisable


def check() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C (or SIGTERM) came, even one that was swallowed."""
    if _INTERRUPTED.is_set():
        raise KeyboardInterrupt


def requested() -> bool:
    """Whether a Ctrl-C (or SIGTERM) came, without raising it."""
    return _INTERRUPTED.is_set()


def name() -> str:
    """What stopped the run, for its message: ``interrupted`` or ``terminated (SIGTERM)``."""
    return _NAMES.get(_SIGNAL[0], "interrupted")


def exit_status() -> int:
    """The exit status of a run stopped by a signal: 128 + the signal (130 for Ctrl-C, 143 for
    SIGTERM), as a shell reports a process the signal killed."""
    return 128 + int(_SIGNAL[0])


@contextmanager
def deferred() -> Iterator[None]:
    """A block that a Ctrl-C or SIGTERM does not cut (main thread only): it is recorded, and
    ``check()`` raises it later. For cleanup that must finish once a first signal came, such
    as closing a Dask cluster (a second one would leave its processes to die with
    tracebacks)."""
    main = threading.current_thread() is threading.main_thread()
    if not main:
        yield
        return
    saved = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(signum)
        # An ignored signal stays ignored; a SIGTERM left to its default still kills.
        if previous in (None, signal.SIG_IGN) or (
            signum == signal.SIGTERM and previous == signal.SIG_DFL
        ):
            continue
        saved[signum] = previous
        signal.signal(signum, _record)
    try:
        yield
    finally:
        for signum, previous in saved.items():
            signal.signal(signum, previous)


def _record(signum, frame):
    _SIGNAL[0] = signal.Signals(signum)
    _INTERRUPTED.set()
