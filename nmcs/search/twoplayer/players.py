"""Players for two-player games (Cazenave, Saffidine, Schofield and Thielscher, "Nested Monte
Carlo Search for Two-Player Games", AAAI 2016): MCS, the UCT baseline with random playouts, and
the nested player, the same UCT whose playouts are NMC(n) searches, n = 1 or 2.

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

How the paper's text is read here (see docs/twoplayer.md):

- discounting: "a result v reached after t+1 moves counts v/(t+1)": t+1 is the depth of the
  final position counted from the start of the game (PLY), so the initial bound -1/d, d the
  depth of the current position, lies strictly below every result reachable from it (a loss
  at depth T > d counts -1/T > -1/d); the order of results is the same as with depths counted
  from the current position (faster wins, slower losses first);
- the tree search (UCT) backs up the undiscounted outcome of its playouts, 1 / 0.5 / 0 for a
  win / draw / loss of the player who made the move into each node (``backup="discounted"``:
  (1 + v/T) / 2, the playout's discounted value; ``solver=True``: MCTS-Solver's proofs, see
  ``_prove``, steer the selection and the move played; issue 21); UCB1 with c = 0.4 by
  default, one node added per simulation, untried moves first (in a random order), the move
  played is the most visited root move (ties: the better mean, then the first);
- the budget per move is counted in random (level-0) playouts, those inside nested playouts
  included, so one unit is the same work for every player, and checked between simulations
  (a simulation in flight finishes, so at least one runs and a nested one may overrun; an
  NMC(2) playout can need no random playout, when the first move it tries wins at once, and
  counts one when the tree is full (or there is none, ``root="flat"``), so that such
  simulations cannot repeat without end); or in
  milliseconds, a hard limit: a nested playout still running at the deadline stops and is
  dropped (not backed up); if no simulation finished, the move is a random legal one;
- a position with one legal move is answered at once, without search;
- ``expand="playout"`` (issue 21's reason 2, a nested player that keeps what its playouts
  found): the moves of each nested playout become a chain of nodes below the node it started
  from (as far as the pools allow; the pools are sized for a game's moves per simulation) and
  share its backup, so the next simulations select along the nested player's own line;
- ``root="flat"`` (issue 21's reason 3: a nested player that is not MCTS): no tree; the root's
  legal moves are shuffled, then tried in rounds, each followed by one NMC(level) playout
  (level 0: random), until the budget is spent, and the move of the best mean value is played
  (ties: the first in the shuffled order). One round is the step of NMC(level + 1) at the root
  with a mean in place of its best-of, so ``level=1`` is "NMC(2) at the root, iterated to the
  time limit", and ``level=0`` flat Monte Carlo.

Everything random draws from the player's own generator (``nmcs.core.rng``): the same seed
and a playout budget give the same game on any machine.

Compilation: one compiled player serves every registered game (the protocol dispatches on the
state's game id), so the kernels are built by ``build(game)`` over the protocol's generated
module (``nmcs.games.twoplayer.protocol.kernels()``), inside a module that ``compiled()``
generates next to it in the numba cache folder
(``$NUMBA_CACHE_DIR/twoplayer/nmcs_twoplayer_players_<hash>.py``, the hash covering the games'
module and this file): its module-level ``@njit(cache=True)`` entry points (``uct_move``,
``flat_move``,
``step1``, ``step2``, ``nmc1``, ``nested_playout``, ``random_playout``,
``run_random_playouts``) are cached on disk per set of games, so a new or edited game never
runs stale machine code. They are read as attributes of this module (``players.step1``).
"""

import inspect
import math
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit

from nmcs.core.clock import now
from nmcs.core.generated import load_generated, source_digest
from nmcs.core.rng import below
from nmcs.games.twoplayer import protocol
from nmcs.games.twoplayer.layout import ONGOING, PLY, TO_MOVE, WINNER
from nmcs.games.twoplayer.protocol import max_branching, outcome

MAX_LEVEL = 2
NO_LIMIT = np.int32(2**31 - 1)
UNEXPANDED = -1
NO_NODE = -1
# stats slots: random playouts run (the budget unit), moves played inside them
S_PLAYOUTS, S_MOVES = 0, 1


# ---------------------------------------------------------------- nested playouts


@njit(cache=True, inline="always")
def _copy(dst, src):
    for j in range(src.shape[0]):
        dst[j] = src[j]


@njit(cache=True, inline="always")
def _shuffle(moves, n, rng):
    for j in range(n - 1, 0, -1):
        k = below(rng, j + 1)
        moves[j], moves[k] = moves[k], moves[j]


@njit(cache=True, inline="always")
def _value(state, player, discount):
    v = outcome(state, player)
    if discount:
        return v / max(state[PLY], 1)
    return float(v)


@njit(cache=True, inline="always")
def _bound(state, discount):
    if discount:
        # Strictly below every reachable result (see the module docstring); at depth 0 any
        # value below -1 will do.
        return -1.0 / state[PLY] if state[PLY] > 0 else -2.0
    return -1.0


@njit(cache=True, inline="always")
def _spent(stats, start, max_playouts, t0, max_seconds):
    """Whether a move's budget is spent: the random playouts run since ``start``, or the
    seconds since ``t0`` (a limit of 0: none of that kind)."""
    if max_playouts > 0 and stats[S_PLAYOUTS] - start >= max_playouts:
        return True
    return max_seconds > 0.0 and now() - t0 >= max_seconds


# ---------------------------------------------------------------- nested playouts and UCT


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
        _shuffle(moves, n, rng)
        p = state[TO_MOVE]
        best_val = _bound(state, discount)
        best = moves[0]
        win_ply = NO_LIMIT
        for j in range(n):
            _copy(buf, state)
            play(buf, moves[j])
            lim = min(win_ply, ply_limit) if pod else NO_LIMIT
            if not inner(buf, rng, legal, child, lim, discount, pod, cow, stats, deadline):
                continue  # pruned on depth: it could not beat the best win
            v = _value(buf, p, discount)
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
    """The players' jitted kernels over ``game``, a module of the protocol's jitted functions
    (``legal_moves``, ``play``, ``random_move``): name -> function. Called by the generated
    module of ``compiled()``, whose cached entry points inline them."""
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
            _copy(buf, state0)
            random_playout(buf, rng, legal, NO_LIMIT, stats)
            if outcome(buf, 0) == 1:
                wins0 += 1
        return wins0

    @njit
    def _prove(sim, depth, path, mover, proven, first, n_edges, edge_child):
        """MCTS-Solver's backup of proofs (Winands, Bjornsson and Saito, "Monte-Carlo Tree Search
        Solver", CG 2008) after a simulation that ended in the tree at ``path[depth]``.
        ``proven[node]`` is +1 (-1) when the player who moved into the node wins (loses) with best
        play, 0 while unknown (and for draws). A won child makes its parent lost for the parent's
        mover; a parent whose children are all expanded and all lost for the player to move is
        won for its mover. Stops at the first node whose proof does not change."""
        v = outcome(sim, mover[depth])
        if v == 0:
            return
        proven[path[depth]] = v
        for d in range(depth, 0, -1):
            parent = path[d - 1]
            if proven[parent] != 0:
                return
            if proven[path[d]] == 1:
                proven[parent] = -1
            elif proven[path[d]] == -1:
                e0 = first[parent]
                for j in range(n_edges[parent]):
                    ch = edge_child[e0 + j]
                    if ch == NO_NODE or proven[ch] != -1:
                        return
                proven[parent] = 1
            else:
                return

    @njit(inline="always")
    def add_child(e, new, visits, total, first, proven, edge_child):
        """Node ``new``, fresh, as the child of edge ``e``."""
        visits[new] = 0
        total[new] = 0.0
        first[new] = UNEXPANDED
        proven[new] = 0
        edge_child[e] = new

    @njit(inline="always")
    def expand(node, pos, legal0, first, n_edges, edge_move, edge_child, used_edges):
        """Lists the legal moves of ``pos`` as the edges of ``node`` (no child made yet), from
        edge ``used_edges`` on; returns the edges used after them."""
        n = legal_moves(pos, legal0)
        first[node] = used_edges
        n_edges[node] = n
        for j in range(n):
            edge_move[used_edges + j] = legal0[j]
            edge_child[used_edges + j] = NO_NODE
        return used_edges + n

    @njit
    def grow_chain(pos, rec, k, depth, path, mover, used_nodes, used_edges, ws):
        """The moves ``rec[:k]`` of a nested playout played from ``pos`` (the position of node
        ``path[depth]``) as a chain of nodes below that node (``expand="playout"``): each node
        on the way is expanded (its legal moves listed) and the played move's child added, or
        followed where it exists, until the pools are full. ``pos`` is played along; ``path``
        and ``mover`` are extended for the backup. Returns (depth, used_nodes, used_edges)."""
        visits, total, first, n_edges, edge_move, edge_child = ws[:6]
        legal, proven = ws[9], ws[11]
        n_cap = visits.shape[0]
        e_cap = edge_move.shape[0]
        b_cap = legal.shape[1]
        node = path[depth]
        for i in range(k):
            if first[node] == UNEXPANDED:
                if used_edges + b_cap > e_cap:
                    break
                used_edges = expand(
                    node, pos, legal[0], first, n_edges, edge_move, edge_child, used_edges
                )
            e0 = first[node]
            e = -1
            for j in range(n_edges[node]):
                if edge_move[e0 + j] == rec[i]:
                    e = e0 + j
                    break
            if e < 0:
                break  # (not reached: the playout's move is legal there)
            ch = edge_child[e]
            if ch == NO_NODE:
                if used_nodes >= n_cap:
                    break
                ch = used_nodes
                used_nodes += 1
                add_child(e, ch, visits, total, first, proven, edge_child)
            mover[depth + 1] = pos[TO_MOVE]
            play(pos, rec[i])
            depth += 1
            path[depth] = ch
            node = ch
        return depth, used_nodes, used_edges

    # nogil: matches are driven from Python, so threads can play several at once.
    @njit(nogil=True)
    def uct_move(
        root,
        rng,
        ws,
        level,
        discount,
        pod,
        cow,
        c,
        max_playouts,
        max_seconds,
        stats,
        backup_discounted,
        solver,
        expand_playout,
    ):
        """The move a UCT search chooses at ``root`` (see the module docstring). ``ws`` is the
        workspace tuple of ``new_workspace``; ``stats`` gains the playouts and moves it ran.
        ``backup_discounted``: the tree backs up a nested playout's discounted value instead of
        its outcome; ``solver``: MCTS-Solver (proven wins and losses backed up, see ``_prove``);
        ``expand_playout``: the moves of each nested playout become nodes below the node it
        started from, as far as the pools allow, and share its backup (``grow``)."""
        (visits, total, first, n_edges, edge_move, edge_child, path, mover, sim, legal, child) = ws[
            :11
        ]
        proven, rec, leaf = ws[11], ws[12], ws[13]
        n_cap = visits.shape[0]
        e_cap = edge_move.shape[0]
        b_cap = legal.shape[1]
        n = legal_moves(root, legal[0])
        if n == 0:
            return -1
        if n == 1:
            return legal[0][0]
        visits[0] = 0
        total[0] = 0.0
        first[0] = UNEXPANDED
        proven[0] = 0
        used_nodes = 1
        used_edges = 0
        start = stats[S_PLAYOUTS]
        t0 = now()
        deadline = t0 + max_seconds if max_seconds > 0.0 else 0.0
        while True:
            if _spent(stats, start, max_playouts, t0, max_seconds):
                break
            if solver and proven[0] != 0:
                break  # the root is solved: no simulation can change the move
            _copy(sim, root)
            node = 0
            depth = 0
            path[0] = 0
            nodes_before = used_nodes
            playouts_before = stats[S_PLAYOUTS]
            # Selection and expansion: descend until a new node is added, the game ends, or the
            # pools are full (then the simulation goes on from where it stands).
            while sim[WINNER] == ONGOING:
                if first[node] == UNEXPANDED:
                    if used_edges + b_cap > e_cap:
                        break
                    used_edges = expand(
                        node, sim, legal[0], first, n_edges, edge_move, edge_child, used_edges
                    )
                e0 = first[node]
                k = n_edges[node]
                untried = 0
                for j in range(k):
                    if edge_child[e0 + j] == NO_NODE:
                        untried += 1
                if untried > 0:
                    if used_nodes >= n_cap:
                        break
                    pick = below(rng, untried)
                    e = e0
                    for j in range(k):
                        if edge_child[e0 + j] == NO_NODE:
                            if pick == 0:
                                e = e0 + j
                                break
                            pick -= 1
                    new = used_nodes
                    used_nodes += 1
                    add_child(e, new, visits, total, first, proven, edge_child)
                    mover[depth + 1] = sim[TO_MOVE]
                    play(sim, edge_move[e])
                    depth += 1
                    path[depth] = new
                    break
                log_t = math.log(visits[node])
                best_e = e0
                best_u = -1.0
                for j in range(k):
                    ch = edge_child[e0 + j]
                    if solver and proven[ch] == -1:
                        continue  # a proven loss for the player to move here: never chosen
                    u = total[ch] / visits[ch] + c * math.sqrt(log_t / visits[ch])
                    if u > best_u:
                        best_u = u
                        best_e = e0 + j
                node = edge_child[best_e]
                mover[depth + 1] = sim[TO_MOVE]
                play(sim, edge_move[best_e])
                depth += 1
                path[depth] = node
            if sim[WINNER] == ONGOING:
                grow = expand_playout and level > 0
                if grow:
                    _copy(leaf, sim)  # the nested playout's start, to replay its moves
                k = nested_playout(
                    sim, level, rng, legal, child, discount, pod, cow, stats, deadline, rec
                )
                if k < 0:
                    break  # out of time in a nested playout: it is dropped, not backed up
                if grow:
                    depth, used_nodes, used_edges = grow_chain(
                        leaf, rec, k, depth, path, mover, used_nodes, used_edges, ws
                    )
                if stats[S_PLAYOUTS] == playouts_before and used_nodes == nodes_before:
                    # A full tree and a nested playout that needed no random playout (its
                    # first move tried won, one move from the end): without this count such
                    # simulations could repeat for ever without spending the budget.
                    stats[S_PLAYOUTS] += 1
            else:
                stats[S_PLAYOUTS] += 1  # a simulation that ends in the tree counts as one playout
                if solver and depth > 0:
                    _prove(sim, depth, path, mover, proven, first, n_edges, edge_child)
            visits[0] += 1
            for d in range(1, depth + 1):
                nd = path[d]
                visits[nd] += 1
                if backup_discounted:
                    total[nd] += 0.5 * (_value(sim, mover[d], True) + 1.0)
                else:
                    total[nd] += 0.5 * (outcome(sim, mover[d]) + 1)
        # The most visited root move (ties: the better mean, then the first).
        e0 = first[0]
        if e0 == UNEXPANDED:  # no simulation finished: a random legal move
            return legal[0][below(rng, legal_moves(root, legal[0]))]
        if solver:
            for j in range(n_edges[0]):
                ch = edge_child[e0 + j]
                if ch != NO_NODE and proven[ch] == 1:
                    return edge_move[e0 + j]  # a proven win
        # Proven losses are left out while another move was tried (MCTS-Solver).
        avoid = False
        if solver:
            for j in range(n_edges[0]):
                ch = edge_child[e0 + j]
                if ch != NO_NODE and visits[ch] > 0 and proven[ch] != -1:
                    avoid = True
                    break
        best_e = e0
        best_v = -1
        best_m = -1.0
        for j in range(n_edges[0]):
            ch = edge_child[e0 + j]
            if ch == NO_NODE or visits[ch] == 0:  # untried, or its simulation was dropped
                continue
            if avoid and proven[ch] == -1:
                continue
            m = total[ch] / visits[ch]
            if visits[ch] > best_v or (visits[ch] == best_v and m > best_m):
                best_v = visits[ch]
                best_m = m
                best_e = e0 + j
        if best_v <= 0:  # no simulation finished in time: a random legal move
            return edge_move[e0 + below(rng, n_edges[0])]
        return edge_move[best_e]

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
        """The move of the player without a tree (``root="flat"``, issue 21's reason 3): the
        root's legal moves in a random order, then rounds over them, each move followed by one
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
        _shuffle(moves, n, rng)
        for j in range(n):
            visits[j] = 0
            totals[j] = 0.0
        p = root[TO_MOVE]
        start = stats[S_PLAYOUTS]
        t0 = now()
        deadline = t0 + max_seconds if max_seconds > 0.0 else 0.0
        j = 0
        while True:
            if _spent(stats, start, max_playouts, t0, max_seconds):
                break
            _copy(sim, root)
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
                totals[j] += 0.5 * (_value(sim, p, True) + 1.0)
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

    return {
        "random_playout": random_playout,
        "step1": step1,
        "nmc1": nmc1,
        "step2": step2,
        "nested_playout": nested_playout,
        "run_random_playouts": run_random_playouts,
        "uct_move": uct_move,
        "flat_move": flat_move,
    }


ENTRIES = (
    "uct_move",
    "flat_move",
    "step1",
    "step2",
    "nmc1",
    "nested_playout",
    "random_playout",
    "run_random_playouts",
)

TEMPLATE = '''"""Generated by nmcs.search.twoplayer.players: the players' compiled entry points over
the two-player games of {kernels}.
Do not edit; another set of games (or an edit) gets another file."""
# sources: {digest}
from numba import njit

import {kernels} as game
from nmcs.search.twoplayer.players import build

_k = build(game)
{entries}
'''

ENTRY = """

_{name} = njit(inline="always")(_k["{name}"].py_func)


@njit(cache=True{nogil})
def {name}({args}):
    return _{name}({args})
"""


def compiled() -> ModuleType:
    """The generated module of the players' entry points over the games registered now
    (numba compiles each on its first call, or loads it from its cache)."""
    game = protocol.kernels()
    if game.__name__ not in _COMPILED:
        kernels = build(game)  # for the signatures only: nothing is compiled here
        entries = "".join(
            ENTRY.format(
                name=name,
                nogil=", nogil=True" if name in ("uct_move", "flat_move") else "",
                args=", ".join(inspect.signature(kernels[name].py_func).parameters),
            )
            for name in ENTRIES
        )
        digest = source_digest(game.__name__, inspect.getmodule(build) or __name__)
        text = TEMPLATE.format(kernels=game.__name__, digest=digest, entries=entries)
        _COMPILED[game.__name__] = load_generated(
            "twoplayer", f"nmcs_twoplayer_players_{digest}", text
        )
    return _COMPILED[game.__name__]


_COMPILED: dict[str, ModuleType] = {}


def __getattr__(name: str) -> Any:
    if name in ENTRIES:
        return getattr(compiled(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def new_workspace(state: np.ndarray, n_nodes: int, n_edges: int | None = None) -> tuple:
    """The UCT tree pools and playout buffers for positions like ``state``."""
    b = int(max_branching(state))
    m = int(protocol.kernels().max_moves(state)) + 2
    if n_edges is None:
        n_edges = min(n_nodes * b, 1 << 21)
    n_edges = max(n_edges, b)
    return (
        np.zeros(n_nodes, dtype=np.int64),  # visits
        np.zeros(n_nodes, dtype=np.float64),  # total reward of the player who moved in
        np.full(n_nodes, UNEXPANDED, dtype=np.int64),  # first edge
        np.zeros(n_nodes, dtype=np.int64),  # number of edges
        np.zeros(n_edges, dtype=np.int32),  # edge move
        np.full(n_edges, NO_NODE, dtype=np.int64),  # edge child
        np.zeros(m, dtype=np.int64),  # path of nodes
        np.zeros(m, dtype=np.int32),  # player who moved into path[d]
        np.zeros_like(state),  # simulation state
        np.zeros((MAX_LEVEL + 1, b), dtype=np.int32),  # legal moves per level
        np.zeros((MAX_LEVEL + 1, state.shape[0]), dtype=state.dtype),  # child state per level
        np.zeros(n_nodes, dtype=np.int8),  # proof (MCTS-Solver): +1 / -1 for the mover, 0
        np.zeros(m, dtype=np.int32),  # the moves of a nested playout
        np.zeros_like(state),  # where that playout started (expand="playout")
    )


# ---------------------------------------------------------------- Python API


BACKUPS = ("outcome", "discounted")
ROOTS = ("uct", "flat")
EXPANDS = ("node", "playout")
# Fields added after match cells were published, with the value that keeps the old behaviour
# (at that value they stay out of a cell's identity: nmcs.harness.match_cell).
ADDED_PLAYER_FIELDS = {"backup": "outcome", "solver": False, "root": "uct", "expand": "node"}


@dataclass(frozen=True)
class PlayerConfig:
    """A player: ``level`` 0 is MCS (UCT with random playouts); 1 or 2 the nested player,
    UCT with NMC(level) playouts and the paper's three switches. ``c``: this player's own UCT
    constant; ``backup``: what the tree backs up from a nested playout, its ``outcome``
    (+1/0/-1) or its ``discounted`` value (outcome / depth of the final position); ``solver``:
    MCTS-Solver (Winands et al. 2008), proven wins and losses backed up through the tree.
    ``root``: ``uct`` (the tree above) or ``flat``, no tree: rounds over the root's moves, each
    followed by one NMC(level) playout, and the best mean (``flat_move``; ``c`` is not read).
    ``expand``: what the tree adds per simulation, one ``node`` (UCT's rule) or, for a nested
    player, the nested ``playout``'s moves as a chain of nodes below it (``grow_chain``)."""

    level: int = 0
    discount: bool = False
    pod: bool = False
    cow: bool = False
    c: float = 0.4
    backup: str = "outcome"
    solver: bool = False
    root: str = "uct"
    expand: str = "node"

    def __post_init__(self):
        if (
            not isinstance(self.level, int)
            or isinstance(self.level, bool)
            or not 0 <= self.level <= MAX_LEVEL
        ):
            raise ValueError(f"player level must be 0, 1 or 2, got {self.level!r}")
        for name in ("discount", "pod", "cow", "solver"):
            if not isinstance(getattr(self, name), bool | np.bool_):
                raise ValueError(
                    f"player {name} must be true or false, got {getattr(self, name)!r}"
                )
        if (
            not isinstance(self.c, int | float)
            or isinstance(self.c, bool)
            or not math.isfinite(self.c)
            or self.c < 0
        ):
            raise ValueError(f"player c must be a finite number >= 0, got {self.c!r}")
        if self.backup not in BACKUPS:
            raise ValueError(
                f"player backup must be 'outcome' or 'discounted', got {self.backup!r}"
            )
        if self.expand not in EXPANDS:
            raise ValueError(f"player expand must be 'node' or 'playout', got {self.expand!r}")
        if self.expand == "playout" and (self.level == 0 or self.root == "flat"):
            raise ValueError("expand playout applies to the tree of a nested player (level 1 or 2)")
        if self.root not in ROOTS:
            raise ValueError(f"player root must be 'uct' or 'flat', got {self.root!r}")
        if self.root == "flat" and self.solver:
            raise ValueError("solver applies to the tree (root uct), not to root flat")
        if self.level == 0 and (self.discount or self.pod or self.cow):
            raise ValueError("discount, pod and cow apply to nested playouts (level 1 or 2)")
        if self.level == 0 and self.backup != "outcome":
            raise ValueError("backup applies to nested playouts (level 1 or 2)")

    @property
    def label(self) -> str:
        """A short name: ``MCS``, ``NMC(1)+COW``, ``NMC(2)+D+POD``; ``+DB`` when the tree backs
        up discounted values, ``+S`` with MCTS-Solver (``MCS+S``), ``+EP`` when the nested
        playouts' moves become nodes; ``flat `` in front without a tree (``flat MC``: random
        playouts, ``flat NMC(1)+COW``)."""
        flat = "flat " if self.root == "flat" else ""
        if self.level == 0:
            return flat + ("MC" if flat else "MCS+S" if self.solver else "MCS")
        parts = [f"{flat}NMC({self.level})"]
        parts += [
            name for on, name in ((self.discount, "D"), (self.pod, "POD"), (self.cow, "COW")) if on
        ]
        if self.backup == "discounted":
            parts.append("DB")  # the tree backs up discounted values
        if self.solver:
            parts.append("S")
        if self.expand == "playout":
            parts.append("EP")  # the nested playouts' moves become tree nodes
        return "+".join(parts)


@dataclass(frozen=True)
class Budget:
    """Budget per move: random playouts (machine independent) and/or milliseconds; the first
    reached stops the search. ``Budget()`` is 1,000 playouts; ``Budget(ms=40)`` is 40 ms only."""

    playouts: int | None = None
    ms: float | None = None

    def __post_init__(self):
        if self.playouts is None and self.ms is None:
            object.__setattr__(self, "playouts", 1000)
        if self.playouts is not None and (
            not isinstance(self.playouts, int)
            or isinstance(self.playouts, bool)
            or self.playouts < 1
        ):
            raise ValueError(f"budget.playouts must be a positive integer, got {self.playouts!r}")
        if self.ms is not None and not (isinstance(self.ms, int | float) and self.ms > 0):
            raise ValueError(f"budget.ms must be a positive number, got {self.ms!r}")


class Player:
    """A seeded player with its own workspace, reused from move to move."""

    def __init__(self, config: PlayerConfig, budget: Budget, state: np.ndarray, seed: int):
        self.config = config
        self.budget = budget
        self.rng = np.array([seed], dtype=np.uint64)
        self.stats = np.zeros(2, dtype=np.int64)
        n_nodes = ((budget.playouts or 0) + 2) if budget.ms is None else 1 << 16
        if config.root == "flat":
            n_nodes = 1  # no tree: only the playout buffers are used
        elif config.expand == "playout":  # up to a whole game's moves a simulation
            n_nodes *= int(protocol.kernels().max_moves(state)) + 1
        self.ws = new_workspace(state, min(n_nodes, 1 << 20), 1 if n_nodes == 1 else None)
        self.uct_move = compiled().uct_move
        if config.root == "flat":
            b = int(max_branching(state))
            self.flat = (np.zeros(b, np.int32), np.zeros(b, np.int64), np.zeros(b, np.float64))
            self.flat_move = compiled().flat_move

    def choose(self, state: np.ndarray) -> int:
        """The move to play in ``state`` (which is not changed)."""
        cfg, b = self.config, self.budget
        if cfg.root == "flat":
            return int(
                self.flat_move(
                    state,
                    self.rng,
                    self.ws,
                    *self.flat,
                    cfg.level,
                    cfg.discount,
                    cfg.pod,
                    cfg.cow,
                    0 if b.playouts is None else int(b.playouts),
                    0.0 if b.ms is None else b.ms / 1000.0,
                    self.stats,
                    cfg.backup == "discounted",
                )
            )
        return int(
            self.uct_move(
                state,
                self.rng,
                self.ws,
                cfg.level,
                cfg.discount,
                cfg.pod,
                cfg.cow,
                float(cfg.c),
                0 if b.playouts is None else int(b.playouts),
                0.0 if b.ms is None else b.ms / 1000.0,
                self.stats,
                cfg.backup == "discounted",
                bool(cfg.solver),
                cfg.expand == "playout",
            )
        )


def player_seeds(seed: int, n: int = 2) -> list[int]:
    """``n`` generator seeds derived from ``seed`` (one per player of a match)."""
    words = np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)
    return [int(w) for w in words]


def timed_choice(player: Player, state: np.ndarray) -> tuple[int, float, int]:
    """(move, seconds, playouts) of one decision."""
    before = int(player.stats[S_PLAYOUTS])
    t = time.perf_counter()
    move = player.choose(state)
    return move, time.perf_counter() - t, int(player.stats[S_PLAYOUTS]) - before


def nested_choice(
    state: np.ndarray,
    level: int,
    seed: int,
    discount: bool = False,
    pod: bool = False,
    cow: bool = False,
) -> tuple[int, int]:
    """(move, random playouts used) of one NMC(level) step in ``state``, level 1 or 2: the
    move the nested playout itself would play (no tree search around it)."""
    if level not in (1, 2):
        raise ValueError(f"nested_choice: level must be 1 or 2, got {level!r}")
    ws = new_workspace(state, 1, 1)
    legal, child = ws[9], ws[10]
    rng = np.array([seed], dtype=np.uint64)
    stats = np.zeros(2, dtype=np.int64)
    entries = compiled()
    step = entries.step1 if level == 1 else entries.step2
    move = step(state.copy(), rng, legal, child, discount, pod, cow, stats, NO_LIMIT, 0.0)
    return int(move), int(stats[S_PLAYOUTS])
