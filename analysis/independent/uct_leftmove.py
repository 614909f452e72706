"""UCT as the Reflexive Monte-Carlo Search paper states it (Cazenave 2007, section 4), in plain
Python on the left move problem, to check our engine's ``algo=uct`` (``nmcs.search.uct``) and its
dependence on the constant C (docs/investigations/morpion_uct_constant.md).

The paper: "The UCT algorithm uses the formula mu_i + sqrt(log(t) / (C x s)) to explore moves of
the global search tree, mu_i is the average of the games that start with the corresponding move,
t is the number of games that have been played at the node, and s is the number of games that
have been played below the node starting with the corresponding move." Where it is silent this
follows the choices stated in our engine's docstring, written again from that text: a move never
tried at a node is tried first (uniformly among the untried); one node is added per simulation,
which then ends with a uniformly random playout; the score of the final position is added on the
path; ties of the formula go uniformly at random; the answer is the best score of any simulation.

The left move problem: ``depth`` binary choices, the score is the number of left moves. A node
is a dict {move: child}; nothing is shared with ``nmcs`` (Python's ``random``).

    python -m analysis.independent.uct_leftmove --c 0.1 --sims 300 --searches 400
"""

import argparse
import math
import random

LEFT, RIGHT = 0, 1


class Node:
    __slots__ = ("children", "visits", "total")

    def __init__(self):
        self.children = {}  # move -> Node
        self.visits = 0
        self.total = 0.0


def select(node, c, rng):
    """The move to follow from ``node`` (a position with both moves available)."""
    untried = [m for m in (LEFT, RIGHT) if m not in node.children]
    if untried:
        return rng.choice(untried)
    explore = math.log(node.visits) / c
    values = {
        m: child.total / child.visits + math.sqrt(explore / child.visits)
        for m, child in node.children.items()
    }
    top = max(values.values())
    return rng.choice([m for m, v in values.items() if v == top])


def uct(depth, c, sims, rng):
    """Best score found by ``sims`` simulations of UCT from the start of a depth-``depth``
    left move problem."""
    root = Node()
    best = -1
    for _ in range(sims):
        node, path, played, score = root, [root], 0, 0
        # Descend while the node has been visited (a new node is a leaf) and the game goes on.
        while node.visits > 0 and played < depth:
            move = select(node, c, rng)
            played += 1
            score += move == LEFT
            child = node.children.get(move)
            if child is None:
                child = node.children[move] = Node()
            node = child
            path.append(node)
        # A uniformly random playout to the end.
        for _ in range(depth - played):
            score += rng.random() < 0.5
        for n in path:
            n.visits += 1
            n.total += score
        best = max(best, score)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--depth", type=int, default=60)
    parser.add_argument("--c", type=float, default=0.1)
    parser.add_argument("--sims", type=int, default=300)
    parser.add_argument("--searches", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    scores = [uct(args.depth, args.c, args.sims, rng) for _ in range(args.searches)]
    mean = sum(scores) / len(scores)
    sd = math.sqrt(sum((s - mean) ** 2 for s in scores) / (len(scores) - 1))
    half = 1.96 * sd / math.sqrt(len(scores))
    print(f"C={args.c} sims={args.sims}: mean best {mean:.2f} +- {half:.2f} (n={len(scores)})")


if __name__ == "__main__":
    main()
