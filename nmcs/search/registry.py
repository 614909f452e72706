"""The algorithm registry: one record per search algorithm, the only place the harness, the
validation, the packing of engine parameters and the compiled engine learn about algorithms.

A search module registers its algorithms at its bottom (``register(Algorithm(...))``); this
module imports the built-in search modules on first use, and any module named in the
``NMCS_PLUGINS`` environment variable (comma-separated), so an algorithm written outside the
package is found the same way. Adding an algorithm = one search module + ``conf/algo/NAME.yaml``.

A record says::

    name          the value of ``algo=`` (and of the ``algo`` result column)
    config        a dataclass: the Hydra schema of ``conf/algo/NAME.yaml`` (its fields are the
                  ``algo.*`` keys, ``name`` first) and, by its ``check(settings)`` method, the
                  range checks of its own options (raise ValueError naming the key)
    params        (options, settings, kernels, state0) -> the engine parameters, a NamedTuple
                  of scalars and arrays that the algorithm's jitted ``run`` reads by name
    build         (game kernels, levels) -> (new_workspace(state0, params, stats),
                  run(state, params, rng, ws, seq, trace) -> (length, trace rows)); ``run``
                  plays on ``state`` (a copy of the initial position) so that it ends on the
                  returned game, writes the moves into ``seq`` and counts its playouts in
                  ``stats`` (int64[2]: playouts, playout moves); ``levels`` is the highest
                  level the compiled search will be asked to run (an algorithm whose levels
                  are separate functions compiles no more; the others ignore it)
    needs_budget  True: needs ``budget.seconds`` and/or ``budget.playouts``; False: runs to
                  completion and refuses a budget; None: runs to completion without one and
                  takes one if given (NRPA: the budget repeats and cuts the search)
    writes_trace  True: returns an anytime trace (seconds, playouts, best score) per search
    games         the games it accepts (None: every game)
    stop_rule     True: reads ``stop_at_target`` (false: no early stop inside a search at the
                  game's target score); False: refuses ``stop_at_target=false``
    max_level     the largest ``level`` it takes
    memorizes     True: reads ``memorize`` and ``memorize_from`` (nested searches); False:
                  ignores them, and naming them on the command line is refused
    per_level     True: ``build`` compiles only the levels it is asked for, so each level
                  bracket has its own entry point (``nmcs.search.engine.compiled_levels``);
                  False: ``build`` ignores ``levels`` and one entry point serves every level
                  (reflexive search, UCT, forward checking: compiling one per level would
                  compile the same code again; NRPA and GNRPA: one function for every level,
                  which calls itself for the level below)
    level_brackets  with ``per_level``: the highest level of each entry point but the last,
                  which serves every level above them (None: ``engine.LEVEL_BRACKETS``, 0, 1,
                  2, 3; beam search: (0, 1), its levels 2 and up run in one entry point)

``settings`` (``Settings``) are the top-level keys every algorithm may read: level, memorize
and the budget.

Numba and names: engine parameters and workspaces are ``typing.NamedTuple`` classes defined at
module level; numba passes them to and builds them in ``@njit(cache=True)`` code and caches
them on disk (checked with numba 0.68: a NamedTuple argument and a NamedTuple built inside a
compiled entry point both load from the cache in a new process). Two things do not work: a
NamedTuple class defined inside a function (numba cannot pickle its type into the cache index), and
fields whose Python type changes between calls (``level`` given once as int and once as float
compiles a second specialization), so ``params`` functions cast every field.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

from nmcs.core.errors import ConfigError  # noqa: F401 - re-exported

BUILTIN_MODULES = (
    "nmcs.search.nested",
    "nmcs.search.reflexive",
    "nmcs.search.uct",
    "nmcs.search.beam",
    "nmcs.search.fc",
    "nmcs.search.nrpa",
)
PLUGINS_ENV = "NMCS_PLUGINS"


class Settings(NamedTuple):
    """The top-level search keys of a cell (``level``, ``memorize``, ``budget.*``,
    ``memorize_from``); a budget of 0 means none of that kind."""

    level: int = 1
    memorize: bool = True
    max_seconds: float = 0.0
    max_playouts: int = 0
    memorize_from: int = 1  # with memorize: the lowest level that memorizes
    stop_at_target: bool = True  # stop a search at a playout that reaches the target score

    @property
    def has_budget(self) -> bool:
        return self.max_seconds > 0 or self.max_playouts > 0


@dataclass(frozen=True)
class Algorithm:
    """One search algorithm (see the module docstring)."""

    name: str
    config: type
    params: Callable[[Any, Settings, Any, Any], tuple]
    build: Callable[[Any, int], tuple]
    needs_budget: bool | None = False
    writes_trace: bool = False
    games: tuple[str, ...] | None = None
    stop_rule: bool = False
    max_level: int = 6
    memorizes: bool = False
    per_level: bool = True
    level_brackets: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        b = self.level_brackets
        ok = b is None or (
            isinstance(b, tuple)
            and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in b)
            and list(b) == sorted(set(b))
        )
        if not ok:
            raise ValueError(
                f"algorithm {self.name!r}: level_brackets = {b!r}: must be None or a tuple of "
                "increasing integers >= 0"
            )

    def option_names(self) -> list[str]:
        """The ``algo.*`` keys (the config's fields without ``name``)."""
        return [f.name for f in fields(self.config) if f.name != "name"]


_ALGORITHMS: dict[str, Algorithm] = {}
_loaded = False


def register(algorithm: Algorithm) -> Algorithm:
    """Add (or replace) an algorithm; returns it, so a module can keep the record."""
    if algorithm.build.__module__ not in BUILTIN_MODULES:
        _load()  # the built-in ones first, whatever imports first
    _ALGORITHMS[algorithm.name] = algorithm
    return algorithm


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        importlib.import_module(module)
    for module in filter(None, os.environ.get(PLUGINS_ENV, "").split(",")):
        importlib.import_module(module.strip())


def names() -> list[str]:
    """The registered algorithms: the built-in ones in ``BUILTIN_MODULES`` order (whatever
    imported first), then the others in registration order."""
    _load()
    return sorted(_ALGORITHMS, key=lambda name: _rank(_ALGORITHMS[name].build.__module__))


def _rank(module: str) -> int:
    return BUILTIN_MODULES.index(module) if module in BUILTIN_MODULES else len(BUILTIN_MODULES)


def algorithm(name: str) -> Algorithm:
    """The record of algorithm ``name``; ValueError listing the choices if there is none."""
    _load()
    if name not in _ALGORITHMS:
        raise ValueError(f"unknown algo '{name}' (allowed: {', '.join(names())})")
    return _ALGORITHMS[name]


def memorizing() -> list[str]:
    """The algorithms that read ``memorize`` and ``memorize_from``."""
    return [name for name in names() if _ALGORITHMS[name].memorizes]


def check(algo: Algorithm, options: Any, settings: Settings, game: str | None = None) -> None:
    """The checks every algorithm shares (level, budget, game), then the algorithm's own;
    raises ValueError with one line naming the key."""
    if not algo.memorizes and settings.memorize_from != 1:
        raise ValueError(
            f"memorize_from = {settings.memorize_from}: algo={algo.name} does not memorize "
            f"(only algo={' or algo='.join(memorizing())}); leave it out"
        )
    if not 0 <= settings.level <= algo.max_level:
        raise ValueError(f"level = {settings.level}: must be an integer from 0 to {algo.max_level}")
    if not 1 <= settings.memorize_from <= algo.max_level:
        raise ValueError(
            f"memorize_from = {settings.memorize_from}: must be from 1 to {algo.max_level} "
            "(an integer, the lowest level that memorizes)"
        )
    if settings.memorize and settings.level >= 1 and settings.memorize_from > settings.level:
        # No level would memorize, yet the results would say memorize=True.
        raise ValueError(
            f"memorize_from = {settings.memorize_from}: greater than level = {settings.level}, "
            "so no level would memorize (memorize_from must be from 1 to the level; "
            "for no memorization set memorize=false)"
        )
    if algo.needs_budget is True and not settings.has_budget:
        raise ValueError(f"budget: algo={algo.name} needs budget.seconds and/or budget.playouts")
    if settings.has_budget and algo.needs_budget is False:
        # A budget that is silently ignored would label results with a limit they never had.
        budgeted = [a.name for a in _ALGORITHMS.values() if a.needs_budget is not False]
        raise ValueError(
            f"budget: algo={algo.name} runs to completion and takes no budget "
            f"(budgets are for algo={' or algo='.join(budgeted)}; "
            "set budget.seconds=null budget.playouts=null)"
        )
    if not settings.stop_at_target and not algo.stop_rule:
        takes = [a.name for a in _ALGORITHMS.values() if a.stop_rule]
        raise ValueError(
            f"stop_at_target = false: algo={algo.name} does not take it "
            f"(only algo={' or algo='.join(takes)})"
        )
    if game is not None and algo.games is not None and game not in algo.games:
        raise ValueError(
            f"algo={algo.name} is for game={' or game='.join(algo.games)}, not game={game}"
        )
    options.check(settings)
