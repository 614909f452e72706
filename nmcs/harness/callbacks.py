"""Hydra callbacks: after a multirun, gather the cells of each experiment it touched into one
table per experiment folder (``summary.csv`` and ``summary.md``)."""

import time
from pathlib import Path

from hydra.experimental.callback import Callback

from nmcs.harness.cell import folder_kind
from nmcs.harness.match_cell import write_match_summary
from nmcs.harness.summary import write_summary

# One summary table per kind of cell (``nmcs.harness.validate.KINDS``).
SUMMARIES = {"searches": write_summary, "matches": write_match_summary}


class GatherCells(Callback):
    """Rewrite the summary of every experiment folder (``<sweep dir>/<experiment>/``) that holds
    a cell written during this multirun. The cells of a sweep can land in several experiment
    folders (ad-hoc runs are filed by game and algorithm), and with a parallel launcher the jobs
    run in other processes, so the folders are found by the times of their ``meta.json``."""

    def __init__(self) -> None:
        self.started = time.time()

    def on_multirun_start(self, config, **kwargs) -> None:
        self.started = time.time()

    def on_multirun_end(self, config, **kwargs) -> None:
        sweep_dir = Path(config.hydra.sweep.dir)
        touched = {
            meta.parent.parent
            for meta in sweep_dir.glob("*/*/meta.json")
            if meta.stat().st_mtime >= self.started - 1
        }
        for folder in sorted(touched):
            table = SUMMARIES[folder_kind(folder)](folder)
            if len(table):
                print(f"summary of {len(table)} cells: {folder / 'summary.md'}", flush=True)
