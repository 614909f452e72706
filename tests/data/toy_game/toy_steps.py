"""A toy one-player game written outside the package, as docs/howto/add-game.md says: steps.

State layout (int64[3])::

    index:  0       1        2
          +-------+--------+-------+
          | DEPTH | PLAYED | SCORE |
          +-------+--------+-------+

Move encoding: 0, 1 or 2, the points a step adds to SCORE; DEPTH steps in every game. Move code
(``code``): 3 * PLAYED + move. Playout: uniform random steps.

    NMCS_PLUGINS=toy_steps python run.py game=steps hydra.searchpath=[file:///path/to/here]
"""

import sys
from dataclasses import dataclass

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.games.registry import Game, checked_options, register

NAME = "steps"
DEPTH, PLAYED, SCORE = 0, 1, 2


@dataclass
class StepsOptions:
    name: str = "steps"
    depth: int = 8  # the steps of every game

    def check(self) -> None:
        if not 1 <= self.depth <= 100:
            raise ValueError(f"game.depth must be between 1 and 100, got {self.depth}")


def make_state(depth=8):
    checked_options(StepsOptions, {"depth": depth})
    return np.array([depth, 0, 0], dtype=np.int64)


@njit(cache=True)
def max_moves(state):
    return state[DEPTH]


@njit(cache=True)
def max_branching(state):
    return 3


@njit(cache=True)
def legal_moves(state, out):
    if state[PLAYED] >= state[DEPTH]:
        return 0
    for m in range(3):
        out[m] = m
    return 3


@njit(cache=True)
def play(state, move):
    state[PLAYED] += 1
    state[SCORE] += move


@njit(cache=True)
def score(state):
    return state[SCORE]


@njit(cache=True)
def code(state, move):
    return np.int64(3) * state[PLAYED] + np.int64(move)


@njit(cache=True)
def playout(state, rng, moves, record):
    n = 0
    while state[PLAYED] < state[DEPTH]:
        move = np.int32(below(rng, 3))
        if record:
            moves[n] = move
        play(state, move)
        n += 1
    return n


def describe(state0, moves):
    return " ".join(str(int(m)) for m in moves)


GAME = register(
    Game(
        name=NAME,
        options=StepsOptions,
        kernels=sys.modules[__name__],
        make_state=make_state,
        describe=describe,
        small_options={"depth": 5},
    )
)
