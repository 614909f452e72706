"""NMCS for two-player games (Cazenave, Saffidine, Schofield and Thielscher, AAAI 2016): the win
rate of each nested setting against MCS on the nine game versions, at each time per move
(experiments ``twoplayer_paper_time`` and ``_misere``) and under equal playout budgets (beyond
the paper: ``twoplayer_paper_playouts`` and ``_misere``).

Outputs (per scale): ``tables/<scale>/twoplayer_time.csv|md`` (one row per cell: version,
setting, budget, matches, win rate and its 95% Wilson interval, mean length, seconds per match),
``twoplayer_time_table.md`` (the paper's layout: a row per version and setting, a column per
time), the same for ``playouts``, and ``figures/<scale>/twoplayer_time.png|pdf`` (win rate
against time per move, one panel per version, one line per setting) and ``twoplayer_playouts``.

Methods:
- A cell's win rate counts a draw as half a win (the five games have none); its interval is
  Wilson's.
- The difference of two settings' win rates has Newcombe's hybrid (Wilson-based) interval,
  which stays honest when a rate is 0 or 1 (a Wald interval would be [0, 0] there).
- The claims are about 320 ms; where the scale did not run 320 ms (quick) they are computed at
  its longest time per move and say so. How the words "best", "wins clearly", "about half" and
  "loses" are read (thresholds) is in ``analysis/paper_values/twoplayer.yaml`` and in each
  claim's text.
"""

from __future__ import annotations

import itertools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    paper_values,
    rerun_command,
    save_figure,
    save_table,
    verdict_sign,
    wilson,
)

SECTION = "NMCS for two-player games (Cazenave et al., AAAI 2016): nested settings against MCS"
TIME = ("twoplayer_paper_time", "twoplayer_paper_time_misere")
PLAYOUTS = ("twoplayer_paper_playouts", "twoplayer_paper_playouts_misere")
# The paper's nine versions: five games, and the misere versions of the first four.
VERSIONS = (
    ("breakthrough", False),
    ("knightthrough", False),
    ("domineering", False),
    ("nogo", False),
    ("atarigo", False),
    ("breakthrough", True),
    ("knightthrough", True),
    ("domineering", True),
    ("nogo", True),
)
SETTINGS = tuple(
    f"NMC({level}){'+D' if d else ''}+{cut}"
    for level in (1, 2)
    for cut in ("COW", "POD")
    for d in (False, True)
)


def version_name(game: str, misere: bool) -> str:
    return f"{game} misere" if misere else game


def load(ctx, experiments) -> pd.DataFrame:
    """The match rows of ``experiments`` where a nested player (A) meets MCS (B)."""
    parts = [ctx.results(e) for e in experiments]
    parts = [p for p in parts if not p.empty and "outcome_a" in p.columns]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    df = df[(df["player_b"] == "MCS") & (df["a_level"] > 0)].copy()
    df["version"] = [
        version_name(g, bool(m)) for g, m in zip(df["game"], df["misere"], strict=True)
    ]
    return df


def cell_table(df: pd.DataFrame, budget: str) -> pd.DataFrame:
    """One row per (version, setting, budget): n, A's win rate, its Wilson 95% interval."""
    rows = []
    for (version, setting, b), group in df.groupby(["version", "player_a", budget], sort=False):
        n = len(group)
        wins = float(((group["outcome_a"] + 1) / 2).sum())
        low, high = wilson(wins, n)
        rows.append(
            {
                "version": version,
                "board": f"{group['rows'].iloc[0]}x{group['cols'].iloc[0]}",
                "setting": setting,
                budget: b,
                "n": n,
                "win_rate": wins / n,
                "ci95_low": low,
                "ci95_high": high,
                "mean_length": float(group["length"].mean()),
                "a_playouts_per_move": float(group["a_playouts_per_move"].mean()),
                "b_playouts_per_move": float(group["b_playouts_per_move"].mean()),
                "seconds_per_match": float(group["wall_seconds"].mean()),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    order = {version_name(*v): i for i, v in enumerate(VERSIONS)}
    rank = {s: i for i, s in enumerate(SETTINGS)}
    table["_v"] = table["version"].map(order).fillna(99)
    table["_s"] = table["setting"].map(rank).fillna(99)
    table = table.sort_values(["_v", "_s", budget]).drop(columns=["_v", "_s"])
    return table.reset_index(drop=True)


def wide_table(table: pd.DataFrame, budget: str, unit: str) -> pd.DataFrame:
    """The paper's layout: a row per (version, setting), a column per budget, 'rate [lo, hi]'."""
    budgets = sorted(table[budget].unique())
    out = []
    for (version, setting), group in table.groupby(["version", "setting"], sort=False):
        row = {"version": version, "setting": setting, "n": int(group["n"].min())}
        by_budget = group.set_index(budget)
        for b in budgets:
            if b in by_budget.index:
                r = by_budget.loc[b]
                row[f"{b:g} {unit}"] = (
                    f"{r['win_rate']:.2f} [{r['ci95_low']:.2f}, {r['ci95_high']:.2f}]"
                )
            else:
                row[f"{b:g} {unit}"] = "-"
        out.append(row)
    return pd.DataFrame(out)


def figure(ctx, table: pd.DataFrame, budget: str, xlabel: str, stem: str, title: str) -> None:
    """Win rate against the budget, a panel per version, a line per setting."""
    versions = [version_name(*v) for v in VERSIONS if version_name(*v) in set(table["version"])]
    versions += sorted(set(table["version"]) - set(versions))
    cols = 3
    rows = -(-len(versions) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False, sharex=True, sharey=True
    )
    for ax in axes.flat[len(versions) :]:
        ax.set_visible(False)
    for ax, version in zip(axes.flat, versions, strict=False):
        part = table[table["version"] == version]
        for setting, line in part.groupby("setting", sort=False):
            err = np.vstack(
                [line["win_rate"] - line["ci95_low"], line["ci95_high"] - line["win_rate"]]
            )
            ax.errorbar(
                line[budget], line["win_rate"], yerr=err, fmt="-o", ms=3, capsize=2, label=setting
            )
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ticks = sorted(table[budget].unique())
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=7)
        ax.minorticks_off()
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{version} ({part['board'].iloc[0]}, n={int(part['n'].min())})", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel("win rate against MCS")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    save_figure(fig, ctx.figures, stem)


def newcombe_diff(p1: float, n1: int, p2: float, n2: int) -> tuple[float, float, float]:
    """p1 - p2 and Newcombe's hybrid score 95% interval (from the two Wilson intervals)."""
    l1, u1 = wilson(p1 * n1, n1)
    l2, u2 = wilson(p2 * n2, n2)
    d = p1 - p2
    return d, d - np.hypot(p1 - l1, u2 - p2), d + np.hypot(u1 - p1, p2 - l2)


def _fmt(p: float, low: float, high: float) -> str:
    return f"{p:.2f} [{low:.2f}, {high:.2f}]"


def claims_at(table: pd.DataFrame, ms: float, scale: str, paper: dict) -> list[Claim]:
    """The paper's three claims about its table, from our cells at ``ms`` per move."""
    cmd = rerun_command(scale, *TIME)
    at = table[table["budget_ms"] == ms]
    best, worse = paper["best_setting"], paper["worse_setting"]
    where = f"at {ms:g} ms" + ("" if ms == paper["budget_ms"] else " (this scale's longest)")
    names = [version_name(*v) for v in VERSIONS]
    present = [v for v in names if ((at["version"] == v) & (at["setting"] == best)).any()]
    claims = []

    # 1. NMC(1)+COW is the best nested setting in 8 of the 9 versions.
    tol = paper["best_tolerance"]
    n_best = n_not = 0
    notes = []
    for v in present:
        part = at[at["version"] == v].set_index("setting")
        mine = part.loc[best]
        others = part.drop(index=best)
        if others.empty:
            continue
        diffs = [
            newcombe_diff(mine["win_rate"], mine["n"], o["win_rate"], o["n"])
            for _, o in others.iterrows()
        ]
        if all(low > -tol for _, low, _ in diffs):
            n_best += 1
        elif any(high < 0 for _, _, high in diffs):
            n_not += 1
            notes.append(v)
    total = len(present)
    if total == 0 or at["setting"].nunique() < 2:
        verdict, ours = NOT_RUN, "-"
    else:
        need = paper["best_in_versions"]
        verdict = AGREES if n_best >= need else DIFFERS if n_not > len(names) - need else NOT_ENOUGH
        ours = (
            f"best (no setting better by more than {tol:g}) in {n_best} of {total} versions, "
            f"beaten in {n_not}{' (' + ', '.join(notes) + ')' if notes else ''}, "
            f"undecided in {total - n_best - n_not}; settings compared: "
            f"{', '.join(s for s in SETTINGS if s in set(at['setting']))}"
        )
    claims.append(
        Claim(
            SECTION,
            f"{where}, {best} is the best nested setting in {paper['best_in_versions']} of 9 "
            "versions",
            f"{paper['best_in_versions']} of 9",
            ours,
            verdict,
            cmd,
        )
    )

    # 2. Against MCS it wins clearly in five, about half in three, loses in one.
    hi_t, lo_t = paper["wins_above"], paper["loses_below"]
    target = (
        paper["against_mcs"]["wins"],
        paper["against_mcs"]["half"],
        paper["against_mcs"]["loses"],
    )
    options, labels = [], []
    for v in present:
        r = at[(at["version"] == v) & (at["setting"] == best)].iloc[0]
        low, high = r["ci95_low"], r["ci95_high"]
        possible = [
            k
            for k, (a, b) in enumerate(((hi_t, 1.0), (lo_t, hi_t), (0.0, lo_t)))
            if high >= a and low <= b
        ]
        options.append(possible)
        labels.append(f"{v} {_fmt(r['win_rate'], low, high)}")
    if total < len(names):
        verdict = NOT_RUN if total == 0 else NOT_ENOUGH
    elif all(len(o) == 1 for o in options):
        counts = tuple(sum(o[0] == k for o in options) for k in range(3))
        verdict = AGREES if counts == target else DIFFERS
    else:
        feasible = any(
            tuple(sum(c == k for c in choice) for k in range(3)) == target
            for choice in itertools.product(*options)
        )
        verdict = NOT_ENOUGH if feasible else DIFFERS
    decided = [o[0] for o in options if len(o) == 1]
    ours = (
        (
            f"wins clearly (CI above {hi_t:g}) in {decided.count(0)}, about half (CI inside "
            f"[{lo_t:g}, {hi_t:g}]) in {decided.count(1)}, loses (CI below {lo_t:g}) in "
            f"{decided.count(2)}, undecided in {len(options) - len(decided)}: " + "; ".join(labels)
        )
        if options
        else "-"
    )
    claims.append(
        Claim(
            SECTION,
            f"{where}, {best} against MCS wins clearly in {target[0]} versions, about half in "
            f"{target[1]}, loses in {target[2]}",
            f"{target[0]} / {target[1]} / {target[2]}",
            ours,
            verdict,
            cmd,
        )
    )

    # 3. NMC(2)+COW is worse than NMC(1)+COW: their win rates over the matches of every version
    # both ran (the same versions and numbers of matches for both), Newcombe's interval.
    both = [v for v in present if ((at["version"] == v) & (at["setting"] == worse)).any()]
    if both:
        part = at[at["version"].isin(both)]
        a, b = part[part["setting"] == best], part[part["setting"] == worse]
        na, nb = int(a["n"].sum()), int(b["n"].sum())
        pa = float((a["win_rate"] * a["n"]).sum()) / na
        pb = float((b["win_rate"] * b["n"]).sum()) / nb
        d, low, high = newcombe_diff(pa, na, pb, nb)
        ahead = sum(
            a[a["version"] == v]["win_rate"].iloc[0] > b[b["version"] == v]["win_rate"].iloc[0]
            for v in both
        )
        behind = sum(
            a[a["version"] == v]["win_rate"].iloc[0] < b[b["version"] == v]["win_rate"].iloc[0]
            for v in both
        )
        verdict = verdict_sign(low, high)
        ours = (
            f"win rate of {best} minus {worse} over the {na} and {nb} matches of {len(both)} "
            f"versions: {_fmt(d, low, high)}; {best} ahead in {ahead} versions, behind in {behind}"
        )
    else:
        verdict, ours = NOT_RUN, "-"
    claims.append(
        Claim(
            SECTION,
            f"{where}, {worse} is worse than {best}",
            "worse",
            ours,
            verdict,
            cmd,
        )
    )
    return claims


def analyze(ctx) -> list[Claim]:
    """Tables and figures of the time and playout experiments; the paper's claims."""
    paper = paper_values("twoplayer")
    time_rows = load(ctx, TIME)
    if not time_rows.empty:
        table = cell_table(time_rows, "budget_ms")
        save_table(table, ctx.tables, "twoplayer_time")
        save_table(wide_table(table, "budget_ms", "ms"), ctx.tables, "twoplayer_time_table")
        figure(
            ctx,
            table,
            "budget_ms",
            "time per move (ms)",
            "twoplayer_time",
            "Nested settings against MCS: win rate against time per move (95% Wilson intervals)",
        )
    playout_rows = load(ctx, PLAYOUTS)
    if not playout_rows.empty:
        ptable = cell_table(playout_rows, "budget_playouts")
        save_table(ptable, ctx.tables, "twoplayer_playouts")
        save_table(
            wide_table(ptable, "budget_playouts", "playouts"),
            ctx.tables,
            "twoplayer_playouts_table",
        )
        figure(
            ctx,
            ptable,
            "budget_playouts",
            "random playouts per move",
            "twoplayer_playouts",
            "Nested settings against MCS under equal playout budgets (beyond the paper)",
        )
    if time_rows.empty:
        empty = pd.DataFrame(columns=["version", "setting", "budget_ms", "n", "win_rate"])
        return claims_at(empty, paper["budget_ms"], ctx.scale, paper)
    ms = paper["budget_ms"] if (table["budget_ms"] == paper["budget_ms"]).any() else None
    if ms is None:
        ms = float(table["budget_ms"].max())
    return claims_at(table, ms, ctx.scale, paper)
