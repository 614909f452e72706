"""The independent left-move real-time check (analysis/independent/leftmove_realtime.py): its
exact level-0 curve and its level-1 search, on cases small enough to count by hand."""

import itertools
import random

import pytest

from analysis.independent import leftmove_realtime as R

pytestmark = pytest.mark.statistical


def test_level0_expected_best_is_the_brute_force_mean_on_a_small_tree():
    depth, n = 3, 2
    games = list(itertools.product((0, 1), repeat=depth))
    pairs = list(itertools.product(games, repeat=n))
    brute = sum(max(sum(g) for g in pair) for pair in pairs) / len(pairs)
    assert abs(R.level0_expected_best(n, depth) - brute) < 1e-12
    assert R.level0_expected_best(1, depth) == depth / 2


def test_a_level1_search_tries_both_moves_at_every_step_and_keeps_its_best_game():
    rng = random.Random(0)
    for depth in (1, 2, 5, 30):
        scores = []
        for _ in range(200):
            score, playouts = R.level1_search(rng, depth)
            assert playouts == 2 * depth and 0 <= score <= depth
            scores.append(score)
        # the first step alone sees a random game of each first move: the best of two games
        # of `depth` moves, which memorization never loses
        assert sum(scores) / len(scores) >= R.level0_expected_best(2, depth) - 0.3
    assert all(R.level1_search(rng, 1)[0] == 1 for _ in range(20))  # both moves are tried


def test_a_curve_never_decreases_and_starts_after_the_first_search():
    curve = R.level1_curve(random.Random(1), checkpoints=[100, 128, 1024, 4096])
    assert curve[0] == -1  # a search of depth 60 costs 120 playouts
    assert curve[1:] == sorted(curve[1:]) and curve[1] > 0
