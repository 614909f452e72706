"""Two-player, turn-taking, win/loss games (NMCS for two-player games, Cazenave et al. 2016):
Breakthrough, Knightthrough, Domineering, NoGo and AtariGo, each with a misere option.

One module per game holds its rules as numba kernels over the flat state of ``layout``, and the
attributes ``protocol`` lists (its name, usual board, ``legal_moves``, ``play``, ``max_moves``,
...); ``protocol`` generates the jitted dispatch on the game id from the registered modules and
holds the text forms. The single-player games of ``nmcs.games`` keep their own protocol (one
score to maximise); nothing here touches them.

Each game registers in ``nmcs.games.registry`` like a single-player game (its name, options
and ``make_state``), with ``cells="matches"``: the harness runs its cells as pairings of two
players (``nmcs.harness.match_cell``). A new two-player game is one module, anywhere, that
ends with ``register_game(__name__)`` and is named in ``NMCS_PLUGINS``, plus
``conf/game/NAME.yaml`` (docs/twoplayer.md, "Adding a two-player game";
``tests/data/toy_twoplayer/`` holds an example).
"""

import sys
from dataclasses import dataclass, field, make_dataclass
from types import ModuleType

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
    "register_game",
]


@dataclass
class TwoPlayerGameOptions:
    """``conf/game/<two-player game>.yaml``: the board (null = the game's usual size, see
    docs/twoplayer.md), ``size`` a square board (``game.size=5,6,8`` sweeps boards; null:
    ``rows`` and ``cols``) and the misere switch (the rule winner loses)."""

    name: str = "breakthrough"
    rows: int | None = None  # the board's rows (null: the game's usual board)
    cols: int | None = None  # the board's columns (null: the game's usual board)
    misere: bool = False  # the rule winner loses (the paper's misere versions)
    size: int | None = None  # a square board of this side (null: rows and cols say the board)

    def check(self) -> None:
        rows, cols = board(self.name, self.rows, self.cols, self.size)
        protocol.make_state(self.name, rows, cols, self.misere)  # ValueError, one line


def board(
    game: str, rows: int | None, cols: int | None, size: int | None
) -> tuple[int | None, int | None]:
    """(rows, cols) of the options: ``size`` stands for both (a square board) and may not be
    given with a different ``rows`` or ``cols``; ValueError, one line, otherwise."""
    if size is None:
        return rows, cols
    if not isinstance(size, int | np.integer) or isinstance(size, bool):
        raise ValueError(f"{game}: game.size must be an integer board side or null, got {size!r}")
    for key, value in (("rows", rows), ("cols", cols)):
        if value is not None and value != size:
            raise ValueError(
                f"{game}: game.size={size} is a {size}x{size} board; game.{key}={value} "
                "contradicts it (set one of them, or null)"
            )
    return int(size), int(size)


def _describe(state0: np.ndarray, moves: np.ndarray) -> str:
    """A match as its moves and its final position."""
    state = state0.copy()
    names = []
    for move in moves:
        names.append(move_name(state, int(move)))
        apply_move(state, int(move))
    return " ".join(names) + "\n" + draw(state)


def register_game(module: ModuleType | str) -> Game:
    """Register a two-player game module (or its name, e.g. ``register_game(__name__)`` at the
    bottom of the module): the protocol dispatches to its kernels (the next game id) and
    ``nmcs.games.registry`` gets its record (``game=NAME``, ``nmcs.game_names()``). ValueError
    (one line) for a module that lacks what ``protocol`` needs."""
    if isinstance(module, str):
        module = sys.modules[module]
    protocol.add_game(module)
    return _register(module.NAME, module.__name__)


def _register(name: str, module: str = __name__) -> Game:
    options = make_dataclass(
        f"{name.title()}Options",
        [("name", str, field(default=name))],
        bases=(TwoPlayerGameOptions,),
    )
    options.__doc__ = TwoPlayerGameOptions.__doc__

    def make(
        rows: int | None = None,
        cols: int | None = None,
        misere: bool = False,
        size: int | None = None,
    ):
        rows, cols = board(name, rows, cols, size)
        return protocol.make_state(name, rows, cols, misere)

    make.__module__ = module  # the registry lists built-in games first, then plugins
    return register(
        Game(
            name=name,
            options=options,
            kernels=protocol,
            make_state=make,
            describe=_describe,
            cells="matches",
            doc=" ".join((protocol.MODULES[name].__doc__ or "").split()).split(". ")[0],
        )
    )


for _name in GAMES:
    _register(_name)
