"""Pieces shared by the searches that run until a budget is spent (iterative NMCS, UCT): the
improvement trace and a cheap seconds budget, plus the state copy every search uses.

The budget clock is a float64[4] array ``[start, last_check, stride, since_check]``: the clock
is read every ``stride`` calls, and ``stride`` doubles while calls are shorter than 0.1 ms, so a
search reads it about every 0.1 ms whatever one step costs.
"""

import numpy as np
from numba import njit

from nmcs.search.clock import now

TRACE_SECONDS, TRACE_PLAYOUTS, TRACE_SCORE = 0, 1, 2
_START, _LAST, _STRIDE, _SINCE = 0, 1, 2, 3


@njit(cache=True, inline="always")
def copy_into(dst, src):
    """dst[:] = src with an explicit loop (numba's slice assignment costs more for short
    states)."""
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(cache=True)
def start_clock():
    clock = np.empty(4)
    t = now()
    clock[_START] = t
    clock[_LAST] = t
    clock[_STRIDE] = 1.0
    clock[_SINCE] = 0.0
    return clock


@njit(cache=True)
def elapsed(clock):
    return now() - clock[_START]


@njit(cache=True)
def time_is_up(clock, max_seconds):
    """True once ``max_seconds`` (> 0) have passed since ``start_clock``."""
    clock[_SINCE] += 1.0
    if clock[_SINCE] < clock[_STRIDE]:
        return False
    clock[_SINCE] = 0.0
    t = now()
    if t - clock[_START] >= max_seconds:
        return True
    if t - clock[_LAST] < 1e-4:
        clock[_STRIDE] *= 2.0
    clock[_LAST] = t
    return False


@njit(cache=True)
def record_improvement(trace, n_trace, clock, playouts, score):
    """Append (seconds, playouts, score) to the trace; a full trace keeps its latest best.
    Returns the new number of rows."""
    row = min(n_trace, trace.shape[0] - 1)
    trace[row, TRACE_SECONDS] = elapsed(clock)
    trace[row, TRACE_PLAYOUTS] = playouts
    trace[row, TRACE_SCORE] = score
    return row + 1
