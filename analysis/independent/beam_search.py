"""Monte-Carlo Beam Search (Cazenave 2012, Algorithm 2) on the left move problem, in plain
Python from the paper's pseudo-code, to check the engine's ``nmcs.search.beam`` (no code shared
with it).

A position is the list of moves played from the root (1 = left, 0 = right); its score is the
number of left moves of its best game. One step of a level-l search: every beam position,
advanced by the next move of its best game (kept as it is when the game is over), plus every
child searched at level l-1 (a random game at level 1); the next beam is the best ``width`` of
them. Ties: a memorized position beats a child; children of equal score are ordered at random;
memorized positions keep the previous beam's order. The start position, which has no game yet,
is not kept. The search stops when no beam position has a move left.

The two readings of what the paper leaves open (``algo.ties``, ``algo.merge_duplicates``):
``ties="first"`` orders equal children as they were generated (beam order, then left before
right) instead of at random; ``merge=True`` treats the next beam as a set of positions, a
position being what the game can tell apart (depth and number of left moves; the move list is
only how it was reached): going down the ranking, an entry whose position is already in the
next beam is skipped.

    python -m analysis.independent.beam_search --depth 9 --level 2 --widths 2 2 --searches 20000
"""

import argparse
import random


def random_game(rng, remaining):
    return [rng.getrandbits(1) for _ in range(remaining)]


def beam_search(rng, depth, played, level, widths, ties="random", merge=False):
    """The best game (a full move list from the root) found by a level-``level`` search from
    the position ``played``."""
    if level == 0:
        return played + random_game(rng, depth - len(played))
    width = widths[level - 1]
    # A beam entry: (position, best game through it); the start has no game yet.
    beam = [(played, None)]
    while any(len(position) < depth for position, _ in beam):
        memorized: list = []
        children: list = []
        for position, game in beam:
            if game is not None:
                advanced = game[: len(position) + 1] if len(position) < depth else position
                memorized.append((advanced, game))
            if len(position) < depth:
                for move in (1, 0):
                    child = position + [move]
                    game = beam_search(rng, depth, child, level - 1, widths, ties, merge)
                    children.append((child, game))
        if ties == "random":
            rng.shuffle(children)  # equal children in random order
        ranked = [(-sum(g), 0, i, (p, g)) for i, (p, g) in enumerate(memorized)]
        ranked += [(-sum(g), 1, i, (p, g)) for i, (p, g) in enumerate(children)]
        ranked.sort(key=lambda r: r[:3])  # best first; memorized before children on ties
        beam, seen = [], set()
        for *_, (position, game) in ranked:
            key = (len(position), sum(position))
            if merge and key in seen:
                continue
            seen.add(key)
            beam.append((position, game))
            if len(beam) == width:
                break
    best = max(beam, key=lambda e: sum(e[1]) if e[1] is not None else -1)
    return best[1] if best[1] is not None else best[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9)
    parser.add_argument("--level", type=int, default=2)
    parser.add_argument("--widths", type=int, nargs="+", default=[2, 2])
    parser.add_argument("--searches", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ties", choices=("random", "first"), default="random")
    parser.add_argument("--merge", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    hits = sum(
        sum(beam_search(rng, args.depth, [], args.level, args.widths, args.ties, args.merge))
        == args.depth
        for _ in range(args.searches)
    )
    print(
        f"depth {args.depth}, level {args.level}, widths {args.widths}: "
        f"P(best) {hits / args.searches:.4f} (n={args.searches})"
    )


if __name__ == "__main__":
    main()
