"""SameGame, NMCS paper section 5.2: Table 1 on the 20 standard positions (level 2, level 2 with
memorization, level 3 with memorization, beside SP-MCTS), per position and in total.

The paper ran one search per position; we run several seeds per position. Two intervals follow:
- the 95% confidence interval of our MEAN score (per position, and for the total as the sum of
  the means: cells run on common seeds, where search i of every position and setting draws the
  same random numbers, are paired search by search, ``analysis.pairing.mean_combination``);
- the 95% prediction interval of the total of ONE search per position (what the paper reports):
  sum of means +- 1.96 sqrt(sum of the per-position variances). A paper total inside it is what
  one run of our implementation could have given; the verdict uses this interval. With fewer
  than 5 searches per position the variances are too rough for it: 'not enough data'.

Memorization's gain (level 2m minus level 2) is the sum over the positions of the differences
of their means, paired search by search where the cells share their seeds.

A level-3 search costs hours per position, so it may be run cut at a playout budget
(``algo=iterative budget.playouts=N``: the first level-3 search is stopped after N playouts and
returns the best complete game it has found). Such searches form their own column, "cut at N
playouts". With memorization a search's best score only grows, so a cut search's score is a
lower bound of what the whole search would reach: it can confirm that level 3 beats another
total, never refute it (``cut_claims``).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    Context,
    Verdict,
    paper_values,
    rerun_command,
    save_figure,
    save_table,
    verdict_sign,
)
from analysis.pairing import Combination, mean_combination

SECTION = "NMCS 5.2 (SameGame, Table 1)"
EXPERIMENTS = ("samegame_table1", "samegame_table1_level3")
MIN_SEEDS = 5  # searches per position for a prediction interval of the total
PAPER_COLUMN = {(2, False): "level2", (2, True): "level2m", (3, True): "level3m"}
LABEL = {"sp_mcts": "SP-MCTS", "level2": "level 2", "level2m": "level 2m", "level3m": "level 3m"}
# The rules that decide this section's verdicts, as the report prints them.
TOTAL_RULE = (
    "a column's total against the paper's (one search a position): 'agrees' when the paper's "
    "total lies in our 95% prediction interval of one run's total, the sum of our per-position "
    "means ± 1.96 sqrt(sum of their variances) (normal; the paper's positions independent; our "
    "means and variances taken for the true ones), 'differs' outside, with its two-sided normal "
    f"p-value; all 20 positions run (else 'not run'), at least {MIN_SEEDS} searches a position "
    "(else 'not enough data')"
)
GAIN_RULE = (
    "memorization's gain and 'level 3m beats SP-MCTS': the 95% interval (Student's t) of a sum "
    "of per-position means (or of their differences), paired by search where the cells share "
    "their seeds, as the row says; 'agrees' above 0 (above SP-MCTS's total, taken as its value), "
    "'differs' below"
)
CUT_RULE = (
    "level-3 searches cut at a playout budget: memorization keeps the best game found, so a cut "
    "search's score is a lower bound of the whole search's; they can confirm that level 3 beats "
    "a total and are otherwise 'not enough data', never 'differs'; with one search a position, "
    "one level-2m run's 95% half-width stands in for the cut run's spread (taken to be no "
    "wider), and sqrt(2) times it for the difference of two single runs"
)


def column_name(level: int, memorize: bool, cut: int = 0) -> str:
    """'level 2m', or 'level 3m, cut at 20,000,000 playouts' for searches cut at a budget."""
    return f"level {level}{'m' if memorize else ''}" + (f", cut at {cut:,} playouts" if cut else "")


def load(ctx: Context) -> pd.DataFrame:
    parts = [ctx.results(e) for e in EXPERIMENTS]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    df = df[df["game"] == "samegame"]
    if "policy" in df:
        df = df[df["policy"] == "tabu"]
    # The harness's `instance` column is the game option (0..19, or None for a random board) or,
    # if the harness writes its own description there, "...,instance=3,...".
    inst = pd.to_numeric(
        df["instance"].astype(str).str.extract(r"(?:^|instance=)(\d+)(?:,|$)")[0],
        errors="coerce",
    )
    df = df.assign(position=inst + 1)[inst.notna()]
    # cut = the playout budget of a search stopped before it finished (0: run to the end).
    cut = df["budget_playouts"] if "budget_playouts" in df else pd.Series(0, index=df.index)
    return df.assign(position=df["position"].astype(int), cut=cut.fillna(0).astype(int))


def per_position(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, CI, sd, n and best of our searches for each (position, level, memorize, cut)."""
    rows = []
    for (pos, level, memorize, cut), g in df.groupby(["position", "level", "memorize", "cut"]):
        s = g["score"].to_numpy(float)
        n = len(s)
        sd = s.std(ddof=1) if n > 1 else np.nan
        half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n) if n > 1 else np.nan
        rows.append(
            dict(
                position=pos,
                level=level,
                memorize=bool(memorize),
                cut=int(cut),
                n=n,
                mean=s.mean(),
                ci95=half,
                sd=sd,
                best=s.max(),
                seconds=g["seconds"].mean(),
                playouts=g["playouts"].mean(),
            )
        )
    return pd.DataFrame(rows)


def total(cell):
    """Sum of means with its CI half-width (positions independent), and the single-search
    prediction half-width."""
    mean = cell["mean"].sum()
    var_of_mean = (cell["sd"] ** 2 / cell["n"]).sum(min_count=len(cell))
    var_single = (cell["sd"] ** 2).sum(min_count=len(cell))
    return mean, 1.96 * np.sqrt(var_of_mean), 1.96 * np.sqrt(var_single)


def column_rows(df: pd.DataFrame, level: int, memorize: bool, cut: int) -> pd.DataFrame:
    """The searches of one column of Table 1 (a level, memorization and cut)."""
    keep = (df["level"] == level) & (df["memorize"].astype(bool) == memorize) & (df["cut"] == cut)
    return df[keep]


def total_combination(rows: pd.DataFrame, minus: pd.DataFrame | None = None) -> Combination:
    """The sum over the positions of the mean score of ``rows`` (less that of ``minus``, the
    same positions' searches of another column) with its 95% interval, each position a cell:
    paired search by search where the cells share their seeds (search i of every cell on
    common seeds draws the same random numbers, whatever its position), independent
    otherwise."""
    parts = [(1.0, cell) for _, cell in rows.groupby("position")]
    if minus is not None:
        parts += [(-1.0, cell) for _, cell in minus.groupby("position")]
    return mean_combination(parts)


def build_table(stats_df, paper, totals=None):
    """Table 1: the paper's four columns and ours, one row per position and a total row;
    ``totals``: each column's total (a Combination, by (level, memorize, cut)), whose interval
    the total row shows (default: positions taken as independent)."""
    totals = totals or {}
    cols = sorted(set(zip(stats_df["level"], stats_df["memorize"], stats_df["cut"], strict=True)))
    rows = []
    positions = sorted(stats_df["position"].unique())
    for pos in positions:
        row = {"position": str(pos)}
        for key, value in zip(paper["columns"], paper["positions"][pos], strict=True):
            row[f"paper {LABEL[key]}"] = value
        for lv, m, cut in cols:
            c = stats_df[
                (stats_df["position"] == pos)
                & (stats_df["level"] == lv)
                & (stats_df["memorize"] == m)
                & (stats_df["cut"] == cut)
            ]
            name = f"ours {column_name(lv, m, cut)}"
            if c.empty:
                row[name] = ""
                continue
            c = c.iloc[0]
            ci = f" ± {c['ci95']:.0f}" if c["n"] > 1 else ""
            row[name] = f"{c['mean']:.0f}{ci} (n={c['n']}, best {c['best']:.0f})"
        rows.append(row)
    row = {"position": "Total" + ("" if len(positions) == 20 else f" ({len(positions)} pos.)")}
    for j, key in enumerate(paper["columns"]):
        row[f"paper {LABEL[key]}"] = sum(paper["positions"][p][j] for p in positions)
    for lv, m, cut in cols:
        cell = stats_df[
            (stats_df["level"] == lv) & (stats_df["memorize"] == m) & (stats_df["cut"] == cut)
        ]
        mean, ci, pi = total(cell)
        if (lv, m, cut) in totals:
            ci = (totals[(lv, m, cut)].high - totals[(lv, m, cut)].low) / 2
        row[f"ours {column_name(lv, m, cut)}"] = f"{mean:.0f}" + (
            f" ± {ci:.0f} (one run: ± {pi:.0f})" if np.isfinite(ci) else ""
        )
    rows.append(row)
    return pd.DataFrame(rows)


def plot(stats_df, paper, ctx):
    fig, ax = plt.subplots(figsize=(11, 4.5))
    positions = np.arange(1, 21)
    ax.plot(
        positions, [paper["positions"][p][0] for p in positions], "k--", lw=1, label="paper SP-MCTS"
    )
    markers = {"level2": "v", "level2m": "s", "level3m": "^"}
    for j, key in enumerate(paper["columns"][1:], start=1):
        ax.plot(
            positions,
            [paper["positions"][p][j] for p in positions],
            markers[key],
            mfc="none",
            color=f"C{j}",
            label=f"paper {LABEL[key]}",
        )
    for i, ((lv, m, cut), cell) in enumerate(stats_df.groupby(["level", "memorize", "cut"])):
        key = None if cut else PAPER_COLUMN.get((lv, bool(m)))
        color = f"C{paper['columns'].index(key)}" if key else f"C{5 + i}"
        ax.errorbar(
            cell["position"],
            cell["mean"],
            yerr=cell["ci95"].fillna(0),
            fmt="o",
            ms=4,
            capsize=2,
            color=color,
            label=f"ours {column_name(lv, m, cut)} "
            + ("(one search)" if cell["n"].max() == 1 else "(mean)"),
        )
    ax.set_xticks(positions)
    ax.set_xlabel("position of the standard test set")
    ax.set_ylabel("score")
    ax.set_title("SameGame, NMCS paper Table 1: paper (open) vs ours (mean, 95% CI)")
    ax.legend(fontsize=7, ncol=2)
    save_figure(fig, ctx.figures, "samegame_table1")


def total_claim(key: str, cell: pd.DataFrame, paper_total: int, mean_ci, command: str) -> Claim:
    """The claim on one column's total over the 20 positions against the paper's single run:
    agrees inside our 95% range of one run (``TOTAL_RULE``)."""
    mean, _, pi = total(cell)
    verdict: str
    if not np.isfinite(pi):
        ours = f"{mean:,.0f} (one search per position: no interval)"
        verdict = NOT_ENOUGH
    else:
        ours = (
            f"mean {mean:,.0f} ± {(mean_ci.high - mean_ci.low) / 2:,.0f} "
            f"({mean_ci.pairing}); one run {mean - pi:,.0f} to {mean + pi:,.0f}; "
            f"n={int(cell['n'].min())}-{int(cell['n'].max())}/position"
        )
        if cell["n"].min() < MIN_SEEDS:
            verdict = NOT_ENOUGH
        elif abs(paper_total - mean) <= pi:
            verdict = AGREES
        else:
            # The paper's total as one draw of the normal law of one run's total.
            verdict = Verdict(DIFFERS, 2 * stats.norm.sf(abs(paper_total - mean) / (pi / 1.96)))
    return Claim(
        SECTION,
        f"{LABEL[key]} (TabuColorRandom, with the exception of Cazenave's code: "
        "a tabu group that clears its colour may be played): total over the 20 positions",
        f"{paper_total:,}",
        ours,
        verdict,
        command,
        rules=(TOTAL_RULE,),
    )


def analyze(ctx: Context) -> list[Claim]:
    df = load(ctx)
    if df.empty:
        return []
    paper = paper_values("samegame")
    stats_df = per_position(df)
    columns = stats_df[["level", "memorize", "cut"]].drop_duplicates().itertuples(index=False)
    totals = {
        (lv, m, cut): total_combination(column_rows(df, lv, m, cut)) for lv, m, cut in columns
    }
    save_table(stats_df, ctx.tables, "samegame_table1_cells")
    save_table(build_table(stats_df, paper, totals), ctx.tables, "samegame_table1")
    plot(stats_df, paper, ctx)
    claims = []
    cmd = rerun_command(ctx.scale, "samegame_table1")
    cmd3 = rerun_command(ctx.scale, "samegame_table1", "samegame_table1_level3")
    # A cut level-3 search is algo=iterative (nested searches restarted, the first one cut).
    cmd_cut = rerun_command(
        ctx.scale,
        "samegame_table1",
        "samegame_table1_level3",
        extra={"samegame_table1_level3": "algo=iterative"},
    )
    full = {}
    full_rows = {}
    cut_cells = []
    for (lv, m, cut), cell in stats_df.groupby(["level", "memorize", "cut"]):
        key = PAPER_COLUMN.get((lv, bool(m)))
        if key is None:
            continue
        if cut:
            cut_cells.append((key, cut, cell))
            continue
        c = cmd3 if key == "level3m" else cmd
        if len(cell) < 20:
            claims.append(
                Claim(
                    SECTION,
                    f"{LABEL[key]}: total over the 20 positions",
                    f"{paper['totals'][key]:,}",
                    f"only {len(cell)} positions run",
                    NOT_RUN,
                    c,
                    rules=(TOTAL_RULE,),
                )
            )
            continue
        full[key] = cell
        full_rows[key] = column_rows(df, lv, bool(m), cut)
        claims.append(total_claim(key, cell, paper["totals"][key], totals[(lv, m, cut)], c))
    if "level2" in full and "level2m" in full:
        gain = total_combination(full_rows["level2m"], minus=full_rows["level2"])
        claims.append(
            Claim(
                SECTION,
                "memorizing the best sequence improves a level-2 search (total)",
                f"+{paper['totals']['level2m'] - paper['totals']['level2']:,}",
                f"{gain.value:+,.0f} [{gain.low:+,.0f}, {gain.high:+,.0f}] ({gain.pairing})",
                verdict_sign(gain.low, gain.high),
                cmd,
                rules=(GAIN_RULE,),
            )
        )
    if "level3m" in full:
        level3 = total_combination(full_rows["level3m"])
        sp_mcts = paper["totals"]["sp_mcts"]
        claims.append(
            Claim(
                SECTION,
                f"level 3m beats SP-MCTS's {sp_mcts:,} (total)",
                f"{paper['totals']['level3m']:,} > {sp_mcts:,}",
                f"{level3.value:,.0f} [{level3.low:,.0f}, {level3.high:,.0f}] ({level3.pairing})"
                if np.isfinite(level3.low)
                else f"{level3.value:,.0f} (no interval)",
                verdict_sign(level3.low - sp_mcts, level3.high - sp_mcts),
                cmd3,
                rules=(GAIN_RULE,),
            )
        )
    for key, cut, cell in cut_cells:
        if key == "level3m" and "level3m" not in full:
            claims += cut_claims(key, cut, cell, full, paper, cmd_cut)
    return claims


def cut_claims(
    key: str, cut: int, cell: pd.DataFrame, full: dict, paper: dict, cmd: str
) -> list[Claim]:
    """The level-3 claims from searches cut at ``cut`` playouts (one column of per_position).

    A cut search's total is a lower bound of the whole search's (memorization keeps the best
    game found), so a claim that level 3 beats a total agrees only when the lower bound beats
    it, and is 'not enough data' otherwise; the paper's own level-3 total can only be 'not
    enough data'. With one search per position the cut run has no spread of its own: one
    level-2m run's 95% half-width stands in for it (a cut level-3 search is the best of many
    level-2 searches, so it varies less), and the margins below use it."""
    if len(cell) < 20:
        return [
            Claim(
                SECTION,
                f"{LABEL[key]}: total over the 20 positions",
                f"{paper['totals'][key]:,}",
                f"only {len(cell)} positions run (cut at {cut:,} playouts)",
                NOT_RUN,
                cmd,
                rules=(CUT_RULE,),
            )
        ]
    bound = cell["mean"].sum()  # one search per position: the sum of the scores
    runs = int(cell["n"].min())
    of_l2m = ""
    if "level2m" in full:
        searches = cut / full["level2m"]["playouts"].mean()
        of_l2m = f", the playouts of about {searches:.0f} level-2m searches"
    what = (
        f"{bound:,.0f} from level-3 searches cut at {cut:,} playouts{of_l2m} "
        f"({runs} per position): a lower bound"
    )
    claims = [
        Claim(
            SECTION,
            f"{LABEL[key]}: total over the 20 positions",
            f"{paper['totals'][key]:,}",
            what + " of the whole search's total",
            NOT_ENOUGH,
            cmd,
            rules=(CUT_RULE,),
        )
    ]
    if "level2m" not in full:
        return claims
    mean, _, pi = total(full["level2m"])  # pi: one level-2m run's 95% half-width
    sp_mcts = paper["totals"]["sp_mcts"]
    low = bound - pi
    claims.append(
        Claim(
            SECTION,
            f"level 3m beats SP-MCTS's {sp_mcts:,} (total)",
            f"{paper['totals'][key]:,} > {sp_mcts:,}",
            f"{what}; less one run's spread (one level-2m run's, ± {pi:,.0f}): {low:,.0f}",
            AGREES if np.isfinite(low) and low > sp_mcts else NOT_ENOUGH,
            cmd,
            rules=(CUT_RULE,),
        )
    )
    # Two single runs: the cut level-3 total against one level-2m total.
    diff, half = bound - mean, np.sqrt(2.0) * pi
    claims.append(
        Claim(
            SECTION,
            "level 3m beats level 2m (total of one search per position)",
            f"{paper['totals'][key]:,} > {paper['totals']['level2m']:,}",
            f"{what}; minus one level-2m run: {diff:+,.0f} ± {half:,.0f}",
            AGREES if np.isfinite(half) and diff - half > 0 else NOT_ENOUGH,
            cmd,
            rules=(CUT_RULE,),
        )
    )
    return claims
