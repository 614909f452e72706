"""One registry type for every kind of record (games, algorithms): a name -> record table
that, on first use, imports every public module of its package (``nmcs.games``,
``nmcs.search``: a new module there is found without being listed anywhere), then any module
named in the ``NMCS_PLUGINS`` environment variable (comma-separated), so that a plugin's
records are found the same way as the package's.

A module registers its records at its bottom (``register(record)``); the registry lists the
records of ``ordered_modules`` first, in that order (the order of the documentation and of
the messages), then the others in registration order. An unknown name is a ValueError that
lists the choices in one line; a module that cannot be imported (a plugin not on the Python
path, a package it needs not installed, an error in it) is a ``PluginError`` in one line that
names its file and the fix, as is a record that its registry's check refuses.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import traceback
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from nmcs.core.errors import ConfigError, PluginError

PLUGINS_ENV = "NMCS_PLUGINS"

R = TypeVar("R")


class Registry(Generic[R]):
    """Records of one kind by name.

    ``kind`` names the key in messages (``unknown algo 'x' (allowed: ...)``); ``package``
    is the package whose public modules hold the built-in records; ``module_of`` gives the
    module that defined a record (for the order of ``names``); ``check`` runs on each record
    as it registers (a ValueError, one line, refuses it)."""

    def __init__(
        self,
        kind: str,
        package: str,
        ordered_modules: tuple[str, ...],
        module_of: Callable[[R], str],
        check: Callable[[R], None] | None = None,
    ) -> None:
        self.kind = kind
        self.package = package
        self.ordered_modules = ordered_modules
        self._module_of = module_of
        self._check = check
        self._records: dict[str, R] = {}
        self._loaded = False

    def register(self, name: str, record: R) -> R:
        """Add (or replace) ``record`` as ``name``; returns it, so a module can keep it."""
        if self._module_of(record) not in self.ordered_modules:
            self.load()  # the ordered ones first, whatever imports first
        if self._check is not None:
            self._check(record)
        self._records[name] = record
        return record

    def load(self) -> None:
        """Import the package's public modules (the ordered ones first), then the plugins
        (once). PluginError (one line naming the module's file and the fix) for a module that
        is not found or fails to import; a refused record's own ConfigError as it is."""
        if self._loaded:
            return
        self._loaded = True  # first: a module registering while imported calls load() again
        try:
            for module in self.ordered_modules + self.package_modules():
                import_module(module, plugin=False)
            for module in plugins():
                import_module(module, plugin=True)
        except BaseException:
            self._loaded = False  # the next call says the same again
            raise

    def package_modules(self) -> tuple[str, ...]:
        """The public modules and subpackages directly in ``package``, by name."""
        path = importlib.import_module(self.package).__path__
        found = sorted(m.name for m in pkgutil.iter_modules(path) if not m.name.startswith("_"))
        return tuple(f"{self.package}.{name}" for name in found)

    def names(self) -> list[str]:
        """The registered names: those of ``ordered_modules`` in that order, then the others
        in registration order."""
        self.load()
        return sorted(self._records, key=lambda name: self._rank(self._records[name]))

    def _rank(self, record: R) -> int:
        module = self._module_of(record)
        modules = self.ordered_modules
        return modules.index(module) if module in modules else len(modules)

    def get(self, name: str) -> R:
        """The record ``name``; ValueError listing the choices if there is none."""
        self.load()
        if name not in self._records:
            raise ValueError(f"unknown {self.kind} '{name}' (allowed: {', '.join(self.names())})")
        return self._records[name]

    def records(self) -> Iterator[R]:
        """Every record, in ``names`` order."""
        return (self._records[name] for name in self.names())


def plugins() -> list[str]:
    """The modules named in ``NMCS_PLUGINS`` (comma-separated), in order."""
    return [m.strip() for m in os.environ.get(PLUGINS_ENV, "").split(",") if m.strip()]


def module_file(module: str) -> str:
    """The file of ``module`` (a name), or the name itself if it cannot be found."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    return str(spec.origin) if spec is not None and spec.origin else module


def import_module(module: str, plugin: bool) -> None:
    """Import ``module``; its failure as one line (PluginError) that names the module's file
    and the fix: a plugin that is not on the Python path, a module that imports a package
    that is not installed, or any other error, with the line of the module where it arose.
    A record refused as it registers (ConfigError) already says so in one line."""
    try:
        importlib.import_module(module)
    except ConfigError:
        raise
    except ModuleNotFoundError as error:
        if plugin and error.name is not None and module.startswith(error.name):
            raise PluginError(
                f"{PLUGINS_ENV}: no module '{module}' on the Python path; check the name, and "
                f"add the folder that holds {module.replace('.', '/')}.py to PYTHONPATH"
            ) from error
        raise PluginError(
            f"{module} ({module_file(module)}) imports '{error.name}', which is not installed: "
            "install it, or import it only where it is used"
        ) from error
    except Exception as error:  # noqa: BLE001 - every failure of a module becomes one line
        where = module_file(module)
        lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == where]
        if isinstance(error, SyntaxError) and error.filename == where:
            lines.append(error.lineno)
        at = f", line {lines[-1]}" if lines else ""
        said = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise PluginError(
            f"{module} ({where}{at}) fails to import: {type(error).__name__}: {said}; fix the "
            "module (python -c 'import " + module + "' shows the traceback)"
        ) from error
