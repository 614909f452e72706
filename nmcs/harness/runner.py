"""From a validated config to result files: one table cell, resumable.

A cell is ``n_searches`` independent searches; search i is seeded from (seed, i) alone. They run
in chunks on numba threads, and each chunk is written atomically (write, then rename) as
``chunks/<first>-<last>.parquet``, so a killed run loses at most the chunk in flight and a rerun
of the same command computes only the missing searches. When all are done the chunks are gathered
into ``results.parquet`` (one row per search). ``meta.json`` records the resolved config, the
code and package versions, the machine and the times.

Columns of results.parquet::

    experiment game instance game_options <game options...> algo algo_options level memorize
    budget_seconds budget_playouts seed search search_seed score length playouts playout_moves
    seconds moves (list<int32>) trace_seconds trace_playouts trace_score (lists; iterative,
    uct)
"""

import json
import logging
import os
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd
from omegaconf import OmegaConf
from tqdm.auto import tqdm

from nmcs.games import game_module
from nmcs.harness.batch import search_batch, seeds_for
from nmcs.harness.provenance import now_iso, provenance
from nmcs.harness.schema import algo_options
from nmcs.harness.validate import ConfigError, game_options, validate

log = logging.getLogger(__name__)

# Keys that change how a cell is computed but not its results.
NOT_IDENTITY = ("workers", "progress", "chunk_seconds", "n_searches", "scale")


def cell_identity(cfg):
    """The part of the config that determines every search's result."""
    full = OmegaConf.to_container(cfg, resolve=True)
    return {k: v for k, v in full.items() if k not in NOT_IDENTITY}


def atomic_write_bytes(path, data):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def atomic_write_parquet(df, path):
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def write_meta(out_dir, meta):
    atomic_write_bytes(out_dir / "meta.json", json.dumps(meta, indent=2, default=str).encode())


def done_searches(chunk_dir):
    """Indices of the searches already saved in chunk files."""
    done = set()
    for path in sorted(chunk_dir.glob("*.parquet")):
        done.update(pd.read_parquet(path, columns=["search"])["search"].tolist())
    return done


def game_options_string(cfg):
    return ",".join(f"{k}={v}" for k, v in sorted(game_options(cfg).items()))


def rows(cfg, instance, indices, res):
    """One DataFrame row per search of a batch."""
    budget = cfg.budget
    df = pd.DataFrame(
        {
            "experiment": cfg.experiment_name,
            "game": cfg.game.name,
            "instance": instance,
            "game_options": game_options_string(cfg),
            **{k: v for k, v in game_options(cfg).items() if k != "instance"},
            "algo": cfg.algo.name,
            "algo_options": ",".join(f"{k}={v}" for k, v in algo_options(cfg.algo).items()),
            "level": cfg.level,
            "memorize": bool(cfg.memorize),
            "budget_seconds": float(budget.seconds or 0.0),
            "budget_playouts": int(budget.playouts or 0),
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


def _check_resume(out_dir, identity):
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


def run_cell(cfg, out_dir):
    """Run (or finish) the cell described by ``cfg`` into ``out_dir``; return its results."""
    state0 = validate(cfg)
    out_dir = Path(out_dir)
    chunk_dir = out_dir / "chunks"
    chunk_dir.mkdir(parents=True, exist_ok=True)
    identity = cell_identity(cfg)
    old_meta = _check_resume(out_dir, identity)
    workers = cfg.workers or numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(min(workers, numba.config.NUMBA_NUM_THREADS))
    options = game_options(cfg)
    # A game with an `instance` option (a position of a test set) names the position by it.
    instance = str(options["instance"]) if "instance" in options else game_options_string(cfg)
    n = cfg.n_searches
    done = done_searches(chunk_dir)
    todo = [i for i in range(n) if i not in done]
    meta = {
        "identity": identity,
        "config": OmegaConf.to_container(cfg, resolve=True),
        "started": (old_meta or {}).get("started", now_iso()),
        "resumed": now_iso() if old_meta else None,
        "finished": None,
        "n_done": n - len(todo),
        "workers": workers,
        **provenance(),
    }
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
    while pos < len(todo):
        indices = todo[pos : pos + size]
        started = time.perf_counter()
        res = search_batch(
            cfg.game.name,
            state0,
            seeds_for(cfg.seed, indices),
            algo=cfg.algo.name,
            level=cfg.level,
            memorize=cfg.memorize,
            max_seconds=float(cfg.budget.seconds or 0.0),
            max_playouts=int(cfg.budget.playouts or 0),
            workers=workers,
            **algo_options(cfg.algo),
        )
        elapsed = time.perf_counter() - started
        chunk = rows(cfg, instance, indices, res)
        atomic_write_parquet(chunk, chunk_dir / f"{indices[0]:08d}-{indices[-1]:08d}.parquet")
        pos += len(indices)
        meta["n_done"] += len(indices)
        write_meta(out_dir, meta)
        bar.update(len(indices))
        per_search = max(elapsed / len(indices), 1e-7)
        size = int(min(max(workers, cfg.chunk_seconds / per_search), 4 * size, 1_000_000))
    bar.close()
    results = gather_chunks(chunk_dir, n)
    atomic_write_parquet(results, out_dir / "results.parquet")
    save_best_game(cfg, state0, results, out_dir)
    meta["finished"] = now_iso()
    meta["n_done"] = len(results)
    write_meta(out_dir, meta)
    return results


def save_best_game(cfg, state0, results, out_dir):
    """The best game of the cell as text (``best_game.txt``) and, for games that can draw
    themselves (an optional ``save_game(state0, moves, path_stem)`` in the game module), as
    pictures and game files next to it."""
    best = results.loc[results["score"].idxmax()]
    game = game_module(cfg.game.name)
    moves = np.asarray(best["moves"], dtype=np.int32)
    text = (
        f"game {cfg.game.name}, score {best['score']}, {len(moves)} moves, search "
        f"{best['search']} (seed {best['search_seed']})\n{game.describe(state0, moves)}\n"
    )
    atomic_write_bytes(out_dir / "best_game.txt", text.encode())
    if hasattr(game, "save_game"):
        game.save_game(state0, moves, out_dir / "best_game")


def gather_chunks(chunk_dir, n):
    """All saved searches with index < n, in index order, each once."""
    parts = [pd.read_parquet(p) for p in sorted(chunk_dir.glob("*.parquet"))]
    df = pd.concat(parts, ignore_index=True)
    df = df[df["search"] < n].drop_duplicates("search").sort_values("search")
    return df.reset_index(drop=True)
