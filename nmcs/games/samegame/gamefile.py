"""SameGame game files (``.sgm``): a board and the moves played on it, as plain text that a
person can check by hand, written for a record and read back and replayed before it counts.

    # SameGame: 4,123 points in 61 moves
    colors 5
    board
    3 1 1 4 1 0 4 0 4 4 1 1 0 2 3        the board, first text row = TOP row (15 rows here)
    ...
    moves
    0 0 +4                               column from the left, row from the bottom, of the
    ...                                  group's lowest cell in its leftmost column, on the
                                         board as it stands at that move; the points it scores

Reading replays every move through ``io.check_move`` (a flood fill of its own, not the game's
kernels), so a file that does not give a legal game is refused with one line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nmcs.games.samegame import io
from nmcs.games.samegame import rules as sg

SUFFIX = ".sgm"


def write_game(state0: np.ndarray, moves: np.ndarray, path: str | Path) -> int:
    """Write the game ``moves`` from ``state0`` to ``path``; returns its score."""
    state = np.array(state0, copy=True)
    h = int(state[sg.HEIGHT])
    lines = []
    for t, move in enumerate(np.asarray(moves, np.int64)):
        before = int(state[sg.SCORE])
        io.apply_move(state, int(move), index=t)
        lines.append(f"{int(move) // h} {int(move) % h} +{int(state[sg.SCORE]) - before}")
    score = int(state[sg.SCORE])
    grid = sg.to_grid(state0)
    text = [
        f"# SameGame: {score:,} points in {len(lines)} moves",
        f"colors {int(state0[sg.COLORS])}",
        "board",
        *(" ".join(str(int(v)) if v >= 0 else "." for v in row) for row in grid),
        "moves",
        *lines,
    ]
    Path(path).write_text("\n".join(text) + "\n")
    return score


def read_game(path: str | Path) -> tuple[np.ndarray, np.ndarray]:
    """(initial state, moves) of a game file, every move replayed and checked; ValueError (one
    line naming the file) for a malformed file or an illegal move."""
    path = Path(path)
    try:
        lines = [ln.strip() for ln in path.read_text().splitlines()]
        lines = [ln for ln in lines if ln and not ln.startswith("#")]
        colors = int(lines[0].split()[1]) if lines[0].startswith("colors ") else None
        board_at, moves_at = lines.index("board"), lines.index("moves")
        rows = [
            [-1 if v == "." else int(v) for v in ln.split()]
            for ln in lines[board_at + 1 : moves_at]
        ]
        state0 = sg.state_from_grid(np.array(rows), colors=colors)
        h = int(state0[sg.HEIGHT])
        moves = []
        for ln in lines[moves_at + 1 :]:
            c, r = (int(v) for v in ln.split()[:2])
            moves.append(c * h + r)
        io.replay(state0, moves)
    except (ValueError, IndexError, OSError) as error:
        raise ValueError(f"{path}: not a SameGame game file: {error}") from None
    return state0, np.asarray(moves, np.int32)


def save_checked(state0: np.ndarray, moves: np.ndarray, path_stem: str | Path) -> int:
    """Write a game as ``path_stem`` + ``.sgm`` and ``.png`` (every move, the group outlined),
    read the ``.sgm`` back and replay it; returns the replayed score. ValueError (one line) if the
    file does not give back the same board and moves."""
    from nmcs.games.samegame.draw import save_game_strip  # noqa: PLC0415 - matplotlib on demand

    stem = str(path_stem)
    write_game(state0, moves, stem + SUFFIX)
    save_game_strip(state0, moves, stem + ".png")
    board, replayed = read_game(stem + SUFFIX)
    same_board = np.array_equal(sg.to_grid(board), sg.to_grid(state0))
    if not same_board or not np.array_equal(replayed, np.asarray(moves, np.int32)):
        raise ValueError(f"{stem}{SUFFIX}: the file does not replay to the game written")
    return int(io.replay(board, replayed)[sg.SCORE])
