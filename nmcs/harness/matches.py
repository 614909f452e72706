"""Match cells: from a validated config to match rows, resumable (two-player games, issue 10).

A cell whose ``game`` is a two-player game (``nmcs.games.twoplayer``) is a *pairing*: player A
against player B on one game version with one budget per move, ``n_matches`` matches, A playing
first in the even-numbered ones (half the matches with each colour)::

    python run.py -m experiment=twoplayer_matches game=breakthrough,domineering game.misere=true

Keys of a match cell (the rest of ``conf/config.yaml`` -- ``algo``, ``level``, ``memorize``,
``n_searches`` -- is for single-player searches and not read)::

    game.*         the game's options: rows, cols (null = its usual board), misere
    player_a.*     level (0 = MCS, 1 or 2 = nested), discount, pod, cow, c (the UCT constant);
    player_b.*     presets in conf/player_a/ (player_b/ is the same folder): mcs, nmc1_cow, ...
    budget.playouts, budget.ms   per move (either or both; the first reached stops the search)
    n_matches      matches in the cell (not part of its identity: raising it extends the cell)
    seed, workers, chunk_seconds, progress   as for searches

Match i is seeded from ``SeedSequence([seed, i])`` alone (``nmcs.search.twoplayer.match``), so
its row does not depend on the number of workers or the chunking (with a millisecond budget the
moves depend on the machine's speed, as in the paper). Matches run on ``workers`` threads (the
UCT kernel releases the GIL) in chunks of about ``chunk_seconds``; each chunk is written
atomically as ``chunks/<first>-<last>.parquet``, so an interrupted cell resumes where it
stopped, and when all are done they are gathered into ``results.parquet``. ``meta.json``
holds the resolved config, code, packages, machine and times (``"kind": "matches"``).

Columns of a match cell's results.parquet (one row per match)::

    experiment cell kind game game_options rows cols misere player_a player_b (labels, e.g.
    NMC(1)+COW, MCS) a_level a_discount a_pod a_cow a_c b_level ... b_c budget_playouts
    budget_ms (null when not set) seed match search (= match) match_seed a_first winner ('a',
    'b', or null for a draw) outcome_a (+1/0/-1) length moves (list<int32>) seconds playouts
    (lists, one entry per move) a_seconds_per_move b_seconds_per_move a_playouts_per_move
    b_playouts_per_move wall_seconds final (the last position as text)
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf
from tqdm.auto import tqdm

from nmcs.core.errors import ConfigError
from nmcs.games.twoplayer import protocol
from nmcs.games.twoplayer.layout import COLS, ROWS
from nmcs.harness import interrupt
from nmcs.harness.provenance import now_iso, provenance
from nmcs.search.twoplayer.match import play_match, run_matches, win_rate
from nmcs.search.twoplayer.players import Budget, PlayerConfig

log = logging.getLogger(__name__)

TWO_PLAYER_GAMES = tuple(protocol.GAMES)
# Top-level keys only match cells read; a single-player cell must leave them unset, and they
# are left out of its identity then (so the cells of existing results keep their hashes).
MATCH_KEYS = ("player_a", "player_b", "n_matches")
# The keys that determine a match's result: a match cell's identity (the number of matches,
# the worker settings, the scale and every key of single-player searches are not in it, so
# keys added to conf/config.yaml later leave existing match cells as they are).
IDENTITY_KEYS = ("experiment_name", "game", "player_a", "player_b", "budget", "seed")


# ---------------------------------------------------------------- schema (Hydra ConfigStore)


@dataclass
class PlayerSettings:
    """Schema of ``player_a`` / ``player_b`` (``nmcs.search.twoplayer.PlayerConfig``'s
    fields): level 0 = MCS (UCT with random playouts), 1 or 2 = UCT with NMC(level) playouts
    with discounting, pruning on depth and cut on win as switched; c = UCT exploration."""

    level: int = 0
    discount: bool = False
    pod: bool = False
    cow: bool = False
    c: float = 0.4


@dataclass
class TwoPlayerGameOptions:
    """Schema of ``conf/game/<two-player game>.yaml``: the board (null = the game's usual
    size, see docs/twoplayer.md) and the misere switch (the rule winner loses)."""

    name: str = "breakthrough"
    rows: int | None = None
    cols: int | None = None
    misere: bool = False


def register_match_configs(cs: Any) -> None:
    """Store the schemas of the two-player games and of the players in Hydra's ConfigStore."""
    for name in TWO_PLAYER_GAMES:
        cs.store(name=f"schema_game_{name}", node=TwoPlayerGameOptions(name=name))
    cs.store(name="schema_player", node=PlayerSettings)


# ---------------------------------------------------------------- validation


def is_match_cell(cfg: DictConfig) -> bool:
    """A cell whose game is a two-player game is a pairing of two players."""
    return str(cfg.game.name) in TWO_PLAYER_GAMES


def refuse_match_keys(cfg: DictConfig) -> None:
    """For a single-player cell: ConfigError if a key only matches use is set."""
    for key in MATCH_KEYS:
        if cfg.get(key) is not None:
            raise ConfigError(
                f"{key}: only for two-player games (game={', game='.join(TWO_PLAYER_GAMES)}), "
                f"not for game={cfg.game.name}"
            )
    if cfg.budget.get("ms") is not None:
        raise ConfigError(
            f"budget.ms: only for two-player games; algo={cfg.algo.name} takes budget.seconds"
        )


def unset_player_hint(error: BaseException, overrides) -> str | None:
    """One line for Hydra's bare 'Unexpected type for root: NoneType', raised when an
    override sets a field of ``player_a`` / ``player_b`` in a config that has no player."""
    if "Unexpected type for root: NoneType" not in str(error):
        return None
    for override in overrides:
        key = override.split("=", 1)[0].lstrip("+~")
        if key.split(".", 1)[0] in ("player_a", "player_b") and "." in key:
            player = key.split(".", 1)[0]
            return (
                f"{key}: no {player} in this config; players are for two-player games "
                f"(run them with experiment=twoplayer_matches)"
            )
    return None


def strip_match_keys(identity: dict) -> dict:
    """A single-player cell's identity without the unset match-only keys (so that adding them
    to the schema left the hashes of existing cells as they were)."""
    for key in MATCH_KEYS:
        if identity.get(key, 0) is None:
            del identity[key]
    budget = identity.get("budget")
    if isinstance(budget, dict) and "ms" in budget and budget["ms"] is None:
        identity["budget"] = {k: v for k, v in budget.items() if k != "ms"}
    return identity


@dataclass
class Pairing:
    """A match cell's validated settings, ready for ``run_matches``."""

    game: str
    options: dict
    player_a: PlayerConfig
    player_b: PlayerConfig
    budget: Budget
    n_matches: int
    state0: np.ndarray = field(repr=False)


def _player(cfg: DictConfig, key: str) -> PlayerConfig:
    node = cfg.get(key)
    if node is None:
        raise ConfigError(
            f"{key}: a two-player game needs {key} (e.g. {key}=mcs or {key}=nmc1_cow; "
            "run it with experiment=twoplayer_matches)"
        )
    settings = cast(dict, OmegaConf.to_container(node, resolve=True))
    allowed = [f.name for f in fields(PlayerSettings)]
    for name in settings:
        if name not in allowed:
            raise ConfigError(f"unknown key '{key}.{name}' (allowed: {', '.join(allowed)})")
    try:
        return PlayerConfig(**settings)
    except ValueError as error:
        raise ConfigError(f"{key}: {error}") from None


def game_options(cfg: DictConfig) -> dict:
    """The two-player game's options as keyword arguments of ``protocol.make_state``."""
    options = cast(dict, OmegaConf.to_container(cfg.game, resolve=True))
    options.pop("name")
    return options


def validate_match(cfg: DictConfig) -> Pairing:
    """The pairing of a match cell; ConfigError (one line naming the key) for a bad value."""
    from nmcs.core.scales import SCALES  # noqa: PLC0415

    name = str(cfg.game.name)
    options = game_options(cfg)
    allowed = [f.name for f in fields(TwoPlayerGameOptions) if f.name != "name"]
    for key in options:
        if key not in allowed:
            raise ConfigError(f"unknown key 'game.{key}' (allowed: name, {', '.join(allowed)})")
    try:
        state0 = protocol.make_state(name, **options)
    except (ValueError, TypeError) as error:
        raise ConfigError(str(error)) from None  # names the game and the key
    player_a, player_b = _player(cfg, "player_a"), _player(cfg, "player_b")
    if cfg.scale.name not in SCALES:
        raise ConfigError(f"scale: unknown scale '{cfg.scale.name}' (allowed: {', '.join(SCALES)})")
    n = cfg.get("n_matches")
    if n is None or n < 1:
        raise ConfigError(f"n_matches = {n}: must be at least 1")
    if cfg.seed < 0:
        raise ConfigError(f"seed = {cfg.seed}: must be a non-negative integer")
    if cfg.workers < 0:
        raise ConfigError(f"workers = {cfg.workers}: must be >= 0 (0 = all cores)")
    if cfg.chunk_seconds <= 0:
        raise ConfigError(f"chunk_seconds = {cfg.chunk_seconds}: must be > 0")
    budget = cfg.budget
    if budget.seconds is not None:
        raise ConfigError(
            "budget.seconds: a two-player game's budget per move is budget.ms and/or "
            "budget.playouts"
        )
    if budget.playouts is None and budget.get("ms") is None:
        raise ConfigError("budget: a two-player game needs budget.playouts and/or budget.ms")
    if budget.playouts is not None and budget.playouts < 1:
        raise ConfigError(f"budget.playouts = {budget.playouts}: must be at least 1 (or null)")
    ms = budget.get("ms")
    if ms is not None and not ms > 0:
        raise ConfigError(f"budget.ms = {ms}: must be > 0 (or null)")
    try:
        move_budget = Budget(
            playouts=None if budget.playouts is None else int(budget.playouts),
            ms=None if ms is None else float(ms),
        )
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return Pairing(name, options, player_a, player_b, move_budget, int(n), state0)


def warm_up(pairing: Pairing) -> None:
    """Load (or compile) the two-player kernels once, in the parent process, before cells run
    (one compiled search serves every game; a match with one playout or one millisecond a
    move, whichever comes first: one NMC(2) simulation can take seconds on a full board)."""
    play_match(
        pairing.game,
        pairing.options,
        pairing.player_a,
        pairing.player_b,
        Budget(playouts=1, ms=1),
        0,
    )


# ---------------------------------------------------------------- identity and rows


def match_identity(cfg: DictConfig) -> dict:
    """The part of a match cell's config that determines its matches (``IDENTITY_KEYS``)."""
    full = OmegaConf.to_container(cfg, resolve=True)
    assert isinstance(full, dict)
    return {k: full[k] for k in IDENTITY_KEYS}


def _options_string(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(options.items()))


def _per_move(values: list, a_first: bool, player: str) -> float:
    start = 0 if (player == "a") == a_first else 1
    own = values[start::2]
    return float(np.mean(own)) if len(own) else float("nan")


def match_rows(cfg: DictConfig, cell: str, pairing: Pairing, rows: list[dict]) -> pd.DataFrame:
    """One DataFrame row per match of ``run_matches``'s rows."""
    a, b = asdict(pairing.player_a), asdict(pairing.player_b)
    budget = pairing.budget
    n = len(rows)
    df = pd.DataFrame(
        {
            "experiment": cfg.experiment_name,
            "cell": cell,
            "kind": "matches",
            "game": pairing.game,
            "game_options": _options_string(pairing.options),
            "rows": int(pairing.state0[ROWS]),
            "cols": int(pairing.state0[COLS]),
            "misere": bool(pairing.options.get("misere", False)),
            "player_a": pairing.player_a.label,
            "player_b": pairing.player_b.label,
            **{f"a_{k}": v for k, v in a.items()},
            **{f"b_{k}": v for k, v in b.items()},
            "budget_playouts": pd.array(
                [None if budget.playouts is None else int(budget.playouts)] * n, dtype="Int64"
            ),
            "budget_ms": np.full(n, np.nan if budget.ms is None else float(budget.ms)),
            "seed": cfg.seed,
            "match": np.array([r["match"] for r in rows], np.int64),
            "search": np.array([r["match"] for r in rows], np.int64),
            "match_seed": np.array([r["match_seed"] for r in rows], np.uint64),
            "a_first": [bool(r["a_first"]) for r in rows],
            "winner": [r["winner"] for r in rows],
            "outcome_a": np.array([r["outcome_a"] for r in rows], np.int8),
            "length": np.array([r["length"] for r in rows], np.int32),
            "moves": [np.asarray(r["moves"], np.int32) for r in rows],
            "seconds": [np.asarray(r["seconds"], np.float64) for r in rows],
            "playouts": [np.asarray(r["playouts"], np.int64) for r in rows],
            **{
                f"{p}_{what}_per_move": [_per_move(r[what], r["a_first"], p) for r in rows]
                for what in ("seconds", "playouts")
                for p in ("a", "b")
            },
            "wall_seconds": [float(r["wall_seconds"]) for r in rows],
            "final": [r["final"] for r in rows],
        }
    )
    return df


# ---------------------------------------------------------------- the cell


def _done_matches(chunk_dir: Path) -> set[int]:
    done: set[int] = set()
    for path in sorted(chunk_dir.glob("*.parquet")):
        done.update(pd.read_parquet(path, columns=["match"])["match"].tolist())
    return done


def _gather(chunk_dir: Path, n: int) -> pd.DataFrame:
    parts = [pd.read_parquet(p) for p in sorted(chunk_dir.glob("*.parquet"))]
    df = pd.concat(parts, ignore_index=True)
    df = df[df["match"] < n].drop_duplicates("match").sort_values("match")
    return df.reset_index(drop=True)


def _workers(cfg: DictConfig) -> int:
    cores = os.cpu_count() or 1
    return int(cfg.workers) if cfg.workers else cores


def run_match_cell(cfg: DictConfig, out_dir: Path) -> pd.DataFrame:
    """Run (or finish) the match cell ``cfg`` into ``out_dir``; return its rows.

    Raises CellInterrupted (saying what was saved) when the user stops it with Ctrl-C."""
    from nmcs.harness.runner import (  # noqa: PLC0415 - runner imports this module
        CellInterrupted,
        _check_resume,
        atomic_write_bytes,
        atomic_write_parquet,
        cell_hash,
        write_meta,
    )

    pairing = validate_match(cfg)
    out_dir = Path(out_dir)
    chunk_dir = out_dir / "chunks"
    identity = match_identity(cfg)
    old_meta = _check_resume(out_dir, identity)
    chunk_dir.mkdir(parents=True, exist_ok=True)
    cell = cell_hash(identity)
    workers = _workers(cfg)
    n = pairing.n_matches
    done = _done_matches(chunk_dir)
    todo = [i for i in range(n) if i not in done]
    meta = {
        "kind": "matches",
        "identity": identity,
        "cell": cell,
        "config": OmegaConf.to_container(cfg, resolve=True),
        "pairing": f"{pairing.player_a.label} vs {pairing.player_b.label}",
        "started": (old_meta or {}).get("started", now_iso()),
        "resumed": now_iso() if old_meta else None,
        "finished": (old_meta or {}).get("finished") if not todo else None,
        "n_done": n - len(todo),
        "workers": workers,
        **provenance(),
    }
    results_path = out_dir / "results.parquet"
    if not todo and results_path.exists() and old_meta is not None:
        if len(pd.read_parquet(results_path, columns=["match"])) == n:
            print(f"{out_dir}: cell complete ({n} matches), nothing to run", flush=True)
            return pd.read_parquet(results_path)
    write_meta(out_dir, meta)
    if todo:
        log.info("%s: %d matches to run (%d already done)", out_dir, len(todo), n - len(todo))
    bar = tqdm(
        total=n,
        initial=n - len(todo),
        desc=out_dir.name,
        unit="match",
        disable=not cfg.progress,
        dynamic_ncols=True,
    )
    # The first chunk is one match per worker, to measure how long a match takes; later
    # chunks aim at chunk_seconds each.
    size, pos = workers, 0
    try:
        while pos < len(todo):
            interrupt.check()  # a Ctrl-C that a compiler callback swallowed
            indices = todo[pos : pos + size]
            started = time.perf_counter()
            rows = run_matches(
                pairing.game,
                pairing.options,
                pairing.player_a,
                pairing.player_b,
                pairing.budget,
                n,
                int(cfg.seed),
                indices=indices,
                workers=min(workers, len(indices)),
            )
            elapsed = time.perf_counter() - started
            chunk = match_rows(cfg, cell, pairing, rows)
            atomic_write_parquet(chunk, chunk_dir / f"{indices[0]:08d}-{indices[-1]:08d}.parquet")
            pos += len(indices)
            meta["n_done"] += len(indices)
            write_meta(out_dir, meta)
            bar.update(len(indices))
            per_match = max(elapsed / len(indices), 1e-6)
            size = int(min(max(workers, cfg.chunk_seconds / per_match), 4 * size))
    except KeyboardInterrupt:
        bar.close()
        raise CellInterrupted(
            f"interrupted: {meta['n_done']} of {n} matches of {out_dir} are saved; "
            "run the same command again to finish them"
        ) from None
    bar.close()
    results = _gather(chunk_dir, n)
    atomic_write_parquet(results, results_path)
    p, low, high = win_rate(results.to_dict("records"))
    text = (
        f"{pairing.player_a.label} (A) vs {pairing.player_b.label} (B), {pairing.game} "
        f"{_options_string(pairing.options)}: A wins {p:.3f} [{low:.3f}, {high:.3f}] of "
        f"{len(results)} matches\n\nlongest match ({results['length'].max()} moves):\n"
        f"{results.loc[results['length'].idxmax(), 'final']}\n"
    )
    atomic_write_bytes(out_dir / "summary.txt", text.encode())
    meta["finished"] = now_iso()
    meta["n_done"] = len(results)
    write_meta(out_dir, meta)
    return results


# ---------------------------------------------------------------- summaries


def is_match_folder(folder: Path) -> bool:
    """An experiment folder whose cells are match cells."""
    for meta_path in Path(folder).glob("*/meta.json"):
        try:
            return json.loads(meta_path.read_text()).get("kind") == "matches"
        except (OSError, ValueError):
            continue
    return False


SUMMARY_KEYS = (
    "experiment",
    "game",
    "rows",
    "cols",
    "misere",
    "player_a",
    "player_b",
    "budget_ms",
    "budget_playouts",
    "seed",
)


def summarize_matches(results: pd.DataFrame) -> pd.DataFrame:
    """One row per pairing: n, A's win rate (a draw counts half) and its 95% Wilson interval,
    mean length, mean seconds and playouts per move of each player."""
    out = []
    for _, group in results.groupby("cell", sort=False):
        p, low, high = win_rate(group.to_dict("records"))
        first = group.iloc[0]
        out.append(
            {
                **{k: first[k] for k in SUMMARY_KEYS if k in group.columns},
                "n": len(group),
                "a_win_rate": p,
                "ci95_low": low,
                "ci95_high": high,
                "mean_length": float(group["length"].mean()),
                "a_seconds_per_move": float(group["a_seconds_per_move"].mean()),
                "b_seconds_per_move": float(group["b_seconds_per_move"].mean()),
                "a_playouts_per_move": float(group["a_playouts_per_move"].mean()),
                "b_playouts_per_move": float(group["b_playouts_per_move"].mean()),
                "seconds_per_match": float(group["wall_seconds"].mean()),
            }
        )
    table = pd.DataFrame(out)
    keys = [k for k in SUMMARY_KEYS if k in table.columns]
    return table.sort_values(keys, kind="stable").reset_index(drop=True) if len(table) else table


def write_match_summary(folder: Path) -> pd.DataFrame:
    """summary.csv and summary.md of one experiment folder of match cells."""
    from nmcs.harness.results import all_results  # noqa: PLC0415
    from nmcs.harness.summary import markdown_table  # noqa: PLC0415

    folder = Path(folder)
    columns = [
        *SUMMARY_KEYS,
        "outcome_a",
        "length",
        "wall_seconds",
        *(f"{p}_{w}_per_move" for w in ("seconds", "playouts") for p in ("a", "b")),
    ]
    table = summarize_matches(all_results(folder, columns=columns))
    if table.empty:
        return table
    table.to_csv(folder / "summary.csv", index=False)
    (folder / "summary.md").write_text(
        f"# {folder.name}: one row per pairing\n\n"
        "`a_win_rate` is player A's share of the matches (a draw counts half), with its 95% "
        "Wilson interval; `-` marks a budget that was not set.\n\n" + markdown_table(table)
    )
    return table
