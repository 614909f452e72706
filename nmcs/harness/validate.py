"""From a composed config to a validated cell, once: the game's record says which kind of cell
it is (``searches`` or ``matches``), and that kind's own checks build a frozen cell object
(``nmcs.harness.search_cell.SearchCell``, ``nmcs.harness.match_cell.MatchCell``) that the
preflight, the cell driver, the result rows and Dask read. Types and unknown keys are checked
earlier by the schema (``nmcs.harness.schema``); every failure here is a ``ConfigError`` with
one line that names the key and what is allowed."""

from __future__ import annotations

from collections.abc import Callable

from omegaconf import DictConfig

from nmcs.core.errors import ConfigError
from nmcs.games import registry as games
from nmcs.harness.match_cell import MatchCell, validate_match
from nmcs.harness.search_cell import SearchCell, validate_search

__all__ = ["KINDS", "ConfigError", "validate"]

# The kinds of cell, by the ``cells`` of a game's record.
KINDS: dict[str, Callable[[DictConfig], SearchCell | MatchCell]] = {
    "searches": validate_search,
    "matches": validate_match,
}


def validate(cfg: DictConfig) -> SearchCell | MatchCell:
    """The validated cell of ``cfg``; ConfigError for the first invalid value."""
    if cfg.game.name not in games.names():
        raise ConfigError(
            f"game: unknown game '{cfg.game.name}' (allowed: {', '.join(games.names())})"
        )
    return KINDS[games.game(cfg.game.name).cells](cfg)
