"""The nested playouts of the two-player players: NMC(0) (uniform random moves), NMC(1) and
NMC(2) (Cazenave, Saffidine, Schofield and Thielscher, "Nested Monte Carlo Search for
Two-Player Games", AAAI 2016), as the jitted kernels ``build(game)`` returns.

NMC(n) from a position s, for the player p to move at each step (n >= 1)::

    while s is not over:
        bound <- -1/d(s) with discounting (d = moves played so far), else -1
        for each legal move m, in a random order:
            play NMC(n-1) from s+m to the end (level 0: uniform random moves)
            v <- outcome for p at the end, divided by the depth T of the end with discounting
            if v > bound: bound <- v, best <- m
            COW: stop at the first playout that p wins
        POD: a lower-level playout stops (and counts for nothing) once it is as deep as the
             shallowest win of p found at this step, since it could only tie or do worse
        play best (the first move of the random order if no playout beat the bound)

Discounting, as the paper's text is read here (see docs/twoplayer.md): "a result v reached
after t+1 moves counts v/(t+1)": t+1 is the depth of the final position counted from the
start of the game (PLY), so the initial bound -1/d, d the depth of the current position, lies
strictly below every result reachable from it (a loss at depth T > d counts -1/T > -1/d); the
order of results is the same as with depths counted from the current position (faster wins,
slower losses first).

Every random playout adds one to the stats' ``S_PLAYOUTS`` (the budget's unit, the same work
for every player) and its moves to ``S_MOVES``.
"""

from types import ModuleType
from typing import Any

from numba import njit

from nmcs.core.clock import now
from nmcs.games.twoplayer.layout import ONGOING, PLY, TO_MOVE, WINNER
from nmcs.games.twoplayer.protocol import outcome
from nmcs.search.twoplayer.common import (
    NO_LIMIT,
    S_MOVES,
    S_PLAYOUTS,
    bound,
    copy_into,
    shuffle,
    value,
)


def _make_step(legal_moves, play, inner, level: int):
    """The move NMC(``level``) plays in ``state`` (not over): one NMC(``level`` - 1) playout
    ``inner`` per legal move, into the buffers ``legal[level]`` and ``child[level]`` (the
    levels below use ``legal[0..level-1]``, ``child[1..level-1]``). The best move by value;
    with COW the first win ends the step. With POD no inner playout runs past ``ply_limit``
    (the bound of the playout this step belongs to) nor past the shallowest win found at this
    step."""

    @njit
    def step(state, rng, legal, child, discount, pod, cow, stats, ply_limit, deadline):
        moves = legal[level]
        buf = child[level]
        n = legal_moves(state, moves)
        shuffle(moves, n, rng)
        p = state[TO_MOVE]
        best_val = bound(state, discount)
        best = moves[0]
        win_ply = NO_LIMIT
        for j in range(n):
            copy_into(buf, state)
            play(buf, moves[j])
            lim = min(win_ply, ply_limit) if pod else NO_LIMIT
            if not inner(buf, rng, legal, child, lim, discount, pod, cow, stats, deadline):
                continue  # pruned on depth: it could not beat the best win
            v = value(buf, p, discount)
            if v > best_val:
                best_val = v
                best = moves[j]
            if outcome(buf, p) == 1:
                win_ply = min(win_ply, buf[PLY])
                if cow:
                    break
        return best

    return step


def build(game: ModuleType) -> dict[str, Any]:
    """The nested playouts' jitted kernels over ``game``, a module of the protocol's jitted
    functions (``legal_moves``, ``play``, ``random_move``): name -> function
    (``random_playout``, ``step1``, ``nmc1``, ``step2``, ``nested_playout``,
    ``run_random_playouts``)."""
    legal_moves, play, random_move = game.legal_moves, game.play, game.random_move

    @njit
    def random_playout(state, rng, legal, ply_limit, stats):
        """NMC(0): uniform random moves to the end, in place. Returns False if it stopped at
        ``ply_limit`` first (POD)."""
        stats[S_PLAYOUTS] += 1
        while state[WINNER] == ONGOING:
            if state[PLY] >= ply_limit:
                return False
            play(state, random_move(state, rng, legal))
            stats[S_MOVES] += 1
        return True

    @njit
    def random_inner(buf, rng, legal, child, ply_limit, discount, pod, cow, stats, deadline):
        """NMC(0) with the signature of ``nmc1``: the playout ``step1`` runs per move."""
        return random_playout(buf, rng, legal[0], ply_limit, stats)

    step1 = _make_step(legal_moves, play, random_inner, 1)

    @njit
    def nmc1(state, rng, legal, child, ply_limit, discount, pod, cow, stats, deadline):
        """NMC(1) to the end, in place. Returns False if it stopped at ``ply_limit`` first, or at
        the clock's ``deadline`` (seconds of ``now``; 0: none)."""
        while state[WINNER] == ONGOING:
            if state[PLY] >= ply_limit or (deadline > 0.0 and now() >= deadline):
                return False
            play(
                state,
                step1(state, rng, legal, child, discount, pod, cow, stats, ply_limit, deadline),
            )
        return True

    step2 = _make_step(legal_moves, play, nmc1, 2)

    @njit
    def nested_playout(state, level, rng, legal, child, discount, pod, cow, stats, deadline, rec):
        """NMC(level) from ``state`` to the end, in place (no bound: the top of a playout).
        Levels 1 and 2 write the moves they play into ``rec`` (level 0's random moves are not
        recorded). Returns the number of moves written (0 at level 0), or -1 if the clock's
        ``deadline`` stopped it first (seconds of ``now``; 0: none)."""
        if level == 0:
            random_playout(state, rng, legal[0], NO_LIMIT, stats)
            return 0
        k = 0
        while state[WINNER] == ONGOING:
            if deadline > 0.0 and now() >= deadline:
                return -1
            if level == 1:
                m = step1(state, rng, legal, child, discount, pod, cow, stats, NO_LIMIT, deadline)
            else:
                m = step2(state, rng, legal, child, discount, pod, cow, stats, NO_LIMIT, deadline)
            rec[k] = m
            k += 1
            play(state, m)
        return k

    @njit
    def run_random_playouts(state0, n, rng, buf, legal, stats):
        """``n`` random playouts from ``state0`` (a benchmark and a sanity check); returns how
        many player 0 won."""
        wins0 = 0
        for _ in range(n):
            copy_into(buf, state0)
            random_playout(buf, rng, legal, NO_LIMIT, stats)
            if outcome(buf, 0) == 1:
                wins0 += 1
        return wins0

    return {
        "random_playout": random_playout,
        "step1": step1,
        "nmc1": nmc1,
        "step2": step2,
        "nested_playout": nested_playout,
        "run_random_playouts": run_random_playouts,
    }
