"""16x16 Sudoku (Cazenave 2009, section 5.3, Table 2): playouts to a solution of Nested
Monte-Carlo Search with memorization at levels 1 and 2, under three stop rules, by a plain
Python implementation written from the paper's text and pseudo-code alone, to check our
engine's counts and whether some stop rule gives the paper's level 2 / level 1 ratio (1.64 s /
1.34 s = 1.22). See docs/investigations/sudoku_stop_rule.md. Nothing is shared with the engine;
only the stored problems are read through ``nmcs.games.sudoku.io`` (16x16 int grids, 0 =
empty).

Model. Every cell is a variable whose domain holds the values its row, column and box allow;
assigning a value removes it from the domains of the cell's 39 peers, nothing more (no
singleton propagation). Givens are assigned first. The game is over when an unassigned cell has
an empty domain or every cell is assigned; the score is the number of assigned cells (givens
included, 256 = solved). The variable to assign is the unassigned cell of smallest domain
(ties: lowest index, cell = row * 16 + col); its values, in increasing order, are the legal
moves. A playout (the paper's ``sample``, counted once per call, even from a finished
position) plays uniformly random legal moves to the end.

Search. ``nested(level)`` follows the pseudo-code: at each step every legal move is played and
searched at level - 1 (a playout at level 1); the best sequence found so far is kept and
replaced only by a strictly better one (the first best move in value order wins a tie), and
its next move is played. Restarts from the problem until a search returns a solved grid.
Stop rules (``stop``): ``playout``, everything stops at the first playout that fills the grid;
``none``, no stop inside a search (the pseudo-code); ``lower``, a level >= 2 search stops as
soon as a lower search returns a solved grid, a level-1 search plays on to its end.

    python -m analysis.independent.sudoku_stop_rule --problems 0-9 --seed 0 --out run.csv
"""

import argparse
import csv
import os
import random
import time

SIZE, CELLS = 16, 256
FULL_MASK = (1 << SIZE) - 1
ASSIGNED = 99  # the "domain size" of an assigned cell, above any real size, so min() skips it
STOPS = ("playout", "none", "lower")
METHODS = ((1, "playout"), (1, "none"), (2, "playout"), (2, "none"), (2, "lower"))


def _peers(cell):
    r, c = divmod(cell, SIZE)
    br, bc = r // 4 * 4, c // 4 * 4
    box = {(br + i) * SIZE + bc + j for i in range(4) for j in range(4)}
    return tuple(
        sorted(({r * SIZE + k for k in range(SIZE)} | set(range(c, CELLS, SIZE)) | box) - {cell})
    )


PEERS = tuple(_peers(cell) for cell in range(CELLS))
# The set values of every 16-bit domain, indexed by the domain, so a random legal move is
# one table lookup rather than a bit scan.
VALUES = tuple(tuple(v for v in range(SIZE) if d >> v & 1) for d in range(1 << SIZE))


def assign(dom, sizes, cell, v):
    """Assign value index ``v`` (0-15) to ``cell`` in place."""
    bit = 1 << v
    dom[cell] = 0
    sizes[cell] = ASSIGNED
    for p in PEERS[cell]:
        d = dom[p]
        if d & bit:
            dom[p] = d ^ bit
            sizes[p] -= 1


def start(grid):
    """(domains, domain sizes, assigned count) of a problem (256 ints, 0 = empty)."""
    dom, sizes = [FULL_MASK] * CELLS, [SIZE] * CELLS
    for cell, value in enumerate(grid):
        if value:
            if not dom[cell] >> (value - 1) & 1:
                raise ValueError(f"given {value} at cell {cell} contradicts another given")
            assign(dom, sizes, cell, value - 1)
    return dom, sizes, sum(1 for value in grid if value)


class Cap(Exception):
    """The run reached its playout cap."""


class Search:
    """One restart-until-solved run; counts playouts across restarts."""

    def __init__(self, rng, level, stop, cap=None):
        if stop not in STOPS:
            raise ValueError(f"stop must be one of {STOPS}, got {stop!r}")
        self.random = rng.random
        self.level, self.stop, self.cap = level, stop, cap
        self.playouts, self.searches = 0, 0
        self.first_full = None  # playouts up to the first one that filled the grid

    def sample(self, dom, sizes, n):
        """A random game from the position (modified in place): (score, moves)."""
        self.playouts += 1
        if self.cap is not None and self.playouts > self.cap:
            raise Cap
        rnd, moves = self.random, []
        while True:
            m = min(sizes)
            if m == 0 or m == ASSIGNED:
                break
            cell = sizes.index(m)
            v = VALUES[dom[cell]][int(rnd() * m)]
            assign(dom, sizes, cell, v)
            moves.append((cell, v))
            n += 1
        if n == CELLS and self.first_full is None:
            # the three rules draw alike up to here, so this is also the "playout" rule's count
            self.first_full = self.playouts
        return n, moves

    def nested(self, dom, sizes, n, level):
        """One level-``level`` search from the position (modified in place): (score, moves)."""
        # Under "playout" a filled grid is only ever returned by the playout that filled it (or
        # by a search passing that playout up), so returning at once stops everything there.
        stops = self.stop == "playout" or (self.stop == "lower" and level >= 2)
        played: list = []
        best_score, best, i = -1, [], 0
        while True:
            m = min(sizes)
            if m == 0 or m == ASSIGNED:
                return n, played
            cell = sizes.index(m)
            for v in VALUES[dom[cell]]:
                d, s = dom[:], sizes[:]
                assign(d, s, cell, v)
                if level == 1:
                    score, tail = self.sample(d, s, n + 1)
                else:
                    score, tail = self.nested(d, s, n + 1, level - 1)
                if score == CELLS and stops:
                    return score, played + [(cell, v)] + tail
                if score > best_score:
                    best_score, best, i = score, [(cell, v)] + tail, 0
            move = best[i]
            i += 1
            assign(dom, sizes, *move)
            played.append(move)
            n += 1

    def solve(self, grid):
        """Search from the problem until a search returns a solved grid: the solution (256
        values 1-16), or None if the cap was reached."""
        dom0, sizes0, n0 = start(grid)
        try:
            while True:
                self.searches += 1
                score, moves = self.nested(dom0[:], sizes0[:], n0, self.level)
                if score == CELLS:
                    solution = list(grid)
                    for cell, v in moves:
                        solution[cell] = v + 1
                    return solution
        except Cap:
            self.playouts = self.cap
            return None


def parse_range(text):
    """'0-9,15' -> [0, 1, ..., 9, 15]."""
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default="0-9", help="stored problems, e.g. 0-9,15")
    parser.add_argument("--methods", default="all", help="e.g. 1:playout,2:lower")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cap", type=int, default=200_000, help="playouts per run (0: none)")
    parser.add_argument("--out", help="CSV, one row per (problem, method), appended as it goes")
    args = parser.parse_args(argv)
    from nmcs.games.sudoku import io as IO  # the problems only, as data

    problems = IO.stored_problems()
    methods: list[tuple[int, str]] = list(METHODS)
    if args.methods != "all":
        methods = [(int(lv), st) for lv, st in (m.split(":") for m in args.methods.split(","))]
    fields = ["problem", "level", "stop", "playouts", "solved", "seconds", "searches", "first_full"]
    f = writer = None
    if args.out:
        new = not os.path.exists(args.out) or os.path.getsize(args.out) == 0
        f = open(args.out, "a", newline="")
        writer = csv.DictWriter(f, fieldnames=fields)
        if new:
            writer.writeheader()
    for p in parse_range(args.problems):
        grid = [int(x) for x in problems[p].reshape(-1)]
        parts, t_problem = [], time.perf_counter()
        for level, stop in methods:
            # A string seed is hashed (sha512) by random.Random, so runs repeat exactly.
            search = Search(
                random.Random(f"{args.seed}/{p}/{level}/{stop}"), level, stop, args.cap or None
            )
            t0 = time.perf_counter()
            solution = search.solve(grid)
            seconds = time.perf_counter() - t0
            if solution is not None and not IO.check_solution(
                problems[p], [solution[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)]
            ):
                raise AssertionError(f"problem {p}, level {level} {stop}: invalid solution")
            row = dict(
                problem=p,
                level=level,
                stop=stop,
                playouts=search.playouts,
                solved=solution is not None,
                seconds=round(seconds, 3),
                searches=search.searches,
                first_full=search.first_full,
            )
            if writer is not None and f is not None:
                writer.writerow(row)
                f.flush()
            parts.append(f"L{level}/{stop} {search.playouts}{'' if solution else ' (cap)'}")
        print(
            f"problem {p} ({time.perf_counter() - t_problem:.0f} s): " + ", ".join(parts),
            flush=True,
        )
    if f:
        f.close()


if __name__ == "__main__":
    main()
