"""A game's declared bounds, checked rather than trusted: ``max_branching`` and ``max_moves``.

The searches size their buffers from the bounds a game declares for the position they start
from (a row of ``max_branching(state0)`` moves per level, ``max_moves(state0) + 1`` moves of
a game) and the compiled kernels write into them unchecked, so a bound set too low would write
past the end of a buffer: silently wrong results, or memory corrupted until the process
aborts. ``check_bounds`` plays a few random games from the position in Python, through the
game's own kernels, with buffers of exactly the declared size followed by a guard zone much
larger than it, and raises ``PluginError`` with one line naming the game and the bound at the
first breach: more moves listed (or written) than ``max_branching``, a game longer than
``max_moves``. The guard zone catches the breach before anything outside the buffers is
written, which the compiled searches could not do without a check in their hot loops.

It runs before the first search of every run (``nmcs.harness.batch.run_batch``, once per game
and declared bounds in a process; ``run.py``'s pre-flight check, before any folder is made) and
in the conformance test, before any other check of a game. These are the first calls of the
kernels in a process, so numba compiles them here: a kernel it cannot compile is a
``PluginError`` too, in one line (``nmcs.core.errors.compile_error``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba.core.errors import NumbaError

from nmcs.core.errors import PluginError, compile_error
from nmcs.core.rng import new_rng

GAMES = 3  # random games through legal_moves and play, then as many of the game's playouts
GUARD = 1 << 16  # entries after a buffer's declared size, at least (16 times the size if more)
SENTINEL = -1_234_567_891  # what the guard zone holds; a kernel never writes it


def guarded(size: int, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """(buffer, memory): a buffer of exactly ``size`` entries, as the searches give a kernel
    (a kernel may use all of it, counting from its end too), that is the start of ``memory``,
    whose rest is the guard zone, filled with ``SENTINEL``."""
    memory = np.zeros(size + max(GUARD, 16 * size), dtype)
    memory[size:] = SENTINEL
    return memory[:size], memory


def breached(memory: np.ndarray, size: int) -> bool:
    """Whether anything was written past the buffer, into the guard zone of its ``memory``."""
    return bool((memory[size:] != SENTINEL).any())


# The (game, kernels, width, length) checked in this process.
_CHECKED: set[tuple[str, str, int, int]] = set()


def check_bounds(record: Any, state0: np.ndarray, seed: int = 0) -> None:
    """PluginError (one line naming the game and the bound) if a few random games from
    ``state0`` list more legal moves than ``max_branching(state0)`` or play more moves than
    ``max_moves(state0)``, through ``legal_moves`` and ``play``, the game's ``playout`` or its
    policy steps (the ``policy_moves`` capability). Once per game and declared bounds in a
    process: a sweep over instances or the child positions of a distributed search check
    again only where the bounds differ."""
    kernels = record.kernels
    where = game_where(record)
    try:  # the kernels' first calls in a process: numba compiles them here
        width, length = int(kernels.max_branching(state0)), int(kernels.max_moves(state0))
        key = (record.name, kernels.__name__, width, length)
        if key in _CHECKED:
            return
        rng = np.random.default_rng(seed)
        for game in range(GAMES):
            _walk(kernels, state0.copy(), width, length, rng, where)
            _playout(kernels, state0.copy(), length, seed + game, where)
            if hasattr(kernels, "policy_moves"):
                _policy_steps(kernels, state0.copy(), width, length, rng, where)
    except NumbaError as error:
        raise compile_error(where, error) from error
    _CHECKED.add(key)


def game_where(record: Any) -> str:
    """How the messages name a game: ``game <name> (<file of its kernels>)``."""
    kernels = record.kernels
    return f"game {record.name} ({getattr(kernels, '__file__', None) or kernels.__name__})"


def _too_many(where: str, kernel: str, n: int, width: int) -> PluginError:
    said = f"listed {n} moves" if n > width else "wrote past the end of its buffer"
    return PluginError(
        f"{where}: {kernel} {said}, more than max_branching = {width}; make max_branching an "
        "upper bound on the legal moves of every position of the game"
    )


def _too_long(where: str, how: str, length: int) -> PluginError:
    return PluginError(
        f"{where}: {how} played more than max_moves = {length} moves; make max_moves an upper "
        "bound on the moves of every game from the position"
    )


def _walk(kernels: Any, state: np.ndarray, width: int, length: int, rng: Any, where: str):
    """One random game through ``legal_moves`` and ``play``."""
    legal, memory = guarded(width, np.int32)
    for _ in range(length + 1):
        n = int(kernels.legal_moves(state, legal))
        if n > width or breached(memory, width):
            raise _too_many(where, "legal_moves", n, width)
        if n == 0:
            return
        kernels.play(state, legal[rng.integers(n)])
    raise _too_long(where, "a random game", length)


def _playout(kernels: Any, state: np.ndarray, length: int, seed: int, where: str) -> None:
    """One of the game's own playouts, its moves recorded."""
    moves, memory = guarded(length + 1, np.int32)  # the searches' buffer: max_moves + 1
    n = int(kernels.playout(state, new_rng(seed), moves, True))
    if n > length or breached(memory, length + 1):
        raise _too_long(where, "its playout", length)


def _policy_steps(kernels: Any, state: np.ndarray, width: int, length: int, rng: Any, where: str):
    """One random game through the game's policy steps."""
    (out, out_memory), (codes, codes_memory) = guarded(width, np.int32), guarded(width, np.int64)
    betas, betas_memory = guarded(width, np.float64)
    scratch = np.zeros(int(kernels.policy_scratch(state)), np.uint64)
    kernels.policy_begin(state, scratch)
    for _ in range(length + 1):
        n = int(kernels.policy_moves(state, scratch, out, codes, betas, False))
        memories = (out_memory, codes_memory, betas_memory)
        if n > width or any(breached(memory, width) for memory in memories):
            raise _too_many(where, "policy_moves", n, width)
        if n == 0:
            kernels.policy_end(state, scratch)
            return
        kernels.policy_play(state, scratch, out[rng.integers(n)])
    raise _too_long(where, "a random game of its policy steps", length)
