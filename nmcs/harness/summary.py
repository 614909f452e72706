"""Summaries of result tables: one row per cell, mean score with a 95% confidence interval."""

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmcs.harness.results import all_results

# The columns that describe a cell in a summary, in this order (the cell itself is the `cell`
# column: a hash of its whole identity, so two cells that differ elsewhere never merge).
CELL_KEYS = (
    "experiment",
    "game",
    "game_options",
    "algo",
    "algo_options",
    "level",
    "memorize",
    "memorize_from",
    "stop_at_target",
    "budget_seconds",
    "budget_playouts",
    "seed",
)


def mean_ci(values, confidence: float = 0.95) -> tuple[float, float]:
    """Mean and half-width of its Student-t confidence interval (0 for a single value)."""
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return mean, 0.0
    # The Student-t quantile from scipy.special (what scipy.stats.t.ppf calls): importing
    # scipy.stats took 0.5-0.8 s at the end of every sweep, scipy.special 0.1-0.2 s; imported
    # here, since a run that writes no summary needs neither.
    from scipy.special import stdtrit

    half = stdtrit(n - 1, 0.5 + confidence / 2) * values.std(ddof=1) / np.sqrt(n)
    return mean, float(half)


def pooled_bins(expected, minimum=5.0):
    """Groups of consecutive scores whose expected counts reach ``minimum`` (tails pooled)."""
    groups, current, total = [], [], 0.0
    for s, e in enumerate(expected):
        current.append(s)
        total += e
        if total >= minimum:
            groups.append(current)
            current, total = [], 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    return groups


def summarize(results: pd.DataFrame) -> pd.DataFrame:
    """One row per cell: n, mean score and the half-width of its 95% CI, best, mean playouts
    and seconds. ``results`` must hold each (cell, search) once (``nmcs.harness.results``)."""
    if results.empty:  # no finished cell yet (a first run still going): nothing to summarize
        return pd.DataFrame()
    keys = [k for k in CELL_KEYS if k in results.columns]
    out = []
    for _, group in results.groupby("cell", sort=False):
        mean, half = mean_ci(group["score"])
        first = group.iloc[0]
        out.append(
            {
                **{k: first[k] for k in keys},
                "n": len(group),
                "mean_score": mean,
                "ci95_halfwidth": half,
                "best_score": int(group["score"].max()),
                "mean_playouts": float(group["playouts"].mean()),
                "mean_seconds": float(group["seconds"].mean()),
            }
        )
    table = pd.DataFrame(out)
    return table.sort_values(keys, kind="stable").reset_index(drop=True) if len(table) else table


def _format(value: Any, digits: int) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return "-"  # a budget that was not set, a statistic that does not exist
    if isinstance(value, float | np.floating):
        if float(value).is_integer() and abs(float(value)) < 1e15:
            return str(int(value))
        return f"{value:.{digits}g}"
    return str(value)


def markdown_table(df: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub Markdown table of ``df`` (floats with ``digits`` significant digits, integral
    floats as integers, missing values as '-')."""
    lines = [
        "| " + " | ".join(map(str, df.columns)) + " |",
        "|" + "|".join("---" for _ in df.columns) + "|",
    ]
    lines += [
        "| " + " | ".join(_format(v, digits) for v in row) + " |"
        for row in df.itertuples(index=False)
    ]
    return "\n".join(lines) + "\n"


def write_summary(folder: Path) -> pd.DataFrame:
    """summary.csv and summary.md of one experiment folder (one row per cell)."""
    folder = Path(folder)
    table = summarize(all_results(folder, columns=[*CELL_KEYS, "score", "playouts", "seconds"]))
    if table.empty:
        return table
    table.to_csv(folder / "summary.csv", index=False)
    (folder / "summary.md").write_text(
        f"# {folder.name}: one row per cell\n\n"
        "`mean_score` ± `ci95_halfwidth` is the 95% Student-t confidence interval of the mean "
        "score; `-` marks a budget that was not set.\n\n" + markdown_table(table)
    )
    return table
