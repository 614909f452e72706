"""Strength against an engine nobody here wrote: our MCS and nested players against OpenSpiel's
``MCTSBot`` on Breakthrough, at equal simulations per move.

Each of our players gets a budget of S random playouts a move (the nested player counts the
random playouts inside its NMC(n) playouts, so one unit is the same work); OpenSpiel's bot
runs S simulations a move, each ending in one random rollout (``RandomRolloutEvaluator``), UCT
with its own constant (``--os-c``, 2 by default as in OpenSpiel's examples) and, unless
``--os-solve``, without its MCTS-Solver (our players run without theirs). Matches alternate
colours (half with each); each reports our win rate with a 95% Wilson interval.

    python benchmarks/bench_twoplayer_openspiel.py                       # 6x6, 300 sims, 20 matches
    python benchmarks/bench_twoplayer_openspiel.py --size 8 --simulations 1000 --matches 40

Needs OpenSpiel (the optional extra ``twoplayer_oracle``: ``pip install -e
'.[twoplayer_oracle]'``); without it the script says so in one line and exits with status 0,
since it is optional. Positions are mapped as in ``tests/test_twoplayer_openspiel.py`` (the
board mirrored top to bottom; OpenSpiel's ``a7a6`` is our ``a2a3`` on 8 rows).
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import time

import numpy as np

from nmcs.games.twoplayer import protocol as P
from nmcs.harness.provenance import cpu_model
from nmcs.search.twoplayer.players import Budget, Player, PlayerConfig, player_seeds

PLAYERS = {
    "MCS": PlayerConfig(0),
    "NMC(1)+COW": PlayerConfig(1, cow=True),
    "NMC(1)+D+POD": PlayerConfig(1, discount=True, pod=True),
}


def wilson(wins: float, n: int) -> tuple[float, float, float]:
    """Win rate (a draw counts half) and its 95% Wilson interval."""
    p, z = wins / n, 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)


def to_ours(state: np.ndarray, os_state, action: int) -> int:
    """OpenSpiel's action in ``os_state`` as our move code in ``state`` (the same position)."""
    rows = int(state[P.ROWS])
    text = os_state.action_to_string(os_state.current_player(), action)
    m = re.fullmatch(r"([a-z])(\d+)([a-z])(\d+)\*?", text)
    if m is None:
        raise ValueError(f"unexpected OpenSpiel action {text!r}")
    return P.parse_move(state, f"{m[1]}{rows + 1 - int(m[2])}{m[3]}{rows + 1 - int(m[4])}")


def play(game, size: int, ours: PlayerConfig, sims: int, seed: int, ours_first: bool, args):
    """One match; returns our outcome (+1 / 0 / -1), its length and our seconds a move."""
    from open_spiel.python.algorithms import mcts

    state = P.make_state("breakthrough", rows=size, cols=size)
    os_state = game.new_initial_state()
    our_seed, bot_seed = player_seeds(seed)
    player = Player(ours, Budget(playouts=sims), state, our_seed)
    bot_rng = np.random.RandomState(bot_seed % 2**32)
    bot = mcts.MCTSBot(
        game,
        uct_c=args.os_c,
        max_simulations=sims,
        evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=bot_rng),
        solve=args.os_solve,
        random_state=bot_rng,
    )
    us = 0 if ours_first else 1
    our_seconds, our_moves = 0.0, 0
    while not P.is_terminal(state):
        moves = {to_ours(state, os_state, a): a for a in os_state.legal_actions()}
        if int(P.to_move(state)) == us:
            t = time.perf_counter()
            move = player.choose(state)
            our_seconds += time.perf_counter() - t
            our_moves += 1
            action = moves[move]
        else:
            action = bot.step(os_state)
            move = to_ours(state, os_state, action)
        os_state.apply_action(action)
        P.apply_move(state, move)
    if os_state.returns()[us] != P.outcome(state, us):
        raise AssertionError("the two engines disagree on the result")
    return int(P.outcome(state, us)), int(P.depth(state)), our_seconds / max(our_moves, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=6, help="an N x N board (6: GGP's small one)")
    parser.add_argument("--simulations", type=int, default=300, help="per move, both sides")
    parser.add_argument("--matches", type=int, default=20, help="per player (half each colour)")
    parser.add_argument("--players", default=",".join(PLAYERS), help="ours, comma-separated")
    parser.add_argument("--os-c", type=float, default=2.0, help="MCTSBot's UCT constant")
    parser.add_argument("--os-solve", action="store_true", help="MCTSBot with its solver")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import pyspiel
    except ImportError as err:
        print(f"OpenSpiel is not importable ({err}): pip install -e '.[twoplayer_oracle]'")
        return 0
    unknown = [p for p in args.players.split(",") if p not in PLAYERS]
    if unknown:
        parser.error(f"unknown player {unknown[0]!r} (allowed: {', '.join(PLAYERS)})")
    if args.matches < 1 or args.simulations < 1 or not 4 <= args.size <= 19:
        parser.error("--matches and --simulations must be >= 1, --size 4..19")
    game = pyspiel.load_game(f"breakthrough(rows={args.size},columns={args.size})")
    print(
        f"Breakthrough {args.size}x{args.size}, {args.simulations} simulations a move, "
        f"{args.matches} matches per player; MCTSBot uct_c={args.os_c} "
        f"solve={args.os_solve}; {cpu_model()}"
    )
    print("| ours | matches | our win rate [95%] | mean length | our s/move |")
    print("|---|---:|---|---:|---:|")
    for name in args.players.split(","):
        results = []
        for i in range(args.matches):
            seed = int(np.random.SeedSequence([args.seed, i]).generate_state(1)[0])
            results.append(
                play(game, args.size, PLAYERS[name], args.simulations, seed, i % 2 == 0, args)
            )
        wins = sum((r[0] + 1) / 2 for r in results)
        p, low, high = wilson(wins, len(results))
        length = np.mean([r[1] for r in results])
        seconds = np.mean([r[2] for r in results])
        print(
            f"| {name} | {len(results)} | {p:.2f} [{low:.2f}, {high:.2f}] | {length:.1f} "
            f"| {seconds:.3f} |"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
