"""How long a cell's pictures of its best game take: shared by the games' benchmarks."""

import tempfile
import time
from pathlib import Path

import numpy as np

from nmcs.core.rng import new_rng


def time_pictures(game, state0, seed, repeats=3):
    """Seconds (wall, CPU) of the pictures a cell draws of its best game (the game module's
    ``save_game`` hook) for one random playout from ``state0``: the first call, which also
    imports the drawing code as a cell does, and the best of ``repeats`` more."""
    moves = np.empty(game.max_moves(state0) + 1, np.int32)
    n = game.playout(state0.copy(), new_rng(seed), moves, True)
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(1 + repeats):
            t0, c0 = time.perf_counter(), time.process_time()
            game.save_game(state0, moves[:n], Path(folder) / "best_game")
            times.append((time.perf_counter() - t0, time.process_time() - c0))
    best = min(t[0] for t in times[1:]), min(t[1] for t in times[1:])
    return dict(moves=int(n), first=times[0], best=best)
