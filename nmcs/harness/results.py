"""Reading result files: every search counted once, whatever folders hold it.

A search is identified by its cell (the ``cell`` column: a hash of the config that determines
its result, ``n_searches`` and the worker settings excluded) and its index ``search``. The same
search can sit in two folders: a sweep that names a default value (``level=3`` and
``level=3,memorize=true``), or a cell run again with a larger ``n_searches``. Every summary,
table and figure reads results through ``read_results``, which keeps each (cell, search) once.

A published copy (``analysis.publish``) stores a cell of many searches that end alike as
counts: one row per distinct outcome, its number in ``count`` and search -1. Readers expand
it into one row per search (search -1: the index was not kept), and only rows with a search
index are checked for duplicates. A reader that only counts or sums may keep the counts
(``counted=True``: every row has a ``count``, 1 for a row of its own), which for the published
left-move cells is 769 rows instead of 12 million.

A config key added after results exist is listed in ``ADDED_KEYS`` with the value that gives
the old behaviour: at that value it stays out of a cell's identity (old cells keep their hash
and resume), and readers fill it into tables written before it existed.

Each algorithm option is a typed column ``algo_<key>`` (``<key>`` as in ``conf/algo/<algo>.yaml``:
``algo_beam``, ``algo_games`` lists of ints, ``algo_c`` a float, ``algo_nodes`` an int);
``algo_options`` is the same as one string, for display. Results written before those columns
existed have the string only; readers give them the columns (``with_algo_columns``), so the
analysis reads columns and never parses the string.

A search row's cost is its CPU time, ``cpu_seconds`` (its wall time stays in ``seconds``). Rows
written before CPU time was recorded read it as NaN, never as a copy of their wall time;
``cpu_hours`` sums it and refuses such rows unless asked to count their wall time instead.
"""

import ast
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

IDENTITY_COLUMNS = ("cell", "search")
# Top-level config keys added after results were published, with the value of the old behaviour.
ADDED_KEYS = {"memorize_from": 1, "stop_at_target": True}
# Result columns added later, with the value rows written before them had.
ADDED_COLUMNS = {**ADDED_KEYS, "parallel_backend": "none"}
# A search column added later that older rows cannot have: they read it as NaN.
CPU_SECONDS = "cpu_seconds"


def added_algo_options() -> dict[str, dict[str, Any]]:
    """Algorithm options (``algo.<key>``) added after results were published, per algorithm,
    with the value of the old behaviour, as each option's field declares it
    (``nmcs.search.registry.added_option``): at that value they stay out of a cell's identity,
    and readers fill them into the ``algo_<key>`` column of older rows of that algorithm. Read
    from the algorithm records when needed, so that importing this module needs no numba."""
    from nmcs.search import registry  # noqa: PLC0415 - the records, on demand

    added = {a.name: a.added_options() for a in registry.REGISTRY.records()}
    return {name: options for name, options in added.items() if options}


ALGO_PREFIX = "algo_"
# The result column that holds every algorithm option as one string (``beam=(1, 2)``,
# ``uct_c=0.1,uct_nodes=0,uct_edges=0``), written by ``nmcs.harness.batch.algo_options_string``.
ALGO_OPTIONS = "algo_options"
# Options that the string names by their Python API name, not their config key (UCT's, as
# ``UctConfig.API_NAMES`` says; kept here so that reading results imports no search module).
LEGACY_API_NAMES = {"uct_c": "c", "uct_nodes": "nodes", "uct_edges": "edges"}


def parse_algo_options(text: str | None) -> dict[str, Any]:
    """The options of one legacy ``algo_options`` string by config key, typed: ``"beam=(1, 2)"``
    -> ``{"beam": [1, 2]}``, ``"beam=(16,)"`` -> ``{"beam": [16]}``, ``"games=(100, 1000)"`` ->
    ``{"games": [100, 1000]}``, ``"uct_c=0.1,uct_nodes=0,uct_edges=0"`` -> ``{"c": 0.1,
    "nodes": 0, "edges": 0}``; ``""`` (an algorithm without options) -> ``{}``. Tuples and
    lists become lists; ``None`` stays None; a value Python cannot read stays a string."""
    options: dict[str, Any] = {}
    for item in _split_top_level(text or ""):
        key, _, value = item.partition("=")
        key = key.strip()
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            parsed = value.strip()
        if isinstance(parsed, tuple | list):
            parsed = list(parsed)
        options[LEGACY_API_NAMES.get(key, key)] = parsed
    return options


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets (``beam=(1, 2),k=3`` -> two items)."""
    items, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item for item in items if item.strip()]


def with_algo_columns(df: pd.DataFrame, keys: Iterable[str] | None = None) -> pd.DataFrame:
    """``df`` with a typed column ``algo_<key>`` per algorithm option, filled from the
    ``algo_options`` string where a row has no value in it: results written before the typed
    columns existed get them; rows that have them pass through unchanged (a packed file can
    hold both). ``keys``: only these options (default: every option the strings name). A
    list option is a list of ints per row, a scalar one an Int64 or float column; a row of an
    algorithm without that option holds null."""
    if ALGO_OPTIONS not in df.columns or df.empty:
        return df
    parsed = {text: parse_algo_options(text) for text in df[ALGO_OPTIONS].dropna().unique()}
    found = list(dict.fromkeys(k for options in parsed.values() for k in options))
    wanted = found if keys is None else [k for k in keys if k in found]
    df = with_added_algo_options(df, keys)
    if not wanted:
        return df
    df = df.copy()
    for key in wanted:
        column = ALGO_PREFIX + key
        has_value = _has_value(df[column]) if column in df.columns else None
        if has_value is not None and has_value.all():
            continue  # written with its typed column: left as it is
        by_text = {t: o[key] for t, o in parsed.items() if o.get(key) is not None}
        values = pd.Series([by_text.get(t) for t in df[ALGO_OPTIONS]], df.index, dtype=object)
        if has_value is not None:
            values = df[column].astype(object).where(has_value, values)
        df[column] = _typed(values)
    return df


def without_added_defaults(algo: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` (by config key) without the added options at their old-behaviour value:
    what a cell's identity and its ``algo_options`` string hold, so that both stay as they
    were written before the option existed."""
    added = added_algo_options().get(algo, {})
    return {k: v for k, v in options.items() if not (k in added and v == added[k])}


def with_added_algo_options(df: pd.DataFrame, keys: Iterable[str] | None = None) -> pd.DataFrame:
    """``df`` with the options of ``added_algo_options()`` filled, at their old-behaviour value,
    into the rows of their algorithm written before the option existed (``keys``: only
    these options)."""
    if "algo" not in df.columns:
        return df
    keys = None if keys is None else set(keys)
    present = set(df["algo"].dropna().unique())
    for algo, added in added_algo_options().items():
        if algo not in present:
            continue
        rows = df["algo"] == algo
        for key, value in added.items():
            if keys is not None and key not in keys:
                continue
            column = ALGO_PREFIX + key
            if column in df.columns and _has_value(df.loc[rows, column]).all():
                continue
            if column not in df.columns:
                df = df.assign(**{column: pd.Series([None] * len(df), df.index, dtype=object)})
            missing = rows & ~_has_value(df[column])
            df[column] = df[column].astype(object)
            df.loc[missing, column] = value
    return df


def _has_value(column: pd.Series) -> pd.Series:
    """True where a cell holds a value (a list cell counts even when it holds NaNs)."""
    return column.map(lambda v: v is not None and (not isinstance(v, float) or v == v))


def _typed(values: pd.Series) -> pd.Series:
    """An option's values as a column: Int64 for ints, float64 for numbers, else objects
    (lists, strings) with None where a row has no value."""
    present = values[_has_value(values)]
    if len(present) and not present.map(lambda v: isinstance(v, bool | np.bool_)).any():
        if present.map(lambda v: isinstance(v, int | np.integer)).all():
            return values.astype("Int64")
        if present.map(lambda v: isinstance(v, int | float | np.number)).all():
            return values.astype(float)
    return values.astype(object).where(_has_value(values), None)


def _expand_counts(df: pd.DataFrame) -> pd.DataFrame:
    """One row per search of a frame whose rows carry a ``count``: each column repeated in
    place, a copy of each value ``count`` times (taking rows by an index of every search was
    three times slower on the published left-move cells, 12 million rows). Text columns are
    repeated as references to the same Python strings (object dtype): numpy repeats pointers,
    where arrow strings would copy every byte."""
    counts = df["count"].to_numpy()
    columns = {}
    for name in df.columns.drop("count"):
        values = df[name]
        if isinstance(values.dtype, pd.StringDtype) or values.dtype == object:
            columns[name] = pd.Series(
                np.repeat(values.to_numpy(dtype=object), counts), dtype=object
            )
        else:
            columns[name] = pd.Series(values.array.repeat(counts))
    return pd.DataFrame(columns)


class ResultsFileError(ValueError):
    """A results file that is missing or cannot be read; the message is one line naming it."""


def _read(path: Path, columns: list[str] | None, counted: bool = False) -> pd.DataFrame:
    """The rows of one results file; ResultsFileError naming it if it is missing or
    unreadable (truncated, not Parquet)."""
    if not Path(path).is_file():
        raise ResultsFileError(f"no results file '{path}'")
    try:
        return _read_rows(Path(path), columns, counted)
    except (OSError, ValueError, pa.ArrowException) as error:
        reason = str(error).strip().splitlines()[0][:100] if str(error).strip() else ""
        raise ResultsFileError(
            f"{path}: unreadable results file ({type(error).__name__}: {reason}); run its cell "
            "again (python run.py ... resumes from its chunks) or restore it"
        ) from None


def _read_rows(path: Path, columns: list[str] | None, counted: bool) -> pd.DataFrame:
    present: set[str] = set()
    options: list[str] | None = None  # the algo_<key> columns asked for (None: every one)
    if columns is not None:
        present = set(pq.read_schema(path).names)
        options = [
            c.removeprefix(ALGO_PREFIX)
            for c in columns
            if c.startswith(ALGO_PREFIX) and c != ALGO_OPTIONS
        ]
        asked = columns
        columns = [c for c in columns if c in present]
        if options and ALGO_OPTIONS in present and ALGO_OPTIONS not in columns:
            columns.append(ALGO_OPTIONS)
    if columns is not None and "count" in present:
        columns.append("count")
    df = pd.read_parquet(path, columns=columns)
    if columns is None:
        present = set(df.columns)
    if counted:  # a row of its own (no count, or none written) stands for one search
        count = df["count"].fillna(1) if "count" in df.columns else pd.Series(1, df.index)
        df["count"] = count.astype(np.int64)
    elif "count" in df.columns:  # a published cell of many searches, stored as counts
        df = _expand_counts(df)
    for key, value in ADDED_COLUMNS.items():
        if key not in df.columns:
            df[key] = value
    searches = "kind" not in present  # match rows (``kind``) have no CPU time per row
    if searches and CPU_SECONDS not in df.columns and (columns is None or CPU_SECONDS in asked):
        df[CPU_SECONDS] = np.nan  # written before CPU time was recorded
    if options is None or options:
        df = with_algo_columns(df, options)
        if options and ALGO_OPTIONS not in asked:
            df = df.drop(columns=ALGO_OPTIONS, errors="ignore")
    return df


def read_results(
    paths: Iterable[str | Path] | str | Path,
    columns: list[str] | None = None,
    counted: bool = False,
) -> pd.DataFrame:
    """The rows of the given ``results.parquet`` files (or of one file), each (cell, search)
    once, in file order (the first file that holds a search gives its row). ResultsFileError
    (one line naming the file as given) for a missing or unreadable file. ``counted``: rows
    published as counts stay one row each, with the number of searches it stands for in
    ``count`` (1 on every other row)."""
    if not isinstance(counted, bool | np.bool_):
        raise TypeError(f"counted = {counted!r}: must be True or False (a boolean)")
    if isinstance(paths, str | Path):
        paths = [paths]
    if columns is not None:
        columns = list(dict.fromkeys([*IDENTITY_COLUMNS, *columns]))
    parts = [_read(Path(p), columns, counted) for p in paths]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    counted = (df["search"] < 0).to_numpy()  # from counts: no index to compare
    repeated = np.zeros(len(df), bool)
    repeated[~counted] = df.loc[~counted, list(IDENTITY_COLUMNS)].duplicated().to_numpy()
    return df[~repeated].reset_index(drop=True)


def experiment_result_files(folder: Path) -> list[Path]:
    """The result files of one experiment folder: ``<folder>/<cell>/results.parquet`` for each
    finished cell, and ``<folder>/results.parquet`` where a published copy packs its cells into
    one file (``analysis.publish``)."""
    folder = Path(folder)
    packed = folder / "results.parquet"
    return sorted(folder.glob("*/results.parquet")) + ([packed] if packed.exists() else [])


def experiment_results(
    folder: str | Path, columns: list[str] | None = None, counted: bool = False
) -> pd.DataFrame:
    """Every finished cell of one experiment folder, packed or not (an experiment with no
    finished cell yet: no rows); ResultsFileError (one line) if there is no such folder, or if
    it holds experiments rather than cells (a scale folder: its experiments' packed results or
    cell folders one level down), naming them. ``counted``: as in ``read_results``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ResultsFileError(f"no experiment folder '{folder}'")
    cells = any(folder.glob("*/meta.json")) or (folder / "results.parquet").exists()
    inside = [] if cells else _experiment_folders_below(folder)
    if inside:
        named = ", ".join(inside[:3]) + (f", ... ({len(inside)} in all)" if len(inside) > 3 else "")
        raise ResultsFileError(
            f"'{folder}' holds experiments, not cells ({named}): give one of them, "
            f"{folder / inside[0]}"
        )
    return read_results(experiment_result_files(folder), columns, counted)


def _experiment_folders_below(folder: Path) -> list[str]:
    """The experiment folders one or two levels below ``folder`` (a scale folder, the outputs
    folder), relative to it: those with cell folders, and published ones (packed results
    beside their ``cells.jsonl.gz``)."""
    found = set()
    for depth in ("*/", "*/*/"):
        found |= {p.parent for p in folder.glob(depth + "cells.jsonl.gz")}
        found |= {p.parent.parent for p in folder.glob(depth + "*/meta.json")}
    return sorted(p.relative_to(folder).as_posix() for p in found)


def all_results(folder: Path, columns: list[str] | None = None) -> pd.DataFrame:
    """Every finished cell anywhere below ``folder``."""
    return read_results(sorted(Path(folder).rglob("results.parquet")), columns)


def cpu_hours(df: pd.DataFrame, fallback_wall: bool = False, what: str | None = None) -> float:
    """The CPU hours of the searches of ``df`` (rows as ``read_results`` gives them; a row with a
    ``count`` stands for that many searches): their ``cpu_seconds`` summed, over 3600.

    ValueError (one line naming the rows' experiment and cell, or ``what``) if some rows carry
    no CPU time (published before it was recorded), unless ``fallback_wall``: those rows then
    count their wall ``seconds`` instead. An empty frame costs 0."""
    if df.empty:
        return 0.0
    cpu = df[CPU_SECONDS] if CPU_SECONDS in df.columns else pd.Series(np.nan, df.index)
    cpu = cpu.astype(float)
    missing = cpu.isna()
    if missing.any():
        if not fallback_wall:
            raise ValueError(
                f"rows of {what or _rows_name(df[missing])} carry no CPU time (published before "
                "CPU time was recorded); pass fallback_wall=True to use wall time"
            )
        if "seconds" not in df.columns:
            raise ValueError(
                f"rows of {what or _rows_name(df[missing])} carry neither CPU time nor wall "
                "time (no seconds column)"
            )
        cpu = cpu.where(~missing, df["seconds"].astype(float))
    counts = df["count"].to_numpy(float) if "count" in df.columns else 1.0
    return float((cpu.to_numpy() * counts).sum()) / 3600.0


def _rows_name(rows: pd.DataFrame) -> str:
    """The rows' experiment(s) and cell(s), for a message: ``cell <cell> of <experiment>``."""
    experiments = (
        sorted(map(str, rows["experiment"].dropna().unique())) if "experiment" in rows else []
    )
    where = ", ".join(experiments) or "these results"
    column = "cell_dir" if "cell_dir" in rows else "cell" if "cell" in rows else None
    cells = sorted(map(str, rows[column].dropna().unique())) if column else []
    if len(cells) == 1:
        return f"cell {cells[0]} of {where}"
    return f"{len(cells)} cells of {where}" if cells else where
