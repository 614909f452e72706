"""SameGame NRPA's playout rule at equal time (experiments samegame_nrpa_policy and
samegame_gnrpa_bias): on each of positions 0-2, level-2 searches restarted until
``budget.seconds`` are spent, NRPA (N = 100) with the tabu rule of the SameGame NRPA literature
(``game.policy=tabu``) against NRPA whose playouts list every group (``game.policy=random``) and
against GNRPA whose playouts list every group with a bias against the tabu colour
(``game.policy=bias``).

The statements, per position and per other choice: NRPA with the tabu rule scores higher at
equal time. The test: Welch's 95% interval of mean(tabu) - mean(other) over independent cells
(``seeds=cell``), with a tolerance of 0 points (above 0: 'agrees'; below: 'differs', with its
p-value; holding 0: 'not enough data'), and at least ``MIN_SEARCHES`` searches a side (fewer:
'not enough data'). Both are printed in the row; so are the mean CPU seconds a search of each
side, which show how equal the time was (``budget.seconds`` is the search's clock).
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

SECTION = "SameGame NRPA: the playout rule at equal time (tabu, every group, GNRPA's bias)"
EXPERIMENT = "samegame_nrpa_policy"
BIAS_EXPERIMENT = "samegame_gnrpa_bias"
EXPERIMENTS = (EXPERIMENT, BIAS_EXPERIMENT)
POSITIONS = (0, 1, 2)
MIN_SEARCHES = 30  # a side
TOLERANCE = 0.0  # points: tabu - other must be above this
# The rule that decides this section's verdicts, as the report prints it.
RULE = (
    "the tabu rule against another choice at equal time: Welch's 95% interval of mean(tabu) - "
    f"mean(other) over independent cells (seeds=cell), with a tolerance of {TOLERANCE:g} points: "
    "'agrees' above it, 'differs' with its p-value below it, 'not enough data' when it holds "
    f"it; at least {MIN_SEARCHES} searches a side (else 'not enough data'); at each position "
    "the level and budget with the most searches"
)
# (algorithm, game.policy) -> the choice's name; the first is the one every other is set against.
CHOICES = {("nrpa", "tabu"): "tabu", ("nrpa", "random"): "random", ("gnrpa", "bias"): "bias"}
TREATMENT = "tabu"
# The other choices: the statement's words, their label in a row, their experiment.
AGAINST = {
    "random": ("with every group", "every group", EXPERIMENT),
    "bias": ("GNRPA with its bias against the tabu colour", "GNRPA's bias", BIAS_EXPERIMENT),
}


def load(ctx: Context) -> pd.DataFrame:
    """The searches of both experiments with their ``choice`` (tabu, random, bias)."""
    parts = [ctx.results(e) for e in EXPERIMENTS]
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    df = df[df["game"] == "samegame"]
    choice = pd.Series(
        [CHOICES.get((a, p)) for a, p in zip(df["algo"], df["policy"], strict=True)], df.index
    )
    instance = pd.to_numeric(df["instance"], errors="coerce")
    keep = choice.notna() & instance.notna()
    return df.assign(choice=choice, instance=instance)[keep].astype({"instance": int})


def cells(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, n and CPU seconds of each (position, choice, level, budget)."""
    keys = ["instance", "choice", "algo", "policy", "level", "budget_seconds"]
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


def _cpu(rows: pd.DataFrame) -> str:
    if "cpu_seconds" not in rows or rows["cpu_seconds"].isna().any():
        return "not recorded"
    return f"{rows['cpu_seconds'].mean():.2f}"


def policy_claim(
    instance: int, tabu: pd.DataFrame, other: pd.DataFrame, command: str, against: str = "random"
) -> Claim:
    """The claim of one position: NRPA with the tabu rule against the choice ``against``
    (random: every group; bias: GNRPA's bias), from their searches at one level and budget."""
    both = pd.concat([tabu, other])
    level = int(both["level"].max()) if len(both) else 2
    budget = both["budget_seconds"].dropna().unique() if len(both) else []
    at = f"{budget[0]:g} s a search" if len(budget) == 1 else "equal time"
    words, label, _ = AGAINST[against]
    statement = (
        f"position {instance}: level-{level} NRPA with the tabu rule scores higher than "
        f"{words}, at {at}"
    )
    paper = "the SameGame NRPA literature plays its playouts under the tabu rule"
    if tabu.empty or other.empty:
        missing = " or ".join(c for c, rows in ((TREATMENT, tabu), (against, other)) if rows.empty)
        return Claim(
            SECTION, statement, paper, f"no {missing} searches", NOT_RUN, command, rules=(RULE,)
        )
    diff, low, high = welch_diff(tabu["score"], other["score"])
    n_t, n_o = len(tabu), len(other)
    ours = (
        f"tabu {tabu['score'].mean():,.0f}, {label} {other['score'].mean():,.0f}: "
        f"{diff:+,.0f} [{low:+,.0f}, {high:+,.0f}] (Welch 95%; tolerance {TOLERANCE:g} points; "
        f"n = {n_t}, {n_o}, at least {MIN_SEARCHES} a side; CPU s a search {_cpu(tabu)}, "
        f"{_cpu(other)})"
    )
    if min(n_t, n_o) < MIN_SEARCHES:
        verdict: str = NOT_ENOUGH
    else:
        verdict = verdict_sign(low - TOLERANCE, high - TOLERANCE)
    return Claim(
        SECTION,
        statement,
        paper,
        ours,
        verdict,
        command,
        reads=cells_read(tabu, other),
        rules=(RULE,),
    )


def _one_setting(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the (level, budget) with the most searches: one comparison a position."""
    if rows.empty:
        return rows
    level, budget = rows.groupby(["level", "budget_seconds"], dropna=False).size().idxmax()
    same = rows["budget_seconds"].isna() if pd.isna(budget) else rows["budget_seconds"] == budget
    return rows[(rows["level"] == level) & same]


def analyze(ctx: Context) -> list[Claim]:
    df = load(ctx)
    if df.empty:
        return []
    save_table(cells(df), ctx.tables, "samegame_nrpa_policy")
    ran = set(df["experiment"]) if "experiment" in df.columns else set(EXPERIMENTS)
    claims = []
    for against, (_, _, experiment) in AGAINST.items():
        if experiment not in ran:
            continue  # the report's 'not run' list names it
        command = rerun_command(ctx.scale, *dict.fromkeys((EXPERIMENT, experiment)))
        for instance in POSITIONS:
            rows = _one_setting(
                df[(df["instance"] == instance) & df["choice"].isin([TREATMENT, against])]
            )
            tabu = rows[rows["choice"] == TREATMENT]
            other = rows[rows["choice"] == against]
            claims.append(policy_claim(instance, tabu, other, command, against))
    return claims
