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

from analysis.pairing import SEED, mean_combination, restore_search_seeds  # noqa: E402
from analysis.publish import cell_metas  # noqa: E402
from nmcs.harness.results import experiment_results  # noqa: E402
from nmcs.harness.summary import markdown_table  # noqa: E402

PAPER_VALUES_DIR = Path(__file__).resolve().parent / "paper_values"
# The kinds of statement (``Claim.kind``): decided on our searches, or a paper's value against
# an exact one.
DATA, EXACT = "data", "paper vs exact"


@dataclass
class Claim:
    """One published statement checked against our results."""

    section: str
    claim: str
    paper: str
    ours: str
    verdict: str  # "agrees", "differs", "not run", ... (a Verdict where it carries a p-value)
    command: str
    # The (experiment, cell) pairs whose searches the claim reads (``cells_read``): a reduced
    # run is said beside the claim only if it is among them. None: every experiment that its
    # command names.
    reads: frozenset[tuple[str, str]] | None = None
    # Readings of one published statement share its text here; the first reading listed
    # decides the statement's verdict, the others are shown and not counted. None: the claim
    # is a statement of its own.
    statement: str | None = None
    # DATA: decided on our searches. EXACT ("paper vs exact"): the paper's value against an
    # exact one (nmcs.theory), which no run of ours can change: counted apart, and outside
    # the line on chance and Holm's family.
    kind: str = DATA
    # The cut-offs, minimum sample sizes and distributional assumptions that decide this
    # verdict, in words: the report prints them under the section's heading.
    rules: tuple[str, ...] = ()
    # One fingerprint per cell read (``analysis.statements``), set by the analysis: two claims
    # over the same searches that state the same paper value are one statement.
    data: frozenset[str] | None = None


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

    def results(self, experiment, columns=None, counted=False):
        """All searches of an experiment at this scale, each once (empty if it was not run);
        only ``columns`` (and the identity columns) where given: a published left-move
        experiment expands to millions of rows, and every column costs its copy. ``counted``:
        rows published as counts are kept as they are, each with the number of searches it
        stands for in ``count`` (1 for every other row), for an analysis that only counts."""
        folder = self.results_dir / experiment
        df = experiment_results(folder, columns, counted) if folder.is_dir() else pd.DataFrame()
        if self.published is not None and (columns is None or SEED in columns):
            # The published copy dropped each search's seed: put back, so that cells run on
            # common seeds pair as the cells they were copied from.
            df = restore_search_seeds(df, cell_metas(folder))
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
            firsts = first_rows(df, ["experiment", "cell"])
            pairs.update(zip(firsts["experiment"], firsts["cell"], strict=True))
    return frozenset(pairs)


def first_rows(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The rows of ``df`` whose values in ``columns`` differ from the row before: each distinct
    combination of those values at least once. A cell's rows come together (its file, its
    counts expanded), so this is a row or two per cell where a row per search made a Python
    tuple each (12 million of them for the published left-move cells)."""
    changed = np.zeros(len(df), bool)
    changed[:1] = True
    for column in columns:
        values = df[column].to_numpy()
        changed[1:] |= values[1:] != values[:-1]
    return df[changed]


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


FIGURE_DPI = 150


def save_figure(fig: Any, folder: Path, stem: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    # The tight bounding box, found once for both files at the PNG's resolution (savefig's
    # bbox_inches="tight" draws the figure once more for each file to find it: a quarter of
    # the time saving took).
    fig.set_dpi(FIGURE_DPI)
    fig.draw_without_rendering()
    box = fig.get_tightbbox().padded(plt.rcParams["savefig.pad_inches"])
    for ext in ("png", "pdf"):
        # No creation date in the PDF: the same figure gives the same bytes, so publishing a
        # report whose results did not change leaves its figures untouched.
        metadata = {"CreationDate": None} if ext == "pdf" else None
        fig.savefig(folder / f"{stem}.{ext}", dpi=FIGURE_DPI, bbox_inches=box, metadata=metadata)
    plt.close(fig)


# Significant digits of the floats a table's CSV holds: the same results give the same bytes
# (a value computed in another order can differ in its last bit, e.g. an exact-theory table
# built for another depth first), so publishing again changes no committed table.
CSV_DIGITS = 12


def plot_by_level(
    ax: Any, table: pd.DataFrame, x: str, y: str, nan_bars_as_zero: bool = False
) -> None:
    """One line of ``y`` against ``x`` per level of ``table``, with its ``ci95`` half-widths as
    error bars (``nan_bars_as_zero``: a point of one search, whose half-width is NaN, drawn
    without a bar rather than left out)."""
    for level, line in table.groupby("level"):
        bars = np.nan_to_num(line["ci95"]) if nan_bars_as_zero else line["ci95"]
        ax.errorbar(line[x], line[y], yerr=bars, fmt="-o", ms=3, capsize=2, label=f"level {level}")


def save_table(df: pd.DataFrame, folder: Path, stem: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    df.to_csv(folder / f"{stem}.csv", index=False, float_format=f"%.{CSV_DIGITS}g")
    (folder / f"{stem}.md").write_text(markdown_table(df))


def wilson(successes: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may count a draw as half)."""
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


def paired_diff(a: pd.DataFrame, b: pd.DataFrame, column: str = "score") -> tuple[float, ...]:
    """mean(a) - mean(b) of ``column`` and its 95% interval, and whether it was paired: cells
    run on common random numbers (the same ``search_seed`` for each search index in both) are
    paired search by search, which their correlation calls for and which gains power;
    independent cells get Welch's interval (``analysis.pairing.mean_combination``)."""
    c = mean_combination([(1.0, a), (-1.0, b)], column)
    return c.value, c.low, c.high, c.paired


AGREES, DIFFERS, NOT_ENOUGH, NOT_RUN = "agrees", "differs", "not enough data", "not run"
# Our interval misses the paper's value widened by its rounding, but meets it widened by a
# reading tolerance (a value read off a plot, or worded "about"), stated with its reason in
# analysis/paper_values.
AGREES_READING = "agrees within reading tolerance"
DECIDED = (AGREES, AGREES_READING, DIFFERS)
# A record row: a best-of result (a best game, a total of best games) set beside the
# literature's, with what it cost. It is no statistical test: it carries no p-value and is not
# counted among the decidable statements.
REACHED, NOT_REACHED = "reached", "not reached"


class Verdict(str):
    """A verdict word that carries the two-sided p-value of the test that decided it (None
    where no single test did), which the report adjusts for multiplicity (Holm). It compares
    and prints as its word."""

    p: float | None

    def __new__(cls, word: str, p: float | None = None) -> "Verdict":
        verdict = super().__new__(cls, word)
        verdict.p = None if p is None else float(min(max(p, 0.0), 1.0))
        return verdict


def p_value(verdict: str) -> float | None:
    """The p-value a verdict carries (None for a plain word)."""
    return getattr(verdict, "p", None)


def interval_p(low: float, high: float, target_low: float, target_high: float) -> float:
    """Two-sided p-value that the quantity of our 95% interval [low, high] lies in [target_low,
    target_high], from the normal law the interval implies (its centre, its half-width / 1.96);
    0 or 1 for an exact value (low == high)."""
    centre, se = (low + high) / 2, (high - low) / (2 * 1.959964)
    gap = max(target_low - centre, centre - target_high, 0.0)
    if se <= 0:
        return 0.0 if gap > 0 else 1.0
    return float(2 * stats.norm.sf(gap / se))


def rounding(value: float) -> float:
    """Half a unit of the last decimal a paper value is written with (0.5 for 3, 0.05 for
    0.7): the paper's own rounding."""
    text = repr(value)
    decimals = len(text.split(".")[1]) if "." in text and not text.endswith(".0") else 0
    return 0.5 * 10.0**-decimals


# A distribution-free 95% prediction interval of one run needs at least this many runs.
MIN_PREDICTION_RUNS = 39


def verdict_interval(
    low: float,
    high: float,
    target_low: float,
    target_high: float,
    reading: float | None = None,
) -> str:
    """Our 95% interval [low, high] of a quantity against the paper's range [target_low,
    target_high] (its value widened by its rounding, or by the claim's stated tolerance);
    ``reading``: a looser tolerance either way (a value read off a plot, its reason in
    ``paper_values``).

    'not enough data' when ours is wider than the widest range allowed: no outcome could then
    tell agreement from a difference of the size the claim allows. Otherwise 'agrees' when ours
    meets the paper's range, 'agrees within reading tolerance' when it meets only the range
    widened by ``reading``, and 'differs' (with its p-value) when it meets neither."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return NOT_ENOUGH
    wide_low, wide_high = target_low, target_high
    if reading is not None:
        centre = (target_low + target_high) / 2
        wide_low, wide_high = min(target_low, centre - reading), max(target_high, centre + reading)
    if high - low > (wide_high - wide_low) * (1 + 1e-9):
        return NOT_ENOUGH
    if low <= target_high and high >= target_low:
        return AGREES
    if low <= wide_high and high >= wide_low:
        return Verdict(AGREES_READING, interval_p(low, high, target_low, target_high))
    return Verdict(DIFFERS, interval_p(low, high, wide_low, wide_high))


def verdict_sign(low: float, high: float) -> str:
    """A claim that a quantity is positive ('A beats B', read as A - B > 0), from our 95%
    interval of it: 'agrees' above 0, 'differs' below 0, 'not enough data' when it holds 0."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return NOT_ENOUGH
    if low > 0:
        return AGREES
    return Verdict(DIFFERS, interval_p(low, high, 0.0, np.inf)) if high < 0 else NOT_ENOUGH


def verdict_p(agrees: bool, p: float) -> str:
    """'agrees', or 'differs' carrying the p-value of the test that rejected the claim."""
    return AGREES if agrees else Verdict(DIFFERS, p)


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
    v = np.asarray(values, float)
    # The rank p-value of one more run at the paper's value among ours.
    tail = min((v >= paper_value).sum(), (v <= paper_value).sum()) + 1
    return verdict_p(bool(low <= paper_value <= high), 2 * tail / (v.size + 1))
