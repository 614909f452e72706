"""The interface of a game's kernel module, as a ``typing.Protocol`` (documentation and static
checks; numba sees only the functions).

All kernels are ``@njit(cache=True)`` functions taking the state (a 1-D numpy array holding
everything, so copying it copies the position) first. ``nmcs.search`` builds every algorithm
from them, so a new game needs no search code.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class GameKernels(Protocol):
    """What ``nmcs.search`` calls on a game (the module ``Game.kernels`` of its record)."""

    NAME: str

    def max_moves(self, state: np.ndarray) -> int:
        """Upper bound on the number of moves of a game from ``state``."""
        ...

    def max_branching(self, state: np.ndarray) -> int:
        """Upper bound on the number of legal moves in any position."""
        ...

    def legal_moves(self, state: np.ndarray, out: np.ndarray) -> int:
        """Write the legal moves (int32 codes) into ``out``; return how many (0: game over)."""
        ...

    def play(self, state: np.ndarray, move: int) -> None:
        """Apply a legal move in place."""
        ...

    def score(self, state: np.ndarray) -> int:
        """Score of the position (the result when the game is over)."""
        ...

    def code(self, state: np.ndarray, move: int) -> np.int64:
        """A move's identity across positions (a non-negative int64) for policy-learning
        searches (NRPA, GNRPA: ``nmcs.search.nrpa``): the same code in two positions means the
        same policy weight. Each game documents its code and the source of that coding in its
        module docstring. Single-player games only; optional kernel ``bias(state, move)``
        (float64): GNRPA's prior bias beta of a move (none: 0)."""
        ...

    def playout(self, state: np.ndarray, rng: np.ndarray, moves: np.ndarray, record: bool) -> int:
        """Play the game's playout policy to the end in place; return the number of moves;
        write them into ``moves`` only if ``record``. Must be a function of ``state`` and the
        ``rng`` words it draws (``nmcs.core.rng``): searches replay playouts from a saved
        generator word. Optional kernel ``target_score(state)``: a score no game can beat (a
        solved puzzle), read once from the position a search starts from; a search stops at
        the first game that reaches it. Optional constant
        ``STATE_SIZE``: the length of every state of the game, for a game whose state has a
        fixed size; the searches then copy states with a loop the compiler unrolls
        (``nmcs.search.anytime.state_copier``), which matters for small states (the tree
        problems' 3-4 entries), and nested search compiles its level 1 once with and once
        without memorization (``nmcs.search.nested.build_nested``), which matters when a
        playout takes nanoseconds. Optional constant ``POSITION_SIZE``: the leading state entries
        that identify a position, where the rest records how it was reached (Morpion's list of
        legal moves, in an order that depends on the history); beam search's
        ``algo.merge_duplicates`` compares positions on them (default: the whole state).
        Optional constant ``RECORD_AT_RUN_TIME``: True to have the searches pass ``record`` as
        a run-time bool rather than a literal, so that a long playout compiles once
        (``nmcs.search.anytime.playout_caller``; SameGame)."""
        ...
