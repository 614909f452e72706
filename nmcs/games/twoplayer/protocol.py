"""The two-player game protocol: what a search may ask of any two-player game, plus the text
form of positions and moves.

Jitted (dispatch on the state's GAME slot, so one compiled search serves every game, and the
on-disk cache holds; see ``layout`` for the state)::

    legal_moves(state, out) -> n   legal moves of the player to move (0 once the game is over)
    random_move(state, rng, buf)   a uniformly random legal move (the playout policy)
    play(state, move)              apply a legal move in place; settles WINNER when the game ends
    to_move(state) -> 0 | 1        the player to move
    is_terminal(state) -> bool
    outcome(state, player) -> int  +1 win, 0 draw (or not over), -1 loss for ``player``,
                                   misere applied
    depth(state) -> int            moves played since the initial position (PLY)
    max_moves(state), max_branching(state)   bounds for the search buffers

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

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.games.twoplayer import atarigo, breakthrough, domineering, go, knightthrough, nogo
from nmcs.games.twoplayer.layout import (
    COLS,
    COUNT0,
    DRAW,
    EMPTY,
    GAME,
    HEADER,
    MAX_SIDE,
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

BREAKTHROUGH, KNIGHTTHROUGH, DOMINEERING, NOGO, ATARIGO = range(5)
MODULES = {
    "breakthrough": breakthrough,
    "knightthrough": knightthrough,
    "domineering": domineering,
    "nogo": nogo,
    "atarigo": atarigo,
}
GAMES = {name: i for i, name in enumerate(MODULES)}
GO_LIKE = (NOGO, ATARIGO)
SYMBOLS = {EMPTY: ".", P0: "x", P0 + 1: "o"}
PLAYER_SYMBOL = "xo"


class IllegalMoveError(ValueError):
    """A move that is not legal in the position it is played in."""


# ---------------------------------------------------------------- jitted protocol


@njit(cache=True)
def legal_moves(state, out):
    if state[WINNER] != ONGOING:
        return 0
    g = state[GAME]
    if g == BREAKTHROUGH:
        return breakthrough.legal_moves(state, out)
    if g == KNIGHTTHROUGH:
        return knightthrough.legal_moves(state, out)
    if g == DOMINEERING:
        return domineering.legal_moves(state, out)
    if g == NOGO:
        return nogo.legal_moves(state, out)
    return atarigo.legal_moves(state, out)


@njit(cache=True)
def random_move(state, rng, buf):
    """A uniformly random legal move (the game is not over); ``buf`` holds max_branching
    moves. The pawn and Go-like games draw by rejection instead of generating every legal
    move."""
    g = state[GAME]
    if g == NOGO or g == ATARIGO:
        return go.random_legal_stone(state, rng, buf, g == ATARIGO)
    if g == BREAKTHROUGH or g == KNIGHTTHROUGH:
        return breakthrough.pawn_random_move(state, rng, buf, g == KNIGHTTHROUGH)
    n = legal_moves(state, buf)
    return buf[below(rng, n)]


@njit(cache=True)
def play(state, move):
    g = state[GAME]
    if g == BREAKTHROUGH:
        breakthrough.play(state, move)
    elif g == KNIGHTTHROUGH:
        knightthrough.play(state, move)
    elif g == DOMINEERING:
        domineering.play(state, move)
    elif g == NOGO:
        nogo.play(state, move)
    else:
        atarigo.play(state, move)


@njit(cache=True)
def has_move(state, player):
    g = state[GAME]
    if g == BREAKTHROUGH:
        return breakthrough.has_move(state, player)
    if g == KNIGHTTHROUGH:
        return knightthrough.has_move(state, player)
    if g == DOMINEERING:
        return domineering.has_move(state, player)
    if g == NOGO:
        return nogo.has_move(state, player)
    return atarigo.has_move(state, player)


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
def max_moves(state):
    """Upper bound on the moves left from ``state``: pawns only move forward (Knightthrough
    at least one row a move), dominoes cover two cells, stones one."""
    rows, cols = state[ROWS], state[COLS]
    n = rows * cols
    g = state[GAME]
    if g == BREAKTHROUGH or g == KNIGHTTHROUGH:
        return n * (rows - 1)
    return n


@njit(cache=True)
def max_branching(state):
    return 4 * state[ROWS] * state[COLS]


# ---------------------------------------------------------------- Python-level


def _state_size(game_id: int, n: int) -> int:
    return HEADER + (3 * n if game_id in GO_LIKE else n)


def _blank(game: str, rows: int, cols: int, misere: bool) -> np.ndarray:
    gid = GAMES[game]
    state = np.zeros(_state_size(gid, rows * cols), dtype=STATE_DTYPE)
    state[GAME], state[ROWS], state[COLS] = gid, rows, cols
    state[MISERE] = int(bool(misere))
    state[WINNER] = ONGOING
    return state


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown two-player game {game!r} (known: {', '.join(GAMES)})")


def _check_size(game: str, rows, cols) -> None:
    mod = MODULES[game]
    for key, value, low in (("rows", rows, mod.MIN_ROWS), ("cols", cols, 2)):
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
    board = state[HEADER : HEADER + rows * cols]
    stones = int((board != EMPTY).sum())
    if GAMES[game] in (BREAKTHROUGH, KNIGHTTHROUGH):  # only the pawn games keep counts
        state[COUNT0] = int((board == P0).sum())
        state[COUNT0 + 1] = int((board == P0 + 1).sum())
    if head["mover"] is not None:
        state[TO_MOVE] = "xo".index(head["mover"])
    elif head["won"] is not None:
        state[TO_MOVE] = 1 - "xo".index(head["won"])
    if head["ply"] is not None:
        state[PLY] = int(head["ply"])
    elif GAMES[game] == DOMINEERING:
        state[PLY] = stones // 2
    elif GAMES[game] in GO_LIKE:
        state[PLY] = stones
    if GAMES[game] == DOMINEERING and stones % 2:
        raise ValueError("domineering: an odd number of covered cells")
    winner = MODULES[game].rule_winner(state)
    if head["draw"] is not None:
        raise ValueError(f"{game} has no draws")
    if head["mover"] is None and winner != "xo".index(head["won"]):
        raise ValueError(f"the text says {head['won']} won but the position says otherwise")
    state[WINNER] = winner
    return state


def move_name(state: np.ndarray, move: int) -> str:
    """A move as text: ``e2e3`` (from, to) for the pawn games, the cell (``c3``) otherwise."""
    rows, cols = int(state[ROWS]), int(state[COLS])
    n = rows * cols
    if int(state[GAME]) in (BREAKTHROUGH, KNIGHTTHROUGH):
        return square_name(rows, cols, move // n) + square_name(rows, cols, move % n)
    return square_name(rows, cols, move)


def parse_move(state: np.ndarray, text: str) -> int:
    """The move code of a move's text (not checked for legality)."""
    rows, cols = int(state[ROWS]), int(state[COLS])
    text = text.strip()
    if int(state[GAME]) in (BREAKTHROUGH, KNIGHTTHROUGH):
        m = re.fullmatch(r"([a-s]\d+)([a-s]\d+)", text)
        if m is None:
            raise ValueError(f"bad move {text!r}: expected from and to squares, e.g. 'e2e3'")
        return parse_square(rows, cols, m[1]) * rows * cols + parse_square(rows, cols, m[2])
    return parse_square(rows, cols, text)


def legal_move_list(state: np.ndarray) -> list[int]:
    out = np.empty(max_branching(state), dtype=np.int32)
    n = legal_moves(state, out)
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
    play(state, np.int32(move))
