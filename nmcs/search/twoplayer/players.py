"""Players for two-player games (Cazenave, Saffidine, Schofield and Thielscher, "Nested Monte
Carlo Search for Two-Player Games", AAAI 2016): MCS, the UCT baseline with random playouts, and
the nested player, the same UCT whose playouts are NMC(n) searches, n = 1 or 2; and a nested
player without a tree. One module per kind of kernel, this one composing them:

- ``nested_playouts``: NMC(0), NMC(1) and NMC(2), with discounting, pruning on depth (POD) and
  cut on win (COW), and how the paper's discounting is read;
- ``tree_player``: UCT (``uct_move``) over random or nested playouts, its backup, MCTS-Solver
  and ``expand="playout"``;
- ``flat_player``: ``root="flat"`` (``flat_move``), rounds of nested playouts over the root's
  moves without a tree;
- here: ``build(game)``, the kernels of every kind over a game, their compiled entry points
  (``compiled()``), and the Python API (``PlayerConfig``, ``Budget``, ``Player``,
  ``nested_choice``, ...).

What every player shares (see docs/twoplayer.md):

- the budget per move is counted in random (level-0) playouts, those inside nested playouts
  included, so one unit is the same work for every player, and checked between simulations
  (a simulation in flight finishes, so at least one runs and a nested one may overrun; an
  NMC(2) playout can need no random playout, when the first move it tries wins at once, and
  counts one when the tree is full (or there is none, ``root="flat"``), so that such
  simulations cannot repeat without end); or in
  milliseconds, a hard limit: a nested playout still running at the deadline stops and is
  dropped (not backed up); if no simulation finished, the move is a random legal one;
- a position with one legal move is answered at once, without search.

Everything random draws from the player's own generator (``nmcs.core.rng``): the same seed
and a playout budget give the same game on any machine.

Compilation: one compiled player serves every registered game (the protocol dispatches on the
state's game id), so the kernels are built by ``build(game)`` over the protocol's generated
module (``nmcs.games.twoplayer.protocol.kernels()``), inside a module that ``compiled()``
generates next to it in the numba cache folder
(``$NUMBA_CACHE_DIR/twoplayer/nmcs_twoplayer_players_<hash>.py``, the hash covering the games'
module and the players' modules; its text filled in by
``nmcs.core.generated.twoplayer_players_source``): its module-level ``@njit(cache=True)``
entry points (``uct_move``, ``flat_move``, ``step1``, ``step2``, ``nmc1``, ``nested_playout``,
``random_playout``, ``run_random_playouts``) are cached on disk per set of games, so a new or
edited game never runs stale machine code. They are read as attributes of this module
(``players.step1``).
"""

import inspect
import math
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from nmcs.core.generated import load_generated, source_digest, twoplayer_players_source
from nmcs.games.twoplayer import protocol
from nmcs.games.twoplayer.protocol import max_branching
from nmcs.search.twoplayer import common, flat_player, nested_playouts, tree_player
from nmcs.search.twoplayer.common import (
    MAX_LEVEL,
    NO_LIMIT,
    NO_NODE,
    S_MOVES,  # noqa: F401 (read as players.S_MOVES)
    S_PLAYOUTS,
    UNEXPANDED,
)

KINDS = (common, nested_playouts, tree_player, flat_player)


def build(game: ModuleType) -> dict[str, Any]:
    """The players' jitted kernels over ``game``, a module of the protocol's jitted functions
    (``legal_moves``, ``play``, ``random_move``): name -> function. Called by the generated
    module of ``compiled()``, whose cached entry points inline them."""
    kernels = nested_playouts.build(game)
    kernels["uct_move"] = tree_player.build(game, kernels["nested_playout"])
    kernels["flat_move"] = flat_player.build(game, kernels["nested_playout"])
    return kernels


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


def compiled() -> ModuleType:
    """The generated module of the players' entry points over the games registered now
    (numba compiles each on its first call, or loads it from its cache)."""
    game = protocol.kernels()
    if game.__name__ not in _COMPILED:
        kernels = build(game)  # for the signatures only: nothing is compiled here
        signatures = {
            name: list(inspect.signature(kernels[name].py_func).parameters) for name in ENTRIES
        }
        digest = source_digest(game.__name__, *KINDS, inspect.getmodule(build) or __name__)
        text = twoplayer_players_source(
            game.__name__, __name__, signatures, ("uct_move", "flat_move"), digest
        )
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
