"""The command line behind ``run.py``: resolvers, a pre-flight check of every cell of a sweep,
and the Hydra job that runs one cell.

Hydra reports a bad config in several lines from deep inside its composition. The pre-flight
check composes every cell of the requested run first with Hydra's compose API (command-line
sweeps and an experiment's ``hydra.sweeper.params`` expanded by Hydra's own basic sweeper),
validates it (``nmcs.harness.validate``, which reads the game's and the algorithm's registry
records) and stops at the first problem with one line naming the key
and what is allowed, exit status 2, before any search runs or any folder is made (a
``parallel.address`` where no Dask scheduler answers included).
"""

import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from hydra import compose, initialize_config_dir
from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import MissingConfigException, OverrideParseException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

from nmcs.harness import matches
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.parallel import check_scheduler
from nmcs.harness.runner import CellInterrupted, run_cell, search_options
from nmcs.harness.schema import SCALES, register_configs
from nmcs.harness.validate import ConfigError, validate
from nmcs.search.engine import compiled_levels
from nmcs.search.registry import algorithm

CONFIG_DIR = Path(__file__).resolve().parents[2] / "conf"
INFO_FLAGS = (
    "--help",
    "-h",
    "--hydra-help",
    "--info",
    "-i",
    "--cfg",
    "-c",
    "--version",
    "--shell-completion",
    "-sc",
)
MAX_CHECKED_CELLS = 400


def _by_scale(quick: Any, paper: Any, *, _root_: DictConfig) -> Any:
    name = _root_.scale.name
    if name not in SCALES:
        raise ValueError(f"scale: unknown scale '{name}' (allowed: {', '.join(SCALES)})")
    return quick if name == "quick" else paper


def _cell_dir(override_dirname: str) -> str:
    return override_dirname.replace("/", "_") or "base"


def register() -> None:
    """Schemas and resolvers; call before Hydra composes anything."""
    register_configs()
    if not OmegaConf.has_resolver("by_scale"):
        OmegaConf.register_new_resolver("by_scale", _by_scale)
        OmegaConf.register_new_resolver("cell_dir", _cell_dir)


def _options(group: str) -> list[str]:
    folder = CONFIG_DIR / group
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def _allowed_keys(full_key: str, overrides: Sequence[str] = ()) -> list[str]:
    """The keys next to ``full_key`` (e.g. game.* for 'game.dept') in the config of the cell's
    group choices (``game=morpion`` lists Morpion's options)."""
    parent = full_key.rpartition(".")[0]
    # A sweep's first value stands for the sweep (the error names the cell it failed in).
    groups = [o.split(",")[0] for o in overrides if "=" in o and _options(o.split("=", 1)[0])]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        node = compose("config", overrides=groups)
    node = OmegaConf.select(node, parent) if parent else node
    return sorted(str(k) for k in node.keys()) if OmegaConf.is_dict(node) else []


def one_line(error: BaseException, overrides: Sequence[str] = ()) -> str:
    """A one-line description of a config error raised by Hydra, OmegaConf or validate;
    ``overrides`` are the failing cell's, to list the keys its game and algorithm allow."""
    if isinstance(error, ConfigError):
        return str(error)
    if isinstance(error, OverrideParseException):
        return f"cannot parse '{error.override}': {error.message.splitlines()[0]}"
    if isinstance(error, MissingConfigException):
        # "In 'experiment/x': Could not find 'player_a/nmc3'": the option not found, not the
        # config that asked for it.
        found = re.search(r"Could not find '([\w/]+)/([^'/]+)'", str(error)) or re.search(
            r"'([\w/]+)/([^'/]+)'", str(error)
        )
        if found:
            group, option = found.groups()
            return f"{group}: unknown option '{option}' (allowed: {', '.join(_options(group))})"
    cause: BaseException | None = error
    while cause is not None and not isinstance(cause, OmegaConfBaseException):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ConfigKeyError | ConfigAttributeError):
        key = str(cause.full_key or cause.key)
        return f"unknown key '{key}' (allowed: {', '.join(_allowed_keys(key, overrides))})"
    if isinstance(cause, OmegaConfBaseException):
        message = str(cause.msg if hasattr(cause, "msg") else cause).splitlines()[0]
        full_key = getattr(cause, "full_key", None)
        return f"{full_key}: {message}" if full_key else message
    hint = matches.unset_player_hint(error, overrides)  # hook (matches)
    return hint or str(error).strip().splitlines()[0]


def _searchpath(overrides: Sequence[str]) -> list[str]:
    """The ``hydra.searchpath`` overrides (extra config folders), which composing needs too."""
    return [o for o in overrides if o.lstrip("+~").startswith("hydra.searchpath")]


def _cells(argv: Sequence[str]) -> list[list[str]]:
    """The task overrides of every cell the command would run, expanded by Hydra's own basic
    sweeper (``BasicSweeper.split_arguments``: an experiment's ``hydra.sweeper.params`` first,
    command-line values of the same key win), so the check sees exactly the jobs Hydra will
    launch."""
    multirun = "-m" in argv or "--multirun" in argv
    overrides = [a for a in argv if not a.startswith("-")]
    task = [o for o in overrides if not o.lstrip("+~").startswith("hydra")]
    parser = OverridesParser.create()
    parsed = parser.parse_overrides(task)
    if not multirun:
        return [task]
    # The experiment (and so its sweep) is known once the first value of each sweep is set.
    first = [
        f"{p.get_key_element()}={next(iter(p.sweep_string_iterator()))}"
        if p.is_sweep_override()
        else o
        for o, p in zip(task, parsed, strict=True)
    ]
    hydra_cfg = compose(
        "config", overrides=first + _searchpath(overrides), return_hydra_config=True
    ).hydra
    params = [f"{k}={v}" for k, v in (hydra_cfg.sweeper.params or {}).items()]
    [cells] = BasicSweeper.split_arguments(parser.parse_overrides(params + task), None)
    return cells


def preflight(argv: Sequence[str]) -> None:
    """Exit with status 2 and one line on stderr if any cell of the command is invalid."""
    if any(flag in argv for flag in INFO_FLAGS):
        return
    register()
    first_cells: dict[tuple[str, str, int], tuple[DictConfig, np.ndarray]] = {}
    first_pairing = None
    addresses: dict[str, None] = {}  # the Dask schedulers named (parallel.address), once each
    overrides = [a for a in argv if not a.startswith("-")]
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            cells = _cells(argv)
            for cell in cells[:MAX_CHECKED_CELLS]:
                overrides = list(cell)
                cfg = compose("config", overrides=overrides + _searchpath(argv))
                OmegaConf.to_container(cfg, resolve=True)
                if matches.is_match_cell(cfg):  # hook (matches): a pairing of two players
                    pairing = matches.validate_match(cfg)
                    first_pairing = first_pairing or pairing
                    continue
                state0 = validate(cfg)
                if cfg.parallel.backend == "dask" and cfg.parallel.address is not None:
                    addresses[str(cfg.parallel.address)] = None
                if cfg.parallel.backend == "none":  # a Dask cell warms its own searches
                    # One compiled entry point per game, algorithm and group of levels.
                    levels = compiled_levels(cfg.level, algorithm(cfg.algo.name).max_level)
                    key = (cfg.game.name, cfg.algo.name, levels)
                    first_cells.setdefault(key, (cfg, state0))
            # A Dask scheduler must answer now, not after the cell's folder is made.
            for address in addresses:
                check_scheduler(address)
    except Exception as error:  # noqa: BLE001 - every failure becomes one line
        print(f"run.py: error: {one_line(error, overrides)}", file=sys.stderr)
        sys.exit(2)
    # Load or compile each (game, algorithm) entry point here, once: jobs launched in parallel
    # processes then all find it in the on-disk cache instead of compiling (and writing the
    # cache) at once. Zero searches: the call compiles, runs nothing.
    if first_pairing is not None:
        matches.warm_up(first_pairing)
    for cfg, state0 in first_cells.values():
        search_batch(cfg.game.name, state0, search_seeds(0, 0, 0), **search_options(cfg))


def run_job(cfg: DictConfig) -> None:
    """The Hydra task: run one cell into the job's output folder."""
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        if matches.is_match_cell(cfg):  # hook (matches)
            matches.run_match_cell(cfg, out_dir)
        else:
            run_cell(cfg, out_dir)
    except ConfigError as error:
        print(f"run.py: error: {error}", file=sys.stderr)
        sys.exit(2)
    except CellInterrupted as stop:
        print(f"run.py: {stop}", file=sys.stderr)
        sys.exit(130)
