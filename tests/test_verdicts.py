"""How verdicts are decided (docs/verdicts.md): the verdict words and their p-values, counts by
statement with the line on chance, Holm's adjustment, statements found by the data they read,
the paper-vs-exact kind, the rules printed in the report, coverage claims with and without
independent cells, and paired comparisons of cells run on common random numbers."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.common import (
    AGREES,
    AGREES_READING,
    DIFFERS,
    NOT_ENOUGH,
    Claim,
    interval_p,
    p_value,
    paired_diff,
    rounding,
    verdict_interval,
    verdict_sign,
    verdict_single_run,
)
from analysis.leftmove import coverage_verdict
from analysis.pairing import PAIRED, mean_combination, restore_search_seeds
from analysis.report import deciding_claims, headline, holm_adjusted, write_report
from analysis.statements import cell_fingerprints, fingerprint_claims
from nmcs.harness.seeding import item_seeds

pytestmark = pytest.mark.unit


def test_rounding_is_half_a_unit_of_the_last_decimal():
    assert rounding(3) == 0.5
    assert rounding(0.7) == pytest.approx(0.05)
    assert rounding(67.44) == pytest.approx(0.005)


def test_agrees_only_within_rounding_and_a_separate_word_within_a_reading_tolerance():
    # MCBS Fig 5, beam 16: the paper's +3 against our [1.63, 2.57].
    low, high = 1.63, 2.57
    assert verdict_interval(low, high, 2.5, 3.5) == AGREES
    assert verdict_interval(low, high, 3 - 0.5, 3 + 0.5) == AGREES  # meets 2.5
    assert verdict_interval(1.2, 2.1, 2.5, 3.5, reading=1.0) == AGREES_READING
    far = verdict_interval(0.2, 1.1, 2.5, 3.5, reading=1.0)
    assert far == DIFFERS
    # p-value against the widest range allowed, [2, 4], from the interval's normal law.
    se = 0.9 / (2 * 1.959964)
    assert p_value(far) == pytest.approx(2 * stats.norm.sf((2 - 0.65) / se))
    # Wider than any range the claim allows: no verdict.
    assert verdict_interval(0.0, 5.0, 2.5, 3.5, reading=1.0) == NOT_ENOUGH


def test_a_verdict_compares_and_prints_as_its_word():
    verdict = verdict_sign(-2.0, -1.0)
    assert verdict == DIFFERS and str(verdict) == "differs" and f"{verdict}" == "differs"
    assert p_value(verdict) == pytest.approx(interval_p(-2.0, -1.0, 0.0, np.inf))
    assert p_value(verdict_sign(1.0, 2.0)) is None  # agrees: nothing to adjust


def test_single_run_verdict_carries_the_rank_p_value():
    values = np.arange(100)
    verdict = verdict_single_run(values, 200)
    assert verdict == DIFFERS and p_value(verdict) == pytest.approx(2 / 101)
    assert verdict_single_run(values, 50) == AGREES


from analysis.common import Verdict  # noqa: E402


def claim(text, verdict, statement=None, section="S"):
    return Claim(section, text, "-", "-", verdict, "cmd", statement=statement)


def test_counts_are_by_statement_and_holm_adjusts_the_differs():
    from analysis.common import Verdict

    claims = [
        claim("a [reading 1]", AGREES, "a"),
        claim("a [reading 2]", Verdict(DIFFERS, 0.001), "a"),  # shown, not counted
        claim("b", Verdict(DIFFERS, 0.02)),
        claim("c", Verdict(DIFFERS, 0.004)),
        claim("d", AGREES),
        claim("e", NOT_ENOUGH),
        claim("f", DIFFERS),  # a pattern: no single test
    ]
    deciding = deciding_claims(claims)
    assert [c.claim for c in claims if id(c) in deciding] == [
        "a [reading 1]",
        "b",
        "c",
        "d",
        "e",
        "f",
    ]
    holm = holm_adjusted(claims)
    # m = 5 decided statements (a, b, c, d, f); step-down over c (0.004) then b (0.02).
    assert holm[id(claims[3])] == pytest.approx(5 * 0.004)
    assert holm[id(claims[2])] == pytest.approx(4 * 0.02)
    assert id(claims[1]) not in holm and id(claims[6]) not in holm
    text = "\n".join(headline(claims))
    assert "6 statements from 7 rows" in text
    assert "2 agrees, 3 differs, 1 not enough data" in text
    assert "5 statements decided on our data are decidable" in text
    assert "about 0.2 of them" in text
    assert "1 of the 2 'differs' with a p-value stay below 0.05" in text
    assert "1 'differs' with no single test" in text


def test_the_report_marks_the_readings_that_do_not_count(tmp_path):
    from analysis.common import Verdict

    claims = [
        claim("a [reading 1]", AGREES, "a"),
        claim("a [reading 2]", Verdict(DIFFERS, 0.001), "a"),
    ]
    report = write_report(tmp_path, {"paper": claims}).read_text()
    assert "| a [reading 1] | - | - | agrees |  |" in report
    assert "| a [reading 2] | - | - | (differs; another reading) |  |" in report


def cells(p_best, theory, n=100_000):
    return pd.DataFrame(
        {
            "n": n,
            "p_best": p_best,
            "theory": theory,
            "theory_in_ci": [
                abs(p - t) < 1.96 * np.sqrt(t * (1 - t) / n)
                for p, t in zip(p_best, theory, strict=True)
            ],
        }
    )


def test_coverage_under_independence_is_a_binomial_count_and_bonferroni_otherwise():
    rng = np.random.default_rng(1)
    theory = rng.uniform(0.2, 0.8, 60)
    exact = cells(rng.binomial(100_000, theory) / 100_000, theory)
    assert coverage_verdict(exact, independent=True)[0] == AGREES
    assert coverage_verdict(exact, independent=False)[0] == AGREES
    # Twelve of sixty cells a little off (z about 2.5): too many misses for independent cells,
    # not enough for Bonferroni, which must hold whatever the dependence.
    shifted = theory.copy()
    shifted[:12] += 2.5 * np.sqrt(theory[:12] * (1 - theory[:12]) / 100_000)
    off = cells(shifted, theory)
    verdict, how = coverage_verdict(off, independent=True)
    assert verdict == DIFFERS and "binomial(60, 0.95)" in how
    p = stats.binom.cdf(off["theory_in_ci"].sum(), 60, 0.95)
    assert p_value(verdict) == pytest.approx(p)
    verdict, how = coverage_verdict(off, independent=False)
    assert verdict == AGREES and "Bonferroni over the 60 cells" in how
    # One cell far off: Bonferroni rejects.
    shifted[0] += 0.01
    assert coverage_verdict(cells(shifted, theory), independent=False)[0] == DIFFERS


def test_cells_on_common_random_numbers_are_paired_by_search():
    rng = np.random.default_rng(2)
    base = rng.normal(60, 5, 40)
    seeds = np.arange(40, dtype=np.uint64)
    a = pd.DataFrame({"search": range(40), "search_seed": seeds, "score": base + 1.0})
    b = pd.DataFrame(
        {"search": range(40), "search_seed": seeds, "score": base + rng.normal(0, 0.1, 40)}
    )
    diff, low, high, paired = paired_diff(a, b)
    assert paired and low > 0.9 and high < 1.1
    c = b.assign(search_seed=seeds + 100)  # independent cells: Welch, much wider
    diff, low, high, paired = paired_diff(a, c)
    assert not paired and high - low > 3


# ---------------------------------------------------------------- one statement, one count


def searches(experiment, cell, scores, **settings):
    """The rows of one cell: its searches' scores and settings."""
    return pd.DataFrame(
        {"experiment": experiment, "cell": cell, "search": range(len(scores)), "score": scores}
        | {k: [v] * len(scores) for k, v in settings.items()}
    )


def over(cells, text="P(best)", paper="0.80", verdict=None):
    return Claim(
        "S", text, paper, "-", verdict or Verdict(DIFFERS, 0.001), "cmd", reads=frozenset(cells)
    )


def counted(claims, rows):
    """The claims after fingerprinting against ``rows`` (experiment -> its rows), and the
    statements the report counts."""
    fingerprint_claims(claims, lambda e: rows.get(e, pd.DataFrame()))
    return claims, deciding_claims(claims)


def test_two_claims_over_one_cell_count_once():
    rows = {"e1": searches("e1", "c", [7, 8, 9, 9], level=3, memorize=True)}
    claims, deciding = counted(
        [over([("e1", "c")], "P(best) with memorization"), over([("e1", "c")], "the same")], rows
    )
    assert list(deciding) == [id(claims[0])]
    assert "1 statements from 2 rows; 1 rows are further readings" in "\n".join(headline(claims))
    assert "Holm's adjustment over the 1" in "\n".join(headline(claims))


def test_two_identical_cells_of_two_experiments_count_once(tmp_path):
    # The same config on the same seeds under two experiments' names: one set of searches.
    rows = {
        "best_probability": searches("best_probability", "a1", [7, 8, 9, 9], level=3, seed=0),
        "memorize_from": searches("memorize_from", "b2", [7, 8, 9, 9], level=3, seed=0),
    }
    claims = [over([("best_probability", "a1")]), over([("memorize_from", "b2")], "levels >= 1")]
    claims, deciding = counted(claims, rows)
    assert list(deciding) == [id(claims[0])]
    report = write_report(tmp_path, {"paper": claims}).read_text()
    assert "| levels >= 1 | 0.80 | - | (differs; the same searches as 'P(best)') |  |" in report


def test_cells_that_differ_or_rows_that_state_another_value_are_statements_of_their_own():
    rows = {
        "e": pd.concat(
            [
                searches("e", "a", [7, 8, 9, 9], level=3),
                searches("e", "b", [7, 8, 8, 9], level=3),  # other scores
                searches("e", "c", [7, 8, 9, 9], level=2),  # other settings, same scores
            ]
        )
    }
    claims = [over([("e", cell)], f"P(best) of {cell}") for cell in "abc"]
    claims.append(over([("e", "a")], "a time ratio", paper="x2"))  # other paper value
    claims.append(over([], "reads nothing"))
    assert len(counted(claims, rows)[1]) == 5
    prints = cell_fingerprints(rows["e"])
    assert len(set(prints.values())) == 3


def test_paper_against_exact_is_counted_apart_and_outside_holm_and_chance(tmp_path):
    from analysis.common import EXACT

    claims = [
        claim("a", Verdict(DIFFERS, 0.01)),
        claim("b", AGREES),
        Claim("S", "paper vs exact", "0.80", "-", Verdict(DIFFERS, 0.0), "cmd", kind=EXACT),
    ]
    holm = holm_adjusted(claims)
    assert holm == {id(claims[0]): pytest.approx(2 * 0.01)}  # m = 2: the exact row is not a test
    text = "\n".join(headline(claims))
    assert "Decided on our data (2 statements): 1 agrees, 1 differs." in text
    assert "Paper vs exact (1 statements" in text and "counted apart): 1 differs." in text
    assert "2 statements decided on our data are decidable" in text
    report = write_report(tmp_path, {"paper": claims}).read_text()
    assert "| paper vs exact | 0.80 | - | differs (paper vs exact) |  |" in report


def test_the_rules_that_decide_a_section_are_printed_under_its_heading(tmp_path):
    rule = "'differs' below 0.05 (Fisher's combination)"
    claims = [
        Claim("S", "a", "-", "-", AGREES, "cmd", rules=(rule,)),
        Claim("S", "b", "-", "-", AGREES, "cmd", rules=(rule,)),
    ]
    report = write_report(tmp_path, {"paper": claims}).read_text()
    assert report.count(f"- {rule}") == 1
    assert report.index("### S") < report.index(rule) < report.index("| claim |")


def test_published_cells_get_their_seeds_back_and_pair():
    meta = {"cell": "c1", "identity": {"seed": 0}, "config": {"seed": 0}}
    rows = pd.DataFrame({"cell": "c1", "search": [0, 1, -1], "score": [1, 2, 3]})
    restored = restore_search_seeds(rows, {"c1": meta})
    assert list(restored["search_seed"][:2]) == list(item_seeds(0, [0, 1]))
    assert restored["search_seed"].isna()[2]  # published as counts: no index, no seed
    assert set(restored["seed_scheme"]) == {"common"}


def test_a_combination_of_cells_on_common_seeds_uses_their_covariance():
    rng = np.random.default_rng(3)
    base = rng.normal(60, 5, 100)
    seeds = item_seeds(0, range(100))
    a = pd.DataFrame({"search": range(100), "search_seed": seeds, "score": base + 1})
    # Twice as many searches in b, the first 100 seeded as a's.
    b_scores = np.r_[base + rng.normal(0, 0.5, 100), rng.normal(60, 5, 100)]
    b = pd.DataFrame(
        {"search": range(200), "search_seed": item_seeds(0, range(200)), "score": b_scores}
    )
    paired = mean_combination([(1.0, a), (-1.0, b)])
    apart = mean_combination([(1.0, a), (-1.0, b.assign(search_seed=item_seeds(1, range(200))))])
    assert paired.pairing == PAIRED and apart.pairing == "independent cells"
    # The covariance of the two means takes a's 100 searches off b's variance: narrower.
    assert paired.high - paired.low < 0.8 * (apart.high - apart.low)
    assert paired.value == pytest.approx(apart.value)
