"""UCT as in the Reflexive Monte-Carlo Search paper (Cazenave 2007, section 4, Table 3), written
once for every game.

The paper: "The UCT algorithm uses the formula mu_i + sqrt(log(t) / (C x s)) to explore moves of
the global search tree, mu_i is the average of the games that start with the corresponding move,
t is the number of games that have been played at the node, and s is the number of games that
have been played below the node starting with the corresponding move", best with C = 0.1;
Table 3 gives "the best lengths obtained with UCT for different numbers of simulations".

What this module does (the paper gives no more detail; the choices are marked):

- one global tree grown from the root position; each simulation descends it with the formula,
  ``log`` natural, ``mu_i`` the raw mean score (not rescaled: with Morpion lengths near 60 and
  C = 0.1 the exploration term sqrt(10 log t / s) is of the order of the spread of the scores,
  which is presumably why so small a C was best), ``t`` the visits of the node, ``s`` those of
  the child;
- a move never tried at a node has an infinite value (choice: among several untried moves one is
  drawn uniformly at random; ties of the formula are also broken uniformly at random);
- the tree grows by one node per simulation, Coulom's incremental tree that the paper cites: the
  simulation stops descending at the first move that has no node yet, adds the node, and
  finishes the game with the game's own playout policy (the state says which: uniform random,
  or mobility for Morpion); a node's legal moves are generated the first time a simulation
  passes through it;
- the result of a simulation is the score of the final position (Morpion: its length), added
  to every node on its path;
- the answer is the best game found by any simulation (the paper's "best length"), with an
  anytime trace of its improvements like iterative NMCS; choice: ties keep the earlier game;
- the budget is a number of simulations (the paper's "games") and/or seconds;
- choice: the tree lives in preallocated flat arrays of fixed capacity (a node pool and an edge
  pool, allocated once per worker). When either is full the tree stops growing and simulations
  go on from its leaves; with ``nodes >= playouts + 1`` the node pool never fills.

``build_uct(game)`` returns jitted functions:

- ``new_workspace(state0, n_nodes, n_edges, stats)``: the tree and path buffers;
- ``uct(state0, c, rng, ws, seq, max_seconds, max_playouts, trace)``: runs the search, writes
  the best game into ``seq`` and improvement rows (seconds, playouts, score) into ``trace``, and
  returns (length of the best game, number of trace rows).

Workspace (a tuple; N nodes, E edges, S state size, B max branching, M max moves + 1)::

    visits     int64[N]    games played through the node (t of the node, s of its parent's edge)
    total      float64[N]  sum of their scores
    first      int64[N]    first edge of the node; UNEXPANDED until its moves are generated
    n_edges    int64[N]    its number of legal moves (0: the position is over)
    edge_move  int32[E]    the move of an edge
    edge_child int64[E]    the node it leads to; NO_NODE until a simulation takes it
    path       int64[M]    the nodes of the current simulation, root first
    path_moves int32[M]    the moves of the current simulation in the tree
    sim_state  [S]         the position of the current simulation
    cont       int32[M]    the replayed moves of an improving playout
    legal      int32[B]    legal moves of a node being expanded
    aux        uint64[1]   generator state used for replays
    stats      int64[2]    shared with the engine: playouts started, moves played in playouts
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.search.anytime import (
    NO_SCORE,
    PLAYOUT_MOVES,
    PLAYOUTS,
    copy_into,
    playout_caller,
    record_improvement,
    start_clock,
    time_is_up,
)
from nmcs.search.nested import MAX_LEVEL
from nmcs.search.registry import Algorithm, Settings, register

UNEXPANDED = -1
NO_NODE = -1
DEFAULT_C = 0.1


def _make_new_workspace(max_moves, max_branching):
    """``new_workspace(state0, n_nodes, n_edges, stats)``: the tree and path buffers."""

    @njit
    def new_workspace(state0, n_nodes, n_edges, stats):
        m = max_moves(state0) + 1
        n_nodes = max(n_nodes, 1)
        n_edges = max(n_edges, 1)
        # Uninitialised: a node or edge is initialised when the search takes it from the pool.
        visits = np.empty(n_nodes, np.int64)
        total = np.empty(n_nodes, np.float64)
        first = np.empty(n_nodes, np.int64)
        n_edge = np.empty(n_nodes, np.int64)
        edge_move = np.empty(n_edges, np.int32)
        edge_child = np.empty(n_edges, np.int64)
        path = np.empty(m, np.int64)
        path_moves = np.empty(m, np.int32)
        sim_state = np.empty_like(state0)
        cont = np.empty(m, np.int32)
        legal = np.empty(max_branching(state0), np.int32)
        aux = np.zeros(1, np.uint64)
        return (
            visits,
            total,
            first,
            n_edge,
            edge_move,
            edge_child,
            path,
            path_moves,
            sim_state,
            cont,
            legal,
            aux,
            stats,
        )

    return new_workspace


def _make_select():
    """``select``: the edge a simulation follows from a node, by the paper's formula."""

    @njit
    def select(node, c, rng, visits, total, first, n_edge, edge_child):
        """The edge to follow from an expanded node with at least one edge."""
        e0 = first[node]
        ne = n_edge[node]
        untried = 0
        for e in range(e0, e0 + ne):
            if edge_child[e] == NO_NODE:
                untried += 1
        if untried > 0:
            pick = below(rng, untried)
            for e in range(e0, e0 + ne):
                if edge_child[e] == NO_NODE:
                    if pick == 0:
                        return e
                    pick -= 1
        # sqrt(log(t) / (C s)) = sqrt(log(t) / C) / sqrt(s): one log per node, not per edge.
        explore = np.sqrt(np.log(np.float64(visits[node])) / c)
        best_e = -1
        best_v = -np.inf
        ties = 0
        for e in range(e0, e0 + ne):
            child = edge_child[e]
            s = np.float64(visits[child])
            v = total[child] / s + explore / np.sqrt(s)
            if v > best_v:
                best_v = v
                best_e = e
                ties = 1
            elif v == best_v:
                ties += 1
                if below(rng, ties) == 0:
                    best_e = e
        return best_e

    return select


def _make_uct(legal_moves, play, score, playout, select):
    """``uct``: the search, its simulations until the budget is spent."""

    @njit
    def uct(state0, c, rng, ws, seq, max_seconds, max_playouts, trace):
        (
            visits,
            total,
            first,
            n_edge,
            edge_move,
            edge_child,
            path,
            path_moves,
            sim_state,
            cont,
            legal,
            aux,
            stats,
        ) = ws
        cap_nodes = visits.shape[0]
        cap_edges = edge_move.shape[0]
        visits[0] = 0
        total[0] = 0.0
        first[0] = UNEXPANDED
        n_nodes = 1
        n_edges_used = 0
        clock = start_clock()
        best = NO_SCORE
        best_len = 0
        n_trace = np.int64(0)  # not a literal 0: one compile of record_improvement
        sims = 0
        while True:
            copy_into(sim_state, state0)
            node = np.int64(0)  # not a literal 0: one compile of select
            depth = 0  # moves played in the tree
            path[0] = 0
            n_path = 1  # nodes the simulation went through, root first
            # Descend while the node has been visited before (a fresh node is a leaf).
            while visits[node] > 0:
                if first[node] == UNEXPANDED:
                    n = legal_moves(sim_state, legal)
                    if n_edges_used + n > cap_edges:
                        break  # edge pool full: this node stays a leaf
                    first[node] = n_edges_used
                    n_edge[node] = n
                    for j in range(n):
                        edge_move[n_edges_used + j] = legal[j]
                        edge_child[n_edges_used + j] = NO_NODE
                    n_edges_used += n
                if n_edge[node] == 0:
                    break  # the game is over here
                e = select(node, c, rng, visits, total, first, n_edge, edge_child)
                move = edge_move[e]
                play(sim_state, move)
                path_moves[depth] = move
                depth += 1
                child = edge_child[e]
                if child == NO_NODE:
                    if n_nodes >= cap_nodes:
                        break  # node pool full: play the rest out without a node
                    child = n_nodes
                    n_nodes += 1
                    visits[child] = 0
                    total[child] = 0.0
                    first[child] = UNEXPANDED
                    edge_child[e] = child
                node = child
                path[n_path] = node
                n_path += 1
            saved = rng[0]
            stats[PLAYOUT_MOVES] += playout(sim_state, rng, cont, False)
            stats[PLAYOUTS] += 1
            sims += 1
            s = score(sim_state)
            for j in range(n_path):
                visits[path[j]] += 1
                total[path[j]] += s
            if s > best:
                best = s
                for j in range(depth):
                    seq[j] = path_moves[j]
                # Replay the playout from the end of the tree path to learn its moves.
                copy_into(sim_state, state0)
                for j in range(depth):
                    play(sim_state, path_moves[j])
                aux[0] = saved
                k = playout(sim_state, aux, cont, True)
                for j in range(k):
                    seq[depth + j] = cont[j]
                best_len = depth + k
                n_trace = record_improvement(trace, n_trace, clock, stats[PLAYOUTS], s)
            if max_playouts > 0 and sims >= max_playouts:
                break
            if max_seconds > 0 and time_is_up(clock, max_seconds):
                break
        return best_len, n_trace

    return uct


def build_uct(game):
    """Jitted UCT search specialised to ``game``'s kernels."""
    legal_moves = game.legal_moves
    play = game.play
    score = game.score
    playout = playout_caller(game)  # record: a literal unless the game says otherwise
    max_moves = game.max_moves
    max_branching = game.max_branching

    new_workspace = _make_new_workspace(max_moves, max_branching)
    return new_workspace, _make_uct(legal_moves, play, score, playout, _make_select())


# --- The registry record: algo=uct -------------------------------------------------------------

# Tree size of a UCT search limited only by seconds, when nodes is not given.
UCT_DEFAULT_NODES = 1_000_000


class UctParams(NamedTuple):
    c: float
    max_seconds: float  # 0: no limit of that kind
    max_playouts: int
    nodes: int  # capacities of the node and edge pools (allocated once per worker)
    edges: int


@dataclass
class UctConfig:
    """``algo=uct``: UCT from the root with constant ``c``; the number of simulations is
    ``budget.playouts`` and/or ``budget.seconds``. ``nodes``/``edges``: tree capacity per
    worker, 0 = automatic. The Python API names them ``uct_c``, ``uct_nodes``, ``uct_edges``
    (as the ``algo_options`` result column does)."""

    name: str = "uct"
    c: float = DEFAULT_C  # the exploration constant of UCB1
    nodes: int = 0  # the tree's capacity in nodes, per worker (0: automatic)
    edges: int = 0  # the tree's capacity in edges, per worker (0: automatic)

    # Python API (and algo_options column) names of the fields.
    API_NAMES = {"c": "uct_c", "nodes": "uct_nodes", "edges": "uct_edges"}

    def check(self, settings: Settings) -> None:
        if not self.c > 0:
            raise ValueError(f"algo.c = {self.c}: must be > 0")
        if self.nodes < 0 or self.edges < 0:
            raise ValueError("algo.nodes and algo.edges must be >= 0 (0 = automatic)")


def uct_params(options, settings, kernels, state0):
    nodes, edges = int(options.nodes), int(options.edges)
    if nodes == 0:
        nodes = settings.max_playouts + 1 if settings.max_playouts > 0 else UCT_DEFAULT_NODES
    if edges == 0:
        edges = nodes * min(int(kernels.max_branching(state0)), 32)
    return UctParams(
        float(options.c),
        float(settings.max_seconds),
        int(settings.max_playouts),
        int(nodes),
        int(edges),
    )


def build_uct_search(game, levels: int):
    """``(new_workspace, run)`` of algo=uct for the engine (``nmcs.search.engine``)."""
    new_uct_workspace, uct = build_uct(game)
    play = game.play

    @njit
    def new_workspace(state0, params, stats):
        return new_uct_workspace(state0, params.nodes, params.edges, stats)

    @njit
    def run(state, params, rng, ws, seq, trace):
        length, n_trace = uct(
            state, params.c, rng, ws, seq, params.max_seconds, params.max_playouts, trace
        )
        for j in range(length):
            play(state, seq[j])
        return length, n_trace

    return new_workspace, run


UCT = register(
    Algorithm(
        name="uct",
        config=UctConfig,
        params=uct_params,
        build=build_uct_search,
        needs_budget=True,
        writes_trace=True,
        max_level=MAX_LEVEL,
    )
)
