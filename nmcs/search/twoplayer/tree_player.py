"""The tree player of the two-player games: UCT whose simulations end in a random playout (MCS,
level 0) or in an NMC(level) playout (the nested player, ``nested_playouts``), as the jitted
``uct_move`` that ``build(game, nested_playout)`` returns.

How the paper's text is read here (see docs/twoplayer.md):

- the tree search (UCT) backs up the undiscounted outcome of its playouts, 1 / 0.5 / 0 for a
  win / draw / loss of the player who made the move into each node (``backup="discounted"``:
  (1 + v/T) / 2, the playout's discounted value; ``solver=True``: MCTS-Solver's proofs, see
  ``prove``, steer the selection and the move played; both measured in
  docs/investigations/twoplayer_nested_player.md); UCB1 with c = 0.4 by default, one node
  added per simulation, untried moves first (in a random order), the move played is the most
  visited root move (ties: the better mean, then the first);
- the budget (``players``' docstring) is checked between simulations; an NMC(2) playout can
  need no random playout, when the first move it tries wins at once, and counts one when the
  tree is full, so that such simulations cannot repeat without end;
- ``expand="playout"`` (reason 2 of docs/investigations/twoplayer_nested_player.md, a nested
  player that keeps what its playouts found): the moves of each nested playout become a chain
  of nodes below the node it started from (as far as the pools allow; the pools are sized for
  a game's moves per simulation) and share its backup, so the next simulations select along
  the nested player's own line.

The tree lives in the workspace of ``players.new_workspace``: node pools (visits, totals,
first edge, number of edges, proof), edge pools (move, child), and the buffers of a
simulation. The helpers that need the game's ``legal_moves`` or ``play`` are built by a
factory each, the others are module-level; all are compiled into ``uct_move``.
"""

import math
from types import ModuleType

from numba import njit

from nmcs.core.clock import now
from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import ONGOING, TO_MOVE, WINNER
from nmcs.games.twoplayer.protocol import outcome
from nmcs.search.twoplayer.common import (
    NO_NODE,
    S_PLAYOUTS,
    UNEXPANDED,
    copy_into,
    spent,
    value,
)


@njit(cache=True)
def prove(sim, depth, path, mover, proven, first, n_edges, edge_child):
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


@njit(cache=True, inline="always")
def add_child(e, new, visits, total, first, proven, edge_child):
    """Node ``new``, fresh, as the child of edge ``e``."""
    visits[new] = 0
    total[new] = 0.0
    first[new] = UNEXPANDED
    proven[new] = 0
    edge_child[e] = new


@njit(cache=True, inline="always")
def backup(sim, depth, path, mover, visits, total, backup_discounted):
    """A finished simulation's result, from the root down to ``path[depth]``, for the player
    who moved into each node: its outcome, or its discounted value."""
    visits[0] += 1
    for d in range(1, depth + 1):
        nd = path[d]
        visits[nd] += 1
        if backup_discounted:
            total[nd] += 0.5 * (value(sim, mover[d], True) + 1.0)
        else:
            total[nd] += 0.5 * (outcome(sim, mover[d]) + 1)


@njit(cache=True, inline="always")
def most_visited(rng, ws, solver):
    """The move played from an expanded root: the most visited root move (ties: the better
    mean, then the first); with the solver a proven win first, and proven losses left out
    while another move was tried (MCTS-Solver)."""
    visits, total, first, n_edges, edge_move, edge_child = ws[:6]
    proven = ws[11]
    e0 = first[0]
    if solver:
        for j in range(n_edges[0]):
            ch = edge_child[e0 + j]
            if ch != NO_NODE and proven[ch] == 1:
                return edge_move[e0 + j]  # a proven win
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


def _make_expand(legal_moves):
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

    return expand


def _make_descend(play, expand):
    @njit(inline="always")
    def descend(sim, rng, ws, c, solver, used_nodes, used_edges):
        """Selection and expansion from the root, ``sim`` played along: descend by UCB1 until
        a new node is added (an untried move, drawn at random), the game ends, or the pools
        are full (then the simulation goes on from where it stands). ``path`` and ``mover``
        hold the nodes on the way and who moved into each. Returns (depth, used_nodes,
        used_edges)."""
        visits, total, first, n_edges, edge_move, edge_child, path, mover = ws[:8]
        legal, proven = ws[9], ws[11]
        n_cap = visits.shape[0]
        e_cap = edge_move.shape[0]
        b_cap = legal.shape[1]
        node = 0
        depth = 0
        path[0] = 0
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
        return depth, used_nodes, used_edges

    return descend


def _make_grow_chain(play, expand):
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

    return grow_chain


def build(game: ModuleType, nested_playout):
    """``uct_move`` over ``game`` (the protocol's jitted functions), its simulations ending in
    ``nested_playout`` (``nested_playouts.build``)."""
    legal_moves, play = game.legal_moves, game.play
    expand = _make_expand(legal_moves)
    descend = _make_descend(play, expand)
    grow_chain = _make_grow_chain(play, expand)

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
        its outcome; ``solver``: MCTS-Solver (proven wins and losses backed up, see ``prove``);
        ``expand_playout``: the moves of each nested playout become nodes below the node it
        started from, as far as the pools allow, and share its backup (``grow_chain``)."""
        (visits, total, first, n_edges, edge_move, edge_child, path, mover, sim, legal, child) = ws[
            :11
        ]
        proven, rec, leaf = ws[11], ws[12], ws[13]
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
            if spent(stats, start, max_playouts, t0, max_seconds):
                break
            if solver and proven[0] != 0:
                break  # the root is solved: no simulation can change the move
            copy_into(sim, root)
            nodes_before = used_nodes
            playouts_before = stats[S_PLAYOUTS]
            depth, used_nodes, used_edges = descend(sim, rng, ws, c, solver, used_nodes, used_edges)
            if sim[WINNER] == ONGOING:
                grow = expand_playout and level > 0
                if grow:
                    copy_into(leaf, sim)  # the nested playout's start, to replay its moves
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
                    prove(sim, depth, path, mover, proven, first, n_edges, edge_child)
            backup(sim, depth, path, mover, visits, total, backup_discounted)
        if first[0] == UNEXPANDED:  # no simulation finished: a random legal move
            return legal[0][below(rng, legal_moves(root, legal[0]))]
        return most_visited(rng, ws, solver)

    return uct_move
