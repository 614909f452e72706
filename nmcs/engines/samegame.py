"""Compiled search entry point for SameGame."""

from numba import njit

from nmcs.games import samegame as game
from nmcs.search.engine import build_engine

_run_chunk = build_engine(game)


@njit(cache=True)
def run_chunk(state0, seeds, params, outputs, n_workers):
    _run_chunk(state0, seeds, params, outputs, n_workers)
