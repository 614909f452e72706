"""Search cells: a single-player game's cell, validated once into a frozen ``SearchCell`` that
the preflight, the cell driver (``nmcs.harness.cell``), the result rows and the Dask backend
all read.

A cell is ``n_searches`` independent searches of one algorithm on one position; search i is seeded
from (seed, i) and the cell's seed scheme (``nmcs.harness.seeding``). Its identity is the config
without ``NOT_IDENTITY`` (and without the keys that only match cells read, so that adding those left
existing cells' hashes as they were).

Columns of results.parquet::

    experiment cell game instance game_options <game options...> algo algo_options
    algo_<option>... (one typed column per algo.* option: algo_beam, algo_games, algo_c, ...)
    level memorize memorize_from stop_at_target parallel_backend (none | dask)
    budget_seconds budget_playouts (null when not set) seed search search_seed score length
    playouts playout_moves seconds cpu_seconds moves (list<int32>) trace_seconds trace_playouts
    trace_score (lists; iterative, uct)

``seconds`` is the search's wall time, ``cpu_seconds`` the CPU time of the thread that ran it
over the same span (``time.thread_time``'s clock, read in the compiled loop around each search:
``nmcs.core.clock.thread_cpu``); a search spread over Dask workers adds up the master's and the
workers' (``nmcs.harness.parallel.dask_batch``). Rows written before ``cpu_seconds`` existed
read as NaN (``nmcs.harness.results``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from nmcs.core.errors import ConfigError
from nmcs.games import registry as games
from nmcs.games.bounds import check_bounds
from nmcs.games.registry import Game
from nmcs.harness.batch import (
    BatchResult,
    algo_options_string,
    api_options,
    checked_pairing,
    run_batch,
    seeds_for,
    warm_up,
)
from nmcs.harness.cell import ChunkRunner, atomic_write_bytes, check_size
from nmcs.harness.configs import (
    as_dict,
    check_driver_keys,
    check_keys,
    game_options,
    resolved,
    thread_count,
)
from nmcs.harness.records import (
    HuntClock,
    RecordHunt,
    budget_line,
    save_games,
    stop_reason,
    validate_record,
)
from nmcs.harness.results import ADDED_KEYS, without_added_defaults
from nmcs.harness.schema import Config
from nmcs.harness.seeding import identity_scheme, scheme_identity, seed_key
from nmcs.search import registry as algorithms
from nmcs.search.engine import entry_levels
from nmcs.search.registry import Algorithm, Settings

# Keys that change how a cell is computed, or how many of its searches, but not their results.
NOT_IDENTITY = ("workers", "progress", "chunk_seconds", "n_searches", "scale", "record")
# Top-level keys that only match cells read (``nmcs.harness.match_cell``): a search cell must
# leave them unset, and then they are not part of its identity.
MATCH_ONLY_KEYS = ("player_a", "player_b", "n_matches")
PARALLEL_BACKENDS = ("none", "dask", "dask_searches")


def search_identity(cfg: DictConfig | dict[str, Any]) -> dict[str, Any]:
    """The part of a search cell's config that determines every search's result; ``cfg`` a
    composed config or its resolved container (a published cell's ``meta.json`` config)."""
    full = resolved(cfg)
    identity = {
        k: v
        for k, v in full.items()
        if k not in NOT_IDENTITY and not (k in ADDED_KEYS and v == ADDED_KEYS[k])
    }
    # Where the searches run changes them only through the ``dask`` backend (a Dask search seeds
    # each child from its place in the tree), never through the number of workers or the
    # scheduler; threads and ``dask_searches`` give the same rows, and the default backend
    # (added later) leaves the older cells' hashes as they were.
    parallel = identity.pop("parallel", None) or {}
    if parallel.get("backend", "none") == "dask":
        identity["parallel_backend"] = parallel["backend"]
    for key in MATCH_ONLY_KEYS:
        if identity.get(key, 0) is None:
            del identity[key]
    if isinstance(identity.get("algo"), dict):
        identity["algo"] = without_added_defaults(identity["algo"]["name"], identity["algo"])
    budget = identity.get("budget")
    if isinstance(budget, dict) and budget.get("ms", 0) is None:
        identity["budget"] = {k: v for k, v in budget.items() if k != "ms"}
    return scheme_identity(identity, str(full.get("seeds", "common")))


@dataclass(frozen=True)
class ParallelSettings:
    """``parallel.*``: where the searches run (``none``: threads; ``dask``)."""

    backend: str = "none"
    workers: int = 0
    address: str | None = None


@dataclass(frozen=True)
class SearchCell:
    """A validated search cell: everything the driver, the engine and the rows read."""

    experiment: str
    game: Game
    game_options: dict[str, Any]
    algo: Algorithm
    options: Any  # the algorithm's config dataclass (its algo.* options)
    settings: Settings
    state0: np.ndarray = field(repr=False)
    n: int
    seed: int
    workers: int
    chunk_seconds: float
    progress: bool
    parallel: ParallelSettings
    budget_seconds: float | None
    budget_playouts: int | None
    identity: dict[str, Any] = field(repr=False)
    config: dict[str, Any] = field(repr=False)
    record: RecordHunt | None = None
    clock: HuntClock = field(default_factory=HuntClock, repr=False, compare=False)
    kind: str = "searches"
    unit: str = "search"

    # ------------------------------------------------------------------ derived

    @property
    def api_options(self) -> dict[str, Any]:
        """The algorithm's options as ``search_batch`` keyword arguments."""
        return api_options(self.algo, self.options)

    @property
    def option_columns(self) -> dict[str, Any]:
        """The algorithm's options as typed result columns: ``algo_<key>``."""
        return {
            f"algo_{f.name}": _plain(getattr(self.options, f.name))
            for f in fields(self.options)
            if f.name != "name"
        }

    @property
    def instance(self) -> str:
        """The position's name: the game's ``instance`` option where it has one (a position of
        a test set), else all its options as one string."""
        if "instance" in self.game_options:
            return str(self.game_options["instance"])
        return self.game_options_string

    @property
    def game_options_string(self) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted(self.game_options.items()))

    def compile_key(self) -> tuple:
        """Cells with the same key share one compiled entry point."""
        levels = entry_levels(self.algo, self.settings.level)
        return ("searches", self.game.name, self.algo.build, levels)

    def schedulers(self) -> tuple[str, ...]:
        """The Dask scheduler the cell's searches need (``parallel.address``), if any: the
        preflight checks that it answers before any folder is made."""
        if self.parallel.backend != "none" and self.parallel.address is not None:
            return (str(self.parallel.address),)
        return ()

    def unread_keys(self) -> dict[str, str]:
        """The top-level keys this cell's algorithm does not read (its record's
        ``memorizes``), each with why: the preflight refuses them on the command line."""
        if self.algo.memorizes:
            return {}
        why = (
            f"algo={self.algo.name} does not memorize "
            f"(only algo={' or algo='.join(algorithms.memorizing())})"
        )
        return {"memorize": why, "memorize_from": why}

    def check_bounds(self) -> None:
        """PluginError (one line) if the game breaks its declared bounds from the cell's
        position (``nmcs.games.bounds``): the preflight asks before any folder is made."""
        check_bounds(self.game, self.state0)

    def warm_up(self) -> None:
        """Compile (or load) the cell's entry point, running nothing: done in the parent before
        a parallel launch, so that jobs find it in the cache instead of compiling at once."""
        if self.parallel.backend != "dask":  # a master/remote cell warms its own searches
            self._warm_up()

    def _warm_up(self) -> None:
        warm_up(self.game, self.algo, self.options, self.settings, self.state0)

    # ------------------------------------------------------------------ the driver's interface

    @property
    def seed_key(self) -> tuple[int, ...]:
        """The cell's own words in every search seed (``nmcs.harness.seeding``)."""
        return seed_key(self.identity)

    def meta(self) -> dict[str, Any]:
        return {"seed_scheme": identity_scheme(self.identity)}

    @contextmanager
    def session(self, out_dir: Path) -> Iterator[ChunkRunner]:
        """Threads: the chunks run here. Dask: one cluster for the cell, closed at its end (or
        at Ctrl-C), with Dask's log in the cell's ``dask.log``."""
        log = out_dir / "dask.log"
        if self.parallel.backend == "dask_searches":
            from nmcs.harness.dask_searches import searches_session  # noqa: PLC0415 - on demand

            with searches_session(self, log, self._warm_up) as runner:
                run = partial(self.run_chunk, runner=runner)
                run.workers = runner.workers  # type: ignore[attr-defined] # chunks sized by it
                yield run
            return
        if self.parallel.backend != "dask":
            yield self.run_chunk
            return
        from nmcs.harness.parallel import dask_session  # noqa: PLC0415 - Dask, on demand

        with dask_session(self.parallel.workers, self.parallel.address, log) as executor:
            yield partial(self.run_chunk, executor=executor)

    def run_chunk(
        self, cell: str, indices: list[int], executor: Any = None, runner: Any = None
    ) -> pd.DataFrame:
        """The rows of searches ``indices``: on threads, spread over ``executor``'s Dask
        workers (the master here), or each on a Dask worker of ``runner``
        (``nmcs.harness.dask_searches``)."""
        seeds = seeds_for(self.seed, indices, self.seed_key)
        if runner is not None:
            res = runner(seeds)
        elif executor is not None:
            from nmcs.harness.parallel import dask_batch  # noqa: PLC0415 - Dask, on demand

            res = dask_batch(
                self.game.name,
                self.state0,
                seeds,
                self.algo.name,
                self.settings.level,
                self.settings.memorize,
                self.settings.memorize_from,
                self.api_options,
                executor,
            )
        else:
            res = run_batch(
                self.game, self.algo, self.options, self.settings, self.state0, seeds, self.workers
            )
        return self.rows(cell, indices, res)

    def finish(self, results: pd.DataFrame, out_dir: Path) -> None:
        """The best game of the cell as text (``best_game.txt``) and, for games that can draw
        themselves (the record's ``save_game``), as pictures and game files next to it."""
        best = results.loc[results["score"].idxmax()]
        if best["moves"] is None:
            # A search restored from a published folder (python -m analysis.restore): its moves
            # were not kept, and the published best game stands unless a new search beats it.
            if (out_dir / "best_game.txt").exists():
                return
            replayable = results[results["moves"].notna()]
            if replayable.empty:
                return
            best = replayable.loc[replayable["score"].idxmax()]
        moves = np.asarray(best["moves"], dtype=np.int32)
        text = (
            f"game {self.game.name}, score {best['score']}, {len(moves)} moves, search "
            f"{best['search']} (seed {best['search_seed']})\n"
            f"{self.game.describe(self.state0, moves)}\n"
        )
        atomic_write_bytes(out_dir / "best_game.txt", text.encode())
        if self.game.save_game is not None:
            self.game.save_game(self.state0, moves, out_dir / "best_game")
        if self.record is not None and len(results) == self.n:
            print(f"{out_dir}: {budget_line(self.record, results, self.n)}", flush=True)

    @property
    def hunts(self) -> bool:
        return self.record is not None

    def after_saved(self, rows: pd.DataFrame, out_dir: Path, n_saved: int) -> str | None:
        """A record hunt: save the games at or over the threshold (each replayed from its file
        first), then stop if the target is reached or the hours are spent."""
        if self.record is None:
            return None
        for search, score, stem in save_games(self.record, self.state0, rows, out_dir):
            suffix = self.record.book.suffix
            print(f"record hunt: search {search} scored {score}: {stem}{suffix}", flush=True)
        return stop_reason(self.record, rows, self.clock, n_saved, self.n)

    def rows(self, cell: str, indices: list[int], res: BatchResult) -> pd.DataFrame:
        """One DataFrame row per search of a batch."""
        n = len(indices)
        settings = self.settings
        return pd.DataFrame(
            {
                "experiment": self.experiment,
                "cell": cell,
                "game": self.game.name,
                "instance": self.instance,
                "game_options": self.game_options_string,
                **{k: v for k, v in self.game_options.items() if k != "instance"},
                "algo": self.algo.name,
                "algo_options": algo_options_string(
                    without_added_defaults(self.algo.name, self.api_options)
                ),
                **{
                    k: [v] * n if isinstance(v, list) else v for k, v in self.option_columns.items()
                },
                "level": settings.level,
                "memorize": settings.memorize,
                "memorize_from": settings.memorize_from,
                "stop_at_target": settings.stop_at_target,
                "parallel_backend": self.parallel.backend,
                # Null (NaN / <NA>) where the budget is not set.
                "budget_seconds": np.full(
                    n, np.nan if self.budget_seconds is None else self.budget_seconds
                ),
                "budget_playouts": pd.array([self.budget_playouts] * n, dtype="Int64"),
                "seed": self.seed,
                "search": np.asarray(indices, np.int64),
                "search_seed": res.seed,
                "score": res.score,
                "length": res.length,
                "playouts": res.playouts,
                "playout_moves": res.playout_moves,
                "seconds": res.seconds,
                "cpu_seconds": res.cpu_seconds,
                "moves": res.moves,
                "trace_seconds": [t[:, 0] for t in res.trace],
                "trace_playouts": [t[:, 1].astype(np.int64) for t in res.trace],
                "trace_score": [t[:, 2].astype(np.int64) for t in res.trace],
            }
        )


def _plain(value: Any) -> Any:
    """An option value as a result column holds it (tuples as lists)."""
    return list(value) if isinstance(value, list | tuple) else value


def validate_search(cfg: DictConfig) -> SearchCell:
    """The search cell of ``cfg``; ConfigError (one line naming the key) for the first invalid
    value."""
    check_keys(cfg, Config, "")
    for key in MATCH_ONLY_KEYS:
        if cfg.get(key) is not None:
            two_player = [g for g in games.names() if games.game(g).cells == "matches"]
            raise ConfigError(
                f"{key}: only for two-player games (game={', game='.join(two_player)}), "
                f"not for game={cfg.game.name}"
            )
    if cfg.budget.get("ms") is not None:
        raise ConfigError(
            f"budget.ms: only for two-player games; algo={cfg.algo.name} takes budget.seconds"
        )
    game = games.game(cfg.game.name)
    check_keys(cfg.game, game.options, "game.")
    if cfg.algo.name not in algorithms.names():
        raise ConfigError(
            f"algo: unknown algorithm '{cfg.algo.name}' (allowed: {', '.join(algorithms.names())})"
        )
    algo = algorithms.algorithm(cfg.algo.name)
    check_keys(cfg.algo, algo.config, "algo.")
    check_driver_keys(cfg)
    if not cfg.memorize and cfg.memorize_from != 1:
        # It would change the cell's identity (so its seeds) and nothing it computes.
        raise ConfigError(
            f"memorize_from = {cfg.memorize_from}: only with memorize=true (without it no "
            "level memorizes); leave it out or set memorize=true"
        )
    if cfg.n_searches < 1:
        raise ConfigError(f"n_searches = {cfg.n_searches}: must be at least 1")
    check_size("n_searches", cfg.n_searches)
    budget = cfg.budget
    if budget.seconds is not None and not (0 < budget.seconds < math.inf):
        raise ConfigError(
            f"budget.seconds = {budget.seconds}: must be a finite number > 0 (or null for none)"
        )
    if budget.playouts is not None and budget.playouts <= 0:
        raise ConfigError(f"budget.playouts = {budget.playouts}: must be > 0 (or null for none)")
    settings = Settings(
        level=int(cfg.level),
        memorize=bool(cfg.memorize),
        max_seconds=float(budget.seconds or 0.0),
        max_playouts=int(budget.playouts or 0),
        memorize_from=int(cfg.memorize_from),
        stop_at_target=bool(cfg.stop_at_target),
    )
    options = algo.config(**as_dict(cfg.algo))
    try:
        algorithms.check(algo, options, settings, game.name)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    parallel = ParallelSettings(
        str(cfg.parallel.backend), int(cfg.parallel.workers), cfg.parallel.address
    )
    _check_parallel(parallel, algo, options, settings)
    game_kwargs = game_options(cfg)
    try:
        state0 = game.make_state(**game_kwargs)
    except (ValueError, TypeError) as error:
        raise ConfigError(f"game ({cfg.game.name}): {error}") from None
    checked_pairing(game, state0, algo.name)
    record = validate_record(cfg.record, game, game_kwargs)
    return SearchCell(
        experiment=str(cfg.experiment_name),
        game=game,
        game_options=game_kwargs,
        algo=algo,
        options=options,
        settings=settings,
        state0=state0,
        n=int(cfg.n_searches),
        seed=int(cfg.seed),
        workers=thread_count(cfg.workers),
        chunk_seconds=float(cfg.chunk_seconds),
        progress=bool(cfg.progress),
        parallel=parallel,
        budget_seconds=None if budget.seconds is None else float(budget.seconds),
        budget_playouts=None if budget.playouts is None else int(budget.playouts),
        identity=search_identity(cfg),
        config=cast(dict, OmegaConf.to_container(cfg, resolve=True)),
        record=record,
    )


def _check_parallel(
    parallel: ParallelSettings, algo: Algorithm, options: Any, settings: Settings
) -> None:
    if parallel.backend not in PARALLEL_BACKENDS:
        raise ConfigError(
            f"parallel.backend = {parallel.backend}: must be one of {', '.join(PARALLEL_BACKENDS)}"
        )
    if parallel.workers < 0:
        raise ConfigError(f"parallel.workers = {parallel.workers}: must be >= 0 (0 = all cores)")
    if parallel.backend == "none":
        if parallel.address is not None:
            raise ConfigError("parallel.address: only with parallel.backend=dask or dask_searches")
        return
    if parallel.backend == "dask_searches":
        return  # whole searches, as on threads: every algorithm, budgets included
    if settings.has_budget:
        raise ConfigError("parallel.backend=dask: budgets are for the Python API's parallel_search")
    from nmcs.harness.parallel import dask_plan  # noqa: PLC0415 - Dask, on demand

    try:
        dask_plan(
            algo.name,
            settings.level,
            settings.memorize,
            settings.memorize_from,
            api_options(algo, options),
        )
    except ValueError as error:
        raise ConfigError(str(error)) from None
