"""Shared pieces of the analysis: loading results, saving figures and tables, intervals, claims."""

import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import yaml  # noqa: E402  (PyYAML comes with Hydra)
from scipy import stats  # noqa: E402

from nmcs.harness.results import experiment_results  # noqa: E402
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
    # The (experiment, cell) pairs whose searches the claim reads (``cells_read``): a reduced
    # run is said beside the claim only if it is among them. None: every experiment that its
    # command names.
    reads: frozenset[tuple[str, str]] | None = None


@dataclass
class Context:
    """Where one scale's results are read and its figures and tables written: by default
    ``<outputs>/<scale>/<experiment>/<cell>/`` in, ``<outputs>/figures|tables/<scale>/`` out; for
    a published folder (``python -m analysis --from results/paper``) that folder holds the
    experiments and ``<outputs>/figures|tables/`` receive the figures and tables (``outputs``
    is then ``outputs/published/paper``, or the published folder itself with ``--publish``)."""

    outputs: Path
    scale: str
    published: Path | None = None
    skipped: list[str] = field(default_factory=list)  # what was not analysed, and why

    def skip(self, what: str, why: str) -> None:
        if f"{what}: {why}" not in self.skipped:
            self.skipped.append(f"{what}: {why}")

    @property
    def results_dir(self) -> Path:
        """The folder of this scale's experiment folders."""
        return self.published if self.published else self.outputs / self.scale

    @property
    def figures(self) -> Path:
        return self.outputs / "figures" / ("" if self.published else self.scale)

    @property
    def tables(self) -> Path:
        return self.outputs / "tables" / ("" if self.published else self.scale)

    def results(self, experiment, columns=None):
        """All searches of an experiment at this scale, each once (empty if it was not run);
        only ``columns`` (and the identity columns) where given: a published left-move
        experiment expands to millions of rows, and every column costs its copy."""
        folder = self.results_dir / experiment
        df = experiment_results(folder, columns)
        unfinished = sorted(
            p.parent.name
            for p in folder.glob("*/meta.json")
            if not (p.parent / "results.parquet").exists()
        )
        unfinished += sorted(
            p.parent.name for p in folder.glob("*/chunks") if not (p.parent / "meta.json").exists()
        )
        if unfinished:
            self.skip(
                experiment,
                f"{len(unfinished)} unfinished cell(s) not counted ({', '.join(unfinished[:5])}"
                f"{', ...' if len(unfinished) > 5 else ''}); rerun the experiment to finish them",
            )
        return df


def cells_read(*frames: pd.DataFrame) -> frozenset[tuple[str, str]]:
    """The (experiment, cell) pairs of the searches in ``frames``: what a claim drawn from
    those rows read (``Claim.reads``)."""
    pairs: set[tuple[str, str]] = set()
    for df in frames:
        if len(df) and {"experiment", "cell"} <= set(df.columns):
            pairs.update(zip(df["experiment"], df["cell"], strict=True))
    return frozenset(pairs)


def rerun_command(scale: str, *experiments: str, extra: dict[str, str] | None = None) -> str:
    """The command that reruns ``experiments`` at ``scale`` and rebuilds the report; ``extra``
    adds overrides to an experiment's run (after its ``scale=``, where the report's reduced-run
    note inserts its own)."""
    extra = extra or {}
    runs = " && ".join(
        f"python run.py -m experiment={e} scale={scale}" + (f" {extra[e]}" if e in extra else "")
        for e in experiments
    )
    return f"{runs} && python -m analysis"


def paper_values(name: str) -> dict[str, Any]:
    return yaml.safe_load((PAPER_VALUES_DIR / f"{name}.yaml").read_text())


def caption(fig: Any, text: str, width: int = 95) -> None:
    """A note under a figure's axes, wrapped to the figure's width (a title stays one line)."""
    fig.text(0.01, -0.01, textwrap.fill(text, width), ha="left", va="top", fontsize=8)


def save_figure(fig: Any, folder: Path, stem: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for ext in ("png", "pdf"):
        # No creation date in the PDF: the same figure gives the same bytes, so publishing a
        # report whose results did not change leaves its figures untouched.
        metadata = {"CreationDate": None} if ext == "pdf" else None
        fig.savefig(folder / f"{stem}.{ext}", dpi=150, bbox_inches="tight", metadata=metadata)
    plt.close(fig)


def save_table(df: pd.DataFrame, folder: Path, stem: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    df.to_csv(folder / f"{stem}.csv", index=False)
    (folder / f"{stem}.md").write_text(markdown_table(df))


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion."""
    if n == 0:
        return float("nan"), float("nan")
    z = stats.norm.ppf(0.5 + confidence / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def welch_diff(a: Any, b: Any, confidence: float = 0.95) -> tuple[float, float, float]:
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


AGREES, DIFFERS, NOT_ENOUGH, NOT_RUN = "agrees", "differs", "not enough data", "not run"
# A distribution-free 95% prediction interval of one run needs at least this many runs.
MIN_PREDICTION_RUNS = 39


def verdict_interval(low: float, high: float, target_low: float, target_high: float) -> str:
    """Our 95% interval [low, high] of a quantity against the paper's range [target_low,
    target_high] (its value widened by its rounding, or by the claim's stated tolerance).

    'not enough data' when ours is wider than the paper's range: no outcome could then tell
    agreement from a difference of the size the claim allows. Otherwise 'agrees' when the two
    meet and 'differs' when they do not."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return NOT_ENOUGH
    if high - low > (target_high - target_low) * (1 + 1e-9):
        return NOT_ENOUGH
    return AGREES if low <= target_high and high >= target_low else DIFFERS


def verdict_sign(low: float, high: float) -> str:
    """A claim that a quantity is positive ('A beats B', read as A - B > 0), from our 95%
    interval of it: 'agrees' above 0, 'differs' below 0, 'not enough data' when it holds 0."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return NOT_ENOUGH
    if low > 0:
        return AGREES
    return DIFFERS if high < 0 else NOT_ENOUGH


def prediction_interval(values: Any, coverage: float = 0.95) -> tuple[float, float]:
    """Distribution-free interval that holds ONE new run with probability >= ``coverage``:
    the k-th smallest and k-th largest of n runs cover a new run with probability
    (n + 1 - 2k) / (n + 1). (NaN, NaN) when n is too small for any k >= 1 (n < 39 at 95%)."""
    v = np.sort(np.asarray(values, float))
    k = int(np.floor((1 - coverage) * (v.size + 1) / 2 + 1e-9))
    if k < 1:
        return float("nan"), float("nan")
    return float(v[k - 1]), float(v[v.size - k])


def verdict_single_run(values: Any, paper_value: float) -> str:
    """The paper reports ONE run: could one run of ours have given its value? 'agrees' when
    it lies in our 95% prediction interval of a single run, 'differs' when not, 'not enough
    data' below MIN_PREDICTION_RUNS runs."""
    low, high = prediction_interval(values)
    if not np.isfinite(low):
        return NOT_ENOUGH
    return AGREES if low <= paper_value <= high else DIFFERS
