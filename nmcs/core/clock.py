"""A wall clock callable from jitted code, including from prange threads.

Numba has no clock in nopython mode. On Linux and macOS ``now`` calls the C library's
``clock_gettime(CLOCK_MONOTONIC)`` directly (about 40 ns, no GIL, and the call is by symbol name,
so the on-disk cache stays valid across processes). Elsewhere it falls back to an object-mode
block around ``time.perf_counter`` (about 0.7 us, and it takes the GIL, which serializes threads
that read the clock often).
"""

import sys
import time

from llvmlite import ir
from numba import njit, objmode, types
from numba.core import cgutils
from numba.extending import intrinsic

_CLOCK_MONOTONIC = {"linux": 1, "darwin": 6}.get(sys.platform)


@intrinsic
def _monotonic_ns(typingctx):
    def codegen(context, builder, signature, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        timespec = ir.LiteralStructType([i64, i64])  # time_t tv_sec; long tv_nsec (LP64)
        fnty = ir.FunctionType(i32, [i32, timespec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        ts = cgutils.alloca_once(builder, timespec)
        builder.call(fn, [ir.Constant(i32, _CLOCK_MONOTONIC), ts])
        sec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 0))
        nsec = builder.load(cgutils.gep_inbounds(builder, ts, 0, 1))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


if _CLOCK_MONOTONIC is not None:

    @njit(cache=True)
    def now():
        """Seconds from an arbitrary origin (the monotonic clock)."""
        return _monotonic_ns() * 1e-9

else:  # pragma: no cover - not on the machines we run

    @njit(cache=True)
    def now():
        """Seconds from an arbitrary origin, as ``time.perf_counter``."""
        with objmode(t="float64"):
            t = time.perf_counter()
        return t
