"""The reduced paper table of NMCS for two-player games: its commands, its quick
version, and the cost of the reduced and the full table from a few matches per cell.

The reduced table is the paper experiments run with fewer matches per cell, nothing else:

- every nested setting against MCS at 250, 1,000 and 4,000 random playouts a move
  (``twoplayer_paper_playouts`` and ``_misere`` at paper scale), ``n_matches=100``;
- the 320 ms table for NMC(1)+COW and NMC(2)+COW (``twoplayer_paper_time`` and ``_misere``,
  ``player_a=nmc1_cow,nmc2_cow budget.ms=320``), ``n_matches=40``.

``n_matches`` is neither in a cell's folder name nor in its identity, so the reduced cells are
the first matches of the full table's cells: the same command with a larger ``n_matches`` (or
none: 500) extends them, and a killed run resumes where it stopped. The report marks every
claim that reads them "reduced run: n_matches=100" (``analysis.publish.reduced_overrides``).

    python benchmarks/twoplayer_reduced.py                  # run the reduced table (paper scale)
    python benchmarks/twoplayer_reduced.py --print          # only print its commands
    python benchmarks/twoplayer_reduced.py --scale quick    # the pipeline on 5x5 boards (< 1 min)
    python benchmarks/twoplayer_reduced.py --cost 2 --outputs /tmp/cost   # measure the cost
    python benchmarks/twoplayer_reduced.py --print hydra/launcher=slurm   # on a cluster

Any argument after the options is passed to every ``run.py`` command (a launcher, ``workers``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's nmcs, also where another one is installed
PLAYOUTS = ("twoplayer_paper_playouts", "twoplayer_paper_playouts_misere")
TIME = ("twoplayer_paper_time", "twoplayer_paper_time_misere")
# Matches per cell: the reduced table's, and the quick pipeline check's.
REDUCED_MATCHES = {"playouts": 100, "time": 40}
QUICK_MATCHES = 2
FULL_MATCHES = 500


def commands(
    scale: str = "paper", extra: list[str] | None = None, n_matches: int | None = None
) -> list[list[str]]:
    """The ``run.py`` argument lists of the reduced table at ``scale`` (``quick``: 5x5 boards,
    NMC(1)+COW and NMC(2)+COW, 100 playouts or 4 ms a move, 2 matches a cell); ``n_matches``
    replaces the matches per cell of every command (a cost measurement)."""
    if scale not in ("quick", "paper"):
        raise ValueError(f"scale must be 'quick' or 'paper', got {scale!r}")
    if n_matches is not None and (not isinstance(n_matches, int) or n_matches < 1):
        raise ValueError(f"n_matches must be a positive integer, got {n_matches!r}")
    extra = list(extra or [])
    quick = scale == "quick"
    out = []
    for experiment in PLAYOUTS:
        n = n_matches or (QUICK_MATCHES if quick else REDUCED_MATCHES["playouts"])
        out.append(["-m", f"experiment={experiment}", f"scale={scale}", f"n_matches={n}", *extra])
    for experiment in TIME:
        n = n_matches or (QUICK_MATCHES if quick else REDUCED_MATCHES["time"])
        ms = "4" if quick else "320"
        out.append(
            [
                "-m",
                f"experiment={experiment}",
                f"scale={scale}",
                f"n_matches={n}",
                "player_a=nmc1_cow,nmc2_cow",
                f"budget.ms={ms}",
                *extra,
            ]
        )
    return out


def run_py_process(args: list[str]) -> None:
    """``python run.py *args`` in a process of its own; raises if it fails."""
    subprocess.run([sys.executable, "run.py", *args], cwd=REPO, check=True)


def run(
    scale: str,
    extra: list[str],
    outputs: Path | None = None,
    n_matches: int | None = None,
    run_py: Callable[[list[str]], object] = run_py_process,
) -> None:
    """Every command of the reduced table, one after another (each resumes its cells), each
    through ``run_py`` (the tests run them in the test process, ``tests/helpers.py``)."""
    for args in commands(scale, extra, n_matches):
        if outputs is not None:
            args = [*args, f"hydra.sweep.dir={outputs / scale}"]
        print("python run.py " + " ".join(args), flush=True)
        run_py(args)


def cost_table(outputs: Path) -> pd.DataFrame:
    """Seconds per match of each measured cell (read from the cells' results) and the cost of
    the reduced and the full table in core-hours, per experiment: the mean seconds per match
    of its cells times the matches (each cell of the full sweep is one measured cell)."""
    from nmcs.harness.results import all_results

    rows = []
    for experiment in (*PLAYOUTS, *TIME):
        folder = outputs / "paper" / experiment
        if not folder.exists():
            continue
        df = all_results(folder, columns=["cell", "player_a", "game", "wall_seconds"])
        per_cell = df.groupby("cell")["wall_seconds"].mean()
        kind = "time" if experiment in TIME else "playouts"
        cells = len(per_cell)
        seconds = float(per_cell.sum())  # one match of each cell
        rows.append(
            {
                "experiment": experiment,
                "cells": cells,
                "matches_measured": len(df),
                "mean_s_per_match": seconds / cells,
                "reduced_core_h": seconds * REDUCED_MATCHES[kind] / 3600,
                "full_core_h": seconds * FULL_MATCHES / 3600,
            }
        )
    return pd.DataFrame(rows)


def main(
    argv: list[str] | None = None, run_py: Callable[[list[str]], object] = run_py_process
) -> None:
    """The command line; ``run_py`` runs each ``run.py`` command (see ``run``)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", choices=("quick", "paper"), default="paper")
    parser.add_argument("--print", action="store_true", help="print the commands, run nothing")
    parser.add_argument(
        "--cost",
        type=int,
        metavar="N",
        help="run N matches per cell of the paper-scale table into --outputs and print the "
        "cost of the reduced and the full table",
    )
    parser.add_argument("--outputs", type=Path, help="hydra.sweep.dir root (default: outputs/)")
    args, extra = parser.parse_known_args(argv)
    if args.cost is not None:
        if args.cost < 1 or args.outputs is None:
            parser.error("--cost N needs N >= 1 and --outputs")
    if args.print:
        for c in commands(args.scale, extra, args.cost):
            print("python run.py " + " ".join(c))
        return
    run(args.scale, extra, args.outputs, args.cost, run_py)
    if args.cost is not None:
        table = cost_table(args.outputs)
        print(table.to_string(index=False, float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
