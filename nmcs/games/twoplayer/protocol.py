"""The two-player game protocol: what a search may ask of any two-player game, plus the text
form of positions and moves.

Jitted (dispatch on the state's GAME slot, so one compiled search serves every registered
game; see ``layout`` for the state)::

    legal_moves(state, out) -> n   legal moves of the player to move (0 once the game is over)
    random_move(state, rng, buf)   a uniformly random legal move (the playout policy)
    play(state, move)              apply a legal move in place; settles WINNER when the game ends
    to_move(state) -> 0 | 1        the player to move
    is_terminal(state) -> bool
    outcome(state, player) -> int  +1 win, 0 draw (or not over), -1 loss for ``player``,
                                   misere applied
    depth(state) -> int            moves played since the initial position (PLY)
    max_moves(state), max_branching(state)   bounds for the search buffers

``legal_moves``, ``random_move``, ``play`` and ``max_moves`` are generated from the registered
game modules (``kernels()``, read as attributes of this module: ``protocol.play``): one module
per set of games, written into the numba cache folder
(``$NUMBA_CACHE_DIR/twoplayer/nmcs_twoplayer_games_<hash>.py``, the hash covering the game
modules' names and sources, so a new or edited game never loads stale machine code; rewritten
only when its text changes, so numba's on-disk cache holds; the text is filled in by
``nmcs.core.generated.twoplayer_protocol_source``), whose functions branch on GAME::

    @njit(cache=True)
    def play(state, move):
        g = state[GAME]
        if g == 0:
            g0.play(state, move)       # g0: nmcs.games.twoplayer.breakthrough
        elif g == 1:
        ...

A game module (``nmcs.games.twoplayer.breakthrough`` ... ``atarigo``, or a plugin's, registered
with ``nmcs.games.twoplayer.register_game``; docs/twoplayer.md, "Adding a two-player game")
holds::

    NAME                           the game's name (``game=``), lower-case letters
    DEFAULT_ROWS, DEFAULT_COLS     its usual board
    MIN_ROWS, MIN_COLS             optional: the smallest board side (default 2, at most 19)
    EXTRA_PLANES                   optional: scratch planes of N cells after the board (Go-like
                                   games: 2, MARK and STACK), default 0
    DRAWS                          optional: whether the game can end in a draw (default False)
    fill_initial(state)            Python: put the pieces of the initial position
    legal_moves(state, out) -> n   jitted, for the player to move (the game is not over)
    play(state, move)              jitted: apply a legal move, flip TO_MOVE, add 1 to PLY and
                                   settle WINNER (0, 1, or DRAW) when the game ends
    max_moves(state) -> int        jitted: a bound on the moves left from the state
    random_move(state, rng, buf)   optional, jitted: a faster uniform draw than generating
                                   every legal move (``buf`` holds max_branching moves)
    rule_winner(state) -> int      Python: the rule result of a position read from text
                                   (-1 going on, 0 or 1, DRAW); ValueError for an impossible one
    parsed(state, ply_given)       optional, Python: what a position read from text does not say
                                   (piece counts, PLY when the text has none); ValueError, one
                                   line, for a board no game reaches
    move_name(state, move) -> str  optional, Python: a move as text (default: its cell, ``c3``)
    parse_move(state, text) -> int optional, Python: the inverse (default: a cell)

Every game keeps the layout's header and cells (EMPTY, P0, P1), has at most
``max_branching(state) = 4 * ROWS * COLS`` legal moves, and its players alternate, player 0
first. Game ids are the registration order: the built-in five keep 0-4 (states and results
do not change), a plugin game gets the next one.

Python-level: ``make_state(game, **options)``, ``draw(state)`` / ``parse(text)`` (a position
as text and back), ``move_name`` / ``parse_move``, ``legal_move_list`` and ``apply_move``
(which raises ``IllegalMoveError`` with one line). Every bad input raises ``ValueError`` with
one line that names what is wrong.

Text of a position (``draw`` writes it, ``parse`` reads it; the ``ply`` part is optional)::

    breakthrough 8x8 misere, x to move, ply 0
    8 o o o o o o o o
    ...
    1 x x x x x x x x
      a b c d e f g h

A finished game is drawn with ``x won`` / ``o won`` / ``draw`` (the rule result, before misere)
instead of ``x to move``.
"""

import re
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit

from nmcs.core.generated import load_generated, source_digest, twoplayer_protocol_source
from nmcs.games.protocol import TwoPlayerRules, members, missing
from nmcs.games.twoplayer import atarigo, breakthrough, domineering, knightthrough, nogo
from nmcs.games.twoplayer.layout import (
    COLS,
    COUNT0,  # noqa: F401 (read as protocol.COUNT0)
    DRAW,
    EMPTY,
    GAME,
    HEADER,
    MAX_SIDE,
    MIN_SIDE,
    MISERE,
    ONGOING,
    P0,
    PLY,
    ROWS,
    STATE_DTYPE,
    TO_MOVE,
    WINNER,
    parse_square,
    square_name,
)

# The registered games, in id order (the id is the state's GAME slot): the built-in five keep
# ids 0-4, so states and results do not change; ``add_game`` appends the others.
BUILTIN_GAMES = (breakthrough, knightthrough, domineering, nogo, atarigo)
MODULES: dict[str, ModuleType] = {}
GAMES: dict[str, int] = {}
REQUIRED = members(TwoPlayerRules)  # the one game protocol (nmcs.games.protocol)
JITTED = ("legal_moves", "play", "max_moves")
SYMBOLS = {EMPTY: ".", P0: "x", P0 + 1: "o"}
PLAYER_SYMBOL = "xo"


_current: ModuleType | None = None  # the generated module of the games registered now


class IllegalMoveError(ValueError):
    """A move that is not legal in the position it is played in."""


def add_game(module: ModuleType) -> int:
    """Add a game module to the protocol (see the module docstring for what it holds); returns
    its id. Adding a module again returns its id; another module of the same name replaces
    it under the same id. ValueError (one line) for a module that lacks something."""
    lacking = missing(module, TwoPlayerRules)
    if lacking:
        raise ValueError(f"two-player game module {module.__name__}: no {', '.join(lacking)}")
    name = module.NAME
    if not isinstance(name, str) or not re.fullmatch(r"[a-z]+", name):
        raise ValueError(f"{module.__name__}: NAME must be lower-case letters, got {name!r}")
    for attr in (*JITTED, *(["random_move"] if hasattr(module, "random_move") else [])):
        if not hasattr(getattr(module, attr), "py_func"):
            raise ValueError(f"{module.__name__}.{attr} must be a numba @njit function")
    low = (min_rows(module), min_cols(module))
    if not all(isinstance(v, int) and MIN_SIDE <= v <= MAX_SIDE for v in low):
        raise ValueError(f"{name}: MIN_ROWS and MIN_COLS must be between {MIN_SIDE} and {MAX_SIDE}")
    global _current
    if name not in GAMES:
        GAMES[name] = len(GAMES)
    MODULES[name] = module
    _current = None
    return GAMES[name]


def min_rows(module: ModuleType) -> int:
    return getattr(module, "MIN_ROWS", MIN_SIDE)


def min_cols(module: ModuleType) -> int:
    return getattr(module, "MIN_COLS", MIN_SIDE)


for _builtin in BUILTIN_GAMES:
    add_game(_builtin)


# ---------------------------------------------------------------- jitted protocol


def kernels() -> ModuleType:
    """The generated module of the jitted protocol (``legal_moves``, ``random_move``, ``play``,
    ``max_moves``) over every registered game, ``NMCS_PLUGINS`` games included; numba compiles
    it on first use, or loads it from its cache."""
    global _current
    if _current is None:
        _load_plugins()
        digest = source_digest(*MODULES.values())
        text = twoplayer_protocol_source(MODULES, digest)
        _current = load_generated("twoplayer", f"nmcs_twoplayer_games_{digest}", text)
    return _current


def _load_plugins() -> None:
    from nmcs.games import registry  # the plugin games register through it

    registry.names()


def __getattr__(name: str) -> Any:
    if name in ("legal_moves", "random_move", "play", "max_moves"):
        return getattr(kernels(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@njit(cache=True, inline="always")
def to_move(state):
    return state[TO_MOVE]


@njit(cache=True, inline="always")
def is_terminal(state):
    return state[WINNER] != ONGOING


@njit(cache=True, inline="always")
def outcome(state, player):
    w = state[WINNER]
    if w == ONGOING or w == DRAW:
        return 0
    if state[MISERE] != 0:
        w = 1 - w
    return 1 if w == player else -1


@njit(cache=True, inline="always")
def depth(state):
    return state[PLY]


@njit(cache=True)
def max_branching(state):
    return 4 * state[ROWS] * state[COLS]


# ---------------------------------------------------------------- Python-level


def _module(state: np.ndarray) -> ModuleType:
    return list(MODULES.values())[int(state[GAME])]


def _state_size(module: ModuleType, n: int) -> int:
    return HEADER + (1 + getattr(module, "EXTRA_PLANES", 0)) * n


def _blank(game: str, rows: int, cols: int, misere: bool) -> np.ndarray:
    state = np.zeros(_state_size(MODULES[game], rows * cols), dtype=STATE_DTYPE)
    state[GAME], state[ROWS], state[COLS] = GAMES[game], rows, cols
    state[MISERE] = int(bool(misere))
    state[WINNER] = ONGOING
    return state


def _check_game(game: str) -> None:
    if game not in GAMES:
        _load_plugins()
    if game not in GAMES:
        raise ValueError(f"unknown two-player game {game!r} (known: {', '.join(GAMES)})")


def _check_size(game: str, rows, cols) -> None:
    mod = MODULES[game]
    for key, value, low in (("rows", rows, min_rows(mod)), ("cols", cols, min_cols(mod))):
        if not isinstance(value, int | np.integer) or isinstance(value, bool):
            raise ValueError(f"{game}: game.{key} must be an integer, got {value!r}")
        if not low <= value <= MAX_SIDE:
            raise ValueError(
                f"{game}: game.{key} must be between {low} and {MAX_SIDE}, got {value}"
            )


def make_state(
    game: str, rows: int | None = None, cols: int | None = None, misere: bool = False
) -> np.ndarray:
    """The initial position of ``game`` (its usual board size unless ``rows``/``cols``)."""
    _check_game(game)
    mod = MODULES[game]
    rows = mod.DEFAULT_ROWS if rows is None else rows
    cols = mod.DEFAULT_COLS if cols is None else cols
    _check_size(game, rows, cols)
    if not isinstance(misere, bool | np.bool_):
        raise ValueError(f"{game}: game.misere must be true or false, got {misere!r}")
    state = _blank(game, int(rows), int(cols), bool(misere))
    mod.fill_initial(state)
    return state


def game_name(state: np.ndarray) -> str:
    return list(GAMES)[int(state[GAME])]


def draw(state: np.ndarray) -> str:
    """The position as text (``parse`` reads it back)."""
    rows, cols = int(state[ROWS]), int(state[COLS])
    w = int(state[WINNER])
    if w == ONGOING:
        status = f"{PLAYER_SYMBOL[int(state[TO_MOVE])]} to move"
    elif w == DRAW:
        status = "draw"
    else:
        status = f"{PLAYER_SYMBOL[w]} won"
    misere = " misere" if state[MISERE] else ""
    width = len(str(rows))
    lines = [f"{game_name(state)} {rows}x{cols}{misere}, {status}, ply {int(state[PLY])}"]
    for r in range(rows):
        cells = " ".join(
            SYMBOLS[int(v)] for v in state[HEADER + r * cols : HEADER + (r + 1) * cols]
        )
        lines.append(f"{rows - r:>{width}} {cells}")
    lines.append(" " * width + " " + " ".join("abcdefghijklmnopqrs"[:cols]))
    return "\n".join(lines)


_HEAD = re.compile(
    r"^(?P<game>[a-z]+) (?P<rows>\d+)x(?P<cols>\d+)(?P<misere> misere)?, "
    r"(?:(?P<mover>[xo]) to move|(?P<won>[xo]) won|(?P<draw>draw))(?:, ply (?P<ply>\d+))?$"
)


def parse(text: str) -> np.ndarray:
    """A position from its text (as ``draw`` writes it). Raises ValueError with one line
    naming what is wrong."""
    lines = [ln.rstrip() for ln in text.strip("\n").splitlines() if ln.strip()]
    if not lines:
        raise ValueError("empty position text")
    head = _HEAD.match(lines[0].strip())
    if head is None:
        raise ValueError(
            f"bad first line {lines[0].strip()!r}: expected '<game> <rows>x<cols>[ misere], "
            "<x|o> to move[, ply <n>]'"
        )
    game = head["game"]
    _check_game(game)
    mod = MODULES[game]
    rows, cols = int(head["rows"]), int(head["cols"])
    _check_size(game, rows, cols)
    state = _blank(game, rows, cols, bool(head["misere"]))
    body = lines[1:]
    if body and not body[-1].strip()[:1].isdigit():
        body = body[:-1]  # the column letters
    if len(body) != rows:
        raise ValueError(f"{game} {rows}x{cols}: expected {rows} board rows, got {len(body)}")
    for r, line in enumerate(body):
        label, _, rest = line.strip().partition(" ")
        if label != str(rows - r):
            raise ValueError(f"board row {r + 1}: expected row label {rows - r}, got {label!r}")
        cells = rest.split()
        if len(cells) != cols:
            raise ValueError(f"row {rows - r}: expected {cols} cells, got {len(cells)}")
        for c, ch in enumerate(cells):
            if ch not in ".xo":
                raise ValueError(
                    f"row {rows - r}, column {'abcdefghijklmnopqrs'[c]}: "
                    f"unknown cell {ch!r} (use . x o)"
                )
            state[HEADER + r * cols + c] = ".xo".index(ch)
    if head["mover"] is not None:
        state[TO_MOVE] = "xo".index(head["mover"])
    elif head["won"] is not None:
        state[TO_MOVE] = 1 - "xo".index(head["won"])
    if head["ply"] is not None:
        state[PLY] = int(head["ply"])
    if hasattr(mod, "parsed"):  # counts, the PLY the text does not say, impossible boards
        mod.parsed(state, head["ply"] is not None)
    if head["draw"] is not None:
        if not getattr(mod, "DRAWS", False):
            raise ValueError(f"{game} has no draws")
        state[TO_MOVE] = state[PLY] % 2  # players alternate, x first
    winner = mod.rule_winner(state)
    if head["draw"] is not None and winner != DRAW:
        raise ValueError("the text says draw but the position says otherwise")
    if head["won"] is not None and winner != "xo".index(head["won"]):
        raise ValueError(f"the text says {head['won']} won but the position says otherwise")
    state[WINNER] = winner
    return state


def move_name(state: np.ndarray, move: int) -> str:
    """A move as text: ``e2e3`` (from, to) for the pawn games, the cell (``c3``) otherwise
    (a game's own ``move_name``, or its cell)."""
    mod = _module(state)
    if hasattr(mod, "move_name"):
        return mod.move_name(state, move)
    return square_name(int(state[ROWS]), int(state[COLS]), move)


def parse_move(state: np.ndarray, text: str) -> int:
    """The move code of a move's text (not checked for legality)."""
    mod = _module(state)
    if hasattr(mod, "parse_move"):
        return mod.parse_move(state, text.strip())
    return parse_square(int(state[ROWS]), int(state[COLS]), text.strip())


def legal_move_list(state: np.ndarray) -> list[int]:
    out = np.empty(max_branching(state), dtype=np.int32)
    n = kernels().legal_moves(state, out)
    return [int(m) for m in out[:n]]


def apply_move(state: np.ndarray, move: int) -> None:
    """Play ``move`` in place; ``IllegalMoveError`` (one line) if it is not legal."""
    legal = legal_move_list(state)
    if int(move) not in legal:
        who = PLAYER_SYMBOL[int(state[TO_MOVE])]
        if is_terminal(state):
            raise IllegalMoveError(f"{game_name(state)}: move {move} played after the game ended")
        try:
            name = move_name(state, int(move))
        except (ValueError, IndexError):
            name = "off the board"
        raise IllegalMoveError(
            f"{game_name(state)}: illegal move {int(move)} ({name}) for {who} at ply "
            f"{int(state[PLY])}; {len(legal)} legal moves"
        )
    kernels().play(state, np.int32(move))
