"""Monte-Carlo Beam Search (nmcs.search.beam): a beam of width 1 at every level is nested search
with memorization, move for move; wider beams match a plain-Python search written separately
from the paper's Algorithm 2 (analysis/independent/beam_search.py)."""

import random

import numpy as np
import pytest

from analysis.independent.beam_search import beam_search as independent_beam_search
from nmcs.games import game_module
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.search.beam import build_beam

_BUILT = {}


def beam_kernels(name):
    if name not in _BUILT:
        _BUILT[name] = build_beam(game_module(name))
    return _BUILT[name]


def run_beam(name, state0, seeds, level, widths):
    """One beam search per seed, seeded as the engine seeds a search (rng = the seed)."""
    game = game_module(name)
    new_workspace, beam, _ = beam_kernels(name)
    widths = np.asarray(list(widths) + [1] * (6 - len(widths)), np.int64)
    ws = new_workspace(state0, int(widths.max()))
    out = []
    for seed in seeds:
        state = state0.copy()
        seq = np.zeros(game.max_moves(state0) + 1, np.int32)
        stats = np.zeros(2, np.int64)
        length = beam(state, level, widths, np.array([seed], np.uint64), ws, seq, stats)
        out.append((int(game.score(state)), seq[:length].copy(), int(stats[0])))
    return out


@pytest.mark.parametrize(
    "name,options,level,n",
    [
        ("leftmove", {"depth": 20}, 1, 40),
        ("leftmove", {"depth": 12}, 3, 20),
        ("samegame", {"instance": None, "width": 7, "height": 7, "colors": 3}, 2, 6),
        ("morpion", {}, 1, 4),
    ],
)
def test_width_one_is_nested_search_with_memorization(name, options, level, n):
    state0 = game_module(name).make_state(**options)
    seeds = search_seeds(11, 0, n)
    nested = search_batch(name, state0, seeds, level=level, memorize=True, workers=1)
    beam = run_beam(name, state0, seeds, level, [1] * level)
    for i, (score, moves, playouts) in enumerate(beam):
        assert score == nested.score[i]
        assert np.array_equal(moves, nested.moves[i])
        assert playouts == nested.playouts[i]


def two_sample_z(a, b):
    """z statistic of the difference of two means (independent samples)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    se = np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return abs(a.mean() - b.mean()) / se


@pytest.mark.parametrize("level,widths", [(1, [4]), (2, [2, 3])])
def test_wide_beams_match_an_independent_implementation(level, widths):
    """Depth 9: the engine's P(best score) and mean score agree with the plain-Python search
    (two-sided z-tests at the 0.1% level), and a wider beam beats width 1 by far."""
    depth, n_engine, n_python = 9, 20_000, 6_000
    state0 = game_module("leftmove").make_state(depth=depth)
    ours = [
        s for s, _, _ in run_beam("leftmove", state0, search_seeds(4, 0, n_engine), level, widths)
    ]
    rng = random.Random(level)
    theirs = [sum(independent_beam_search(rng, depth, [], level, widths)) for _ in range(n_python)]
    ours_best = [s == depth for s in ours]
    theirs_best = [s == depth for s in theirs]
    assert two_sample_z(ours_best, theirs_best) < 3.3
    assert two_sample_z(ours, theirs) < 3.3
    narrow = [
        s for s, _, _ in run_beam("leftmove", state0, search_seeds(5, 0, 4000), level, [1] * level)
    ]
    assert np.mean(ours_best) > np.mean([s == depth for s in narrow]) + 0.1


def test_the_returned_game_is_complete_and_scores_as_played():
    """The moves written out replay to the score the search reports (the game is assembled from
    beam prefixes and lower-level games, so an off-by-one shows here)."""
    game = game_module("leftmove")
    state0 = game.make_state(depth=30)
    for score, moves, playouts in run_beam("leftmove", state0, search_seeds(6, 0, 50), 2, [3, 2]):
        replay = state0.copy()
        for move in moves:
            game.play(replay, move)
        assert len(moves) == 30 and game.score(replay) == score and playouts > 0


def test_table1_analysis_compares_means_with_the_papers_sampling_error(tmp_path):
    """A cell whose runs have the paper's mean agrees; one 3 points above differs; a cell with
    a handful of runs is 'not enough data'."""
    import pandas as pd

    from analysis.beam import analyze_table1, beam_widths

    assert beam_widths("beam=[1, 2]") == (1, 2) and beam_widths("beam=(4,)") == (4,)
    rng = np.random.default_rng(0)

    def cell(widths, mean, n):
        scores = np.round(rng.normal(mean, 2.5, n))
        scores += mean - scores.mean()  # exactly the wanted mean
        return pd.DataFrame(
            {"algo": "beam", "level": 2, "algo_options": f"beam={widths}", "score": scores}
        )

    class FakeContext:
        scale = "paper"
        tables = tmp_path / "tables"
        figures = tmp_path / "figures"

        def results(self, experiment):
            return pd.concat(
                [cell([1, 1], 66.66, 118), cell([1, 2], 67.44 + 3, 118), cell([2, 1], 67.84, 4)]
            )

    verdicts = {c.claim.split(": ")[1]: c.verdict for c in analyze_table1(FakeContext())}
    assert verdicts == {
        "level 2, s1 = 1, s2 = 1": "agrees",
        "level 2, s1 = 1, s2 = 2": "differs",
        "level 2, s1 = 2, s2 = 1": "not enough data",
    }
    assert (tmp_path / "figures" / "mcbs_table1.png").exists()
