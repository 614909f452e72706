"""A pre-flight estimate of how long a command will run, from the times of earlier runs.

The cell driver records in each cell's ``meta.json`` the thread-seconds one item took
(``seconds_per_item``: the chunks' wall time times the workers, over their items). Before a
command runs, ``estimate`` looks for cells of the same searches (the cell's identity without
its seed and experiment name: ``timing_key``) under ``outputs/`` and, when the cells it knows
need more than ``WARN_SECONDS`` in all, ``run.py`` prints one line with the estimate and how
to shorten it. Only the items left to run count: those a cell's folder holds already
(``saved_items``) are not run again. Cells never run here are not guessed at: the line says how
many it counts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from nmcs.harness.cell import done_items
from nmcs.harness.seeding import resumed_scheme

# Commands whose known cells need longer than this get a line before they start.
WARN_SECONDS = 600.0
# Keys of a cell's identity that change which searches run but not how long one takes.
NOT_TIMING = ("seed", "experiment_name")


def timing_key(identity: dict[str, Any]) -> str:
    """A name of what one item of a cell costs: its identity without seed and experiment."""
    kept = {k: v for k, v in identity.items() if k not in NOT_TIMING}
    return hashlib.sha1(json.dumps(kept, sort_keys=True, default=str).encode()).hexdigest()[:16]


def known_times(outputs: Path) -> dict[str, float]:
    """timing key -> seconds per item, from the meta.json of every cell under ``outputs``
    (``outputs/<scale>/<experiment>/<cell>``) that recorded one; the latest run wins."""
    times: dict[str, tuple[str, float]] = {}
    for path in outputs.glob("*/*/*/meta.json"):
        try:
            meta = json.loads(path.read_text())
            seconds = float(meta["seconds_per_item"])
            key = timing_key(meta["identity"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        stamp = str(meta.get("resumed") or meta.get("started") or "")
        if key not in times or stamp >= times[key][0]:
            times[key] = (stamp, seconds)
    return {key: seconds for key, (_, seconds) in times.items()}


def saved_items(cell: Any, folder: Path | None) -> int:
    """How many of the items of ``cell`` (a validated cell) its folder holds already: none for
    a folder that holds no cell, or another config's (the run refuses that folder)."""
    if folder is None:
        return 0
    try:
        identity = json.loads((folder / "meta.json").read_text()).get("identity")
    except (OSError, ValueError, AttributeError):
        return 0
    if identity != resumed_scheme(cell, folder).identity:
        return 0
    return sum(1 for i in done_items(folder / "chunks") if 0 <= i < cell.n)


def estimate(
    cells: Iterable[Any],
    outputs: Path = Path("outputs"),
    folder_of: Callable[[Any], Path | None] | None = None,
) -> str | None:
    """One line for a command whose cells (validated cells: ``identity``, ``n``, ``workers``,
    ``kind``) need more than ``WARN_SECONDS`` by the times known; None otherwise. Only the items
    left to run count: ``folder_of(cell)`` is the folder the cell runs into (None if unknown),
    asked only for the cells whose times are known."""
    cells = list(cells)
    times = known_times(outputs) if outputs.is_dir() else {}
    total, known, left, saved = 0.0, 0, 0, 0
    for cell in cells:
        seconds = times.get(timing_key(cell.identity))
        if seconds is None:
            continue
        done = saved_items(cell, folder_of(cell)) if folder_of is not None else 0
        total += seconds * (cell.n - done) / max(cell.workers, 1)
        known += 1
        left += cell.n - done
        saved += done
    if total <= WARN_SECONDS:
        return None  # nothing left to run among the cells known, or not for long
    of = f"{known} of {len(cells)}" if known < len(cells) else f"{known}"
    counted = f"{of} cell{'s' if len(cells) > 1 else ''}"
    kept = f", {saved:,} saved already" if saved else ""
    return (
        f"run.py: this command may take up to {_duration(total)} ({counted}, {left:,} items "
        f"left to run{kept}, at the per-item times of earlier runs of the same searches here); "
        "to shorten it, set a smaller n_searches (n_matches) or a lower level, or Ctrl-C: saved "
        "chunks are kept"
    )


def _duration(seconds: float) -> str:
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
