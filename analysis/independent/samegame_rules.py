"""SameGame game files (``.sgm``) replayed by a plain Python implementation of the rules, written
from the NMCS paper's section 5.2 alone, sharing no code with ``nmcs``: the records report
(``analysis.samegame_records``) counts a saved game only when this replay and the engine's reader
(``nmcs.games.samegame.gamefile.read_game``) give the score its file is named with.

Rules. A move removes a group of at least 2 orthogonally connected cells of one colour and scores
(n - 2)^2; the cells above fall down, an empty column is closed by shifting the columns on its
right to the left; clearing the board adds 1,000. The game ends when no group of 2 or more cells
remains.

The file: ``colors K``, then ``board`` and its text rows (the first is the TOP row, ``.`` an empty
cell), then ``moves``, one a line: ``c r +p``, the column from the left and the row from the bottom
of the group's lowest cell in its leftmost column, on the board as it stands at that move, and the
points it scores (the move that clears the board scores the bonus too). Here a board is a list of
columns, each a list of colours from the bottom up; every move must name such a cell of a group of
2 or more, score the points its line says, and the game must end where the file ends.

    python -m analysis.independent.samegame_rules GAME.sgm [...]   # prints each file's score
"""

import sys
from dataclasses import dataclass
from pathlib import Path

CLEAR_BONUS = 1000


@dataclass
class Replay:
    score: int
    moves: int
    board: list[list[int]]  # the initial board, as text rows from the top


def parse(text: str) -> tuple[list[list[int]], list[tuple[int, int, int]]]:
    """The board's text rows (top first; -1 empty) and the moves (column, row, points)."""
    lines = [ln.strip() for ln in text.splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    if "board" not in lines or "moves" not in lines:
        raise ValueError("no 'board' or no 'moves' line")
    at_board, at_moves = lines.index("board"), lines.index("moves")
    rows = [
        [-1 if v == "." else int(v) for v in ln.split()] for ln in lines[at_board + 1 : at_moves]
    ]
    if not rows or len({len(r) for r in rows}) != 1:
        raise ValueError("the board's rows are not all of one length")
    moves = []
    for ln in lines[at_moves + 1 :]:
        c, r, p = ln.split()
        if not p.startswith("+"):
            raise ValueError(f"move line '{ln}': points written as +p")
        moves.append((int(c), int(r), int(p[1:])))
    return rows, moves


def columns_of(rows: list[list[int]]) -> list[list[int]]:
    """The board as columns, each from the bottom up, without its empty cells (gravity: a cell
    above an empty one is refused) and without empty columns on the left of a full one."""
    height, width = len(rows), len(rows[0])
    columns = []
    for c in range(width):
        column = [rows[height - 1 - r][c] for r in range(height)]
        filled = [v for v in column if v >= 0]
        if column[: len(filled)] != filled:
            raise ValueError(f"column {c} has a cell above an empty one")
        columns.append(filled)
    while columns and not columns[-1]:
        columns.pop()
    if any(not column for column in columns):
        raise ValueError("an empty column left of a filled one")
    return columns


def group(columns: list[list[int]], c: int, r: int) -> set[tuple[int, int]]:
    """The cells (column, row) of the group that holds (c, r)."""
    colour = columns[c][r]
    seen, stack = {(c, r)}, [(c, r)]
    while stack:
        x, y = stack.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (nx, ny) in seen or not 0 <= nx < len(columns) or not 0 <= ny < len(columns[nx]):
                continue
            if columns[nx][ny] == colour:
                seen.add((nx, ny))
                stack.append((nx, ny))
    return seen


def any_group(columns: list[list[int]]) -> bool:
    """Whether a group of 2 or more cells is left (two equal neighbours)."""
    for c, column in enumerate(columns):
        for r, colour in enumerate(column):
            if r + 1 < len(column) and column[r + 1] == colour:
                return True
            if c + 1 < len(columns) and r < len(columns[c + 1]) and columns[c + 1][r] == colour:
                return True
    return False


def play(columns: list[list[int]], c: int, r: int, t: int = 0) -> tuple[list[list[int]], int]:
    """The board after move ``t``, (c, r), and the points it scores (with the clear bonus when
    it empties the board); ValueError (one line naming the move) unless (c, r) is the lowest cell
    in the leftmost column of a group of 2 or more."""
    if not (0 <= c < len(columns) and 0 <= r < len(columns[c])):
        raise ValueError(f"move {t} ({c} {r}): an empty cell")
    cells = group(columns, c, r)
    if len(cells) < 2:
        raise ValueError(f"move {t} ({c} {r}): a single cell")
    if min(cells) != (c, r):
        raise ValueError(f"move {t} ({c} {r}): not its group's lowest cell in its leftmost column")
    after = [
        [v for y, v in enumerate(column) if (x, y) not in cells] for x, column in enumerate(columns)
    ]
    after = [column for column in after if column]
    return after, (len(cells) - 2) ** 2 + (CLEAR_BONUS if not after else 0)


def replay_sgm(text: str) -> Replay:
    """Replay a ``.sgm`` game; ValueError (one line naming the move) if a move is not a group's
    reference cell, scores other points than its line says, or the game goes on after the file."""
    rows, moves = parse(text)
    columns = columns_of(rows)
    score = 0
    for t, (c, r, points) in enumerate(moves):
        columns, gained = play(columns, c, r, t)
        if gained != points:
            raise ValueError(f"move {t} ({c} {r}): scores {gained}, the file says +{points}")
        score += gained
    if any_group(columns):
        raise ValueError(f"the game does not end after its {len(moves)} moves")
    return Replay(score=score, moves=len(moves), board=rows)


def main(argv: list[str] | None = None) -> int:
    for name in argv if argv is not None else sys.argv[1:]:
        try:
            done = replay_sgm(Path(name).read_text())
        except (ValueError, OSError) as error:
            print(f"{name}: {error}", file=sys.stderr)
            return 1
        print(f"{name}: {done.score} points in {done.moves} moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
