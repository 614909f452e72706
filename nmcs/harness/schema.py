"""Typed schema of the Hydra configuration (dataclasses in Hydra's ConfigStore).

Hydra checks every composed config against these: a misspelled key or a value of the wrong
type is refused before anything runs. Range checks that types cannot express live in
``nmcs.harness.validate``.

Config groups and their schemas::

    game/<name>.yaml   -> the options dataclass of the game's registry record
                          (nmcs.games.registry; schema_game_<name>)
    algo/<name>.yaml   -> the config dataclass of the algorithm's registry record
                          (nmcs.search.registry; schema_algo_<name>)
    scale/<name>.yaml  -> ScaleConfig          (quick | paper; schema_scale)
    experiment/*.yaml  -> merged at the top level (# @package _global_)
"""

from dataclasses import dataclass, field
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING

from nmcs.games import registry as games
from nmcs.harness.match_cell import PlayerSettings
from nmcs.search import registry as algorithms


@dataclass
class Budget:
    """Budget of an iterative search; either or both may be set (null = no limit of that kind)."""

    seconds: float | None = None
    playouts: int | None = None
    ms: float | None = None  # matches only (two-player games): milliseconds per move


@dataclass
class Parallel:
    """Where a cell's searches run: ``none`` = on ``workers`` threads of this process; ``dask``
    = one search at a time, its top level here and the searches of its children on Dask
    workers (the master/remote version; ``nmcs.harness.parallel``); ``dask_searches`` = whole
    searches on Dask workers, the same rows as threads (``nmcs.harness.dask_searches``)."""

    backend: str = "none"
    workers: int = 0  # dask: worker processes of an embedded LocalCluster (0 = all cores)
    address: str | None = None  # dask: a running scheduler (tcp://host:8786) instead


@dataclass
class Record:
    """A record hunt (games whose registry record has a ``RecordBook``; ``nmcs.harness.records``):
    stop the cell at the first search that reaches ``target``, or when ``hours`` are spent, and
    save every game that reaches ``threshold`` as a checked game file and a picture. None of
    them changes a search's result, so none is part of a cell's identity."""

    target: int | None = None
    threshold: int | None = None
    hours: float | None = None


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
    stop_at_target: bool = True
    n_searches: int = 100
    seed: int = 0
    seeds: str = "cell"  # cell | common (nmcs.harness.seeding)
    workers: int = 0
    budget: Budget = field(default_factory=Budget)
    parallel: Parallel = field(default_factory=Parallel)
    record: Record = field(default_factory=Record)
    chunk_seconds: float = 5.0
    progress: bool = True
    # Match cells only (two-player games; nmcs.harness.match_cell): the two players and the number
    # of matches. Unset (null) for searches, and then not part of a cell's identity.
    player_a: PlayerSettings | None = None
    player_b: PlayerSettings | None = None
    n_matches: int | None = None


def register_configs() -> None:
    """Store the schemas; the YAML files name them in their defaults lists."""
    _store("config_schema", Config)
    # Stored outside the game/algo/scale groups so that `--help` and typos' suggestions list
    # only the YAML choices; each YAML file extends its schema with `/schema_<group>_<name>`.
    for name in games.names():
        _store(f"schema_game_{name}", games.game(name).options)
    for name in algorithms.names():
        _store(f"schema_algo_{name}", algorithms.algorithm(name).config)
    _store("schema_scale", ScaleConfig)
    _store("schema_player", PlayerSettings)  # conf/player_a/*.yaml


_STORED: dict[str, Any] = {}  # name -> the dataclass stored under it


def _store(name: str, node: Any) -> None:
    """``ConfigStore.store`` unless ``node`` is stored under ``name`` already: storing converts
    the dataclass again (2 ms each, 0.05 s for every schema, and run.py registers them at each
    command)."""
    cs = ConfigStore.instance()
    if _STORED.get(name) is not node or f"{name}.yaml" not in cs.repo:
        cs.store(name=name, node=node)
        _STORED[name] = node
