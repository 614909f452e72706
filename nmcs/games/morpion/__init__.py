"""Morpion Solitaire 5D and 5T: the game's record in the registry and its public face.

``rules`` holds the kernels (and imports nothing above it); ``psol`` reads and writes Pentasol
``.psol`` files; ``draw`` draws games. This package re-exports the rules, so
``nmcs.games.morpion.make_state`` and the kernels are one import away.
"""

from dataclasses import dataclass

from nmcs.games.morpion import rules
from nmcs.games.morpion.rules import *  # noqa: F403 - the package's public face is its rules
from nmcs.games.morpion.rules import POLICIES, VARIANT, VARIANTS
from nmcs.games.registry import Game, checked_options, register


@dataclass
class MorpionOptions:
    """``game=morpion`` options (``conf/game/morpion.yaml``)."""

    name: str = "morpion"
    # 5D (disjoint: same-direction lines share no dot) | 5T (touching: they may share one end dot)
    variant: str = "5D"
    # random | mobility (Reflexive paper 2.3: among the moves leading to the most legal moves)
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
    )
)
