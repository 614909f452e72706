"""The flat player of the two-player games (``root="flat"``, reason 3 of
docs/investigations/twoplayer_nested_player.md: a nested player that is not MCTS), as the
jitted ``flat_move`` that ``build(game, nested_playout)`` returns.

No tree; the root's legal moves are shuffled, then tried in rounds, each followed by one
NMC(level) playout (level 0: random, ``nested_playouts``), until the budget is spent
(``players``' docstring; an NMC(2) playout that needed no random playout counts one, so that
such rounds cannot repeat without end), and the move of the best mean value is played (ties:
the first in the shuffled order). One round is the step of NMC(level + 1) at the root with a
mean in place of its best-of, so ``level=1`` is "NMC(2) at the root, iterated to the time
limit", and ``level=0`` flat Monte Carlo.
"""

from types import ModuleType

from numba import njit

from nmcs.core.clock import now
from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import ONGOING, TO_MOVE, WINNER
from nmcs.games.twoplayer.protocol import outcome
from nmcs.search.twoplayer.common import S_PLAYOUTS, copy_into, shuffle, spent, value


def build(game: ModuleType, nested_playout):
    """``flat_move`` over ``game`` (the protocol's jitted functions), each round's playouts
    being ``nested_playout`` (``nested_playouts.build``)."""
    legal_moves, play = game.legal_moves, game.play

    # nogil: matches are driven from Python, so threads can play several at once.
    @njit(nogil=True)
    def flat_move(
        root,
        rng,
        ws,
        moves,
        visits,
        totals,
        level,
        discount,
        pod,
        cow,
        max_playouts,
        max_seconds,
        stats,
        backup_discounted,
    ):
        """The move of the player without a tree (see the module docstring): the root's legal
        moves in a random order, then rounds over them, each move followed by one
        NMC(``level``) playout (level 0: a random one), until the budget is spent; the move of
        the best mean value for the player to move (ties: the first in that order). One round
        is the step of NMC(``level`` + 1) at the root with its best-of replaced by a mean, so
        the player is NMC(``level`` + 1) at the root iterated to the budget. ``moves``,
        ``visits``, ``totals``: buffers of the root's branching (the tree's pools are not
        used)."""
        legal, child, sim, rec = ws[9], ws[10], ws[8], ws[12]
        n = legal_moves(root, moves)
        if n == 0:
            return -1
        if n == 1:
            return moves[0]
        shuffle(moves, n, rng)
        for j in range(n):
            visits[j] = 0
            totals[j] = 0.0
        p = root[TO_MOVE]
        start = stats[S_PLAYOUTS]
        t0 = now()
        deadline = t0 + max_seconds if max_seconds > 0.0 else 0.0
        j = 0
        while True:
            if spent(stats, start, max_playouts, t0, max_seconds):
                break
            copy_into(sim, root)
            play(sim, moves[j])
            playouts_before = stats[S_PLAYOUTS]
            if sim[WINNER] == ONGOING:
                if (
                    nested_playout(
                        sim, level, rng, legal, child, discount, pod, cow, stats, deadline, rec
                    )
                    < 0
                ):
                    break  # out of time in a nested playout: it is dropped
                if stats[S_PLAYOUTS] == playouts_before:
                    stats[S_PLAYOUTS] += 1  # an NMC(2) playout that needed no random playout
            else:
                stats[S_PLAYOUTS] += 1  # a move that ends the game counts as one playout
            visits[j] += 1
            if backup_discounted:
                totals[j] += 0.5 * (value(sim, p, True) + 1.0)
            else:
                totals[j] += 0.5 * (outcome(sim, p) + 1)
            j = j + 1 if j + 1 < n else 0
        best = -1
        best_m = -1.0
        for j in range(n):
            if visits[j] > 0 and totals[j] / visits[j] > best_m:
                best_m = totals[j] / visits[j]
                best = j
        if best < 0:  # no simulation finished in time: a random legal move
            return moves[below(rng, n)]
        return moves[best]

    return flat_move
