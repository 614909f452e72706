"""Speed of the two-player games and players (one core, after compilation).

For each game (usual board, normal rules): random playouts/s and moves/s from the initial
position, and the playouts/s that each player runs inside its search when it is given 320 ms
per move at the initial position (MCS = UCT with random playouts; the nested players count
the random playouts inside their NMC(n) playouts). Also OpenSpiel's Breakthrough random
playouts/s in Python, as a reference, when OpenSpiel is installed.

    python benchmarks/bench_twoplayer.py [--seconds 1] [--ms 320] [--json results.json]
    python benchmarks/bench_twoplayer.py --table 20 --playouts 500   # a quick match table
    python benchmarks/bench_twoplayer.py --table 20 --table-ms 40    # the same, 40 ms a move

``--table N`` plays, for each of the nine game versions of the paper (five games, misere for
the first four), N matches of NMC(1)+COW against MCS (half with each colour) under the same
budget per move (random playouts, or milliseconds), and prints A's win rate with a 95% Wilson
interval.
"""

import argparse
import json
import time

import numpy as np

from nmcs.games.twoplayer import protocol as P
from nmcs.harness.provenance import cpu_model, versions
from nmcs.search.twoplayer.match import run_matches, win_rate
from nmcs.search.twoplayer.players import (
    S_MOVES,
    S_PLAYOUTS,
    Budget,
    Player,
    PlayerConfig,
    new_workspace,
    run_random_playouts,
)

PLAYERS = {
    "MCS": PlayerConfig(0),
    "NMC(1)+COW": PlayerConfig(1, cow=True),
    "NMC(1)+D+POD": PlayerConfig(1, discount=True, pod=True),
    "NMC(2)+COW": PlayerConfig(2, cow=True),
}


def random_speed(game, seconds):
    state = P.make_state(game)
    ws = new_workspace(state, 1, 1)
    buf, legal = ws[8], ws[9][0]
    rng = np.array([1], dtype=np.uint64)
    stats = np.zeros(2, dtype=np.int64)
    run_random_playouts(state, 10, rng, buf, legal, stats)  # compile / warm up
    n, wins, stats[:] = 0, 0, 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        wins += run_random_playouts(state, 1000, rng, buf, legal, stats)
        n += 1000
    elapsed = time.perf_counter() - t
    return {
        "game": game,
        "random_playouts_per_s": n / elapsed,
        "random_moves_per_s": float(stats[S_MOVES]) / elapsed,
        "mean_length": float(stats[S_MOVES]) / n,
        "first_player_wins": wins / n,
    }


def player_speed(game, label, cfg, ms):
    state = P.make_state(game)
    player = Player(cfg, Budget(ms=ms), state, 1)
    Player(cfg, Budget(playouts=5), state, 0).choose(state)  # compile
    t = time.perf_counter()
    player.choose(state)
    elapsed = time.perf_counter() - t
    return {
        "game": game,
        "player": label,
        "ms": ms,
        "seconds": elapsed,
        "playouts_per_s": float(player.stats[S_PLAYOUTS]) / elapsed,
        "moves_per_s": float(player.stats[S_MOVES]) / elapsed,
    }


def openspiel_speed(seconds):
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("breakthrough")
    rng = np.random.default_rng(0)
    n = 0
    t = time.perf_counter()
    while time.perf_counter() - t < seconds:
        s = game.new_initial_state()
        while not s.is_terminal():
            actions = s.legal_actions()
            s.apply_action(actions[rng.integers(len(actions))])
        n += 1
    return n / (time.perf_counter() - t)


VERSIONS = [(g, False) for g in P.GAMES] + [
    (g, True) for g in ("breakthrough", "knightthrough", "domineering", "nogo")
]


def match_table(n_matches, budget, a=None, b=None):
    a = a or PlayerConfig(1, cow=True)
    b = b or PlayerConfig(0)
    print(
        f"\n{a.label} against {b.label}, budget per move {budget}, "
        f"{n_matches} matches per version (half with each colour):\n"
    )
    print("| game | A wins | 95% CI | mean length | s per match |")
    print("|---|---:|---|---:|---:|")
    out = []
    for game, misere in VERSIONS:
        rows = run_matches(game, {"misere": misere}, a, b, budget, n_matches, seed=0)
        rate, lo, hi = win_rate(rows)
        name = game + (" misere" if misere else "")
        length = sum(r["length"] for r in rows) / len(rows)
        secs = sum(r["wall_seconds"] for r in rows) / len(rows)
        print(
            f"| {name} | {rate:.2f} | [{lo:.2f}, {hi:.2f}] | {length:.1f} | {secs:.2f} |",
            flush=True,
        )
        out.append({"game": name, "win_rate": rate, "ci95": [lo, hi], "n": len(rows)})
    return out


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--ms", type=float, default=320.0)
    parser.add_argument("--json", default=None)
    parser.add_argument("--table", type=int, default=0, help="matches per game version")
    parser.add_argument("--playouts", type=int, default=500, help="budget of --table")
    parser.add_argument("--table-ms", type=float, default=None, help="--table with a time budget")
    args = parser.parse_args()
    if args.table:
        ms = args.table_ms
        match_table(args.table, Budget(ms=ms) if ms else Budget(args.playouts))
        return
    rows, players = [], []
    print("| game | board | random playouts/s | moves/s | mean length | first player wins |")
    print("|---|---|---:|---:|---:|---:|")
    for game in P.GAMES:
        r = random_speed(game, args.seconds)
        s = P.make_state(game)
        r["board"] = f"{int(s[P.ROWS])}x{int(s[P.COLS])}"
        rows.append(r)
        print(
            f"| {game} | {r['board']} | {r['random_playouts_per_s']:,.0f} | "
            f"{r['random_moves_per_s']:,.0f} | {r['mean_length']:.1f} | "
            f"{r['first_player_wins']:.3f} |"
        )
    print(f"\nPlayouts/s inside one {args.ms:g} ms search at the initial position:\n")
    print("| game | " + " | ".join(PLAYERS) + " |")
    print("|---|" + "---:|" * len(PLAYERS))
    for game in P.GAMES:
        cells = []
        for label, cfg in PLAYERS.items():
            p = player_speed(game, label, cfg, args.ms)
            players.append(p)
            cells.append(f"{p['playouts_per_s']:,.0f}")
        print(f"| {game} | " + " | ".join(cells) + " |")
    ref = openspiel_speed(args.seconds)
    if ref is not None:
        print(f"\nOpenSpiel Breakthrough 8x8 from Python, random playouts/s: {ref:,.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "random": rows,
                    "players": players,
                    "openspiel_random_playouts_per_s": ref,
                    "cpu": cpu_model(),
                    "versions": versions(),
                },
                f,
                indent=2,
            )


if __name__ == "__main__":
    main()
