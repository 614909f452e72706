"""The command line behind ``run.py``: resolvers, a pre-flight check of every cell of a sweep,
and the Hydra job that runs one cell.

Hydra reports a bad config in several lines from deep inside its composition. The pre-flight
check composes every cell of the requested run first (command-line sweeps and an experiment's
``hydra.sweeper.params`` expanded) and stops at the first problem with one line naming the key
and what is allowed, exit status 2, before any search runs or any folder is made.
"""

import itertools
import re
import sys
from pathlib import Path

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import MissingConfigException, OverrideParseException
from omegaconf import OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

from nmcs.harness import matches
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.runner import CellInterrupted, algo_api_options, run_cell
from nmcs.harness.schema import SCALES, register_configs
from nmcs.harness.validate import ConfigError, validate

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


def _by_scale(quick, paper, *, _root_):
    name = _root_.scale.name
    if name not in SCALES:
        raise ValueError(f"scale: unknown scale '{name}' (allowed: {', '.join(SCALES)})")
    return quick if name == "quick" else paper


def _cell_dir(override_dirname):
    return override_dirname.replace("/", "_") or "base"


def register():
    """Schemas and resolvers; call before Hydra composes anything."""
    register_configs()
    if not OmegaConf.has_resolver("by_scale"):
        OmegaConf.register_new_resolver("by_scale", _by_scale)
        OmegaConf.register_new_resolver("cell_dir", _cell_dir)


def _options(group):
    folder = CONFIG_DIR / group
    return sorted(p.stem for p in folder.glob("*.yaml")) if folder.is_dir() else []


def _allowed_keys(full_key, overrides=()):
    """The keys next to ``full_key`` (e.g. game.* for 'game.dept') in the config of the cell's
    group choices (``game=morpion`` lists Morpion's options)."""
    parent = full_key.rpartition(".")[0]
    # A sweep's first value stands for the sweep (the error names the cell it failed in).
    groups = [o.split(",")[0] for o in overrides if "=" in o and _options(o.split("=", 1)[0])]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        node = compose("config", overrides=groups)
    node = OmegaConf.select(node, parent) if parent else node
    return sorted(str(k) for k in node.keys()) if OmegaConf.is_dict(node) else []


def one_line(error, overrides=()):
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
    cause = error
    while cause is not None and not isinstance(cause, OmegaConfBaseException):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ConfigKeyError | ConfigAttributeError):
        key = cause.full_key or str(cause.key)
        return f"unknown key '{key}' (allowed: {', '.join(_allowed_keys(key, overrides))})"
    if isinstance(cause, OmegaConfBaseException):
        message = str(cause.msg if hasattr(cause, "msg") else cause).splitlines()[0]
        key = getattr(cause, "full_key", None)
        return f"{key}: {message}" if key else message
    hint = matches.unset_player_hint(error, overrides)  # hook (matches)
    return hint or str(error).strip().splitlines()[0]


def _expand(parser, overrides):
    """Each override as a list of 'key=value' strings, one per value of a sweep."""
    expanded = []
    for override in parser.parse_overrides(overrides):
        key = override.get_key_element()
        if override.is_sweep_override():
            values = list(override.sweep_string_iterator())
        else:
            values = [override.get_value_element_as_str()]
        expanded.append([f"{key}={v}" for v in values])
    return expanded


def _cells(argv):
    """The task overrides of every cell the command would run."""
    multirun = "-m" in argv or "--multirun" in argv
    overrides = [a for a in argv if not a.startswith("-")]
    task = [o for o in overrides if not o.lstrip("+~").startswith("hydra")]
    parser = OverridesParser.create()
    expanded = _expand(parser, task)
    if not multirun:
        return (
            [[values[0] for values in expanded]]
            if all(len(v) == 1 for v in expanded)
            else [sum(expanded, [])[:0] + [v[0] for v in expanded]]
        )
    # An experiment may define its own sweep; command-line values of the same key win.
    first = [values[0] for values in expanded]
    hydra_cfg = compose("config", overrides=first, return_hydra_config=True).hydra
    given = {o.split("=", 1)[0].lstrip("+~") for o in task}
    sweep = {k: v for k, v in (hydra_cfg.sweeper.params or {}).items() if k not in given}
    expanded += _expand(parser, [f"{k}={v}" for k, v in sweep.items()])
    return list(itertools.product(*expanded))


def preflight(argv):
    """Exit with status 2 and one line on stderr if any cell of the command is invalid."""
    if any(flag in argv for flag in INFO_FLAGS):
        return
    register()
    first_cells = {}
    first_pairing = None
    overrides = [a for a in argv if not a.startswith("-")]
    try:
        with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
            cells = _cells(argv)
            for cell in cells[:MAX_CHECKED_CELLS]:
                overrides = list(cell)
                cfg = compose("config", overrides=overrides)
                OmegaConf.to_container(cfg, resolve=True)
                if matches.is_match_cell(cfg):  # hook (matches): a pairing of two players
                    pairing = matches.validate_match(cfg)
                    first_pairing = first_pairing or pairing
                    continue
                state0 = validate(cfg)
                first_cells.setdefault((cfg.game.name, cfg.algo.name), (cfg, state0))
    except Exception as error:  # noqa: BLE001 - every failure becomes one line
        print(f"run.py: error: {one_line(error, overrides)}", file=sys.stderr)
        sys.exit(2)
    # Load or compile each (game, algorithm) entry point here, once: jobs launched in parallel
    # processes then all find it in the on-disk cache instead of compiling (and writing the
    # cache) at once. Zero searches: the call compiles, runs nothing.
    if first_pairing is not None:
        matches.warm_up(first_pairing)
    for cfg, state0 in first_cells.values():
        search_batch(
            cfg.game.name,
            state0,
            search_seeds(0, 0, 0),
            algo=cfg.algo.name,
            level=cfg.level,
            memorize=cfg.memorize,
            max_seconds=float(cfg.budget.seconds or 0.0),
            max_playouts=int(cfg.budget.playouts or 0),
            **algo_api_options(cfg),
        )


def run_job(cfg):
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
