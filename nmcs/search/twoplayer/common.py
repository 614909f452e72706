"""What every kind of two-player player shares: the workspace's sentinels, the slots of the
stats (the budget's unit), and the inlined helpers of the kernels (``nested_playouts``,
``tree_player``, ``flat_player``): a state copy, a shuffle, a playout's value and a step's
bound for the player to move, the budget check."""

import numpy as np
from numba import njit

from nmcs.core.clock import now
from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import PLY
from nmcs.games.twoplayer.protocol import outcome

MAX_LEVEL = 2
NO_LIMIT = np.int32(2**31 - 1)
UNEXPANDED = -1
NO_NODE = -1
# stats slots: random playouts run (the budget unit), moves played inside them
S_PLAYOUTS, S_MOVES = 0, 1


@njit(cache=True, inline="always")
def copy_into(dst, src):
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(cache=True, inline="always")
def shuffle(moves, n, rng):
    for j in range(n - 1, 0, -1):
        k = below(rng, j + 1)
        moves[j], moves[k] = moves[k], moves[j]


@njit(cache=True, inline="always")
def value(state, player, discount):
    """The result of the finished ``state`` for ``player``: its outcome, divided by the depth
    of the position with discounting (``nested_playouts``' docstring)."""
    v = outcome(state, player)
    if discount:
        return v / max(state[PLY], 1)
    return float(v)


@njit(cache=True, inline="always")
def bound(state, discount):
    """The value a step's best move must beat."""
    if discount:
        # Strictly below every reachable result (see ``nested_playouts``' docstring); at depth 0
        # any value below -1 will do.
        return -1.0 / state[PLY] if state[PLY] > 0 else -2.0
    return -1.0


@njit(cache=True, inline="always")
def spent(stats, start, max_playouts, t0, max_seconds):
    """Whether a move's budget is spent: the random playouts run since ``start``, or the
    seconds since ``t0`` (a limit of 0: none of that kind)."""
    if max_playouts > 0 and stats[S_PLAYOUTS] - start >= max_playouts:
        return True
    return max_seconds > 0.0 and now() - t0 >= max_seconds
