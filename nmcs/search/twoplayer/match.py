"""Matches between two players: ``play_match`` plays one game and returns its record;
``run_matches`` plays a pairing's matches, half with each colour, one row (dict) per match.

Seeding: match i of a pairing is seeded from ``SeedSequence([seed, i, *key])`` (``key``: words
that the caller gives a pairing of its own, none by default) and each player of it from that
match seed, so a match's result depends on (seed, i, key) alone, never on how many
workers play the pairing or in what order.
"""

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field

import numpy as np

from nmcs.games.twoplayer import protocol
from nmcs.search.twoplayer.players import Budget, Player, PlayerConfig, player_seeds, timed_choice


@dataclass
class MatchRecord:
    """One game between players A and B."""

    game: str
    options: dict
    a_first: bool  # A played first (as player 0, ``x``)
    winner: str | None  # "a", "b", or None for a draw
    outcome_a: int  # +1 / 0 / -1 for A
    length: int  # moves played
    moves: list[int] = field(default_factory=list)  # the game's own move codes
    seconds: list[float] = field(default_factory=list)  # time used for each move
    playouts: list[int] = field(default_factory=list)  # random playouts run for each move
    final: str = ""  # the final position as text

    def as_row(self) -> dict:
        return asdict(self)


def play_match(
    game: str,
    options: dict | None,
    player_a: PlayerConfig,
    player_b: PlayerConfig,
    budget: Budget,
    seed: int,
    a_first: bool = True,
) -> MatchRecord:
    """Play one game of ``game`` (with its ``options``: rows, cols, misere) between A and B.

    A plays first unless ``a_first`` is false. Every move goes through
    ``protocol.apply_move``, so a player that returns an illegal move stops the match with
    ``IllegalMoveError`` (one line).
    """
    options = dict(options or {})
    state = protocol.make_state(game, **options)
    seed_a, seed_b = player_seeds(seed)
    players = [Player(player_a, budget, state, seed_a), Player(player_b, budget, state, seed_b)]
    if not a_first:
        players.reverse()
    record = MatchRecord(game, options, a_first, None, 0, 0)
    while not protocol.is_terminal(state):
        mover = players[int(protocol.to_move(state))]
        move, seconds, playouts = timed_choice(mover, state)
        protocol.apply_move(state, move)
        record.moves.append(move)
        record.seconds.append(seconds)
        record.playouts.append(playouts)
    a_player = 0 if a_first else 1
    record.outcome_a = int(protocol.outcome(state, a_player))
    record.winner = {1: "a", -1: "b", 0: None}[record.outcome_a]
    record.length = len(record.moves)
    record.final = protocol.draw(state)
    return record


def match_seed(seed: int, index: int, key: Sequence[int] = ()) -> int:
    """The seed of match ``index`` of a pairing seeded ``seed`` (and ``key``)."""
    words = [seed, index, *key]
    return int(np.random.SeedSequence(words).generate_state(1, dtype=np.uint64)[0])


def _match_row(game, options, player_a, player_b, budget, seed, key, i) -> dict:
    t = time.perf_counter()
    ms = match_seed(seed, i, key)
    row = play_match(game, options, player_a, player_b, budget, ms, i % 2 == 0).as_row()
    row.update(
        match=i,
        seed=seed,
        match_seed=ms,
        player_a=player_a.label,
        player_b=player_b.label,
        budget_playouts=budget.playouts,
        budget_ms=budget.ms,
        wall_seconds=time.perf_counter() - t,
    )
    return row


def run_matches(
    game: str,
    options: dict | None,
    player_a: PlayerConfig,
    player_b: PlayerConfig,
    budget: Budget,
    n_matches: int,
    seed: int,
    indices: Sequence[int] | None = None,
    workers: int = 1,
    key: Sequence[int] = (),
) -> list[dict]:
    """The pairing's matches as rows, in match order: match i has A first when i is even, so half
    the matches are played with each colour. ``indices`` (default: all) picks a subset, e.g.
    a process's share; ``workers`` threads play matches at once (the search kernel releases
    the GIL); ``key``: see ``match_seed``. A match's row depends only on (seed, i, key), so
    neither changes the rows (except the timings, and the moves under a millisecond budget)."""
    if not isinstance(n_matches, int) or n_matches < 1:
        raise ValueError(f"n_matches must be a positive integer, got {n_matches!r}")
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    todo = list(range(n_matches) if indices is None else indices)
    args = (game, options, player_a, player_b, budget, seed, tuple(key))
    if workers == 1 or len(todo) < 2:
        return [_match_row(*args, i) for i in todo]
    # Compile (or load) the kernels once before threads race to do it. One millisecond a move
    # as well as one playout: a single NMC(2) simulation can take seconds on a full board.
    play_match(game, options, player_a, player_b, Budget(playouts=1, ms=1), 0)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda i: _match_row(*args, i), todo))


def win_rate(rows: list[dict]) -> tuple[float, float, float]:
    """Player A's win rate over match rows (a draw counts half) and its 95% Wilson interval."""
    n = len(rows)
    if n == 0:
        raise ValueError("win_rate: no matches")
    score = sum((r["outcome_a"] + 1) / 2 for r in rows)
    p = score / n
    z = 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return p, max(0.0, centre - half), min(1.0, centre + half)
