"""Forward checking for Sudoku: the paper's depth-first baseline (NMCS paper, Table 2, "FC").

The same CSP as ``nmcs.games.sudoku``: the same propagation (``play``), the same variable order
(smallest domain, lowest index) and the same dead-end test, with the values of each variable
tried in a random order (a fresh Fisher-Yates shuffle per node, drawn from the search's own
SplitMix64 generator, so a run is a pure function of the problem and the seed, apart from where
the time cap falls).

Nodes = assignments made (``play`` calls), the machine-independent effort. The search stops at
the first solution, when the tree is exhausted (no solution), or at the cap: ``max_seconds``
(the paper stopped at 20,000 s) and/or ``max_nodes`` (<= 0 = no limit of that kind).

The explicit stack (one state, one shuffled move list and a cursor per depth) is allocated once
(``new_stack``), so the loop itself does not allocate. ``fc_search`` is the kernel that
``algo=fc`` runs in the engine (its registry record is ``nmcs.search.fc``); ``solve_fc`` runs one
search from Python.
"""

import numpy as np
from numba import njit

from nmcs.core.clock import now
from nmcs.core.rng import below
from nmcs.games.sudoku import rules as game

# Read the clock once per this many nodes (the objmode clock costs about 0.7 us).
_CLOCK_STRIDE = 4096


@njit(cache=True)
def new_stack(state0):
    """The explicit stack of a search from ``state0``: (states, moves, n_moves, cursor), one
    entry per depth."""
    size = game.max_branching(state0)
    depth_max = game.max_moves(state0) + 1
    states = np.empty((depth_max + 1, state0.shape[0]), state0.dtype)
    moves = np.empty((depth_max + 1, size), np.int32)
    n_moves = np.zeros(depth_max + 1, np.int64)
    cursor = np.zeros(depth_max + 1, np.int64)
    return states, moves, n_moves, cursor


@njit(cache=True)
def fc_search(state, rng, max_seconds, max_nodes, states, moves, n_moves, cursor, seq):
    """Depth-first search from ``state`` with the stack of ``new_stack`` and the generator
    ``rng`` (uint64[1]); returns (solved, nodes, length).

    ``solved`` is 1 for a solution, 0 when stopped by a cap, -1 when the search space was
    exhausted (the problem has no solution). When solved, ``state`` ends on the solution and
    ``seq[:length]`` holds the assignments that lead to it (the path of the search tree);
    otherwise ``state`` is unchanged and ``length`` is 0."""
    t0 = now()
    cells = state[game.CELLS]
    nodes = 0
    if state[game.ASSIGNED] == cells:
        return 1, nodes, 0
    for j in range(state.shape[0]):  # not states[0, :] = state: its compile costs about 2 s
        states[0, j] = state[j]
    n_moves[0] = _shuffled_moves(states[0], moves[0], rng)
    cursor[0] = 0
    d = 0
    while d >= 0:
        if cursor[d] >= n_moves[d]:
            d -= 1
            continue
        move = moves[d, cursor[d]]
        cursor[d] += 1
        child = states[d + 1]
        parent = states[d]
        for j in range(parent.shape[0]):
            child[j] = parent[j]
        game.play(child, move)
        nodes += 1
        if child[game.ASSIGNED] == cells:
            for k in range(d + 1):
                seq[k] = moves[k, cursor[k] - 1]
            for j in range(child.shape[0]):
                state[j] = child[j]
            return 1, nodes, d + 1
        d += 1
        n_moves[d] = _shuffled_moves(child, moves[d], rng)
        cursor[d] = 0
        if max_nodes > 0 and nodes >= max_nodes:
            return 0, nodes, 0
        if max_seconds > 0 and nodes % _CLOCK_STRIDE == 0 and now() - t0 >= max_seconds:
            return 0, nodes, 0
    return -1, nodes, 0


@njit(cache=True)
def forward_checking(state0, seed, max_seconds, max_nodes):
    """Depth-first search from ``state0``; returns (solved, nodes, seconds, final state), with
    ``solved`` as in ``fc_search``. The final state is the solution when solved, else
    ``state0``."""
    t0 = now()
    states, moves, n_moves, cursor = new_stack(state0)
    seq = np.empty(game.max_moves(state0) + 1, np.int32)
    rng = np.empty(1, np.uint64)
    rng[0] = seed
    state = state0.copy()
    solved, nodes, _ = fc_search(
        state, rng, max_seconds, max_nodes, states, moves, n_moves, cursor, seq
    )
    return solved, nodes, now() - t0, state


@njit(cache=True, inline="always")
def _shuffled_moves(state, out, rng):
    n = game.legal_moves(state, out)
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = out[i]
        out[i] = out[j]
        out[j] = t
    return n


def solve_fc(state0, seed=0, max_seconds=20000.0, max_nodes=0):
    """Forward checking from Python: (solved, nodes, seconds, solution grid or None), with
    ``solved`` as in ``forward_checking``."""
    solved, nodes, seconds, final = forward_checking(
        np.ascontiguousarray(state0), np.uint64(seed), float(max_seconds), int(max_nodes)
    )
    grid = game.grid_of(final) if solved == 1 else None
    return int(solved), int(nodes), float(seconds), grid
