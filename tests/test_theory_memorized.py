"""The exact law of memorized NMCS on the left move (nmcs/theory/leftmove_memorized.py), pinned
by hand-computed fractions, by the dynamic programme without memorization, by a second,
independent implementation (the engine's loop in plain Python, every random outcome enumerated
with its exact probability), and by goodness-of-fit tests against the real engine: quick
batches here, and the committed paper-scale cells (results/paper/leftmove_memorize_from)."""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nmcs.theory import leftmove
from nmcs.theory import leftmove_memorized as memorized
from nmcs.theory.__main__ import main as theory_main

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[1]
F = Fraction


def law(depth, level, memorize_from):
    return memorized.score_distribution(depth, level, memorize_from, exact=True)


# --- By hand -------------------------------------------------------------------------------------


def test_level1_depth2_by_hand():
    # Step 0: left child L + one random move (score 1 + X), right child R + one (score Y),
    # X, Y fair bits. (X, Y) = (1, .) -> LL; (0, 0) -> LR; (0, 1) -> a tie 1 = 1, LR or RL.
    # Best after step 0: LL 1/2, LR 3/8, RL 1/8. Step 1: the left child scores 1, the right 0;
    # LR's suffix R (0) is beaten, LL's and RL's suffix L (1) is not: LL 7/8, RL 1/8 --
    # the same as without memorization.
    for mf in (1, 2, None):
        assert law(2, 1, mf) == [0, F(1, 8), F(7, 8)]


def test_level1_depth3_by_hand():
    # Memorized (memorize_from=1). Step 0: left L + u, right R + v, u, v uniform on 2 moves.
    # P(best = L+u) = P(u) [P(Y < 1+x) + P(Y = 1+x)/2]: LL 1/4, LR and RL 7/32 each, RR 1/8;
    # P(best = R+v) = P(v) [P(1+X < y) + P(1+X = y)/2]: LL 1/8, LR and RL 1/32 each, RR 0.
    # Step 1 (2 moves left) takes a score-2 child (LL) w.p. 1/2, else a score-1 child:
    # LR 3/8, RL 1/8. It plays R only from suffix RL when not beaten (1/2) and from suffix RR
    # when the new best is RL (1/8). Step 2 always ends with L (the left child scores 1).
    # Final score = [first move L] + [second move L] + 1:
    #   3: LLL 1/4 + LLR 7/32 + LRL 7/32 * 1/2 + LRR 1/8 * 7/8        = 44/64
    #   2: LRL 7/64 + LRR 1/64 + RLL 1/8 + RLR 1/32 + RRL 1/32 * 1/2   = 19/64
    #   1: RRL 1/64
    assert law(3, 1, 1) == [0, F(1, 64), F(19, 64), F(44, 64)]
    # Without memorization: P_left(3, 0) = 1/4 + 14/32 + 1/8 = 13/16, then P_left(2, 0) = 7/8,
    # then left: 3 w.p. 13/16 * 7/8 = 91/128, 1 w.p. 3/16 * 1/8 = 3/128.
    assert law(3, 1, 2) == [0, F(3, 128), F(34, 128), F(91, 128)]
    assert law(3, 1, None) == law(3, 1, 2)


def test_level2_depth2_and_3_by_hand():
    # Level-1 searches at depth 1 always return L, so level 2 at depth 2 always finds LL.
    for mf in (1, 2, 3):
        assert law(2, 2, mf) == [0, 0, 1]
    # Depth 3: the children's level-1 searches at depth 2 return LL 7/8, RL 1/8 (above, with
    # or without memorization). Step 0: L+LL (score 3) 7/8; L+RL (2) wins against R+RL and
    # ties with R+LL: 1/8 (1/8 + 7/8 * 1/2) = 9/128; R+LL (2) ties with L+RL only:
    # 7/8 * 1/8 * 1/2 = 7/128. Steps 1-2 then find LL from any suffix (L+L beats R+L, and a
    # memorized RL is beaten by LL): the first move decides, 121/128 against 7/128.
    for mf in (1, 2, 3):
        assert law(3, 2, mf) == [0, 0, F(7, 128), F(121, 128)]


def test_level1_returned_sequences_by_hand():
    # The law of whole sequences behind test_level1_depth3_by_hand (index: bit 2-t = move t,
    # 1 = RIGHT): LLL, LLR, LRL, LRR, RLL, RLR, RRL, RRR.
    q = memorized.sequence_distribution(3, 1, 1, exact=True)
    expected = [
        F(1, 4) + F(7, 32) + F(7, 64) + F(7, 64),  # LLL: from LLL, LLR, LRL (1/2), LRR (7/8)
        0,  # the last move is always L
        F(7, 64) + F(1, 64),  # LRL: from LRL kept (1/2) and LRR beaten by RL (1/8)
        0,
        F(1, 8) + F(1, 32) + F(1, 64),  # RLL: RLL, RLR, RRL beaten by LL (1/2)
        0,
        F(1, 64),  # RRL: RRL kept
        0,
    ]
    assert list(q) == expected


# --- Agreement with the dynamic programme without memorization -----------------------------------


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_no_memorization_is_the_paper_dp(level):
    # memorize_from greater than the level (or None): the recursion over sequences, run with no
    # level memorizing, must give the DP of nmcs.theory.leftmove exactly.
    for depth in range(1, 9):
        expected = leftmove.score_distribution_exact(depth, level)
        chain = memorized._laws(None, True, F(1, 2))(level, depth)
        assert list(memorized._sum_by_score(chain, depth)) == expected
        assert law(depth, level, level + 1) == expected
        assert law(depth, level, None) == expected


def test_levels_below_memorize_from_are_the_dp():
    # With memorize_from = m, the levels below m do not memorize: their score laws (the children
    # of the memorizing levels) must be the DP's exactly.
    for depth in range(1, 9):
        for mf in (2, 3):
            laws = memorized._laws(mf, True, F(1, 2))
            for level in range(mf):
                got = list(memorized._sum_by_score(laws(level, depth), depth))
                assert got == leftmove.score_distribution_exact(depth, level)


def test_memorization_changes_depth9_level3():
    exact = {mf: memorized.best_score_probability_exact(9, 3, mf) for mf in (1, 2, 3, None)}
    assert exact[None] == leftmove.score_distribution_exact(9, 3)[9]
    assert len(set(exact.values())) == 4
    # the report's numbers, to 6 decimals
    assert float(exact[1]) == pytest.approx(0.812341, abs=5e-7)
    assert float(exact[2]) == pytest.approx(0.795258, abs=5e-7)
    assert float(exact[3]) == pytest.approx(0.665724, abs=5e-7)


# --- A second implementation: the engine's loop, every random outcome enumerated -----------------

LEFT, RIGHT = 0, 1
NO_SCORE = -1


@cache
def brute_returned(level: int, n: int, memorize: int) -> dict[tuple[int, ...], Fraction]:
    """Law of the moves a level-``level`` search returns from a node with ``n`` moves left
    (``memorize``: the lowest level that memorizes), written from nested.py's loop: the left
    then the right child, a tie taken with probability 1/ties (reservoir sampling), the best
    sequence replaced only by a strictly better step, the next move from the best sequence
    (memorizing) or from the step's best child. No array, no grouping by score: every path of
    random outcomes is followed, with its probability."""
    if level == 0:
        return {seq: F(1, 2**n) for seq in itertools.product((LEFT, RIGHT), repeat=n)}
    out: dict[tuple[int, ...], Fraction] = defaultdict(F)

    def score(seq):
        return sum(1 for m in seq if m == LEFT)

    def steps(played, best, best_seq, prob):
        if len(played) == n:
            if memorize <= level and n > 0:
                assert played == best_seq  # a memorizing search returns its best sequence
            out[played] += prob
            return
        children = brute_returned(level - 1, n - len(played) - 1, memorize)
        # Every outcome of the two children's searches, then of the tie coin.
        for (left_seq, p_left), (right_seq, p_right) in itertools.product(
            children.items(), repeat=2
        ):
            outcomes = [(prob * p_left * p_right, NO_SCORE, 0, -1, ())]  # (p, best, ties, ...)
            for move, child_seq in ((LEFT, left_seq), (RIGHT, right_seq)):
                s = score(played + (move,) + child_seq)
                nxt = []
                for p, step_best, ties, step_move, step_seq in outcomes:
                    if s == step_best:
                        ties += 1  # below(rng, ties) == 0 with probability 1/ties
                        nxt.append((p * F(1, ties), step_best, ties, move, child_seq))
                        nxt.append((p * F(ties - 1, ties), step_best, ties, step_move, step_seq))
                    elif s > step_best:
                        nxt.append((p, s, 1, move, child_seq))
                    else:
                        nxt.append((p, step_best, ties, step_move, step_seq))
                outcomes = nxt
            for p, step_best, _, step_move, step_seq in outcomes:
                if memorize > level:
                    steps(played + (step_move,), best, best_seq, p)
                elif step_best > best:
                    new_seq = played + (step_move,) + step_seq
                    steps(played + (step_move,), step_best, new_seq, p)
                else:
                    steps(played + (best_seq[len(played)],), best, best_seq, p)

    steps((), NO_SCORE, None, F(1))
    return dict(out)


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
@pytest.mark.parametrize("level", [1, 2, 3])
def test_brute_force_agrees_on_whole_sequences(depth, level):
    for mf in range(1, level + 2):  # level + 1: no memorization
        brute = brute_returned(level, depth, mf)
        assert sum(brute.values()) == 1
        q = memorized.sequence_distribution(depth, level, mf, exact=True)
        as_dict = {}
        for i, p in enumerate(q):
            seq = tuple((i >> (depth - 1 - t)) & 1 for t in range(depth))
            if p:
                as_dict[seq] = p
        assert as_dict == brute, (depth, level, mf)


# --- float64 against the fractions, and the rounding bound ---------------------------------------


@pytest.mark.parametrize(
    "depth,level,mf", [(9, 3, 1), (9, 3, 2), (9, 3, 3), (10, 2, 1), (8, 4, 2), (12, 3, 1)]
)
def test_float_within_the_rounding_bound(depth, level, mf):
    exact = law(depth, level, mf)
    approx = memorized.score_distribution(depth, level, mf)
    bound = memorized.rounding_bound(depth, level, mf)
    assert 0 < bound < 1e-11
    for p, q in zip(exact, approx, strict=True):
        # relative error, and underflow (at depth 12, P(score <= 2) < 2**-1074 comes out 0)
        assert abs(F(float(q)) - p) <= F(bound) * p + F(1, 2**1000)
    assert approx.sum() == pytest.approx(1, abs=1e-13)


def test_deep_float_laws_are_distributions():
    for mf in (1, 2, 3):
        dist = memorized.score_distribution(16, 3, mf)
        assert dist.min() >= 0 and dist.sum() == pytest.approx(1, abs=1e-12)
    # memorizing more often helps on this tree: P(best) grows as memorize_from falls
    best = [memorized.best_score_probability(16, 3, mf) for mf in (None, 3, 2, 1)]
    assert best == sorted(best)


def test_bad_arguments():
    with pytest.raises(ValueError, match="depth"):
        memorized.score_distribution(0, 2, 1)
    with pytest.raises(ValueError, match="depth"):
        memorized.score_distribution(memorized.MAX_DEPTH_FLOAT + 1, 2, 1)
    with pytest.raises(ValueError, match="level"):
        memorized.score_distribution(5, -1, 1)
    with pytest.raises(ValueError, match="memorize_from"):
        memorized.score_distribution(5, 2, 0)
    with pytest.raises(ValueError, match="integer"):
        memorized.score_distribution(5, 2.0, 1)


# --- The command ---------------------------------------------------------------------------------


def test_command_prints_the_law_and_p_best(capsys):
    assert theory_main(["--depth", "3", "--level", "1", "--memorize-from", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "P(best score) = 0.687500000000000000 = 11/2^4"
    assert out[-2].split() == ["3", "0.687500000000000000"]
    assert theory_main(["--depth", "3", "--level", "1", "--no-memorize"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "P(best score) = 0.710937500000000000 = 91/2^7"
    )
    assert theory_main(["--depth", "9", "--level", "3", "--memorize-from", "2", "--float"]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("P(best score) = 0.7952578559191") and "rounding" in last


@pytest.mark.parametrize(
    "args,message",
    [
        (["--depth", "9", "--level", "0"], "--level 0: must be from 1"),
        (["--depth", "0", "--level", "3"], "--depth 0: must be from 1"),
        (["--depth", "9", "--level", "3", "--memorize-from", "4"], "--memorize-from 4"),
        (["--depth", "x", "--level", "3"], "invalid int value"),
        (["--depth", "99", "--level", "3"], "--depth 99: must be from 1 to 24"),
    ],
)
def test_command_refuses_bad_arguments(capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        theory_main(args)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and err.startswith("python -m nmcs.theory")


# --- Against the engine --------------------------------------------------------------------------

ALPHA = 1e-3  # the family-wise level of each goodness-of-fit family below


def pooled_chi_square(counts, probs, min_expected=5.0):
    """Pearson's chi-square of observed counts against a law, bins with an expected count
    below ``min_expected`` pooled into their neighbour towards the mode (the sparse tails);
    returns (statistic, degrees of freedom). Scores impossible under the law must not occur."""
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray([float(p) for p in probs])
    assert np.all(counts[probs == 0] == 0), "a score the exact law gives probability 0"
    n = counts.sum()
    keep = probs > 0
    counts, expected = list(counts[keep]), list(probs[keep] * n)
    mode = int(np.argmax(expected))
    # pool from the low tail upwards and from the high tail downwards, towards the mode
    while len(expected) > 1 and mode > 0 and expected[0] < min_expected:
        e0, c0 = expected.pop(0), counts.pop(0)
        expected[0] += e0
        counts[0] += c0
        mode -= 1
    while len(expected) > 1 and mode < len(expected) - 1 and expected[-1] < min_expected:
        e0, c0 = expected.pop(), counts.pop()
        expected[-1] += e0
        counts[-1] += c0
    if len(expected) > 1 and min(expected) < min_expected:  # the mode bin itself was sparse
        i = int(np.argmin(expected))
        e0, c0 = expected.pop(i), counts.pop(i)
        j = i if i < len(expected) else i - 1  # the next bin, or the previous one
        expected[j] += e0
        counts[j] += c0
    e, c = np.array(expected), np.array(counts)
    return float(((c - e) ** 2 / e).sum()), len(e) - 1


def fit(counts, probs):
    stat, df = pooled_chi_square(counts, probs)
    return stat, df, (float(stats.chi2.sf(stat, df)) if df else 1.0)


def test_pooled_chi_square_pools_the_tails():
    stat, df = pooled_chi_square([1, 9, 90, 0], [0.001, 0.009, 0.9, 0.09])
    # expected 0.1, 0.9, 90, 9: the first bin pools into the second (1.0 expected, still < 5),
    # which pools into the mode: bins (100 observed, 91 expected) and (0, 9)
    assert df == 1 and stat == pytest.approx(81 / 91 + 9)


ENGINE_CELLS = [(d, lev, mf) for d in (3, 4, 5, 6) for lev in (1, 2, 3) for mf in range(1, lev + 1)]
ENGINE_SEARCHES = 4000


@pytest.fixture(scope="module")
def engine_fits():
    import nmcs

    fits = {}
    for i, (depth, level, mf) in enumerate(ENGINE_CELLS):
        res = nmcs.search_batch(
            "leftmove",
            nmcs.make_state("leftmove", depth=depth),
            nmcs.search_seeds(100 + i, 0, ENGINE_SEARCHES),
            level=level,
            memorize=True,
            memorize_from=mf,
        )
        counts = np.bincount(res.score, minlength=depth + 1)
        fits[depth, level, mf] = fit(counts, law(depth, level, mf))
    return fits


@pytest.mark.statistical  # the engine's level-3 entry point and 96,000 searches: 10 s cold
def test_engine_quick_batches_fit_the_exact_law(engine_fits):
    # Each of the 24 cells at the Bonferroni level ALPHA / 24, and all of them together (the
    # sum of independent chi-squares is a chi-square with the summed degrees of freedom).
    per_cell = ALPHA / len(engine_fits)
    bad = {cell: f for cell, f in engine_fits.items() if f[2] < per_cell}
    assert not bad
    total = sum(f[0] for f in engine_fits.values())
    dof = sum(f[1] for f in engine_fits.values())
    assert dof >= 24 and stats.chi2.sf(total, dof) > ALPHA


PAPER = REPO / "results" / "paper" / "leftmove_memorize_from"
PAPER_DEPTHS = range(1, 17)  # the float64 law up to depth 16 costs about a second in all


@pytest.fixture(scope="module")
def paper_counts():
    """The committed cells' score counts, as committed: the packed file holds a count per
    (cell, score), which reading it as rows would expand into 4.8 million rows only to count
    them again (``read_results`` of such rows: tests/test_publish.py)."""
    if not PAPER.exists():
        pytest.skip("results/paper/leftmove_memorize_from is not in this checkout")
    columns = ["cell", "search", "depth", "level", "memorize_from", "score", "count"]
    df = pd.read_parquet(PAPER / "results.parquet", columns=columns)
    assert set(df["level"]) == {3} and (df["search"] < 0).all()  # every row a count
    counts = {}
    for (depth, mf), cell in df.groupby(["depth", "memorize_from"]):
        assert cell["cell"].nunique() == 1
        weighted = np.bincount(cell["score"], weights=cell["count"], minlength=int(depth) + 1)
        counts[int(depth), int(mf)] = weighted.astype(np.int64)
    return counts


def test_paper_cells_fit_the_exact_law(paper_counts):
    """The committed paper-scale cells (level 3, 100,000 searches each), depths 1-16 and
    memorize_from 1, 2, 3, against the exact law, each at the Bonferroni level ALPHA / 48
    (valid whatever the dependence between cells: they share their seeds, so the cells of
    one depth are correlated, identical where the law does not depend on memorize_from).
    Depths 1-3 always find the best score: any other score fails the test outright."""
    fits = {}
    for depth in PAPER_DEPTHS:
        for mf in (1, 2, 3):
            counts = paper_counts[depth, mf]
            assert counts.sum() == 100_000
            probs = law(depth, 3, mf) if depth <= 9 else memorized.score_distribution(depth, 3, mf)
            fits[depth, mf] = fit(counts, probs)
    per_cell = ALPHA / len(fits)
    assert not {cell: f for cell, f in fits.items() if f[2] < per_cell}
    assert sum(f[1] for f in fits.values()) >= 80  # degrees of freedom tested


def test_paper_cells_reject_the_other_readings(paper_counts):
    # The same test has the power to tell the readings apart: at depth 9, the memorize_from=1
    # cell against the memorize_from=2 law (and the other way round) fails by far.
    for observed, other in ((1, 2), (2, 1), (2, 3)):
        _, _, p = fit(paper_counts[9, observed], law(9, 3, other))
        assert p < 1e-12


def test_smallest_state_for_the_top_level_score():
    # The coarsest partition of the memorized suffix (n moves) that keeps the law of a top-level
    # search's score, found exactly: 2**(n - level + 1) - 1 classes out of 2**n for levels 1-3.
    for level in (1, 2, 3):
        for depth in range(level + 2, 8):
            n = depth - 1
            classes = memorized.minimal_state_classes(depth, level, 1, steps_done=1)
            assert sum(map(len, classes)) == 2**n
            assert len(classes) == 2 ** (n - level + 1) - 1, (level, depth)
    # e.g. level 1: only the last move is free, and only after all-left: LL..LL ~ LL..LR
    assert [c for c in memorized.minimal_state_classes(5, 1, 1) if len(c) > 1] == [["LLLL", "LLLR"]]


def test_other_tie_rules_by_hand():
    # Level 1, depth 2: the only tie is (X, Y) = (0, 1) at step 0 (LR against RL, 1/4); the
    # second step always ends with L. Ties to the left: LL always; to the right: RL 1/4.
    def tie_law(tie_right):
        return memorized.score_distribution(2, 1, 1, exact=True, tie_right=tie_right)

    assert tie_law(F(0)) == [0, 0, 1]
    assert tie_law(F(1)) == [0, F(1, 4), F(3, 4)]
    assert tie_law(F(1, 2)) == [0, F(1, 8), F(7, 8)]
