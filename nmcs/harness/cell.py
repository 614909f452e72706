"""The one resumable cell driver: every kind of cell (searches, matches) runs through ``run``.

A cell is ``n`` independent items (searches of a single-player game, matches of a two-player game);
item i is seeded from (seed, i) and the cell's seed scheme (``nmcs.harness.seeding``). The driver
knows nothing of what an item is: a validated cell object (``nmcs.harness.search_cell.SearchCell``,
``nmcs.harness.match_cell.MatchCell``, both built by ``nmcs.harness.validate.validate``) says how to
run a chunk of items and what to leave beside the results. The driver owns the rest:

- identity: the part of the config that determines every item's result, hashed into the
  ``cell`` column; every reader counts a (cell, item) pair once, whatever folders hold it
  (``nmcs.harness.results``). Raising ``n`` extends a cell in place;
- ``meta.json``: the resolved config, the code and package versions, the machine and the times;
- resume: a folder that holds another config's results is refused; items already saved (here
  or in a sibling folder of the same cell, which are copied) are not run again;
- one writer: the cell's ``lock`` file, held while it runs (``nmcs.harness.cell_files``);
- atomic, checked chunks: each chunk of items is written (write under a unique temporary name,
  then rename) as ``chunks/<first>-<last>.parquet``, so a killed run loses at most the chunk in
  flight; a chunk that is not a whole chunk of this cell is quarantined and its items run again;
- bounded memory: the items to run are streamed, never listed (``MAX_ITEMS`` bounds a cell);
- gathering the chunks into ``results.parquet`` (one row per item) when all are done;
- interruption: Ctrl-C or SIGTERM stops at the end of the chunk in flight with
  ``CellInterrupted``.

Rows of both kinds carry the item index in the ``search`` column (a match row also has it as
``match``).
"""

from __future__ import annotations

import itertools
import json
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import pandas as pd
from tqdm.auto import tqdm

from nmcs.core.errors import ConfigError
from nmcs.harness import interrupt
from nmcs.harness.cell_files import (
    atomic_write_bytes,
    atomic_write_parquet,
    cell_lock,
    checked_done_items,
    chunk_items,
    make_folder,
    quarantine,
    remove_temporary_files,
)
from nmcs.harness.provenance import now_iso, provenance
from nmcs.harness.seeding import cell_hash, resumed_scheme

__all__ = [
    "MAX_ITEMS",
    "Cell",
    "CellInterrupted",
    "atomic_write_bytes",
    "atomic_write_parquet",
    "cell_hash",
    "check_size",
    "done_items",
    "run",
]

# The most items (searches, matches) of one cell, 100 times the largest cell of conf/experiment:
# results.parquet gathers every row in memory (hundreds of bytes to kilobytes a row), so a
# larger cell would not fit on most machines; split it into cells of other seeds.
MAX_ITEMS = 10_000_000

log = logging.getLogger(__name__)


class CellInterrupted(Exception):
    """The user stopped a cell (Ctrl-C, or SIGTERM); what was saved is in the message."""


ChunkRunner = Callable[[str, list[int]], pd.DataFrame]


class Cell(Protocol):
    """What the driver needs of a validated cell."""

    @property
    def kind(self) -> str:
        """``searches`` | ``matches`` (meta.json's "kind")."""
        ...

    @property
    def unit(self) -> str:
        """``search`` | ``match``: messages and the progress bar."""
        ...

    @property
    def n(self) -> int:
        """Items in the cell."""
        ...

    @property
    def identity(self) -> dict[str, Any]:
        """What determines every item's result."""
        ...

    @property
    def config(self) -> dict[str, Any]:
        """The resolved config, for meta.json."""
        ...

    @property
    def workers(self) -> int: ...

    @property
    def chunk_seconds(self) -> float: ...

    @property
    def progress(self) -> bool: ...

    def meta(self) -> dict[str, Any]:
        """Entries of meta.json particular to this kind of cell."""
        ...

    def session(self, out_dir: Path) -> AbstractContextManager[ChunkRunner]:
        """What runs the cell's chunks, open while they run: ``run_chunk(cell, indices)`` gives
        the rows of items ``indices`` (their ``cell`` column: ``cell``). A search cell on Dask
        starts its cluster here and closes it on exit, a Ctrl-C included."""
        ...

    def finish(self, results: pd.DataFrame, out_dir: Path) -> None:
        """What a finished cell leaves beside its results (best game, summary)."""
        ...

    @property
    def hunts(self) -> bool:
        """A record hunt: the driver shows it the saved rows (``after_saved``)."""
        ...

    def after_saved(self, rows: pd.DataFrame, out_dir: Path, n_saved: int) -> str | None:
        """Called with the items already saved when a run starts, then with each chunk's rows
        once saved (``n_saved`` items saved in all): what the cell keeps of them (a record hunt's
        games), and one line if the cell should stop now (its target reached), else None."""
        ...


def write_meta(out_dir: Path, meta: dict[str, Any]) -> None:
    atomic_write_bytes(out_dir / "meta.json", json.dumps(meta, indent=2, default=str).encode())


def done_items(chunk_dir: Path) -> set[int]:
    """Indices of the items saved in the whole chunk files of ``chunk_dir`` (any cell)."""
    done: set[int] = set()
    for path in sorted(chunk_dir.glob("*.parquet")):
        items = chunk_items(path, None)
        if not isinstance(items, str):
            done.update(items)
    return done


def check_resume(out_dir: Path, identity: dict[str, Any]) -> dict[str, Any] | None:
    """The folder's meta.json if it holds this cell; ConfigError if it holds another."""
    meta_path = out_dir / "meta.json"
    if not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text())
    except (OSError, ValueError) as error:
        raise ConfigError(
            f"{meta_path}: unreadable ({error}); move that folder aside or run elsewhere"
        ) from None
    if meta.get("identity") != identity:
        old, new = meta.get("identity", {}), identity
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise ConfigError(
            f"{out_dir} holds results of another config (differs in: {', '.join(diff)}); "
            "remove that folder or run elsewhere"
        )
    return meta


def adopt_sibling_chunks(out_dir: Path, identity: dict, n: int, done: set[int], cell: str) -> int:
    """Copy into ``out_dir`` the chunks of sibling cell folders that hold items of the same
    cell (same identity), index < n, not done here yet; return how many items came.

    ``-m level=0,1,2,3`` then ``-m level=0,1,2,3 memorize=false,true`` names the memorized cells
    twice (``level=3`` and ``level=3,memorize=true``): the second folder reuses the first's
    searches rather than recomputing them, and readers count each search once either way."""
    chunk_dir = out_dir / "chunks"
    adopted: set[int] = set()
    for meta_path in sorted(out_dir.parent.glob("*/meta.json")):
        sibling = meta_path.parent
        if sibling.resolve() == out_dir.resolve():
            continue
        try:
            if json.loads(meta_path.read_text()).get("identity") != identity:
                continue
        except (OSError, ValueError):
            continue
        for path in sorted((sibling / "chunks").glob("*.parquet")):
            checked = chunk_items(path, cell)
            if isinstance(checked, str):
                continue  # the sibling's own run quarantines it
            items = set(checked)
            if not {i for i in items if i < n} - done - adopted:
                continue
            target = chunk_dir / f"from-{sibling.name}-{path.name}".replace("/", "_")
            atomic_write_bytes(target, path.read_bytes())
            adopted |= items
    return len({i for i in adopted if i < n} - done)


def folder_kind(folder: Path) -> str:
    """The kind of the cells of an experiment folder (their meta.json's ``kind``; cells written
    before it was recorded are searches)."""
    for meta_path in Path(folder).glob("*/meta.json"):
        try:
            return str(json.loads(meta_path.read_text()).get("kind", "searches"))
        except (OSError, ValueError):
            continue
    return "searches"


def gather_chunks(chunk_dir: Path, n: int) -> pd.DataFrame:
    """All saved items with index < n, in index order, each once. Chunks written before a
    column was added (``cpu_seconds``) merge with the others: their rows hold null there, and
    the columns keep the order of the widest chunk."""
    parts = [pd.read_parquet(p) for p in sorted(chunk_dir.glob("*.parquet"))]
    df = pd.concat(parts, ignore_index=True)
    widest: list[str] = max((list(p.columns) for p in parts), key=lambda c: len(c))
    df = df[widest + [c for c in df.columns if c not in widest]]
    df = df[df["search"] < n].drop_duplicates("search").sort_values("search")
    return df.reset_index(drop=True)


def run(cell: Cell, out_dir: str | Path) -> pd.DataFrame:
    """Run (or finish) ``cell`` into ``out_dir``; return its results (one row per item).

    Raises ConfigError when the folder holds another cell or another process runs it
    (``CellLocked``), ``CellWriteError`` (one line) when a file cannot be written, and
    CellInterrupted (saying what was saved) when the user stops it with Ctrl-C or SIGTERM."""
    out_dir = Path(out_dir)
    check_size(f"n_{cell.kind}", cell.n)
    make_folder(out_dir)
    with cell_lock(out_dir):
        return _run_locked(cell, out_dir)


def check_size(key: str, n: int) -> None:
    """ConfigError if a cell of ``n`` items is larger than ``MAX_ITEMS``."""
    if n > MAX_ITEMS:
        raise ConfigError(
            f"{key} = {n}: at most {MAX_ITEMS} in one cell (its results are gathered in memory); "
            "run several cells of other seeds"
        )


def _todo(n: int, done: set[int]) -> Iterator[int]:
    """The items not done yet, in order, streamed: a cell of any size lists none."""
    return (i for i in range(n) if i not in done)


def _complete_results(out_dir: Path, n: int) -> pd.DataFrame | None:
    """The cell's results.parquet if it holds the whole cell; an unreadable one is
    quarantined (the chunks gather it again)."""
    path = out_dir / "results.parquet"
    if not path.exists():
        return None
    try:
        results = pd.read_parquet(path)
    except Exception as error:  # noqa: BLE001 - whatever pyarrow raises, the file is not whole
        quarantine(out_dir, path, f"unreadable: {str(error).strip().splitlines()[0][:80]}")
        return None
    return results if len(results) == n else None


def _start_meta(cell: Cell, name: str, old_meta: dict | None, n_done: int) -> dict[str, Any]:
    """The cell's meta.json as a run starts (a resumed run keeps its first start)."""
    return {
        "kind": cell.kind,
        "identity": cell.identity,
        "cell": name,
        "config": cell.config,
        **cell.meta(),
        "started": (old_meta or {}).get("started", now_iso()),
        "resumed": now_iso() if old_meta else None,
        "finished": (old_meta or {}).get("finished") if n_done == cell.n else None,
        "n_done": n_done,
        "workers": cell.workers,
        # Thread-seconds per item of the latest run (the pre-flight estimate reads it).
        "seconds_per_item": (old_meta or {}).get("seconds_per_item"),
        **provenance(),
    }


def _run_chunks(
    cell: Cell, out_dir: Path, name: str, meta: dict[str, Any], todo: Iterator[int], bar: tqdm
) -> str | None:
    """Run the items of ``todo`` chunk by chunk, each chunk saved (and meta.json updated) as
    it ends; returns a record hunt's reason to stop early, if any."""
    chunk_dir = out_dir / "chunks"
    stop = None
    run_seconds, run_items = 0.0, 0
    with cell.session(out_dir) as run_chunk:
        # A session may run more items at once than the cell's threads (a Dask cluster): its
        # runner says how many. The first chunk is one item per worker, to measure how long an
        # item takes; later chunks aim at chunk_seconds each.
        workers = int(getattr(run_chunk, "workers", cell.workers))
        size = workers
        while not stop:
            interrupt.check()  # a Ctrl-C that a compiler callback swallowed
            indices = list(itertools.islice(todo, size))
            if not indices:
                break
            started = time.perf_counter()
            chunk = run_chunk(name, indices)
            elapsed = time.perf_counter() - started
            path = chunk_dir / f"{indices[0]:08d}-{indices[-1]:08d}.parquet"
            atomic_write_parquet(chunk, path)
            meta["n_done"] += len(indices)
            run_seconds += elapsed * workers
            run_items += len(indices)
            meta["seconds_per_item"] = run_seconds / run_items
            write_meta(out_dir, meta)
            bar.update(len(indices))
            stop = cell.after_saved(chunk, out_dir, meta["n_done"]) if cell.hunts else None
            per_item = max(elapsed / len(indices), 1e-7)
            size = int(min(max(workers, cell.chunk_seconds / per_item), 4 * size, 1_000_000))
    return stop


def _run_locked(cell: Cell, out_dir: Path) -> pd.DataFrame:
    chunk_dir = out_dir / "chunks"
    cell = resumed_scheme(cell, out_dir)
    identity = cell.identity
    old_meta = check_resume(out_dir, identity)
    make_folder(chunk_dir)
    remove_temporary_files(out_dir)
    name = cell_hash(identity)
    n = cell.n
    done = checked_done_items(out_dir, name)
    adopted = adopt_sibling_chunks(out_dir, identity, n, done, name)
    if adopted:
        done = checked_done_items(out_dir, name)
        print(f"{out_dir}: {adopted} {cell.kind} copied from a folder of the same cell", flush=True)
    n_done = sum(1 for i in done if 0 <= i < n)
    n_todo = n - n_done
    meta = _start_meta(cell, name, old_meta, n_done)
    if not n_todo and old_meta is not None:
        complete = _complete_results(out_dir, n)
        if complete is not None:
            print(f"{out_dir}: cell complete ({n} {cell.kind}), nothing to run", flush=True)
            if cell.hunts:
                cell.after_saved(complete, out_dir, n)  # what a new record.threshold keeps
            return complete
    if not n_todo and len(done) > n:
        print(
            f"{out_dir}: {len(done)} {cell.kind} saved; results.parquet now holds the first {n}; "
            "the others stay in chunks/",
            flush=True,
        )
    write_meta(out_dir, meta)
    # A record hunt sees what is saved first: its target may be reached already.
    stop = None
    if done and cell.hunts:
        stop = cell.after_saved(gather_chunks(chunk_dir, n), out_dir, n_done)
    if n_todo and not stop:
        log.info("%s: %d %s to run (%d already done)", out_dir, n_todo, cell.kind, n_done)
    bar = tqdm(
        total=n,
        initial=n_done,
        desc=out_dir.name,
        unit=cell.unit,
        disable=not cell.progress,
        dynamic_ncols=True,
    )
    try:
        if n_todo and not stop:
            stop = _run_chunks(cell, out_dir, name, meta, _todo(n, done), bar)
    except KeyboardInterrupt:
        bar.close()
        raise CellInterrupted(
            f"{interrupt.name()}: {meta['n_done']} of {n} {cell.kind} of {out_dir} are saved; "
            "run the same command again to finish them"
        ) from None
    bar.close()
    results = gather_chunks(chunk_dir, n)
    atomic_write_parquet(results, out_dir / "results.parquet")
    cell.finish(results, out_dir)
    if stop and meta["n_done"] < n:
        # Stopped before its n items (a record hunt's target): results.parquet holds those
        # saved, and a rerun goes on from there.
        print(f"{out_dir}: {stop}", flush=True)
        return results
    meta["finished"] = now_iso()
    meta["n_done"] = len(results)
    write_meta(out_dir, meta)
    return results
