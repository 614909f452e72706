"""Compiled search entry point for the left move problem."""

from numba import njit

from nmcs.games import leftmove as game
from nmcs.search.engine import build_engine

_run_chunk = build_engine(game)


@njit(cache=True)
def run_chunk(state0, seeds, params, outputs, n_workers):
    _run_chunk(state0, seeds, params, outputs, n_workers)
