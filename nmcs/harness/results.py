"""Reading result files: every search counted once, whatever folders hold it.

A search is identified by its cell (the ``cell`` column: a hash of the config that determines
its result, ``n_searches`` and the worker settings excluded) and its index ``search``. The same
search can sit in two folders: a sweep that names a default value (``level=3`` and
``level=3,memorize=true``), or a cell run again with a larger ``n_searches``. Every summary,
table and figure reads results through ``read_results``, which keeps each (cell, search) once.

A published copy (``analysis.publish``) stores a cell of many searches that end alike as
counts: one row per distinct outcome, its number in ``count`` and search -1. Readers expand
it into one row per search (search -1: the index was not kept), and only rows with a search
index are checked for duplicates.

A config key added after results exist is listed in ``ADDED_KEYS`` with the value that gives
the old behaviour: at that value it stays out of a cell's identity (old cells keep their hash
and resume), and readers fill it into tables written before it existed.
"""

from collections.abc import Iterable
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

IDENTITY_COLUMNS = ("cell", "search")
# Top-level config keys added after results were published, with the value of the old behaviour.
ADDED_KEYS = {"memorize_from": 1, "stop_at_target": True}
# Result columns added later, with the value rows written before them had.
ADDED_COLUMNS = {**ADDED_KEYS, "parallel_backend": "none"}


def _read(path: Path, columns: list[str] | None) -> pd.DataFrame:
    present: set[str] = set()
    if columns is not None:
        present = set(pq.read_schema(path).names)
        columns = [c for c in columns if c in present]
    if columns is not None and "count" in present:
        columns.append("count")
    df = pd.read_parquet(path, columns=columns)
    if "count" in df.columns:  # a published cell of many searches, stored as counts
        df = df.loc[df.index.repeat(df["count"])].drop(columns="count").reset_index(drop=True)
    for key, value in ADDED_COLUMNS.items():
        if key not in df.columns:
            df[key] = value
    return df


def read_results(paths: Iterable[Path], columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of the given ``results.parquet`` files, each (cell, search) once, in file
    order (the first file that holds a search gives its row)."""
    if columns is not None:
        columns = list(dict.fromkeys([*IDENTITY_COLUMNS, *columns]))
    parts = [_read(p, columns) for p in paths]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    counted = df["search"] < 0  # from counts: no index to compare
    repeated = df.duplicated(list(IDENTITY_COLUMNS)) & ~counted
    return df[~repeated].reset_index(drop=True)


def experiment_result_files(folder: Path) -> list[Path]:
    """The result files of one experiment folder: ``<folder>/<cell>/results.parquet`` for each
    finished cell, and ``<folder>/results.parquet`` where a published copy packs its cells into
    one file (``analysis.publish``)."""
    folder = Path(folder)
    packed = folder / "results.parquet"
    return sorted(folder.glob("*/results.parquet")) + ([packed] if packed.exists() else [])


def experiment_results(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every finished cell of one experiment folder, packed or not."""
    return read_results(experiment_result_files(folder), columns)


def all_results(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every finished cell anywhere below ``folder``."""
    return read_results(sorted(Path(folder).rglob("results.parquet")), columns)
