"""Left move problem, depth 60, iterative NMCS with memorization (NMCS paper Fig 5): the mean
best score against the number of playouts, for level 0 (exact) and level 1 (plain Python
simulation), to check our engine's curves on the machine-independent axis and to read the gap
between the two levels that the paper puts at "6 points".

Written from the paper's text, sharing no code with the engine:
- level 0 (iterative sampling): the best of N random games of 60 moves, each scoring a
  Binomial(60, 1/2); E[max] = sum_k P(max >= k) = sum_k (1 - F(k - 1)^N), exactly;
- level 1 with memorization, restarted until the budget: at each step both moves are tried in
  a random order, each followed by one random game; the best complete game is replaced only by
  a strictly better one, and its next move is played. A search's result counts once the search
  has finished (as the engine's anytime trace of an iterative search).

    python -m analysis.independent.leftmove_realtime --runs 200
"""

import argparse
import math
import random

DEPTH = 60
CHECKPOINTS = [2**k for k in range(7, 23)]


def level0_expected_best(n_playouts: int, depth: int = DEPTH) -> float:
    """E[best score of n random games], exactly."""
    cdf, below = [], 0.0
    for k in range(depth + 1):
        below += math.comb(depth, k) / 2**depth
        cdf.append(min(below, 1.0))
    return sum(1.0 - cdf[k - 1] ** n_playouts for k in range(1, depth + 1))


def level1_search(rng: random.Random, depth: int = DEPTH) -> tuple[int, int]:
    """One level-1 search with memorization: (score, playouts)."""
    played, best, best_tail, playouts = 0, -1, [], 0
    for pos in range(depth):
        remaining = depth - pos
        for move in rng.sample((1, 0), 2):
            tail = rng.getrandbits(remaining - 1) if remaining > 1 else 0
            playouts += 1
            score = played + move + tail.bit_count()
            if score > best:
                best = score
                best_tail = [move] + [(tail >> i) & 1 for i in range(remaining - 1)]
        played += best_tail.pop(0)  # the next move of the best game known
    return best, playouts


def level1_curve(rng: random.Random, checkpoints=CHECKPOINTS) -> list[int]:
    """One iterative level-1 run: at each checkpoint (a number of playouts), the best score of
    the searches finished by then (-1 before the first)."""
    out: list[int] = []
    best, used = -1, 0
    while len(out) < len(checkpoints):
        score, playouts = level1_search(rng)
        used += playouts
        while len(out) < len(checkpoints) and used > checkpoints[len(out)]:
            out.append(best)
        best = max(best, score)
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    curves = [level1_curve(rng) for _ in range(args.runs)]
    print("playouts,level0_exact,level1_mean,level1_ci95,gap")
    for j, n in enumerate(CHECKPOINTS):
        col = [c[j] for c in curves if c[j] >= 0]
        mean = sum(col) / len(col)
        sd = math.sqrt(sum((x - mean) ** 2 for x in col) / (len(col) - 1))
        l0 = level0_expected_best(n)
        print(f"{n},{l0:.2f},{mean:.2f},{1.96 * sd / math.sqrt(len(col)):.2f},{mean - l0:.2f}")


if __name__ == "__main__":
    main()
