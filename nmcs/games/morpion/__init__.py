"""Morpion Solitaire 5D and 5T: the game's record in the registry and its public face.

``rules`` holds the kernels (and imports nothing above it); ``psol`` reads and writes Pentasol
``.psol`` files; ``draw`` draws games. This package re-exports the rules, so
``nmcs.games.morpion.make_state`` and the kernels are one import away.
"""

from dataclasses import dataclass

import numpy as np

from nmcs.games.morpion import rules
from nmcs.games.morpion.rules import *  # noqa: F403 - the package's public face is its rules
from nmcs.games.morpion.rules import POLICIES, VARIANT, VARIANTS
from nmcs.games.registry import Game, RecordBook, checked_options, register


@dataclass
class MorpionOptions:
    """``game=morpion`` options (``conf/game/morpion.yaml``)."""

    name: str = "morpion"
    # the rules: 5D (disjoint: lines of the same direction share no dot) or 5T (touching: they
    # may share one end dot)
    variant: str = "5D"
    # the playout policy: random (uniform) or mobility (Reflexive paper 2.3: a move among those
    # that leave the most legal moves)
    policy: str = "random"

    def check(self) -> None:
        if self.variant not in VARIANTS:
            raise ValueError(
                f"game.variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}"
            )
        if self.policy not in POLICIES:
            raise ValueError(
                f"game.policy must be one of {', '.join(POLICIES)}, got {self.policy!r}"
            )


def make_state(variant="5D", policy="random"):  # type: ignore[no-redef]  # rules' own, after the checks
    """The starting cross for ``variant`` (5D or 5T) with playout ``policy`` (random or
    mobility)."""
    checked_options(MorpionOptions, {"variant": variant, "policy": policy})
    return rules.make_state(variant, policy)


def describe(state0, moves):
    """Moves in Pentasol notation, one per line after the reference point."""
    from nmcs.games.morpion.psol import psol_text

    return psol_text(moves)


def save_game(state0, moves, path_stem):
    """Write a game as ``path_stem`` + ``.psol``, ``.png`` and ``.svg`` (called by the harness for
    the best game of a cell); returns the files written."""
    from nmcs.games.morpion.draw import save_game as save

    variant = VARIANTS[int(state0[VARIANT])]
    return save(moves, path_stem, title=f"Morpion {variant}, {len(moves)} moves")


def save_checked(state0, moves, path_stem):
    """Write a game as ``path_stem`` + ``.psol``, ``.png`` and ``.svg``, then read the ``.psol``
    back through ``psol.read_psol`` (every move replayed and checked legal); returns the replayed
    score. ValueError (one line) if the file does not give back the same moves."""
    from nmcs.games.morpion.psol import read_psol

    save_game(state0, moves, path_stem)
    psol = f"{path_stem}.psol"
    variant = VARIANTS[int(state0[VARIANT])]
    _, replayed = read_psol(psol, variant=variant)
    if not np.array_equal(np.asarray(replayed), np.asarray(moves, dtype=np.int32)):
        raise ValueError(f"{psol}: the file does not replay to the game written")
    return len(replayed)


def read_moves(path, game_options):
    """The moves of a ``.psol`` game file, read as the variant of ``game_options``."""
    from nmcs.games.morpion.psol import read_psol

    return read_psol(path, variant=str(game_options.get("variant", "5D")))[1]


# Best scores known and proven upper bounds: the records are Rosin's (5D 82 in 2010, 5T 178 in
# 2011, shared/papers/README.md); the bounds are Michalewski, Nagorko and Pawlewicz's linear
# programmes ("An upper bound of 84 for Morpion Solitaire 5D", CCCG 2016; "485 - a new upper
# bound for Morpion Solitaire", CCCG 2015).
RECORDS = RecordBook(
    option="variant",
    best_known={"5D": 82, "5T": 178},
    upper_bound={"5D": 84, "5T": 485},
    sources={
        "5D": "record 82: Rosin 2010; upper bound 84: Michalewski, Nagorko, Pawlewicz 2016",
        "5T": "record 178: Rosin 2011; upper bound 485: Michalewski, Nagorko, Pawlewicz 2015",
    },
    save_checked=save_checked,
    suffix=".psol",
    read_moves=read_moves,
)


def check_state(state):
    """ValueError unless ``state`` has the layout of a Morpion position (rules.py)."""
    if state.shape[0] <= rules.CAND or state[rules.VARIANT] not in (0, 1):
        raise ValueError(f"not a Morpion position ({state.shape[0]} entries)")
    size = rules.CAND + rules.MAX_BRANCHING[int(state[rules.VARIANT])] + rules.SLACK
    if state.shape[0] != size:
        raise ValueError(f"a Morpion position has {size} entries, got {state.shape[0]}")


GAME = register(
    Game(
        name="morpion",
        options=MorpionOptions,
        kernels=rules,
        make_state=make_state,
        describe=describe,
        save_game=save_game,
        check_state=check_state,
        records=RECORDS,
    )
)
