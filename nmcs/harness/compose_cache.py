"""Hydra's composition without its repeated work: the same configuration, in a sixth of the
time (``benchmarks/bench_compose.py``: 98-100 against 15.5 ms a cell on one core here).

Every cell of a sweep is composed before anything runs (``nmcs.harness.cli.preflight``),
and Hydra composes afresh each time: it parses every YAML file of the defaults list again
(about 13 files a cell here), merges the same files again, and deep-copies the whole
``ConfigStore`` (every game's and algorithm's schema) for a copy it then drops. About 0.1 s a
cell, half of what a quick sweep of small cells costs. Three memos, each keyed on what its
result is made of, so that a hit returns exactly what Hydra would have built, and two things
skipped:

- a YAML file's parsed config, by the file's text (Hydra's file and package config sources
  parse what they read through it);
- the defaults list (``create_defaults_list``: the tree of configs a command's choices of
  config groups make, which reads every config of the tree), by those choices (the overrides
  that choose, add or delete a config of a group, told apart from the values as Hydra's
  ``Overrides`` tells them), the config's name, the mode and the content below; a hit carries
  this command's values, not those of the command that filled it, so the cells of a sweep
  that differ in values only (seeds, budgets, board sizes) share one;
- the config merged from a defaults list (``ConfigLoaderImpl._compose_config_from_defaults_list``,
  before the command line's values are applied), by that list and by the content of every
  config the repository could read: the text of each YAML file under each folder of the search
  path (installed packages' folders included; a package read from a zip file is taken as fixed
  for the process) and the ``ConfigStore`` with how many times it was written to;
- the copy of the ``ConfigStore``: a deep copy of it returns the store itself (a singleton:
  the copy Hydra makes of its repository at each composition is replaced, sources and all,
  before it is read);
- the map Hydra builds for each config of the defaults tree to
  resolve interpolated defaults (``${...}`` in a defaults list), for a config that has none
  (none of this project's has); it is read for nothing else (``_map_is_only_for_interpolations``
  checks Hydra's source for that, else the map is built as before).

Each memo hands out a deep copy: nothing Hydra changes reaches a kept entry.
``tests/test_compose_cache.py`` checks that configurations compose the same with and without
all five, after a YAML file changes, after a schema is stored, with an interpolated default,
for cells that differ in values only and with added, deleted and unknown groups. ``ENABLED =
False`` turns them off.

Hydra's plugin scan executes its config source modules again in place (``Plugins``), so their
parser is replaced at each composition, not once.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.resources
import inspect
import io
import os
import re
from collections import OrderedDict
from pathlib import Path
from typing import Any

from hydra._internal import config_loader_impl
from hydra._internal import defaults_list as defaults_tree
from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

ENABLED = True
MAX_ENTRIES = 256  # merged configs, and defaults lists, kept (the least recently used go first)
MAX_FILES = 2000  # YAML files of a search path read for the memos' key (more: no memo)
_PARSED: dict[str, Any] = {}  # YAML text -> its config
_MERGED: OrderedDict[tuple, Any] = OrderedDict()
_TREES: OrderedDict[tuple, Any] = OrderedDict()
_STORES = [0]  # writes to the ConfigStore


class _MemoParser(OmegaConf):
    """``OmegaConf`` with ``load`` memoized by the text it reads (Hydra's sources call
    ``OmegaConf.load`` on an open file)."""

    @staticmethod
    def load(file_: Any) -> Any:  # type: ignore[override]
        if not ENABLED or not hasattr(file_, "read"):
            return OmegaConf.load(file_)
        text = file_.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        parsed = _PARSED.get(text)
        if parsed is None:
            stream = io.StringIO(text)
            stream.name = getattr(file_, "name", "<file>")  # a YAML error names the file
            parsed = _PARSED[text] = OmegaConf.load(stream)
        return copy.deepcopy(parsed)


def _source_modules() -> list[Any]:
    from hydra._internal.core_plugins import (  # noqa: PLC0415 - as Hydra's scan left them
        file_config_source,
        importlib_resources_config_source,
    )

    return [file_config_source, importlib_resources_config_source]


def _folder(source: Any) -> Path | None:
    """The folder a config source reads, if it is one on disk."""
    if source.scheme() == "file":
        return Path(source.path)
    if source.scheme() == "pkg":
        try:
            files = importlib.resources.files(source.path)
        except (ModuleNotFoundError, TypeError, ValueError):
            return None
        return files if isinstance(files, Path) else None
    return None


def _content_of(repo: Any) -> tuple | None:
    """``_repository_content(repo)``, read once per composition (Hydra makes a repository for
    each composition, and both memos ask)."""
    if not hasattr(repo, "_nmcs_content"):
        repo._nmcs_content = _repository_content(repo)
    return repo._nmcs_content


def _remember(memo: OrderedDict, key: tuple, value: Any) -> None:
    memo[key] = copy.deepcopy(value)
    while len(memo) > MAX_ENTRIES:
        memo.popitem(last=False)


def _repository_content(repo: Any) -> tuple | None:
    """What a composition can read from ``repo``: each source, the text of every YAML file
    under its folder, and the ``ConfigStore`` (the object and its writes); None for a search
    path with more than ``MAX_FILES`` YAML files (a project's root, with every cell's
    ``.hydra/`` files, say), which is composed without the memo rather than read whole."""
    digest = hashlib.blake2b(digest_size=20)
    files_read = 0
    for source in repo.get_sources():
        digest.update(f"{source.scheme()}://{source.path}|{source.provider}\n".encode())
        folder = _folder(source)
        if folder is None or not folder.is_dir():
            continue
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                if name.endswith((".yaml", ".yml")):
                    files_read += 1
                    if files_read > MAX_FILES:
                        return None
                    path = os.path.join(root, name)
                    digest.update(path.encode() + b"\0")
                    with open(path, "rb") as file:
                        digest.update(file.read())
                    digest.update(b"\0")
    return (ConfigStore.instance(), _STORES[0], digest.digest())


def _map_is_only_for_interpolations() -> bool:
    """Whether Hydra's defaults tree reads the interpolation map only to resolve interpolated
    defaults of the config it was built for (its source: the map is made once, then read once,
    for an interpolated child)."""
    source = inspect.getsource(defaults_tree._create_defaults_tree_impl)
    return source.count("known_choices") == 2 and bool(
        re.search(
            r"known_choices = _create_interpolation_map\(overrides, defaults_list, self_added\)"
            r"\s+for idx, dd in enumerate\(children\):"
            r"\s+if isinstance\(dd, InputDefault\) and dd\.is_interpolation\(\):"
            r"\s+dd\.resolve_interpolation\(known_choices\)",
            source,
        )
    )


def install() -> None:
    """Install the memos (once per process; the parser at each composition)."""
    load = ConfigLoaderImpl._load_configuration_impl
    if getattr(load, "patched_by_nmcs", False):
        return
    merge = ConfigLoaderImpl._compose_config_from_defaults_list
    create_defaults_list = config_loader_impl.create_defaults_list
    store = ConfigStore.store
    interpolation_map = defaults_tree._create_interpolation_map
    unread_map = _map_is_only_for_interpolations()

    def load_configuration(self: ConfigLoaderImpl, *args: Any, **kwargs: Any) -> Any:
        for module in _source_modules():
            module.OmegaConf = _MemoParser  # its load() checks ENABLED
        return load(self, *args, **kwargs)

    def defaults_list(
        repo: Any, config_name: Any, overrides_list: list, prepend_hydra: bool, skip_missing: bool
    ) -> Any:
        content = _content_of(repo) if ENABLED else None
        if content is None:
            return create_defaults_list(
                repo, config_name, overrides_list, prepend_hydra, skip_missing
            )
        # What Hydra's ``Overrides`` reads into the tree (a config group's choice, addition or
        # deletion; a sweep, which it skips) and what it only passes on (a value: config
        # overrides), told apart as it does.
        shaping, values = [], []
        for override in overrides_list:
            if not override.is_sweep_override() and (
                isinstance(override.value(), dict) or not repo.group_exists(override.key_or_group)
            ):
                values.append(override)
            else:
                shaping.append(override.input_line)
        key = (content, config_name, tuple(shaping), prepend_hydra, skip_missing)
        made = _TREES.get(key)
        if made is None:
            made = create_defaults_list(
                repo, config_name, overrides_list, prepend_hydra, skip_missing
            )
            _remember(_TREES, key, made)
            return made
        _TREES.move_to_end(key)
        made = copy.deepcopy(made)
        made.config_overrides = made.overrides.config_overrides = values
        return made

    def merged(self: ConfigLoaderImpl, defaults: list, repo: Any) -> Any:
        content = _content_of(repo) if ENABLED else None
        if content is None:
            return merge(self, defaults, repo)
        key = (
            content,
            tuple((d.config_path, d.parent, d.package, d.is_self, d.primary) for d in defaults),
        )
        cfg = _MERGED.get(key)
        if cfg is None:
            cfg = merge(self, defaults, repo)
            _remember(_MERGED, key, cfg)
            return cfg
        _MERGED.move_to_end(key)
        return copy.deepcopy(cfg)

    def interpolation_map_if_read(overrides: Any, defaults: list, self_added: bool) -> Any:
        if ENABLED and unread_map and not any(d.is_interpolation() for d in defaults):
            return None  # what would read it (an interpolated default) is not there
        return interpolation_map(overrides, defaults, self_added)

    def stored(self: ConfigStore, *args: Any, **kwargs: Any) -> None:
        _STORES[0] += 1
        store(self, *args, **kwargs)

    def same_store(self: ConfigStore, memo: dict) -> ConfigStore:
        if ENABLED:
            return self
        twin = object.__new__(ConfigStore)  # what deepcopy made before
        twin.repo = copy.deepcopy(self.repo, memo)
        return twin

    load_configuration.patched_by_nmcs = True  # type: ignore[attr-defined]
    ConfigLoaderImpl._load_configuration_impl = load_configuration  # type: ignore[method-assign]
    ConfigLoaderImpl._compose_config_from_defaults_list = merged  # type: ignore[method-assign]
    config_loader_impl.create_defaults_list = defaults_list  # type: ignore[assignment]
    defaults_tree._create_interpolation_map = interpolation_map_if_read  # type: ignore[assignment]
    ConfigStore.store = stored  # type: ignore[method-assign]
    ConfigStore.__deepcopy__ = same_store  # type: ignore[attr-defined]
