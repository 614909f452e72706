"""Run one table cell from its config: validate it once, then hand it to the cell driver.

    from nmcs.harness.runner import run_cell
    results = run_cell(cfg, "outputs/quick/my_experiment/level=2")

``run_cell`` works for every kind of cell (searches of a single-player game, matches of a
two-player game): ``nmcs.harness.validate`` builds the cell, ``nmcs.harness.cell`` runs it
(resume, atomic chunks, ``meta.json``, gathering, Ctrl-C).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from omegaconf import DictConfig

from nmcs.harness.cell import CellInterrupted, cell_hash, run
from nmcs.harness.search_cell import search_identity
from nmcs.harness.validate import validate

__all__ = ["CellInterrupted", "cell_hash", "cell_identity", "run_cell"]


def run_cell(cfg: DictConfig, out_dir: str | Path) -> pd.DataFrame:
    """Run (or finish) the cell described by ``cfg`` into ``out_dir``; return its results,
    one row per search (or match).

    Raises ConfigError (one line) for an invalid config or a folder that holds another cell,
    and CellInterrupted (saying what was saved) when the user stops it with Ctrl-C."""
    return run(validate(cfg), out_dir)


def cell_identity(cfg: DictConfig) -> dict[str, Any]:
    """The part of a search cell's config that determines every search's result."""
    return search_identity(cfg)
