"""NRPA and GNRPA (docs/nrpa.md): scores by level (experiments nrpa_levels,
nrpa_levels_samegame, nrpa_levels_leftmove) and the algorithms at equal playout budgets with
anytime curves and 95% bands (algorithms_equal_playouts and its beam sibling).

The claims are Rosin's (IJCAI 2011): NRPA scores higher than memorized NMCS at the same cost.
On SameGame each statement is judged on NRPA with the game's playout rule (``game.policy=tabu``,
the tabu colour rule of the SameGame NRPA literature); NRPA with uniform playouts (every group,
``game.policy=random``: every SameGame NRPA cell run by code without policy steps) is
shown as a second reading, not counted. The published records (Morpion 5D 82, 5T 177; SameGame
totals) are listed in analysis/paper_values/nrpa.yaml but need level-5 searches and days of
CPU: no claim at our scales.
"""

import textwrap
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    Context,
    cells_read,
    paired_diff,
    paper_values,
    rerun_command,
    save_figure,
    save_table,
    verdict_sign,
)
from analysis.leftmove import score_at

SECTION_LEVELS = "NRPA by level (Rosin 2011)"
SECTION_EQUAL = "Algorithms at equal playouts (NMCS, beam, NRPA, GNRPA, UCT)"
LEVEL_EXPERIMENTS = ("nrpa_levels", "nrpa_levels_samegame", "nrpa_levels_leftmove")
EQUAL = ("algorithms_equal_playouts", "algorithms_equal_playouts_beam")
SECTION_VS_NMCS = "NRPA against memorized NMCS at equal cost (Rosin 2011)"
# NRPA's cells, NMCS's at equal playouts, NMCS's at equal time (one experiment per game:
# <name>_<game>, its budgets NRPA's mean seconds on that game).
VS_NMCS = ("nrpa_vs_nmcs", "nrpa_vs_nmcs_playouts", "nrpa_vs_nmcs_time")
GAMES_VS_NMCS = {"morpion": "Morpion 5D", "samegame": "SameGame (position 0)"}
# Level 3 and 4 on Morpion 5D (about 1 and 13 minutes a search here) and NMCS at their
# playouts: read with the above when they were run.
DEEP = ("nrpa_vs_nmcs_deep", "nrpa_vs_nmcs_deep_nmcs")
# Searches per side below which a comparison gives no verdict.
MIN_VS_NMCS = 30
# Equal time: NMCS's searches stop after the playout that crosses their budget; a cell that
# ran longer than this factor of NRPA's time is not at equal time.
TIME_FACTOR = 1.5
VS_NMCS_RULES = (
    "NRPA against NMCS: 'agrees' when the 95% interval of NRPA's mean minus NMCS's lies above "
    "0, 'differs' when below (paired by search where the cells share seeds, else Welch's); "
    f"no verdict below {MIN_VS_NMCS} searches a side",
    f"at equal time: no verdict where NMCS's searches ran more than {TIME_FACTOR} times NRPA's "
    "mean time",
)
LABELS = {
    "iterative": "NMCS (memorized, iterative)",
    "iterative_beam": "beam search (16)",
    "nrpa": "NRPA",
    "gnrpa": "GNRPA",
    "uct": "UCT",
}
# NRPA's playouts on SameGame, by ``game.policy`` (docs/nrpa.md, "Playout rule"): the first
# listed decides a statement, the others are further readings of it.
POLICY_LABELS = {"tabu": "tabu-colour playouts", "random": "uniform playouts (every group)"}
DECIDING_POLICY = "tabu"
POLICY_NOTES = {
    "tabu": "NMCS plays TabuColorRandom playouts; NRPA's follow the tabu colour rule of the "
    "SameGame NRPA literature",
    "random": "NMCS plays TabuColorRandom playouts; NRPA's choose among every group",
}


# The games whose NRPA and GNRPA playouts follow ``game.policy`` (the games with policy steps of
# their own, ``policy_moves``): elsewhere a ``policy`` option is the other searches' only.
POLICY_GAMES = ("samegame",)


def nrpa_policy(df: pd.DataFrame) -> pd.Series:
    """The playout policy of each NRPA or GNRPA row of a game whose NRPA follows it (SameGame's
    ``policy`` column), "" elsewhere."""
    if "policy" not in df.columns:
        return pd.Series("", df.index)
    policy = df["policy"].astype(object).where(df["policy"].notna(), "")
    mine = df["algo"].isin(("nrpa", "gnrpa")) & df["game"].isin(POLICY_GAMES)
    return policy.where(mine, "").astype(str)


def with_policy(label: str, policy: str) -> str:
    """``label`` with NRPA's playout policy said, where it has one."""
    return f"{label} ({POLICY_LABELS.get(policy, policy)})" if policy else label


def mean_ci(values: Any) -> tuple[float, float]:
    """Mean and the half-width of its 95% Student-t interval (0 for one value)."""
    v = np.asarray(values, float)
    if v.size < 2:
        return float(v.mean()), 0.0
    return float(v.mean()), float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))


def _series(df: pd.DataFrame, experiment: str) -> pd.Series:
    """The label of each row's curve in the level figure: the Morpion variant, SameGame (with
    NRPA's playout policy), or the left move."""
    if experiment == "nrpa_levels":
        return "Morpion " + df["game_options"].str.extract(r"variant=(\w+)")[0]
    if "samegame" in experiment:
        policy = df["policy"].astype(str) if "policy" in df.columns else pd.Series("", df.index)
        return "SameGame (total, " + policy.map(lambda p: POLICY_LABELS.get(p, p)) + ")"
    return pd.Series("left move", df.index)


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
    table, frames = level_table(ctx)
    if table.empty:
        return []
    save_table(table, ctx.tables, "nrpa_levels")
    groups = list(table.groupby("series"))
    fig, axes = plt.subplots(1, len(groups), figsize=(4 * len(groups), 3.6), squeeze=False)
    for ax, (series, part) in zip(axes[0], groups, strict=True):
        ax.errorbar(part["level"], part["mean"], yerr=part["ci95"], fmt="-o", capsize=3)
        ax.set_title(textwrap.fill(str(series), 28), fontsize=10)
        ax.set_xlabel("NRPA level (N = 100)")
        ax.set_xticks(part["level"])
    axes[0][0].set_ylabel("mean score (95% CI)")
    fig.suptitle("NRPA scores by level", y=1.06)
    save_figure(fig, ctx.figures, "nrpa_levels")
    # Descriptive only: levels 100 times apart in playouts make "a higher level scores higher"
    # a claim that cannot fail; the claims compare NRPA with NMCS at equal cost
    # (analyze_vs_nmcs).
    return []


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
    frames = [ctx.results(e) for e in EQUAL]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return []
    df = pd.concat(frames, ignore_index=True)
    df = df.assign(nrpa_policy=nrpa_policy(df))
    rows, games = [], sorted(df["game"].unique())
    # One colour per algorithm in every panel; NRPA's other playout policies dotted in it.
    colours = {algo: f"C{i}" for i, algo in enumerate(sorted(df["algo"].unique()))}
    fig, axes = plt.subplots(1, len(games), figsize=(4.5 * len(games), 3.8), squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        by = df[df["game"] == game].groupby(["algo", "nrpa_policy"])
        for (algo, policy), group in sorted(by, key=lambda g: (g[0][0], _policy_rank(g[0][1]))):
            grid, matrix = anytime(group)
            means: list[float] = []
            halves: list[float] = []
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
                    {"game": game, "algo": algo, "nrpa_policy": policy, "playouts": int(x),
                     "n": len(col), "mean": m, "ci95": h}
                )  # fmt: skip
            mean_arr, half_arr = np.array(means), np.array(halves)
            style = "--x" if algo == "gnrpa" else "-o"  # GNRPA at tau = 1 lies on NRPA
            if policy and policy != DECIDING_POLICY:
                style = ":" + style[-1]
            label = with_policy(LABELS.get(algo, algo), policy)
            ax.plot(grid, mean_arr, style, ms=4, label=label, color=colours[algo])
            band = (mean_arr - half_arr, mean_arr + half_arr)
            ax.fill_between(grid, *band, alpha=0.2, color=colours[algo])
        ax.set_xscale("log", base=2)
        ax.set_xlabel("playouts")
        ax.set_title(game)
    axes[0][0].set_ylabel("best score so far (mean, 95% band)")
    axes[0][-1].legend(fontsize=7)
    fig.suptitle("Equal playout budgets (a curve starts once every search has a game)")
    save_figure(fig, ctx.figures, "algorithms_equal_playouts")
    table = pd.DataFrame(rows)
    save_table(table, ctx.tables, "algorithms_equal_playouts")
    # Curves only: NRPA against NMCS is judged at n >= 30 per budget (analyze_vs_nmcs); GNRPA
    # at tau = 1 is NRPA by construction (the same kernel), a test, not a claim.
    return []


def _policy_rank(policy: str) -> tuple[int, str]:
    """The order of NRPA's playout policies: the deciding one first, then as listed."""
    order = [DECIDING_POLICY, *POLICY_LABELS]
    return (order.index(policy) if policy in order else len(order), policy)


def vs_nmcs_table(ctx: Context) -> pd.DataFrame:
    """One row per (game, NRPA's playout policy, cost basis, NRPA budget): NRPA's cell against
    memorized NMCS's at the same playouts (``budget_playouts`` = N**level) or the same time
    (``budget_seconds`` nearest NRPA's mean seconds, within a factor of 1.5), the difference of
    their means with its 95% interval (paired where the two cells share their random numbers)."""
    nrpa = pd.concat([ctx.results(e) for e in (VS_NMCS[0], *DEEP)], ignore_index=True)
    if nrpa.empty:
        return pd.DataFrame()
    nrpa = nrpa.assign(nrpa_policy=nrpa_policy(nrpa))
    games = sorted(set(nrpa["game"]))
    nmcs = {e: ctx.results(e) for e in (VS_NMCS[1], *(f"{VS_NMCS[2]}_{g}" for g in games))}
    deep = ctx.results(DEEP[1])
    if len(deep):
        nmcs[VS_NMCS[1]] = pd.concat([nmcs[VS_NMCS[1]], deep], ignore_index=True)
    rows = []
    keys = ["game", "nrpa_policy", "level", "algo_iterations"]
    for (game, policy, level, iterations), a in nrpa.groupby(keys):
        playouts = int(iterations) ** int(level)
        seconds = float(a["seconds"].mean())
        for basis, experiment in (("playouts", VS_NMCS[1]), ("time", f"{VS_NMCS[2]}_{game}")):
            b = nmcs.get(experiment, pd.DataFrame())
            if len(b):
                b = b[b["game"] == game]
            if len(b) and basis == "playouts":
                b = b[b["budget_playouts"] == playouts]
            elif len(b):
                ratio = np.abs(np.log(b["budget_seconds"].astype(float) / seconds))
                b = b[ratio == ratio.min()] if ratio.min() <= np.log(1.5) else b.iloc[:0]
            row = {
                "game": game,
                "nrpa_policy": policy,
                "basis": basis,
                "nrpa_level": int(level),
                "nrpa_iterations": int(iterations),
                "playouts": playouts,
                "nrpa_seconds": seconds,
                "n_nrpa": len(a),
                "nrpa_mean": float(a["score"].mean()),
                "n_nmcs": len(b),
                "experiment": experiment,
                "reads": cells_read(a, b),
            }
            if len(b) > 1 and len(a) > 1:
                diff, low, high, paired = paired_diff(a, b)
                row.update(
                    nmcs_level=int(b["level"].iloc[0]),
                    nmcs_budget=float(b["budget_seconds"].iloc[0])
                    if basis == "time"
                    else int(b["budget_playouts"].iloc[0]),
                    nmcs_mean=float(b["score"].mean()),
                    nmcs_seconds=float(b["seconds"].mean()),
                    diff=diff,
                    ci95_low=low,
                    ci95_high=high,
                    paired=paired,
                )
            rows.append(row)
    return pd.DataFrame(rows)


def analyze_vs_nmcs(ctx: Context) -> list[Claim]:
    """Rosin's claim, quantitative: NRPA's mean score minus memorized NMCS's at the same
    playouts and at the same time, at each NRPA budget, n >= MIN_VS_NMCS searches each."""
    paper = paper_values("nrpa")["vs_nmcs"]
    cmd = rerun_command(ctx.scale, *VS_NMCS[:2], *(f"{VS_NMCS[2]}_{g}" for g in GAMES_VS_NMCS))
    table = vs_nmcs_table(ctx)
    if table.empty:
        return [Claim(SECTION_VS_NMCS, paper["claim"], paper["paper"], "-", NOT_RUN, cmd)]
    save_table(table.drop(columns=["reads"]), ctx.tables, "nrpa_vs_nmcs")
    _vs_nmcs_figure(table, ctx)
    claims = []
    for r in table.itertuples():
        here = cmd
        if r.nrpa_policy and r.nrpa_policy != DECIDING_POLICY:
            # NRPA's cells of another playout policy than the default: their own command.
            extra = {VS_NMCS[0]: f"game={r.game} game.policy={r.nrpa_policy}"}
            here = rerun_command(ctx.scale, VS_NMCS[0], extra=extra)
        claims.append(_vs_nmcs_claim(r, paper, here))
    return _readings(table, claims, paper, cmd)


def _claim_text(r: Any, policy: str | None = None, seconds: float | None = None) -> str:
    """The claim of one comparison (``r``: a row of ``vs_nmcs_table`` or its key), naming
    NRPA's playout policy where it has one and its time where the cost is time; with neither,
    the statement its policies' readings share."""
    name = GAMES_VS_NMCS.get(str(r.game), str(r.game))
    cost = f"{r.playouts:,} playouts"
    if r.basis == "time":
        cost = f"the time of {cost.replace('playouts', 'NRPA playouts')}"
        cost += f" ({seconds:.3g} s)" if seconds is not None else ""
    said = f", {POLICY_LABELS.get(policy, policy)}" if policy else ""
    return (
        f"{name}, at {cost}: NRPA (level {r.nrpa_level}, N = {r.nrpa_iterations}{said}) scores "
        "higher than memorized NMCS"
    )


def _vs_nmcs_claim(r: Any, paper: dict, cmd: str) -> Claim:
    """One row of the comparison table as a claim; on a game where NRPA's playouts have a
    policy, it says which, and is a reading of the statement it shares with the others'."""
    claim = _claim_text(r, r.nrpa_policy, r.nrpa_seconds)
    statement = _claim_text(r) if r.nrpa_policy else None
    if r.n_nmcs < 2 or not np.isfinite(getattr(r, "diff", np.nan)):
        return Claim(SECTION_VS_NMCS, claim, paper["paper"], "-", NOT_RUN, cmd, r.reads, statement)
    n = min(r.n_nrpa, r.n_nmcs)
    budget = (
        f"{int(r.nmcs_budget):,} playouts"
        if r.basis == "playouts"
        # A search stops after the playout that crosses its budget: its mean time shown.
        else f"{r.nmcs_budget:.3g} s, used {r.nmcs_seconds:.3g} s"
    )
    ours = (
        f"{r.diff:+.2f} [{r.ci95_low:+.2f}, {r.ci95_high:+.2f}]: NRPA {r.nrpa_mean:.2f}, "
        f"NMCS level {int(r.nmcs_level)} ({budget}) {r.nmcs_mean:.2f}; n = {r.n_nrpa}, "
        f"{r.n_nmcs} ({'paired' if r.paired else 'independent cells, Welch'})"
    )
    if r.nrpa_policy in POLICY_NOTES:
        # What each side's playouts choose from, where it bears on the verdict.
        ours += f"; {POLICY_NOTES[r.nrpa_policy]}"
    verdict = verdict_sign(r.ci95_low, r.ci95_high)
    if n < MIN_VS_NMCS:
        # The rule decides here: said in the row, with what the interval alone would say.
        ours += (
            f"; fewer than {MIN_VS_NMCS} searches a side: no verdict (the interval alone: "
            f"{verdict})"
        )
        verdict = NOT_ENOUGH
    if r.basis == "time" and r.nmcs_seconds > TIME_FACTOR * r.nrpa_seconds:
        # The budget was equal, the time was not: NMCS's last playout ran past it.
        ours += f"; NMCS ran more than {TIME_FACTOR} times NRPA's time: no verdict"
        verdict = NOT_ENOUGH
    return Claim(
        SECTION_VS_NMCS,
        claim,
        paper["paper"],
        ours,
        verdict,
        cmd,
        r.reads,
        statement,
        rules=VS_NMCS_RULES,
    )


def _readings(table: pd.DataFrame, claims: list[Claim], paper: dict, cmd: str) -> list[Claim]:
    """The claims with each statement's readings together, the deciding policy's first; a
    statement whose NRPA has a playout policy but no cell of the deciding one gets a 'not run'
    reading of that policy, which decides it."""
    ordered: list[Claim] = []
    keys = ["game", "basis", "playouts", "nrpa_level", "nrpa_iterations"]
    rows = table.reset_index(drop=True).assign(claim=range(len(table)))
    rows = rows.assign(rank=rows["nrpa_policy"].map(lambda p: _policy_rank(str(p))[0]))
    for _, group in rows.groupby(keys, sort=False):
        group = group.sort_values("rank", kind="stable")
        first = group.iloc[0]
        if first["nrpa_policy"] and first["nrpa_policy"] != DECIDING_POLICY:
            text = _claim_text(first, DECIDING_POLICY)
            ordered.append(
                Claim(
                    SECTION_VS_NMCS,
                    text,
                    paper["paper"],
                    "-",
                    NOT_RUN,
                    cmd,
                    frozenset(),
                    _claim_text(first),
                )
            )
        ordered += [claims[i] for i in group["claim"]]
    return ordered


def _vs_nmcs_figure(table: pd.DataFrame, ctx: Context) -> None:
    """Mean scores against NRPA's playouts, per game: NRPA, NMCS at its playouts and NMCS at its
    time (one colour each), NRPA's other playout policies than the deciding one dotted."""
    games = sorted(table["game"].unique())
    fig, axes = plt.subplots(1, len(games), figsize=(4.8 * len(games), 3.8), squeeze=False)
    for ax, game in zip(axes[0], games, strict=True):
        mine = table[table["game"] == game]
        policies = sorted(set(mine["nrpa_policy"]), key=_policy_rank)
        for policy in policies:
            dotted = policy not in ("", DECIDING_POLICY)
            said = f" ({POLICY_LABELS.get(policy, policy)})" if policy else ""
            curves = [("nrpa_mean", "playouts", "C0", "o", "NRPA" + said)]
            if not dotted:  # NMCS at NRPA's playouts: the same cells whatever NRPA's policy
                curves.append(
                    ("nmcs_mean", "playouts", "C1", "s", "memorized NMCS, equal playouts")
                )
            time = "memorized NMCS, equal time" + (f" (of NRPA{said})" if policy else "")
            curves.append(("nmcs_mean", "time", "C2", "^", time))
            for column, basis, colour, marker, label in curves:
                line = mine[(mine["nrpa_policy"] == policy) & (mine["basis"] == basis)]
                if column not in line:
                    continue
                line = line.sort_values("playouts")
                style = ":" if dotted else ("--" if basis == "time" else "-")
                ax.plot(
                    line["playouts"], line[column], style, color=colour, marker=marker, label=label
                )
        ax.set_xscale("log")
        ax.set_xlabel("NRPA playouts (N**level)")
        ax.set_title(GAMES_VS_NMCS.get(game, game))
        ax.legend(fontsize=6, loc="upper left")
    axes[0][0].set_ylabel("mean score")
    fig.suptitle("NRPA against memorized NMCS at equal cost")
    save_figure(fig, ctx.figures, "nrpa_vs_nmcs")


def analyze(ctx: Context) -> list[Claim]:
    paper_values("nrpa")  # the sources must parse
    return analyze_levels(ctx) + analyze_equal(ctx) + analyze_vs_nmcs(ctx)
