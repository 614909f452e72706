"""Range checks of a composed config, each failing with one line that names the key and what is
allowed. Types and unknown keys are checked earlier by the schema (``nmcs.harness.schema``)."""

from dataclasses import fields
from typing import Any

import numpy as np
from omegaconf import DictConfig, OmegaConf

from nmcs.core.errors import ConfigError
from nmcs.core.scales import SCALES
from nmcs.games import registry as games
from nmcs.harness.batch import api_options
from nmcs.harness.matches import refuse_match_keys
from nmcs.harness.parallel import dask_plan
from nmcs.harness.schema import Config
from nmcs.search import registry as algorithms
from nmcs.search.registry import Settings

__all__ = ["ConfigError", "algo_config", "game_options", "settings", "validate"]


def game_options(cfg: DictConfig) -> dict[str, Any]:
    """The game's options as keyword arguments of its ``make_state``."""
    options = OmegaConf.to_container(cfg.game, resolve=True)
    assert isinstance(options, dict)
    options.pop("name")
    return {str(k): v for k, v in options.items()}


def _check_keys(node: DictConfig, schema: type, where: str) -> None:
    # The schema refuses unknown keys, except those a user adds on purpose with +key=value.
    allowed = {f.name for f in fields(schema)}
    for key in map(str, node.keys()):
        if key not in allowed:
            raise ConfigError(f"unknown key '{where}{key}' (allowed: {', '.join(sorted(allowed))})")


def validate(cfg: DictConfig) -> np.ndarray:
    """Raise ConfigError for the first invalid value of ``cfg``; return the initial state."""
    _check_keys(cfg, Config, "")
    refuse_match_keys(cfg)  # hook (matches): two-player games run as matches, not searches
    if cfg.game.name not in games.names():
        raise ConfigError(
            f"game: unknown game '{cfg.game.name}' (allowed: {', '.join(games.names())})"
        )
    game = games.game(cfg.game.name)
    _check_keys(cfg.game, game.options, "game.")
    if cfg.algo.name not in algorithms.names():
        raise ConfigError(
            f"algo: unknown algorithm '{cfg.algo.name}' (allowed: {', '.join(algorithms.names())})"
        )
    algo = algorithms.algorithm(cfg.algo.name)
    _check_keys(cfg.algo, algo.config, "algo.")
    if cfg.scale.name not in SCALES:
        raise ConfigError(f"scale: unknown scale '{cfg.scale.name}' (allowed: {', '.join(SCALES)})")
    if cfg.n_searches < 1:
        raise ConfigError(f"n_searches = {cfg.n_searches}: must be at least 1")
    if cfg.seed < 0:
        raise ConfigError(f"seed = {cfg.seed}: must be a non-negative integer")
    if cfg.workers < 0:
        raise ConfigError(f"workers = {cfg.workers}: must be >= 0 (0 = all cores)")
    if cfg.chunk_seconds <= 0:
        raise ConfigError(f"chunk_seconds = {cfg.chunk_seconds}: must be > 0")
    budget = cfg.budget
    if budget.seconds is not None and budget.seconds <= 0:
        raise ConfigError(f"budget.seconds = {budget.seconds}: must be > 0 (or null for none)")
    if budget.playouts is not None and budget.playouts <= 0:
        raise ConfigError(f"budget.playouts = {budget.playouts}: must be > 0 (or null for none)")
    try:
        algorithms.check(algo, algo_config(cfg), settings(cfg), cfg.game.name)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    _check_parallel(cfg)
    try:
        return game.make_state(**game_options(cfg))
    except (ValueError, TypeError) as error:
        raise ConfigError(f"game ({cfg.game.name}): {error}") from None


def settings(cfg: DictConfig) -> Settings:
    """The cell's top-level search keys (level, memorize, budget; 0 = no budget)."""
    return Settings(
        level=int(cfg.level),
        memorize=bool(cfg.memorize),
        max_seconds=float(cfg.budget.seconds or 0.0),
        max_playouts=int(cfg.budget.playouts or 0),
        memorize_from=int(cfg.memorize_from),
        stop_at_target=bool(cfg.stop_at_target),
    )


def algo_config(cfg: DictConfig) -> Any:
    """The algorithm's config dataclass holding the cell's ``algo.*`` options."""
    options = OmegaConf.to_container(cfg.algo, resolve=True)
    assert isinstance(options, dict)
    return algorithms.algorithm(cfg.algo.name).config(**{str(k): v for k, v in options.items()})


PARALLEL_BACKENDS = ("none", "dask")


def _check_parallel(cfg: DictConfig) -> None:
    par = cfg.parallel
    if par.backend not in PARALLEL_BACKENDS:
        raise ConfigError(
            f"parallel.backend = {par.backend}: must be one of {', '.join(PARALLEL_BACKENDS)}"
        )
    if par.workers < 0:
        raise ConfigError(f"parallel.workers = {par.workers}: must be >= 0 (0 = all cores)")
    if par.backend == "none":
        if par.address is not None:
            raise ConfigError("parallel.address: only with parallel.backend=dask")
        return
    if cfg.budget.seconds is not None or cfg.budget.playouts is not None:
        raise ConfigError("parallel.backend=dask: budgets are for the Python API's parallel_search")
    try:
        options = api_options(algorithms.algorithm(cfg.algo.name), algo_config(cfg))
        dask_plan(cfg.algo.name, cfg.level, cfg.memorize, cfg.memorize_from, options)
    except ValueError as error:
        raise ConfigError(str(error)) from None
