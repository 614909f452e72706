"""The exact score distribution of nested Monte-Carlo search WITH memorization on the left move
problem (NMCS paper, section 4.2), for the engine's exact algorithm (``nmcs/search/nested.py``).

The tree: ``depth`` steps, moves 0 = LEFT and 1 = RIGHT legal at each, score = number of left
moves; a playout picks each move with probability 1/2. Every subtree with ``n`` moves left is
the same tree, so a level-k search at such a node always has the same law, whatever the path
to the node: the recursion below runs over (level, moves left).

The engine's level-k step (k >= 1), at a node with ``n`` moves left:

- both children are searched by a level-(k-1) search, the left one first; the left child's
  candidate scores 1 + X, the right one's Y (X, Y independent, law of the level-(k-1) score
  at n-1 moves left). The step's best child is the higher; a tie takes the right child with
  probability 1/2 (reservoir sampling, ``below(rng, 2) == 0``, which is exactly 1/2: it reads
  the top bit of one 64-bit draw);
- a level that memorizes (``k >= memorize_from``) replaces its best sequence by the step's best
  child (its move and the sequence the child's search returned) only when the child's score is
  strictly greater than the best sequence's; the first step always replaces (best = NO_SCORE).
  It then plays the best sequence's next move. A level that does not memorize (``k <
  memorize_from``) plays the step's best child's move;
- the search returns the moves it played (with memorization, its best sequence).

**The state.** A memorized search's future depends on its best sequence's suffix from the
current node (call it ``s``, n moves): at each later step the candidates are compared with the
score of what is left of ``s``, so the whole profile of partial scores matters, and that
profile is ``s`` itself. The prefix already played matters only through its score. Level k+1
memorizes sequences *returned* by level k and then follows them move by move, so what level
k+1 needs of level k is the law of the whole returned sequence, not only of its score: the
returned sequences of a level-1 search are not exchangeable (the choice at each step has its
own probability), so their law is not a function of the score. The recursion therefore carries

    Q[k][n]: the law of the sequence a level-k search returns from a node with n moves left,
             a vector over the 2**n sequences (index: move t is bit n-1-t, 1 = RIGHT),

with Q[0][n] uniform (a playout) and, for k >= 1, Q[k][n] from Q[k-1][n-1], ..., Q[k-1][0] by
running the level-k chain on full sequences: after step t, the law of (moves played, best
sequence's suffix) is a 2**t x 2**(n-t) array, and one step is

    new[p, u] = old[p, u] * G(|u|) + C(u) * sum_{s : |s| < |u|} old[p, s]     (memorizing)
    new[p, u] = (sum_s old[p, s]) * C(u)                                      (not memorizing)

where |u| is the score (left moves) of suffix u, C(u) is the probability that the step's best
child is u (its move and its child's returned sequence, tie rule included) and G(m) =
P(both candidates score <= m). The sum over s is grouped by score, so a step costs O(2**n)
and a level-k table up to depth d costs O(k * d * 2**d) time and O(2**d) memory.

How small the state can be (documented in docs/investigations/leftmove_memorization.md):
``minimal_state_classes`` partitions the suffixes of a top-level memorized search by the law
of the final score they lead to; the classes are computed exactly, not assumed.

Numbers: exact in ``fractions.Fraction`` (``exact=True``; every probability is a dyadic
rational, since each random event is a fair coin), or float64 (the default). The float64
computation only adds and multiplies nonnegative numbers, so each computed probability p~ of a
true p satisfies |p~ - p| <= gamma_K p + 2**-1000, with gamma_K = K u / (1 - K u), u = 2**-53,
K the longest chain of roundings leading to it (Higham, Accuracy and Stability of Numerical
Algorithms, 2nd ed., section 3.1 and Lemma 3.3; ``rounding_bound`` returns gamma_K), and
2**-1000 a loose bound on what underflow adds: the probabilities of the lowest scores are far
below the smallest float64 (P(score 0) at depth 12, level 3, for one) and come out as 0. Each
product that underflows is off by at most 2**-1075, the maps that carry those errors on never
increase a vector's total, and there are fewer than 2**70 products at depth 24.

Without memorization at any level (``memorize_from > level``) the search is the existing
dynamic programme of ``nmcs.theory.leftmove`` (which the tests check this module against); the
public functions below delegate to it then, which has no depth limit.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache, lru_cache
from typing import Any

import numpy as np

from nmcs.theory import leftmove

MAX_LEVEL = 6
MAX_DEPTH_FLOAT = 24  # 2**24 float64 entries (128 MiB) per table; depth 20 takes ~seconds
MAX_DEPTH_EXACT = 14  # Fractions with numerators of thousands of bits: depth 12 takes ~seconds
UNIT_ROUNDOFF = 2.0**-53


def check_arguments(depth: Any, level: Any, memorize_from: Any, exact: bool = False) -> None:
    """ValueError with one line unless the arguments name a search this module computes."""
    for name, value in (("depth", depth), ("level", level)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if not 0 <= level <= MAX_LEVEL:
        raise ValueError(f"level must be an integer from 0 to {MAX_LEVEL}, got {level}")
    if memorize_from is not None:
        if isinstance(memorize_from, bool) or not isinstance(memorize_from, int | np.integer):
            raise ValueError(f"memorize_from must be an integer or None, got {memorize_from!r}")
        if memorize_from < 1:
            raise ValueError(f"memorize_from must be >= 1, got {memorize_from}")
    limit = MAX_DEPTH_EXACT if exact else MAX_DEPTH_FLOAT
    if not memorizes(level, memorize_from):
        limit = leftmove.MAX_DEPTH
    if not 1 <= depth <= limit:
        kind = "exact" if exact else "float64"
        what = f"{kind}, with memorization" if memorizes(level, memorize_from) else kind
        raise ValueError(f"depth must be between 1 and {limit} ({what}), got {depth}")


def memorizes(level: int, memorize_from: int | None) -> bool:
    """Whether a level-``level`` search memorizes at any level (``None``: never)."""
    return memorize_from is not None and 1 <= memorize_from <= level


# --- The recursion over returned sequences -------------------------------------------------------


@cache
def _layout(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the 2**n sequences of n moves: their scores (left moves, i.e. zero bits), the order
    that sorts them by score, and where each score's block starts in that order."""
    scores = n - np.array([bin(i).count("1") for i in range(1 << n)], dtype=np.int64)
    order = np.argsort(scores, kind="stable")
    starts = np.searchsorted(scores[order], np.arange(n + 1))
    return scores, order, starts


def _scores(n: int) -> np.ndarray:
    return _layout(n)[0]


def _sum_by_score(a: np.ndarray, n: int) -> np.ndarray:
    """Along the last axis (2**n sequences): the sums over the sequences of each score 0..n."""
    _, order, starts = _layout(n)
    return np.add.reduceat(a[..., order], starts, axis=-1)


def _exclusive_cumsum(a: np.ndarray, zero: Any) -> np.ndarray:
    """Along the last axis: entry j is the sum of entries < j (entry 0 is ``zero``)."""
    out = np.empty_like(a)
    out[..., 0] = zero
    if a.shape[-1] > 1:
        out[..., 1:] = np.cumsum(a[..., :-1], axis=-1)
    return out


def _step_kernel(lower: np.ndarray, n: int, zero: Any, tie_right: Any):
    """C and G of one step at a node with ``n`` moves left, whose children's searches return
    sequences with law ``lower`` (2**(n-1) entries).

    C[u] (2**n entries): probability that the step's best child is u (first bit: the move).
    G[m] (n+1 entries): probability that both candidates score <= m."""
    f = _sum_by_score(lower, n - 1)  # law of X (and of Y), scores 0..n-1
    below_ = _exclusive_cumsum(f, zero)  # below_[j] = P(X < j), j = 0..n-1
    # P(X < j) and P(X = j) for j = 0..n (P(X = n) = 0, P(X < n) = sum of all)
    lt = np.append(below_, below_[-1] + f[-1])
    eq = np.append(f, zero)
    x = _scores(n - 1)
    # Left child with X = x scores 1 + x: wins against Y < 1 + x and ties with Y = 1 + x.
    w_left = lt[x + 1] + (1 - tie_right) * eq[x + 1]
    # Right child with Y = y wins against 1 + X < y, i.e. X < y - 1, and ties X = y - 1.
    prev = np.maximum(x - 1, 0)
    w_right = np.where(x >= 1, lt[prev] + tie_right * eq[prev], zero)
    c = np.concatenate([lower * w_left, lower * w_right])
    # G[m] = P(1 + X <= m) P(Y <= m) = P(X < m) P(X < m + 1), m = 0..n
    g = lt * np.append(lt[1:], lt[-1])
    return c, g


def _chain(n: int, memorize: bool, lower, num: dict) -> np.ndarray:
    """Q[k][n] from lower(m) = Q[k-1][m], m < n (the module docstring's chain)."""
    zero, tie_right = num["zero"], num["tie_right"]
    if n == 0:
        return np.array([num["one"]], dtype=num["dtype"])
    dist = None
    for t in range(n):
        rem = n - t
        c, g = _step_kernel(lower(rem - 1), rem, zero, tie_right)
        if dist is None:  # the first step: no best sequence yet, the best child is taken
            dist = c
            continue
        old = dist.reshape(1 << t, 1 << rem)
        if memorize:
            scores = _scores(rem)
            mass = _sum_by_score(old, rem)  # [prefix, score of the suffix]
            lower_mass = _exclusive_cumsum(mass, zero)  # mass of the suffixes scoring < j
            new = old * g[scores] + c[None, :] * lower_mass[:, scores]
        else:
            new = old.sum(axis=1)[:, None] * c[None, :]
        dist = new.reshape(-1)
    assert dist is not None
    return dist


def _numbers(exact: bool, tie_right: Fraction) -> dict:
    if exact:
        return {"dtype": object, "zero": Fraction(0), "one": Fraction(1), "tie_right": tie_right}
    return {"dtype": np.float64, "zero": 0.0, "one": 1.0, "tie_right": float(tie_right)}


class _Laws:
    """Q[k][n] on demand, each computed once, for one (memorize_from, exact, tie rule)."""

    def __init__(self, memorize_from: int | None, exact: bool, tie_right: Fraction):
        self.memorize_from = memorize_from
        self.num = _numbers(exact, tie_right)
        self.exact = exact
        self.known: dict[tuple[int, int], np.ndarray] = {}

    def __call__(self, k: int, n: int) -> np.ndarray:
        key = (k, n)
        if key not in self.known:
            if k == 0:
                p = Fraction(1, 1 << n) if self.exact else 2.0**-n
                law = np.full(1 << n, p, dtype=self.num["dtype"])
            else:
                mf = self.memorize_from
                memorize = mf is not None and k >= mf
                law = _chain(n, memorize, lambda m: self(k - 1, m), self.num)
            self.known[key] = law
        return self.known[key]


@lru_cache(maxsize=16)
def _laws(memorize_from: int | None, exact: bool, tie_right: Fraction) -> _Laws:
    return _Laws(memorize_from, exact, tie_right)


# --- Public functions ----------------------------------------------------------------------------


def sequence_distribution(
    depth: int,
    level: int,
    memorize_from: int | None = 1,
    exact: bool = False,
    tie_right: Fraction = Fraction(1, 2),
) -> np.ndarray:
    """Law of the move sequence a level-``level`` search returns on a tree of ``depth`` moves:
    2**depth entries, entry i for the sequence whose move t is bit depth-1-t of i (1 = RIGHT).

    ``memorize_from``: the lowest level that memorizes (the engine's ``memorize_from``; None or
    > level: no memorization). ``exact``: Fractions (object array) instead of float64.
    ``tie_right``: probability that a tie between the two children goes to the right child
    (the engine: 1/2; 0 = ties to the left child, 1 = to the right one)."""
    check_arguments(depth, level, memorize_from, exact)
    limit = MAX_DEPTH_EXACT if exact else MAX_DEPTH_FLOAT
    if depth > limit:
        raise ValueError(f"depth must be at most {limit} for the law of whole sequences")
    mf = memorize_from if memorizes(level, memorize_from) else None
    return _laws(mf, exact, Fraction(tie_right))(level, depth).copy()


def score_distribution(
    depth: int,
    level: int,
    memorize_from: int | None = 1,
    exact: bool = False,
    tie_right: Fraction = Fraction(1, 2),
) -> np.ndarray | list[Fraction]:
    """Law of the score of a level-``level`` search on a tree of ``depth`` moves: entry s is
    P(score = s), s = 0..depth; float64 array, or a list of Fractions with ``exact``.

    Without memorization (``memorize_from`` None or > level) and the engine's tie rule, this is
    ``nmcs.theory.leftmove``'s dynamic programme (any depth up to its limit)."""
    check_arguments(depth, level, memorize_from, exact)
    if not memorizes(level, memorize_from) and Fraction(tie_right) == Fraction(1, 2):
        if exact:
            return leftmove.score_distribution_exact(depth, level)
        return leftmove.score_distribution(depth, level)
    q = sequence_distribution(depth, level, memorize_from, exact, tie_right)
    by_score = _sum_by_score(q, depth)
    return list(by_score) if exact else by_score


def best_score_probability_exact(
    depth: int, level: int, memorize_from: int | None = 1, tie_right: Fraction = Fraction(1, 2)
) -> Fraction:
    """P(the search finds the best score, all ``depth`` moves left), as a Fraction."""
    return score_distribution(depth, level, memorize_from, exact=True, tie_right=tie_right)[depth]


def best_score_probability(depth: int, level: int, memorize_from: int | None = 1) -> float:
    """P(best score) of a level-``level`` search on a tree of ``depth`` moves with the engine's
    ``memorize_from`` (None or > level: no memorization), in float64: within
    ``rounding_bound(depth, level, memorize_from)`` relative error of the exact value. For the
    analysis: the exact P(best) of any (depth, level, memorize_from) cell of the left move."""
    return float(score_distribution(depth, level, memorize_from)[depth])


def rounding_bound(depth: int, level: int, memorize_from: int | None = 1) -> float:
    """gamma_K = K u / (1 - K u): a bound on the relative error of every float64 probability
    that ``score_distribution(depth, level, memorize_from)`` returns for a search that
    memorizes (module docstring). The float64 recursion only adds and multiplies nonnegative
    numbers, and (1 + theta_j)(1 + theta_k) = 1 + theta_{j+k} with |theta_k| <= gamma_k
    (Higham, Lemma 3.3), so K is the count of roundings ``_roundings`` adds up along the
    recursion: a sum of N nonnegative terms adds N - 1 to the largest count among its terms (in
    any order), a product adds 1 to the sum of its operands' counts. Underflow adds an
    absolute error of at most 2**-1000 on top (module docstring).

    A search without memorization is the dynamic programme of ``nmcs.theory.leftmove``, which
    subtracts (1 - P_left): no bound of this kind; tests/test_theory.py checks it against its
    fractions to 1e-14."""
    check_arguments(depth, level, memorize_from)
    if not memorizes(level, memorize_from):
        raise ValueError("no level memorizes: the bound covers the memorized recursion only")
    mf = memorize_from if memorize_from is not None else level + 1
    k = _roundings(level, depth, mf) + (1 << depth)  # + the final sum by score
    ku = k * UNIT_ROUNDOFF
    return ku / (1.0 - ku)


@cache
def _roundings(k: int, n: int, memorize_from: int) -> int:
    """Largest count of roundings behind an entry of the float64 Q[k][n] (``rounding_bound``),
    step by step as ``_step_kernel`` and ``_chain`` compute it."""
    if k == 0 or n == 0:
        return 0  # 2**-n and 1 are exact
    count = 0
    for t in range(n):
        rem = n - t
        lower = _roundings(k - 1, rem - 1, memorize_from)
        law = lower + (1 << (rem - 1))  # f: sums of up to 2**(rem-1) entries of Q
        lt = law + rem  # cumulative sums of up to rem terms (and the last total)
        weight = lt + 2  # lt + (1/2) eq: one sum; the product by 1/2 is exact
        c = lower + weight + 1
        g = 2 * lt + 1
        if t == 0:
            count = c
        elif k >= memorize_from:
            below = count + (1 << rem) + rem  # grouped by score, then cumulative sums
            count = max(count + g + 1, c + below + 1) + 1
        else:
            count = count + (1 << rem) + c + 1
    return count


# --- The smallest sufficient state ---------------------------------------------------------------


def final_score_given_suffix(
    depth: int, level: int, memorize_from: int = 1, steps_done: int = 1, exact: bool = True
) -> dict[int, tuple]:
    """For a memorized top-level search after ``steps_done`` steps (n = depth - steps_done moves
    left): for each possible best-sequence suffix s (an int, n bits), the law of the score the
    search adds from here on (a tuple over 0..n). Two suffixes with equal laws are the same
    state for the top-level score; ``minimal_state_classes`` groups them."""
    check_arguments(depth, level, memorize_from, exact)
    if not (level >= 1 and memorizes(level, memorize_from)):
        raise ValueError("the top level must memorize")
    num = _numbers(exact, Fraction(1, 2))
    laws = _laws(memorize_from, exact, Fraction(1, 2))
    n = depth - steps_done
    # Backward: V[m][s] = law of the score added from a node with m moves left and suffix s.
    value = {0: np.array([[num["one"]]], dtype=num["dtype"])}  # V[0]: 1 x 1, score 0
    for m in range(1, n + 1):
        c, g = _step_kernel(laws(level - 1, m - 1), m, num["zero"], num["tie_right"])
        scores = _scores(m)
        prev = value[m - 1]  # 2**(m-1) x m
        # From suffix u (its first bit is the move played), the rest is u's tail.
        cont = np.zeros((1 << m, m + 1), dtype=num["dtype"])
        if num["dtype"] is object:
            cont[:] = num["zero"]
        half_n = 1 << (m - 1)
        cont[:half_n, 1:] = prev  # first move LEFT: +1
        cont[half_n:, :m] = prev
        v = np.empty_like(cont)
        for s in range(1 << m):
            better = scores > scores[s]
            v[s] = g[scores[s]] * cont[s] + (c[better][:, None] * cont[better]).sum(axis=0)
        value[m] = v
    return {s: tuple(value[n][s]) for s in range(1 << n)}


def minimal_state_classes(
    depth: int, level: int, memorize_from: int = 1, steps_done: int = 1
) -> list[list[str]]:
    """The suffixes (as strings of L and R) grouped by the exact law of the score they lead to:
    the coarsest partition of the memorized suffix that keeps the top-level score's law."""
    laws = final_score_given_suffix(depth, level, memorize_from, steps_done, exact=True)
    n = depth - steps_done
    groups: dict[tuple, list[str]] = {}
    for s, law in laws.items():
        word = "".join("R" if (s >> (n - 1 - t)) & 1 else "L" for t in range(n))
        groups.setdefault(law, []).append(word)
    return sorted(groups.values())
