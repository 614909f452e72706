"""``algo=fc``: forward checking, the depth-first baseline of the NMCS paper's Table 2 (16x16
Sudoku), as a registered algorithm of the engine.

The search itself is the Sudoku module's kernel (``nmcs.games.sudoku.fc.fc_search``): the same
propagation, variable order and dead-end test as the game, the values of each variable in a
random order drawn from the search's generator. This module is only its registry record, so
``nmcs.games`` holds rules and ``nmcs.search`` the algorithms. It runs on ``game=sudoku`` only
(the record's ``games``) and needs a cap, the budget: ``budget.seconds`` (the paper stopped at
20,000 s) and/or ``budget.playouts``, read as nodes (assignments made). ``level`` and
``memorize`` are not used.

Result columns: ``score`` = assigned cells (the game's target, n^4, when solved; the givens
when stopped at the cap or when the problem has no solution), ``playouts`` = nodes,
``moves`` = the assignments from the problem to the solution (empty when unsolved).
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.search.anytime import PLAYOUTS
from nmcs.search.registry import Algorithm, Settings, register


class FcParams(NamedTuple):
    max_seconds: float  # 0: no limit of that kind
    max_nodes: int


class FcWorkspace(NamedTuple):
    states: np.ndarray
    moves: np.ndarray
    n_moves: np.ndarray
    cursor: np.ndarray
    stats: np.ndarray


@dataclass
class FcConfig:
    """``algo=fc``: forward checking capped by ``budget.seconds`` and/or ``budget.playouts``
    (nodes); Sudoku only."""

    name: str = "fc"

    def check(self, settings: Settings) -> None:
        pass


def fc_params(options, settings, kernels, state0):
    return FcParams(float(settings.max_seconds), int(settings.max_playouts))


def build_fc_search(game, levels: int):
    """``(new_workspace, run)`` of algo=fc for the engine; ``game`` is Sudoku's kernel module
    (the record's ``games`` refuses the others)."""
    # Imported here, not at the top: importing the Sudoku package registers the game, and the
    # game registry must load its built-in games first, in their order.
    from nmcs.games.sudoku.fc import fc_search, new_stack

    @njit
    def new_workspace(state0, params, stats):
        states, moves, n_moves, cursor = new_stack(state0)
        return FcWorkspace(states, moves, n_moves, cursor, stats)

    @njit
    def run(state, params, rng, ws, seq, trace):
        _, nodes, length = fc_search(
            state,
            rng,
            params.max_seconds,
            params.max_nodes,
            ws.states,
            ws.moves,
            ws.n_moves,
            ws.cursor,
            seq,
        )
        ws.stats[PLAYOUTS] += nodes
        return length, 0

    return new_workspace, run


FC = register(
    Algorithm(
        name="fc",
        config=FcConfig,
        params=fc_params,
        build=build_fc_search,
        needs_budget=True,
        games=("sudoku",),
    )
)
