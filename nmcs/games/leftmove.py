"""The left move problem (NMCS paper, section 4.2): a binary tree of fixed depth whose leaf score
is the number of left moves made on the way down.

State layout (int64[3])::

    index:  0       1        2
          +-------+--------+-------+
          | DEPTH | PLAYED | LEFTS |
          +-------+--------+-------+
    DEPTH  depth of the tree (moves in every game), 1..1000
    PLAYED moves played so far
    LEFTS  left moves among them (the score)

NRPA code (``code``): (depth, move) = 2 * PLAYED + move, e.g. LEFT as the
fourth move (PLAYED = 3) is 6.

Move encoding: 0 = LEFT, 1 = RIGHT; both are legal until PLAYED == DEPTH.

Playout: uniform random moves. One 64-bit random word gives 64 moves at once (bit set = left),
so a playout of d moves costs ceil(d / 64) draws and a popcount; moves are written out only when
``record`` is true (the search replays a playout when it needs its moves).
"""

import sys
from dataclasses import dataclass

import numpy as np
from numba import njit

from nmcs.core.bits import low_mask, popcount64
from nmcs.core.rng import next_u64
from nmcs.games.registry import Game, checked_options, register

NAME = "leftmove"
LEFT, RIGHT = np.int32(0), np.int32(1)
DEPTH, PLAYED, LEFTS = 0, 1, 2
STATE_SIZE = 3
MAX_DEPTH = 1000


def make_state(depth=60):
    """Root of a tree of the given depth."""
    checked_options(LeftmoveOptions, {"depth": depth})
    return np.array([depth, 0, 0], dtype=np.int64)


@njit(cache=True)
def max_moves(state):
    return state[DEPTH]


@njit(cache=True)
def max_branching(state):
    return 2


@njit(cache=True)
def legal_moves(state, out):
    if state[PLAYED] >= state[DEPTH]:
        return 0
    out[0] = LEFT
    out[1] = RIGHT
    return 2


@njit(cache=True)
def play(state, move):
    state[PLAYED] += 1
    if move == LEFT:
        state[LEFTS] += 1


@njit(cache=True)
def code(state, move):
    """NRPA move code (depth, move): ``2 * PLAYED + move``, the same move at the same depth is
    the same code whatever was played before (the coding NRPA needs on the tree problems)."""
    return np.int64(2) * state[PLAYED] + np.int64(move)


@njit(cache=True)
def score(state):
    return state[LEFTS]


@njit(cache=True)
def playout(state, rng, moves, record):
    remaining = state[DEPTH] - state[PLAYED]
    done = 0
    lefts = 0
    while done < remaining:
        k = min(remaining - done, 64)
        word = next_u64(rng) & low_mask(k)
        lefts += popcount64(word)
        if record:
            for j in range(k):
                moves[done + j] = RIGHT - np.int32((word >> np.uint64(j)) & np.uint64(1))
        done += k
    state[PLAYED] += remaining
    state[LEFTS] += lefts
    return remaining


def describe(state0, moves):
    """Moves as a string of L and R."""
    return "".join("L" if m == LEFT else "R" for m in moves)


@dataclass
class LeftmoveOptions:
    """``game=leftmove`` options (``conf/game/leftmove.yaml``)."""

    name: str = "leftmove"
    depth: int = 60  # the depth of the tree: every game has this many moves

    def check(self) -> None:
        if not 1 <= self.depth <= MAX_DEPTH:
            raise ValueError(f"game.depth must be between 1 and {MAX_DEPTH}, got {self.depth}")


def check_state(state):
    """ValueError unless ``state`` is a position of a tree of 1..MAX_DEPTH (layout above)."""
    depth, played, lefts = (int(x) for x in state[:3])
    if not (1 <= depth <= MAX_DEPTH and 0 <= played <= depth and 0 <= lefts <= played):
        raise ValueError(
            f"depth {depth}, played {played}, lefts {lefts}: need 1 <= depth <= "
            f"{MAX_DEPTH}, 0 <= played <= depth and 0 <= lefts <= played"
        )


GAME = register(
    Game(
        name="leftmove",
        options=LeftmoveOptions,
        kernels=sys.modules[__name__],
        make_state=make_state,
        describe=describe,
        check_state=check_state,
    )
)
