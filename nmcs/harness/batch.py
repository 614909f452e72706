"""Run a batch of independent seeded searches on one game from Python.

This is the one door from Python into the compiled engine: the harness calls it per chunk, and
tests, benchmarks and notebooks call it directly::

    from nmcs import make_state, search_batch, search_seeds
    res = search_batch("leftmove", make_state("leftmove", depth=60), search_seeds(0, 0, 100),
                       level=3, memorize=True, workers=2)
    res.score, res.moves[0]

It validates its arguments exactly as ``run.py`` validates a cell (the algorithm's registry
record, ``nmcs.search.registry.check``), packs them into the algorithm's engine parameters
(its ``params``) and runs the compiled entry point of the (game, algorithm) pair, compiling it
on first use (``nmcs.search.entry``), once the game's declared bounds are checked on a few
random games from the position (``nmcs.games.bounds``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields
from typing import Any

import numba
import numpy as np
from numba.core.errors import NumbaError

from nmcs.core.errors import ConfigError, compile_error
from nmcs.games.bounds import check_bounds, game_where
from nmcs.games.registry import Game
from nmcs.games.registry import game as game_record
from nmcs.harness.seeding import MAX_SEED, item_seeds
from nmcs.search.engine import (
    TRACE_LEN,
    entry_levels,
    level_brackets,
    lowest_served_level,
    new_outputs,
    run_searches,
)
from nmcs.search.entry import compile_entry, entry_point
from nmcs.search.registry import Algorithm, Settings, algorithm, check, memorizing


@dataclass
class BatchResult:
    """One entry per search."""

    seed: np.ndarray  # uint64, the search's own seed
    score: np.ndarray  # int64
    length: np.ndarray  # int64, moves in the returned sequence
    playouts: np.ndarray  # int64, playouts started (replays not counted)
    playout_moves: np.ndarray  # int64, moves played inside those playouts
    seconds: np.ndarray  # float64, wall time of the search
    # float64, CPU time of the thread that ran the search (time.thread_time's clock), over the
    # span of ``seconds``; a search spread over Dask workers: see ``nmcs.harness.parallel``
    cpu_seconds: np.ndarray
    moves: list[np.ndarray]  # int32 arrays, the move sequence from the initial state
    trace: list[np.ndarray]  # float64 arrays [k, 3]: seconds, playouts, best score per improvement


def search_seeds(seed: int, start: int, count: int) -> np.ndarray:
    """Seeds of searches start..start+count-1 of a cell with base ``seed``; ConfigError naming
    the argument unless all three are integers >= 0 (numpy integers included) and ``seed`` is
    at most 2**63 - 1, as a cell's (its results hold it as an int64)."""
    for name, value in (("seed", seed), ("start", start), ("count", count)):
        _check_int(name, value, 0, "an integer >= 0")
    if seed > MAX_SEED:
        raise ConfigError(f"seed = {seed}: must be an integer from 0 to 2**63 - 1")
    return seeds_for(int(seed), range(int(start), int(start) + int(count)))


def seeds_for(seed: int, indices: Any, key: tuple[int, ...] = ()) -> np.ndarray:
    """Search i of a cell with base ``seed`` gets the first word of SeedSequence([seed, i, *key])
    (``key``: the cell's own words under its seed scheme, ``nmcs.harness.seeding``), so a
    search's seed depends on neither chunking nor the number of workers."""
    return item_seeds(seed, indices, key)


def api_names(algo: Algorithm) -> dict[str, str]:
    """The algorithm's ``algo.*`` keys and their Python API names (``c`` -> ``uct_c``)."""
    renamed = getattr(algo.config, "API_NAMES", {})
    return {name: renamed.get(name, name) for name in algo.option_names()}


def _python(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (lists and tuples element by element), so
    that an option takes ``np.int64(10)`` wherever it takes ``10``."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return type(value)(_python(v) for v in value)
    return value


def algo_config(algo: Algorithm, options: dict[str, Any]) -> Any:
    """The algorithm's config dataclass from Python API keyword arguments."""
    options = {key: _python(value) for key, value in options.items()}
    names = api_names(algo)
    by_api = {api: key for key, api in names.items()}
    unknown = sorted(set(options) - set(by_api))
    if unknown:
        allowed = ", ".join(names.values()) or "none"
        raise ConfigError(
            f"unknown option '{unknown[0]}' for algo={algo.name} (allowed: {allowed})"
        )
    return algo.config(**{by_api[api]: value for api, value in options.items()})


def api_options(algo: Algorithm, config: Any) -> dict[str, Any]:
    """The algorithm's options held by ``config`` as ``search_batch`` keyword arguments."""
    names = api_names(algo)
    return {names[f.name]: getattr(config, f.name) for f in fields(config) if f.name in names}


def algo_options_string(options: dict[str, Any]) -> str:
    """The ``algo_options`` result column from ``api_options`` (lists written as tuples)."""
    return ",".join(
        f"{k}={tuple(v) if isinstance(v, list | tuple) else v}" for k, v in options.items()
    )


def search_batch(
    game: str,
    state0: np.ndarray,
    seeds: np.ndarray,
    algo: str = "nested",
    level: int = 1,
    memorize: bool = True,
    memorize_from: int = 1,
    stop_at_target: bool = True,
    max_seconds: float = 0.0,
    max_playouts: int = 0,
    workers: int = 1,
    **options: Any,
) -> BatchResult:
    """Run one search per seed from ``state0`` and return a BatchResult.

    Arguments:
        game: a registered single-player game (``nmcs.game_names()``).
        state0: the position to search from, a 1-D array of the game's dtype and layout
            (``nmcs.make_state(game, ...)``).
        seeds: one non-negative integer seed per search (``search_seeds``).
        algo: a registered algorithm (``nmcs.search.registry.names()``).
        level: an int, 0 to the algorithm's largest level (0 = one playout).
        memorize: a bool: with it, the levels from ``memorize_from`` up keep and follow the best
            sequence (``memorize_from=2``: every level but level 1, whose playouts then give a
            score and no sequence); an int from 1 to ``level``.
        stop_at_target: a bool; False (nested, iterative, on a game with a target score such
            as Sudoku): no search stops early at a playout that reaches the target (the paper's
            pseudo-code); an iterative search still stops its restarts at a search that returns
            such a game.
        max_seconds: the budget in seconds of the algorithms that take one (0 = none);
            refused by the algorithms that run to completion.
        max_playouts: the budget in playouts, as ``max_seconds`` (0 = none).
        workers: an int >= 0, the threads that run the searches (0 = all cores; results do
            not depend on it).
        options: the algorithm's own options by their Python API names (``conf/algo/<algo>.yaml``
            keys, except UCT's ``uct_c``, ``uct_nodes``, ``uct_edges``); omitted ones take the
            YAML defaults. ``algo="reflexive"`` takes ``games``: an int (the same at every
            level) or one count per level from the ground up (the paper's 78-move record:
            ``level=2, games=(100, 1000)``).

    Returns a BatchResult with one entry per seed. Raises ConfigError (a ValueError) with one
    line for an invalid argument, of the wrong type as well as out of range."""
    record, config, settings, game_record_ = checked_call(
        game,
        algo,
        level=level,
        memorize=memorize,
        memorize_from=memorize_from,
        stop_at_target=stop_at_target,
        max_seconds=max_seconds,
        max_playouts=max_playouts,
        options=options,
    )
    _check_int("workers", workers, 0, "an integer >= 0 (0 = all cores)")
    state0 = checked_state(game_record_, state0)
    checked_pairing(game_record_, state0, algo)
    seeds = checked_seeds(seeds)
    threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    return run_batch(game_record_, record, config, settings, state0, seeds, int(workers) or threads)


def checked_call(
    game: str,
    algo: str,
    *,
    level: Any,
    memorize: Any,
    memorize_from: Any,
    stop_at_target: Any,
    max_seconds: Any,
    max_playouts: Any,
    options: dict[str, Any],
) -> tuple[Algorithm, Any, Settings, Game]:
    """The algorithm's record, its config and the Settings of a Python API call, each argument
    checked for its type as well as its range, as ``run.py``'s schema and validation check a
    cell; ConfigError with one line otherwise."""
    if not isinstance(game, str) or not isinstance(algo, str):
        raise ConfigError(f"game and algo are names (str), got {game!r} and {algo!r}")
    try:
        record = algorithm(algo)
        game_record_ = game_record(game)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if game_record_.cells != "searches":
        raise ConfigError(
            f"game={game} is a two-player game: it runs as matches "
            "(nmcs.search.twoplayer.play_match), not searches"
        )
    _check_int("level", level, 0, f"an integer from 0 to {record.max_level}")
    _check_bool("memorize", memorize)
    _check_int("memorize_from", memorize_from, 1, f"an integer from 1 to {record.max_level}")
    if not record.memorizes and not memorize:
        raise ConfigError(
            f"memorize = {memorize!r}: algo={algo} does not memorize "
            f"(only algo={' or algo='.join(memorizing())}); leave it out"
        )
    _check_bool("stop_at_target", stop_at_target)
    _check_number("max_seconds", max_seconds)
    _check_int("max_playouts", max_playouts, 0, ">= 0 (0 = no limit)")
    config = algo_config(record, options)
    settings = Settings(
        level=int(level),
        memorize=bool(memorize),
        max_seconds=float(max_seconds),
        max_playouts=int(max_playouts),
        memorize_from=int(memorize_from),
        stop_at_target=bool(stop_at_target),
    )
    try:
        check(record, config, settings, game)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return record, config, settings, game_record_


def _check_int(name: str, value: Any, low: int, allowed: str) -> None:
    # bool is an int in Python: True must not run as level 1.
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ConfigError(f"{name} = {value!r}: must be {allowed}")
    if value < low:
        raise ConfigError(f"{name} = {value}: must be {allowed}")


def _check_bool(name: str, value: Any) -> None:
    # "no" and "false" are truthy strings: they must not run as True.
    if not isinstance(value, bool | np.bool_):
        raise ConfigError(f"{name} = {value!r}: must be True or False")


def _check_number(name: str, value: Any) -> None:
    allowed = "a finite number >= 0 (0 = no limit)"
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise ConfigError(f"{name} = {value!r}: must be {allowed}")
    if not (value >= 0 and math.isfinite(value)):  # an infinite budget would never return
        raise ConfigError(f"{name} = {value}: must be {allowed}")


def checked_pairing(game: Game, state0: np.ndarray, algo: str) -> None:
    """ConfigError (one line) if ``algo`` cannot search ``state0`` as the game's options ask
    (the game's ``check_search``: a playout policy the algorithm cannot honour)."""
    if game.check_search is not None:
        try:
            game.check_search(state0, algo)
        except ValueError as error:
            raise ConfigError(str(error)) from None


def checked_state(game: Game, state: Any) -> np.ndarray:
    """``state`` as the contiguous array the kernels take; ConfigError if it is not a position
    of ``game`` (a 1-D array of its dtype, of its size where the game fixes one, and whatever
    the game's own ``check_state`` verifies)."""
    reference = _reference_state(game.name)
    if not isinstance(state, np.ndarray) or state.ndim != 1 or state.dtype != reference.dtype:
        shape = getattr(state, "shape", None)
        dtype = getattr(state, "dtype", type(state).__name__)
        raise ConfigError(
            f"state0 of game={game.name}: must be a 1-D numpy array of {reference.dtype} "
            f"(nmcs.make_state('{game.name}', ...)), got shape {shape} of {dtype}"
        )
    size = getattr(game.kernels, "STATE_SIZE", None)
    if size is not None and state.shape[0] != size:
        raise ConfigError(
            f"state0 of game={game.name}: must have {size} entries, got {state.shape[0]}"
        )
    if game.check_state is not None:
        try:
            game.check_state(state)
        except ValueError as error:
            raise ConfigError(f"state0 of game={game.name}: {error}") from None
    return np.ascontiguousarray(state)


@functools.cache
def _reference_state(game: str) -> np.ndarray:
    return game_record(game).make_state()


def checked_seeds(seeds: Any) -> np.ndarray:
    """Seeds as uint64; ConfigError for anything but a 1-D sequence of integers >= 0."""
    array = np.asarray(seeds)
    if array.ndim != 1 or (array.size and not np.issubdtype(array.dtype, np.integer)):
        raise ConfigError(
            f"seeds: must be a 1-D array of integers >= 0 (search_seeds), got {array.dtype} "
            f"of shape {array.shape}"
        )
    if array.size and array.min() < 0:
        raise ConfigError("seeds: must be integers >= 0")
    return np.ascontiguousarray(array, dtype=np.uint64)


def entry(game: Game, record: Algorithm, settings: Settings, state0, seeds, params, out) -> Any:
    """The compiled entry point that runs ``record`` on ``game`` at ``settings.level``,
    compiled (saying so on stderr) or loaded for these arguments before any search runs."""
    levels = entry_levels(record, settings.level)
    run_block = entry_point(game.name, game.kernels, record.build, levels)
    lowest = lowest_served_level(levels, level_brackets(record))
    served = f"level {levels}" if lowest == levels else f"levels {lowest}-{levels}"
    label = f"{game.name} x {record.name}" + (f", {served}" if record.per_level else "")
    try:
        compile_entry(run_block, label, state0, seeds, params, out)
    except NumbaError as error:  # the game's or the algorithm's code
        raise compile_error(f"{game_where(game)} with algo={record.name}", error) from error
    return run_block


def warm_up(game: Game, record: Algorithm, config: Any, settings: Settings, state0: np.ndarray):
    """Compile (or load) the entry point of a call without running a search."""
    params = record.params(config, settings, game.kernels, state0)
    out = new_outputs(0, int(game.kernels.max_moves(state0)), 1)
    entry(game, record, settings, state0, np.zeros(0, np.uint64), params, out)


def run_batch(
    game: Game,
    record: Algorithm,
    config: Any,
    settings: Settings,
    state0: np.ndarray,
    seeds: np.ndarray,
    workers: int,
    params: Any = None,
) -> BatchResult:
    """Run the searches of ``seeds`` from already validated arguments (what ``search_batch``
    checks, and what a validated cell holds: ``nmcs.harness.search_cell.SearchCell``);
    ``params``: the engine parameters, if not the algorithm's from its config (a remote NRPA
    search's starting policy, ``nmcs.harness.parallel.remote_nrpa``)."""
    kernels = game.kernels
    n = seeds.shape[0]
    check_bounds(game, state0)  # before a compiled search writes into buffers of those sizes
    if params is None:
        params = record.params(config, settings, kernels, state0)
    max_moves = int(kernels.max_moves(state0))
    out = new_outputs(n, max_moves, TRACE_LEN if record.writes_trace else 1)
    run_block = entry(game, record, settings, state0, seeds, params, out)
    run_searches(run_block, state0, seeds, params, out, int(workers))
    lengths = out.length
    return BatchResult(
        seed=seeds,
        score=out.score,
        length=lengths,
        playouts=out.playouts,
        playout_moves=out.playout_moves,
        seconds=out.seconds,
        cpu_seconds=out.cpu_seconds,
        moves=[out.moves[i, : lengths[i]].copy() for i in range(n)],
        trace=[out.trace[i, : out.n_trace[i]].copy() for i in range(n)],
    )
