"""SameGame NRPA's playout rule at equal time (experiment samegame_nrpa_policy): on each of
positions 0-2, level-2 NRPA (N = 100) searches restarted until ``budget.seconds`` are spent,
with the tabu rule of the SameGame NRPA literature (``game.policy=tabu``) against playouts that
list every group (``game.policy=random``).

The statement, one per position: the tabu rule scores higher than every group at equal time.
Its test: Welch's 95% interval of mean(tabu) - mean(random) over independent cells (``seeds=cell``),
with a tolerance of 0 points (above 0: 'agrees'; below: 'differs', with its p-value; holding 0:
'not enough data'), and at least ``MIN_SEARCHES`` searches a side (fewer: 'not enough data').
Both are printed in the row; so are the mean CPU seconds a search of each side, which show how
equal the time was.
"""

from __future__ import annotations

import pandas as pd

from analysis.common import (
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    Context,
    cells_read,
    rerun_command,
    save_table,
    verdict_sign,
    welch_diff,
)

SECTION = "SameGame NRPA: the tabu playout rule against every group, at equal time"
EXPERIMENT = "samegame_nrpa_policy"
POSITIONS = (0, 1, 2)
MIN_SEARCHES = 30  # a side
TOLERANCE = 0.0  # points: tabu - random must be above this
TREATMENT, CONTROL = "tabu", "random"


def load(ctx: Context) -> pd.DataFrame:
    df = ctx.results(EXPERIMENT)
    if df.empty:
        return df
    df = df[(df["game"] == "samegame") & (df["algo"] == "nrpa")]
    instance = pd.to_numeric(df["instance"], errors="coerce")
    return df.assign(instance=instance)[instance.notna()].astype({"instance": int})


def cells(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, n and CPU seconds of each (position, level, budget, policy)."""
    keys = ["instance", "level", "budget_seconds", "policy"]
    cpu = df["cpu_seconds"] if "cpu_seconds" in df.columns else pd.Series(float("nan"), df.index)
    return (
        df.assign(cpu_seconds=cpu)
        .groupby(keys, dropna=False)
        .agg(
            searches=("score", "size"),
            mean=("score", "mean"),
            sd=("score", "std"),
            best=("score", "max"),
            cpu_seconds=("cpu_seconds", "mean"),
            playouts=("playouts", "mean"),
        )
        .reset_index()
    )


def policy_claim(instance: int, tabu: pd.DataFrame, every: pd.DataFrame, command: str) -> Claim:
    """The claim of one position, from its tabu and random searches at one level and budget."""
    level = int(pd.concat([tabu, every])["level"].max()) if len(tabu) + len(every) else 2
    budget = pd.concat([tabu, every])["budget_seconds"].dropna().unique()
    at = f"{budget[0]:g} s a search" if len(budget) == 1 else "equal time"
    statement = (
        f"position {instance}: level-{level} NRPA with the tabu rule scores higher than with every "
        f"group, at {at}"
    )
    paper = "the SameGame NRPA literature plays its playouts under the tabu rule"
    if tabu.empty or every.empty:
        missing = " or ".join(p for p, rows in ((TREATMENT, tabu), (CONTROL, every)) if rows.empty)
        return Claim(SECTION, statement, paper, f"no {missing} searches", NOT_RUN, command)
    diff, low, high = welch_diff(tabu["score"], every["score"])
    n_t, n_r = len(tabu), len(every)

    def cpu(rows: pd.DataFrame) -> str:
        if "cpu_seconds" not in rows or rows["cpu_seconds"].isna().any():
            return "not recorded"
        return f"{rows['cpu_seconds'].mean():.2f}"

    ours = (
        f"tabu {tabu['score'].mean():,.0f}, every group {every['score'].mean():,.0f}: "
        f"{diff:+,.0f} [{low:+,.0f}, {high:+,.0f}] (Welch 95%; tolerance {TOLERANCE:g} points; "
        f"n = {n_t}, {n_r}, at least {MIN_SEARCHES} a side; CPU s a search {cpu(tabu)}, "
        f"{cpu(every)})"
    )
    if min(n_t, n_r) < MIN_SEARCHES:
        verdict: str = NOT_ENOUGH
    else:
        verdict = verdict_sign(low - TOLERANCE, high - TOLERANCE)
    reads = cells_read(tabu, every)
    return Claim(SECTION, statement, paper, ours, verdict, command, reads=reads)


def analyze(ctx: Context) -> list[Claim]:
    df = load(ctx)
    if df.empty:
        return []
    save_table(cells(df), ctx.tables, "samegame_nrpa_policy")
    command = rerun_command(ctx.scale, EXPERIMENT)
    claims = []
    for instance in POSITIONS:
        rows = df[df["instance"] == instance]
        # One comparison per position: the level and budget with the most searches.
        if len(rows):
            keys = ["level", "budget_seconds"]
            top = rows.groupby(keys, dropna=False).size().idxmax()
            same = (rows["level"] == top[0]) & (
                rows["budget_seconds"].isna()
                if pd.isna(top[1])
                else rows["budget_seconds"] == top[1]
            )
            rows = rows[same]
        tabu = rows[rows["policy"] == TREATMENT]
        every = rows[rows["policy"] == CONTROL]
        claims.append(policy_claim(instance, tabu, every, command))
    return claims
