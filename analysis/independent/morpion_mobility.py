"""Morpion Solitaire 5D from the standard cross: random and mobility playouts by a plain Python
implementation written from the rules and the Reflexive Monte-Carlo Search paper (Cazenave
2007) alone, to examine our engine's Reflexive Table 2 (best of N games with the mobility
heuristic: mean best-of-10 57.6 and best-of-100 59.7 against the paper's single runs of 60 and
61) and its mobility playouts that are no longer on average than random ones (42.2 vs 42.9).

Rules (5D, the paper's "non-touching version"). The start is the cross of 36 dots (a Greek
cross whose arms are 4 dots wide, inside a 10 x 10 box). A move adds one dot and draws a line of
5 consecutive dots through it (the new dot and 4 existing ones), horizontal, vertical or
diagonal; two lines in the same direction may not share a dot (not even an end dot); lines of
different directions may cross. The score is the number of moves.

Playouts. ``random``: uniform over the legal moves (the paper's ``chooseRandomMove``).
``mobility`` (paper section 2.3): "choosing randomly among the moves that lead to boards that
have the maximum number of possible moves"; a move's mobility is found by playing it on the
board and counting the legal moves of the new board, and the choice is uniform among the moves
of maximal mobility. Other readings, for comparison (``--count``): ``dots``, the number of
distinct cells where a dot can be added (several lines may add the same dot); ``nokill``, the
legal moves after the move without removing those its line kills; ``new``, only the moves the
move creates.

Nothing is shared with ``nmcs``: the board is a set of integer cells (x + y * 1024, no
edges within reach), the legal moves are kept as a list updated after each move and can be
checked against a from-scratch scan (``--check``), and randomness comes from Python's
``random``. Best-of-N values are the maxima of consecutive blocks of N single games.

    python -m analysis.independent.morpion_mobility --policy mobility --games 2000 --seed 1
    python -m analysis.independent.morpion_mobility --policy random --seconds 300 --json out.json
"""

import argparse
import json
import math
import random
import time
from collections import Counter

W = 1024  # cell = x + y * W; games stay within ~10 cells of the cross, far from any edge
STEPS = (1, W, W + 1, 1 - W)  # directions - | \ / as cell increments ((1,0) (0,1) (1,1) (1,-1))
CROSS = (
    "...####...",
    "...#..#...",
    "...#..#...",
    "####..####",
    "#........#",
    "#........#",
    "####..####",
    "...#..#...",
    "...#..#...",
    "...####...",
)
ORIGIN = 500  # the cross's box starts at (ORIGIN, ORIGIN)


def cell(x, y):
    return x + y * W


def xy(c):
    return c % W, c // W


class Board:
    """A position: dots, the cells covered by lines of each direction, the legal moves.

    A move is (direction, first cell of the line, new dot)."""

    def __init__(self):
        self.dots = {
            cell(ORIGIN + i, ORIGIN + j)
            for j, row in enumerate(CROSS)
            for i, ch in enumerate(row)
            if ch == "#"
        }
        self.used: list[set] = [set(), set(), set(), set()]
        self.score = 0
        self.moves = self.scan()

    def copy(self):
        b = Board.__new__(Board)
        b.dots = set(self.dots)
        b.used = [set(u) for u in self.used]
        b.score = self.score
        b.moves = list(self.moves)
        return b

    def window(self, d, first):
        """The move on the line of 5 cells from ``first`` along ``d``, or None if illegal."""
        step = STEPS[d]
        used = self.used[d]
        empty = None
        for i in range(5):
            c = first + i * step
            if c in used:
                return None
            if c not in self.dots:
                if empty is not None:
                    return None
                empty = c
        return None if empty is None else (d, first, empty)

    def scan(self):
        """All legal moves, from scratch: every window of 5 cells that touches a dot."""
        found = set()
        for p in self.dots:
            for d, step in enumerate(STEPS):
                for j in range(5):
                    m = self.window(d, p - j * step)
                    if m is not None:
                        found.add(m)
        return sorted(found)

    def _after(self, move):
        """Put the move's dot and line on the board; return the legal moves of the new board."""
        d, first, p = move
        step = STEPS[d]
        self.dots.add(p)
        self.used[d].update(first + i * step for i in range(5))
        # a listed move stays legal unless its dot is now taken or its line meets the new one
        line = self.used[d]
        kept = [
            m
            for m in self.moves
            if m[2] != p and (m[0] != d or all(m[1] + i * step not in line for i in range(5)))
        ]
        # the new moves are the windows through the new dot (it completed them)
        for dd, s in enumerate(STEPS):
            for j in range(5):
                m = self.window(dd, p - j * s)
                if m is not None:
                    kept.append(m)
        return kept

    def play(self, move):
        self.moves = self._after(move)
        self.score += 1

    def mobility(self, move, count="moves"):
        """Legal moves (or another ``count``, see COUNTS) of the board after ``move``, which is
        then undone."""
        d, first, p = move
        line = [first + i * STEPS[d] for i in range(5)]
        if count in ("moves", "dots"):
            after = self._after(move)
            value = len(after) if count == "moves" else len({m[2] for m in after})
        else:  # the windows the move completes, plus (nokill) the listed moves but its dot's
            self.dots.add(p)
            self.used[d].update(line)
            value = sum(
                self.window(dd, p - j * s) is not None
                for dd, s in enumerate(STEPS)
                for j in range(5)
            )
            if count == "nokill":
                value += sum(m[2] != p for m in self.moves)
        self.dots.discard(p)
        self.used[d].difference_update(line)
        return value


COUNTS = {
    "moves": "legal moves after the move (the paper's words)",
    "dots": "distinct cells where a dot can be added after the move",
    "nokill": "legal moves after the move, forgetting the moves its line kills",
    "new": "only the new moves the move creates",
}


def playout(board, rng, policy="random", count="moves", check=False):
    """Play a game to its end from ``board`` (modified); return its score and moves."""
    played = []
    while board.moves:
        if check:
            assert sorted(board.moves) == board.scan(), "incremental moves != scan"
        if policy == "random":
            move = rng.choice(board.moves)
        else:
            values = [board.mobility(m, count) for m in board.moves]
            top = max(values)
            move = rng.choice([m for m, v in zip(board.moves, values, strict=True) if v == top])
        board.play(move)
        played.append(move)
    return board.score, played


PSOL_DIRS = {"-": 0, "|": 1, "\\": 2, "/": 3}


def replay_psol(text):
    """Replay a game in Pentasol notation (first line the reference point (rx, ry), the cross's
    box starting at (rx - 3, ry - 3); then ``(x,y) dir k``, k the offset of the line's centre
    from the new dot); every move must be legal. Returns the final board."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    rx, ry = (int(v) for v in lines[0].strip("()").split(","))
    ox, oy = ORIGIN - (rx - 3), ORIGIN - (ry - 3)
    board = Board()
    for n, ln in enumerate(lines[1:], start=1):
        pos, dch, k = ln.split()
        x, y = (int(v) for v in pos.strip("()").split(","))
        d, step = PSOL_DIRS[dch], STEPS[PSOL_DIRS[dch]]
        p = cell(x + ox, y + oy)
        move = (d, p + (int(k) - 2) * step, p)
        if move not in board.moves:
            raise ValueError(f"move {n} {ln} is illegal")
        board.play(move)
    return board


def mean_ci(xs):
    n = len(xs)
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    return m, 1.96 * sd / math.sqrt(n), sd


def best_of(xs, n):
    return [max(xs[i : i + n]) for i in range(0, len(xs) - n + 1, n)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", choices=("random", "mobility"), default="mobility")
    parser.add_argument("--count", choices=tuple(COUNTS), default="moves")
    parser.add_argument("--games", type=int, default=1000, help="stop after this many games")
    parser.add_argument("--seconds", type=float, default=0, help="or after this many seconds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="check moves against a scan")
    parser.add_argument("--json", help="write the scores here")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    start_board = Board()
    scores: list[int] = []
    start = time.perf_counter()
    while len(scores) < args.games or args.seconds:
        if args.seconds and time.perf_counter() - start > args.seconds:
            break
        score, _ = playout(start_board.copy(), rng, args.policy, args.count, args.check)
        scores.append(score)
    seconds = time.perf_counter() - start
    m, half, sd = mean_ci(scores)
    print(
        f"5D {args.policy} ({args.count}): {len(scores)} games in {seconds:.0f} s, mean "
        f"{m:.2f} +- {half:.2f} (sd {sd:.2f}), max {max(scores)}"
    )
    for n in (10, 100):
        b = best_of(scores, n)
        if len(b) >= 2:
            bm, bh, _ = mean_ci(b)
            print(f"  best of {n}: mean {bm:.2f} +- {bh:.2f} over {len(b)} blocks")
    hist = Counter(scores)
    print("  histogram:", " ".join(f"{s}:{hist[s]}" for s in sorted(hist)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args), "seconds": seconds, "scores": scores}, f)


if __name__ == "__main__":
    main()
