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
on first use (``nmcs.search.entry``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from nmcs.games.registry import game as game_record
from nmcs.search.engine import TRACE_LEN, compiled_levels, new_outputs, run_searches
from nmcs.search.entry import compile_entry, entry_point
from nmcs.search.registry import Algorithm, ConfigError, Settings, algorithm, check


@dataclass
class BatchResult:
    """One entry per search."""

    seed: np.ndarray  # uint64, the search's own seed
    score: np.ndarray  # int64
    length: np.ndarray  # int64, moves in the returned sequence
    playouts: np.ndarray  # int64, playouts started (replays not counted)
    playout_moves: np.ndarray  # int64, moves played inside those playouts
    seconds: np.ndarray  # float64, wall time of the search
    moves: list[np.ndarray]  # int32 arrays, the move sequence from the initial state
    trace: list[np.ndarray]  # float64 arrays [k, 3]: seconds, playouts, best score per improvement


def search_seeds(seed: int, start: int, count: int) -> np.ndarray:
    """Seeds of searches start..start+count-1 of a cell with base ``seed``."""
    return seeds_for(seed, range(start, start + count))


def seeds_for(seed: int, indices: Any) -> np.ndarray:
    """Search i of a cell with base ``seed`` gets the first word of SeedSequence([seed, i]), so a
    search's seed depends on neither chunking nor the number of workers."""
    return np.array(
        [np.random.SeedSequence([seed, int(i)]).generate_state(1, np.uint64)[0] for i in indices],
        dtype=np.uint64,
    )


def api_names(algo: Algorithm) -> dict[str, str]:
    """The algorithm's ``algo.*`` keys and their Python API names (``c`` -> ``uct_c``)."""
    renamed = getattr(algo.config, "API_NAMES", {})
    return {name: renamed.get(name, name) for name in algo.option_names()}


def algo_config(algo: Algorithm, options: dict[str, Any]) -> Any:
    """The algorithm's config dataclass from Python API keyword arguments."""
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

    ``algo`` is a registered algorithm (``nmcs.search.registry.names()``); ``options`` are its
    own options by their Python API names (``conf/algo/<algo>.yaml`` keys, except UCT's
    ``uct_c``, ``uct_nodes``, ``uct_edges``); omitted ones take the YAML defaults. A budget
    (``max_seconds`` and/or ``max_playouts``, 0 = none) is for the algorithms that need one.
    With ``memorize`` the levels from ``memorize_from`` up memorize (``memorize_from=2``: every
    level but level 1, whose playouts then give a score and no sequence).
    ``stop_at_target=False`` (nested, iterative, on a game with a target score such as Sudoku):
    no search stops early at a playout that reaches the target (the paper's pseudo-code); an
    iterative search still stops its restarts at a search that returns such a game.
    ``algo="reflexive"`` takes ``games``: an int (the same at every level) or one count per
    level from the ground up (the paper's 78-move record: ``level=2, games=(100, 1000)``).
    Raises ConfigError (a ValueError) with one line for an invalid argument.
    """
    try:
        record = algorithm(algo)
        kernels = game_record(game).kernels
    except ValueError as error:
        raise ConfigError(str(error)) from None
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
    state0 = np.ascontiguousarray(state0)
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = seeds.shape[0]
    params = record.params(config, settings, kernels, state0)
    levels = compiled_levels(settings.level, record.max_level)
    run_block = entry_point(game, kernels, record.name, record.build, levels)
    max_moves = int(kernels.max_moves(state0))
    out = new_outputs(n, max_moves, TRACE_LEN if record.writes_trace else 1)
    compile_entry(
        run_block, f"{game} x {record.name}, levels 0-{levels}", state0, seeds, params, out
    )
    run_searches(run_block, state0, seeds, params, out, int(workers))
    lengths = out.length
    return BatchResult(
        seed=seeds,
        score=out.score,
        length=lengths,
        playouts=out.playouts,
        playout_moves=out.playout_moves,
        seconds=out.seconds,
        moves=[out.moves[i, : lengths[i]].copy() for i in range(n)],
        trace=[out.trace[i, : out.n_trace[i]].copy() for i in range(n)],
    )
