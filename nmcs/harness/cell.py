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
- atomic chunks: each chunk of items is written (write, then rename) as
  ``chunks/<first>-<last>.parquet``, so a killed run loses at most the chunk in flight;
- gathering the chunks into ``results.parquet`` (one row per item) when all are done;
- interruption: Ctrl-C stops at the end of the chunk in flight with ``CellInterrupted``.

Rows of both kinds carry the item index in the ``search`` column (a match row also has it as
``match``).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Protocol

import pandas as pd
from tqdm.auto import tqdm

from nmcs.core.errors import ConfigError
from nmcs.harness import interrupt
from nmcs.harness.provenance import now_iso, provenance
from nmcs.harness.seeding import cell_hash, resumed_scheme

log = logging.getLogger(__name__)


class CellInterrupted(Exception):
    """The user stopped a cell (Ctrl-C); what was saved is in the message."""


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


def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def atomic_write_parquet(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def write_meta(out_dir: Path, meta: dict[str, Any]) -> None:
    atomic_write_bytes(out_dir / "meta.json", json.dumps(meta, indent=2, default=str).encode())


def done_items(chunk_dir: Path) -> set[int]:
    """Indices of the items already saved in chunk files."""
    done: set[int] = set()
    for path in sorted(chunk_dir.glob("*.parquet")):
        done.update(pd.read_parquet(path, columns=["search"])["search"].tolist())
    return done


def check_resume(out_dir: Path, identity: dict[str, Any]) -> dict[str, Any] | None:
    """The folder's meta.json if it holds this cell; ConfigError if it holds another."""
    meta_path = out_dir / "meta.json"
    if not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("identity") != identity:
        old, new = meta.get("identity", {}), identity
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise ConfigError(
            f"{out_dir} holds results of another config (differs in: {', '.join(diff)}); "
            "remove that folder or run elsewhere"
        )
    return meta


def adopt_sibling_chunks(out_dir: Path, identity: dict, n: int, done: set[int]) -> int:
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
            items = set(pd.read_parquet(path, columns=["search"])["search"].tolist())
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
    """All saved items with index < n, in index order, each once."""
    parts = [pd.read_parquet(p) for p in sorted(chunk_dir.glob("*.parquet"))]
    df = pd.concat(parts, ignore_index=True)
    df = df[df["search"] < n].drop_duplicates("search").sort_values("search")
    return df.reset_index(drop=True)


def run(cell: Cell, out_dir: str | Path) -> pd.DataFrame:
    """Run (or finish) ``cell`` into ``out_dir``; return its results (one row per item).

    Raises ConfigError when the folder holds another cell, and CellInterrupted (saying what
    was saved) when the user stops it with Ctrl-C."""
    out_dir = Path(out_dir)
    chunk_dir = out_dir / "chunks"
    cell = resumed_scheme(cell, out_dir)
    identity = cell.identity
    old_meta = check_resume(out_dir, identity)
    chunk_dir.mkdir(parents=True, exist_ok=True)
    name = cell_hash(identity)
    n, unit = cell.n, cell.unit
    done = done_items(chunk_dir)
    adopted = adopt_sibling_chunks(out_dir, identity, n, done)
    if adopted:
        done = done_items(chunk_dir)
        print(f"{out_dir}: {adopted} {cell.kind} copied from a folder of the same cell", flush=True)
    todo = [i for i in range(n) if i not in done]
    meta: dict[str, Any] = {
        "kind": cell.kind,
        "identity": identity,
        "cell": name,
        "config": cell.config,
        **cell.meta(),
        "started": (old_meta or {}).get("started", now_iso()),
        "resumed": now_iso() if old_meta else None,
        "finished": (old_meta or {}).get("finished") if not todo else None,
        "n_done": n - len(todo),
        "workers": cell.workers,
        **provenance(),
    }
    results_path = out_dir / "results.parquet"
    if not todo and results_path.exists() and old_meta is not None:
        if len(pd.read_parquet(results_path, columns=["search"])) == n:
            print(f"{out_dir}: cell complete ({n} {cell.kind}), nothing to run", flush=True)
            return pd.read_parquet(results_path)
    if not todo and len(done) > n:
        print(
            f"{out_dir}: {len(done)} {cell.kind} saved; results.parquet now holds the first {n}; "
            "the others stay in chunks/",
            flush=True,
        )
    write_meta(out_dir, meta)
    if todo:
        log.info("%s: %d %s to run (%d already done)", out_dir, len(todo), cell.kind, n - len(todo))
    bar = tqdm(
        total=n,
        initial=n - len(todo),
        desc=out_dir.name,
        unit=unit,
        disable=not cell.progress,
        dynamic_ncols=True,
    )
    # The first chunk is one item per worker, to measure how long an item takes; later chunks
    # aim at chunk_seconds each.
    size, pos = cell.workers, 0
    try:
        with cell.session(out_dir) if todo else nullcontext(None) as run_chunk:
            while pos < len(todo):
                interrupt.check()  # a Ctrl-C that a compiler callback swallowed
                indices = todo[pos : pos + size]
                started = time.perf_counter()
                assert run_chunk is not None
                chunk = run_chunk(name, indices)
                elapsed = time.perf_counter() - started
                path = chunk_dir / f"{indices[0]:08d}-{indices[-1]:08d}.parquet"
                atomic_write_parquet(chunk, path)
                pos += len(indices)
                meta["n_done"] += len(indices)
                write_meta(out_dir, meta)
                bar.update(len(indices))
                per_item = max(elapsed / len(indices), 1e-7)
                size = int(
                    min(max(cell.workers, cell.chunk_seconds / per_item), 4 * size, 1_000_000)
                )
    except KeyboardInterrupt:
        bar.close()
        raise CellInterrupted(
            f"interrupted: {meta['n_done']} of {n} {cell.kind} of {out_dir} are saved; "
            "run the same command again to finish them"
        ) from None
    bar.close()
    results = gather_chunks(chunk_dir, n)
    atomic_write_parquet(results, results_path)
    cell.finish(results, out_dir)
    meta["finished"] = now_iso()
    meta["n_done"] = len(results)
    write_meta(out_dir, meta)
    return results
