"""``python -m nmcs.theory``: the exact score distribution of a nested search on the left move.

    python -m nmcs.theory --depth 9 --level 3 --memorize-from 1
    python -m nmcs.theory --depth 9 --level 3 --no-memorize

prints P(score = s) for s = 0..depth and a line ``P(best score) = ...``. With memorization the
numbers come from ``nmcs.theory.leftmove_memorized`` (exact fractions up to depth
``EXACT_UP_TO``, float64 beyond or with ``--float``, with its rounding bound); without, from the
dynamic programme of ``nmcs.theory.leftmove``. A bad argument stops with one line on stderr and
exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import NoReturn

from nmcs.theory import leftmove_memorized as memorized

EXACT_UP_TO = 12  # default: exact fractions up to this depth (about a second at level 3)
PROG = "python -m nmcs.theory"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


def decimal(p: Fraction, digits: int = 18) -> str:
    """``p`` (in [0, 1]) rounded to ``digits`` decimals, computed exactly."""
    scaled = (p.numerator * 10**digits * 2 + p.denominator) // (2 * p.denominator)
    whole, frac = divmod(scaled, 10**digits)
    return f"{whole}.{frac:0{digits}d}"


def fraction_text(p: Fraction) -> str:
    """``p`` as numerator/denominator, the denominator as 2^e when it is a power of two."""
    d = p.denominator
    if d > 1 and d & (d - 1) == 0:
        return f"{p.numerator}/2^{d.bit_length() - 1}"
    return f"{p.numerator}/{d}"


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = _Parser(
        prog=PROG,
        description="Exact score distribution of nested Monte-Carlo search on the left move "
        "(NMCS paper, section 4.2), with or without memorization, under the engine's rules.",
    )
    parser.add_argument("--depth", type=int, required=True, help="moves in the tree")
    parser.add_argument("--level", type=int, required=True, help="search level, 1 or more")
    parser.add_argument(
        "--memorize-from",
        type=int,
        default=1,
        help="the lowest level that memorizes (the engine's memorize_from; default 1)",
    )
    parser.add_argument(
        "--no-memorize", action="store_true", help="no level memorizes (the paper's DP)"
    )
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--exact", action="store_true", help="exact fractions at any depth")
    kind.add_argument("--float", action="store_true", help="float64 at any depth")
    args = parser.parse_args(argv)
    if not 1 <= args.level <= memorized.MAX_LEVEL:
        parser.error(
            f"--level {args.level}: must be from 1 to {memorized.MAX_LEVEL} (level 0 is one "
            "playout: its score is Binomial(depth, 1/2))"
        )
    if not args.no_memorize and not 1 <= args.memorize_from <= args.level:
        parser.error(
            f"--memorize-from {args.memorize_from}: must be from 1 to the level "
            f"({args.level}); --no-memorize for a search that never memorizes"
        )
    memorize_from = None if args.no_memorize else args.memorize_from
    exact = args.exact or (not args.float and args.depth <= EXACT_UP_TO)
    if args.no_memorize:
        limit = memorized.leftmove.MAX_DEPTH
    else:
        limit = memorized.MAX_DEPTH_EXACT if exact else memorized.MAX_DEPTH_FLOAT
    if not 1 <= args.depth <= limit:
        more = ""
        if not args.no_memorize:
            more = (
                f" with memorization (exact fractions up to {memorized.MAX_DEPTH_EXACT}, "
                f"float64 up to {memorized.MAX_DEPTH_FLOAT})"
            )
        parser.error(f"--depth {args.depth}: must be from 1 to {limit}{more}")
    args.memorize_from = memorize_from
    args.exact = exact
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    depth, level, mf = args.depth, args.level, args.memorize_from
    dist = memorized.score_distribution(depth, level, mf, exact=args.exact)
    if mf is None:
        how = "without memorization"
    elif mf == 1:
        how = "memorized at every level (memorize_from=1)"
    else:
        how = f"memorized from level {mf} up (memorize_from={mf})"
    kind = "exact" if args.exact else "float64"
    print(f"left move, depth {depth}, level {level}, {how}, ties at random; {kind}")
    print("score  P(score)")
    for s, p in enumerate(dist):
        text = decimal(Fraction(p)) if args.exact else f"{float(p):.15f}"
        print(f"{s:5d}  {text}")
    best = dist[depth]
    if args.exact:
        best = Fraction(best)
        print(f"P(best score) = {decimal(best)} = {fraction_text(best)}")
    else:
        bound = memorized.rounding_bound(depth, level, mf) if mf else None
        note = f"relative rounding error <= {bound:.1e}" if bound else "float64"
        print(f"P(best score) = {float(best):.15f} ({note})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
