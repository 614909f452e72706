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

import io
import os
import re
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePath
from typing import Any

from hydra import compose, initialize_config_dir
from hydra.core.hydra_config import HydraConfig
from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.plugins import Plugins
from hydra.errors import MissingConfigException, OverrideParseException
from hydra.plugins.sweeper import Sweeper
from omegaconf import DictConfig, OmegaConf, open_dict, read_write
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException

from nmcs.core.errors import ConfigError
from nmcs.core.scales import SCALES
from nmcs.harness import compose_cache, composed, interrupt
from nmcs.harness.cell import CellInterrupted, run
from nmcs.harness.cell_files import WRITE_FAULTS, CellWriteError, write_error
from nmcs.harness.estimate import estimate
from nmcs.harness.parallel import check_scheduler
from nmcs.harness.schema import register_configs
from nmcs.harness.validate import validate

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
    """Schemas, resolvers and the composition memos; call before Hydra composes anything."""
    compose_cache.install()
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
            return _registered_without_yaml(group, option) or (
                f"{group}: unknown option '{option}' (allowed: {', '.join(_options(group))})"
            )
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
    return _unset_node_hint(error, overrides) or str(error).strip().splitlines()[0]


def _registered_without_yaml(group: str, option: str) -> str | None:
    """One line for a game or an algorithm that is registered (its module imported, a plugin
    of ``NMCS_PLUGINS`` say) but has no YAML file where Hydra looks: which file to write, and
    where."""
    from nmcs.core.registry import module_file  # noqa: PLC0415 - only for this message
    from nmcs.games import registry as games  # noqa: PLC0415
    from nmcs.search import registry as algorithms  # noqa: PLC0415

    if group == "game" and option in games.names():
        module = games.game(option).kernels.__name__
    elif group == "algo" and option in algorithms.names():
        module = algorithms.algorithm(option).build.__module__
    else:
        return None
    return (
        f"{group}={option} is registered by {module} ({module_file(module)}) but has no "
        f"{group}/{option}.yaml: write it (defaults: [/schema_{group}_{option}@_here_], then "
        f"name: {option}) in conf/{group}/, or in a folder <dir>/{group}/ given as "
        "hydra.searchpath=[file://<dir>]"
    )


def _unset_node_hint(error: BaseException, overrides: Sequence[str]) -> str | None:
    """One line for Hydra's bare 'Unexpected type for root: NoneType', raised when an override
    sets a key inside a config node that is null (``player_a.level=1`` without a player)."""
    if "Unexpected type for root: NoneType" not in str(error):
        return None
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if "." in key:
            node = key.split(".", 1)[0]
            return (
                f"{key}: no {node} in this config (it is null; "
                f"set {node}=<preset> or an experiment that sets it)"
            )
    return None


def _searchpath(overrides: Sequence[str]) -> list[str]:
    """The ``hydra.searchpath`` overrides (extra config folders), which composing needs too."""
    return [o for o in overrides if o.lstrip("+~").startswith("hydra.searchpath")]


def _job_folder(cfg: DictConfig, multirun: bool) -> Path | None:
    """The folder Hydra runs the job of ``cfg`` (composed with Hydra's config) in: its
    ``hydra.run.dir``, or in a sweep ``hydra.sweep.dir``/``hydra.sweep.subdir``; None for a
    folder named after what only the running job knows (``hydra.job.num``, say)."""
    try:
        if multirun:
            return Path(str(cfg.hydra.sweep.dir)) / str(cfg.hydra.sweep.subdir)
        return Path(str(cfg.hydra.run.dir))
    except OmegaConfBaseException:
        return None


def _cells(argv: Sequence[str]) -> list[list[str]]:
    """The task overrides of every cell the command would run, expanded by Hydra's own basic
    sweeper (``BasicSweeper.split_arguments``: an experiment's ``hydra.sweeper.params`` first,
    command-line values of the same key win), so the check sees exactly the jobs Hydra will
    launch."""
    multirun = "-m" in argv or "--multirun" in argv
    overrides = [a for a in argv if not a.startswith("-")]
    task = [o for o in overrides if not composed.is_hydra_override(o)]
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
    [cells] = basic_sweeper().split_arguments(parser.parse_overrides(params + task), None)
    return cells


def basic_sweeper() -> Any:
    """Hydra's basic sweeper class, found through Hydra's public plugin discovery (its module
    is private to Hydra). Relied on: its static ``split_arguments(overrides, None)`` returns
    one batch of every job's overrides, the product of the sweeps in key order, a key given
    twice taking its last value (tests/test_harness.py pins it)."""
    for sweeper in Plugins.instance().discover(Sweeper):
        if sweeper.__name__ == "BasicSweeper":
            return sweeper
    raise RuntimeError("Hydra's BasicSweeper plugin is not installed")


def preflight(argv: Sequence[str]) -> None:
    """Exit with status 2 and one line on stderr if any cell of the command is invalid."""
    if any(flag in argv for flag in INFO_FLAGS):
        return
    register()
    first_cells: dict[tuple, Any] = {}
    addresses: dict[str, None] = {}  # the Dask schedulers named (parallel.address), once each
    overrides = [a for a in argv if not a.startswith("-")]
    checked_cells = []
    folders: dict[int, Path | None] = {}  # each checked cell's folder, by the cell's id
    notes: dict[str, None] = {}  # what the run does other than asked, once each
    try:
        given = _given_keys(overrides)
        multirun = "-m" in argv or "--multirun" in argv
        # Hydra names the job after the script (run.py: "run"); so does the check, whose
        # compositions Hydra's run then uses (nmcs.harness.composed).
        job_name = Path(sys.argv[0]).stem or "app"
        with initialize_config_dir(str(CONFIG_DIR), job_name=job_name, version_base="1.3"):
            cells = _cells(argv)
            with composed.recording():
                for cell in cells[:MAX_CHECKED_CELLS]:
                    overrides = list(cell)
                    cfg = compose(
                        "config",
                        overrides=composed.hydra_first(argv, cell, multirun),
                        return_hydra_config=True,
                    )
                    folder = _job_folder(cfg, multirun)
                    with read_write(cfg), open_dict(cfg):
                        del cfg["hydra"]  # the task's config, as Hydra hands it to the job
                    OmegaConf.to_container(cfg, resolve=True)
                    _check_booleans(cfg, overrides)
                    checked = validate(cfg)
                    _check_read(checked.unread_keys(), given)
                    notes.update(dict.fromkeys(_capped_workers(int(cfg.workers), checked.workers)))
                    checked_cells.append(checked)
                    folders[id(checked)] = folder
                    first_cells.setdefault(checked.compile_key(), checked)
                    addresses.update(dict.fromkeys(checked.schedulers()))
            # A Dask scheduler must answer now, not after the cell's folder is made; so must a
            # game's declared bounds, before a compiled search writes past them.
            for address in addresses:
                check_scheduler(address)
            for checked in first_cells.values():
                checked.check_bounds()
            _skip_hydras_batch_check(len(cells) <= MAX_CHECKED_CELLS)
    except Exception as error:  # noqa: BLE001 - every failure becomes one line
        print(f"run.py: error: {one_line(error, overrides)}", file=sys.stderr)
        sys.exit(2)
    for note in notes:
        print(f"run.py: {note}", file=sys.stderr, flush=True)
    line = estimate(checked_cells, folder_of=lambda cell: folders[id(cell)])
    if line:
        print(line, file=sys.stderr, flush=True)
    # Load or compile each entry point here, once: jobs launched in parallel processes then all
    # find it in the on-disk cache instead of compiling (and writing the cache) at once.
    for cell in first_cells.values():
        cell.warm_up()


def _capped_workers(asked: int, used: int) -> list[str]:
    """What a run says when it runs on fewer threads than ``workers`` asks: the machine's."""
    if asked <= used:
        return []
    return [
        f"workers = {asked}: this machine runs {used} threads at once (NUMBA_NUM_THREADS); "
        f"the cells run on {used}"
    ]


def _given_keys(overrides: Sequence[str]) -> list[str]:
    """The keys the command line sets (``hydra.*`` aside); ConfigError for a key given twice
    (Hydra would let the last one win silently)."""
    task = [o for o in overrides if not composed.is_hydra_override(o)]
    seen: dict[str, str] = {}
    for text, parsed in zip(task, OverridesParser.create().parse_overrides(task), strict=True):
        key = parsed.key_or_group
        if key in seen:
            raise ConfigError(
                f"{key}: given twice on the command line ({seen[key]} and {text}); give it once"
            )
        seen[key] = text
    return list(seen)


def _check_booleans(cfg: DictConfig, overrides: Sequence[str]) -> None:
    """ConfigError for a boolean key set to anything but true or false (OmegaConf would read
    ``yes``, ``on`` or ``2`` as true)."""
    for parsed in OverridesParser.create().parse_overrides(list(overrides)):
        key = parsed.key_or_group
        if parsed.is_delete() or parsed.is_sweep_override():
            continue
        if isinstance(OmegaConf.select(cfg, key, default=None), bool):
            value = parsed.value()
            if not isinstance(value, bool):
                raise ConfigError(f"{key} = {value}: must be true or false")


def _check_read(unread: dict[str, str], given: Sequence[str]) -> None:
    """ConfigError for a key given on the command line that the cell does not read."""
    for key in given:
        for other, why in unread.items():
            if key == other or key.startswith(other + "."):
                raise ConfigError(f"{key}: {why}; leave it out")


def _skip_hydras_batch_check(skip: bool) -> None:
    """Hydra's basic sweeper composes every job of a batch once more before launching it
    (``Sweeper.validate_batch_is_legal``), only to catch composition errors early. When the
    pre-flight check has just composed and validated every cell (``skip``), that third compose
    of each cell (about 0.08 s each, a fifth of a 30-cell quick sweep) finds nothing new, so the
    basic sweeper skips it; another sweeper (a plugin's) still checks its own jobs. The base
    class is patched (once per process; ``skip`` is read at each batch, for a process that runs
    several commands) because Hydra loads its core plugins' modules afresh when it scans for
    plugins."""
    _SKIP_BATCH_CHECK[0] = skip
    check = Sweeper.validate_batch_is_legal
    if getattr(check, "patched_by_nmcs", False):
        return

    def checked_by_preflight(self: Sweeper, batch: Sequence[Sequence[str]]) -> None:
        if not (_SKIP_BATCH_CHECK[0] and type(self).__name__ == "BasicSweeper"):
            check(self, batch)

    checked_by_preflight.patched_by_nmcs = True  # type: ignore[attr-defined]
    Sweeper.validate_batch_is_legal = checked_by_preflight  # type: ignore[method-assign]


_SKIP_BATCH_CHECK = [False]  # whether the basic sweeper skips its check (the last preflight's)


@contextmanager
def hydra_errors_raised() -> Iterator[None]:
    """Hydra prints an error of its own run (a job folder it cannot make, ``.hydra/*.yaml``
    it cannot write) as a traceback and exits 1; within this block it raises it instead
    (``HYDRA_FULL_ERROR``), for ``run.py`` to say it in one line (``file_system_error``)."""
    saved = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"
    try:
        yield
    finally:
        if saved is None:
            del os.environ["HYDRA_FULL_ERROR"]
        else:
            os.environ["HYDRA_FULL_ERROR"] = saved


def file_system_error(error: OSError) -> str | None:
    """The one line of a file-system fault met outside a cell's own files (Hydra's job folder
    and ``.hydra/*.yaml``, the compiled code's cache, a sweep's summary): the path and what to
    do, as a cell's own faults say it; None for an OSError that is no such fault (a
    connection, say). A write that fails after its file was opened names no file: the path is
    then the one being written in the innermost frame that holds one."""
    if error.errno not in WRITE_FAULTS:
        return None
    path = error.filename or _path_written(error)
    return str(write_error(Path(path or "the run's files"), error).strerror)


def _path_written(error: BaseException) -> Path | None:
    """The path a failed write was writing, from the frames of its traceback, innermost
    first: a file open for writing there, a ``pathlib`` method's own path, Hydra's
    ``_save_config(..., filename, output_dir)``, or a local ``path``."""
    frames = [frame for frame, _ in traceback.walk_tb(error.__traceback__)]
    for frame in reversed(frames):
        local = frame.f_locals
        for value in local.values():
            name, mode = getattr(value, "name", None), str(getattr(value, "mode", ""))
            if isinstance(value, io.IOBase) and isinstance(name, str) and set(mode) & set("wa+"):
                return Path(name)  # open for writing (perhaps closed by the failure)
        if isinstance(local.get("self"), PurePath):
            return Path(local["self"])
        if isinstance(local.get("filename"), str) and "output_dir" in local:
            return Path(str(local["output_dir"])) / local["filename"]
        if isinstance(local.get("path"), str | PurePath):
            return Path(local["path"])
    return None


def run_job(cfg: DictConfig) -> None:
    """The Hydra task: run one cell into the job's output folder."""
    out_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        run(validate(cfg), out_dir)
    except ConfigError as error:  # another config's folder, a cell another process runs
        print(f"run.py: error: {error}", file=sys.stderr)
        sys.exit(2)
    except CellWriteError as error:  # read-only folder, full disk, file too large
        print(f"run.py: error: {error.strerror}", file=sys.stderr)
        sys.exit(1)
    except CellInterrupted as stop:
        print(f"run.py: {stop}", file=sys.stderr)
        sys.exit(interrupt.exit_status())
