"""SameGame boards in and out (plain Python): the standard test set, random boards, checked moves.

Board file format (``standard_testset_20.txt``, Schadd et al. 2008): boards of H text rows of W
space-separated colours 0..K-1, the FIRST text row being the TOP row of the board, boards
separated by one blank line. Any malformed input raises ValueError with one line naming the file,
the board and the row.

Where the standard set is read from, first found wins:
1. ``$NMCS_DATA_DIR/samegame/standard_testset_20.txt`` when NMCS_DATA_DIR is set (it must exist);
2. ``../shared/data/samegame/standard_testset_20.txt`` beside the repository;
3. the copy shipped in the package, ``nmcs/data/samegame_standard_testset_20.txt``
   (byte-identical, md5 de26499403bcafff9f1cbe4f8687ec70; the tests check it).
"""

import functools
import hashlib
import os
from pathlib import Path

import numpy as np

from nmcs.games.samegame import rules as sg
from nmcs.games.samegame.rules import MAX_COLORS, MAX_SIDE

STANDARD_FILE = "standard_testset_20.txt"
STANDARD_MD5 = "de26499403bcafff9f1cbe4f8687ec70"
STANDARD_SHAPE = (15, 15)
STANDARD_COLORS = 5
STANDARD_COUNT = 20
REPO_ROOT = Path(__file__).resolve().parents[3]
PACKAGED = Path(__file__).resolve().parents[2] / "data" / "samegame_standard_testset_20.txt"


def shared_standard_path():
    """The shared copy of the standard set (NMCS_DATA_DIR or ../shared/data), or None."""
    env = os.environ.get("NMCS_DATA_DIR")
    if env:
        path = Path(env) / "samegame" / STANDARD_FILE
        if not path.is_file():
            raise ValueError(f"NMCS_DATA_DIR={env}: {path} does not exist")
        return path
    path = REPO_ROOT.parent / "shared" / "data" / "samegame" / STANDARD_FILE
    return path if path.is_file() else None


def standard_path():
    """The file the standard set is read from (see the module docstring)."""
    return shared_standard_path() or PACKAGED


def md5(path):
    return hashlib.md5(Path(path).read_bytes()).hexdigest()


def parse_boards(text, width, height, colors, count=None, source="<text>"):
    """Boards of ``text`` as a list of H x W int8 arrays (row 0 = top row)."""
    boards: list[np.ndarray] = []
    rows: list[list[int]] = []
    first_line = 1
    lines = text.splitlines()

    def close(end_line):
        b = len(boards)
        if len(rows) != height:
            raise ValueError(
                f"{source}: board {b} (lines {first_line}-{end_line}) has {len(rows)} rows, "
                f"expected {height}"
            )
        boards.append(np.array(rows, dtype=np.int8))

    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if not fields:
            if rows:
                close(number - 1)
                rows = []
            continue
        if not rows:
            first_line = number
        b, r = len(boards), len(rows)
        where = f"{source}: board {b} row {r} (line {number})"
        if r >= height:
            raise ValueError(f"{where}: more than {height} rows (missing blank line?)")
        if len(fields) != width:
            raise ValueError(f"{where}: {len(fields)} cells, expected {width}")
        try:
            values = [int(f) for f in fields]
        except ValueError:
            raise ValueError(f"{where}: not an integer in '{line.strip()}'") from None
        bad = [v for v in values if not 0 <= v < colors]
        if bad:
            raise ValueError(f"{where}: colour {bad[0]} out of range 0..{colors - 1}")
        rows.append(values)
    if rows:
        close(len(lines))
    if count is not None and len(boards) != count:
        raise ValueError(f"{source}: {len(boards)} boards, expected {count}")
    return boards


def load_boards(path, width=15, height=15, colors=5, count=None):
    path = Path(path)
    return parse_boards(path.read_text(), width, height, colors, count, source=str(path))


@functools.cache
def standard_set():
    """The 20 positions of the standard test set, each 15 x 15 (row 0 = top row)."""
    w, h = STANDARD_SHAPE
    return tuple(load_boards(standard_path(), w, h, STANDARD_COLORS, STANDARD_COUNT))


def standard_board(instance):
    """Position ``instance`` (0..19) of the standard test set."""
    if isinstance(instance, bool) or not isinstance(instance, (int, np.integer)):
        raise ValueError(f"game.instance must be an integer 0..19 or null, got {instance!r}")
    if not 0 <= instance < STANDARD_COUNT:
        raise ValueError(f"game.instance must be 0..{STANDARD_COUNT - 1} or null, got {instance}")
    return standard_set()[instance].copy()


def random_board(seed, width=15, height=15, colors=5):
    """A board of uniformly random colours drawn from ``seed`` (row 0 = top row)."""

    for key, value, top in (
        ("width", width, MAX_SIDE),
        ("height", height, MAX_SIDE),
        ("colors", colors, MAX_COLORS),
    ):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"game.{key} must be an integer, got {value!r}")
        if not 1 <= value <= top:
            raise ValueError(f"game.{key} must be 1..{top}, got {value}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"game.board_seed must be a non-negative integer, got {seed!r}")
    rng = np.random.default_rng(seed)
    return rng.integers(0, colors, size=(height, width)).astype(np.int8)


def group_cells(state, cell):
    """Cells (codes) of the group containing ``cell`` in the current board, sorted."""

    w, h, k = int(state[sg.WIDTH]), int(state[sg.HEIGHT]), int(state[sg.COLORS])
    grid = state[sg.HDR + w + k :]
    color = grid[cell]
    if color < 0:
        return []
    seen, stack = {cell}, [cell]
    while stack:
        i = stack.pop()
        c, r = divmod(i, h)
        for cc, rr in ((c, r + 1), (c, r - 1), (c - 1, r), (c + 1, r)):
            j = cc * h + rr
            if 0 <= cc < w and 0 <= rr < h and j not in seen and grid[j] == color:
                seen.add(j)
                stack.append(j)
    return sorted(seen)


def check_move(state, move, index=None):
    """Raise ValueError (one line) unless ``move`` is a legal move code in ``state``."""

    w, h = int(state[sg.WIDTH]), int(state[sg.HEIGHT])
    at = f"move {index} " if index is not None else "move "
    if isinstance(move, bool) or not isinstance(move, (int, np.integer)):
        raise ValueError(f"{at}{move!r}: not an integer cell code")
    move = int(move)
    if not 0 <= move < w * h:
        raise ValueError(f"{at}{move}: cell code out of range 0..{w * h - 1}")
    c, r = divmod(move, h)
    cell = f"{at}{move} (column {c}, row {r} from the bottom)"
    group = group_cells(state, move)
    if not group:
        raise ValueError(f"{cell} is not a legal group: the cell is empty")
    if len(group) < 2:
        raise ValueError(f"{cell} is not a legal group: a single cell cannot be removed")
    if group[0] != move:
        raise ValueError(
            f"{cell} is not a legal move code: a group is played by its smallest cell, {group[0]}"
        )


def apply_move(state, move, index=None):
    """Play ``move`` on ``state`` in place after checking that it is a legal group."""

    check_move(state, move, index)
    sg.play(state, np.int32(move))
    return state


def replay(state0, moves):
    """The state after playing ``moves`` from a copy of ``state0``, each move checked."""
    state = np.array(state0, copy=True)
    for t, move in enumerate(moves):
        apply_move(state, move, index=t)
    return state
