"""Stones, groups and liberties: the kernels NoGo and AtariGo share (no rules of their own).

A group's liberties are found by a flood fill over the state's scratch space (see ``layout``):
MARK[i] == STAMP marks a visited cell, STACK holds the cells still to expand, and each fill
takes a new STAMP, so nothing is ever cleared or allocated. A fill stops at the first liberty,
since the rules only ask whether a group has one.
"""

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import COLS, EMPTY, HEADER, P0, PLY, ROWS, STAMP, TO_MOVE


@njit(cache=True)
def has_liberty(state, start):
    """Whether the group of the stone on ``start`` touches an empty cell."""
    rows, cols = state[ROWS], state[COLS]
    n = rows * cols
    mark = HEADER + n
    stack = HEADER + 2 * n
    state[STAMP] += 1
    stamp = state[STAMP]
    color = state[HEADER + start]
    state[mark + start] = stamp
    state[stack] = start
    top = 1
    while top > 0:
        top -= 1
        i = state[stack + top]
        r = i // cols
        c = i - r * cols
        for j in range(4):
            if j == 0:
                if r == 0:
                    continue
                nb = i - cols
            elif j == 1:
                if r == rows - 1:
                    continue
                nb = i + cols
            elif j == 2:
                if c == 0:
                    continue
                nb = i - 1
            else:
                if c == cols - 1:
                    continue
                nb = i + 1
            v = state[HEADER + nb]
            if v == EMPTY:
                return True
            if v == color and state[mark + nb] != stamp:
                state[mark + nb] = stamp
                state[stack + top] = nb
                top += 1
    return False


@njit(cache=True, inline="always")
def touches_empty(state, i):
    """Whether cell ``i`` has an empty neighbour (a liberty of its stone, found without a
    flood fill: the common case, which spares most fills)."""
    rows, cols = state[ROWS], state[COLS]
    r = i // cols
    c = i - r * cols
    if r > 0 and state[HEADER + i - cols] == EMPTY:
        return True
    if r < rows - 1 and state[HEADER + i + cols] == EMPTY:
        return True
    if c > 0 and state[HEADER + i - 1] == EMPTY:
        return True
    return c < cols - 1 and state[HEADER + i + 1] == EMPTY


@njit(cache=True)
def try_stone(state, player, i):
    """Put a stone of ``player`` on the empty cell ``i`` and take it back; return
    (captures: some adjacent opponent group is left without liberty,
     breathes: the new stone's group keeps a liberty)."""
    rows, cols = state[ROWS], state[COLS]
    own = P0 + player
    opp = P0 + 1 - player
    state[HEADER + i] = own
    r = i // cols
    c = i - r * cols
    captures = False
    for j in range(4):
        if j == 0:
            if r == 0:
                continue
            nb = i - cols
        elif j == 1:
            if r == rows - 1:
                continue
            nb = i + cols
        elif j == 2:
            if c == 0:
                continue
            nb = i - 1
        else:
            if c == cols - 1:
                continue
            nb = i + 1
        if state[HEADER + nb] == opp and not touches_empty(state, nb):
            if not has_liberty(state, nb):
                captures = True
                break
    breathes = touches_empty(state, i) or has_liberty(state, i)
    state[HEADER + i] = EMPTY
    return captures, breathes


def groups_without_liberty(state) -> list[int]:
    """Cells of stones whose group has no liberty (Python-level check of a parsed position)."""
    n = int(state[ROWS]) * int(state[COLS])
    return [i for i in range(n) if state[HEADER + i] != EMPTY and not has_liberty(state, i)]


@njit(cache=True)
def random_legal_stone(state, rng, buf, atari):
    """A uniformly random legal move of the player to move (NoGo rules, or AtariGo's if
    ``atari``), by rejection: draw an empty cell, drop it if illegal, draw again. Each draw is
    uniform over the cells not yet rejected, so the move is uniform over the legal ones, and
    it costs a few legality tests instead of one per empty cell. -1 if there is none."""
    n = state[ROWS] * state[COLS]
    p = state[TO_MOVE]
    k = 0
    for i in range(n):
        if state[HEADER + i] == EMPTY:
            buf[k] = i
            k += 1
    while k > 0:
        j = below(rng, k)
        i = buf[j]
        captures, breathes = try_stone(state, p, i)
        if (captures or breathes) if atari else (breathes and not captures):
            return i
        k -= 1
        buf[j] = buf[k]
    return -1


@njit(cache=True)
def cells_max_moves(state):
    """Upper bound on the moves left when each move fills a cell (stones, dominoes)."""
    return state[ROWS] * state[COLS]


def stones_parsed(state: np.ndarray, ply_given: bool) -> None:
    """A position read from text without a ply: one stone a move."""
    if not ply_given:
        board = state[HEADER : HEADER + int(state[ROWS]) * int(state[COLS])]
        state[PLY] = int((board != EMPTY).sum())
