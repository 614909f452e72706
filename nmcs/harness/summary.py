"""Summaries of result tables: mean score with a 95% confidence interval per cell."""

import numpy as np
import pandas as pd
from scipy import stats

CELL_KEYS = (
    "experiment",
    "game",
    "instance",
    "algo",
    "algo_options",
    "level",
    "memorize",
    "budget_seconds",
    "budget_playouts",
)


def mean_ci(values, confidence=0.95):
    """Mean and half-width of its Student-t confidence interval (0 for a single value)."""
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return mean, 0.0
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * values.std(ddof=1) / np.sqrt(n)
    return mean, float(half)


def summarize(results):
    """One row per cell: n, mean score +- 95% CI, best, mean playouts and seconds."""
    keys = [k for k in CELL_KEYS if k in results.columns]
    out = []
    for cell, group in results.groupby(keys, sort=True, dropna=False):
        mean, half = mean_ci(group["score"])
        out.append(
            {
                **dict(zip(keys, cell, strict=True)),
                "n": len(group),
                "mean_score": mean,
                "ci95": half,
                "best_score": int(group["score"].max()),
                "mean_playouts": float(group["playouts"].mean()),
                "mean_seconds": float(group["seconds"].mean()),
            }
        )
    return pd.DataFrame(out)


def markdown_table(df, digits=4):
    """A GitHub Markdown table of ``df`` (floats with ``digits`` significant digits)."""

    def fmt(value):
        if isinstance(value, float | np.floating):
            return f"{value:.{digits}g}"
        return str(value)

    lines = [
        "| " + " | ".join(map(str, df.columns)) + " |",
        "|" + "|".join("---" for _ in df.columns) + "|",
    ]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def load_cells(folder):
    """Concatenate the results.parquet files found below ``folder``."""
    from pathlib import Path

    paths = sorted(Path(folder).rglob("results.parquet"))
    if not paths:
        return pd.DataFrame()
    return pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
