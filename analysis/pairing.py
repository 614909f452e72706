"""Cells that share their random numbers, and the intervals that take it into account.

Search i of a cell run on common seeds (``seeds=common``, every cell published before seed
schemes existed) is seeded from ``SeedSequence([seed, i])``, whatever the cell: search i of two
such cells with the same base seed draws the same random numbers, so the two cells are not
independent samples, and a claim that subtracts or pools them must pair them search by search.
Cells run with ``seeds=cell`` draw their own streams and are independent
(``nmcs.harness.seeding``).

A published copy drops each search's seed (``analysis.publish``); ``restore_search_seeds``
puts it back from the cell's recorded identity, as ``analysis.restore`` does, so a published
cell pairs as the cell it was copied from. A cell published as counts (search index -1) keeps
no index: its searches cannot be paired, and an interval that needs the pairing says so.

``mean_combination`` gives a linear combination of cell means (a difference, an average of
differences) with its 95% interval: the covariance of two cells' means is estimated from their
paired searches where they share seeds, and is zero between independent cells.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from nmcs.harness.seeding import identity_scheme, item_seeds, seed_key

SEED, SCHEME = "search_seed", "seed_scheme"
# Seeds already derived, by (base seed, seed key): every common cell of a published folder
# draws from the same few streams, so each is derived once.
_SEEDS: dict[tuple[int, tuple[int, ...]], np.ndarray] = {}


def _seeds(seed: int, key: tuple[int, ...], indices: np.ndarray) -> np.ndarray:
    """The uint64 seeds of searches ``indices`` (all >= 0) of a cell with base ``seed``."""
    known = _SEEDS.get((seed, key), np.zeros(0, np.uint64))
    top = int(indices.max()) + 1 if indices.size else 0
    if top > known.size:
        known = np.concatenate([known, item_seeds(seed, range(known.size, top), key)])
        _SEEDS[(seed, key)] = known
    return known[indices]


def restore_search_seeds(df: pd.DataFrame, metas: dict[str, dict]) -> pd.DataFrame:
    """Rows of a published folder with each search's seed (``search_seed``, null for rows
    published as counts) and its cell's seed scheme (``seed_scheme``) put back from the
    cells' ``meta.json`` (``metas``: cell folder -> meta); rows as they are where they keep
    their seeds or name no cell."""
    if df.empty or SEED in df.columns or not {"cell", "search"} <= set(df.columns):
        return df
    by_cell = {m["cell"]: m for m in metas.values() if m.get("cell") and m.get("identity")}
    cells = df["cell"].to_numpy()
    search = df["search"].to_numpy()
    seeds, missing = np.zeros(len(df), np.uint64), np.ones(len(df), bool)
    # Rows published as counts have no index: their seeds stay null, and none is derived.
    indexed = np.flatnonzero(search >= 0)
    for cell, at in pd.Series(indexed).groupby(cells[indexed], sort=False).groups.items():
        meta = by_cell.get(cell)
        if meta is None:
            continue
        rows = indexed[np.asarray(at)]
        identity = meta["identity"]
        seed = int((meta.get("config") or identity).get("seed", 0))
        seeds[rows] = _seeds(seed, seed_key(identity), search[rows].astype(np.int64))
        missing[rows] = False
    schemes = df["cell"].map({c: identity_scheme(m["identity"]) for c, m in by_cell.items()})
    seeds = pd.arrays.IntegerArray(seeds, missing)
    return df.assign(**{SEED: seeds, SCHEME: schemes})


def paired_values(
    a: pd.DataFrame, b: pd.DataFrame, column: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """``column`` of the searches of cells ``a`` and ``b`` seeded alike, paired on their index
    (in ``a``'s row order, as an inner merge on ``search`` gives them): at least two pairs,
    else None (independent cells, or cells whose searches keep no index or no seed). Index
    arithmetic, not a merge: the published report pairs two thousand couples of cells."""
    if not {"search", SEED} <= set(a.columns) & set(b.columns):
        return None
    keys = []
    for df in (a, b):
        search = df["search"]
        if search.isna().any() or search.duplicated().any():
            return None  # several cells, or counts: no one search per index
        keys.append(search.to_numpy(np.int64))
    _, ia, ib = np.intersect1d(keys[0], keys[1], assume_unique=True, return_indices=True)
    order = np.argsort(ia)
    ia, ib = ia[order], ib[order]
    seeds = [df[SEED].astype("UInt64") for df in (a, b)]
    known = [s.notna().to_numpy() for s in seeds]
    values = [s.to_numpy(np.uint64, na_value=0) for s in seeds]
    same = known[0][ia] & known[1][ib] & (values[0][ia] == values[1][ib])
    if same.sum() < 2:
        return None
    return (
        np.asarray(a[column], float)[ia[same]],
        np.asarray(b[column], float)[ib[same]],
    )


def _shared_unpaired(a: pd.DataFrame, b: pd.DataFrame) -> bool:
    """Whether two cells share their seeds (both common, the same base seed) but keep no
    search index to pair them by (published as counts)."""
    if SCHEME not in a.columns or SCHEME not in b.columns or "seed" not in a.columns:
        return False
    common = set(a[SCHEME]) == {"common"} == set(b[SCHEME])
    return common and "seed" in b.columns and set(a["seed"]) == set(b["seed"])


PAIRED = "paired by search: common seeds"
INDEPENDENT = "independent cells"
UNPAIRED = "cells on common seeds published as counts (no search index): treated as independent"


@dataclass
class Combination:
    """A linear combination of cell means, its interval, its standard error and degrees of
    freedom, and how the cells were taken."""

    value: float
    low: float
    high: float
    pairing: str  # PAIRED, INDEPENDENT or UNPAIRED
    se: float = 0.0
    dof: float = np.inf

    @property
    def paired(self) -> bool:
        return self.pairing == PAIRED

    def p_value(self, target: float = 0.0) -> float:
        """Two-sided p-value (Student's t) of the combination being ``target``."""
        if self.se <= 0:
            return 0.0 if self.value != target else 1.0
        return float(2 * stats.t.sf(abs(self.value - target) / self.se, self.dof))


@dataclass
class MeanCovariance:
    """The covariance matrix of several cells' means, and what it rests on."""

    matrix: np.ndarray
    pairs: list[int]  # the number of paired searches of each two cells that share seeds
    pairing: str  # PAIRED, INDEPENDENT or UNPAIRED


def mean_covariance(frames: Sequence[pd.DataFrame], column: str = "score") -> MeanCovariance:
    """The covariance matrix of the means of ``column`` of ``frames`` (one cell each): each
    mean's variance on its diagonal, and for every two cells seeded alike the covariance of
    their means estimated from their paired searches (n_ab cov_ab / (n_a n_b)); zero between
    independent cells."""
    values = [np.asarray(df[column], float) for df in frames]
    n = np.array([v.size for v in values], float)
    matrix = np.diag([v.var(ddof=1) / v.size if v.size > 1 else np.nan for v in values])
    pairs, unpaired = [], False
    for i in range(len(frames)):
        for j in range(i + 1, len(frames)):
            both = paired_values(frames[i], frames[j], column)
            if both is None:
                unpaired |= _shared_unpaired(frames[i], frames[j])
                continue
            x, y = both
            matrix[i, j] = matrix[j, i] = np.cov(x, y, ddof=1)[0, 1] * x.size / (n[i] * n[j])
            pairs.append(x.size)
    pairing = PAIRED if pairs else UNPAIRED if unpaired else INDEPENDENT
    return MeanCovariance(matrix, pairs, pairing)


def mean_combination(
    parts: Sequence[tuple[float, pd.DataFrame]], column: str = "score", confidence: float = 0.95
) -> Combination:
    """sum(w * mean(cell[column])) over ``parts`` (weight, one cell's rows), with its interval:
    Student's t on the variance w' V w, V the covariance of the cells' means
    (``mean_covariance``: paired searches where cells share seeds). Degrees of freedom: the
    fewest paired searches less one where any pair counts, else Welch and Satterthwaite's."""
    frames = [df for _, df in parts]
    weights = np.array([w for w, _ in parts], float)
    means = np.array([np.asarray(df[column], float).mean() for df in frames])
    n = np.array([len(df) for df in frames], float)
    cov = mean_covariance(frames, column)
    value = float(weights @ means)
    if cov.pairs:
        dof = min(cov.pairs) - 1.0
    else:
        terms = weights**2 * np.diag(cov.matrix)
        spread = sum(t * t / (k - 1) for t, k in zip(terms, n, strict=True) if k > 1)
        dof = terms.sum() ** 2 / spread if spread > 0 else np.inf
    se = float(np.sqrt(max(float(weights @ cov.matrix @ weights), 0.0)))
    half = float(stats.t.ppf(0.5 + confidence / 2, dof) * se)
    return Combination(value, value - half, value + half, cov.pairing, se, float(dof))


def ratio_of_means(
    upper: pd.DataFrame, lower: pd.DataFrame, column: str = "score"
) -> tuple[float, float, float, str]:
    """mean(upper) / mean(lower) of ``column`` and its 95% interval (the delta method on its
    logarithm, with the covariance of the two means where the cells share seeds), and how the
    cells were taken."""
    cov = mean_covariance([upper, lower], column)
    m = np.array([np.asarray(upper[column], float).mean(), np.asarray(lower[column], float).mean()])
    gradient = np.array([1 / m[0], -1 / m[1]])
    se = float(np.sqrt(max(float(gradient @ cov.matrix @ gradient), 0.0)))
    ratio = float(m[0] / m[1])
    return ratio, ratio * np.exp(-1.959964 * se), ratio * np.exp(1.959964 * se), cov.pairing
