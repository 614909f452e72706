"""Domineering matches between UCT with random playouts (MCS) and UCT with NMC(1) playouts, in
plain Python written from the two-player paper's summary (``shared/papers/002_*``) and the
issue's reading of it, to check the engine's ``nmcs.search.twoplayer`` (no code shared with it).

Rules: player 0 places vertical dominoes, player 1 horizontal ones; the player to move with no
legal move loses (misere: wins). UCT: one node added per simulation, untried moves first in a
random order, then UCB1 on the mean result of the player who moved into the node, exploration
``c * sqrt(ln N / n)``; the move played is the most visited. A simulation from the new node is
a random playout (MCS) or an NMC(1) playout: at each position, for the player p to move, each
legal move in a random order followed by a random playout, and the move whose playout was best
for p is played (cut on win: the first move whose playout p wins; discounting: a result v
reached at depth T counts v / T, so a faster win and a slower loss rank higher). The budget per
move is counted in random playouts, those inside NMC(1) playouts included; a simulation that has
started finishes.

    python -m analysis.independent.twoplayer_domineering --rows 6 --cols 6 --playouts 500 \\
        --matches 40 [--misere] [--discount]
"""

import argparse
import math
import random


class Domineering:
    def __init__(self, rows, cols, misere):
        self.rows, self.cols, self.misere = rows, cols, misere

    def start(self):
        return (frozenset(), 0, 0)  # occupied cells, player to move, moves played

    def moves(self, state):
        occupied, player, _ = state
        found = []
        for r in range(self.rows):
            for c in range(self.cols):
                if (r, c) in occupied:
                    continue
                other = (r + 1, c) if player == 0 else (r, c + 1)
                if other[0] < self.rows and other[1] < self.cols and other not in occupied:
                    found.append((r, c))
        return found

    def play(self, state, move):
        occupied, player, depth = state
        r, c = move
        other = (r + 1, c) if player == 0 else (r, c + 1)
        return (occupied | {move, other}, 1 - player, depth + 1)

    def winner(self, state):
        """The winner of a finished game (its player to move cannot move)."""
        stuck = state[1]
        return stuck if self.misere else 1 - stuck


def random_playout(game, state, rng, counter):
    counter[0] += 1
    while True:
        moves = game.moves(state)
        if not moves:
            return state
        state = game.play(state, rng.choice(moves))


def value(game, final, player, discount):
    v = 1.0 if game.winner(final) == player else -1.0
    return v / final[2] if discount else v


def nmc1_playout(game, state, rng, counter, cow, discount):
    if not game.moves(state):
        counter[0] += 1  # a simulation from a finished game counts as a playout of no move
        return state
    while True:
        moves = game.moves(state)
        if not moves:
            return state
        player = state[1]
        rng.shuffle(moves)
        best_move, best_value = moves[0], -math.inf
        for move in moves:
            final = random_playout(game, game.play(state, move), rng, counter)
            v = value(game, final, player, discount)
            if v > best_value:
                best_move, best_value = move, v
            if cow and v > 0:
                break
        state = game.play(state, best_move)


class Node:
    def __init__(self, state, moves, rng):
        self.state = state
        self.untried = list(moves)
        rng.shuffle(self.untried)
        self.children = {}
        self.visits = 0
        self.wins = 0.0  # for the player who moved into this node


def uct_move(game, state, rng, playouts, level, c, cow, discount):
    root = Node(state, game.moves(state), rng)
    if len(root.untried) == 1:
        return root.untried[0]
    counter = [0]
    while counter[0] < playouts:
        node, path = root, [root]
        while not node.untried and node.children:
            log_n = math.log(node.visits)
            node = max(
                node.children.values(),
                key=lambda ch: ch.wins / ch.visits + c * math.sqrt(log_n / ch.visits),
            )
            path.append(node)
        if node.untried:
            move = node.untried.pop()
            child_state = game.play(node.state, move)
            child = Node(child_state, game.moves(child_state), rng)
            node.children[move] = child
            node = child
            path.append(node)
        if level == 0:
            final = random_playout(game, node.state, rng, counter)
        else:
            final = nmc1_playout(game, node.state, rng, counter, cow, discount)
        winner = game.winner(final)
        for n in path:
            n.visits += 1
            mover = 1 - n.state[1]
            n.wins += 1.0 if winner == mover else 0.0
    return max(root.children.items(), key=lambda kv: kv[1].visits)[0]


def play_match(game, rng, nested_first, playouts, cow, discount):
    """One game; returns True when the nested player wins."""
    state = game.start()
    nested_player = 0 if nested_first else 1
    while True:
        moves = game.moves(state)
        if not moves:
            return game.winner(state) == nested_player
        level = 1 if state[1] == nested_player else 0
        move = uct_move(game, state, rng, playouts, level, 0.4, cow, discount)
        state = game.play(state, move)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=6)
    parser.add_argument("--cols", type=int, default=6)
    parser.add_argument("--playouts", type=int, default=500)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--misere", action="store_true")
    parser.add_argument("--discount", action="store_true", help="D+POD-free discounting, no COW")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    game = Domineering(args.rows, args.cols, args.misere)
    rng = random.Random(args.seed)
    cow = not args.discount
    wins = sum(
        play_match(game, rng, i % 2 == 0, args.playouts, cow, args.discount)
        for i in range(args.matches)
    )
    p = wins / args.matches
    half = 1.96 * math.sqrt(p * (1 - p) / args.matches)
    label = "NMC(1)+D" if args.discount else "NMC(1)+COW"
    version = "misere" if args.misere else "normal"
    print(
        f"domineering {args.rows}x{args.cols} {version}, {args.playouts} playouts a move: "
        f"{label} won {wins} of {args.matches} against MCS ({p:.2f} +- {half:.2f})"
    )


if __name__ == "__main__":
    main()
