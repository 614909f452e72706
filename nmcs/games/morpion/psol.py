"""Morpion Solitaire games in Pentasol notation (``.psol``), read and written with validation.

The convention is the one under which the reference files replay (``shared/data/README.md``)::

    (28,28)              line 1: reference point; the 10 x 10 box of the cross starts at
                         (rx - 3, ry - 3)
    (27,27) / 0          then one move per line: new dot (x, y), direction, k
    (31,35) | -2

Directions: ``-`` = (1, 0), ``|`` = (0, 1), ``/`` = (1, -1), ``\\`` = (1, 1), y growing downward.
k is the offset of the line's centre from the new dot (centre = dot + k * delta), so the new
dot is cell 2 - k of the line counted along delta (the engine's k, see ``nmcs.games.morpion``).

Reading replays every move through the engine's kernels and refuses the first illegal one; a
malformed or illegal file raises ValueError with one line: the file, the line number, the
reason. Blank lines are ignored.

    state0, moves = read_psol("tests/data/record_5D_82.psol", variant="5D")
    write_psol("best.psol", moves)
"""

import re
from pathlib import Path

import numpy as np

from nmcs.games.morpion import rules as M

DEFAULT_REF = (28, 28)
_REF = re.compile(r"^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)$")
_MOVE = re.compile(r"^\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)\s+([-|/\\])\s+([+-]?\d+)$")


def _offset(ref):
    """Board cell minus Pentasol point, for reference point ``ref``."""
    return M.BOX - (ref[0] - 3), M.BOX - (ref[1] - 3)


def move_to_psol(code, ref=DEFAULT_REF):
    """The Pentasol line of an engine move code, e.g. ``(27,27) / 0``."""
    x, y, d, k = M.decode(code)
    ox, oy = _offset(ref)
    return f"({x - ox},{y - oy}) {M.DIR_CHARS[d]} {_k_text(2 - k)}"


def _k_text(k):
    """Pentasol writes the offset as 0, +1, -2, ..."""
    return "0" if k == 0 else f"{k:+d}"


def psol_text(moves, ref=DEFAULT_REF):
    """A whole game in Pentasol notation."""
    lines = [f"({ref[0]},{ref[1]})"] + [move_to_psol(c, ref) for c in moves]
    return "\n".join(lines) + "\n"


def write_psol(path, moves, ref=DEFAULT_REF):
    """Write the game ``moves`` (engine codes from the starting cross) to ``path``."""
    Path(path).write_text(psol_text(moves, ref))


def parse_psol(text, source="<psol>"):
    """Reference point and raw moves ``[(line number, x, y, direction, k)]`` of a Pentasol
    text; only the syntax is checked here."""
    ref = None
    moves = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if ref is None:
            m = _REF.match(line)
            if not m:
                raise ValueError(
                    f"{source}:{lineno}: expected the reference point '(x,y)', got {line!r}"
                )
            ref = (int(m.group(1)), int(m.group(2)))
            continue
        m = _MOVE.match(line)
        if not m:
            raise ValueError(
                f"{source}:{lineno}: expected a move '(x,y) D k' with D one of "
                f"- | / \\, got {line!r}"
            )
        k = int(m.group(4))
        if not -2 <= k <= 2:
            raise ValueError(f"{source}:{lineno}: offset k must be between -2 and 2, got {k}")
        moves.append((lineno, int(m.group(1)), int(m.group(2)), M.DIR_CHARS.index(m.group(3)), k))
    if ref is None:
        raise ValueError(f"{source}:1: empty file, expected the reference point '(x,y)'")
    return ref, moves


def _why_illegal(state, cells, d, variant):
    """Reason a line (5 board cells along direction d) is not a legal move in ``state``."""
    if any(not (M.LO <= x <= M.HI and M.LO <= y <= M.HI) for x, y in cells):
        return "the line leaves the board"
    have = [_has_dot(state, x, y) for x, y in cells]
    missing = [c for c, h in zip(cells, have, strict=True) if not h]
    if len(missing) != 1:
        return f"the line needs 4 existing dots and 1 new one, it has {5 - len(missing)} dots"
    return f"the line overlaps a line in the same direction (rule {variant})"


def _has_dot(state, x, y):
    return bool((int(state[M.DOTS + y]) >> x) & 1)


def replay_psol(text, variant="5D", policy="random", source="<psol>"):
    """(initial state, int32 move codes) of a Pentasol game, every move checked legal."""
    ref, raw = parse_psol(text, source)
    ox, oy = _offset(ref)
    state0 = M.make_state(variant=variant, policy=policy)
    state = state0.copy()
    legal = np.empty(M.max_branching(state0), np.int32)
    moves = np.empty(len(raw), np.int32)
    for i, (lineno, px, py, d, kp) in enumerate(raw):
        x, y, k = px + ox, py + oy, 2 - kp
        text_move = f"move {i + 1} ({px},{py}) {M.DIR_CHARS[d]} {_k_text(kp)}"
        n = M.legal_moves(state, legal)
        if not (M.LO <= x <= M.HI and M.LO <= y <= M.HI):
            raise ValueError(f"{source}:{lineno}: {text_move} is illegal: the dot is off the board")
        if _has_dot(state, x, y):
            raise ValueError(f"{source}:{lineno}: {text_move} is illegal: the dot is already there")
        code = M.encode(x, y, d, k) if n else -1
        if code not in legal[:n]:
            dx, dy = M.DELTAS[d]
            cells = [(x + (j - k) * dx, y + (j - k) * dy) for j in range(5)]
            reason = _why_illegal(state, cells, d, variant) if n else "the game is over"
            raise ValueError(f"{source}:{lineno}: {text_move} is illegal under {variant}: {reason}")
        M.play(state, code)
        moves[i] = code
    return state0, moves


def read_psol(path, variant="5D", policy="random"):
    """(initial state, int32 move codes) of the Pentasol file ``path``; ValueError with one line
    (file:line: reason) for a malformed file or the first illegal move."""
    path = Path(path)
    try:
        text = path.read_text()
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}:1: not a text file ({err.reason})") from None
    return replay_psol(text, variant=variant, policy=policy, source=str(path))
