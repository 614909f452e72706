"""What the Morpion Solitaire 5D claims of both papers share: the rows they read, a mean with its
Student-t interval, and the list of every Morpion experiment (the claims of either paper say
"not run" for a missing cell once any of them ran at a scale). The claims themselves:
``analysis.morpion_nmcs`` (NMCS 2009, Figs 8-10) and ``analysis.morpion_reflexive``
(Reflexive Monte-Carlo Search 2007, Tables 1-5)."""

import numpy as np
from scipy import stats

from analysis.common import Context

# Every Morpion experiment of conf/experiment, of both papers.
NMCS_EXPERIMENTS = (
    "morpion_fig8_fig9_level0",
    "morpion_fig8_fig9",
    "morpion_fig9_level3",
    "morpion_fig10",
)
REFLEXIVE_EXPERIMENTS = (
    "morpion_reflexive_table1",
    "morpion_reflexive_table2",
    "morpion_reflexive_table3",
    "morpion_reflexive_table4_5",
    "morpion_reflexive_uct_c",
)
EXPERIMENTS = (*NMCS_EXPERIMENTS, *REFLEXIVE_EXPERIMENTS)


def any_ran(ctx: Context) -> bool:
    """Whether any Morpion experiment ran at this scale (none at all: no Morpion claims, as
    for the other games)."""
    return any((ctx.results_dir / e).is_dir() for e in EXPERIMENTS)


def morpion_5d(df):
    """Rows of Morpion 5D only (an experiment folder could hold other games if misused)."""
    if df.empty:
        return df
    keep = df["game"] == "morpion"
    if "variant" in df:
        keep &= df["variant"] == "5D"
    return df[keep]


def mean_ci(values):
    v = np.asarray(values, float)
    if v.size < 2:
        return float(v.mean()), float("nan")
    return float(v.mean()), float(stats.t.ppf(0.975, v.size - 1) * v.std(ddof=1) / np.sqrt(v.size))
