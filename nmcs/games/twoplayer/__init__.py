"""Two-player, turn-taking, win/loss games (NMCS for two-player games, Cazenave et al. 2016):
Breakthrough, Knightthrough, Domineering, NoGo and AtariGo, each with a misere option.

One module per game holds its rules as numba kernels over the flat state of ``layout``;
``protocol`` dispatches on the game id and holds the text forms. The single-player games of
``nmcs.games`` keep their own protocol (one score to maximise); nothing here touches them.
"""

from nmcs.games.twoplayer.protocol import (
    GAMES,
    IllegalMoveError,
    apply_move,
    draw,
    legal_move_list,
    make_state,
    move_name,
    outcome,
    parse,
    parse_move,
)

__all__ = [
    "GAMES",
    "IllegalMoveError",
    "apply_move",
    "draw",
    "legal_move_list",
    "make_state",
    "move_name",
    "outcome",
    "parse",
    "parse_move",
]
