"""Put published search cells back into ``outputs/`` so that a long run goes on where the
published one stopped, on any machine:

    python -m analysis.restore --from results/paper --experiment mcbs_table1
    python run.py -m experiment=mcbs_table1 scale=paper      # runs only the searches not published

``outputs/`` does not travel between machines; ``results/paper`` does (it is committed). Each
published cell of the experiment becomes ``outputs/<scale>/<experiment>/<cell_dir>/`` with its
``meta.json`` (so its identity is checked on resume as usual), its best game, and its published
searches as one chunk (``chunks/published.parquet``). Raising ``n_searches`` then extends it in
place, and ``python -m analysis.publish`` packs the whole cell again.

What publishing dropped stays dropped: a restored search has no move list (null; the cell's
best game is kept as published unless a new search beats it) and its ``seconds`` (and
``cpu_seconds``) is the mean of its cell; its seed is recomputed from the config. Cells
published as counts (over ``COUNTED_ABOVE`` identical rows, search -1) have lost their search
indices and cannot be resumed; match cells dropped their per-move columns: both are refused
by name. A cell folder that already exists is left alone when it holds another config, and
otherwise receives only the searches it does not hold yet.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from analysis.publish import read_published
from nmcs.harness.batch import seeds_for
from nmcs.harness.cell import atomic_write_bytes, atomic_write_parquet, done_items
from nmcs.harness.seeding import seed_key

RESTORED_CHUNK = "published.parquet"
PUBLISH_ONLY_COLUMNS = ("cell_dir", "count")


def restore_experiment(experiment_dir: Path, outputs: Path) -> list[str]:
    """Restore every search cell of one published experiment; return one line per cell."""
    rows, metas, games = read_published(experiment_dir)
    lines = []
    for cell_dir, meta in sorted(metas.items()):
        meta = {k: v for k, v in meta.items() if k != "cell_dir"}
        cell_rows = rows[rows["cell_dir"] == cell_dir] if len(rows) else rows
        where = f"{experiment_dir.name}/{cell_dir}"
        if meta.get("kind", "searches") != "searches":
            lines.append(f"{where}: skipped (a match cell; published without its per-move data)")
            continue
        if (cell_rows["search"] < 0).any():
            lines.append(f"{where}: skipped (published as counts: search indices not kept)")
            continue
        scale = meta["config"]["scale"]["name"]
        out_dir = outputs / scale / experiment_dir.name / cell_dir
        chunk_dir = out_dir / "chunks"
        if (out_dir / "meta.json").exists():
            here = json.loads((out_dir / "meta.json").read_text())
            if here.get("identity") != meta.get("identity"):
                lines.append(f"{where}: skipped ({out_dir} holds another config)")
                continue
            done = done_items(chunk_dir) if chunk_dir.exists() else set()
        else:
            done = set()
        chunk = cell_rows.drop(columns=[c for c in PUBLISH_ONLY_COLUMNS if c in cell_rows])
        chunk = chunk[~chunk["search"].isin(done)].sort_values("search").reset_index(drop=True)
        if chunk.empty:
            lines.append(f"{where}: nothing to restore ({len(done)} searches already in {out_dir})")
            continue
        chunk = chunk.assign(
            search_seed=seeds_for(
                int(meta["config"]["seed"]), chunk["search"], seed_key(meta["identity"])
            ),
            moves=pd.Series([None] * len(chunk), dtype=object),
        )
        chunk_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_parquet(chunk, chunk_dir / RESTORED_CHUNK)
        if not (out_dir / "meta.json").exists():
            # Not finished until the driver gathers it: a restored cell is resumed, not complete.
            meta.update(finished=None, n_done=len(chunk))
            atomic_write_bytes(out_dir / "meta.json", json.dumps(meta, indent=2).encode())
        if cell_dir in games and not (out_dir / "best_game.txt").exists():
            atomic_write_bytes(out_dir / "best_game.txt", (games[cell_dir] + "\n").encode())
        lines.append(f"{where}: {len(chunk)} searches restored into {out_dir}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.restore", description=__doc__)
    parser.add_argument("--from", dest="published", type=Path, default=Path("results/paper"))
    parser.add_argument("--outputs", type=Path, default=Path("outputs"))
    parser.add_argument(
        "--experiment", action="append", required=True, help="an experiment to restore (repeat)"
    )
    args = parser.parse_args(argv)
    for experiment in args.experiment:
        folder = args.published / experiment
        if not folder.is_dir():
            known = sorted(p.name for p in args.published.glob("*/") if p.is_dir())
            print(
                f"restore: error: no published experiment '{experiment}' in {args.published} "
                f"(published: {', '.join(known) or 'none'})",
                file=sys.stderr,
            )
            return 2
    for experiment in args.experiment:
        for line in restore_experiment(args.published / experiment, args.outputs):
            print(f"restore: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
