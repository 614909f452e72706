"""One registry type for every kind of record (games, algorithms): a name -> record table
that, on first use, imports every public module of its package (``nmcs.games``,
``nmcs.search``: a new module there is found without being listed anywhere), then any module
named in the ``NMCS_PLUGINS`` environment variable (comma-separated), so that a plugin's
records are found the same way as the package's.

A module registers its records at its bottom (``register(record)``); the registry lists the
records of ``ordered_modules`` first, in that order (the order of the documentation and of
the messages), then the others in registration order. An unknown name is a ValueError that
lists the choices in one line.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

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
        (once)."""
        if self._loaded:
            return
        self._loaded = True
        for module in self.ordered_modules + self.package_modules():
            importlib.import_module(module)
        for module in filter(None, os.environ.get(PLUGINS_ENV, "").split(",")):
            importlib.import_module(module.strip())

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
