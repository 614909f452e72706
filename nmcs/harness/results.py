"""Reading result files: every search counted once, whatever folders hold it.

A search is identified by its cell (the ``cell`` column: a hash of the config that determines
its result, ``n_searches`` and the worker settings excluded) and its index ``search``. The same
search can sit in two folders: a sweep that names a default value (``level=3`` and
``level=3,memorize=true``), or a cell run again with a larger ``n_searches``. Every summary,
table and figure reads results through ``read_results``, which keeps each (cell, search) once.
"""

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

IDENTITY_COLUMNS = ("cell", "search")


def read_results(paths: Iterable[Path], columns: list[str] | None = None) -> pd.DataFrame:
    """The rows of the given ``results.parquet`` files, each (cell, search) once, in file
    order (the first file that holds a search gives its row)."""
    if columns is not None:
        columns = list(dict.fromkeys([*IDENTITY_COLUMNS, *columns]))
    parts = [pd.read_parquet(p, columns=columns) for p in paths]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    return df.drop_duplicates(list(IDENTITY_COLUMNS)).reset_index(drop=True)


def experiment_results(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every finished cell of one experiment folder (``<folder>/<cell>/results.parquet``)."""
    return read_results(sorted(Path(folder).glob("*/results.parquet")), columns)


def all_results(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every finished cell anywhere below ``folder``."""
    return read_results(sorted(Path(folder).rglob("results.parquet")), columns)
