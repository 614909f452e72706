"""Rebuild every figure, table and outputs/REPRODUCTION.md from the results in outputs/."""

import argparse
import sys
from pathlib import Path

from analysis import leftmove, morpion, samegame, sudoku
from analysis.common import Context
from analysis.report import write_report
from nmcs.harness.schema import SCALES

MODULES = (leftmove, morpion, samegame, sudoku)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    parser.add_argument(
        "--outputs",
        type=Path,
        default=Path("outputs"),
        help="folder holding <scale>/<experiment>/<cell> results (default: outputs)",
    )
    parser.add_argument("--scale", choices=(*SCALES, "all"), default="all")
    args = parser.parse_args(argv)
    if not args.outputs.is_dir():
        print(
            f"analysis: error: no results folder '{args.outputs}' (run `python run.py` first)",
            file=sys.stderr,
        )
        return 2
    scales = SCALES if args.scale == "all" else (args.scale,)
    claims = {}
    for scale in scales:
        if not (args.outputs / scale).is_dir():
            continue
        ctx = Context(args.outputs, scale)
        claims[scale] = [c for module in MODULES for c in module.analyze(ctx)]
        print(
            f"analysis: {scale}: {len(claims[scale])} claims checked; figures in "
            f"{ctx.figures}, tables in {ctx.tables}"
        )
    report = write_report(args.outputs, claims)
    print(f"analysis: wrote {report}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
