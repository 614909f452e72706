"""NMCS paper 5.3 (16x16 Sudoku): Table 2 and the effort-against-empty-fraction figure, read from
the rows that ``python -m analysis.sudoku_table2 --scale S`` writes into
``outputs/S/sudoku_table2/`` (the "restart until solved" runs and forward checking live in that
script, not in run.py cells)."""

import shutil

import numpy as np
import pandas as pd

from analysis.common import Claim, Context, paper_values, save_table, verdict_sign

SECTION = "NMCS 5.3 (16x16 Sudoku, Table 2)"
LABELS = {
    "fc": "forward checking",
    "sampling": "iterative sampling",
    "l1m": "NMCS level 1",
    "l2m": "NMCS level 2",
    "l1": "level 1, no memorization",
    "l2": "level 2, no memorization",
}


def bootstrap_ratio(a, b, rng, reps=2000):
    """95% bootstrap interval of sum(a) / sum(b) for per-problem efforts on the same problems."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    idx = rng.integers(0, len(a), size=(reps, len(a)))
    ratios = a[idx].sum(1) / b[idx].sum(1)
    return np.percentile(ratios, [2.5, 97.5])


def analyze(ctx: Context) -> list[Claim]:
    folder = ctx.results_dir / "sudoku_table2"
    rows_path = folder / "table2_rows.csv"
    if not rows_path.exists():
        return []
    cmd = f"python -m analysis.sudoku_table2 --scale {ctx.scale} && python -m analysis"
    paper = paper_values("sudoku")
    t2 = pd.read_csv(rows_path)
    totals = t2.groupby("method").agg(
        problems=("solved", "size"),
        unsolved=("solved", lambda s: int((~s).sum())),
        seconds=("seconds", "sum"),
        playouts=("playouts", "sum"),
    )
    totals = totals.reindex([k for k in LABELS if k in totals.index]).reset_index()
    totals.insert(1, "label", totals["method"].map(LABELS))
    totals["paper_seconds_100"] = totals["method"].map(paper["seconds"])
    totals["paper_unsolved"] = totals["method"].map(paper["unsolved"])
    save_table(totals, ctx.tables, "sudoku_table2")
    if (folder / "effort_vs_empty.png").exists():
        ctx.figures.mkdir(parents=True, exist_ok=True)
        shutil.copy(folder / "effort_vs_empty.png", ctx.figures / "sudoku_effort_vs_empty.png")
    tot = totals.set_index("method")
    claims = []
    rng = np.random.default_rng(0)

    def per_problem(key):
        return t2[t2["method"] == key].sort_values("problem")

    def compare(fast, slow, text, paper_text):
        a, b = per_problem(fast), per_problem(slow)
        common = sorted(set(a["problem"]) & set(b["problem"]))
        if not common or not a["solved"].all():
            return
        a = a[a["problem"].isin(common)]
        b = b[b["problem"].isin(common)]
        low, high = bootstrap_ratio(a["playouts"], b["playouts"], rng)
        ours = (
            f"{a['seconds'].sum():.2f} s vs {b['seconds'].sum():.2f} s on {len(common)} "
            f"problems; playout ratio {a['playouts'].sum() / b['playouts'].sum():.3f} "
            f"[{low:.3f}, {high:.3f}]"
        )
        claims.append(
            # "fast needs less effort": the ratio's interval below 1.
            Claim(SECTION, text, paper_text, ours, verdict_sign(1 - high, 1 - low), cmd)
        )

    if {"l1m", "sampling"} <= set(tot.index):
        compare(
            "l1m",
            "sampling",
            "NMCS level 1 needs less effort than iterative sampling",
            f"{paper['seconds']['l1m']} s vs {paper['seconds']['sampling']} s",
        )
    if {"l1m", "l1"} <= set(tot.index):
        compare(
            "l1m",
            "l1",
            "memorization helps at level 1",
            f"{paper['seconds']['l1m']} s vs {paper['seconds']['l1']} s",
        )
    if {"l2m", "l2"} <= set(tot.index):
        compare(
            "l2m",
            "l2",
            "memorization helps at level 2",
            f"{paper['seconds']['l2m']} s vs {paper['seconds']['l2']} s",
        )
    if {"fc", "l1m"} <= set(tot.index):
        fc = tot.loc["fc"]
        ours = (
            f"FC: {fc['unsolved']} of {fc['problems']} unsolved at the cap, > "
            f"{fc['seconds']:.1f} s; level 1: {tot.loc['l1m', 'seconds']:.2f} s, all solved"
        )
        ok = fc["unsolved"] > 0 and tot.loc["l1m", "unsolved"] == 0
        claims.append(
            Claim(
                SECTION,
                "NMCS level 1 is far faster than forward checking",
                f"> {paper['seconds']['fc']:,} s, {paper['unsolved']['fc']} of 100 unsolved",
                ours,
                "agrees" if ok else "differs",
                cmd,
            )
        )
    if {"l1m", "l2m"} <= set(tot.index):
        a, b = tot.loc["l2m", "seconds"], tot.loc["l1m", "seconds"]
        claims.append(
            Claim(
                SECTION,
                "going from level 1 to level 2 is not beneficial",
                f"{paper['seconds']['l2m']} s vs {paper['seconds']['l1m']} s",
                f"{a:.2f} s vs {b:.2f} s",
                "agrees" if a >= b else "differs",
                cmd,
            )
        )
    eff_path = folder / "effort_rows.csv"
    if eff_path.exists():
        eff = pd.read_csv(eff_path)
        med = eff[eff["method"] == "fc"].groupby("empty_fraction")["playouts"].median()
        save_table(
            eff.groupby(["method", "empty_fraction"])["playouts"].median().reset_index(),
            ctx.tables,
            "sudoku_effort_vs_empty",
        )
        hardest = float(med.idxmax())
        claims.append(
            Claim(
                SECTION,
                "the hardest problems have close to 66% empty cells",
                "close to 66%",
                f"forward checking's median effort peaks at "
                f"{100 * hardest:.0f}% ({eff['problem'].nunique()} problems per point)",
                "agrees" if abs(hardest - 0.66) <= 0.1 else "differs",
                cmd,
            )
        )
    return claims
