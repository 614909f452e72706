"""Shared pieces of the analysis: loading results, saving figures and tables, intervals, claims."""

from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402  (PyYAML comes with Hydra)
from scipy import stats  # noqa: E402

from nmcs.harness.summary import markdown_table  # noqa: E402

PAPER_VALUES_DIR = Path(__file__).resolve().parent / "paper_values"


@dataclass
class Claim:
    """One published statement checked against our results."""

    section: str
    claim: str
    paper: str
    ours: str
    verdict: str  # "agrees", "differs", "not run"
    command: str


@dataclass
class Context:
    """Where one scale's results are read and its figures and tables written."""

    outputs: Path
    scale: str

    @property
    def figures(self):
        return self.outputs / "figures" / self.scale

    @property
    def tables(self):
        return self.outputs / "tables" / self.scale

    def results(self, experiment):
        """All searches of an experiment at this scale (empty if it was not run)."""
        folder = self.outputs / self.scale / experiment
        paths = sorted(folder.glob("*/results.parquet"))
        if not paths:
            return pd.DataFrame()
        return pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)


def paper_values(name):
    return yaml.safe_load((PAPER_VALUES_DIR / f"{name}.yaml").read_text())


def save_figure(fig, folder, stem):
    folder.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        fig.savefig(folder / f"{stem}.{ext}", dpi=150, bbox_inches="tight")
    plt.close(fig)


def save_table(df, folder, stem):
    folder.mkdir(parents=True, exist_ok=True)
    df.to_csv(folder / f"{stem}.csv", index=False)
    (folder / f"{stem}.md").write_text(markdown_table(df))


def wilson(successes, n, confidence=0.95):
    """Wilson score interval of a proportion."""
    if n == 0:
        return float("nan"), float("nan")
    z = stats.norm.ppf(0.5 + confidence / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def welch_diff(a, b, confidence=0.95):
    """mean(a) - mean(b) and its Welch confidence interval."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diff = a.mean() - b.mean()
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    se = np.sqrt(va + vb)
    if se == 0:
        return diff, diff, diff
    dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = stats.t.ppf(0.5 + confidence / 2, dof) * se
    return diff, diff - half, diff + half


def verdict_interval(low, high, target_low, target_high):
    """'agrees' when [low, high] meets the paper's value range [target_low, target_high]."""
    return "agrees" if low <= target_high and high >= target_low else "differs"
