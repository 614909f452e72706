"""The Morpion Solitaire experiments end to end at quick scale: every experiment through run.py
into a temporary outputs folder, then `python -m analysis`; figures, tables and claims must exist
and be consistent with the results they came from."""

import re

import numpy as np
import pandas as pd
import pytest
from helpers import run_quick_experiments

pytestmark = pytest.mark.experiment

EXPERIMENTS = (
    "morpion_fig8_fig9_level0",
    "morpion_fig8_fig9",
    "morpion_fig9_level3",
    "morpion_fig10",
    "morpion_reflexive_table1",
    "morpion_reflexive_table2",
    "morpion_reflexive_table3",
    "morpion_reflexive_table4_5",
    "morpion_reflexive_uct_c",
)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    return run_quick_experiments(tmp_path_factory.mktemp("outputs"), EXPERIMENTS)


def results(outputs, experiment):
    paths = sorted((outputs / "quick" / experiment).glob("*/results.parquet"))
    return pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)


def claims(outputs):
    """(claim, paper, ours, verdict) rows of the Morpion sections of REPRODUCTION.md."""
    rows, inside = [], False
    for line in (outputs / "REPRODUCTION.md").read_text().splitlines():
        if line.startswith("### "):
            inside = "Morpion" in line
        elif inside and line.startswith("| ") and not line.startswith(("| claim", "|---")):
            # The columns: claim, paper, ours, verdict, Holm p (kept out).
            row = [c.strip() for c in line.strip("|").split(" | ")][:4]
            # A further reading of a statement shows its verdict as "(word; another reading)".
            row[3] = row[3].removeprefix("(").removesuffix("; another reading)")
            rows.append(row)
    return rows


def test_every_cell_ran_on_morpion_5d(outputs):
    cells = {e: len(pd.read_csv(outputs / "quick" / e / "summary.csv")) for e in EXPERIMENTS}
    assert cells == {
        "morpion_fig8_fig9_level0": 1,
        "morpion_fig8_fig9": 4,
        "morpion_fig9_level3": 1,
        "morpion_fig10": 3,
        "morpion_reflexive_table1": 2,
        "morpion_reflexive_table2": 1,
        "morpion_reflexive_table3": 1,
        "morpion_reflexive_table4_5": 2,
        "morpion_reflexive_uct_c": 5,
    }
    for e in EXPERIMENTS:
        df = results(outputs, e)
        assert (df["game"] == "morpion").all() and (df["variant"] == "5D").all()
        assert (df["score"] == df["length"]).all()  # Morpion's score is its number of moves
        assert df["score"].between(20, 82).all()  # 82 is the 5D record
    mobility = results(outputs, "morpion_reflexive_table2")
    assert (mobility["policy"] == "mobility").all()
    # best of N games: exactly N playouts
    sampling = results(outputs, "morpion_reflexive_table1")
    assert (sampling["playouts"] == sampling["budget_playouts"]).all()


def test_distribution_table_matches_the_results(outputs):
    table = pd.read_csv(outputs / "tables" / "quick" / "morpion_fig8_fig9.csv")
    # level 0 serves both figures; level 3 is not run at quick scale
    assert sorted(zip(table["figure"], table["level"], strict=True)) == [
        ("fig8", 0),
        ("fig8", 1),
        ("fig8", 2),
        ("fig9", 0),
        ("fig9", 1),
        ("fig9", 2),
    ]
    df = pd.concat(
        [results(outputs, "morpion_fig8_fig9_level0"), results(outputs, "morpion_fig8_fig9")]
    )
    for row in table.itertuples():
        group = df[
            (df["level"] == row.level) & ((row.level == 0) | (df["memorize"] == row.memorize))
        ]
        scores = group["score"].to_numpy()
        assert row.n == len(scores) and row.best == scores.max()
        assert np.isclose(row.mean, scores.mean())
        assert row.peak == np.bincount(scores).argmax()
        assert row.peak_low <= row.peak <= row.peak_high
    # level 0 is one random game: about 43 moves on average (docs/morpion.md: 42.9)
    level0 = table[table["level"] == 0].iloc[0]
    assert 41 < level0["mean"] < 45 and level0["n"] >= 1000


def test_figures_exist(outputs):
    figures = outputs / "figures" / "quick"
    for stem in (
        "morpion_fig8",
        "morpion_fig9",
        "morpion_fig10_seconds",
        "morpion_fig10_playouts",
        "morpion_reflexive_tables1_3",
    ):
        for ext in ("png", "pdf"):
            assert (figures / f"{stem}.{ext}").stat().st_size > 1000


def test_reflexive_tables_put_paper_values_beside_ours(outputs):
    tables = outputs / "tables" / "quick"
    t1 = pd.read_csv(tables / "morpion_reflexive_table1.csv")
    assert t1["games"].tolist() == [10, 100, 1000, 10000, 100000, 1000000, 10000000]
    assert t1["paper_length"].tolist() == [55, 58, 60, 63, 63, 63, 64]
    ran = t1.dropna(subset=["n"])
    assert ran["games"].tolist() == [10, 1000]
    assert ran["single_low"].isna().all()  # fewer than 39 seeds: no prediction interval
    assert (ran["mean"] <= ran["best"]).all()
    # more games never make the best of them worse on average (a strong effect from 10 to 1,000)
    assert ran["mean"].iloc[-1] > ran["mean"].iloc[0]
    t45 = pd.read_csv(tables / "morpion_reflexive_table4_5.csv")
    assert len(t45) == 12 and t45["paper_length"].isna().sum() == 2
    done = t45.dropna(subset=["n"])
    assert sorted(zip(done["games"], done["meta_games"], strict=True)) == [(1, 1), (10, 1)]
    # (10, 1) plays about ten times the playouts of (1, 1)
    ratio = done["mean_playouts"].iloc[1] / done["mean_playouts"].iloc[0]
    assert 5 < ratio < 20


def test_claims_have_honest_verdicts(outputs):
    rows = claims(outputs)
    assert len(rows) >= 30
    by_name = {r[0]: r for r in rows}
    for claim, _paper, ours, verdict in rows:
        words = ("agrees", "agrees within reading tolerance", "differs", "not enough data")
        assert verdict in (*words, "not run"), claim
        assert (ours == "-") == (verdict == "not run") or "no common" in ours, claim
    # cells not run at quick scale say so
    assert by_name["Table 1 (sampling, random moves): best length of 10,000,000 games"][3] == (
        "not run"
    )
    assert by_name["a level-3 search is about 200 times longer than a level-2 one"][3] == "not run"
    # a peak from 6 searches decides nothing
    assert by_name["Fig 9: peak of level 2 with memorization"][3] == "not enough data"
    # a verdict follows from the numbers shown
    for claim, paper, ours, verdict in rows:
        found = re.search(r"95% prediction interval \[([\d.]+), ([\d.]+)\]", ours)
        if found:
            low, high = map(float, found.groups())
            assert verdict == ("agrees" if low <= float(paper) <= high else "differs"), claim
        if "fewer than 39 runs" in ours:
            assert verdict == "not enough data", claim
        found = re.match(r"(\d+) \[(\d+), (\d+)\] \(mode.*n=(\d+)", ours)
        if found:
            low, high, value = int(found.group(2)), int(found.group(3)), int(paper)
            if high - low > 2 or int(found.group(4)) < 100:  # paper's peak +- 1; few searches
                assert verdict == "not enough data", claim
            else:
                assert verdict == (
                    "agrees" if low <= value + 1 and high >= value - 1 else "differs"
                )
    # memorization: the paper's clearest Morpion effect; its sign is what is judged
    memo = by_name["level 2: memorization gives longer games (Fig 9 vs Fig 8)"]
    assert memo[2].startswith("mean ")
    low, high = map(float, re.search(r"\[([-+\d.]+), ([-+\d.]+)\]", memo[2]).groups())
    expected = "agrees" if low > 0 else ("differs" if high < 0 else "not enough data")
    assert memo[3] == expected


def test_table2_small_n_values_are_tested_jointly():
    """Each paper value may be a plausible single run while the three together are not: the
    joint claim combines the three rows' upper-tail p-values by Fisher's method (a product of
    chances is not a p-value)."""
    from pathlib import Path

    from analysis.common import Context
    from analysis.morpion_reflexive import _mobility_row_claim

    def runs(games, scores):
        return pd.DataFrame({"budget_playouts": games, "score": scores})

    table = pd.DataFrame({"games": [10, 100, 1000], "paper_length": [60, 61, 62], "n": 40})
    ctx = Context(outputs=Path("."), scale="paper")
    # Each value reached by 4 runs of 40: plausible alone (p = 5 / 41 each), jointly 0.049.
    df = pd.concat([runs(g, [v] * 4 + [v - 3] * 36) for g, v in ((10, 60), (100, 61), (1000, 62))])
    [claim] = _mobility_row_claim(ctx, table, df)
    assert claim.verdict == "differs" and "Fisher's combination" in claim.ours
    assert "p = 0.049" in claim.ours
    # Reached by 8 of 40: chances of 0.2 multiply to 0.008, but Fisher's p is 0.17.
    df = pd.concat([runs(g, [v] * 8 + [v - 3] * 32) for g, v in ((10, 60), (100, 61), (1000, 62))])
    [claim] = _mobility_row_claim(ctx, table, df)
    assert claim.verdict == "agrees" and "p = 0.17" in claim.ours
    # Reached by half of the runs: jointly 0.125.
    df = pd.concat([runs(g, [v] * 20 + [v - 3] * 20) for g, v in ((10, 60), (100, 61), (1000, 62))])
    [claim] = _mobility_row_claim(ctx, table, df)
    assert claim.verdict == "agrees"
    # Too few runs for a single-run statement.
    assert _mobility_row_claim(ctx, table, df.iloc[::2]) == []


def test_uct_constant_sweep(outputs):
    table = pd.read_csv(outputs / "tables" / "quick" / "morpion_reflexive_uct_c.csv")
    assert table["c"].tolist() == [0.03, 0.1, 0.3, 1.0, 3.0] and (table["n"] == 4).all()
    df = results(outputs, "morpion_reflexive_uct_c")
    assert np.allclose(sorted(table["mean"]), sorted(df.groupby("algo_options")["score"].mean()))
    row = next(r for r in claims(outputs) if r[0].startswith("UCT: the best results"))
    assert row[3] in ("agrees", "differs", "not enough data") and "n=4 per cell" in row[2]
