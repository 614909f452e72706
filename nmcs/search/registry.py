"""The algorithm registry: one record per search algorithm, the only place the harness, the
validation, the packing of engine parameters and the compiled engine learn about algorithms.

A search module registers its algorithms at its bottom (``register(Algorithm(...))``); the
registry (``nmcs.core.registry``) imports every public module of ``nmcs.search`` on first use,
and any module named in the ``NMCS_PLUGINS`` environment variable (comma-separated), so an
algorithm written outside the package is found the same way. Adding an algorithm = one search
module + ``conf/algo/NAME.yaml`` (docs/howto/add-algorithm.md).

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
    games         the games it accepts (None: every game that has what ``requires`` names)
    requires      the optional game capabilities it needs (``nmcs.games.protocol.
                  CAPABILITIES``; NRPA: ``("code",)``): a game whose kernels lack one is
                  refused in one line, and the conformance test skips the pair
    dask_plan     optional (options, settings) -> ``DaskPlan``: how ``parallel.backend=dask``
                  runs a search of the algorithm, a top level on the master over searches of
                  the level below on the workers (``nmcs.harness.parallel``); raises
                  ValueError (one line naming the key) for a search it cannot run this way;
                  None: the algorithm has no master/remote version
    small_options options (Python API names) that keep a level-1 search small enough for a
                  test (the conformance test; reflexive search: one game count, level 1)
    doc           one line on what the algorithm is (default: the first sentence of the
                  config's docstring; ``summary()``), for the reference pages
    stop_rule     True: reads ``stop_at_target`` (false: no early stop inside a search at the
                  game's target score); False: refuses ``stop_at_target=false``
    max_level     the largest ``level`` it takes
    memorizes     True: reads ``memorize`` and ``memorize_from`` (nested searches); False:
                  ignores them, and naming them on the command line is refused
    per_level     True: ``build`` compiles only the levels it is asked for, so each level
                  bracket has its own entry point (``nmcs.search.engine.compiled_levels``;
                  nested and beam search); False (the default): ``build`` ignores ``levels``
                  and one entry point serves every level (reflexive search, UCT, forward
                  checking: compiling one per level would compile the same code again; NRPA
                  and GNRPA: one function for every level, which calls itself for the level
                  below)
    level_brackets  with ``per_level``: the highest level of each entry point but the last,
                  which serves every level above them (None: ``engine.LEVEL_BRACKETS``, 0, 1,
                  2, 3; beam search: (0, 1), its levels 2 and up run in one entry point)

``settings`` (``Settings``) are the top-level keys every algorithm may read: level, memorize
and the budget.

Each option's default is written once, in the config dataclass (the YAML file selects the
schema and documents nothing twice). An option added after results were published carries, in
its field's metadata, the value that reproduces the old behaviour (``added_option(default,
old)``): at that value it stays out of a cell's identity, and readers fill it into older rows
(``nmcs.harness.results``).

Numba and names: engine parameters and workspaces are ``typing.NamedTuple`` classes defined at
module level; numba passes them to and builds them in ``@njit(cache=True)`` code and caches
them on disk (checked with numba 0.68: a NamedTuple argument and a NamedTuple built inside a
compiled entry point both load from the cache in a new process). Two things do not work: a
NamedTuple class defined inside a function (numba cannot pickle its type into the cache index), and
fields whose Python type changes between calls (``level`` given once as int and once as float
compiles a second specialization), so ``params`` functions cast every field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, fields
from typing import Any, NamedTuple

from nmcs.core.errors import ConfigError  # noqa: F401 - re-exported
from nmcs.core.registry import PLUGINS_ENV, Registry  # noqa: F401 - PLUGINS_ENV re-exported

# The order of the listings (names(), messages, docs); every public module of the package is
# imported all the same, so a new one needs no entry here (it is listed after these).
BUILTIN_MODULES = (
    "nmcs.search.nested",
    "nmcs.search.reflexive",
    "nmcs.search.uct",
    "nmcs.search.beam",
    "nmcs.search.fc",
    "nmcs.search.nrpa",
)
ADDED = "added"  # field metadata: the value of an added option that gives the old behaviour


def added_option(default: Any, old: Any) -> Any:
    """A config field added after results were published: ``default`` now, ``old`` the value
    that gives the behaviour of before (``Algorithm.added_options``)."""
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={ADDED: old})
    return field(default=default, metadata={ADDED: old})


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


class DaskPlan(NamedTuple):
    """How ``parallel.backend=dask`` runs one search: the master's top level of width
    ``top_width`` over searches of ``lower_algo`` (None: the same algorithm) with
    ``lower_options`` one level below, on the workers; ``master`` is ``"beam"``
    (``nmcs.search.master``) or ``"nrpa"`` (``nmcs.search.nrpa_master``: the top-level policy
    on the master)."""

    top_width: int
    lower_algo: str | None
    lower_options: dict
    master: str = "beam"


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
    per_level: bool = False
    level_brackets: tuple[int, ...] | None = None
    requires: tuple[str, ...] = ()
    dask_plan: Callable[[Any, Settings], DaskPlan] | None = None
    small_options: dict[str, Any] = field(default_factory=dict)
    doc: str = ""

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

    def added_options(self) -> dict[str, Any]:
        """The options added after results were published, each with the value that gives the
        old behaviour (``added_option``)."""
        return {f.name: f.metadata[ADDED] for f in fields(self.config) if ADDED in f.metadata}

    def defaults(self) -> Any:
        """The config with every option at its default."""
        return self.config()

    def summary(self) -> str:
        """``doc``, or the first sentence of the config's docstring."""
        return self.doc or first_sentence(self.config.__doc__)


def first_sentence(text: str | None) -> str:
    """The first sentence of a docstring, on one line."""
    flat = " ".join((text or "").split())
    return flat.split(". ")[0].rstrip(".") + "." if flat else ""


def _check_record(record: Algorithm) -> None:
    from nmcs.games.protocol import CAPABILITIES  # noqa: PLC0415 - games import on demand

    unknown = [c for c in record.requires if c not in CAPABILITIES]
    if unknown:
        raise ValueError(
            f"algorithm {record.name!r}: requires {', '.join(unknown)}: not a game capability "
            f"(allowed: {', '.join(CAPABILITIES)})"
        )


REGISTRY: Registry[Algorithm] = Registry(
    "algo",
    "nmcs.search",
    BUILTIN_MODULES,
    lambda record: record.build.__module__,
    check=_check_record,
)


def register(algorithm: Algorithm) -> Algorithm:
    """Add (or replace) an algorithm; returns it, so a module can keep the record."""
    return REGISTRY.register(algorithm.name, algorithm)


def names() -> list[str]:
    """The registered algorithms: the built-in ones in ``BUILTIN_MODULES`` order (whatever
    imported first), then the others in registration order."""
    return REGISTRY.names()


def algorithm(name: str) -> Algorithm:
    """The record of algorithm ``name``; ValueError listing the choices if there is none."""
    return REGISTRY.get(name)


def lacks(algo: Algorithm, game: str) -> str | None:
    """Why ``algo`` cannot search ``game`` (one line), or None if it can: the game is not one
    of ``algo.games``, or its kernels lack a capability ``algo.requires``."""
    from nmcs.games import registry as games  # noqa: PLC0415 - search imports games on demand

    if algo.games is not None and game not in algo.games:
        return f"algo={algo.name} is for game={' or game='.join(algo.games)}, not game={game}"
    record = games.game(game)
    absent = [c for c in algo.requires if not hasattr(record.kernels, c)]
    if record.cells != "searches" or absent:
        able = [
            name
            for name in games.names()
            if games.game(name).cells == "searches"
            and all(hasattr(games.game(name).kernels, c) for c in algo.requires)
            and (algo.games is None or name in algo.games)
        ]
        what = f"no {', '.join(absent)} kernel" if absent else "two players"
        return f"algo={algo.name}: game={game} has {what} (allowed: {', '.join(able)})"
    return None


def memorizing() -> list[str]:
    """The algorithms that read ``memorize`` and ``memorize_from``."""
    return [name for name in names() if algorithm(name).memorizes]


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
        budgeted = [a.name for a in REGISTRY.records() if a.needs_budget is not False]
        raise ValueError(
            f"budget: algo={algo.name} runs to completion and takes no budget "
            f"(budgets are for algo={' or algo='.join(budgeted)}; "
            "set budget.seconds=null budget.playouts=null)"
        )
    if not settings.stop_at_target and not algo.stop_rule:
        takes = [a.name for a in REGISTRY.records() if a.stop_rule]
        raise ValueError(
            f"stop_at_target = false: algo={algo.name} does not take it "
            f"(only algo={' or algo='.join(takes)})"
        )
    why = None if game is None else lacks(algo, game)
    if why is not None:
        raise ValueError(why)
    options.check(settings)
