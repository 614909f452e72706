"""Morpion Solitaire 5D, NMCS paper (Cazenave 2009) section 5.1: the score distributions of
Figs 8 and 9 (levels 0-3, without and with memorization), the cost of a level, the scaling
against the left move, the level-4 record, and Fig 10 (iterative NMCS against time).

Methods:
- Peak of a score distribution: the most frequent score (the lowest one on a tie). Its 95%
  interval is a multinomial (parametric) bootstrap: 2,000 resamples of the observed counts with
  a fixed seed, the 2.5 and 97.5 percentiles of the resampled modes. The paper's peak (read off
  its figure, an integer) agrees when it lies inside that interval.
  The paper's peak is read off a figure and comes from its own finite sample: it agrees within
  one move (target [peak - 1, peak + 1]); an interval of ours wider than that, or a mode of
  fewer than 100 searches (the bootstrap then trusts a handful of ties), is 'not enough data'.
- Real time (Fig 10): each search's best score on a grid of 0.01 s doubling (and of playouts
  doubling); level comparisons average each search's scores over the grid points where every
  search of both levels has finished one nested search, then an interval of the difference,
  paired by search where the cells share their seeds (``analysis.pairing``), else Welch's.
"""

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from scipy import stats

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    Context,
    cells_read,
    paper_values,
    plot_by_level,
    rerun_command,
    save_figure,
    save_table,
    verdict_interval,
    verdict_sign,
)
from analysis.leftmove import anytime_curves, averaged_gap, curve_searches
from analysis.morpion_common import NMCS_EXPERIMENTS, any_ran, mean_ci, morpion_5d
from analysis.pairing import mean_combination, ratio_of_means

NMCS = "NMCS 5.1 (Morpion Solitaire 5D, Figs 8-10)"
DISTRIBUTIONS = ("morpion_fig8_fig9_level0", "morpion_fig8_fig9", "morpion_fig9_level3")
BOOTSTRAP = 2000
# The bootstrap of a mode takes the observed frequencies for the truth, which holds only when
# the scores near the peak were each seen many times: fewer searches are 'not enough data'.
MIN_PEAK_SEARCHES = 100
# The rules that decide this section's verdicts, as the report prints them.
PEAK_RULE = (
    "peaks: the mode of our scores with its multinomial-bootstrap 95% interval against the "
    "paper's peak ± 0.5, widened by the reading tolerance shown; 'not enough data' below "
    f"{MIN_PEAK_SEARCHES} searches"
)
DIFFERENCE_RULE = (
    "differences and ratios of cells: 95% intervals (Student's t, or the delta method for a "
    "ratio), paired by search where the cells share their seeds, as each row says"
)
LINEAR_RULE = (
    "Fig 10 'almost linear': 'agrees' when R^2 >= 0.9 at every level; 'not enough data' below 6 "
    "time points or 10 searches a level"
)


def mode_interval(scores, seed=0):
    """Mode of integer scores and its multinomial-bootstrap 95% interval (see module doc)."""
    scores = np.asarray(scores, int)
    counts = np.bincount(scores)
    mode = int(counts.argmax())
    rng = np.random.default_rng(seed)
    resampled = rng.multinomial(scores.size, counts / scores.size, size=BOOTSTRAP)
    modes = resampled.argmax(axis=1)
    low, high = np.percentile(modes, [2.5, 97.5])
    return mode, int(np.floor(low)), int(np.ceil(high))


# ---------------------------------------------------------------- Figs 8 and 9: distributions


def load_distributions(ctx):
    parts = []
    for experiment in DISTRIBUTIONS:
        df = morpion_5d(ctx.results(experiment))
        if df.empty:
            continue
        df = df[df["algo"] == "nested"]
        if experiment.endswith("level0"):
            df = df[df["level"] == 0]
        elif experiment.endswith("level3"):
            df = df[df["level"] == 3]  # quick scale runs level 2 here only to check the command
        parts.append(df)
    parts = [p for p in parts if not p.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def figure_rows(df, memorize):
    """The searches of Fig 9 (memorize) or Fig 8: level 0 serves both."""
    return df[(df["level"] == 0) | (df["memorize"].astype(bool) == memorize)]


def peak_key(memorize: bool) -> str:
    """The key of the paper's peaks of Fig 9 (memorize) or Fig 8 in its values."""
    return "peak_with_memorization" if memorize else "peak_without_memorization"


def distribution_row(
    fig: str, memorize: bool, level: int, group: pd.DataFrame, paper: dict
) -> dict:
    """One row of the Figs 8-9 table: a level's scores, their peak with its bootstrap
    interval, and the paper's peak and sample size."""
    scores = group["score"].to_numpy()
    mode, low, high = mode_interval(scores, seed=level)
    mean, half = mean_ci(scores)
    return {
        "figure": fig,
        "memorize": memorize,
        "level": level,
        "n": len(scores),
        "paper_n": paper["samples"].get(f"level{level}"),
        "mean": mean,
        "ci95": half,
        "peak": mode,
        "peak_low": low,
        "peak_high": high,
        "paper_peak": paper[peak_key(memorize)].get(f"level{level}"),
        "best": int(scores.max()),
        "mean_playout_moves": float(group["playout_moves"].mean()),
        "mean_seconds": float(group["seconds"].mean()),
    }


def plot_distribution(ax: Axes, scores: np.ndarray, row: dict) -> None:
    """A level's score frequencies on ``ax``, our peak marked by a dot and the paper's by a
    dotted line of the same colour."""
    mode, paper_peak = row["peak"], row["paper_peak"]
    top = int(scores.max()) + 1
    freq = np.bincount(scores, minlength=top) / len(scores)
    (line,) = ax.plot(np.arange(top), freq, label=f"level {row['level']} (n={len(scores)})")
    ax.plot([mode], [freq[mode]], "o", color=line.get_color())
    ax.annotate(
        f"{mode}",
        (mode, freq[mode]),
        textcoords="offset points",
        xytext=(0, 5),
        ha="center",
        fontsize=8,
    )
    if paper_peak is not None:
        ax.axvline(paper_peak, ls=":", lw=1, color=line.get_color())


def distribution_figure(
    ctx: Context, part: pd.DataFrame, memorize: bool, fig: str, paper: dict
) -> tuple[list[dict], dict]:
    """Fig 8 (without memorization) or Fig 9 (with) from the searches ``part``, saved when any
    level ran: its table rows, and level -> the cells its searches came from."""
    rows = []
    reads = {}
    fig_obj, ax = plt.subplots(figsize=(7, 4.5))
    for level, group in sorted(part.groupby("level")) if not part.empty else []:
        row = distribution_row(fig, memorize, level, group, paper)
        reads[level] = cells_read(group)
        rows.append(row)
        plot_distribution(ax, group["score"].to_numpy(), row)
    if not part.empty:
        ax.set_xlabel("score (moves)")
        ax.set_ylabel("frequency")
        ax.set_title(
            f"{'Fig 9' if memorize else 'Fig 8'}: Morpion 5D, "
            f"{'with' if memorize else 'without'} memorization — dots: our peaks, "
            "dotted: paper's peaks",
            fontsize=9,
        )
        ax.legend()
        save_figure(fig_obj, ctx.figures, f"morpion_{fig}")
    else:
        plt.close(fig_obj)
    return rows, reads


def peak_claims(
    rows: list[dict], reads: dict, memorize: bool, paper: dict, cmd: str
) -> list[Claim]:
    """The peaks of levels 1 and 2 in Fig 8 or Fig 9 (``rows``: that figure's) against the
    paper's."""
    claims = []
    for level in (1, 2):
        value = paper[peak_key(memorize)][f"level{level}"]
        claim = (
            f"{'Fig 9' if memorize else 'Fig 8'}: peak of level {level} "
            f"{'with' if memorize else 'without'} memorization"
        )
        row = [r for r in rows if r["level"] == level]
        if not row:
            claims.append(Claim(NMCS, claim, str(value), "-", "not run", cmd))
            continue
        r = row[0]
        claims.append(
            Claim(
                NMCS,
                claim,
                str(value),
                f"{r['peak']} [{r['peak_low']}, {r['peak_high']}] (mode, bootstrap), "
                f"mean {r['mean']:.2f}, n={r['n']}",
                NOT_ENOUGH
                if r["n"] < MIN_PEAK_SEARCHES
                else verdict_interval(
                    r["peak_low"],
                    r["peak_high"],
                    value - 0.5,
                    value + 0.5,
                    paper["peak_reading_tolerance"]["tolerance"],
                ),
                cmd,
                reads[level],
                rules=(PEAK_RULE,),
            )
        )
    return claims


def memorization_claims(df: pd.DataFrame, cmd: str) -> list[Claim]:
    """Memorization moves the distribution up (the peaks 59 -> 61 and 62 -> 66), at levels 1
    and 2."""
    claims = []
    for level in (1, 2):
        with_memo = df[(df["level"] == level) & df["memorize"].astype(bool)]
        without = df[(df["level"] == level) & ~df["memorize"].astype(bool)]
        claim = f"level {level}: memorization gives longer games (Fig 9 vs Fig 8)"
        if len(with_memo) < 2 or len(without) < 2:
            claims.append(Claim(NMCS, claim, "higher peak", "-", "not run", cmd))
            continue
        gap = mean_combination([(1.0, with_memo), (-1.0, without)])
        claims.append(
            Claim(
                NMCS,
                claim,
                "higher peak",
                f"mean {gap.value:+.2f} [{gap.low:+.2f}, {gap.high:+.2f}] moves ({gap.pairing})",
                verdict_sign(gap.low, gap.high),
                cmd,
                cells_read(with_memo, without),
                rules=(DIFFERENCE_RULE,),
            )
        )
    return claims


def level_cost_claims(df: pd.DataFrame, paper: dict, cmd: str) -> list[Claim]:
    """Cost of a level: "a nested search of level l is 200 times longer than level l - 1",
    at levels 2 and 3 with memorization."""
    claims = []
    ratio = paper["level_cost_ratio"]
    memo = df[df["memorize"].astype(bool) | (df["level"] == 0)]
    for level in (2, 3):
        upper, lower = memo[memo["level"] == level], memo[memo["level"] == level - 1]
        claim = f"a level-{level} search is about {ratio} times longer than a level-{level - 1} one"
        if len(upper) < 2 or len(lower) < 2:
            claims.append(Claim(NMCS, claim, f"x{ratio}", "-", "not run", cmd))
            continue
        value, low, high, pairing = ratio_of_means(upper, lower, "playout_moves")
        claims.append(
            Claim(
                NMCS,
                claim + " (moves played in playouts, memorization; 'about' read as within a "
                "factor 2)",
                f"x{ratio}",
                f"x{value:.0f} [{low:.0f}, {high:.0f}] ({pairing})",
                verdict_interval(low, high, ratio / 2, 2 * ratio),
                cmd,
                cells_read(upper, lower),
                rules=(DIFFERENCE_RULE,),
            )
        )
    return claims


def analyze_distributions(ctx: Context) -> list[Claim]:
    """Figs 8 and 9 and their table; the claims on peaks, memorization, the cost of a level,
    the scaling against the left move and the level-4 record."""
    df = load_distributions(ctx)
    cmd = rerun_command(ctx.scale, *DISTRIBUTIONS)
    paper = paper_values("morpion")["nmcs_distributions"]
    claims = []
    rows = []
    for memorize, fig in ((False, "fig8"), (True, "fig9")):
        part = figure_rows(df, memorize) if not df.empty else df
        fig_rows, reads = distribution_figure(ctx, part, memorize, fig, paper)
        rows += fig_rows
        claims += peak_claims(fig_rows, reads, memorize, paper, cmd)
    if not rows:
        return claims
    save_table(pd.DataFrame(rows), ctx.tables, "morpion_fig8_fig9")
    claims += memorization_claims(df, cmd)
    claims += level_cost_claims(df, paper, cmd)
    claims += _scaling_claim(ctx, df)
    claims += _level4_record_claim(df)
    return claims


def _standardized_gain(low: Any, high: Any) -> tuple[float, float]:
    """(mean(high) - mean(low)) / sd(low) and its standard error (delta method), from two
    cells' scores (frames with a ``score`` column, or arrays): the difference of means paired by
    search where the cells share their seeds (``analysis.pairing``)."""
    low, high = (
        x if isinstance(x, pd.DataFrame) else pd.DataFrame({"score": x}) for x in (low, high)
    )
    s = float(low["score"].std(ddof=1))
    gap = mean_combination([(1.0, high), (-1.0, low)])
    d = gap.value / s
    var = gap.se**2 / (s * s) + d * d / (2 * (len(low) - 1))
    return float(d), float(np.sqrt(var))


def _scaling_claim(ctx: Context, df: pd.DataFrame) -> list[Claim]:
    """Fig 8 against Fig 3: "Nested Monte-Carlo Search scales better with the level for
    Morpion Solitaire than for the left move problem" (both without memorization). Read on the
    nested levels, level 1 to level 2, as the gain in standard deviations of level 1's scores
    (the two games' scores have different scales); the level-0-to-1 gains are shown too."""
    claim = (
        "Fig 8 vs Fig 3: without memorization NMCS scales better with the level for Morpion "
        "than for the left move (read as: the gain from level 1 to level 2, in standard "
        "deviations of level 1's scores, is larger)"
    )
    cmd = rerun_command(
        ctx.scale, "morpion_fig8_fig9", "morpion_fig8_fig9_level0", "leftmove_distributions"
    )
    left = ctx.results("leftmove_distributions")
    gains, read = {}, []
    pairs: dict[str, dict] = {}
    for name, rows in (("Morpion", df), ("left move", left)):
        if rows.empty:
            return [Claim(NMCS, claim, "better", "-", NOT_RUN, cmd)]
        # Without memorization; level 0 (one playout) from either setting, counted once.
        plain = rows[~rows["memorize"].astype(bool)]
        if 0 not in set(plain["level"]):
            plain = pd.concat([plain, rows[rows["level"] == 0]])
        by_level = {lv: g for lv, g in plain.groupby("level")}
        read.append(plain[plain["level"].isin([0, 1, 2])])
        if not {0, 1, 2} <= set(by_level):
            return [Claim(NMCS, claim, "better", "-", NOT_RUN, cmd)]
        pairs[name] = by_level
        gains[name] = (
            _standardized_gain(by_level[1], by_level[2]),
            _standardized_gain(by_level[0], by_level[1])[0],
        )
    depth = int(left["depth"].iloc[0])
    # How each game's levels 1 and 2 were taken (the left move's cells may be published as
    # counts, which keep no search index to pair by).
    pairing = {
        name: mean_combination([(1.0, levels[2]), (-1.0, levels[1])]).pairing
        for name, levels in pairs.items()
    }
    (dm, sm), dm0 = gains["Morpion"]
    (dl, sl), dl0 = gains["left move"]
    diff, half = dm - dl, 1.96 * np.hypot(sm, sl)
    return [
        Claim(
            NMCS,
            claim,
            "better",
            f"level 1 to 2: Morpion {dm:+.2f} sd, left move (depth {depth}) {dl:+.2f} sd, "
            f"difference {diff:+.2f} [{diff - half:+.2f}, {diff + half:+.2f}] (Morpion's levels "
            f"{pairing['Morpion']}; the left move's {pairing['left move']}; the two games "
            "independent); level 0 to 1 (for "
            f"comparison): Morpion {dm0:+.2f} sd, left move {dl0:+.2f} sd",
            verdict_sign(diff - half, diff + half),
            cmd,
            cells_read(*read),
            rules=(DIFFERENCE_RULE,),
        )
    ]


def _level4_record_claim(df: pd.DataFrame) -> list[Claim]:
    """The 80-move record of a level-4 search (5 hours on 32 dual-core machines), never run
    here: its cost is estimated from our level-3 searches and the level cost ratio."""
    level3 = df[(df["level"] == 3) & df["memorize"].astype(bool)]
    if level3.empty:
        why = "a level-4 search is about 200 level-3 searches"
    else:
        hours = paper_values("morpion")["nmcs_distributions"]["level_cost_ratio"]
        hours *= level3["seconds"].mean() / 3600
        why = (
            f"one level-4 search is about {hours:.0f} core-hours here (200 x our level-3 "
            f"search of {level3['seconds'].mean():.0f} s), and a search, the unit a run "
            "resumes from, must fit in one session"
        )
    return [
        Claim(
            NMCS,
            "a level-4 search found an 80-move grid (the 2009 record; 5 hours on 32 dual-core "
            f"machines, about 10 days on one); not run here: {why}",
            "80",
            "-",
            NOT_RUN,
            "python run.py game=morpion level=4 n_searches=1",
        )
    ]


# ---------------------------------------------------------------- Fig 10: real time


FIG10_LINEAR = "Fig 10: the score grows almost linearly with the logarithm of the time"
# The level comparisons of Fig 10: (higher level, lower level, what the claim says).
FIG10_GAPS = ((2, 1, "level 2 beats level 1"), (1, 0, "level 1 beats level 0"))


def realtime_table(grid: np.ndarray, curves: dict, axis: str) -> pd.DataFrame:
    """Mean best score of each level at each grid point of ``axis`` that every search had
    reached, with its 95% interval."""
    rows = []
    for (level, _), matrix in sorted(curves.items()):
        for j, x in enumerate(grid):
            col = matrix[:, j]
            if np.isnan(col).any():
                continue  # some search had not finished one nested search yet
            mean, half = mean_ci(col)
            rows.append({"level": level, axis: x, "n": len(col), "mean_score": mean, "ci95": half})
    return pd.DataFrame(rows, columns=["level", axis, "n", "mean_score", "ci95"])


def realtime_figure(ctx: Context, table: pd.DataFrame, axis: str, stem: str) -> None:
    """Fig 10 against ``axis`` (seconds or playouts, log scale): one line per level."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    plot_by_level(ax, table, axis, "mean_score", nan_bars_as_zero=True)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"{axis} (log scale)")
    ax.set_ylabel("mean best score (moves)")
    ax.set_title("Fig 10: iterative NMCS on Morpion 5D, with memorization")
    ax.legend()
    save_figure(fig, ctx.figures, stem)


def log_linear_claim(seconds_table: pd.DataFrame, df: pd.DataFrame, cmd: str) -> Claim:
    """Fig 10: "the increase in score is almost linear with the logarithm of the time", from
    the table of mean scores against seconds and the searches ``df``."""
    # R^2 of a line through each level's mean score against log2(seconds); we read "almost
    # linear" as R^2 >= 0.9 for every level with at least 4 time points. Means of fewer than 10
    # searches per point, or fewer than 6 points, are too noisy to judge a shape: 'not enough
    # data'.
    fits = []
    for level, line in seconds_table.groupby("level"):
        if len(line) >= 4:
            fit = stats.linregress(np.log2(line["seconds"]), line["mean_score"])
            fits.append((level, fit.slope, fit.rvalue**2, len(line)))
    if not fits:
        return Claim(NMCS, FIG10_LINEAR, "almost linear", "-", "not run", cmd)
    return Claim(
        NMCS,
        FIG10_LINEAR + " (R^2 >= 0.9 per level)",
        "almost linear",
        "; ".join(
            f"level {lv}: {slope:+.2f} moves per doubling, R^2 {r2:.2f} ({n} points)"
            for lv, slope, r2, n in fits
        ),
        NOT_ENOUGH
        if min(f[3] for f in fits) < 6 or df.groupby("level").size().min() < 10
        else (AGREES if min(f[2] for f in fits) >= 0.9 else DIFFERS),
        cmd,
        cells_read(df),
        rules=(LINEAR_RULE,),
    )


def level_gap_claims(grid: np.ndarray, curves: dict, searches: dict, cmd: str) -> list[Claim]:
    """Fig 10's level comparisons in real time: each search's scores averaged over the time
    points where every search of both levels has finished one nested search."""
    claims = []
    for hi, lo, name in FIG10_GAPS:
        claim = f"Fig 10 (real time): {name}"
        if (hi, True) not in curves or (lo, True) not in curves:
            claims.append(Claim(NMCS, claim, "better", "-", "not run", cmd))
            continue
        a, b = curves[(hi, True)], curves[(lo, True)]
        common = ~(np.isnan(a).any(axis=0) | np.isnan(b).any(axis=0))
        if not common.any() or min(a.shape[0], b.shape[0]) < 2:
            claims.append(Claim(NMCS, claim, "better", "no common time point", "not run", cmd))
            continue
        rows = searches[(hi, True)], searches[(lo, True)]
        gap = averaged_gap(a, rows[0], b, rows[1], common)
        claims.append(
            Claim(
                NMCS,
                claim,
                "better",
                f"{gap.value:+.2f} [{gap.low:+.2f}, {gap.high:+.2f}] moves over "
                f"{grid[common][0]:g}-{grid[common][-1]:g} s, n={a.shape[0]} ({gap.pairing})",
                verdict_sign(gap.low, gap.high),
                cmd,
                cells_read(*rows),
                rules=(DIFFERENCE_RULE,),
            )
        )
    return claims


def analyze_realtime(ctx: Context, experiment: str = "morpion_fig10") -> list[Claim]:
    """Fig 10 against seconds and playouts, its table, and its claims."""
    df = morpion_5d(ctx.results(experiment))
    cmd = rerun_command(ctx.scale, experiment)
    if df.empty:
        return [
            Claim(NMCS, f"Fig 10 (real time): {name}", "better", "-", "not run", cmd)
            for _, _, name in FIG10_GAPS
        ] + [Claim(NMCS, FIG10_LINEAR, "almost linear", "-", "not run", cmd)]
    df = df[(df["algo"] == "iterative") & df["memorize"].astype(bool)]
    curves_by_axis = {}
    for axis in ("seconds", "playouts"):
        grid, curves = anytime_curves(df, axis)
        curves_by_axis[axis] = (grid, curves)
        table = realtime_table(grid, curves, axis)
        save_table(table, ctx.tables, f"{experiment}_{axis}")
        realtime_figure(ctx, table, axis, f"{experiment}_{axis}")
    # The fit reads the table back from its CSV, whose floats are rounded (common.CSV_DIGITS).
    seconds_table = pd.read_csv(ctx.tables / f"{experiment}_seconds.csv")
    return [log_linear_claim(seconds_table, df, cmd)] + level_gap_claims(
        *curves_by_axis["seconds"], curve_searches(df), cmd
    )


EXPERIMENTS = NMCS_EXPERIMENTS


def analyze(ctx: Context) -> list[Claim]:
    """Every claim of the NMCS paper's Morpion section; missing cells say "not run" once any
    Morpion experiment ran at this scale."""
    if not any_ran(ctx):
        return []
    return analyze_distributions(ctx) + analyze_realtime(ctx)
