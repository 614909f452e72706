"""Verdicts of the claims read from reduced or indirect runs, on small hand-made results whose
right verdict is known: cut level-3 SameGame searches (lower bounds), forward checking under
a cap below the paper's, Figs 3-4 of the left move, Fig 8 against Fig 3, equal-time Tables 1-2,
the 78-move record of the Reflexive paper, and NRPA by level."""

import re

import numpy as np
import pandas as pd
import pytest
from helpers import REPO, FrameContext

from analysis import leftmove, morpion_nmcs, morpion_reflexive, nrpa, samegame, sudoku
from analysis.common import AGREES, DIFFERS, NOT_ENOUGH, NOT_RUN, p_value, paper_values
from nmcs.theory import leftmove_memorized as memorized
from nmcs.theory.leftmove import score_distribution

pytestmark = pytest.mark.unit

# ---------------------------------------------------------------- SameGame, cut level 3


def samegame_cells(scores_by_position, level, memorize, cut=0, sd=0.0, n=1, playouts=0.0):
    return pd.DataFrame(
        dict(
            position=range(1, len(scores_by_position) + 1),
            level=level,
            memorize=memorize,
            cut=cut,
            n=n,
            mean=scores_by_position,
            ci95=np.nan,
            sd=sd,
            best=scores_by_position,
            seconds=1.0,
            playouts=playouts,
        )
    )


def test_per_position_keeps_cut_searches_apart():
    rows = pd.DataFrame(
        dict(
            position=[1, 1, 1],
            level=[3, 3, 2],
            memorize=[True, True, True],
            cut=[20_000_000, 0, 0],
            score=[2900, 3100, 2000],
            seconds=1.0,
            playouts=[2e7, 1e9, 8e5],
        )
    )
    cells = samegame.per_position(rows)
    assert len(cells) == 3
    cut = cells[cells["cut"] > 0].iloc[0]
    assert (cut["level"], cut["mean"], cut["n"]) == (3, 2900, 1)
    assert samegame.column_name(3, True, 20_000_000) == "level 3m, cut at 20,000,000 playouts"


@pytest.mark.parametrize(
    "per_position, expected",
    [
        # total 80,000: above SP-MCTS's 73,998 and one level-2m run (66,000), with margins
        (4000.0, {"total": NOT_ENOUGH, "sp_mcts": AGREES, "level2m": AGREES}),
        # total 70,000: a lower bound below SP-MCTS: nothing settled there
        (3500.0, {"total": NOT_ENOUGH, "sp_mcts": NOT_ENOUGH, "level2m": AGREES}),
        # total 74,600: above 73,998, but not by one run's spread (± 876 from level 2m)
        (3730.0, {"total": NOT_ENOUGH, "sp_mcts": NOT_ENOUGH, "level2m": AGREES}),
        # total 60,000: not even above one level-2m run
        (3000.0, {"total": NOT_ENOUGH, "sp_mcts": NOT_ENOUGH, "level2m": NOT_ENOUGH}),
    ],
)
def test_cut_level3_is_a_lower_bound(per_position, expected):
    paper = paper_values("samegame")
    level2m = samegame_cells([3300.0] * 20, 2, True, sd=100.0, n=5, playouts=800_000.0)
    cut = samegame_cells([per_position] * 20, 3, True, cut=20_000_000)
    claims = samegame.cut_claims("level3m", 20_000_000, cut, {"level2m": level2m}, paper, "cmd")
    by_name = {
        "total": next(c for c in claims if "total over the 20 positions" in c.claim),
        "sp_mcts": next(c for c in claims if "SP-MCTS" in c.claim),
        "level2m": next(c for c in claims if "beats level 2m" in c.claim),
    }
    assert {k: c.verdict for k, c in by_name.items()} == expected
    assert "a lower bound" in by_name["total"].ours
    assert "about 25 level-2m searches" in by_name["total"].ours  # 2e7 / 8e5


def test_cut_level3_without_level_2m_gives_only_the_bound():
    paper = paper_values("samegame")
    cut = samegame_cells([4000.0] * 20, 3, True, cut=1000)
    (claim,) = samegame.cut_claims("level3m", 1000, cut, {}, paper, "cmd")
    assert claim.verdict == NOT_ENOUGH and "a lower bound" in claim.ours


def test_cut_level3_on_some_positions_is_not_run():
    paper = paper_values("samegame")
    cut = samegame_cells([4000.0] * 7, 3, True, cut=1000)
    (claim,) = samegame.cut_claims("level3m", 1000, cut, {}, paper, "cmd")
    assert claim.verdict == NOT_RUN and "only 7 positions" in claim.ours


def table1_rows(seeds_shared: bool, n: int = 10) -> pd.DataFrame:
    """SameGame Table 1 at level 2: 20 positions, with and without memorization, ``n`` searches
    a cell. Search i of a position scores alike in both cells (a shared luck, as common random
    numbers give) plus a little noise; memorization adds 1,100 points. ``seeds_shared``: the
    cells' search i share its seed (common seeds), else every cell has seeds of its own."""
    rng = np.random.default_rng(11)
    luck = rng.normal(0, 300, (20, n))
    parts = []
    for position in range(20):
        for memorize in (False, True):
            cell = position * 2 + memorize
            parts.append(
                pd.DataFrame(
                    dict(
                        game="samegame",
                        policy="tabu",
                        instance=str(position),
                        level=2,
                        memorize=memorize,
                        budget_playouts=np.nan,
                        search=range(n),
                        search_seed=pd.array(
                            np.arange(n) + (0 if seeds_shared else 1000 * cell), "UInt64"
                        ),
                        score=2200 + 1100 * memorize + luck[position] + rng.normal(0, 30, n),
                        seconds=1.0,
                        playouts=1000.0,
                    )
                )
            )
    return pd.concat(parts, ignore_index=True)


def test_samegame_memorization_gain_pairs_cells_on_common_seeds_and_says_so(tmp_path):
    def gain(seeds_shared):
        ctx = FrameContext({"samegame_table1": table1_rows(seeds_shared)}, tmp_path)
        return next(c for c in samegame.analyze(ctx) if c.claim.startswith("memorizing"))

    paired, apart = gain(True), gain(False)
    assert "(paired by search: common seeds)" in paired.ours
    assert "(independent cells)" in apart.ours
    assert paired.verdict == apart.verdict == AGREES

    def width(claim):
        low, high = (float(x.replace(",", "")) for x in re.findall(r"[-+][\d,]+", claim.ours)[1:3])
        return high - low

    # The shared luck cancels in each position's difference only when the pairs are used.
    assert width(paired) < 0.3 * width(apart)


def test_samegame_table1_rows_name_the_rules_that_decide_them(tmp_path):
    ctx = FrameContext({"samegame_table1": table1_rows(True)}, tmp_path)
    claims = samegame.analyze(ctx)
    assert claims and all(c.rules for c in claims)
    rules = {r for c in claims for r in c.rules}
    assert rules == {samegame.TOTAL_RULE, samegame.GAIN_RULE}
    assert f"at least {samegame.MIN_SEEDS} searches a position" in samegame.TOTAL_RULE
    cut = samegame_cells([4000.0] * 20, 3, True, cut=1000)
    (claim,) = samegame.cut_claims("level3m", 1000, cut, {}, paper_values("samegame"), "cmd")
    assert claim.rules == (samegame.CUT_RULE,)


def test_a_samegame_total_outside_one_runs_range_differs_with_a_p_value(tmp_path):
    rows = table1_rows(True)
    rows.loc[~rows["memorize"], "score"] -= 500  # level 2 totals 34,000, the paper 44,731
    ctx = FrameContext({"samegame_table1": rows}, tmp_path)
    level2 = next(c for c in samegame.analyze(ctx) if c.claim.startswith("level 2 ("))
    assert level2.verdict == DIFFERS and 0 < p_value(level2.verdict) < 1e-3


# ---------------------------------------------------------------- Sudoku, forward checking


def fc_rows(unsolved, n=100, capped_seconds=14.0, solved_seconds=0.5):
    solved = np.arange(n) >= unsolved
    return pd.DataFrame(
        dict(
            method="fc",
            problem=range(n),
            solved=solved,
            seconds=np.where(solved, solved_seconds, capped_seconds),
        )
    )


def others(sampling_seconds=40.0, l1m_seconds=0.9, n=100, sampling_unsolved=0):
    """Iterative sampling and NMCS level 1 on problems 0..n-1, their seconds spread evenly."""
    return pd.DataFrame(
        dict(
            method=["sampling"] * n + ["l1m"] * n,
            problem=list(range(n)) * 2,
            solved=[i >= sampling_unsolved for i in range(n)] + [True] * n,
            seconds=[sampling_seconds / n] * n + [l1m_seconds / n] * n,
        )
    )


def fc_verdicts(fc, rest):
    claims = sudoku.fc_claims(pd.concat([fc, rest]), paper_values("sudoku"), "cmd")
    assert len(claims) == 3
    return [c.verdict for c in claims]


def test_fc_under_a_reduced_cap_gives_bounds():
    # 60 unsolved at a 14 s cap: more than the paper's 21 could be solved with more time, and
    # FC's > 840 s is at least 10 times sampling's 40 s but far from 200,000 times level 1's.
    assert fc_verdicts(fc_rows(60), others()) == [NOT_ENOUGH, AGREES, NOT_ENOUGH]
    # Only 5 unsolved even at a 14 s cap: fewer than 21 at any larger cap (Fisher p < 0.05).
    assert fc_verdicts(fc_rows(5), others())[0] == DIFFERS
    # A ratio to sampling below 10 under a reduced cap is not settled.
    assert fc_verdicts(fc_rows(60), others(sampling_seconds=200.0))[1] == NOT_ENOUGH


def test_fc_at_the_paper_cap_is_judged_directly():
    at_cap = fc_rows(20, capped_seconds=20_000.0)
    assert fc_verdicts(at_cap, others()) == [AGREES, AGREES, AGREES]  # 400,000 s / 0.9 s
    assert fc_verdicts(fc_rows(45, capped_seconds=20_000.0), others())[0] == DIFFERS
    # A method that leaves a problem unsolved cannot be the faster one that "solves all".
    assert fc_verdicts(at_cap, others(sampling_unsolved=1))[1] == DIFFERS


def test_fc_is_compared_on_its_own_problems_only():
    # FC on problems 0-49; the other methods on 0-99: their time on 0-49 counts.
    claims = sudoku.fc_claims(
        pd.concat([fc_rows(10, n=50), others(sampling_seconds=100.0)]),
        paper_values("sudoku"),
        "cmd",
    )
    assert "iterative sampling: 50.00 s" in claims[1].ours
    # A method missing some of FC's problems gives no ratio claim.
    claims = sudoku.fc_claims(pd.concat([fc_rows(10), others(n=50)]), paper_values("sudoku"), "cmd")
    assert len(claims) == 1


# ---------------------------------------------------------------- left move, Figs 3-4


def leftmove_rows(gain_no_memo, depth=60, n=2000, seed=0):
    """Scores of levels 0 and 3 with and without memorization, level 3 with memorization
    25 points above level 0 and without memorization ``gain_no_memo`` above it."""
    rng = np.random.default_rng(seed)
    parts = []
    for level, memorize, shift in ((0, False, 0), (0, True, 0), (3, False, gain_no_memo)):
        parts.append((level, memorize, np.clip(rng.normal(30 + shift, 3, n).round(), 0, depth)))
    best = np.full(n, 55.0)
    best[:5] = depth  # 5 in 2,000 find the best score
    parts.append((3, True, best))
    return pd.DataFrame(
        [
            dict(level=lv, memorize=m, depth=depth, score=int(s))
            for lv, m, scores in parts
            for s in scores
        ]
    )


def test_fig4_claims():
    much_less, best = leftmove.fig4_claims(leftmove_rows(gain_no_memo=10), "cmd")
    assert much_less.verdict == AGREES and much_less.ours.startswith("gain +1")
    assert best.verdict == AGREES
    # Without memorization gaining as much as with it: the claim fails.
    assert leftmove.fig4_claims(leftmove_rows(gain_no_memo=25), "cmd")[0].verdict == DIFFERS
    assert score_distribution(60, 3)[60] < 1e-9


# ---------------------------------------------------------------- Morpion and Reflexive


def test_standardized_gain_and_its_error():
    rng = np.random.default_rng(1)
    low, high = rng.normal(10, 2, 4000), rng.normal(13, 1, 4000)
    d, se = morpion_nmcs._standardized_gain(low, high)
    assert abs(d - 1.5) < 4 * se and 0.01 < se < 0.05


def games_table_rows(games, means, seconds, n=50, sd=1.0):
    """A table of rows (games, mean, ...) and its searches: n scores per row with the given
    mean and standard deviation, independent cells (no seeds)."""
    rng = np.random.default_rng(len(games))
    half = 1.96 * sd / np.sqrt(n)  # ~ t quantile at n = 50
    table = pd.DataFrame(dict(games=games, n=n, mean=means, ci95=half, mean_seconds=seconds))
    rows = []
    for g, m in zip(games, means, strict=True):
        noise = rng.normal(0, 1, n)
        scores = m + sd * (noise - noise.mean()) / noise.std(ddof=1)
        rows.append(pd.DataFrame(dict(budget_playouts=g, score=scores)))
    return table, pd.concat(rows, ignore_index=True)


class _Ctx:
    scale = "paper"


def test_equal_time_claim():
    rnd = games_table_rows([10, 100, 1000, 10000], [55.0, 58.0, 60.0, 61.0], [1, 10, 100, 1000])
    similar = games_table_rows([10, 100, 1000], [57.5, 60.2, 61.3], [10, 100, 1000])
    (claim,) = morpion_reflexive._equal_time_claim(
        _Ctx(), {"rmc_table1": rnd, "rmc_table2": similar}
    )
    assert claim.verdict == AGREES and "take 1.0 times as long" in claim.ours
    assert "independent cells" in claim.ours
    apart = games_table_rows([10, 100, 1000], [61.0, 63.0, 64.0], [10, 100, 1000])
    (claim,) = morpion_reflexive._equal_time_claim(_Ctx(), {"rmc_table1": rnd, "rmc_table2": apart})
    assert claim.verdict == DIFFERS


def test_record_78_claim():
    record = paper_values("morpion")["rmc_qualitative"]["record_78"]
    # One of 40 runs reaches 78: the record is reproduced.
    scores = [70] * 20 + [74] * 19 + [78]
    runs = pd.DataFrame(dict(pair=[(100, 1000)] * 40, score=scores, seconds=1.0))
    claim = morpion_reflexive._record_78_claim(runs, record, "cmd")
    assert claim.verdict == AGREES and "1 of 40 runs reach 78" in claim.ours
    # None does: a record is the best of an unknown number of runs, so nothing is refuted;
    # the chance of one run is bounded by the exact binomial interval (3.7/40 for 0 of 40).
    claim = morpion_reflexive._record_78_claim(
        runs.assign(score=[70] * 20 + [74] * 20), record, "cmd"
    )
    assert claim.verdict == NOT_ENOUGH and "0 of 40 runs reach 78" in claim.ours
    assert "at most 0.09" in claim.ours
    assert morpion_reflexive._record_78_claim(runs.iloc[:0], record, "cmd").verdict == NOT_RUN


def scores_frame(means_by_level, sd, n=3000, depth=None, seed=0):
    """Normal scores per (level, memorize=False); level 0 also as memorize=True (the same
    playouts), as the experiments store it."""
    rng = np.random.default_rng(seed)
    rows = []
    for level, mean in means_by_level.items():
        s = rng.normal(mean, sd[level], n).round()
        for memorize in (False, True) if level == 0 else (False,):
            rows.append(pd.DataFrame(dict(level=level, memorize=memorize, score=s, depth=depth)))
    return pd.concat(rows, ignore_index=True)


class _LeftCtx(_Ctx):
    def __init__(self, left):
        self.left = left

    def results(self, experiment):
        assert experiment == "leftmove_distributions"
        return self.left


def test_scaling_claim_reads_the_nested_levels():
    # Morpion: level 1 -> 2 gains one level-1 sd; left move: a third of one.
    morpion_rows = scores_frame({0: 43, 1: 58, 2: 61}, {0: 13, 1: 3, 2: 2})
    left = scores_frame({0: 30, 1: 38, 2: 39}, {0: 4, 1: 3, 2: 3}, depth=60)
    (claim,) = morpion_nmcs._scaling_claim(_LeftCtx(left), morpion_rows)
    assert claim.verdict == AGREES and "left move (depth 60) +0.3" in claim.ours
    (claim,) = morpion_nmcs._scaling_claim(_LeftCtx(morpion_rows.assign(depth=60)), left)
    assert claim.verdict == DIFFERS
    (claim,) = morpion_nmcs._scaling_claim(_LeftCtx(left.iloc[:0]), morpion_rows)
    assert claim.verdict == NOT_RUN


# ------------------------------------------------------- left move, the exact memorized law


def best_rows(depth, level, p_best, n=100_000, **columns):
    """n searches of one cell, a fraction ``p_best`` of them at the best score."""
    hits = round(p_best * n)
    scores = np.r_[np.full(hits, depth), np.full(n - hits, depth - 1)]
    return pd.DataFrame(dict(level=level, depth=depth, score=scores, **columns))


PAPER_LEFTMOVE = paper_values("leftmove")["best_probability"]


def paper_range():
    tol = 0.5 * 10 ** -PAPER_LEFTMOVE["decimals"]
    value = PAPER_LEFTMOVE["with_memorization"]
    return value - tol, value + tol


def test_memorized_depth9_verdicts_use_the_exact_law(tmp_path):
    """Simulated values chosen so that our interval alone would give the opposite verdict:
    memorize_from=1 simulated at the paper's 0.80 (its interval would agree) and
    memorize_from=2 at 0.78 (its interval would differ). The verdict follows the exact value,
    the row shows it (from nmcs.theory.leftmove_memorized) and says it is outside our
    interval."""
    depth, level = PAPER_LEFTMOVE["depth"], PAPER_LEFTMOVE["level"]
    low, high = paper_range()
    simulated = {1: PAPER_LEFTMOVE["with_memorization"], 2: 0.78, 3: 0.6657}
    frames = {
        "leftmove_memorize_from": pd.concat(
            best_rows(depth, level, p, memorize_from=start, memorize=True)
            for start, p in simulated.items()
        )
    }
    claims = leftmove.analyze_memorize_from(FrameContext(frames, tmp_path))
    rows = {c.claim: c for c in claims}
    for start in (1, 2, 3):
        exact = memorized.best_score_probability(depth, level, start)
        claim = next(c for name, c in rows.items() if f"at levels >= {start} only" in name)
        assert f"exact: {exact:.4f} (nmcs.theory.leftmove_memorized)" in claim.ours
        assert "against the exact one" in claim.claim
        assert claim.verdict == (AGREES if low <= exact <= high else DIFFERS)
        # the simulated interval is still shown
        assert claim.ours.startswith(f"{simulated[start]:.3f} [")
    assert rows_verdicts(claims) == [DIFFERS, AGREES, DIFFERS]
    assert all("outside our interval" in c.ours for c in claims[:2])
    assert "outside our interval" not in claims[2].ours
    # the per-cell row: the exact law inside the interval of 1 cell of 3
    per_cell = claims[-1]
    assert per_cell.claim.startswith("the exact memorized law predicts")
    assert per_cell.ours.startswith("theory inside the 95% CI in 1 of 3 cells")
    assert "depths 9-9" in per_cell.ours


def rows_verdicts(claims):
    return [c.verdict for c in claims if "depth 9: P(best score) with memorization" in c.claim]


def test_best_probability_memorized_row_and_cells(tmp_path):
    depth, level = PAPER_LEFTMOVE["depth"], PAPER_LEFTMOVE["level"]
    exact = memorized.best_score_probability(depth, level, 1)
    frames = {
        "leftmove_best_probability": pd.concat(
            [
                # simulated at 0.80: the interval alone would agree with the paper
                best_rows(depth, level, 0.80, memorize=True, memorize_from=1),
                best_rows(
                    5, 2, memorized.best_score_probability(5, 2, 1), memorize=True, memorize_from=1
                ),
                # deeper than the exact law reaches: not compared
                best_rows(25, 1, 0.0005, n=2000, memorize=True, memorize_from=1),
                best_rows(
                    depth,
                    level,
                    score_distribution(depth, level)[depth],
                    memorize=False,
                    memorize_from=1,
                ),
            ]
        )
    }
    claims = leftmove.analyze_best_probability(FrameContext(frames, tmp_path))
    with_memo = next(
        c for c in claims if c.claim.startswith("level 3, depth 9: P(best score) with memorization")
    )
    assert f"exact: {exact:.4f} (nmcs.theory.leftmove_memorized)" in with_memo.ours
    assert with_memo.verdict == DIFFERS  # 0.8123 is outside [0.795, 0.805]
    per_cell = next(c for c in claims if c.claim.startswith("the exact memorized law predicts"))
    assert per_cell.ours.startswith("theory inside the 95% CI in 1 of 2 cells")
    assert "depths 5-9" in per_cell.ours and "1 deeper cells not compared" in per_cell.ours
    table = pd.read_csv(tmp_path / "tables" / "leftmove_best_probability.csv")
    deep = table[table["depth"] == 25].iloc[0]
    assert np.isnan(deep["theory_memorized"]) and np.isnan(deep["theory"])
    assert (tmp_path / "figures" / "leftmove_best_probability.png").stat().st_size > 0


def test_exact_best_probability_covers_the_feasible_depths():
    assert leftmove.exact_best_probability(9, 3, 2) == memorized.best_score_probability(9, 3, 2)
    assert leftmove.exact_best_probability(60, 3, None) == score_distribution(60, 3)[60]
    assert leftmove.exact_best_probability(60, 3, 4) == score_distribution(60, 3)[60]
    assert np.isnan(leftmove.exact_best_probability(leftmove.MEMORIZED_THEORY_MAX_DEPTH + 1, 3, 1))
    # Without an exact value the verdict falls back on our interval.
    row = pd.Series(dict(ci_low=0.797, ci_high=0.803, theory=float("nan"), theory_in_ci=None))
    assert leftmove.exact_verdict(row, 0.80, 0.005) == (AGREES, "")


def test_the_committed_report_shows_the_exact_memorized_values():
    """results/paper/REPRODUCTION.md: each memorized depth-9 level-3 row names the exact
    P(best) of nmcs.theory.leftmove_memorized, and its verdict is the exact value's."""
    report = REPO / "results" / "paper" / "REPRODUCTION.md"
    if not report.exists():
        pytest.skip("no published paper-scale report in this checkout")
    low, high = paper_range()
    depth, level = PAPER_LEFTMOVE["depth"], PAPER_LEFTMOVE["level"]
    lines = report.read_text().splitlines()
    rows = [line for line in lines if line.startswith(f"| level {level}, depth {depth}: P(best")]
    rows = [line for line in rows if "P(best score) with memorization" in line]
    # "with memorization" (leftmove_best_probability: every level memorizes), then one row per
    # memorize_from of leftmove_memorize_from
    readings = [
        next((k for k in (1, 2, 3) if f"at levels >= {k} only" in line), 1) for line in rows
    ]
    assert sorted(readings) == [1, 1, 2, 3]
    for start, line in zip(readings, rows, strict=True):
        exact = memorized.best_score_probability(depth, level, start)
        assert f"exact: {exact:.4f} (nmcs.theory.leftmove_memorized)" in line
        # The columns end: verdict | Holm p |. A paper-vs-exact verdict says its kind, and the
        # memorize_from=1 row, the same searches as the first, is a reading of it.
        verdict = line.split("|")[-3].strip().removeprefix("(")
        assert verdict.startswith(AGREES if low <= exact <= high else DIFFERS)
        assert "(paper vs exact)" in verdict
    cells = [line for line in lines if "exact memorized law predicts" in line]
    # leftmove_coverage (independent cells), leftmove_best_probability and
    # leftmove_memorize_from (common random numbers: judged by Bonferroni).
    assert len(cells) == 3 and all("depths 1-20" in line for line in cells)
    assert sum("cells independent: binomial(60, 0.95)" in line for line in cells) == 1
    assert sum("Bonferroni over the 60 cells" in line for line in cells) == 2


# ---------------------------------------------------------------- NRPA by level


def test_nrpa_levels_are_described_not_claimed(tmp_path):
    """Levels 100 times apart in playouts: 'a higher level scores higher' cannot fail, so the
    levels give a table and a figure and no claim."""
    frames = {
        "nrpa_levels": pd.DataFrame(
            [
                dict(level=lv, score=s, game_options="variant=5D", playouts=100, seconds=0.1)
                for lv, scores in {1: [60, 61, 62], 2: [70, 71, 72]}.items()
                for s in scores
            ]
        )
    }
    assert nrpa.analyze_levels(FrameContext(frames, tmp_path)) == []
    assert (tmp_path / "tables" / "nrpa_levels.csv").exists()


def vs_nmcs_frames(nrpa_scores, nmcs_scores, nmcs_seconds=0.1, n=30):
    """One NRPA cell (level 2, N = 10: 100 playouts, 0.1 s a search) and NMCS at its playouts
    and at its time, on Morpion."""
    rng = np.random.default_rng(0)

    def cell(algo, scores, seconds, **budget):
        return pd.DataFrame(
            dict(
                game="morpion",
                algo=algo,
                level=2 if algo == "nrpa" else 1,
                algo_iterations=10 if algo == "nrpa" else np.nan,
                score=rng.normal(scores, 1.0, n).round(),
                seconds=seconds,
                search=np.arange(n),
                search_seed=rng.integers(0, 2**62, n).astype(np.uint64),
                experiment="x",
                cell=algo + str(budget),
                **budget,
            )
        )

    return {
        "nrpa_vs_nmcs": cell("nrpa", nrpa_scores, 0.1),
        "nrpa_vs_nmcs_playouts": cell("iterative", nmcs_scores, 0.01, budget_playouts=100),
        "nrpa_vs_nmcs_time_morpion": cell(
            "iterative", nmcs_scores, nmcs_seconds, budget_seconds=0.1
        ),
    }


def samegame_vs_nmcs_frames(policies=("tabu", "random")):
    """NRPA cells on SameGame, one per playout policy (tabu: 90 points above NMCS, random: 100
    below), and NMCS at their playouts and at their times."""
    rng = np.random.default_rng(1)
    n = 30

    def cell(algo, mean, seconds, policy="tabu", **budget):
        return pd.DataFrame(
            dict(
                game="samegame",
                policy=policy,
                algo=algo,
                level=2 if algo == "nrpa" else 1,
                algo_iterations=10 if algo == "nrpa" else np.nan,
                score=rng.normal(mean, 10.0, n).round(),
                seconds=seconds,
                search=np.arange(n),
                experiment="x",
                cell=f"{algo}{policy}{budget}",
                **budget,
            )
        )

    seconds = {"tabu": 0.05, "random": 0.5}
    means = {"tabu": 1090, "random": 900}
    nrpa_cells = [cell("nrpa", means[p], seconds[p], p) for p in policies]
    return {
        "nrpa_vs_nmcs": pd.concat(nrpa_cells, ignore_index=True),
        "nrpa_vs_nmcs_playouts": cell("iterative", 1000, 0.01, budget_playouts=100),
        "nrpa_vs_nmcs_time_samegame": pd.concat(
            [cell("iterative", 1000, s, budget_seconds=s) for s in seconds.values()],
            ignore_index=True,
        ),
    }


def test_samegame_nrpa_is_judged_on_its_tabu_playouts_with_uniform_ones_a_second_reading(
    tmp_path,
):
    """On SameGame each statement is decided by NRPA with the tabu colour rule; NRPA with
    uniform playouts is a further reading of it, labelled; without a tabu cell the statement is
    'not run' (its tabu reading), the uniform one still shown."""
    claims = nrpa.analyze_vs_nmcs(FrameContext(samegame_vs_nmcs_frames(), tmp_path))
    tabu, uniform = "tabu-colour playouts", "uniform playouts (every group)"
    assert [(tabu in c.claim, uniform in c.claim) for c in claims] == [
        (True, False),
        (False, True),
    ] * 2
    at_playouts, at_time = claims[:2], claims[2:]
    assert (
        at_playouts[0].statement
        == at_playouts[1].statement
        == (
            "SameGame (position 0), at 100 playouts: NRPA (level 2, N = 10) scores higher than "
            "memorized NMCS"
        )
    )
    assert at_time[0].statement == at_time[1].statement != at_playouts[0].statement
    assert "(0.05 s)" in at_time[0].claim and "(0.5 s)" in at_time[1].claim
    assert [c.verdict for c in claims] == [AGREES, DIFFERS, AGREES, DIFFERS]
    assert "tabu colour rule" in claims[0].ours and "every group" in claims[1].ours
    table = (tmp_path / "tables" / "nrpa_vs_nmcs.csv").read_text()
    assert "nrpa_policy" in table.splitlines()[0]

    only_uniform = samegame_vs_nmcs_frames(("random",))
    claims = nrpa.analyze_vs_nmcs(FrameContext(only_uniform, tmp_path))
    assert [c.verdict for c in claims] == [NOT_RUN, DIFFERS, NOT_RUN, DIFFERS]
    assert tabu in claims[0].claim and claims[0].statement == claims[1].statement


def test_nrpa_against_nmcs_at_equal_cost(tmp_path):
    claims = nrpa.analyze_vs_nmcs(FrameContext(vs_nmcs_frames(70, 65), tmp_path))
    assert [c.claim for c in claims] == [
        "Morpion 5D, at 100 playouts: NRPA (level 2, N = 10) scores higher than memorized NMCS",
        "Morpion 5D, at the time of 100 NRPA playouts (0.1 s): NRPA (level 2, N = 10) scores "
        "higher than memorized NMCS",
    ]
    assert [c.verdict for c in claims] == [AGREES, AGREES]
    assert "n = 30, 30 (independent cells, Welch)" in claims[0].ours
    worse = nrpa.analyze_vs_nmcs(FrameContext(vs_nmcs_frames(60, 65), tmp_path))
    assert [c.verdict for c in worse] == [DIFFERS, DIFFERS]
    # NMCS's last playout ran far past the time budget: not equal time, no verdict.
    overshoot = nrpa.analyze_vs_nmcs(FrameContext(vs_nmcs_frames(70, 65, 0.2), tmp_path))
    assert overshoot[1].verdict == NOT_ENOUGH and "more than 1.5 times" in overshoot[1].ours
    few = nrpa.analyze_vs_nmcs(FrameContext(vs_nmcs_frames(70, 65, n=10), tmp_path))
    assert [c.verdict for c in few] == [NOT_ENOUGH, NOT_ENOUGH]
