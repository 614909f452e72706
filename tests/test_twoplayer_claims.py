"""The verdict logic of the two-player claims (analysis/twoplayer.py) on synthetic tables with
known answers: every claim under every reading of the summary."""

import pandas as pd
import pytest

from analysis.common import AGREES, DIFFERS, NOT_ENOUGH, NOT_RUN, paper_values, wilson
from analysis.twoplayer import (
    SETTINGS,
    VERSIONS,
    claims_at,
    classes,
    combine,
    pattern_verdict,
    version_name,
)

pytestmark = pytest.mark.unit

PAPER = paper_values("twoplayer")
NAMES = [version_name(*v) for v in VERSIONS]
USUAL = {"breakthrough": "8x8", "knightthrough": "8x8", "domineering": "8x8", "nogo": "9x9"}
USUAL["atarigo"] = "7x7"


def table(rates: dict[str, dict[str, float]], n: int, board: str | None = None) -> pd.DataFrame:
    """A cell table at 320 ms: ``rates[setting][version]`` won of ``n`` matches each."""
    rows = []
    for setting, by_version in rates.items():
        for version, rate in by_version.items():
            wins = round(rate * n)
            low, high = wilson(wins, n)
            game = version.removesuffix(" misere")
            rows.append(
                {
                    "version": version,
                    "board": board or USUAL[game],
                    "setting": setting,
                    "budget_ms": 320.0,
                    "n": n,
                    "win_rate": wins / n,
                    "ci95_low": low,
                    "ci95_high": high,
                }
            )
    return pd.DataFrame(rows)


# The paper's story: NMC(1)+COW wins the four misere versions and breakthrough clearly, about
# half in three, loses atarigo; best of the eight settings except in atarigo; NMC(2)+COW lower.
PAPER_LIKE = {
    "NMC(1)+COW": dict(
        zip(NAMES, [0.80, 0.50, 0.50, 0.50, 0.20, 0.85, 0.85, 0.80, 0.80], strict=True)
    ),
    **{s: dict.fromkeys(NAMES, 0.30) for s in SETTINGS if s != "NMC(1)+COW"},
}
PAPER_LIKE["NMC(1)+POD"] = {**PAPER_LIKE["NMC(1)+POD"], "atarigo": 0.60}
# What our quick tables show: loses every normal version, wins the misere ones.
OURS_LIKE = {
    "NMC(1)+COW": dict(zip(NAMES, [0.02] * 5 + [0.80] * 4, strict=True)),
    "NMC(2)+COW": dict(zip(NAMES, [0.02] * 5 + [0.60] * 4, strict=True)),
}


def verdicts(claims):
    return {c.claim: c.verdict for c in claims}


def find(found: dict[str, str], *words: str) -> list[str]:
    out = [v for k, v in found.items() if all(w in k for w in words)]
    assert out, (words, list(found))
    return out


def test_classes_and_the_pattern():
    assert classes(0.7, 0.9, 0.4, 0.6) == [0]
    assert classes(0.45, 0.55, 0.4, 0.6) == [1]
    assert classes(0.55, 0.65, 0.4, 0.6) == [0, 1]
    assert classes(0.1, 0.5, 0.4, 0.6) == [1, 2]
    target = (5, 3, 1)
    assert pattern_verdict([[0]] * 5 + [[1]] * 3 + [[2]], target, 9) == AGREES
    assert pattern_verdict([[0]] * 4 + [[1]] * 4 + [[2]], target, 9) == DIFFERS
    assert pattern_verdict([[0]] * 4 + [[0, 1]] + [[1]] * 3 + [[2]], target, 9) == NOT_ENOUGH
    assert pattern_verdict([[2]] * 5 + [[0, 1]] * 4, target, 9) == DIFFERS  # five losses
    assert pattern_verdict([[0]] * 3, target, 9) == NOT_ENOUGH  # six versions not run
    assert pattern_verdict([[2]] * 2, target, 9) == DIFFERS  # already two losses
    assert pattern_verdict([], target, 9) == NOT_RUN
    assert combine([AGREES, AGREES]) == AGREES and combine([AGREES, DIFFERS]) == DIFFERS
    assert combine([AGREES, NOT_ENOUGH]) == NOT_ENOUGH and combine([NOT_RUN]) == NOT_RUN


def test_paper_like_table_agrees_under_every_reading():
    found = verdicts(claims_at(table(PAPER_LIKE, 500), 320.0, "paper", PAPER))
    assert all(k.startswith("at 320 ms on usual boards, ") for k in found)
    # (a) one table: best in 8 of 9 (beaten in atarigo), 5/3/1 under both class readings.
    assert find(found, "best nested setting in 8 of 9", "(a)") == [AGREES, AGREES]
    assert find(found, "wins clearly in 5", "(a)") == [AGREES, AGREES]
    # (b) the misere versions are four of the five clear wins; not the normal five.
    assert find(found, "four misere versions are four", "(b)") == [AGREES, AGREES]
    assert find(found, "five normal versions are the clear wins", "(b)") == [DIFFERS, DIFFERS]
    assert find(found, "all normal versions but at most 1", "(b)") == [AGREES, AGREES]
    assert find(found, "all misere versions but at most 1", "(b)") == [AGREES, AGREES]
    # (c) one assignment: the misere four and breakthrough, the three halves, atarigo.
    c = [k for k in found if "(c)" in k]
    assert [found[k] for k in c] == [AGREES, AGREES]
    # (d) NMC(2)+COW (0.30) below NMC(1)+COW everywhere.
    assert find(found, "(d) pooled") == [AGREES, AGREES, AGREES]
    assert find(found, "(d) version by version") == [AGREES]


def test_ours_like_table_differs_where_it_must():
    rates = {**OURS_LIKE, "NMC(1)+POD": dict.fromkeys(NAMES, 0.30)}
    found = verdicts(claims_at(table(rates, 200), 320.0, "paper", PAPER))
    # Five decided losses: no reading of one table gives 5/3/1.
    assert find(found, "wins clearly in 5", "(a)") == [DIFFERS, DIFFERS]
    assert [v for k, v in found.items() if "(c)" in k] == [DIFFERS, DIFFERS]
    # (b): the misere half agrees (4 clear wins); the normal half cannot be 1/3/1.
    assert find(found, "four misere versions are four", "(b)") == [DIFFERS, DIFFERS]
    misere_note = [
        c for c in claims_at(table(rates, 200), 320.0, "paper", PAPER) if "four misere" in c.claim
    ]
    assert all("misere: 4 / 0 / 0 decided" in c.ours and "agrees" in c.ours for c in misere_note)
    # Beaten by NMC(1)+POD (0.30 against 0.02) in the five normal versions.
    assert find(found, "best nested setting in 8 of 9", "(a)") == [DIFFERS, DIFFERS]
    # Above the two others in the misere versions, but five settings were not run: not best.
    assert find(found, "all misere versions but at most 1", "(b)") == [NOT_ENOUGH, NOT_ENOUGH]
    # (d): NMC(2)+COW ties on normal (0.02) and is lower on misere (0.60 against 0.80).
    d = find(found, "(d) pooled")
    assert d == [AGREES, NOT_ENOUGH, AGREES]
    # Significantly worse in the four misere versions, ties in five: undecided.
    assert find(found, "(d) version by version") == [NOT_ENOUGH]


def test_best_of_the_reduced_table_is_not_best_of_eight():
    # The reduced table runs NMC(1)+COW and NMC(2)+COW only: clearly above NMC(2)+COW
    # everywhere decides "beaten" nowhere and "best" nowhere.
    rates = {
        "NMC(1)+COW": dict.fromkeys(NAMES, 0.80),
        "NMC(2)+COW": dict.fromkeys(NAMES, 0.20),
    }
    claims = claims_at(table(rates, 500), 320.0, "paper", PAPER)
    found = verdicts(claims)
    assert find(found, "best nested setting") == [NOT_ENOUGH] * 6
    assert all("6 of 8 not run" in c.ours for c in claims if "best nested setting" in c.claim)
    # A setting that is run and better still decides "beaten".
    rates["NMC(2)+COW"] = dict.fromkeys(NAMES, 0.95)
    found = verdicts(claims_at(table(rates, 500), 320.0, "paper", PAPER))
    assert find(found, "best nested setting in 8 of 9", "(a)") == [DIFFERS, DIFFERS]


def test_few_matches_decide_nothing_and_boards_are_judged_apart():
    small = table(PAPER_LIKE, 4, board="5x5")
    found = verdicts(claims_at(small, 320.0, "quick", PAPER))
    assert all(k.startswith("at 320 ms on 5x5, ") for k in found)
    assert find(found, "wins clearly in 5", "(a)") == [NOT_ENOUGH, NOT_ENOUGH]
    assert find(found, "best nested setting in 8 of 9", "(a)")[0] == NOT_ENOUGH
    both = pd.concat([small, table(PAPER_LIKE, 500)])
    claims = claims_at(both, 320.0, "paper", PAPER)
    families = {c.claim.split(", ")[0] for c in claims}
    assert families == {"at 320 ms on usual boards", "at 320 ms on 5x5"}
    assert claims[0].claim.startswith("at 320 ms on usual boards")


def test_missing_versions_and_no_cells():
    part = table({"NMC(1)+COW": {"breakthrough": 0.1, "nogo": 0.1}}, 500)
    found = verdicts(claims_at(part, 320.0, "paper", PAPER))
    assert find(found, "wins clearly in 5", "(a)") == [DIFFERS, DIFFERS]  # two losses already
    assert find(found, "best nested setting in 8 of 9", "(a)") == [NOT_RUN, NOT_RUN]
    none = claims_at(
        pd.DataFrame(columns=["version", "board", "setting", "budget_ms", "n", "win_rate"]),
        320.0,
        "paper",
        PAPER,
    )
    assert none and all(c.verdict == NOT_RUN for c in none)


@pytest.mark.parametrize("extra", ["NMC(1)+COW+S", "NMC(1)+COW+DB"])
def test_extra_switches_are_not_paper_settings(extra):
    rates = {**PAPER_LIKE, extra: dict.fromkeys(NAMES, 0.99)}
    assert verdicts(claims_at(table(rates, 500), 320.0, "paper", PAPER)) == verdicts(
        claims_at(table(PAPER_LIKE, 500), 320.0, "paper", PAPER)
    )
