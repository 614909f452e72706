"""The dynamic programme of NMCS section 4.2, pinned by hand-computed fractions."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

from nmcs.theory.leftmove import (
    best_score_probability,
    left_probability,
    left_probability_exact,
    score_distribution,
    score_distribution_exact,
)

pytestmark = pytest.mark.unit


def test_level0_is_the_binomial():
    for d in (1, 5, 17):
        assert score_distribution_exact(d, 0) == [Fraction(comb(d, s), 2**d) for s in range(d + 1)]


def test_depth1_level0_left_is_certain():
    # Left child scores 1, right child 0: the left move always wins.
    assert left_probability_exact(1, 0) == 1


def test_depth2_level0_by_hand():
    # Left sample 1 + B, right sample B' (B, B' fair bits): left wins on (1,0), (2,0), (2,1),
    # ties on (1,1) and takes half of it: 3/4 + 1/8.
    assert left_probability_exact(2, 0) == Fraction(7, 8)
    assert score_distribution_exact(2, 1) == [0, Fraction(1, 8), Fraction(7, 8)]


def test_depth3_level1_by_hand():
    # Level 1 at depth 3 picks left with P_left(3, 0) at the root, then P_left(2, 0) = 7/8,
    # then always left. P_left(3, 0): left scores 1 + Bin(2), right Bin(2), ties half.
    left = [Fraction(c, 4) for c in (1, 2, 1)]  # law of Bin(2)
    p = sum(
        left[x] * (sum(left[: x + 1]) + (left[x + 1] if x + 1 < 3 else 0) / 2) for x in range(3)
    )
    assert left_probability_exact(3, 0) == p
    assert score_distribution_exact(3, 1)[3] == p * Fraction(7, 8)


@pytest.mark.parametrize("depth,level", [(1, 0), (4, 1), (9, 3), (13, 2)])
def test_float_matches_exact(depth, level):
    exact = np.array([float(x) for x in score_distribution_exact(depth, level)])
    np.testing.assert_allclose(score_distribution(depth, level), exact, rtol=0, atol=1e-14)
    assert left_probability(depth, level) == pytest.approx(
        float(left_probability_exact(depth, level)), abs=1e-14
    )


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_distributions_sum_to_one_up_to_depth_100(level):
    for depth in range(1, 101):
        dist = score_distribution(depth, level)
        assert dist.shape == (depth + 1,) and dist.dtype == np.float64
        assert dist.min() >= 0
        assert dist.sum() == pytest.approx(1.0, abs=1e-12)


def test_levels_improve_the_mean_score():
    means = [score_distribution(60, lev) @ np.arange(61) for lev in range(4)]
    assert means == sorted(means) and means[0] == pytest.approx(30)


def test_best_score_probability_depth9_level3():
    # The paper quotes 0.41 for this cell; the exact programme gives 0.4118 to 4 decimals.
    assert best_score_probability(9, 3) == pytest.approx(0.4118, abs=5e-5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="depth"):
        score_distribution(0, 1)
    with pytest.raises(ValueError, match="level"):
        score_distribution(5, -1)
