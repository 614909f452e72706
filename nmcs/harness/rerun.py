"""Run one search of a cell again, from the cell's saved config and the search's index, and
compare it with the game the cell saved: the command that reproduces a published game bit for
bit.

    python -m nmcs.harness.rerun outputs/paper/morpion_record_hunt/base --search 137
    python -m nmcs.harness.rerun results/paper/morpion_record_hunt --cell base --search 137
    python -m nmcs.harness.rerun ... --save best   # also write best.psol / .png / .svg

The cell is a folder with ``meta.json`` (under ``outputs/``), or a published experiment folder
(``cells.jsonl.gz``, ``python -m analysis.publish``) and the name of one of its cells. The search
is compared with its saved row's moves where the rows keep them (``outputs/``), and with a record
hunt's saved game file ``records/.../search-<i>-score-<s>.psol`` where there is one. Exit status:
0 the same game, 1 a different one, 2 bad input (one line).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from nmcs.core.errors import ConfigError
from nmcs.harness.cell import cell_hash
from nmcs.harness.seeding import continued_identity, identity_scheme


def cell_meta(folder: Path, cell: str | None) -> dict[str, Any]:
    """The meta.json of the cell in ``folder`` (a cell folder, or a published experiment folder
    and ``cell``); ConfigError naming what is missing."""
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder")
    if (folder / "meta.json").exists():
        if cell is not None:
            raise ConfigError(f"--cell {cell}: {folder} is a cell folder already; leave --cell out")
        return dict(json.loads((folder / "meta.json").read_text()))
    packed = folder / "cells.jsonl.gz"
    if not packed.exists():
        raise ConfigError(f"{folder}: neither a cell folder (meta.json) nor a published experiment")
    metas = {}
    with gzip.open(packed, "rt") as lines:
        for line in lines:
            if line.strip():
                meta = json.loads(line)
                metas[meta["cell_dir"]] = meta
    if cell not in metas:
        raise ConfigError(f"--cell {cell}: not a cell of {folder} (allowed: {', '.join(metas)})")
    return metas[cell]


def saved_games(
    folder: Path, cell: str | None, search: int, game: Any, game_options: dict[str, Any]
) -> dict[str, np.ndarray]:
    """The saved forms of search ``search``'s game (the row's moves, and the game file of a
    record hunt, read by the game's record book): ``{where: moves}``."""
    found: dict[str, np.ndarray] = {}
    results = folder / "results.parquet"
    if cell is None and results.exists():
        rows = pd.read_parquet(results, columns=["search", "moves"])
        rows = rows[rows["search"] == search]
        if len(rows) and rows.iloc[0]["moves"] is not None:
            found[str(results)] = np.asarray(rows.iloc[0]["moves"], np.int32)
    book = game.records
    if book is None:
        return found
    records = folder / "records" / cell if cell is not None else folder / "records"
    for path in sorted(records.glob(f"search-{search:08d}-score-*{book.suffix}")):
        found[str(path)] = np.asarray(book.read_moves(path, game_options), np.int32)
    return found


def rerun(folder: Path, search: int, cell: str | None = None) -> tuple[Any, pd.Series]:
    """The validated cell and the row of search ``search`` run again."""
    from nmcs.harness.schema import Config  # noqa: PLC0415
    from nmcs.harness.validate import validate  # noqa: PLC0415

    meta = cell_meta(folder, cell)
    config = dict(meta["config"])
    config["progress"] = False
    # The seed scheme the cell was run under (a cell older than seed schemes: common seeds).
    config["seeds"] = identity_scheme(meta.get("identity", {}))
    cfg = OmegaConf.merge(OmegaConf.structured(Config), config)
    assert isinstance(cfg, DictConfig)
    validated = validate(cfg)
    # A cell seeded as another hash (its identity corrected after it ran) reruns with its seeds.
    continued = continued_identity(validated.identity, meta.get("identity"))
    if continued is not None:
        validated = dataclasses.replace(validated, identity=continued)
    name = cell_hash(validated.identity)
    if meta.get("cell") not in (None, name):
        raise ConfigError(
            f"{folder}: the cell's identity hash is {meta.get('cell')}, this code gives {name}: "
            "run the commit that made it (meta.json's git_commit)"
        )
    if not 0 <= search < int(validated.n):
        raise ConfigError(f"--search {search}: the cell has searches 0 to {validated.n - 1}")
    rows = validated.run_chunk(name, [search])
    return validated, rows.iloc[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nmcs.harness.rerun", description=__doc__)
    parser.add_argument("folder", type=Path, help="a cell folder, or a published experiment")
    parser.add_argument("--cell", help="with a published experiment: the cell's folder name")
    parser.add_argument("--search", type=int, required=True, help="the search's index")
    parser.add_argument("--save", type=Path, help="write the game's files to this stem")
    args = parser.parse_args(argv)
    try:
        validated, row = rerun(args.folder, args.search, args.cell)
    except ConfigError as error:
        print(f"rerun: error: {error}", file=sys.stderr)
        return 2
    moves = np.asarray(row["moves"], np.int32)
    print(
        f"search {args.search}: seed {row['search_seed']}, score {row['score']}, "
        f"{len(moves)} moves, {row['seconds']:.1f} s ({row['cpu_seconds']:.1f} s of CPU)"
    )
    if args.save is not None and validated.game.save_game is not None:
        validated.game.save_game(validated.state0, moves, args.save)
    same = True
    for where, saved in saved_games(
        args.folder, args.cell, args.search, validated.game, validated.game_options
    ).items():
        equal = np.array_equal(saved, moves)
        same &= equal
        print(f"{'identical to' if equal else 'DIFFERS from'} the game saved in {where}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
