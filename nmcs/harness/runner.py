"""From a validated config to result files: one table cell, resumable.

A cell is ``n_searches`` independent searches; search i is seeded from (seed, i) alone. A
search's identity is (the cell's config without the keys of ``NOT_IDENTITY``, i): the ``cell``
column holds a hash of that config, and every reader counts a (cell, search) pair once, whatever
folders hold it (``nmcs.harness.results``). Raising ``n_searches`` extends a cell in place; a new
folder whose cell already has searches in a sibling folder copies them instead of recomputing.

Searches run in chunks on threads (or on Dask workers), and each chunk is written atomically
(write, then rename) as ``chunks/<first>-<last>.parquet``, so a killed run loses at most the
chunk in flight and a rerun of the same command computes only the missing searches. When all
are done the chunks are gathered into ``results.parquet`` (one row per search). ``meta.json``
records the resolved config, the code and package versions, the machine and the times.

Columns of results.parquet::

    experiment cell game instance game_options <game options...> algo algo_options level memorize
    memorize_from stop_at_target parallel_backend (none | dask)
    budget_seconds budget_playouts (null when not set) seed search search_seed score length
    playouts playout_moves
    seconds moves (list<int32>) trace_seconds trace_playouts trace_score (lists; iterative,
    uct)
"""

import hashlib
import json
import logging
import os
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf
from tqdm.auto import tqdm

from nmcs.games.registry import game as game_record
from nmcs.harness import interrupt
from nmcs.harness.batch import (
    BatchResult,
    algo_options_string,
    api_options,
    search_batch,
    seeds_for,
)
from nmcs.harness.matches import strip_match_keys
from nmcs.harness.parallel import dask_batch, dask_session
from nmcs.harness.provenance import now_iso, provenance
from nmcs.harness.results import ADDED_KEYS
from nmcs.harness.validate import ConfigError, algo_config, game_options, validate
from nmcs.search.registry import algorithm

log = logging.getLogger(__name__)

# Keys that change how a cell is computed, or how many of its searches, but not their results.
NOT_IDENTITY = ("workers", "progress", "chunk_seconds", "n_searches", "scale")


class CellInterrupted(Exception):
    """The user stopped a cell (Ctrl-C); what was saved is in the message."""


def cell_identity(cfg) -> dict:
    """The part of the config that determines every search's result."""
    full = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(full, dict)
    identity = {
        k: v
        for k, v in full.items()
        if k not in NOT_IDENTITY and not (k in ADDED_KEYS and v == ADDED_KEYS[k])
    }
    # Where the searches run changes them only through the backend (a Dask search seeds each
    # child from its place in the tree), never through the number of workers or the scheduler;
    # the default backend (added later) leaves the older cells' hashes as they were.
    parallel = identity.pop("parallel", None) or {}
    if parallel.get("backend", "none") != "none":
        identity["parallel_backend"] = parallel["backend"]
    # hook (matches): the unset match-only keys leave existing cells' hashes as they were
    return strip_match_keys(identity)


def cell_hash(identity: dict) -> str:
    """A short stable name of a cell's identity (the ``cell`` column of its rows)."""
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def atomic_write_parquet(df: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def write_meta(out_dir: Path, meta: dict[str, Any]) -> None:
    atomic_write_bytes(out_dir / "meta.json", json.dumps(meta, indent=2, default=str).encode())


def done_searches(chunk_dir: Path) -> set[int]:
    """Indices of the searches already saved in chunk files."""
    done = set()
    for path in sorted(chunk_dir.glob("*.parquet")):
        done.update(pd.read_parquet(path, columns=["search"])["search"].tolist())
    return done


def game_options_string(cfg: DictConfig) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(game_options(cfg).items()))


def rows(
    cfg: DictConfig, cell: str, instance: str, indices: Sequence[int], res: BatchResult
) -> pd.DataFrame:
    """One DataFrame row per search of a batch."""
    budget = cfg.budget
    n = len(indices)
    df = pd.DataFrame(
        {
            "experiment": cfg.experiment_name,
            "cell": cell,
            "game": cfg.game.name,
            "instance": instance,
            "game_options": game_options_string(cfg),
            **{k: v for k, v in game_options(cfg).items() if k != "instance"},
            "algo": cfg.algo.name,
            "algo_options": algo_options_string(algo_api_options(cfg)),
            "level": cfg.level,
            "memorize": bool(cfg.memorize),
            "memorize_from": int(cfg.memorize_from),
            "stop_at_target": bool(cfg.stop_at_target),
            "parallel_backend": str(cfg.parallel.backend),
            # Null (NaN / <NA>) where the budget is not set.
            "budget_seconds": np.full(
                n, np.nan if budget.seconds is None else float(budget.seconds)
            ),
            "budget_playouts": pd.array(
                [None if budget.playouts is None else int(budget.playouts)] * n, dtype="Int64"
            ),
            "seed": cfg.seed,
            "search": np.asarray(indices, np.int64),
            "search_seed": res.seed,
            "score": res.score,
            "length": res.length,
            "playouts": res.playouts,
            "playout_moves": res.playout_moves,
            "seconds": res.seconds,
            "moves": res.moves,
            "trace_seconds": [t[:, 0] for t in res.trace],
            "trace_playouts": [t[:, 1].astype(np.int64) for t in res.trace],
            "trace_score": [t[:, 2].astype(np.int64) for t in res.trace],
        }
    )
    return df


def search_options(cfg: DictConfig) -> dict[str, Any]:
    """A cell's search settings as ``search_batch`` keyword arguments (all but the game, the
    position, the seeds and the workers)."""
    return {
        "algo": cfg.algo.name,
        "level": cfg.level,
        "memorize": cfg.memorize,
        "memorize_from": cfg.memorize_from,
        "stop_at_target": cfg.stop_at_target,
        "max_seconds": float(cfg.budget.seconds or 0.0),
        "max_playouts": int(cfg.budget.playouts or 0),
        **algo_api_options(cfg),
    }


def algo_api_options(cfg: DictConfig) -> dict[str, Any]:
    """The cell's ``algo.*`` options as ``search_batch`` keyword arguments."""
    return api_options(algorithm(cfg.algo.name), algo_config(cfg))


def _check_resume(out_dir: Path, identity: dict[str, Any]) -> dict[str, Any] | None:
    meta_path = out_dir / "meta.json"
    if not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text())
    if meta.get("identity") != identity:
        old, new = meta.get("identity", {}), identity
        diff = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        raise ConfigError(
            f"{out_dir} holds results of another config (differs in: {', '.join(diff)}); "
            "remove that folder or run elsewhere"
        )
    return meta


def adopt_sibling_chunks(out_dir: Path, identity: dict, n: int, done: set) -> int:
    """Copy into ``out_dir`` the chunks of sibling cell folders that hold searches of the same
    cell (same identity), index < n, not done here yet; return how many searches came.

    ``-m level=0,1,2,3`` then ``-m level=0,1,2,3 memorize=false,true`` names the memorized cells
    twice (``level=3`` and ``level=3,memorize=true``): the second folder reuses the first's
    searches rather than recomputing them, and readers count each search once either way."""
    chunk_dir = out_dir / "chunks"
    adopted: set[int] = set()
    for meta_path in sorted(out_dir.parent.glob("*/meta.json")):
        sibling = meta_path.parent
        if sibling.resolve() == out_dir.resolve():
            continue
        try:
            if json.loads(meta_path.read_text()).get("identity") != identity:
                continue
        except (OSError, ValueError):
            continue
        for path in sorted((sibling / "chunks").glob("*.parquet")):
            searches = set(pd.read_parquet(path, columns=["search"])["search"].tolist())
            if not {i for i in searches if i < n} - done - adopted:
                continue
            target = chunk_dir / f"from-{sibling.name}-{path.name}".replace("/", "_")
            atomic_write_bytes(target, path.read_bytes())
            adopted |= searches
    return len({i for i in adopted if i < n} - done)


def run_cell(cfg: DictConfig, out_dir: str | Path) -> pd.DataFrame:
    """Run (or finish) the cell described by ``cfg`` into ``out_dir``; return its results.

    Raises CellInterrupted (saying what was saved) when the user stops it with Ctrl-C."""
    state0 = validate(cfg)
    out_dir = Path(out_dir)
    chunk_dir = out_dir / "chunks"
    chunk_dir.mkdir(parents=True, exist_ok=True)
    identity = cell_identity(cfg)
    cell = cell_hash(identity)
    old_meta = _check_resume(out_dir, identity)
    # NUMBA_NUM_THREADS: the cores, or fewer where the user set it to share the machine.
    n_threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    workers = min(cfg.workers or n_threads, n_threads)
    options = game_options(cfg)
    # A game with an `instance` option (a position of a test set) names the position by it.
    instance = str(options["instance"]) if "instance" in options else game_options_string(cfg)
    n = cfg.n_searches
    done = done_searches(chunk_dir)
    adopted = adopt_sibling_chunks(out_dir, identity, n, done)
    if adopted:
        done = done_searches(chunk_dir)
        print(f"{out_dir}: {adopted} searches copied from a folder of the same cell", flush=True)
    todo = [i for i in range(n) if i not in done]
    meta = {
        "identity": identity,
        "cell": cell,
        "config": OmegaConf.to_container(cfg, resolve=True),
        "started": (old_meta or {}).get("started", now_iso()),
        "resumed": now_iso() if old_meta else None,
        "finished": (old_meta or {}).get("finished") if not todo else None,
        "n_done": n - len(todo),
        "workers": workers,
        **provenance(),
    }
    if not todo and (out_dir / "results.parquet").exists() and old_meta is not None:
        old_n = len(pd.read_parquet(out_dir / "results.parquet", columns=["search"]))
        if old_n == n:
            print(f"{out_dir}: cell complete ({n} searches), nothing to run", flush=True)
            return pd.read_parquet(out_dir / "results.parquet")
    if not todo and len(done) > n:
        print(
            f"{out_dir}: {len(done)} searches saved; results.parquet now holds the first {n} "
            "(n_searches); the others stay in chunks/",
            flush=True,
        )
    write_meta(out_dir, meta)
    if todo:
        log.info("%s: %d searches to run (%d already done)", out_dir, len(todo), n - len(todo))
    bar = tqdm(
        total=n,
        initial=n - len(todo),
        desc=out_dir.name,
        unit="search",
        disable=not cfg.progress,
        dynamic_ncols=True,
    )
    # The first chunk is small, to measure how long a search takes; later chunks aim at
    # chunk_seconds each.
    size = workers
    pos = 0
    try:
        with ExitStack() as stack:
            if todo and cfg.parallel.backend == "dask":
                # One cluster for the cell, closed at its end (or at Ctrl-C); Dask's log in
                # the cell's dask.log.
                executor = stack.enter_context(
                    dask_session(cfg.parallel.workers, cfg.parallel.address, out_dir / "dask.log")
                )
            while pos < len(todo):
                interrupt.check()  # a Ctrl-C that a compiler callback swallowed
                indices = todo[pos : pos + size]
                started = time.perf_counter()
                if cfg.parallel.backend == "dask":
                    res = dask_batch(
                        cfg.game.name,
                        state0,
                        seeds_for(cfg.seed, indices),
                        cfg.algo.name,
                        cfg.level,
                        cfg.memorize,
                        cfg.memorize_from,
                        algo_api_options(cfg),
                        executor,
                    )
                else:
                    res = search_batch(
                        cfg.game.name,
                        state0,
                        seeds_for(cfg.seed, indices),
                        workers=workers,
                        **search_options(cfg),
                    )
                elapsed = time.perf_counter() - started
                chunk = rows(cfg, cell, instance, indices, res)
                name = f"{indices[0]:08d}-{indices[-1]:08d}.parquet"
                atomic_write_parquet(chunk, chunk_dir / name)
                pos += len(indices)
                meta["n_done"] += len(indices)
                write_meta(out_dir, meta)
                bar.update(len(indices))
                per_search = max(elapsed / len(indices), 1e-7)
                size = int(min(max(workers, cfg.chunk_seconds / per_search), 4 * size, 1_000_000))
    except KeyboardInterrupt:
        bar.close()
        raise CellInterrupted(
            f"interrupted: {meta['n_done']} of {n} searches of {out_dir} are saved; "
            "run the same command again to finish them"
        ) from None
    bar.close()
    results = gather_chunks(chunk_dir, n)
    atomic_write_parquet(results, out_dir / "results.parquet")
    save_best_game(cfg, state0, results, out_dir)
    meta["finished"] = now_iso()
    meta["n_done"] = len(results)
    write_meta(out_dir, meta)
    return results


def save_best_game(
    cfg: DictConfig, state0: np.ndarray, results: pd.DataFrame, out_dir: Path
) -> None:
    """The best game of the cell as text (``best_game.txt``) and, for games that can draw
    themselves (an optional ``save_game(state0, moves, path_stem)`` in the game module), as
    pictures and game files next to it."""
    best = results.loc[results["score"].idxmax()]
    game = game_record(cfg.game.name)
    moves = np.asarray(best["moves"], dtype=np.int32)
    text = (
        f"game {cfg.game.name}, score {best['score']}, {len(moves)} moves, search "
        f"{best['search']} (seed {best['search_seed']})\n{game.describe(state0, moves)}\n"
    )
    atomic_write_bytes(out_dir / "best_game.txt", text.encode())
    if game.save_game is not None:
        game.save_game(state0, moves, out_dir / "best_game")


def gather_chunks(chunk_dir: Path, n: int) -> pd.DataFrame:
    """All saved searches with index < n, in index order, each once."""
    parts = [pd.read_parquet(p) for p in sorted(chunk_dir.glob("*.parquet"))]
    df = pd.concat(parts, ignore_index=True)
    df = df[df["search"] < n].drop_duplicates("search").sort_values("search")
    return df.reset_index(drop=True)
