"""Process-unique names for numba's compiled functions, so that code cached by different
processes can be loaded side by side.

numba names a compiled function after its qualified name, its argument types and a counter
that starts at 1 in every process (``FunctionIdentity._unique_ids``). The closures that one
factory builds for every game (``build_nested``'s ``new_workspace``, ``level_k``, ...) have the
same qualified name and argument types whatever the game, so two processes that compile two
games' entry points after the same number of other functions give two different bodies one
symbol. A third process that loads both entry points from the on-disk cache links one body for
both (the duplicate symbols are merged): the second game then runs the first game's code, with
wrong results or a corrupted heap (seen here as a Morpion level-2 search that played
no playout after a left-move search in the same process; numba issue #10486).

``install()``, called by ``nmcs.games`` and ``nmcs.search`` before any of their functions is
compiled, draws the counter from random 62-bit numbers instead: a clash between two processes
becomes a 2^-62 event per pair of functions, and numbers are never repeated within a process.
"""

import secrets
import threading

from numba.core.bytecode import FunctionIdentity

from nmcs.core import compile_log, flag_compare, inline_copies


class RandomIds:
    """An endless iterator of distinct random 62-bit integers, safe to share between threads."""

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._lock = threading.Lock()

    def __iter__(self) -> "RandomIds":
        return self

    def __next__(self) -> int:
        with self._lock:
            while True:
                uid = secrets.randbits(62)
                if uid not in self._seen:
                    self._seen.add(uid)
                    return uid


def install() -> None:
    """Make numba's function counter random for the rest of the process (idempotent), inline
    without numba's spare IR copies (``nmcs.core.inline_copies``), hash and compare compile
    flags without numba's per-option reads (``nmcs.core.flag_compare``), and log compilations where
    ``NMCS_COMPILE_LOG`` asks for it (``nmcs.core.compile_log``)."""
    compile_log.install()
    inline_copies.install()
    flag_compare.install()
    if not isinstance(FunctionIdentity._unique_ids, RandomIds):
        # numba declares it an itertools.count; it only ever calls next() on it.
        setattr(FunctionIdentity, "_unique_ids", RandomIds())  # noqa: B010
