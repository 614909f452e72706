"""Bit tricks shared by game kernels whose playouts draw many binary moves from one random word."""

import numpy as np
from numba import njit

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, inline="always")
def popcount64(x):
    """Number of set bits of a uint64 (SWAR; LLVM lowers it to popcnt where the CPU has one)."""
    x = x - ((x >> _ONE) & _M1)
    x = (x & _M2) + ((x >> np.uint64(2)) & _M2)
    x = (x + (x >> np.uint64(4))) & _M4
    return np.int64((x * _H01) >> np.uint64(56))


@njit(cache=True, inline="always")
def low_mask(k):
    """uint64 with the k lowest bits set, 0 <= k <= 64."""
    if k >= 64:
        return _ALL
    return (_ONE << np.uint64(k)) - _ONE


@njit(cache=True, inline="always")
def trailing_ones(x):
    """Number of consecutive set bits from bit 0 (64 when all are set)."""
    y = ~x
    return popcount64((y & (~y + _ONE)) - _ONE)
