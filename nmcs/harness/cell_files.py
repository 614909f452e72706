"""The files of a cell folder, written so that no one can corrupt them (``docs/safety.md``):

- ``lock``: one writer per cell. A process that runs a cell creates ``<cell>/lock`` (JSON: host,
  pid, start time) with ``O_EXCL`` and removes it on every way out; a second process on the
  same cell is refused in one line (``CellLocked``, exit status 2), and a lock left by a dead
  process of this host is taken over with one line;
- atomic writes under unique temporary names (``.<name>.<pid>.<random>.tmp``): two writers never
  rename each other's file, and a failed write leaves no partial file behind. A file-system
  fault (read-only folder, full disk, file too large) becomes ``CellWriteError``: one line that
  names the path and what to do;
- checked chunks: a chunk is merged only if every row carries the cell's hash (the ``cell``
  column, which every chunk ever written has) and the file reads whole; another cell's chunk,
  a truncated one or an unreadable one is moved to ``<cell>/quarantine/<name>.quarantined`` with
  one line, and its searches run again.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq

from nmcs.core.errors import ConfigError
from nmcs.harness.provenance import now_iso

LOCK = "lock"
QUARANTINE = "quarantine"
QUARANTINED = ".quarantined"  # the suffix of a quarantined file
# A lock file that is still empty or unreadable this long after it was made was left by a
# process that died between creating and writing it.
UNREADABLE_LOCK_SECONDS = 10.0


class CellLocked(ConfigError):
    """Another live process runs this cell (its lock file names it)."""


class CellWriteError(OSError):
    """A cell file could not be written; the message is one line naming the path and what to
    do. Whatever was saved before stays; no partial file is left."""


_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space, then run the same command again",
    errno.EDQUOT: "the disk quota is exceeded: free some space, then run the same command again",
    errno.EFBIG: "the file is too large for this file system or for the file-size limit "
    "(ulimit -f): raise the limit, set a smaller chunk_seconds or write the outputs elsewhere "
    "(hydra.run.dir / hydra.sweep.dir)",
    errno.EROFS: "the file system is read-only: write the outputs elsewhere "
    "(hydra.run.dir / hydra.sweep.dir)",
    errno.EACCES: "the folder is not writable: make it writable or write the outputs elsewhere "
    "(hydra.run.dir / hydra.sweep.dir)",
    errno.EPERM: "the folder is not writable: make it writable or write the outputs elsewhere "
    "(hydra.run.dir / hydra.sweep.dir)",
}


# The errors of a write that the file system refuses (each with its advice).
WRITE_FAULTS = frozenset(_ADVICE)


def write_error(path: Path, error: OSError) -> CellWriteError:
    """The one-line error of a failed write of ``path``."""
    reason = error.strerror or type(error).__name__
    advice = _ADVICE.get(error.errno or 0, "check the folder, then run the same command again")
    return CellWriteError(
        error.errno or 0, f"cannot write {path}: {reason}; {advice} (saved results are kept)"
    )


def temporary_name(path: Path) -> Path:
    """A name beside ``path`` that no other writer uses."""
    return path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")


def is_temporary(path: Path) -> bool:
    """A temporary file of a write (of this version, or the fixed ``<name>.tmp`` of older
    versions)."""
    return path.name.endswith(".tmp")


@contextmanager
def _writing(path: Path) -> Iterator[Path]:
    """A temporary path to write; renamed onto ``path`` when the block ends, removed if it
    fails (any exception, Ctrl-C included)."""
    tmp = temporary_name(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and not isinstance(error, CellWriteError):
            raise write_error(path, error) from None
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with _writing(path) as tmp:
        tmp.write_bytes(data)


def atomic_write_parquet(df: pd.DataFrame, path: Path) -> None:
    with _writing(path) as tmp:
        df.to_parquet(tmp, index=False)


def make_folder(path: Path) -> None:
    """``mkdir -p``, a file-system fault as ``CellWriteError``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise write_error(path, error) from None


def remove_temporary_files(out_dir: Path) -> int:
    """Remove the temporary files that writes killed before they renamed left in the cell
    folder and its chunks (called with the lock held: no one else is writing); return how
    many."""
    removed = 0
    for folder in (out_dir, out_dir / "chunks"):
        if folder.is_dir():
            for path in folder.iterdir():
                if is_temporary(path) and path.is_file():
                    path.unlink(missing_ok=True)
                    removed += 1
    return removed


# ---------------------------------------------------------------------------------- the lock


def _holder() -> dict[str, Any]:
    return {"host": socket.gethostname(), "pid": os.getpid(), "started": now_iso()}


def _read_lock(path: Path) -> dict[str, Any] | None:
    try:
        holder = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return holder if isinstance(holder, dict) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _stale(path: Path, holder: dict[str, Any] | None) -> bool:
    """True if the lock's holder is known to be gone: a dead pid of this host, or a lock
    file left unreadable for a while."""
    if holder is None:
        try:
            age = time.time() - path.stat().st_mtime
        except FileNotFoundError:
            return True
        return age > UNREADABLE_LOCK_SECONDS
    if holder.get("host") != socket.gethostname():
        return False  # another machine's process: it cannot be checked from here
    try:
        return not _alive(int(holder["pid"]))
    except (KeyError, TypeError, ValueError):
        return True


def _describe(holder: dict[str, Any] | None) -> str:
    if holder is None:
        return "a process (its lock file is unreadable)"
    return f"pid {holder.get('pid')} on {holder.get('host')} (since {holder.get('started')})"


def _take_over(path: Path, holder: dict[str, Any] | None) -> bool:
    """Remove the stale lock ``holder`` at ``path``; False if another process changed it
    meanwhile (a live lock is put back)."""
    aside = temporary_name(path)
    try:
        os.rename(path, aside)
    except FileNotFoundError:
        return True  # removed by another process taking over: try to create it again
    if _read_lock(aside) != holder:  # a live lock made since we read the stale one
        try:
            os.link(aside, path)
        except FileExistsError:
            pass
        aside.unlink(missing_ok=True)
        return False
    aside.unlink(missing_ok=True)
    return True


@contextmanager
def cell_lock(out_dir: Path) -> Iterator[None]:
    """Hold ``<out_dir>/lock`` for the block; ``CellLocked`` if a live process holds it."""
    path = out_dir / LOCK
    mine = _holder()
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _read_lock(path)
            if not _stale(path, holder):
                raise CellLocked(
                    f"{out_dir} is being run by {_describe(holder)}: wait for it to end, or "
                    f"stop it; if that process is gone, remove {path}"
                ) from None
            if _take_over(path, holder):
                print(
                    f"{out_dir}: taking over the lock left by {_describe(holder)}, "
                    "which is no longer running",
                    flush=True,
                )
            continue
        except OSError as error:
            raise write_error(path, error) from None
        with os.fdopen(fd, "w") as file:
            json.dump(mine, file)
        break
    else:
        raise CellLocked(f"{out_dir}: another process keeps taking its lock {path}; run later")
    try:
        yield
    finally:
        if _read_lock(path) == mine:
            path.unlink(missing_ok=True)


# ---------------------------------------------------------------------------- checked chunks


def chunk_items(path: Path, cell: str | None) -> list[int] | str:
    """The item indices of chunk ``path``, or why it is not a whole chunk of ``cell`` (another
    cell's rows, a truncated or unreadable file). ``cell`` None: any cell."""
    try:
        names = pq.read_schema(path).names
        columns = ["search", "cell"] if "cell" in names else ["search"]
        table = pq.read_table(path, columns=columns)
    except Exception as error:  # noqa: BLE001 - whatever pyarrow raises, the file is not whole
        return f"unreadable or truncated: {str(error).strip().splitlines()[0][:80]}"
    if cell is not None and "cell" in table.column_names:
        foreign = set(table.column("cell").to_pylist()) - {cell}
        if foreign:
            return f"rows of another cell ({', '.join(sorted(map(str, foreign)))}), not {cell}"
    return [int(i) for i in table.column("search").to_pylist()]


def quarantine(out_dir: Path, path: Path, why: str) -> Path:
    """Move ``path`` out of the cell's chunks into ``<out_dir>/quarantine/``, saying so."""
    folder = out_dir / QUARANTINE
    make_folder(folder)
    # Named so that no reader's glob (``*.parquet``, ``results.parquet``) ever finds it.
    target = folder / f"{path.name}{QUARANTINED}"
    if target.exists():
        target = folder / f"{path.name}.{uuid.uuid4().hex[:8]}{QUARANTINED}"
    try:
        os.replace(path, target)
    except OSError as error:
        raise write_error(target, error) from None
    print(f"{out_dir}: moved {path.name} to {target} ({why}); its items run again", flush=True)
    return target


def checked_done_items(out_dir: Path, cell: str) -> set[int]:
    """Indices of the items saved in the chunks of ``out_dir`` that belong to ``cell``; the
    other chunk files are quarantined."""
    done: set[int] = set()
    for path in sorted((out_dir / "chunks").glob("*.parquet")):
        items = chunk_items(path, cell)
        if isinstance(items, str):
            quarantine(out_dir, path, items)
            continue
        done.update(items)
    return done
