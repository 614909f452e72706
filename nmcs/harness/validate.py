"""Range checks of a composed config, each failing with one line that names the key and what is
allowed. Types and unknown keys are checked earlier by the schema (``nmcs.harness.schema``)."""

from dataclasses import fields

from omegaconf import OmegaConf

from nmcs.games import GAMES, game_module
from nmcs.harness.schema import ALGO_SCHEMAS, GAME_SCHEMAS, SCALES, Config
from nmcs.search.engine import ALGORITHMS
from nmcs.search.nested import MAX_LEVEL

# The algorithms that stop on a budget (seconds and/or playouts); the others run to completion.
BUDGETED_ALGORITHMS = ("iterative", "uct")


class ConfigError(ValueError):
    """An invalid configuration; the message is one line."""


def game_options(cfg):
    """The game's options as keyword arguments of its ``make_state``."""
    options = OmegaConf.to_container(cfg.game, resolve=True)
    options.pop("name")
    return options


def _check_keys(node, schema, where):
    # The schema refuses unknown keys, except those a user adds on purpose with +key=value.
    allowed = {f.name for f in fields(schema)}
    for key in node.keys():
        if key not in allowed:
            raise ConfigError(f"unknown key '{where}{key}' (allowed: {', '.join(sorted(allowed))})")


def validate(cfg):
    """Raise ConfigError for the first invalid value of ``cfg``; return the initial state."""
    _check_keys(cfg, Config, "")
    if cfg.game.name not in GAMES:
        raise ConfigError(f"game: unknown game '{cfg.game.name}' (allowed: {', '.join(GAMES)})")
    _check_keys(cfg.game, GAME_SCHEMAS[cfg.game.name], "game.")
    if cfg.algo.name not in ALGORITHMS:
        raise ConfigError(
            f"algo: unknown algorithm '{cfg.algo.name}' (allowed: {', '.join(ALGORITHMS)})"
        )
    _check_keys(cfg.algo, ALGO_SCHEMAS[cfg.algo.name], "algo.")
    if cfg.scale.name not in SCALES:
        raise ConfigError(f"scale: unknown scale '{cfg.scale.name}' (allowed: {', '.join(SCALES)})")
    if not 0 <= cfg.level <= MAX_LEVEL:
        raise ConfigError(f"level = {cfg.level}: must be an integer from 0 to {MAX_LEVEL}")
    if not 1 <= cfg.memorize_from <= MAX_LEVEL:
        raise ConfigError(
            f"memorize_from = {cfg.memorize_from}: must be an integer from 1 to {MAX_LEVEL} "
            "(the lowest level that memorizes)"
        )
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
    budgeted = cfg.algo.name in BUDGETED_ALGORITHMS
    has_budget = budget.seconds is not None or budget.playouts is not None
    if budgeted and not has_budget:
        raise ConfigError(
            f"budget: algo={cfg.algo.name} needs budget.seconds and/or budget.playouts"
        )
    if has_budget and not budgeted:
        # A budget that is silently ignored would label results with a limit they never had.
        raise ConfigError(
            f"budget: algo={cfg.algo.name} runs to completion and takes no budget "
            f"(budgets are for algo={' or algo='.join(BUDGETED_ALGORITHMS)}; "
            "set budget.seconds=null budget.playouts=null)"
        )
    if cfg.algo.name == "reflexive":
        games = list(cfg.algo.games)
        if not games or min(games) < 1 or (len(games) > 1 and len(games) != cfg.level):
            raise ConfigError(
                f"algo.games = {games}: one count >= 1 for every level, or {cfg.level} counts "
                "(one per level from the ground up)"
            )
    if cfg.algo.name == "uct" and cfg.algo.c <= 0:
        raise ConfigError(f"algo.c = {cfg.algo.c}: must be > 0")
    try:
        return game_module(cfg.game.name).make_state(**game_options(cfg))
    except (ValueError, TypeError) as error:
        raise ConfigError(f"game ({cfg.game.name}): {error}") from None
