"""Each cell's configuration composed once: the pre-flight check's compositions handed to
Hydra's run of the same command.

``run.py`` composes every cell before anything runs (``nmcs.harness.cli.preflight``), then
Hydra composes each job again, with the same arguments, before running it: about 0.09 s a
composition here, as much as a quick cell's searches. While the pre-flight check composes
(``recording()``), each composition is kept; when Hydra then asks for one with the same
arguments (``ConfigLoaderImpl.load_configuration``: the config name, the overrides in order,
the run mode) from the same search path, job name and working folder, it gets the kept one
(once: a job changes its config) instead of composing it again. The check composes each
cell with the overrides Hydra will pass: a single run's command-line overrides then
``hydra.mode=RUN``; a sweep job's Hydra overrides from the command line, ``hydra.mode=MULTIRUN``,
then the job's own (``hydra_first``). Any other call composes as before, so a command Hydra
composes differently (another config folder or name, a Hydra that orders overrides in another
way) is composed twice, never given another config; ``tests/test_harness.py`` checks that a
kept composition equals the one Hydra makes.

Hydra's config loader is patched once per process, as ``cli._skip_hydras_batch_check`` patches
its sweeper: Hydra's public API has no hook between composing a job and running it.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.utils import JobRuntime

KEEP = True  # whether the check's compositions serve Hydra's run (False: compose each again)
_KEPT: dict[tuple, Any] = {}  # the pre-flight check's compositions, by their arguments (as
# many as the cells it composes, at most cli.MAX_CHECKED_CELLS)
_RECORDING = [False]


def _key(loader: Any, config_name: str | None, overrides: Sequence[str], run_mode: Any) -> tuple:
    search_path = tuple((e.provider, e.path) for e in loader.get_search_path().get_path())
    name = JobRuntime().get("name")  # hydra.job.name of the composition
    return (config_name, tuple(overrides), run_mode, search_path, name, os.getcwd())


def is_hydra_override(override: str) -> bool:
    """Whether a command-line override sets Hydra's own config (``hydra.run.dir``,
    ``hydra.searchpath``, ``+hydra...``), not the task's."""
    return override.lstrip("+~").startswith("hydra")


def hydra_first(argv: Sequence[str], cell: Sequence[str], multirun: bool) -> list[str]:
    """The overrides Hydra composes the job of ``cell`` with, for the command ``argv``."""
    given = [a for a in argv if not a.startswith("-")]
    if not multirun:
        return [*given, "hydra.mode=RUN"]
    hydra = [o for o in given if is_hydra_override(o)]
    return [*hydra, "hydra.mode=MULTIRUN", *cell]


@contextmanager
def recording() -> Iterator[None]:
    """Keep the compositions made inside this block (the ones kept before are dropped)."""
    _install()
    _KEPT.clear()
    _RECORDING[0] = True
    try:
        yield
    except BaseException:
        _KEPT.clear()  # a refused command runs nothing
        raise
    finally:
        _RECORDING[0] = False


def forget() -> None:
    """Drop the compositions kept and not used (at the end of a command)."""
    _KEPT.clear()


def _install() -> None:
    compose = ConfigLoaderImpl.load_configuration
    if getattr(compose, "patched_by_nmcs", False):
        return

    def composed_once(
        self: ConfigLoaderImpl,
        config_name: str | None,
        overrides: list[str],
        run_mode: Any,
        from_shell: bool = True,
        validate_sweep_overrides: bool = True,
    ) -> Any:
        key = _key(self, config_name, overrides, run_mode)
        if not _RECORDING[0] and key in _KEPT:
            return _KEPT.pop(key)
        cfg = compose(self, config_name, overrides, run_mode, from_shell, validate_sweep_overrides)
        if _RECORDING[0] and KEEP:
            _KEPT[key] = copy.deepcopy(cfg)  # the check changes its own copy
        return cfg

    composed_once.patched_by_nmcs = True  # type: ignore[attr-defined]
    ConfigLoaderImpl.load_configuration = composed_once  # type: ignore[method-assign]
