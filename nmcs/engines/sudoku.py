"""Compiled search entry point for n^2 x n^2 Sudoku (16x16 by default)."""

from numba import njit

from nmcs.games import sudoku as game
from nmcs.search.engine import build_engine

_run_chunk = build_engine(game)


@njit(cache=True)
def run_chunk(state0, seeds, params, outputs, n_workers):
    _run_chunk(state0, seeds, params, outputs, n_workers)
