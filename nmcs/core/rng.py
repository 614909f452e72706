"""Random numbers for the search kernels: SplitMix64 over a one-word state.

Each search owns its generator, an ``uint64[1]`` array seeded from the search seed, so a search
gives the same result on any thread and with any number of workers. Saving and restoring the one
word lets a search replay a playout exactly (see ``nmcs.search.nested``) instead of recording the
moves of every playout.
"""

import numpy as np
from numba import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_S11 = np.uint64(11)


def new_rng(seed):
    """A generator state for ``seed`` (any integer below 2**64)."""
    return np.array([seed], dtype=np.uint64)


@njit(cache=True, inline="always")
def next_u64(rng):
    """Next 64 uniformly random bits."""
    s = rng[0] + _GOLDEN
    rng[0] = s
    z = (s ^ (s >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def below(rng, n):
    """Uniform integer in [0, n) for 1 <= n < 2**32 (Lemire's multiply-shift, bias < n / 2**32)."""
    return np.int64(((next_u64(rng) >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def uniform(rng):
    """Uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(rng) >> _S11) * (1.0 / 9007199254740992.0)
