"""Monte-Carlo Beam Search (nmcs.search.beam): a beam of width 1 at every level is nested search
with memorization, move for move; wider beams match a plain-Python search written separately
from the paper's Algorithm 2 (analysis/independent/beam_search.py)."""

import random
import re

import numpy as np
import pytest
from helpers import FrameContext

from analysis.independent.beam_search import beam_search as independent_beam_search
from nmcs.games import game_module
from nmcs.games import registry as games_registry
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.compile


def run_beam(name, state0, seeds, level, widths, **rules):
    """One beam search per seed: (score, moves, playouts) each."""
    res = search_batch(name, state0, seeds, algo="beam", level=level, beam=list(widths), **rules)
    return list(zip(res.score.tolist(), res.moves, res.playouts.tolist(), strict=True))


# SameGame at level 1: its level-2 entry points (beam search and NMCS) were compiled for this
# test alone, 23 s of the suite's first run; level 2 is checked on the left move below.
GAMES_AT_WIDTH_ONE = [
    ("leftmove", {"depth": 20}, 1, 40),
    ("leftmove", {"depth": 12}, 2, 20),
    ("leftmove", {"depth": 12}, 3, 20),
    ("samegame", {"instance": None, "width": 10, "height": 10, "colors": 3}, 1, 20),
    ("morpion", {}, 1, 4),
]


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("name,options,level,n", GAMES_AT_WIDTH_ONE)
def test_width_one_is_nested_search_with_memorization(name, options, level, n, merge):
    """Also with merge_duplicates: a beam of one position holds no duplicate."""
    state0 = game_module(name).make_state(**options)
    seeds = search_seeds(11, 0, n)
    nested = search_batch(name, state0, seeds, level=level, memorize=True, workers=1)
    beam = run_beam(name, state0, seeds, level, [1] * level, merge_duplicates=merge)
    for i, (score, moves, playouts) in enumerate(beam):
        assert score == nested.score[i]
        assert np.array_equal(moves, nested.moves[i])
        assert playouts == nested.playouts[i]


def nested_first_found(kernels, state, level, rng, moves_out):
    """Nested search with memorization in plain Python over the game's kernels, drawing from
    the same generator: a child replaces the best game only with a strictly better score, so
    the first found wins a tie and no tie takes a draw. Plays its game on ``state``; returns
    (moves, playouts)."""
    if level == 0:
        n = kernels.playout(state, rng, moves_out, True)
        return [int(m) for m in moves_out[:n]], 1
    legal = np.empty(kernels.max_branching(state), np.int32)
    played, best, best_score, playouts = [], [], None, 0
    while True:
        n = kernels.legal_moves(state, legal)
        if n == 0:
            return played, playouts
        for move in legal[:n].copy():
            child = state.copy()
            kernels.play(child, move)
            game, count = nested_first_found(kernels, child, level - 1, rng, moves_out)
            playouts += count
            if best_score is None or kernels.score(child) > best_score:
                best_score, best = kernels.score(child), [int(move), *game]
        move = best.pop(0)
        kernels.play(state, move)
        played.append(move)


@pytest.mark.parametrize("name,options,level,n", GAMES_AT_WIDTH_ONE)
def test_width_one_with_first_found_ties_is_nested_search_taking_the_first(name, options, level, n):
    from nmcs.core.rng import new_rng

    game = game_module(name)
    kernels = games_registry.game(name).kernels
    state0 = game.make_state(**options)
    seeds = search_seeds(12, 0, min(n, 5))
    beam = run_beam(name, state0, seeds, level, [1] * level, ties="first")
    moves_out = np.empty(kernels.max_moves(state0) + 1, np.int32)
    for seed, (score, moves, playouts) in zip(seeds, beam, strict=True):
        state = state0.copy()
        expected, count = nested_first_found(kernels, state, level, new_rng(seed), moves_out)
        assert moves.tolist() == expected
        assert score == kernels.score(state) and playouts == count


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


@pytest.mark.parametrize(
    "level,widths,rules",
    [
        (1, [4], {"ties": "first"}),
        (1, [4], {"merge_duplicates": True}),
        (2, [2, 2], {"ties": "first", "merge_duplicates": True}),
    ],
)
def test_the_tie_and_duplicate_rules_match_the_independent_implementation(level, widths, rules):
    """Depth 9, as for the default rules; merging duplicates changes P(best) by far here (the
    left move has few positions per depth), which shows the option reaches the kernel."""
    depth, n_engine, n_python = 9, 12_000, 4_000
    state0 = game_module("leftmove").make_state(depth=depth)
    seeds = search_seeds(7, 0, n_engine)
    ours = [s for s, _, _ in run_beam("leftmove", state0, seeds, level, widths, **rules)]
    rng = random.Random(10 + level)
    ties, merge = rules.get("ties", "random"), rules.get("merge_duplicates", False)
    theirs = [
        sum(independent_beam_search(rng, depth, [], level, widths, ties, merge))
        for _ in range(n_python)
    ]
    assert two_sample_z([s == depth for s in ours], [s == depth for s in theirs]) < 3.3
    assert two_sample_z(ours, theirs) < 3.3
    if merge:
        plain = [s for s, _, _ in run_beam("leftmove", state0, seeds, level, widths)]
        assert two_sample_z([s == depth for s in ours], [s == depth for s in plain]) > 5


@pytest.mark.parametrize(
    "rules,message",
    [
        ({"ties": "last"}, "algo.ties = 'last': must be one of random, first"),
        ({"ties": 1}, "algo.ties = 1: must be one of random, first"),
        ({"merge_duplicates": "no"}, "algo.merge_duplicates = 'no': must be true or false"),
    ],
)
def test_a_rule_that_is_not_allowed_is_refused_by_name(rules, message):
    state0 = game_module("leftmove").make_state(depth=5)
    with pytest.raises(ValueError, match=message):
        run_beam("leftmove", state0, search_seeds(0, 0, 1), 1, [2], **rules)


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


@pytest.mark.parametrize(
    "name,options,level,widths,budget,n",
    [
        ("leftmove", {"depth": 30}, 2, [3, 2], 100, 7),
        ("leftmove", {"depth": 30}, 3, [2, 2, 2], 777, 7),
        ("morpion", {}, 2, [2, 2], 150, 3),  # each search runs three times: 3 s of the suite
    ],
)
def test_a_playout_budget_cuts_the_search_at_that_playout(name, options, level, widths, budget, n):
    """``budget.playouts`` cuts a beam search at that playout, at every level, and the search
    returns the best complete game it found: one that replays to its score, at least as good
    as every playout it ran before (so at least the first search's own first playout), and
    the whole search's game when the budget is larger than the search."""
    game = game_module(name)
    state0 = game.make_state(**options)
    seeds = search_seeds(4, 0, n)
    full = search_batch(name, state0, seeds, algo="beam", level=level, beam=widths)
    cut = search_batch(
        name, state0, seeds, algo="beam", level=level, beam=widths, max_playouts=budget
    )
    assert (full.playouts > budget).all()  # each search is cut
    assert (cut.playouts == budget).all()
    for score, moves in zip(cut.score.tolist(), cut.moves, strict=True):
        replay = state0.copy()
        for move in moves:
            game.play(replay, move)
        assert (
            game.score(replay) == score
            and game.legal_moves(replay, np.empty(game.max_branching(state0), np.int32)) == 0
        )
    assert (cut.score <= full.score).any()  # a cut search is no better than the whole, here
    roomy = search_batch(
        name, state0, seeds, algo="beam", level=level, beam=widths,
        max_playouts=int(full.playouts.max()) + 1,
    )  # fmt: skip
    assert roomy.score.tolist() == full.score.tolist()
    assert roomy.playouts.tolist() == full.playouts.tolist()
    for a, b in zip(roomy.moves, full.moves, strict=True):
        assert list(a) == list(b)


def test_a_cut_search_returns_the_best_game_of_its_playouts():
    """Level 1 with a budget of n playouts: the cut search's score is the best of the n
    playouts it ran, which a search of the same seed with budget n + k can only improve."""
    game = game_module("leftmove")
    state0 = game.make_state(depth=20)
    seeds = search_seeds(20, 0, 3)
    scores = [
        search_batch(
            "leftmove", state0, seeds, algo="beam", level=1, beam=[4], max_playouts=n
        ).score.tolist()
        for n in (1, 5, 20, 60)
    ]
    for earlier, later in zip(scores, scores[1:], strict=False):
        assert all(a <= b for a, b in zip(earlier, later, strict=True))


def test_a_time_budget_is_refused_for_a_beam_search():
    with pytest.raises(ValueError, match="budget.seconds: algo=beam is cut by budget.playouts"):
        search_batch(
            "leftmove", game_module("leftmove").make_state(depth=10), search_seeds(1, 0, 0),
            algo="beam", level=1, beam=[2], max_seconds=1.0,
        )  # fmt: skip


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

    frame = pd.concat(
        [cell([1, 1], 66.66, 118), cell([1, 2], 67.44 + 3, 118), cell([2, 1], 67.84, 4)]
    )
    claims = analyze_table1(FrameContext(frame, tmp_path))
    verdicts = {c.claim.split(": ")[1]: c.verdict for c in claims}
    assert verdicts == {
        "level 2, s1 = 1, s2 = 1": "agrees",
        "level 2, s1 = 1, s2 = 2": "differs",
        "level 2, s1 = 2, s2 = 1": "not enough data",
        "every cell's mean against the paper's": "not enough data",  # a cell of 4 runs
    }
    assert (tmp_path / "figures" / "mcbs_table1.png").exists()


def test_record_analysis_places_80_and_82_in_the_distribution(tmp_path):
    """Hand-made record searches: (4, 4, 4) cut at 10^8 playouts never reaches 82 (not enough
    data: the paper gives no rate), (1, 8, 8) has two 80s and an 82 (agrees); the table counts
    the cut searches and the share of scores below 80 and 82."""
    import pandas as pd

    from analysis.beam import analyze_records

    def cell(widths, scores, budget, playouts):
        n = len(scores)
        return pd.DataFrame(
            {
                "algo": "beam",
                "level": 3,
                "algo_beam": [widths] * n,
                "score": scores,
                "budget_playouts": pd.array([budget] * n, dtype="Int64"),
                "playouts": playouts,
                "seconds": 100.0,
            }
        )

    frame = pd.concat(
        [
            cell([4, 4, 4], [76, 77, 79], 10**8, [10**8, 10**8, 6 * 10**7]),
            cell([1, 8, 8], [80, 82, 78, 80], None, [10**9] * 4),
            cell([1, 8, 8], [70, 71], 10**7, [10**7] * 2),  # another distribution
        ]
    )
    claims = analyze_records(FrameContext(frame, tmp_path))
    assert [c.verdict for c in claims] == ["not enough data", "agrees"]
    assert "best 79 of 3 searches, 2 cut at 1e8 playouts" in claims[0].ours
    assert "best 71 of 2 searches, 2 cut at 1e7 playouts" in claims[1].ours
    table = pd.read_csv(tmp_path / "tables" / "mcbs_record.csv")
    assert len(table) == 3
    table = table[table["cut at playouts"] != "1e7"].set_index("s1,s2,s3")
    assert table.loc["1,8,8", "best"] == 82 and table.loc["1,8,8", "share below 80"] == 0.25
    assert table.loc["1,8,8", ">= 80"].startswith("3 (") and table.loc["1,8,8", "cut"] == 0
    assert table.loc["4,4,4", "share below 82"] == 1.0
    assert table.loc["4,4,4", "core-hours"] == round(300 / 3600, 2)
    assert (tmp_path / "figures" / "mcbs_record.png").exists()


def test_table1_as_a_whole_is_one_chi_square_over_its_cells():
    """21 cells at the paper's means agree as a whole; the same cells half a point above each
    differ as a whole, though no cell alone does."""
    import pandas as pd

    from analysis.beam import _table1_as_a_whole

    noise = np.random.default_rng(0).normal(0, 1, 30)
    noise = 1.6 * (noise - noise.mean()) / noise.std(ddof=1)  # sd exactly 1.6

    def table(shift):
        rows = pd.DataFrame(
            {"s1": range(21), "s2": 1, "paper_mean": np.linspace(66, 72, 21), "n": 30, "sd": 1.6}
        ).assign(mean=lambda t: t["paper_mean"] + shift)
        # Each cell's searches, independent cells (no seeds to pair them by).
        cells = {(s1, 1): pd.DataFrame({"score": m + noise}) for s1, m in enumerate(rows["mean"])}
        return rows, cells

    assert _table1_as_a_whole(*table(0.0), 118, "cmd").verdict == "agrees"
    shifted = _table1_as_a_whole(*table(0.5), 118, "cmd")
    assert shifted.verdict == "differs" and "mean difference +0.50 [+0.36, +0.64]" in shifted.ours
    # alone, each shifted cell is inside its interval: 0.5 < 1.96 * sqrt(1.6^2/30 + 1.6^2/118)
    assert 0.5 < 1.96 * np.sqrt(1.6**2 / 30 + 1.6**2 / 118)


def test_a_beam_sweep_runs_through_run_py(tmp_path):
    """The issue's sweep: every beam cell gets its own folder and summary row."""
    import pandas as pd
    from helpers import run_cli

    run_cli(
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
    import socket
    import warnings

    from nmcs.harness.parallel import parallel_search

    state0 = game_module("leftmove").make_state(depth=16)
    kwargs = dict(seed=2, level=2, top_width=3, lower_algo="beam", lower_options={"beam": [2]})
    here = parallel_search("leftmove", state0, workers=0, **kwargs)
    # Dask's default port taken, as by another cluster: the embedded one takes a free port
    # without a word.
    with socket.socket() as busy, warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        try:
            busy.bind(("127.0.0.1", 8787))
            busy.listen()
        except OSError:
            pass  # taken already
        there = parallel_search("leftmove", state0, workers=2, **kwargs)
    assert here.score == there.score and np.array_equal(here.moves, there.moves)
    assert not [w for w in said if "8787" in str(w.message)], [str(w.message) for w in said]


def test_quick_mcbs_experiments_fill_their_table_figure_and_claims(tmp_path):
    from helpers import run_quick_experiments

    experiments = ["mcbs_table1", "mcbs_table1_ties_first", "mcbs_table1_merge"]
    fig4 = ["mcbs_fig4_level1", "mcbs_fig4_level2", "mcbs_fig4_level3"]
    out = run_quick_experiments(tmp_path, [*experiments, *fig4, "mcbs_fig5", "mcbs_record"])
    table = (out / "tables" / "quick" / "mcbs_table1.csv").read_text()
    assert table.count("\n") == 4  # header + the three quick cells
    assert (out / "figures" / "quick" / "mcbs_table1.png").exists()
    assert (out / "figures" / "quick" / "mcbs_fig5.png").exists()
    report = (out / "REPRODUCTION.md").read_text()
    assert "| Table 1: level 2, s1 = 1, s2 = 1: mean score | 66.66 |" in report
    assert "Fig 5: at 163 s a level-1 beam of 16 scores more than NMCS" in report
    # Fig 4: level 1's beams 1-4 and level 2's s2 = 1, 2, 4 (Table 1's first row and its own)
    # give slopes; level 3 runs only at paper scale.
    fig4_table = (out / "tables" / "quick" / "mcbs_fig4.csv").read_text().splitlines()
    assert [line.split(",")[:2] for line in fig4_table[1:]] == [
        ["1", "1"],
        ["1", "2"],
        ["1", "4"],
        ["2", "1"],
        ["2", "2"],
        ["2", "4"],
    ]
    level1 = (
        r"\| Fig 4: level 1 gains about 0.9 points per doubling of its beam \| 0.9 \(rounding "
        r"±0.05; read off a curve: ±0.2\) \| [+-]\d"
    )
    assert re.search(level1, report)
    assert (
        "| Fig 4: level 3 gains about 0.7 points per doubling of its beam | 0.7 | - | not run"
        in report
    )
    # Each reading of Table 1 has its row (quick: three cells of the default, two of each other).
    for reading in ("default (random ties", "first-found ties", "duplicates merged"):
        assert f"Table 1, the cells with a beam of 2 and (1, 1), reading: {reading}" in report
    readings = (out / "tables" / "quick" / "mcbs_table1_readings.csv").read_text()
    assert readings.count("\n") == 1 + 3 + 2 + 2
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


def test_the_rules_at_their_defaults_leave_published_cells_as_they_were():
    """algo.ties and algo.merge_duplicates came after Table 1 was published: at their defaults
    a cell keeps its hash (so the published runs resume), with another value it is a new cell."""
    import gzip
    import json

    from helpers import REPO
    from hydra import compose, initialize_config_dir

    from nmcs.harness.cli import CONFIG_DIR, register
    from nmcs.harness.runner import cell_hash, cell_identity

    path = REPO / "results" / "paper" / "mcbs_table1" / "cells.jsonl.gz"
    if not path.exists():
        pytest.skip("Table 1 not published")
    published = {
        line["cell_dir"]: line["cell"]
        for line in map(json.loads, gzip.decompress(path.read_bytes()).decode().splitlines())
    }
    register()
    # seeds=common: the published cells' scheme (tests/test_seeding.py).
    base = ["experiment=mcbs_table1", "scale=paper", "algo.beam=[1,2]", "seeds=common"]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        default = cell_hash(cell_identity(compose("config", overrides=base)))
        first = cell_hash(cell_identity(compose("config", overrides=[*base, "algo.ties=first"])))
    assert default == published["algo.beam=[1,2]"]
    assert first != default
