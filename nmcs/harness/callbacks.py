"""Hydra callbacks: after a multirun, gather its cells into one table."""

import logging
from pathlib import Path

from hydra.experimental.callback import Callback

from nmcs.harness.summary import load_cells, markdown_table, summarize

log = logging.getLogger(__name__)


class GatherCells(Callback):
    """Write summary.csv and summary.md (one row per cell) into the sweep folder."""

    def on_multirun_end(self, config, **kwargs):
        sweep_dir = Path(config.hydra.sweep.dir)
        results = load_cells(sweep_dir)
        if results.empty:
            return
        table = summarize(results)
        table.to_csv(sweep_dir / "summary.csv", index=False)
        (sweep_dir / "summary.md").write_text(markdown_table(table))
        log.info("Summary of %d cells in %s/summary.md", len(table), sweep_dir)
