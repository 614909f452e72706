"""Depth 9, level 3, left move problem: the probability of finding the best score, by a plain
Python Nested Monte-Carlo Search written from the paper's pseudo-code (section 3), to examine
the paper's 0.80 with memorization against our engine's 0.813.

Variants (``--memorize``): which levels keep and follow their best sequence.
- ``all``: every level 1..L memorizes (the pseudo-code read literally, our engine's default);
- ``2+``: levels >= 2 memorize, level 1 does not (the pseudo-code's ``sample`` returns a score,
  not a sequence, so "best sequence = seq. after move" has no playout to keep at level 1);
- ``none``: no level memorizes (the dynamic programme: 0.4118 at depth 9, level 3).
Ties between the two moves are broken uniformly at random, as the paper's analysis assumes; the
best sequence is replaced only by a strictly better one (line 7: ``>``).

    python -m analysis.independent.leftmove_memorization --searches 100000 --memorize 2+
"""

import argparse
import math
import random
import time

LEFT, RIGHT = 1, 0  # a move is its contribution to the score


def sample(rng, remaining):
    """A random game of ``remaining`` moves (the paper's ``sample``), as its move list."""
    return [rng.getrandbits(1) for _ in range(remaining)]


def nested(rng, remaining, level, memorize_levels):
    """One nested search of ``level`` over ``remaining`` moves: (score, moves played)."""
    memorize = level in memorize_levels
    played, score = [], 0
    best_score, best_tail = -1, []
    while remaining > 0:
        results = []
        for move in (LEFT, RIGHT):
            if level == 1:
                tail = sample(rng, remaining - 1)
                child_score = sum(tail)
            else:
                child_score, tail = nested(rng, remaining - 1, level - 1, memorize_levels)
            results.append((score + move + child_score, [move, *tail]))
        top = max(r[0] for r in results)
        chosen = rng.choice([r for r in results if r[0] == top])
        if memorize:
            if chosen[0] > best_score:
                best_score, best_tail = chosen
            move, best_tail = best_tail[0], best_tail[1:]
        else:
            move = chosen[1][0]
        played.append(move)
        score += move
        remaining -= 1
    return score, played


def wilson(k, n, z=1.959964):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


VARIANTS = {
    "all": lambda level: set(range(1, level + 1)),
    "2+": lambda level: set(range(2, level + 1)),
    "none": lambda level: set(),
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--searches", type=int, default=10000)
    parser.add_argument("--memorize", choices=tuple(VARIANTS), default="all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    levels = VARIANTS[args.memorize](args.level)
    start = time.perf_counter()
    hits = sum(
        nested(rng, args.depth, args.level, levels)[0] == args.depth for _ in range(args.searches)
    )
    low, high = wilson(hits, args.searches)
    print(
        f"depth {args.depth}, level {args.level}, memorize {args.memorize}: P(best) "
        f"{hits / args.searches:.4f} [{low:.4f}, {high:.4f}] (n={args.searches}, "
        f"{time.perf_counter() - start:.0f} s)"
    )


if __name__ == "__main__":
    main()
