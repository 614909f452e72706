"""A wall clock callable from jitted code (and from prange threads).

Numba has no clock in nopython mode; an object-mode block around ``time.perf_counter`` costs about
0.7 us here, so callers read it at search boundaries, never per move.
"""

import time

from numba import njit, objmode


@njit(cache=True)
def now():
    """Seconds from an arbitrary origin, as ``time.perf_counter``."""
    with objmode(t="float64"):
        t = time.perf_counter()
    return t
