"""Speed of the work tree beside a given commit, in interleaved pairs: the check that backs a
"speed unchanged" (or "faster") in a commit message or the README.

    python benchmarks/compare_commits.py --ref HEAD~1                 # the default cells
    python benchmarks/compare_commits.py --ref aa23b13 --pairs 9 \\
        --cell "game=leftmove level=3 n_searches=300"                  # any run.py cell
    make bench REF=HEAD~1                                             # the same, from make

The reference commit is checked out into a temporary git worktree. Each cell runs first once in
each tree (compiling, or loading the compiled code; not timed), then ``--pairs`` times in
each, the two trees alternating which goes first. A run is ``python run.py <cell> workers=1
progress=false`` in a fresh results folder, and its speed is the median of the per-search
``seconds`` of its ``results.parquet`` (the searches' own time: no start-up, no compilation).
Both trees run with the interpreter that runs this script, pinned to one core (``--cpu``)
where ``taskset`` exists.

Prints, per cell, both medians of each pair and the ratio ref / work (above 1: the work tree is
faster), its median and range over the pairs; a range that holds 1 is within noise.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from ref_worktree import ref_worktree  # benchmarks/ is on sys.path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CELLS = [
    "game=leftmove level=3 n_searches=300",
    "game=leftmove level=3 memorize=false n_searches=300",
    "game=morpion level=1 n_searches=100",
    "game=samegame game.instance=0 level=1 n_searches=100",
]


def run_cell(tree: Path, cell: str, out: Path, cpu: int | None) -> float:
    """Median per-search seconds of one run of ``cell`` in ``tree``."""
    command = [sys.executable, "run.py", *cell.split(), "workers=1", "progress=false"]
    command.append(f"hydra.run.dir={out}")
    if cpu is not None and shutil.which("taskset"):
        command = ["taskset", "-c", str(cpu), *command]
    # Compiled code is cached under one root for both trees: its folders are named after a hash
    # of the jitted sources, so the two never mix, and a second comparison loads the first's.
    env = {**os.environ, "NMCS_CACHE_ROOT": str(ROOT / ".numba_cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        sys.exit(f"compare_commits: '{cell}' failed in {tree}: {' '.join(tail)}")
    results = out / "results.parquet"
    if not results.exists():
        sys.exit(f"compare_commits: '{cell}' wrote no {results}")
    seconds = pd.read_parquet(results, columns=["seconds"])["seconds"].to_numpy()
    shutil.rmtree(out)
    return float(np.median(seconds))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--ref", required=True, help="the commit to compare with (e.g. HEAD~1)")
    parser.add_argument("--cell", action="append", help="run.py overrides of one cell (repeat)")
    parser.add_argument("--pairs", type=int, default=5, help="interleaved pairs per cell")
    parser.add_argument("--cpu", type=int, default=0, help="core to pin both trees to (-1: none)")
    parser.add_argument("--json", help="also write the figures to this JSON file")
    args = parser.parse_args()
    cells = args.cell or DEFAULT_CELLS
    cpu = None if args.cpu < 0 else args.cpu
    rows = []
    with ref_worktree(args.ref, "compare_commits") as (ref, ref_tree, tmp):
        trees = {"ref": ref_tree, "work": ROOT}
        print(f"work tree ({ROOT}) against {ref}; {args.pairs} interleaved pairs per cell")
        for cell in cells:
            for side, tree in trees.items():  # compile or load: not timed
                run_cell(tree, cell, Path(tmp) / f"warm_{side}", cpu)
            ms = {"ref": [], "work": []}
            for p in range(args.pairs):
                order = ("ref", "work") if p % 2 == 0 else ("work", "ref")
                for side in order:
                    out = Path(tmp) / f"run_{side}_{p}"
                    ms[side].append(1e3 * run_cell(trees[side], cell, out, cpu))
            ratios = [r / w for r, w in zip(ms["ref"], ms["work"], strict=True)]
            verdict = (
                "within noise"
                if min(ratios) <= 1.0 <= max(ratios)
                else ("work tree faster" if min(ratios) > 1.0 else "work tree SLOWER")
            )
            print(f"\n{cell}")
            print("  pair   ref ms/search  work ms/search  ref/work")
            for p in range(args.pairs):
                print(f"  {p:>4} {ms['ref'][p]:>15.4f} {ms['work'][p]:>15.4f} {ratios[p]:>9.3f}")
            print(
                f"  ref/work median {np.median(ratios):.3f} "
                f"(range {min(ratios):.3f}-{max(ratios):.3f}): {verdict}"
            )
            rows.append({"cell": cell, "ref": ref, **ms, "ratios": ratios, "verdict": verdict})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
