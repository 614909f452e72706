"""Checks every kind of cell shares, on a composed Hydra config: unknown keys, the game's
options and the keys of the driver (scale, seed, workers, chunk_seconds). Each failure is a
``ConfigError`` with one line that names the key and what is allowed."""

from __future__ import annotations

import copy
import re
from dataclasses import fields
from typing import Any, cast

from omegaconf import DictConfig, OmegaConf

from nmcs.core.errors import ConfigError
from nmcs.core.scales import SCALES
from nmcs.harness.seeding import DEFAULT_SCHEME, MAX_SEED, SEED_SCHEMES


def as_dict(node: DictConfig) -> dict[str, Any]:
    """A config node as a plain dict, interpolations resolved."""
    return {str(k): v for k, v in cast(dict, OmegaConf.to_container(node, resolve=True)).items()}


def resolved(cfg: DictConfig | dict[str, Any]) -> dict[str, Any]:
    """A config as a plain dict, interpolations resolved; a plain dict (a config already
    resolved, as ``meta.json`` keeps it) as a copy, without a round trip through OmegaConf (about
    6 ms a config)."""
    if isinstance(cfg, dict):
        return copy.deepcopy(cfg)
    return cast(dict[str, Any], OmegaConf.to_container(cfg, resolve=True))


def game_options(cfg: DictConfig) -> dict[str, Any]:
    """The game's options (``game.*`` without ``name``) as keyword arguments of its
    ``make_state``."""
    options = as_dict(cfg.game)
    options.pop("name")
    return options


def check_keys(node: DictConfig, schema: type, where: str) -> None:
    """ConfigError for a key of ``node`` that ``schema`` (a dataclass) does not have; the
    schema refuses unknown keys, except those a user adds on purpose with +key=value."""
    allowed = {f.name for f in fields(schema)}
    for key in map(str, node.keys()):
        if key not in allowed:
            raise ConfigError(f"unknown key '{where}{key}' (allowed: {', '.join(sorted(allowed))})")


# experiment_name names a folder of outputs/<scale>/: a plain name, never a path.
EXPERIMENT_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def check_experiment_name(name: object) -> None:
    """ConfigError unless ``name`` is a plain folder name (letters, digits, ``_-.``)."""
    text = str(name)
    if not EXPERIMENT_NAME.fullmatch(text) or text in (".", ".."):
        raise ConfigError(
            f"experiment_name = {text!r}: must be a plain name of letters, digits and _-. "
            "(not empty, not . or .., no / or spaces)"
        )


def machine_threads() -> int:
    """The threads a cell runs at once at most: ``NUMBA_NUM_THREADS`` (the cores, or fewer
    where the user set it to share the machine)."""
    import numba  # noqa: PLC0415 - the checks above need no compiler

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def thread_count(workers: int) -> int:
    """The threads of a cell given ``workers`` (0: all): never more than the machine's."""
    return min(int(workers) or machine_threads(), machine_threads())


def check_driver_keys(cfg: DictConfig) -> None:
    """The keys the cell driver reads (``nmcs.harness.cell``)."""
    check_experiment_name(cfg.experiment_name)
    if cfg.scale.name not in SCALES:
        raise ConfigError(f"scale: unknown scale '{cfg.scale.name}' (allowed: {', '.join(SCALES)})")
    if not 0 <= cfg.seed <= MAX_SEED:
        # Checked before anything runs: the results file holds the seed as an int64.
        raise ConfigError(f"seed = {cfg.seed}: must be an integer from 0 to 2**63 - 1")
    if cfg.get("seeds", DEFAULT_SCHEME) not in SEED_SCHEMES:
        raise ConfigError(
            f"seeds = {cfg.seeds}: must be one of {', '.join(SEED_SCHEMES)} "
            "(cell: each cell its own stream; common: the same seeds in every cell)"
        )
    if cfg.workers < 0:
        raise ConfigError(f"workers = {cfg.workers}: must be >= 0 (0 = all cores)")

    if cfg.chunk_seconds <= 0:
        raise ConfigError(f"chunk_seconds = {cfg.chunk_seconds}: must be > 0")
