"""Clocks callable from jitted code, including from prange threads: the wall clock and the CPU
time of the calling thread.

Numba has no clock in nopython mode. On Linux and macOS ``now`` and ``thread_cpu`` call the C
library's ``clock_gettime`` directly, by symbol name, so the on-disk cache stays valid across
processes: ``now`` reads ``CLOCK_MONOTONIC`` (about 40 ns, no GIL), ``thread_cpu`` reads
``CLOCK_THREAD_CPUTIME_ID``, the clock of ``time.thread_time`` (a system call: about 0.5 us
here). Elsewhere they fall back to an object-mode block around ``time.perf_counter`` and
``time.thread_time`` (about 0.7 us, and it takes the GIL, which serializes threads that read the
clock often).
"""

import sys
import time

from llvmlite import ir
from numba import njit, objmode, types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_MONOTONIC = {"linux": 1, "darwin": 6}.get(sys.platform)
_CLOCK_THREAD_CPUTIME_ID = {"linux": 3, "darwin": 16}.get(sys.platform)


def _clock_ns(clock_id: int):
    """An intrinsic that returns ``clock_gettime(clock_id)`` in nanoseconds (int64)."""

    @intrinsic
    def read(typingctx):
        def codegen(context, builder, signature, args):
            i32, i64 = ir.IntType(32), ir.IntType(64)
            timespec = ir.LiteralStructType([i64, i64])  # time_t tv_sec; long tv_nsec (LP64)
            fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
            ts = cgutils.alloca_once(builder, timespec)
            builder.call(fn, [ir.Constant(i32, clock_id), ts])
            sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
            nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
            return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

        return types.int64(), codegen

    return read


if _CLOCK_MONOTONIC is not None and _CLOCK_THREAD_CPUTIME_ID is not None:
    _monotonic_ns = _clock_ns(_CLOCK_MONOTONIC)
    _thread_cpu_ns = _clock_ns(_CLOCK_THREAD_CPUTIME_ID)

    @njit(cache=True)
    def now():
        """Seconds from an arbitrary origin (the monotonic clock)."""
        return _monotonic_ns() * 1e-9

    @njit(cache=True)
    def thread_cpu():
        """CPU seconds of the calling thread, as ``time.thread_time``."""
        return _thread_cpu_ns() * 1e-9

else:  # pragma: no cover - not on the machines we run

    @njit(cache=True)
    def now():
        """Seconds from an arbitrary origin, as ``time.perf_counter``."""
        with objmode(t="float64"):
            t = time.perf_counter()
        return t

    @njit(cache=True)
    def thread_cpu():
        """CPU seconds of the calling thread, as ``time.thread_time``."""
        with objmode(t="float64"):
            t = time.thread_time()
        return t
