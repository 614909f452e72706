"""Record hunts: a search cell that stops at a target score or after some hours, and keeps every
game that reaches a threshold as a checked game file with its picture.

The ``record.*`` keys (``nmcs.harness.schema.Record``) apply to games whose registry record has
a ``RecordBook`` (Morpion Solitaire: 5D and 5T; SameGame: the 20 standard positions). None of
them changes a search's result, so a hunt is an ordinary cell: it resumes, extends and is
counted like any other, and the same searches run with or without them. What they add, after
each saved chunk:

- every search that scores at least ``threshold`` has its game written as
  ``<cell>/records/search-<i>-score-<s>`` + the game's files (``.psol``, ``.png``, ``.svg`` for
  Morpion; ``.sgm`` and ``.png`` for SameGame, whose cells keep a game only when it beats
  every game they saved before); the game file is read back through the game's own reader and
  replayed before the game is announced, and a file that does not replay to the score saved is
  an error;
- the cell stops at the end of the chunk in which a search reaches ``target``, or in which this
  run's ``hours`` are spent, and says which in one line. A rerun of a cell whose target is
  already reached says so and runs nothing (``record.target=null`` hunts on).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nmcs.core.errors import ConfigError
from nmcs.games.registry import Game, RecordBook

RECORDS_DIR = "records"


@dataclass(frozen=True)
class RecordHunt:
    """The validated ``record.*`` keys of one cell, with what the game's record book says of its
    position."""

    book: RecordBook
    position: str
    target: int | None
    threshold: int | None
    hours: float | None

    @property
    def best_known(self) -> int:
        return self.book.best_known[self.position]

    @property
    def upper_bound(self) -> int:
        return self.book.upper_bound[self.position]


class HuntClock:
    """When this run of a hunt started (``record.hours`` counts this run's wall time)."""

    def __init__(self) -> None:
        self.started = time.monotonic()

    def hours(self) -> float:
        return (time.monotonic() - self.started) / 3600.0


def validate_record(record: Any, game: Game, game_options: dict[str, Any]) -> RecordHunt | None:
    """The hunt of a cell's ``record`` config node (None when no ``record.*`` key is set);
    ConfigError (one line naming the key) for a game without record support, a position the
    record book does not know, a target above the position's proven upper bound, a negative
    threshold or a budget of hours that is not a positive finite number."""
    target, threshold, hours = record.get("target"), record.get("threshold"), record.get("hours")
    if target is None and threshold is None and hours is None:
        return None
    given = next(
        f"record.{k}"
        for k, v in (("target", target), ("threshold", threshold), ("hours", hours))
        if v is not None
    )
    book = game.records
    if book is None:
        from nmcs.games import registry as games  # noqa: PLC0415 - the list, for the message

        supported = [g for g in games.names() if games.game(g).records is not None]
        raise ConfigError(
            f"{given}: game={game.name} has no record support "
            f"(record hunts: game={', game='.join(supported)})"
        )
    position = str(game_options.get(book.option))
    if position not in book.best_known:
        raise ConfigError(
            f"{given}: game={game.name} {book.option}={position} has no record support "
            f"(allowed: game.{book.option}={', '.join(book.positions())})"
        )
    bound = book.upper_bound[position]
    if target is not None and not 1 <= target <= bound:
        raise ConfigError(
            f"record.target = {target}: must be from 1 to {bound}, the proven upper bound of "
            f"{game.name} {position} ({book.sources[position]})"
        )
    if threshold is not None and threshold < 0:
        raise ConfigError(f"record.threshold = {threshold}: must be >= 0 (or null for none)")
    if hours is not None and not (math.isfinite(hours) and hours > 0):
        raise ConfigError(f"record.hours = {hours}: must be a positive number (or null for none)")
    return RecordHunt(
        book=book,
        position=position,
        target=None if target is None else int(target),
        threshold=None if threshold is None else int(threshold),
        hours=None if hours is None else float(hours),
    )


def game_stem(out_dir: Path, search: int, score: int) -> Path:
    """Where search ``search``'s game is saved (without suffix)."""
    return out_dir / RECORDS_DIR / f"search-{search:08d}-score-{score}"


def saved_best(out_dir: Path) -> int:
    """The best score among the games a cell saved (-1: none)."""
    scores = [int(p.name.split("-score-")[1].split(".")[0]) for p in saved_files(out_dir)]
    return max(scores, default=-1)


def saved_files(out_dir: Path) -> list[Path]:
    """The game files a cell saved (``<cell>/records/search-*-score-*.*``, pictures too)."""
    return sorted((out_dir / RECORDS_DIR).glob("search-*-score-*.*"))


def save_games(
    hunt: RecordHunt, state0: np.ndarray, rows: pd.DataFrame, out_dir: Path
) -> list[tuple[int, int, Path]]:
    """Save the game of every row that reaches the threshold and is not saved yet; returns
    ``(search, score, stem)`` of each game written. ValueError if a game file does not replay to
    its row's score (the row and the file disagree: nothing is announced)."""
    if hunt.threshold is None:
        return []
    written = []
    hits = rows[(rows["score"] >= hunt.threshold) & rows["moves"].notna()]
    best = saved_best(out_dir) if hunt.book.keep == "best" else None
    for row in hits.sort_values("search").itertuples():
        stem = game_stem(out_dir, int(row.search), int(row.score))
        if Path(f"{stem}{hunt.book.suffix}").exists() or Path(f"{stem}.done").exists():
            continue
        if best is not None:
            if int(row.score) <= best:
                continue
            best = int(row.score)
        stem.parent.mkdir(parents=True, exist_ok=True)
        replayed = hunt.book.save_checked(state0, np.asarray(row.moves, np.int32), stem)
        if replayed != int(row.score):
            raise ValueError(
                f"{stem}: the saved game replays to {replayed}, the search scored {row.score}"
            )
        written.append((int(row.search), int(row.score), stem))
    return written


def stop_reason(
    hunt: RecordHunt, rows: pd.DataFrame, clock: HuntClock, n_saved: int, n: int
) -> str | None:
    """One line saying why the cell stops now, or None: the target is reached by a saved
    search (``rows``: every search saved so far), or this run's hours are spent."""
    if hunt.target is not None and len(rows):
        hits = rows[rows["score"] >= hunt.target].sort_values("search")
        if len(hits):
            first = hits.iloc[0]
            return (
                f"record hunt: target {hunt.target} reached by search {int(first['search'])} "
                f"(score {int(first['score'])}); {n_saved} of {n} searches saved "
                "(record.target=null hunts on)"
            )
    if hunt.hours is not None and clock.hours() >= hunt.hours:
        best = int(rows["score"].max()) if len(rows) else None
        return (
            f"record hunt: {hunt.hours:g} hours spent; {n_saved} of {n} searches saved, best "
            f"{best}" + ("" if hunt.target is None else f", target {hunt.target} not reached")
        )
    return None


def budget_line(hunt: RecordHunt, rows: pd.DataFrame, n: int) -> str:
    """The line of a hunt that ran to its budget of searches."""
    best = int(rows["score"].max()) if len(rows) else None
    line = f"record hunt: {n} searches done (the budget), best {best}"
    if hunt.threshold is not None and hunt.book.keep == "best":
        # Such a cell saves a game only when it beats every search before it.
        scores = rows.sort_values("search")["score"]
        before = scores.cummax().shift(fill_value=hunt.threshold - 1)
        improved = (scores >= hunt.threshold) & (scores > before)
        line += f", {int(improved.sum())} new bests of {hunt.threshold} or more saved"
    elif hunt.threshold is not None:
        line += f", {int((rows['score'] >= hunt.threshold).sum())} at {hunt.threshold} or more"
    if hunt.target is not None:
        line += f"; target {hunt.target} not reached"
    return line
