"""The dynamic programme of the NMCS paper, section 4.2: the exact score distribution of a
nested search without memorization on the left move problem.

Notation (the paper's, with binomial(d, s) for its C(s over d)):

- P_score(s, d, l): probability that a level-l search from a node with d moves left finds score s
  (the number of left moves it makes). Level 0 is one random playout: binomial(d, s) / 2**d.
- P_left(d, l): probability that a node with d moves left chooses the left move when it compares
  a level-l search after the left move with a level-l search after the right move, ties broken
  by a fair coin. A level-(l+1) search makes exactly this choice at every node, so
      P_score(s, d, l) = P_left(d, l-1) P_score(s-1, d-1, l)
                         + (1 - P_left(d, l-1)) P_score(s, d-1, l)
  with P_score(s, 0, l) = [s == 0], and
      P_left(d, l) = sum_s P_score(s-1, d-1, l)
                           * (P_score(s, d-1, l) / 2 + sum_{i<s} P_score(i, d-1, l)).

Everything is computed bottom-up in O(level * depth**2) operations: in float64 with numpy
(``score_distribution``, ``left_probability``) or exactly in fractions (``*_exact``), which the
tests use to pin small depths.
"""

from fractions import Fraction
from functools import lru_cache
from math import comb

import numpy as np

MAX_DEPTH = 1000


def _check(depth, level) -> tuple[int, int]:
    """``depth`` and ``level`` as Python ints (numpy integers accepted); ValueError naming the
    argument otherwise."""
    for name, value in (("depth", depth), ("level", level)):
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if not 1 <= depth <= MAX_DEPTH:
        raise ValueError(f"depth must be between 1 and {MAX_DEPTH}, got {depth}")
    if level < 0:
        raise ValueError(f"level must be >= 0, got {level}")
    return int(depth), int(level)


def _left_from_child(child):
    """P_left at a node whose two children have score distribution ``child`` (one level)."""
    # The left search scores 1 + X, the right one Y, X and Y independent with law ``child``:
    # P(left) = sum_x P(X = x) (P(Y = x + 1) / 2 + P(Y <= x)).
    tie = np.append(child[1:], 0.0)
    return float(np.dot(child, tie / 2.0 + np.cumsum(child)))


def _tables(depth, level):
    """dist[l][d] = P_score(., d, l) for d = 0..depth and l = 0..level (float64)."""
    return _cached_tables(max(128, 1 << (depth - 1).bit_length()), level)


@lru_cache(maxsize=16)
def _cached_tables(depth, level):
    # Tables for a depth serve every smaller depth, so compute once for a power of two.
    binomial = [np.array([1.0])]
    for d in range(1, depth + 1):
        prev = binomial[d - 1]
        binomial.append((np.append(prev, 0.0) + np.append(0.0, prev)) / 2.0)
    dist = [binomial]
    for lev in range(1, level + 1):
        lower = dist[lev - 1]
        row = [np.array([1.0])]
        for d in range(1, depth + 1):
            p_left = _left_from_child(lower[d - 1])
            prev = row[d - 1]
            row.append(p_left * np.append(0.0, prev) + (1.0 - p_left) * np.append(prev, 0.0))
        dist.append(row)
    return dist


def score_distribution(depth, level):
    """float64 array of length depth+1: entry s is P_score(s, depth, level)."""
    depth, level = _check(depth, level)
    return _tables(depth, level)[level][depth].copy()


def left_probability(depth, level):
    """P_left(depth, level): probability that level-``level`` searches after each move make a
    node with ``depth`` moves left choose the left move."""
    depth, level = _check(depth, level)
    return _left_from_child(_tables(depth - 1, level)[level][depth - 1])


def best_score_probability(depth, level):
    """Probability that a level-``level`` search without memorization finds the best score
    (all ``depth`` moves to the left)."""
    return float(score_distribution(depth, level)[depth])


def _left_exact(child):
    p = Fraction(0)
    for x, px in enumerate(child):
        s = x + 1
        tie = child[s] if s < len(child) else Fraction(0)
        p += px * (tie / 2 + sum(child[:s], Fraction(0)))
    return p


def score_distribution_exact(depth, level):
    """P_score(., depth, level) as a list of Fractions (for tests and small depths)."""
    depth, level = _check(depth, level)
    return _distribution_exact(depth, level)


def _distribution_exact(depth, level):
    rows = [[Fraction(comb(d, s), 2**d) for s in range(d + 1)] for d in range(depth + 1)]
    for _ in range(level):
        lower = rows
        rows = [[Fraction(1)]]
        for d in range(1, depth + 1):
            p_left = _left_exact(lower[d - 1])
            prev = rows[d - 1]
            cur = [Fraction(0)] * (d + 1)
            for s, ps in enumerate(prev):
                cur[s + 1] += p_left * ps
                cur[s] += (1 - p_left) * ps
            rows.append(cur)
    return rows[depth]


def left_probability_exact(depth, level):
    """P_left(depth, level) as a Fraction."""
    depth, level = _check(depth, level)
    return _left_exact(_distribution_exact(depth - 1, level))
