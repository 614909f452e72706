"""The game registry: one record per game, the only place the harness learns about games.

Each game registers itself in its own module (at the bottom of ``nmcs/games/<game>.py``, or in
``nmcs/games/<game>/__init__.py`` for a game with more than kernels), as OpenSpiel games do;
the registry (``nmcs.core.registry``) imports every public module of ``nmcs.games`` on first
use, and any module named in the ``NMCS_PLUGINS`` environment variable (comma-separated); the
kernels are checked against ``nmcs.games.protocol`` as the game registers, and their declared
bounds before the first search (``nmcs.games.bounds``). Adding a game = its module(s) +
``conf/game/NAME.yaml`` (docs/howto/add-game.md).

A record's fields are documented on ``Game`` (the Python API page shows them), the kernels'
contract on ``nmcs.games.protocol.GameKernels`` and its optional capabilities.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from types import ModuleType
from typing import Any

import numpy as np

from nmcs.core.registry import PLUGINS_ENV, Registry  # noqa: F401 - PLUGINS_ENV re-exported
from nmcs.games.protocol import CAPABILITIES, check_kernels

# The order of the listings (names(), messages, docs); every public module of the package is
# imported all the same, so a new one needs no entry here (it is listed after these).
BUILTIN_MODULES = (
    "nmcs.games.leftmove",
    "nmcs.games.leftmost",
    "nmcs.games.sudoku",
    "nmcs.games.samegame",
    "nmcs.games.morpion",
    "nmcs.games.twoplayer",
)


@dataclass(frozen=True)
class RecordBook:
    """What a record hunt needs of a game: for each position (a value of the game option
    ``option``) the best score known and the best proven upper bound, with their sources, and
    how to save a game as a file that is read back and replayed before it counts.

    ``save_checked(state0, moves, path_stem)`` writes the game's files (a game file and its
    picture), reads the game file back through the game's own reader, replays it, and returns
    the replayed score; it raises ValueError (one line) if the file does not replay to the same
    moves. ``suffix`` is the game file's (``path_stem + suffix``), ``read_moves(path,
    game_options)`` reads its moves back (every move checked), and ``keep`` says which games a
    cell saves: ``"all"`` at or above the threshold, or ``"best"``, only a game that beats every
    game the cell saved before (a record book of one game a position)."""

    option: str
    best_known: dict[str, int]
    upper_bound: dict[str, int]
    sources: dict[str, str]
    save_checked: Callable[[np.ndarray, np.ndarray, Any], int]
    suffix: str
    read_moves: Callable[[Any, dict[str, Any]], np.ndarray]
    keep: str = "all"

    def positions(self) -> list[str]:
        return list(self.best_known)


@dataclass(frozen=True)
class Game:
    """The record of one game, registered at the bottom of its module with
    ``register(Game(...))``: everything the harness, the validation, the Hydra schema, the
    result columns and the tests know about the game.

    Attributes:
        name: the value of ``game=`` and of the ``game`` result column.
        options: a dataclass, the Hydra schema of ``conf/game/NAME.yaml``: ``name`` first (its
            default the game's name), then the ``game.*`` keys, each default written once with
            its meaning as the comment beside it (``nmcs.core.options``); its ``check()``
            raises ValueError naming the key (``game.KEY ...``) for a value out of range.
        kernels: the module of jitted kernels (``GameKernels``; a two-player game's: the
            generated dispatcher of ``nmcs.games.twoplayer.protocol``), checked against the
            protocol as the game registers.
        make_state: ``(**options) -> state``, the initial position as a 1-D numpy array; it
            starts with ``checked_options(options_class, given)``.
        describe: ``(state0, moves) -> str``, a game in a human-readable form (a cell's
            ``best_game.txt``).
        save_game: optional ``(state0, moves, path_stem)``: pictures or game files of a cell's
            best game, written beside ``best_game.txt``.
        small_options: ``make_state`` options of a position small enough for level-2 searches
            in a test (the conformance test; default: the game's defaults).
        cells: ``"searches"`` (a one-player game: its cells are searches) or ``"matches"`` (a
            two-player game: its cells are pairings of two players,
            ``nmcs.harness.match_cell``).
        check_state: optional ``(state) -> None``: raise ValueError (one line) if ``state`` is
            not a position of the game; the Python API checks the dtype, the dimension and
            ``STATE_SIZE`` itself.
        records: optional ``RecordBook``: the game supports record hunts (``record.*`` keys).
        doc: one line on what the game is, for the reference pages (default: the first
            sentence of the kernel module's docstring, ``summary()``).
        check_search: optional ``(state0, algo name) -> None``: raise ValueError (one line)
            if that algorithm cannot search the position as its options ask (a playout policy
            it cannot honour: SameGame's ``policy=bias`` is GNRPA's).
    """

    name: str
    options: type
    kernels: ModuleType
    make_state: Callable[..., np.ndarray]
    describe: Callable[[np.ndarray, np.ndarray], str]
    save_game: Callable[[np.ndarray, np.ndarray, Any], Any] | None = None
    small_options: dict[str, Any] = field(default_factory=dict)
    cells: str = "searches"
    check_state: Callable[[np.ndarray], None] | None = None
    records: RecordBook | None = None
    doc: str = ""
    check_search: Callable[[np.ndarray, str], None] | None = None

    def option_names(self) -> list[str]:
        """The ``game.*`` keys (the options' fields without ``name``)."""
        return [f.name for f in fields(self.options) if f.name != "name"]

    def summary(self) -> str:
        """``doc``, or the first sentence of the kernel module's docstring."""
        if self.doc:
            return self.doc
        flat = " ".join((self.kernels.__doc__ or "").split())
        return flat.split(". ")[0].rstrip(".") + "." if flat else ""

    def capabilities(self) -> list[str]:
        """The optional capabilities its kernels have (``nmcs.games.protocol.CAPABILITIES``)."""
        return [c for c in CAPABILITIES if hasattr(self.kernels, c)]


def _module_of(record: Game) -> str:
    return record.make_state.__module__


REGISTRY: Registry[Game] = Registry(
    "game", "nmcs.games", BUILTIN_MODULES, _module_of, check=check_kernels
)


def register(game: Game) -> Game:
    """Add (or replace) a game; returns it, so a module can keep the record. ValueError (one
    line) for kernels that lack what ``nmcs.games.protocol`` requires of the game's kind."""
    return REGISTRY.register(game.name, game)


def names() -> list[str]:
    """The registered games: the built-in ones in ``BUILTIN_MODULES`` order (whatever imported
    first), then the others in registration order."""
    return REGISTRY.names()


def game(name: str) -> Game:
    """The record of game ``name``; ValueError listing the choices if there is none."""
    return REGISTRY.get(name)


def checked_options(options_class: type, given: dict[str, Any]) -> Any:
    """``options_class(**given)`` after its ``check()``: what every ``make_state`` starts with."""
    options = options_class(**given)
    options.check()
    return options
