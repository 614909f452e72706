"""Copy the finished cells of one scale into a compact folder that can be committed:

    python -m analysis.publish --outputs outputs --scale paper --to results/paper
    python -m analysis --from results/paper      # figures, tables, REPRODUCTION.md in it

Each cell keeps its ``results.parquet`` without the move lists and the per-search seeds (both
can be recomputed from the config); scores, counts and anytime traces stay, since every figure
and claim is drawn from those, and ``seconds`` holds the cell's mean search time (the analyses
use only means and sums of it; per-search times are noise that would make the copy ten times
larger). It also keeps ``meta.json`` (config, commit, machine, times) and its best game as
text. ``RUNS.md`` lists what was published: per
experiment the cells, searches, commits, machines and dates.
"""

import argparse
import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from nmcs.harness.provenance import now_iso
from nmcs.harness.summary import markdown_table

DROPPED_COLUMNS = ("moves", "search_seed")
# Keys that set how many searches (matches) a cell has without naming the cell: given on the
# command line, they made a run smaller (or larger) than its experiment's scale.
SIZE_KEYS = ("n_searches", "n_matches")


def reduced_overrides(meta: dict) -> str:
    """The command-line overrides that changed a cell's size from its experiment's scale ("" if
    none, or if the cell was run before ``meta.json`` recorded overrides)."""
    overrides = meta.get("overrides") or []
    return " ".join(o for o in overrides if o.split("=", 1)[0].lstrip("+~") in SIZE_KEYS)


def write_compact(df: pd.DataFrame, path: Path) -> None:
    """``df`` as zstd parquet with the search index delta-encoded (it counts up)."""
    table = pa.Table.from_pandas(df.sort_values("search"), preserve_index=False)
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=19,
        use_dictionary=[c for c in df.columns if c != "search"],
        column_encoding={"search": "DELTA_BINARY_PACKED"},
    )


def publish(outputs: Path, scale: str, target: Path) -> pd.DataFrame:
    """Copy every finished cell of ``outputs/<scale>`` into ``target`` (replacing a published
    copy of the same cell, keeping the others) and rewrite ``RUNS.md`` from everything
    ``target`` then holds; return one row per cell copied."""
    copied = []
    for results in sorted((outputs / scale).glob("*/*/results.parquet")):
        cell_dir = results.parent
        experiment = cell_dir.parent.name
        out = target / experiment / cell_dir.name
        out.mkdir(parents=True, exist_ok=True)
        df = pd.read_parquet(results)
        if "kind" in df.columns:  # hook (matches): per-move lists dropped, each match's time kept
            df = df.drop(columns=["seconds", "playouts"]).assign(seconds=df["wall_seconds"])
        seconds = float(df["seconds"].sum())
        df = df.drop(columns=[c for c in DROPPED_COLUMNS if c in df.columns])
        df["seconds"] = seconds / len(df)
        write_compact(df, out / "results.parquet")
        for name in ("meta.json", "best_game.txt"):
            if (cell_dir / name).exists():
                shutil.copy(cell_dir / name, out / name)
        copied.append(_run_row(out))
    table = pd.DataFrame([_run_row(p.parent) for p in sorted(target.glob("*/*/meta.json"))])
    if len(table):
        lines = [
            f"# Published results ({scale} scale)",
            "",
            f"Last published {now_iso()} by `python -m analysis.publish --scale {scale}`. Each "
            "cell was run by `python run.py -m experiment=<experiment> scale=paper` at the "
            "commit shown (`+`: with uncommitted changes), with the command-line overrides "
            "shown beside it where a run was reduced; `seconds` is the search time summed over "
            "its searches. Regenerate the report: `python -m analysis --from "
            f"{target}`.",
            "",
            markdown_table(table),
        ]
        (target / "RUNS.md").write_text("\n".join(lines))
    return pd.DataFrame(copied)


def _run_row(cell_dir: Path) -> dict:
    """One line of RUNS.md: a published cell's provenance, read from its own files."""
    meta = json.loads((cell_dir / "meta.json").read_text())
    df = pd.read_parquet(cell_dir / "results.parquet", columns=["seconds"])
    dirty = "+" if meta.get("git_dirty") else ""
    return {
        "experiment": cell_dir.parent.name,
        "cell": cell_dir.name,
        "searches": len(df),
        "reduced": reduced_overrides(meta),
        "commit": (meta.get("git_commit") or "unknown")[:10] + dirty,
        "cpu": meta.get("cpu"),
        "cores": meta.get("cores"),
        "finished": meta.get("finished"),
        "seconds": float(df["seconds"].sum()),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.publish", description=__doc__)
    parser.add_argument("--outputs", type=Path, default=Path("outputs"))
    parser.add_argument("--scale", default="paper")
    parser.add_argument("--to", type=Path, default=Path("results/paper"))
    args = parser.parse_args(argv)
    if not (args.outputs / args.scale).is_dir():
        print(f"publish: error: no folder '{args.outputs / args.scale}'", file=sys.stderr)
        return 2
    table = publish(args.outputs, args.scale, args.to)
    print(f"publish: {len(table)} cells into {args.to}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
