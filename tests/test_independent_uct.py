"""Our UCT (``algo=uct``) against the independent plain-Python UCT written from the Reflexive
paper's formula (``analysis.independent.uct_leftmove``, which shares no code with the engine),
on the depth-60 left move problem: the mean best score of each constant agrees (two-sample
z-test, Bonferroni over the two constants), and both put C = 1 above C = 0.1 at 300
simulations (docs/investigations/morpion_uct_constant.md)."""

import random

import numpy as np
import pytest
from scipy import stats

from analysis.independent import uct_leftmove as I
from nmcs.games.leftmove import make_state
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.statistical

SIMS, SEARCHES = 300, 300


def test_engine_and_independent_uct_agree_for_each_constant():
    means = {}
    for c in (0.1, 1.0):
        ours = search_batch(
            "leftmove",
            make_state(depth=60),
            search_seeds(0, 0, SEARCHES),
            algo="uct",
            max_playouts=SIMS,
            uct_c=c,
            workers=1,
        ).score.astype(float)
        rng = random.Random(7)
        theirs = np.array([I.uct(60, c, SIMS, rng) for _ in range(SEARCHES)], float)
        z = (ours.mean() - theirs.mean()) / np.hypot(
            ours.std(ddof=1) / np.sqrt(SEARCHES), theirs.std(ddof=1) / np.sqrt(SEARCHES)
        )
        assert abs(z) < stats.norm.ppf(1 - 0.001 / 4), (c, ours.mean(), theirs.mean())
        means[c] = (ours.mean(), theirs.mean())
    # The constant matters the same way in both: about 3 points at 300 simulations.
    assert means[1.0][0] > means[0.1][0] + 1 and means[1.0][1] > means[0.1][1] + 1


def test_independent_uct_finds_the_best_score_of_a_short_problem():
    # Depth 3 has 8 games; 20 simulations try them all, so the best score, 3, is found.
    assert I.uct(3, 0.1, 20, random.Random(0)) == 3
