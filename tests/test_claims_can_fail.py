"""Every family of claims can fail: fed the data a wrong engine would give (a memorization that
does nothing, a level that does not help, the wrong score law, a heuristic that hurts), each
says "differs". The families that cannot say "differs" by design (a record is the best of an
unknown number of runs) must at least not say "agrees" or "reached" on a miss. Every module of
the analysis that makes claims is fed here (the last test checks it).

Each test names the family and the wrong engine; the right engine's "agrees" is tested beside
each family in tests/test_analysis_claims.py, tests/test_frontier_analysis.py and
tests/test_verdicts.py."""

import re
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from helpers import REPO, FrameContext

from analysis import (
    beam,
    leftmove,
    morpion_nmcs,
    morpion_reflexive,
    nrpa,
    records,
    samegame,
    samegame_policy,
    samegame_records,
    sudoku,
    twoplayer,
)
from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_REACHED,
    REACHED,
    p_value,
    paper_values,
    verdict_interval,
    verdict_sign,
    verdict_single_run,
)
from nmcs.theory.leftmove import score_distribution

pytestmark = pytest.mark.unit


def scores_of_law(law: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """n scores drawn from a score law (index: score)."""
    return np.random.default_rng(seed).choice(law.size, n, p=law / law.sum())


# ---------------------------------------------------------------- the verdict words


def test_an_interval_a_sign_and_a_single_run_reject_what_they_must():
    assert verdict_interval(4.9, 5.4, 5.5, 6.5) == DIFFERS  # +5.14 against +6 within 0.5
    assert verdict_sign(-2.0, -1.0) == DIFFERS  # "A beats B", B ahead
    assert verdict_single_run(np.arange(50, 90), 120) == DIFFERS  # far outside one run's range


# ---------------------------------------------------------------- NMCS 4, the left move


def fig3_rows(levels_law: dict[int, int], depth: int = 20, n: int = 20_000) -> pd.DataFrame:
    """Searches labelled with one level, their scores drawn from another level's exact law."""
    parts = []
    for level, law_level in levels_law.items():
        scores = scores_of_law(score_distribution(depth, law_level), n, seed=level)
        parts.append(pd.DataFrame(dict(level=level, depth=depth, memorize=False, score=scores)))
    return pd.concat(parts, ignore_index=True)


def test_fig3_rejects_an_engine_whose_levels_are_not_the_dynamic_programmes(tmp_path):
    # Level 2 searching like level 1: its scores follow level 1's law.
    ctx = FrameContext(fig3_rows({1: 1, 2: 1}), tmp_path)
    within, fit = leftmove.analyze_distributions(ctx)
    assert within.verdict == DIFFERS and fit.verdict == DIFFERS


def depth60_rows(n: int = 100_000, memorize_works: bool = True) -> pd.DataFrame:
    """Fig 3-4's cells at depth 60, levels 0 and 3: without memorization from the dynamic
    programme; with it, a shift towards the best score, or (a memorization that does nothing)
    the law without it."""
    law0, law3 = score_distribution(60, 0), score_distribution(60, 3)
    memo = scores_of_law(law3, n, seed=3)
    if memorize_works:
        memo = np.minimum(memo + 25, 60)
    parts = [
        (0, False, scores_of_law(law0, n)),
        (0, True, scores_of_law(law0, n)),
        (3, False, scores_of_law(law3, n, seed=4)),
        (3, True, memo),
    ]
    return pd.concat(
        [pd.DataFrame(dict(level=lv, memorize=m, depth=60, score=s)) for lv, m, s in parts],
        ignore_index=True,
    )


def test_fig4_rejects_a_memorization_that_does_nothing():
    much_less, some_chance = leftmove.fig4_claims(depth60_rows(memorize_works=False), "cmd")
    assert much_less.verdict == DIFFERS
    assert some_chance.verdict == DIFFERS and "[0, 3.8e-05]" in some_chance.ours
    # A memorization that works passes both.
    works = leftmove.fig4_claims(depth60_rows(), "cmd")
    assert [c.verdict for c in works] == [AGREES, AGREES]


def test_depth9_and_coverage_reject_an_engine_with_the_wrong_law(tmp_path):
    # P(best) of a level-3 search without memorization at 0.50, not the programme's 0.41.
    n, hits = 100_000, 50_000
    rows = pd.DataFrame(
        dict(
            level=3,
            depth=9,
            memorize=False,
            memorize_from=1,
            score=np.r_[np.full(hits, 9), np.full(n - hits, 8)],
        )
    )
    ctx = FrameContext({"leftmove_best_probability": rows}, tmp_path)
    claims = leftmove.analyze_best_probability(ctx)
    depth9 = next(c for c in claims if "without memorization" in c.claim)
    coverage = next(c for c in claims if "predicts" in c.claim)
    assert depth9.verdict == DIFFERS and coverage.verdict == DIFFERS


def test_real_time_gaps_reject_levels_that_do_not_gain_as_said():
    grid = 0.01 * 2.0 ** np.arange(4)
    rng = np.random.default_rng(0)

    def curve(mean):
        return mean + rng.normal(0, 0.5, (20, grid.size))

    # Level 1 gains 3 points over level 0, not 6; without memorization level 2 beats level 1.
    curves = {(0, True): curve(40), (1, True): curve(43), (1, False): curve(40)}
    curves[(2, False)] = curve(42)
    searches = {key: pd.DataFrame(index=range(20)) for key in curves}
    paper = paper_values("leftmove")
    (gain,) = leftmove.memorized_gap_claims(grid, curves, searches, paper, "cmd")
    assert gain.verdict == DIFFERS
    (worse,) = leftmove.unmemorized_gap_claims(curves, searches, "cmd")
    assert worse.verdict == DIFFERS


def test_the_leftmost_path_rejects_a_search_that_misses(tmp_path):
    rows = pd.DataFrame(
        dict(
            depth=10,
            memorize=False,
            score=[10, 10, 9],
            playout_moves=[90, 90, 91],
            playouts=1,
        )
    )
    always, cost = leftmove.analyze_leftmost(FrameContext(rows, tmp_path))
    assert always.verdict == DIFFERS and cost.verdict == DIFFERS


# ---------------------------------------------------------------- NMCS 5.1, Morpion


def test_morpion_peaks_memorization_and_level_cost_reject_a_wrong_engine():
    paper = paper_values("morpion")["nmcs_distributions"]
    rows = [
        dict(level=level, peak=50, peak_low=50, peak_high=50, mean=50.0, n=10_000)
        for level in (1, 2)
    ]
    peaks = morpion_nmcs.peak_claims(rows, {1: frozenset(), 2: frozenset()}, False, paper, "c")
    assert [c.verdict for c in peaks] == [DIFFERS, DIFFERS]
    rng = np.random.default_rng(1)
    # Memorization that shortens the games, and a level 1000 times the cost of the one below.
    df = pd.concat(
        [
            pd.DataFrame(
                dict(
                    level=level,
                    memorize=memorize,
                    score=rng.normal(60 - 2 * memorize, 2, 500).round(),
                    playout_moves=rng.normal(1000.0**level, 10.0**level, 500),
                )
            )
            for level in (0, 1, 2, 3)
            for memorize in (False, True)
        ],
        ignore_index=True,
    )
    assert {c.verdict for c in morpion_nmcs.memorization_claims(df, "c")} == {DIFFERS}
    assert {c.verdict for c in morpion_nmcs.level_cost_claims(df, paper, "c")} == {DIFFERS}


def test_fig10_rejects_a_curve_that_is_not_linear_and_a_level_that_loses():
    seconds = 0.01 * 2.0 ** np.arange(8)
    step = np.where(np.arange(8) < 4, 60.0, 70.0)  # a jump, not a line in log time
    table = pd.concat(
        [pd.DataFrame(dict(level=lv, seconds=seconds, mean_score=step + lv)) for lv in (0, 1)]
    )
    df = pd.DataFrame(dict(level=np.repeat([0, 1], 10)))
    assert morpion_nmcs.log_linear_claim(table, df, "c").verdict == DIFFERS
    rng = np.random.default_rng(2)
    curves = {(lv, True): 60 - lv + rng.normal(0, 0.3, (10, 4)) for lv in (0, 1, 2)}
    searches = {key: pd.DataFrame(index=range(10)) for key in curves}
    gaps = morpion_nmcs.level_gap_claims(seconds[:4], curves, searches, "c")
    assert [c.verdict for c in gaps] == [DIFFERS, DIFFERS]


# ---------------------------------------------------------------- Reflexive MC, Morpion


def table_and_rows(games, means, n=50, sd=1.0, seconds=None):
    rng = np.random.default_rng(len(games))
    rows = pd.concat(
        [
            pd.DataFrame(dict(budget_playouts=g, score=rng.normal(m, sd, n).round()))
            for g, m in zip(games, means, strict=True)
        ],
        ignore_index=True,
    )
    table = rows.groupby("budget_playouts")["score"].agg(["size", "mean", "std"]).reset_index()
    table = pd.DataFrame(
        dict(
            games=table["budget_playouts"],
            n=table["size"],
            mean=table["mean"],
            ci95=1.96 * table["std"] / np.sqrt(table["size"]),
            mean_seconds=seconds if seconds is not None else np.ones(len(games)),
        )
    )
    return table, rows


class _Ctx:
    scale = "paper"


def test_reflexive_joint_rows_and_comparisons_reject_a_wrong_engine():
    # Table 2's three lengths all above every run of ours: Fisher's combination rejects them.
    table, rows = table_and_rows([10, 100, 1000], [55, 56, 57])
    table = table.assign(paper_length=[62, 63, 64])
    (joint,) = morpion_reflexive._mobility_row_claim(_Ctx(), table, rows)
    assert joint.verdict == DIFFERS and "Fisher's combination" in joint.ours
    # Mobility that hurts (shorter than random moves), UCT worse than sampling.
    games = [10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000]
    random_moves = table_and_rows(games, [56 + k for k in range(7)], seconds=np.arange(1, 8))
    mobility = table_and_rows(games[:6], [53 + k for k in range(6)], seconds=np.arange(1, 7))
    uct = table_and_rows(games[:6], [50 + k for k in range(6)])
    tables = {"rmc_table1": random_moves, "rmc_table2": mobility, "rmc_table3": uct}
    verdicts = [c.verdict for c in morpion_reflexive._compare_tables(_Ctx(), tables)]
    assert verdicts == [DIFFERS, DIFFERS, DIFFERS]


def test_uct_constant_rejects_a_constant_beaten_by_another(tmp_path):
    rng = np.random.default_rng(3)
    rows = pd.concat(
        [
            pd.DataFrame(
                dict(
                    game="morpion",
                    algo="uct",
                    policy="mobility",
                    algo_c=c,
                    budget_playouts=10_000,
                    score=rng.normal(60 + 3 * (c == 1.0), 1, 40).round(),
                )
            )
            for c in (0.1, 1.0)
        ],
        ignore_index=True,
    )
    (claim,) = morpion_reflexive.analyze_uct_c(FrameContext(rows, tmp_path))
    assert claim.verdict == DIFFERS


def test_a_record_that_no_run_reaches_is_never_agreed():
    record = paper_values("morpion")["rmc_qualitative"]["record_78"]
    runs = pd.DataFrame(dict(pair=[(100, 1000)] * 40, score=[70] * 40, seconds=1.0))
    assert morpion_reflexive._record_78_claim(runs, record, "c").verdict != AGREES


# ---------------------------------------------------------------- Monte-Carlo Beam Search


def test_mcbs_table1_and_curves_reject_means_off_the_papers():
    verdict, _ = beam.cell_verdict(68.5, 1.8, 118, 67.44, 118)  # a point above, sd 1.8
    assert verdict == DIFFERS
    rng = np.random.default_rng(4)
    cells, rows = {}, []
    for s1, s2, paper_mean in ((1, 1, 66.66), (1, 2, 67.44), (2, 1, 67.84)):
        scores = rng.normal(paper_mean + 1.0, 1.8, 118)  # every cell a point above
        cells[(s1, s2)] = pd.DataFrame(dict(score=scores))
        rows.append(
            dict(
                s1=s1,
                s2=s2,
                n=118,
                mean=scores.mean(),
                sd=scores.std(ddof=1),
                paper_mean=paper_mean,
            )
        )
    whole = beam._table1_as_a_whole(pd.DataFrame(rows), cells, 118, "c")
    assert whole.verdict == DIFFERS
    assert beam.read_verdict(0.2, 0.4, 0.9, "slope") == DIFFERS  # 0.3 a doubling, not 0.9
    assert beam.read_verdict(-0.5, 0.5, 3, "gain") == DIFFERS  # no gain over NMCS, not +3


# ---------------------------------------------------------------- Sudoku


def test_sudoku_effort_rejects_a_method_that_needs_more():
    t2 = pd.DataFrame(
        dict(
            method=["l1m"] * 30 + ["sampling"] * 30,
            problem=list(range(30)) * 2,
            solved=True,
            playouts=[1000.0] * 30 + [100.0] * 30,  # NMCS needing ten times sampling's effort
            seconds=1.0,
        )
    )
    rng = np.random.default_rng(0)
    (claim,) = sudoku.less_effort_claim(t2, "l1m", "sampling", "less", "-", rng, "c")
    assert claim.verdict == DIFFERS


# ---------------------------------------------------------------- NRPA against NMCS


def test_nrpa_against_nmcs_rejects_an_nrpa_that_scores_lower():
    row = SimpleNamespace(
        game="morpion",
        basis="playouts",
        playouts=10_000,
        nrpa_level=2,
        nrpa_iterations=100,
        nrpa_policy="",
        nrpa_seconds=0.1,
        n_nrpa=30,
        n_nmcs=30,
        diff=-3.0,
        ci95_low=-4.0,
        ci95_high=-2.0,
        nrpa_mean=60.0,
        nmcs_mean=63.0,
        nmcs_level=1,
        nmcs_budget=10_000,
        nmcs_seconds=0.1,
        paired=False,
        reads=frozenset(),
    )
    claim = nrpa._vs_nmcs_claim(row, paper_values("nrpa")["vs_nmcs"], "c")
    assert claim.verdict == DIFFERS


# ---------------------------------------------------------------- two-player games


def test_two_player_patterns_and_settings_reject_a_wrong_table():
    # Nine versions, each certainly a loss: no choice gives five wins, three halves, one loss.
    assert twoplayer.pattern_verdict([[2]] * 9, (5, 3, 1), 9) == DIFFERS
    paper = paper_values("twoplayer")
    best, worse = paper["best_setting"], paper["worse_setting"]
    at = pd.DataFrame(
        dict(
            version=["breakthrough"] * 2,
            board="8x8",
            setting=[best, worse],
            n=200,
            win_rate=[0.3, 0.6],  # the "worse" setting ahead
        )
    )
    reading = twoplayer.worse_pooled_reading(at, ["breakthrough"], "one", paper)
    assert reading.verdict == DIFFERS


# ---------------------------------------------------------------- SameGame, Table 1


def test_samegame_totals_reject_an_engine_whose_memorization_hurts(tmp_path):
    rng = np.random.default_rng(5)
    # 20 positions, 10 searches each: level 2 near the paper's 44,731 in all, level 2m (which
    # memorizes) far below it instead of near 65,937.
    rows = pd.concat(
        [
            pd.DataFrame(
                dict(
                    game="samegame",
                    policy="tabu",
                    instance=str(position),
                    level=2,
                    memorize=memorize,
                    budget_playouts=np.nan,
                    score=rng.normal(1500 if memorize else 2240, 100, 10),
                    seconds=1.0,
                    playouts=1000.0,
                )
            )
            for position in range(20)
            for memorize in (False, True)
        ],
        ignore_index=True,
    )
    ctx = FrameContext({"samegame_table1": rows}, tmp_path)
    claims = {c.claim.split(" (")[0].split(":")[0]: c for c in samegame.analyze(ctx)}
    assert claims["level 2m"].verdict == DIFFERS
    assert claims["memorizing the best sequence improves a level-2 search"].verdict == (DIFFERS)


# ---------------------------------------------------------------- SameGame NRPA's playout rule


def test_the_tabu_rule_claim_rejects_an_nrpa_whose_tabu_playouts_score_lower():
    rng = np.random.default_rng(6)

    def cell(policy, mean):
        return pd.DataFrame(
            dict(level=2, budget_seconds=3.0, policy=policy, score=rng.normal(mean, 100, 30))
        )

    claim = samegame_policy.policy_claim(0, cell("tabu", 2000), cell("random", 2600), "c")
    assert claim.verdict == DIFFERS and p_value(claim.verdict) is not None


# ---------------------------------------------------------------- Sudoku, forward checking


def test_forward_checking_claims_reject_a_forward_checking_that_never_fails_and_is_fast():
    # Every problem solved in 0.01 s: none of the paper's 21 failures, and faster than
    # sampling (10 s a problem) and NMCS level 1 (1 s a problem), not 10 and 200,000 times
    # slower.
    n = 100
    t2 = pd.DataFrame(
        dict(
            method=["fc"] * n + ["sampling"] * n + ["l1m"] * n,
            problem=list(range(n)) * 3,
            solved=True,
            seconds=[0.01] * n + [10.0] * n + [1.0] * n,
            playouts=1000.0,
        )
    )
    claims = sudoku.fc_claims(t2, paper_values("sudoku"), "c")
    assert [c.verdict for c in claims] == [DIFFERS] * 3


def test_the_hardest_fraction_rejects_problems_hardest_far_from_66_percent(tmp_path):
    # Forward checking's effort peaks at 40% empty cells.
    fractions = (0.4, 0.5, 0.6, 0.7, 0.8)
    rng = np.random.default_rng(7)
    rows = pd.concat(
        [
            pd.DataFrame(
                dict(
                    algo="fc",
                    level=0,
                    memorize=False,
                    problem=np.nan,
                    empty_fraction=f,
                    problem_seed=range(20),
                    score=16**4,
                    n=16,
                    playouts=rng.lognormal(np.log(1e5 if f == 0.4 else 1e2), 0.3, 20),
                    seconds=0.01,
                )
            )
            for f in fractions
        ],
        ignore_index=True,
    )
    claims: list = []
    sudoku.effort_claim(FrameContext({"sudoku_effort": rows}, tmp_path), claims)
    (peak,) = claims
    assert peak.verdict == DIFFERS and "peaks at 40%" in peak.ours


# ---------------------------------------------------------------- Records, Morpion


def hunt(scores, cpu_seconds, level=3, experiment="morpion_record_hunt"):
    """A cell of searches with these scores, each taking ``cpu_seconds``."""
    return pd.DataFrame(
        dict(
            experiment=experiment,
            cell="c",
            hunt=experiment,
            level=level,
            seed=0,
            search=range(len(scores)),
            score=scores,
            seconds=cpu_seconds,
            cpu_seconds=cpu_seconds,
        )
    )


def test_the_morpion_record_rejects_a_hunt_that_spent_its_budget_without_82(tmp_path):
    ctx = FrameContext({}, tmp_path)
    scores = np.resize([76, 78, 80, 81], 400)  # the paper-scale hunt's budget, spent
    claim = records.record_claim(ctx, hunt(scores, 100.0), pd.DataFrame())
    assert claim.verdict == DIFFERS


def test_search_efficiency_rejects_an_nrpa_that_reaches_80_less_often_per_hour(tmp_path):
    # NRPA: 4 games of 80+ in 400 searches of 6 CPU minutes (0.1 an hour); each competitor's
    # cell: 100 in 200 searches of 36 s (50 an hour), every cell on one CPU model.
    import json

    nrpa = hunt(np.r_[[80] * 4, [75] * 396], 360.0)
    cells = []
    for name in records.COMPETITORS:
        cell = hunt(np.r_[[80] * 100, [74] * 100], 36.0, level=2, experiment=records.EFFICIENCY)
        cells.append(cell.assign(cell=name, algo="beam", memorize=True, algo_beam=[[8, 4]] * 200))
    ctx = FrameContext({records.EFFICIENCY: pd.concat(cells, ignore_index=True)}, tmp_path)
    for experiment, names in (
        (records.HUNTS["5D"], ["c"]),
        (records.EFFICIENCY, records.COMPETITORS),
    ):
        for name in names:
            folder = ctx.results_dir / experiment / name
            folder.mkdir(parents=True)
            (folder / "meta.json").write_text(json.dumps({"cell": name, "cpu": "one CPU"}))
    claim = records.efficiency_claim(ctx, records.efficiency_table(ctx, nrpa))
    assert claim.verdict == DIFFERS


def test_the_5t_level4_record_row_is_never_reached_on_a_miss(tmp_path):
    part = hunt([160, 165, 168, 169], 3000.0, level=4, experiment="morpion_5t_level4")
    hunts = {"5D": pd.DataFrame(), "5T": part}
    probs = pd.DataFrame(records.probabilities("5T", 4, part, "morpion_5t_level4"))
    claims = records.level4_claims(
        FrameContext(part, tmp_path), hunts, pd.DataFrame(), probs, records.level4_firsts(hunts)
    )
    assert [c.verdict for c in claims] == [NOT_REACHED]


# ---------------------------------------------------------------- Records, SameGame


def frontier(per_position, spread=30):
    """The frontier's level-3 searches, three a position, around ``per_position`` points."""
    return pd.DataFrame(
        dict(
            experiment="samegame_frontier",
            cell=[f"c{k}" for k in range(20) for _ in range(3)],
            instance=np.repeat(range(20), 3),
            policy="tabu",
            level=3,
            seed=0,
            search=np.tile(range(3), 20),
            score=per_position + np.tile([-spread, 0, spread], 20),
            cpu_seconds=60.0,
        )
    )


def test_samegame_records_reject_an_engine_far_below_the_fields_totals(tmp_path):
    # 20 x 3,500 = 70,000: below NMCS level 3's 77,934 and NRPA's 80,030.
    paper = paper_values("samegame_frontier")
    df = frontier(3500)
    levels = samegame_records.level_claims(df, paper, "c")
    assert [c.verdict for c in levels] == [DIFFERS, DIFFERS]
    best = samegame_records.best_claims(SimpleNamespace(results_dir=tmp_path), df, paper, "c")
    assert best and all(c.verdict == NOT_REACHED for c in best)
    assert REACHED not in [c.verdict for c in best]


# ---------------------------------------------------------------- every family is here


def test_every_module_that_makes_claims_is_fed_a_wrong_engine_here():
    """A module of the analysis that builds claims (``Claim(``) is a family: it must be
    imported here, where its claims meet the data of a wrong engine."""
    families = {
        path.stem
        for path in (REPO / "analysis").glob("*.py")
        if path.stem != "__main__" and re.search(r"\bClaim\(", path.read_text())
    }
    here = {
        value.__name__.removeprefix("analysis.")
        for value in globals().values()
        if isinstance(value, ModuleType) and value.__name__.startswith("analysis.")
    }
    assert families and not sorted(families - here)
    assert Path(__file__).read_text().count("def test_") > len(families)
