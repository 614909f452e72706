"""Typed schema of the Hydra configuration (dataclasses in Hydra's ConfigStore).

Hydra checks every composed config against these: a misspelled key or a value of the wrong
type is refused before anything runs. Range checks that types cannot express live in
``nmcs.harness.validate``.

Config groups and their schemas::

    game/<name>.yaml   -> GAME_SCHEMAS[name]   (options of one game; stored as schema_game_<name>)
    algo/<name>.yaml   -> ALGO_SCHEMAS[name]   (algorithm and its options; schema_algo_<name>)
    scale/<name>.yaml  -> ScaleConfig          (quick | paper; schema_scale)
    experiment/*.yaml  -> merged at the top level (# @package _global_)
"""

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

SCALES = ("quick", "paper")


@dataclass
class LeftmoveGame:
    name: str = "leftmove"
    depth: int = 60


@dataclass
class LeftmostGame:
    name: str = "leftmost"
    depth: int = 60


@dataclass
class MorpionGame:
    name: str = "morpion"
    variant: str = "5D"
    policy: str = "random"


@dataclass
class SameGameGame:
    name: str = "samegame"
    instance: int | None = 0
    width: int = 15
    height: int = 15
    colors: int = 5
    board_seed: int = 0
    policy: str = "tabu"


@dataclass
class SudokuGame:
    name: str = "sudoku"
    n: int = 4
    problem: int | None = 0
    empty_fraction: float = 0.66
    problem_seed: int = 0


GAME_SCHEMAS = {
    "leftmove": LeftmoveGame,
    "leftmost": LeftmostGame,
    "morpion": MorpionGame,
    "samegame": SameGameGame,
    "sudoku": SudokuGame,
}


@dataclass
class NestedAlgo:
    name: str = "nested"


@dataclass
class IterativeAlgo:
    name: str = "iterative"


@dataclass
class ReflexiveAlgo:
    """Reflexive Monte-Carlo Search: ``games[l-1]`` level-(l-1) games per step of a level-l
    game, from the ground up (a single value applies to every level)."""

    name: str = "reflexive"
    games: list[int] = field(default_factory=lambda: [100, 1000])


@dataclass
class UctAlgo:
    """UCT from the root (Reflexive paper, Table 3); the number of simulations is
    ``budget.playouts`` and/or ``budget.seconds``."""

    name: str = "uct"
    c: float = 0.1
    nodes: int = 0  # tree capacity per worker, 0 = automatic
    edges: int = 0


ALGO_SCHEMAS = {
    "nested": NestedAlgo,
    "iterative": IterativeAlgo,
    "reflexive": ReflexiveAlgo,
    "uct": UctAlgo,
}


def algo_options(algo_cfg):
    """The algorithm's own options as keyword arguments of ``search_batch``."""
    if algo_cfg.name == "reflexive":
        return {"games": tuple(int(g) for g in algo_cfg.games)}
    if algo_cfg.name == "uct":
        return {
            "uct_c": float(algo_cfg.c),
            "uct_nodes": int(algo_cfg.nodes),
            "uct_edges": int(algo_cfg.edges),
        }
    return {}


@dataclass
class Budget:
    """Budget of an iterative search; either or both may be set (null = no limit of that kind)."""

    seconds: float | None = None
    playouts: int | None = None


@dataclass
class ScaleConfig:
    name: str = "quick"
    description: str = ""


@dataclass
class Config:
    game: Any = MISSING
    algo: Any = MISSING
    scale: ScaleConfig = field(default_factory=ScaleConfig)
    experiment_name: str = "default"
    level: int = 1
    memorize: bool = True
    memorize_from: int = 1
    n_searches: int = 100
    seed: int = 0
    workers: int = 0
    budget: Budget = field(default_factory=Budget)
    chunk_seconds: float = 5.0
    progress: bool = True


def register_configs():
    """Store the schemas; the YAML files name them in their defaults lists."""
    cs = ConfigStore.instance()
    cs.store(name="config_schema", node=Config)
    # Stored outside the game/algo/scale groups so that `--help` and typos' suggestions list
    # only the YAML choices; each YAML file extends its schema with `/schema_<group>_<name>`.
    for name, schema in GAME_SCHEMAS.items():
        cs.store(name=f"schema_game_{name}", node=schema)
    for name, schema in ALGO_SCHEMAS.items():
        cs.store(name=f"schema_algo_{name}", node=schema)
    cs.store(name="schema_scale", node=ScaleConfig)
