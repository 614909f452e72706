"""Copy the finished cells of one scale into a compact folder that can be committed:

    python -m analysis.publish --outputs outputs --scale paper --to results/paper
    python -m analysis --from results/paper --publish   # figures, tables, REPRODUCTION.md in it
    python -m analysis --from results/paper      # the same into outputs/published/paper/

Each experiment is packed into three files, whatever its number of cells (a cell of one search
cost about 20 kB as its own folder: a parquet footer, a meta.json and a best game):

    <to>/<experiment>/results.parquet   every search of every cell, with a ``cell_dir`` column
                                        (the cell's folder name under outputs/)
                     /cells.jsonl.gz    one line per cell: {"cell_dir": ..., **its meta.json}
                     /best_games.txt    each cell's best game as text, under "## <cell_dir>"
                     /records/<cell_dir>/  a record hunt's saved games (.psol, .png)

The rows keep scores, counts and anytime traces, since every figure and claim is drawn from
those; the move lists and per-search seeds are dropped (both can be recomputed from the
config), and ``seconds`` and ``cpu_seconds`` hold the cell's mean search time, wall and CPU (the
analyses use only means and sums of them; per-search times are noise that would make the copy
ten times larger; a cell with rows from before CPU time was recorded has no mean CPU time:
NaN). A cell of more than ``COUNTED_ABOVE`` searches whose rows repeat (the left-move cells of
100,000: the score is the only column that varies, over a few values) keeps them as counts:
rows that differ only in their search index are stored once, with their number in ``count``
and search -1 (``nmcs.harness.results`` expands them on reading). Its 100,000 scores then take a few
hundred bytes, not the 20 kB of their entropy one row each: the analyses read distributions,
and any one search can be recomputed from its config and index. ``meta.json`` keeps the config,
commit, machine and times (compressed: its lines repeat one another). Publishing again replaces
the cells it copies and keeps the others; experiments published by an older version (one folder
per cell, or packed without counts) are packed again on the way.
``RUNS.md`` lists what was published: per experiment the cells, searches, seed schemes, commits
(and whether the working tree had uncommitted changes), machines and dates.
"""

import argparse
import functools
import gzip
import json
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from nmcs.harness.seeding import identity_scheme
from nmcs.harness.summary import markdown_table

DROPPED_COLUMNS = ("moves", "search_seed")
# Keys that set how many searches (matches) a cell has, or how long each may run, given on the
# command line: they made a run smaller (or larger) than its experiment's scale.
SIZE_KEYS = ("n_searches", "n_matches", "budget.seconds", "budget.playouts", "budget.ms")
PACKED_RESULTS, PACKED_CELLS, PACKED_GAMES = "results.parquet", "cells.jsonl.gz", "best_games.txt"
OLD_PACKED_CELLS = "cells.jsonl"  # before it was compressed; read, and replaced on publish
# A cell of more searches than this is published as counts of identical rows.
COUNTED_ABOVE = 10_000
GAME_HEADER = "## "
EXPERIMENTS_DIR = Path(__file__).resolve().parents[1] / "conf" / "experiment"


def experiment_yaml(experiment: str) -> dict:
    """An experiment's YAML as parsed (do not change it), {} if there is none. Parsed once per
    file version: the analysis asks for every cell (5,000 parses, 27 s of a report, before)."""
    path = EXPERIMENTS_DIR / f"{experiment}.yaml"
    if not path.exists():
        return {}
    return _parse_yaml(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=256)
def _parse_yaml(path: Path, mtime_ns: int) -> dict:
    return yaml.safe_load(path.read_text()) or {}


def swept_keys(experiment: str) -> set[str]:
    """The keys an experiment sweeps itself (its YAML's ``hydra.sweeper.params``): a budget
    that an experiment sweeps names a cell, it does not reduce a run."""
    config = experiment_yaml(experiment)
    return set(((config.get("hydra") or {}).get("sweeper") or {}).get("params") or {})


def reduced_overrides(meta: dict, experiment: str = "") -> str:
    """The command-line overrides that made a cell's run smaller than (or different from) its
    experiment's scale: its size or budget (``n_searches=3``, ``budget.seconds=40.96``), unless
    the experiment sweeps that key itself (then each value is a cell of its own). "" if none,
    or if the cell was run before ``meta.json`` recorded overrides. Read from the command line
    as typed where it was recorded, else from the job's overrides. (A sweep over fewer values
    than the experiment's leaves cells out; that does not change the cells that ran, and the
    claims say how many they read.)"""
    swept = swept_keys(experiment) if experiment else set()
    typed = meta.get("command_line")
    overrides = typed if typed is not None else meta.get("overrides") or []
    scale = (meta.get("config") or {}).get("scale")
    scale = scale.get("name") if isinstance(scale, dict) else scale
    kept = []
    for o in overrides:
        key, _, value = o.partition("=")
        key = key.lstrip("+~")
        if key not in SIZE_KEYS or key in swept:
            continue
        if experiment and scale and _same_value(value, scale_value(experiment, key, scale)):
            continue  # typed, but the scale's own size: not a reduced run
        kept.append(o)
    return " ".join(kept)


def _same_value(typed: str, own: str | None) -> bool:
    """Whether a typed override is the scale's own value (``163`` and ``163.0`` are)."""
    if own is None:
        return False
    try:
        return float(typed) == float(own)
    except ValueError:
        return typed == own


BY_SCALE = re.compile(r"^\$\{by_scale:\s*([^,]+?)\s*,\s*([^,]+?)\s*\}$")


def scale_value(experiment: str, key: str, scale: str) -> str | None:
    """The value an experiment's YAML gives ``key`` (dotted) at ``scale``, as typed on a command
    line (``${by_scale:3,50}`` at paper: ``"50"``); None where it sets none."""
    node: Any = experiment_yaml(experiment)
    if not node:
        return None
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    if isinstance(node, str) and (match := BY_SCALE.match(node)):
        node = match.group(1 if scale == "quick" else 2)
    return None if isinstance(node, dict | list) else str(node)


def cell_metas(experiment_dir: Path) -> dict[str, dict]:
    """cell folder name -> its meta.json, for an experiment folder of outputs/ (one folder per
    cell) or of a published copy (packed in cells.jsonl)."""
    metas = {p.parent.name: json.loads(p.read_text()) for p in experiment_dir.glob("*/meta.json")}
    for name, read in ((PACKED_CELLS, gzip.open), (OLD_PACKED_CELLS, open)):
        if (experiment_dir / name).exists():
            with read(experiment_dir / name, "rt") as lines:
                for line in lines:
                    meta = json.loads(line)
                    metas.setdefault(meta.pop("cell_dir"), meta)
    return metas


def write_compact(df: pd.DataFrame, path: Path) -> None:
    """``df`` as zstd parquet with the search index delta-encoded (it counts up in each cell)."""
    table = pa.Table.from_pandas(
        df.sort_values(["cell_dir", "search"], kind="stable"), preserve_index=False
    )
    pq.write_table(
        table,
        path,
        compression="zstd",
        compression_level=19,
        use_dictionary=[c for c in df.columns if c != "search"],
        column_encoding={"search": "DELTA_BINARY_PACKED"},
        write_statistics=False,  # min/max per page: a third of the file for constant columns
    )


def counted(df: pd.DataFrame) -> pd.DataFrame:
    """One cell's rows with those that differ only in their search index stored once: their
    number in ``count``, search -1. Rows with a list column (an anytime trace) compare by its
    contents."""
    keys = [c for c in df.columns if c not in ("search", "count")]
    hashable = df[keys].apply(lambda c: c.map(_hashable) if c.dtype == object else c)
    groups = hashable.groupby(keys, dropna=False, sort=False).ngroup()
    first = ~groups.duplicated()
    counts = df["count"].groupby(groups).sum() if "count" in df.columns else groups.value_counts()
    return df[first.to_numpy()].assign(search=-1, count=counts.reindex(groups[first]).to_numpy())


def counted_if_smaller(df: pd.DataFrame) -> pd.DataFrame:
    """One cell's rows, counted where that stores them in a tenth of the rows or fewer (a cell
    of many searches that end alike); otherwise as they are, with their search indices."""
    if len(df) <= COUNTED_ABOVE or (df["search"] < 0).any():
        return df
    rows = counted(df)
    return rows if 10 * len(rows) <= len(df) else df


def _hashable(value: Any) -> Any:
    return value if value is None or isinstance(value, str) else tuple(value)


def recounted(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows read from a published copy, with the cells of many searches that an older publish
    kept one row per search counted now."""
    if "count" not in rows.columns:
        rows = rows.assign(count=1)
    big = rows.groupby("cell_dir")["count"].transform("size") > COUNTED_ABOVE
    if not big.any():
        return rows
    return pd.concat(
        [rows[~big], *(counted_if_smaller(c) for _, c in rows[big].groupby("cell_dir"))],
        ignore_index=True,
    )


def compact_rows(df: pd.DataFrame, cell_dir: str) -> pd.DataFrame:
    """One cell's rows as published: no move lists or seeds, its mean search time (wall, and
    CPU where every row has it)."""
    if "kind" in df.columns:  # hook (matches): per-move lists dropped, each match's time kept
        df = df.drop(columns=["seconds", "playouts"]).assign(seconds=df["wall_seconds"])
    seconds = float(df["seconds"].sum())
    df = df.drop(columns=[c for c in DROPPED_COLUMNS if c in df.columns])
    df = df.assign(seconds=seconds / len(df), cell_dir=cell_dir, count=1)
    if "cpu_seconds" in df.columns:
        df = df.assign(cpu_seconds=float(df["cpu_seconds"].sum(skipna=False)) / len(df))
    return counted_if_smaller(df)


def _read_games(path: Path) -> dict[str, str]:
    games: dict[str, str] = {}
    if path.exists():
        for block in path.read_text().split("\n" + GAME_HEADER):
            name, _, text = block.removeprefix(GAME_HEADER).partition("\n")
            if name:
                games[name] = text.rstrip("\n")
    return games


def read_published(experiment_dir: Path) -> tuple[pd.DataFrame, dict[str, dict], dict[str, str]]:
    """A published experiment: its rows, each cell's meta and each cell's best game, from the
    packed files and from any cell folders an older publish left there."""
    parts, games = [], _read_games(experiment_dir / PACKED_GAMES)
    if (experiment_dir / PACKED_RESULTS).exists():
        parts.append(pd.read_parquet(experiment_dir / PACKED_RESULTS))
    for results in sorted(experiment_dir.glob("*/results.parquet")):
        parts.append(pd.read_parquet(results).assign(cell_dir=results.parent.name))
        if (results.parent / "best_game.txt").exists():
            games[results.parent.name] = (results.parent / "best_game.txt").read_text().rstrip()
    parts = [recounted(p) for p in parts if len(p)]
    rows = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return rows, cell_metas(experiment_dir), games


def write_published(
    experiment_dir: Path, rows: pd.DataFrame, metas: dict[str, dict], games: dict[str, str]
) -> None:
    """Write one experiment's packed files, and remove the cell folders they replace."""
    experiment_dir.mkdir(parents=True, exist_ok=True)
    cells = sorted(metas)
    write_compact(rows, experiment_dir / PACKED_RESULTS)
    lines = [json.dumps({"cell_dir": c, **metas[c]}, separators=(",", ":")) for c in cells]
    # mtime=0: the same cells give the same bytes, so a publish that changes nothing shows no diff
    with open(experiment_dir / PACKED_CELLS, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as packed:
            packed.write(("\n".join(lines) + "\n").encode())
    (experiment_dir / OLD_PACKED_CELLS).unlink(missing_ok=True)
    text = "".join(f"{GAME_HEADER}{c}\n{games[c]}\n\n" for c in cells if c in games)
    (experiment_dir / PACKED_GAMES).write_text(text)
    for folder in experiment_dir.iterdir():
        if folder.is_dir() and (folder / "meta.json").exists():
            shutil.rmtree(folder)


def game_files() -> set[str]:
    """The suffixes of a record hunt's published files: every record book's game file, and the
    pictures."""
    from nmcs.games import registry  # noqa: PLC0415

    books = (registry.game(name).records for name in registry.names())
    return {book.suffix for book in books if book is not None} | {".png"}


def copy_record_games(cell_dir: Path, experiment_dir: Path) -> None:
    """A record hunt's saved games (``<cell>/records/*``: Morpion's ``.psol``, SameGame's
    ``.sgm``, and their ``.png``) into ``<experiment>/records/<cell>/``, with ``games.csv``
    (search, search_seed, score): the games themselves, which the packed rows do not keep."""
    files = [p for p in sorted((cell_dir / "records").glob("*")) if p.suffix in game_files()]
    if not files:
        return
    into = experiment_dir / "records" / cell_dir.name
    into.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copyfile(path, into / path.name)
    # The seeds of those searches, which the packed rows drop: a reader checks a game's seed
    # against the cell's config without rerunning it.
    rows = pd.read_parquet(cell_dir / "results.parquet", columns=["search", "search_seed", "score"])
    saved = {int(p.stem.split("-")[1]) for p in files if p.suffix != ".png"}
    rows = rows[rows["search"].isin(saved)].sort_values("search")
    rows.to_csv(into / "games.csv", index=False)


def publish(outputs: Path, scale: str, target: Path) -> pd.DataFrame:
    """Pack every finished cell of ``outputs/<scale>`` into ``target`` (replacing a published
    copy of the same cell, keeping the others) and rewrite ``RUNS.md`` from everything
    ``target`` then holds; return one row per cell copied."""
    finished: dict[str, list[Path]] = {}
    for results in sorted((outputs / scale).glob("*/*/results.parquet")):
        if _being_extended(results.parent):
            continue
        finished.setdefault(results.parent.parent.name, []).append(results.parent)
    # Experiments an older version published (one folder per cell, or packed without counts
    # and compression) are packed again as well.
    for folder in sorted(target.glob("*/")):
        older = any(folder.glob("*/meta.json")) or (folder / OLD_PACKED_CELLS).exists()
        if folder.name not in finished and older:
            write_published(folder, *read_published(folder))
    copied = []
    for experiment, cell_dirs in finished.items():
        rows, metas, games = read_published(target / experiment)
        names = {c.name for c in cell_dirs}
        parts = [rows[~rows["cell_dir"].isin(names)]] if len(rows) else []
        for cell_dir in cell_dirs:
            parts.append(compact_rows(pd.read_parquet(cell_dir / "results.parquet"), cell_dir.name))
            metas[cell_dir.name] = json.loads((cell_dir / "meta.json").read_text())
            game = cell_dir / "best_game.txt"
            if game.exists():
                games[cell_dir.name] = game.read_text().rstrip()
            else:
                games.pop(cell_dir.name, None)
        rows = pd.concat(parts, ignore_index=True)
        write_published(target / experiment, rows, metas, games)
        for cell_dir in cell_dirs:
            copy_record_games(cell_dir, target / experiment)
        copied += [r for r in _run_rows(target / experiment) if r["cell"] in names]
    write_runs(target, scale)
    return pd.DataFrame(copied)


def write_runs(target: Path, scale: str) -> None:
    """Rewrite ``target/RUNS.md`` from everything ``target`` holds: each cell's provenance, its
    seed scheme and whether it ran from a modified working tree. The same cells give the same
    bytes (no date of its own: each cell's is in its row)."""
    table = pd.DataFrame([r for folder in sorted(target.glob("*/")) for r in _run_rows(folder)])
    if len(table):
        seeds = table["seeds"].value_counts()
        lines = [
            f"# Published results ({scale} scale)",
            "",
            f"Written by `python -m analysis.publish --scale {scale}` (and again by `python -m "
            f"analysis --from {target} --publish`) from the cells packed here. Each cell was run "
            "by `python run.py -m experiment=<experiment> scale=paper` at the commit shown, with "
            "the command-line overrides shown beside it where a run was reduced; `seconds` is "
            "the search time summed over its searches. Regenerate the report: `python -m "
            f"analysis --from {target}`.",
            "",
            f"`seeds`: how the cell's searches were seeded (`nmcs.harness.seeding`): `cell`, its "
            "own stream (cells independent); `common`, search i of every such cell with the same "
            "base seed shares its random numbers (the analysis pairs such cells search by "
            f"search). {_count(seeds.get('common', 0))} common, {_count(seeds.get('cell', 0))} "
            "cell. `tree`: `modified` where the cell ran from a working tree with uncommitted "
            f"changes, so that the commit shown is not the whole of its code "
            f"({_count(int((table['tree'] == 'modified').sum()))} of {_count(len(table))} "
            "cells).",
            "",
            markdown_table(table),
        ]
        (target / "RUNS.md").write_text("\n".join(lines))


def _count(n: int) -> str:
    return f"{int(n):,}"


def seed_scheme(meta: dict) -> str:
    """A cell's seed scheme as its ``meta.json`` records it (its identity; ``common`` for an
    identity from before schemes existed)."""
    identity = meta.get("identity")
    if isinstance(identity, dict):
        return identity_scheme(identity)
    return str(meta.get("seed_scheme") or "unknown")


def _being_extended(cell_dir: Path) -> bool:
    """Whether a finished cell is being extended (``n_searches`` raised, the run under way or
    interrupted): its ``results.parquet`` still holds the finished run, but its ``meta.json``
    already names the larger one (``finished`` null), so the pair would be published with the
    wrong size. Such a cell is left out, and a copy published before it is kept, until the
    extension finishes."""
    meta = json.loads((cell_dir / "meta.json").read_text())
    if "finished" in meta and meta["finished"] is None:
        print(
            f"publish: {cell_dir.parent.name}/{cell_dir.name}: left out, its extension is not "
            "finished (run it again to finish it)",
            file=sys.stderr,
        )
        return True
    return False


def _run_rows(experiment_dir: Path) -> list[dict]:
    """The lines of RUNS.md for one published experiment: each cell's provenance."""
    if not any((experiment_dir / n).exists() for n in (PACKED_CELLS, OLD_PACKED_CELLS)):
        return []
    metas = cell_metas(experiment_dir)
    df = pd.read_parquet(experiment_dir / PACKED_RESULTS)
    count = df["count"] if "count" in df.columns else 1
    df = df.assign(size=count, seconds=df["seconds"] * count)
    per_cell = df.groupby("cell_dir")[["size", "seconds"]].sum().rename(columns={"seconds": "sum"})
    rows = []
    for cell, meta in sorted(metas.items()):
        rows.append(
            {
                "experiment": experiment_dir.name,
                "cell": cell,
                "searches": int(per_cell.loc[cell, "size"]) if cell in per_cell.index else 0,
                "reduced": reduced_overrides(meta, experiment_dir.name),
                "seeds": seed_scheme(meta),
                "commit": (meta.get("git_commit") or "unknown")[:10],
                "tree": "modified" if meta.get("git_dirty") else "clean",
                "cpu": meta.get("cpu"),
                "cores": meta.get("cores"),
                "finished": meta.get("finished"),
                "seconds": float(per_cell.loc[cell, "sum"]) if cell in per_cell.index else 0.0,
            }
        )
    return rows


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
