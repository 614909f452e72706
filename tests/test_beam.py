"""Monte-Carlo Beam Search (nmcs.search.beam): a beam of width 1 at every level is nested search
with memorization, move for move; wider beams match a plain-Python search written separately
from the paper's Algorithm 2 (analysis/independent/beam_search.py)."""

import random

import numpy as np
import pytest

from analysis.independent.beam_search import beam_search as independent_beam_search
from nmcs.games import game_module
from nmcs.harness.batch import search_batch, search_seeds


def run_beam(name, state0, seeds, level, widths):
    """One beam search per seed: (score, moves, playouts) each."""
    res = search_batch(name, state0, seeds, algo="beam", level=level, beam=list(widths))
    return list(zip(res.score.tolist(), res.moves, res.playouts.tolist(), strict=True))


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

    assert beam_widths([1, 2]) == (1, 2) and beam_widths(np.array([4])) == (4,)
    assert beam_widths(None) == ()
    rng = np.random.default_rng(0)

    def cell(widths, mean, n):
        scores = np.round(rng.normal(mean, 2.5, n))
        scores += mean - scores.mean()  # exactly the wanted mean
        return pd.DataFrame(
            {"algo": "beam", "level": 2, "algo_beam": [widths] * n, "score": scores}
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
        "every cell's mean against the paper's": "not enough data",  # a cell of 4 runs
    }
    assert (tmp_path / "figures" / "mcbs_table1.png").exists()


def test_table1_as_a_whole_is_one_chi_square_over_its_cells():
    """21 cells at the paper's means agree as a whole; the same cells half a point above each
    differ as a whole, though no cell alone does."""
    import pandas as pd

    from analysis.beam import _table1_as_a_whole

    def table(shift):
        return pd.DataFrame({"paper_mean": np.linspace(66, 72, 21), "n": 30, "sd": 1.6}).assign(
            mean=lambda t: t["paper_mean"] + shift
        )

    assert _table1_as_a_whole(table(0.0), 118, "cmd").verdict == "agrees"
    shifted = _table1_as_a_whole(table(0.5), 118, "cmd")
    assert shifted.verdict == "differs" and "mean difference +0.50 [+0.36, +0.64]" in shifted.ours
    # alone, each shifted cell is inside its interval: 0.5 < 1.96 * sqrt(1.6^2/30 + 1.6^2/118)
    assert 0.5 < 1.96 * np.sqrt(1.6**2 / 30 + 1.6**2 / 118)


def test_a_beam_sweep_runs_through_run_py(tmp_path):
    """The issue's sweep: every beam cell gets its own folder and summary row."""
    import pandas as pd
    from helpers import run_python

    run_python(
        "run.py",
        "-m",
        "algo=beam",
        "level=2",
        "algo.beam=[1,1],[1,2],[2,1],[4,4]",
        "game.depth=12",
        "n_searches=20",
        "progress=false",
        f"hydra.sweep.dir={tmp_path}",
    )
    summary = pd.read_csv(tmp_path / "adhoc_leftmove_beam" / "summary.csv")
    assert len(summary) == 4 and (summary["n"] == 20).all()
    assert sorted(summary["algo_options"]) == [
        "beam=(1, 1)",
        "beam=(1, 2)",
        "beam=(2, 1)",
        "beam=(4, 4)",
    ]
    # A wider beam does not do worse on average here (12 moves, 20 searches each).
    means = dict(zip(summary["algo_options"], summary["mean_score"], strict=True))
    assert means["beam=(4, 4)"] >= means["beam=(1, 1)"]


def test_a_beam_that_does_not_fit_the_level_is_one_line(tmp_path):
    from helpers import run_python

    args = ("run.py", "algo=beam", "level=2", "algo.beam=[1,2,3]", f"hydra.run.dir={tmp_path}")
    proc = run_python(*args, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "run.py: error: algo.beam = [1, 2, 3]: one size for every level, or 2 sizes "
        "[s1, ..., s2] (s1 at level 1), each from 1 to 65536"
    )


def test_parallel_beam_search_on_dask_equals_in_process():
    from nmcs.harness.parallel import parallel_search

    state0 = game_module("leftmove").make_state(depth=16)
    kwargs = dict(seed=2, level=2, top_width=3, lower_algo="beam", lower_options={"beam": [2]})
    here = parallel_search("leftmove", state0, workers=0, **kwargs)
    there = parallel_search("leftmove", state0, workers=2, **kwargs)
    assert here.score == there.score and np.array_equal(here.moves, there.moves)


def test_quick_mcbs_experiments_fill_their_table_figure_and_claims(tmp_path):
    from helpers import run_quick_experiments

    out = run_quick_experiments(tmp_path, ["mcbs_table1", "mcbs_fig5", "mcbs_record"])
    table = (out / "tables" / "quick" / "mcbs_table1.csv").read_text()
    assert table.count("\n") == 4  # header + the three quick cells
    assert (out / "figures" / "quick" / "mcbs_table1.png").exists()
    assert (out / "figures" / "quick" / "mcbs_fig5.png").exists()
    report = (out / "REPRODUCTION.md").read_text()
    assert "| Table 1: level 2, s1 = 1, s2 = 1: mean score | 66.66 |" in report
    assert "Fig 5: at 163 s a level-1 beam of 16 scores more than NMCS" in report
    # The record configuration saves its best games as pictures and Pentasol files.
    cells = sorted((out / "quick" / "mcbs_record").glob("*/best_game.psol"))
    assert len(cells) == 2


def test_time_curves_end_at_the_budget_when_it_is_off_the_doubling_grid():
    """MCBS Fig 5's claim is at 163 s, between the grid's 81.92 s and 163.84 s."""
    import pandas as pd

    from analysis.leftmove import anytime_curves

    runs = pd.DataFrame(
        {
            "level": 1,
            "memorize": True,
            "budget_seconds": 163.0,
            "seconds": 163.0,
            "trace_seconds": [[0.5, 100.0, 162.0], [1.0]],
            "trace_score": [[60, 70, 75], [64]],
        }
    )
    grid, curves = anytime_curves(runs, "seconds")
    assert grid[-2] == pytest.approx(81.92) and grid[-1] == 163.0
    assert list(curves[(1, True)][:, -1]) == [75, 64]
    assert list(curves[(1, True)][:, -2]) == [60, 64]
