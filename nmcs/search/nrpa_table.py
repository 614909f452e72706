"""The policy table of NRPA and GNRPA (``nmcs.search.nrpa``): one table per level of a search,
rows of one set of workspace arrays.

The policy: one open-addressing hash table (linear probing) per level, int64 codes and float64
weights in numpy arrays, beside exp(w / tau) of each code (so a playout calls no exp); a
missing code has weight 0. Each table also lists its occupied slots, so copying a policy to the
level below (and clearing it) costs the number of codes it holds, not its capacity. The
capacity (a power of two, at least 4 x (max moves + 1) x max branching, at most 2**21) is fixed
per search; a table filled to 3/4 raises an error rather than degrade.

Each function takes the table's index ``t`` (a row of ``keys``, ``vals``, ``evals``, ``slots``
and ``used``: the workspace's arrays, ``nmcs.search.nrpa.NrpaWorkspace``).
"""

import math

import numpy as np
from numba import njit

EMPTY = np.int64(-1)  # the key of an empty slot
MIN_CAPACITY = 1 << 12
MAX_CAPACITY = 1 << 21
_GOLD = np.uint64(0x9E3779B97F4A7C15)
_S29 = np.uint64(29)


@njit(cache=True, inline="always")
def find_slot(keys, t, code):
    """The slot of ``code`` in table ``t``, or the empty slot where it would go."""
    mask = keys.shape[1] - 1
    h = np.uint64(code) * _GOLD
    i = np.int64((h ^ (h >> _S29)) & np.uint64(mask))
    while True:
        k = keys[t, i]
        if k == code or k == EMPTY:
            return i
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def weight(ws, t, code):
    """The weight of ``code`` in table ``t`` (0 if it has none)."""
    i = find_slot(ws.keys, t, code)
    return ws.vals[t, i] if ws.keys[t, i] == code else 0.0


@njit(cache=True, inline="always")
def insert_code(keys, vals, evals, slots, used, t, code):
    """The slot of ``code`` in table ``t``, inserted with weight 0 if missing. Takes the
    table's arrays, not the workspace: a call that passes the whole workspace tuple costs
    about 20 arrays of machine words."""
    i = find_slot(keys, t, code)
    if keys[t, i] == EMPTY:
        n = used[t]
        if 4 * (n + 1) > 3 * keys.shape[1]:
            raise RuntimeError("nrpa: policy table full (more codes than capacity allows)")
        keys[t, i] = code
        vals[t, i] = 0.0
        evals[t, i] = 1.0
        slots[t, n] = i
        used[t] = n + 1
    return i


@njit(cache=True)
def copy_table(ws, dst, src):
    """Table ``dst`` := table ``src`` (same capacity and hash, so the same slots)."""
    keys, vals, evals, slots, used = ws.keys, ws.vals, ws.evals, ws.slots, ws.used
    for j in range(used[dst]):
        keys[dst, slots[dst, j]] = EMPTY
    n = used[src]
    for j in range(n):
        i = slots[src, j]
        keys[dst, i] = keys[src, i]
        vals[dst, i] = vals[src, i]
        evals[dst, i] = evals[src, i]
        slots[dst, j] = i
    used[dst] = n


@njit(cache=True)
def load_policy(ws, t, codes, weights, tau):
    """Table ``t`` := the policy of the pairs (``codes[i]``, ``weights[i]``) (table empty)."""
    keys, vals, evals, slots, used = ws.keys, ws.vals, ws.evals, ws.slots, ws.used
    inv_tau = 1.0 / tau
    for i in range(codes.shape[0]):
        j = insert_code(keys, vals, evals, slots, used, t, codes[i])
        vals[t, j] = weights[i]
        evals[t, j] = math.exp(weights[i] * inv_tau)


def table_capacity(max_moves: int, max_branching: int) -> int:
    """Slots of a policy table for a game with these bounds (see the module docstring)."""
    need = 4 * (max_moves + 1) * max_branching
    cap = MIN_CAPACITY
    while cap < need and cap < MAX_CAPACITY:
        cap *= 2
    return cap
