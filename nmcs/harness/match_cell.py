"""Match cells: a two-player game's cell, validated once into a frozen ``MatchCell`` that the
preflight and the cell driver (``nmcs.harness.cell``) read (two-player games).

A cell whose ``game`` is a two-player game (``nmcs.games.twoplayer``) is a *pairing*: player A
against player B on one game version with one budget per move, ``n_matches`` matches, A playing
first in the even-numbered ones (half the matches with each colour)::

    python run.py -m experiment=twoplayer_matches game=breakthrough,domineering game.misere=true

Keys of a match cell (the rest of ``conf/config.yaml`` -- ``algo``, ``level``, ``memorize``,
``n_searches`` -- is for single-player searches and not read)::

    game.*         the game's options: rows, cols (null = its usual board), size (a square
                   board: game.size=5,6,8 sweeps it), misere
    player_a.*     level (0 = MCS, 1 or 2 = nested), discount, pod, cow, c (the player's own
                   UCT constant), backup (outcome | discounted), solver (MCTS-Solver),
                   root (uct | flat: no tree, the best mean of rounds over the root's moves),
                   expand (node | playout: a nested playout's moves become tree nodes);
    player_b.*     presets in conf/player_a/ (player_b/ is the same folder): mcs, nmc1_cow, ...
    budget.playouts, budget.ms   per move (either or both; the first reached stops the search)
    n_matches      matches in the cell (not part of its identity: raising it extends the cell)
    seed, workers, chunk_seconds, progress   as for searches

Match i is seeded from ``SeedSequence([seed, i, *key])`` (``key``: the cell's own words under its
seed scheme, ``nmcs.harness.seeding``; ``nmcs.search.twoplayer.match``), so its row does not depend
on the number of workers or the chunking (with a millisecond budget the moves depend on the
machine's speed, as in the paper). Matches run on ``workers`` threads (the UCT kernel releases the
GIL) in chunks of about ``chunk_seconds``, written, resumed and gathered by the cell driver
(``nmcs.harness.cell``) as a search cell's are; ``meta.json`` says ``"kind": "matches"``.

Columns of a match cell's results.parquet (one row per match)::

    experiment cell kind game game_options rows cols misere player_a player_b (labels, e.g.
    NMC(1)+COW, MCS) a_level a_discount a_pod a_cow a_c b_level ... b_c budget_playouts
    budget_ms (null when not set) seed match search (= match) match_seed a_first winner ('a',
    'b', or null for a draw) outcome_a (+1/0/-1) length moves (list<int32>) seconds playouts
    (lists, one entry per move) a_seconds_per_move b_seconds_per_move a_playouts_per_move
    b_playouts_per_move wall_seconds final (the last position as text)
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd
from omegaconf import DictConfig, OmegaConf

from nmcs.core.errors import ConfigError
from nmcs.games import registry as games
from nmcs.games.twoplayer.layout import COLS, ROWS
from nmcs.harness.cell import ChunkRunner, atomic_write_bytes, check_size
from nmcs.harness.configs import (
    as_dict,
    check_driver_keys,
    check_keys,
    resolved,
    thread_count,
)
from nmcs.harness.records import validate_record
from nmcs.harness.results import all_results
from nmcs.harness.seeding import identity_scheme, scheme_identity, seed_key
from nmcs.harness.summary import markdown_table
from nmcs.search.twoplayer.match import play_match, run_matches, win_rate
from nmcs.search.twoplayer.players import ADDED_PLAYER_FIELDS, Budget, PlayerConfig

# The keys that determine a match's result: a match cell's identity (the number of matches,
# the worker settings, the scale and every key of single-player searches are not in it, so
# keys added to conf/config.yaml later leave existing match cells as they are).
IDENTITY_KEYS = ("experiment_name", "game", "player_a", "player_b", "budget", "seed")
# Keys added inside ``game``/``player_a``/``player_b`` after match cells were published, with
# the value that keeps the old behaviour: at that value they stay out of the identity, so the
# cells written before them keep their hash and resume.
ADDED_MATCH_KEYS: dict[str, dict[str, Any]] = {
    "game": {"size": None},
    "player_a": ADDED_PLAYER_FIELDS,
    "player_b": ADDED_PLAYER_FIELDS,
}

# Top-level keys of conf/config.yaml that only search cells read (single-player games).
SEARCH_ONLY_KEYS = ("algo", "level", "memorize", "memorize_from", "stop_at_target", "n_searches")


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
    backup: str = "outcome"  # or "discounted": what the tree backs up from a nested playout
    solver: bool = False  # MCTS-Solver: proven wins and losses backed up
    root: str = (
        "uct"  # or "flat": no tree, rounds over the root's moves (the investigation's reason 3)
    )
    expand: str = "node"  # or "playout": a nested playout's moves become tree nodes


# ---------------------------------------------------------------- the validated cell


@dataclass(frozen=True)
class MatchCell:
    """A validated match cell: a pairing of two players on one game version, with one budget
    per move, ready for ``run_matches`` (and for the cell driver)."""

    experiment: str
    game: str
    options: dict[str, Any]
    player_a: PlayerConfig
    player_b: PlayerConfig
    budget: Budget
    n: int
    seed: int
    workers: int
    chunk_seconds: float
    progress: bool
    state0: np.ndarray = field(repr=False)
    identity: dict[str, Any] = field(repr=False)
    config: dict[str, Any] = field(repr=False)
    kind: str = "matches"
    unit: str = "match"

    @property
    def label(self) -> str:
        return f"{self.player_a.label} vs {self.player_b.label}"

    def compile_key(self) -> tuple:
        """One compiled two-player search serves every game and player."""
        return ("matches",)

    def schedulers(self) -> tuple[str, ...]:
        """Matches run on this machine's threads: no scheduler to reach."""
        return ()

    def unread_keys(self) -> dict[str, str]:
        """The top-level keys a match cell does not read, each with what to set instead: the
        preflight refuses them on the command line."""
        why = "a match cell does not read it (two-player game; set player_a.* and player_b.*)"
        return {key: why for key in SEARCH_ONLY_KEYS}

    def check_bounds(self) -> None:
        """Nothing: a two-player game's bounds are its protocol's (``nmcs.games.twoplayer``),
        which sizes the players' buffers from them."""

    def warm_up(self) -> None:
        """Load (or compile) the two-player kernels once, in the parent process, before cells
        run: a match with one playout or one millisecond a move, whichever comes first (one
        NMC(2) simulation can take seconds on a full board)."""
        play_match(
            self.game, self.options, self.player_a, self.player_b, Budget(playouts=1, ms=1), 0
        )

    # ------------------------------------------------------------------ the driver's interface

    def meta(self) -> dict[str, Any]:
        return {"pairing": self.label, "seed_scheme": identity_scheme(self.identity)}

    def session(self, out_dir: Path) -> AbstractContextManager[ChunkRunner]:
        return nullcontext(self.run_chunk)

    def run_chunk(self, cell: str, indices: list[int]) -> pd.DataFrame:
        rows = run_matches(
            self.game,
            self.options,
            self.player_a,
            self.player_b,
            self.budget,
            self.n,
            self.seed,
            indices=indices,
            key=seed_key(self.identity),
            workers=min(self.workers, len(indices)),
        )
        return self.rows(cell, rows)

    def finish(self, results: pd.DataFrame, out_dir: Path) -> None:
        """``summary.txt``: A's win rate and the longest match's final position."""
        p, low, high = win_rate(results.to_dict("records"))
        text = (
            f"{self.player_a.label} (A) vs {self.player_b.label} (B), {self.game} "
            f"{_options_string(self.options)}: A wins {p:.3f} [{low:.3f}, {high:.3f}] of "
            f"{len(results)} matches\n\nlongest match ({results['length'].max()} moves):\n"
            f"{results.loc[results['length'].idxmax(), 'final']}\n"
        )
        atomic_write_bytes(out_dir / "summary.txt", text.encode())

    @property
    def hunts(self) -> bool:
        return False  # a match cell always plays its n matches

    def after_saved(self, rows: pd.DataFrame, out_dir: Path, n_saved: int) -> str | None:
        return None

    def rows(self, cell: str, rows: list[dict]) -> pd.DataFrame:
        """One DataFrame row per match of ``run_matches``'s rows."""
        a, b = asdict(self.player_a), asdict(self.player_b)
        budget = self.budget
        n = len(rows)
        return pd.DataFrame(
            {
                "experiment": self.experiment,
                "cell": cell,
                "kind": "matches",
                "game": self.game,
                "game_options": _options_string(self.options),
                "rows": int(self.state0[ROWS]),
                "cols": int(self.state0[COLS]),
                "misere": bool(self.options.get("misere", False)),
                "player_a": self.player_a.label,
                "player_b": self.player_b.label,
                **{f"a_{k}": v for k, v in a.items()},
                **{f"b_{k}": v for k, v in b.items()},
                "budget_playouts": pd.array(
                    [None if budget.playouts is None else int(budget.playouts)] * n, dtype="Int64"
                ),
                "budget_ms": np.full(n, np.nan if budget.ms is None else float(budget.ms)),
                "seed": self.seed,
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


# ---------------------------------------------------------------- validation


def _player(cfg: DictConfig, key: str) -> PlayerConfig:
    node = cfg.get(key)
    if node is None:
        raise ConfigError(
            f"{key}: a two-player game needs {key} (e.g. {key}=mcs or {key}=nmc1_cow; "
            "run it with experiment=twoplayer_matches)"
        )
    settings = as_dict(node)
    allowed = [f.name for f in fields(PlayerSettings)]
    for name in settings:
        if name not in allowed:
            raise ConfigError(f"unknown key '{key}.{name}' (allowed: {', '.join(allowed)})")
    try:
        return PlayerConfig(**settings)
    except ValueError as error:
        raise ConfigError(f"{key}: {error}") from None


def match_identity(cfg: DictConfig | dict[str, Any]) -> dict:
    """The part of a match cell's config that determines its matches (``IDENTITY_KEYS``);
    ``cfg`` a composed config or its resolved container."""
    full = resolved(cfg)
    identity = {k: full[k] for k in IDENTITY_KEYS}
    for key, added in ADDED_MATCH_KEYS.items():
        node = identity.get(key)
        if isinstance(node, dict):
            identity[key] = {k: v for k, v in node.items() if not (k in added and v == added[k])}
    return scheme_identity(identity, str(full.get("seeds", "common")))


def validate_match(cfg: DictConfig) -> MatchCell:
    """The match cell of ``cfg``; ConfigError (one line naming the key) for a bad value."""
    name = str(cfg.game.name)
    record = games.game(name)
    check_keys(cfg.game, record.options, "game.")
    options = as_dict(cfg.game)
    options.pop("name")
    try:
        state0 = record.make_state(**options)
        # game.size stands for rows = cols: the matches see rows and cols only (and the rows'
        # game_options of the cells written before game.size existed stay as they were).
        size = options.pop("size", None)
        if size is not None:
            options["rows"] = options["cols"] = int(size)
    except (ValueError, TypeError) as error:
        raise ConfigError(str(error)) from None  # names the game and the key
    validate_record(cfg.record, record, options)  # a game without record support: refused
    player_a, player_b = _player(cfg, "player_a"), _player(cfg, "player_b")
    check_driver_keys(cfg)
    n = cfg.get("n_matches")
    if n is None or n < 1:
        raise ConfigError(f"n_matches = {n}: must be at least 1")
    check_size("n_matches", n)
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
    if ms is not None and not 0 < ms < math.inf:
        raise ConfigError(f"budget.ms = {ms}: must be a finite number > 0 (or null)")
    try:
        move_budget = Budget(
            playouts=None if budget.playouts is None else int(budget.playouts),
            ms=None if ms is None else float(ms),
        )
    except ValueError as error:
        raise ConfigError(str(error)) from None
    return MatchCell(
        experiment=str(cfg.experiment_name),
        game=name,
        options=options,
        player_a=player_a,
        player_b=player_b,
        budget=move_budget,
        n=int(n),
        seed=int(cfg.seed),
        workers=thread_count(cfg.workers),
        chunk_seconds=float(cfg.chunk_seconds),
        progress=bool(cfg.progress),
        state0=state0,
        identity=match_identity(cfg),
        config=cast(dict, OmegaConf.to_container(cfg, resolve=True)),
    )


def _options_string(options: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted(options.items()))


def _per_move(values: list, a_first: bool, player: str) -> float:
    start = 0 if (player == "a") == a_first else 1
    own = values[start::2]
    return float(np.mean(own)) if len(own) else float("nan")


# ---------------------------------------------------------------- summaries


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
    if results.empty:  # no finished cell yet: nothing to summarize
        return pd.DataFrame()
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
