"""Two-player, turn-taking, win/loss games (NMCS for two-player games, Cazenave et al. 2016):
Breakthrough, Knightthrough, Domineering, NoGo and AtariGo, each with a misere option.

One module per game holds its rules as numba kernels over the flat state of ``layout``;
``protocol`` dispatches on the game id and holds the text forms. The single-player games of
``nmcs.games`` keep their own protocol (one score to maximise); nothing here touches them.

Each game registers in ``nmcs.games.registry`` like a single-player game (its name, options
and ``make_state``), with ``cells="matches"``: the harness runs its cells as pairings of two
players (``nmcs.harness.match_cell``).
"""

from dataclasses import dataclass, field, make_dataclass

import numpy as np

from nmcs.games.registry import Game, register
from nmcs.games.twoplayer import protocol
from nmcs.games.twoplayer.protocol import (
    GAMES,
    IllegalMoveError,
    apply_move,
    draw,
    legal_move_list,
    make_state,
    move_name,
    outcome,
    parse,
    parse_move,
)

__all__ = [
    "GAMES",
    "IllegalMoveError",
    "apply_move",
    "draw",
    "legal_move_list",
    "make_state",
    "move_name",
    "outcome",
    "parse",
    "parse_move",
]


@dataclass
class TwoPlayerGameOptions:
    """``conf/game/<two-player game>.yaml``: the board (null = the game's usual size, see
    docs/twoplayer.md) and the misere switch (the rule winner loses)."""

    name: str = "breakthrough"
    rows: int | None = None
    cols: int | None = None
    misere: bool = False

    def check(self) -> None:
        protocol.make_state(self.name, self.rows, self.cols, self.misere)  # ValueError, one line


def _describe(state0: np.ndarray, moves: np.ndarray) -> str:
    """A match as its moves and its final position."""
    state = state0.copy()
    names = []
    for move in moves:
        names.append(move_name(state, int(move)))
        apply_move(state, int(move))
    return " ".join(names) + "\n" + draw(state)


def _register(name: str) -> Game:
    options = make_dataclass(
        f"{name.title()}Options",
        [("name", str, field(default=name))],
        bases=(TwoPlayerGameOptions,),
    )
    options.__doc__ = TwoPlayerGameOptions.__doc__

    def make(rows: int | None = None, cols: int | None = None, misere: bool = False):
        return protocol.make_state(name, rows, cols, misere)

    make.__module__ = __name__
    return register(
        Game(
            name=name,
            options=options,
            kernels=protocol,
            make_state=make,
            describe=_describe,
            cells="matches",
        )
    )


for _name in GAMES:
    _register(_name)
