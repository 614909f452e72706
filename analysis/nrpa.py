"""NRPA and GNRPA (issue 22, docs/nrpa.md): scores by level (experiments nrpa_levels,
nrpa_levels_samegame, nrpa_levels_leftmove) and the algorithms at equal playout budgets with
anytime curves and 95% bands (algorithms_equal_playouts and its beam sibling).

Claims are Rosin's qualitative ones (IJCAI 2011): a higher NRPA level scores higher, and NRPA
beats NMCS on Morpion at the same cost; and one exact identity of ours (GNRPA with tau = 1 and
no bias is NRPA: the same games for the same seeds). The published records (Morpion 5D 82, 5T
177; SameGame totals) are listed in analysis/paper_values/nrpa.yaml but need level-5 searches
and days of CPU: no claim at our scales.
"""

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    Claim,
    Context,
    cells_read,
    paper_values,
    rerun_command,
    save_figure,
    save_table,
    verdict_sign,
    welch_diff,
)
from analysis.leftmove import score_at

SECTION_LEVELS = "NRPA by level (Rosin 2011)"
SECTION_EQUAL = "Algorithms at equal playouts (NMCS, beam, NRPA, GNRPA, UCT)"
LEVEL_EXPERIMENTS = ("nrpa_levels", "nrpa_levels_samegame", "nrpa_levels_leftmove")
EQUAL = ("algorithms_equal_playouts", "algorithms_equal_playouts_beam")
LABELS = {
    "iterative": "NMCS (memorized, iterative)",
    "iterative_beam": "beam search (16)",
    "nrpa": "NRPA",
    "gnrpa": "GNRPA",
    "uct": "UCT",
}


def mean_ci(values: Any) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval (0 for one value)."""
    v = np.asarray(values, float)
    if v.size < 2:
        return float(v.mean()), 0.0
    return float(v.mean()), float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))


def _series(df: pd.DataFrame, experiment: str) -> pd.Series:
    """The label of each row's curve in the level figure: the Morpion variant, SameGame, or
    the left move."""
    if experiment == "nrpa_levels":
        return "Morpion " + df["game_options"].str.extract(r"variant=(\w+)")[0]
    return pd.Series("SameGame (total)" if "samegame" in experiment else "left move", df.index)


def level_table(ctx: Context) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """Mean score by level and series (SameGame: the total over positions of the per-position
    means, its interval from the positions' standard errors)."""
    rows, frames = [], {}
    for experiment in LEVEL_EXPERIMENTS:
        df = ctx.results(experiment)
        if df.empty:
            continue
        df = df.assign(series=_series(df, experiment))
        frames[experiment] = df
        for (series, level), group in df.groupby(["series", "level"]):
            if "samegame" in experiment:
                per = group.groupby("game_options")["score"]
                means = per.mean()
                se2 = (per.var(ddof=1) / per.count()).fillna(0.0)
                mean, half = float(means.sum()), float(1.96 * np.sqrt(se2.sum()))
                n = int(per.count().min())
            else:
                mean, half = mean_ci(group["score"])
                n = len(group)
            rows.append(
                {
                    "series": series,
                    "level": int(level),
                    "n": n,
                    "mean": mean,
                    "ci95": half,
                    "best": group["score"].max(),
                    "playouts": int(group["playouts"].mean()),
                    "seconds": group["seconds"].mean(),
                }
            )
    return pd.DataFrame(rows), frames


def analyze_levels(ctx: Context) -> list[Claim]:
    cmd = rerun_command(ctx.scale, *LEVEL_EXPERIMENTS)
    table, frames = level_table(ctx)
    if table.empty:
        return [Claim(SECTION_LEVELS, "a higher level scores higher", "yes", "-", "not run", cmd)]
    save_table(table, ctx.tables, "nrpa_levels")
    groups = list(table.groupby("series"))
    fig, axes = plt.subplots(1, len(groups), figsize=(4 * len(groups), 3.6), squeeze=False)
    for ax, (series, part) in zip(axes[0], groups, strict=True):
        ax.errorbar(part["level"], part["mean"], yerr=part["ci95"], fmt="-o", capsize=3)
        ax.set_title(series)
        ax.set_xlabel("NRPA level (N = 100)")
        ax.set_xticks(part["level"])
    axes[0][0].set_ylabel("mean score (95% CI)")
    fig.suptitle("NRPA scores by level")
    save_figure(fig, ctx.figures, "nrpa_levels")
    claims = []
    for experiment, df in frames.items():
        for series, part in df.groupby("series"):
            levels = sorted(part["level"].unique())
            for lo, hi in zip(levels, levels[1:], strict=False):
                a = part[part["level"] == hi]
                b = part[part["level"] == lo]
                if "samegame" in experiment:
                    # The total over positions: the sum of per-position differences.
                    diffs = [
                        welch_diff(a[a.game_options == g]["score"], b[b.game_options == g]["score"])
                        for g in sorted(set(a.game_options) & set(b.game_options))
                    ]
                    diff = sum(d[0] for d in diffs)
                    half = np.sqrt(sum(((d[2] - d[1]) / 2) ** 2 for d in diffs))
                    low, high = diff - half, diff + half
                else:
                    diff, low, high = welch_diff(a["score"], b["score"])
                verdict = verdict_sign(low, high) if len(a) > 1 and len(b) > 1 else NOT_ENOUGH
                ours = f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]"
                scores = set(a["score"]) | set(b["score"])
                if len(scores) == 1:
                    # Both levels at one score in every search (the left move's best, 60):
                    # no room for the higher level to do better.
                    ours = f"every search of both levels scored {scores.pop():g}: no room to beat"
                    verdict = NOT_ENOUGH
                claims.append(
                    Claim(
                        SECTION_LEVELS,
                        f"{series}: level {hi} beats level {lo} (N = 100)",
                        "a higher level scores higher",
                        ours,
                        verdict,
                        rerun_command(ctx.scale, experiment),
                        reads=cells_read(a, b),
                    )
                )
    return claims


def anytime(group: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Grid (doubling playouts from 128, and the budget) and each search's best score there.
    The grid stops at the budget: a beam search can overshoot it (it checks the budget
    between beam searches), and its later improvements do not count."""
    top = float(min(group["playouts"].min(), group["budget_playouts"].max()))
    grid = 2.0 ** np.arange(7, 63)
    grid = grid[grid < top]
    grid = np.append(grid, top)
    matrix = np.vstack(
        [
            score_at(x, s, grid)
            for x, s in zip(group["trace_playouts"], group["trace_score"], strict=True)
        ]
    )
    return grid, matrix


def analyze_equal(ctx: Context) -> list[Claim]:
    cmd = rerun_command(ctx.scale, *EQUAL)
    frames = [ctx.results(e) for e in EQUAL]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return [Claim(SECTION_EQUAL, "NRPA beats NMCS on Morpion 5D", "yes", "-", "not run", cmd)]
    df = pd.concat(frames, ignore_index=True)
    rows, games = [], sorted(df["game"].unique())
    fig, axes = plt.subplots(1, len(games), figsize=(4.5 * len(games), 3.8), squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        for algo, group in df[df["game"] == game].groupby("algo"):
            grid, matrix = anytime(group)
            means, halves = [], []
            for j, x in enumerate(grid):
                col = matrix[:, j]
                if np.isnan(col).any():
                    means.append(np.nan)
                    halves.append(np.nan)
                    continue
                m, h = mean_ci(col)
                means.append(m)
                halves.append(h)
                rows.append(
                    {"game": game, "algo": algo, "playouts": int(x), "n": len(col), "mean": m,
                     "ci95": h}
                )  # fmt: skip
            means, halves = np.array(means), np.array(halves)
            style = "--x" if algo == "gnrpa" else "-o"  # GNRPA at tau = 1 lies on NRPA
            (line,) = ax.plot(grid, means, style, ms=4, label=LABELS.get(algo, algo))
            ax.fill_between(grid, means - halves, means + halves, alpha=0.2, color=line.get_color())
        ax.set_xscale("log", base=2)
        ax.set_xlabel("playouts")
        ax.set_title(game)
    axes[0][0].set_ylabel("best score so far (mean, 95% band)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle("Equal playout budgets (a curve starts once every search has a game)")
    save_figure(fig, ctx.figures, "algorithms_equal_playouts")
    table = pd.DataFrame(rows)
    save_table(table, ctx.tables, "algorithms_equal_playouts")
    claims = []
    morpion = df[df["game"] == "morpion"]
    nrpa_rows, nmcs_rows = morpion[morpion.algo == "nrpa"], morpion[morpion.algo == "iterative"]
    if len(nrpa_rows) > 1 and len(nmcs_rows) > 1:
        diff, low, high = welch_diff(nrpa_rows["score"], nmcs_rows["score"])
        claims.append(
            Claim(
                SECTION_EQUAL,
                f"Morpion 5D, {int(morpion['budget_playouts'].max()):,} playouts: NRPA beats "
                "memorized NMCS",
                "yes (Rosin 2011, Morpion)",
                f"{diff:+.2f} [{low:+.2f}, {high:+.2f}]",
                verdict_sign(low, high),
                rerun_command(ctx.scale, EQUAL[0]),
                reads=cells_read(nrpa_rows, nmcs_rows),
            )
        )
    for game in games:
        part = df[df["game"] == game]
        a = part[part.algo == "nrpa"].sort_values("search")
        b = part[part.algo == "gnrpa"].sort_values("search")
        if len(a) and len(a) == len(b) and (b["algo_tau"] == 1.0).all():
            same = np.array_equal(a["score"].to_numpy(), b["score"].to_numpy())
            claims.append(
                Claim(
                    SECTION_EQUAL,
                    f"{game}: GNRPA with tau = 1 and no bias plays NRPA's games (same seeds)",
                    "identity (Cazenave 2020)",
                    "identical scores" if same else "scores differ",
                    AGREES if same else DIFFERS,
                    rerun_command(ctx.scale, EQUAL[0]),
                    reads=cells_read(a, b),
                )
            )
    return claims


def analyze(ctx: Context) -> list[Claim]:
    paper_values("nrpa")  # the sources must parse
    return analyze_levels(ctx) + analyze_equal(ctx)
