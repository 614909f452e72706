"""A toy algorithm, registered from the tests: everything an algorithm needs in one module.

``algo=toy`` plays ``k`` playouts of the game's own policy from the root and returns the best
(ties keep the first). With ``conf/algo/toy.yaml`` (which the test writes into a temporary config
folder) it runs through ``run.py`` like any built-in algorithm::

    NMCS_PLUGINS=toy_algorithm python run.py -m algo=toy algo.k=1,8 \
        hydra.searchpath=[file:///path/to/conf_extra]
"""

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.search.anytime import copy_into
from nmcs.search.registry import Algorithm, Settings, register

TOY_YAML = """\
defaults:
  - /schema_algo_toy@_here_
name: toy
"""


@dataclass
class ToyConfig:
    name: str = "toy"
    k: int = 4  # playouts from the root

    def check(self, settings: Settings) -> None:
        if self.k < 1:
            raise ValueError(f"algo.k = {self.k}: must be >= 1")


class ToyParams(NamedTuple):
    k: int


class ToyWorkspace(NamedTuple):
    child: np.ndarray
    moves: np.ndarray
    stats: np.ndarray


def toy_params(options, settings, kernels, state0):
    return ToyParams(int(options.k))


def build_toy(game, levels: int):
    playout, play, score, max_moves = game.playout, game.play, game.score, game.max_moves

    @njit
    def new_workspace(state0, params, stats):
        return ToyWorkspace(np.empty_like(state0), np.empty(max_moves(state0) + 1, np.int32), stats)

    @njit
    def run(state, params, rng, ws, seq, trace):
        best = -(2**62)
        best_len = 0
        for _ in range(params.k):
            copy_into(ws.child, state)
            n = playout(ws.child, rng, ws.moves, True)
            ws.stats[0] += 1
            ws.stats[1] += n
            s = score(ws.child)
            if s > best:
                best = s
                best_len = n
                seq[:n] = ws.moves[:n]
        for j in range(best_len):
            play(state, seq[j])
        return best_len, 0

    return new_workspace, run


TOY = register(Algorithm(name="toy", config=ToyConfig, params=toy_params, build=build_toy))
