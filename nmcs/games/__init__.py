"""Games: the rules of each game as numba kernels over one flat numpy state array.

A game is a module (``leftmove.py``) or, where it has more than kernels, a subpackage
(``morpion/{rules,psol,draw}.py``, ``samegame/{rules,io,draw}.py``,
``sudoku/{rules,io,fc}.py``) whose ``rules`` imports nothing above it. Each registers itself in
``nmcs.games.registry`` (name, options dataclass with its checks, kernels, pictures and file
hooks); the harness finds games only there. The kernels follow ``nmcs.games.protocol.
GameKernels``; each rules module starts with an ASCII sketch of its state layout and move
encoding.

To add a game: write ``nmcs/games/NAME.py`` (kernels, an options dataclass, ``make_state`` and a
``register(Game(...))`` at the bottom) and ``conf/game/NAME.yaml`` (docs/howto/add-game.md); the
conformance test (``tests/test_conformance.py``) then checks it with every algorithm.
"""

import importlib
from types import ModuleType
from typing import Any

import numpy as np

from nmcs.core.jit_names import install

install()  # numba set up (process-unique names, cheaper inlining) before anything compiles


def game_module(name: str) -> ModuleType:
    """The public module of game ``name``: ``make_state``, ``describe`` and the kernels (for a
    subpackage game, the package, which re-exports its rules)."""
    from nmcs.games import registry

    return importlib.import_module(registry.game(name).make_state.__module__)


def make_state(name: str, **options: Any) -> np.ndarray:
    """The initial state of game ``name`` with ``options`` (its ``game.*`` keys; the others take
    their defaults), checked by the game's options dataclass."""
    from nmcs.games import registry

    return registry.game(name).make_state(**options)
