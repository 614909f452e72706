"""Every module generated into the numba cache folder: the texts, the functions that fill
them in, and the loader.

Numba caches a function on disk only if it is defined at module level, and checks only the
timestamp of that function's own file, not of the functions compiled into it. Code that binds
modules chosen at run time (a set of games, a game and an algorithm) therefore lives in a small
module generated into ``$NUMBA_CACHE_DIR/<folder>/``, named after a hash of what it binds, and
rewritten only when its text changes (a rewrite with the same text would change its timestamp
and throw the cache away).

Three kinds of generated module, each filled in by one function here and loaded by one
caller:

- ``search_entry_source``: the entry point of one (game, algorithm, levels) triple of the
  single-player searches (``nmcs.search.entry.entry_point``,
  ``entries/nmcs_entry_<game>__<builder>__L<levels>.py``);
- ``twoplayer_protocol_source``: the jitted protocol of the registered two-player games, a
  dispatch on the state's game id (``nmcs.games.twoplayer.protocol.kernels``,
  ``twoplayer/nmcs_twoplayer_games_<hash>.py``);
- ``twoplayer_players_source``: the two-player players' entry points over that protocol
  (``nmcs.search.twoplayer.players.compiled``, ``twoplayer/nmcs_twoplayer_players_<hash>.py``).

The texts name modules of the games and the search, but only as text: this module imports
none of them (the core imports nothing above it).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType


def cache_folder(folder: str) -> Path:
    """``$NUMBA_CACHE_DIR/<folder>`` (created)."""
    root = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(tempfile.gettempdir(), "nmcs_cache")
    path = Path(root) / folder
    path.mkdir(parents=True, exist_ok=True)
    return path


def source_digest(*parts: str | ModuleType) -> str:
    """A hash of strings and of modules' names and source files."""
    digest = hashlib.sha1()
    for part in parts:
        if isinstance(part, ModuleType):
            digest.update(part.__name__.encode())
            file = getattr(part, "__file__", None)
            if file:
                digest.update(Path(file).read_bytes())
        else:
            digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def load_generated(folder: str, name: str, text: str) -> ModuleType:
    """Write ``text`` to ``$NUMBA_CACHE_DIR/<folder>/<name>.py`` unless it holds it already,
    and import it as module ``name`` (once per process)."""
    if name in sys.modules:
        return sys.modules[name]
    path = cache_folder(folder) / f"{name}.py"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)  # atomic: a parallel process never imports half a file
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


@contextlib.contextmanager
def compile_lock(module: ModuleType, wait_seconds: float = 600.0) -> Iterator[None]:
    """Hold ``<module file>.lock`` (an advisory ``flock``) while numba compiles a generated
    module's function or loads it from the cache: a second process that wants the same entry
    point at the same time (another run on the machine, a test worker, a Dask worker) waits
    for the first and loads what it compiled, instead of compiling it a second time. A lock
    not granted within ``wait_seconds`` (a process stopped while it compiles), a folder that
    cannot hold the lock file and a file system without locks are gone without: the compile
    goes on unlocked, as numba's own cache allows."""
    try:
        import fcntl  # noqa: PLC0415 - POSIX only; elsewhere compiles are not serialized
    except ImportError:
        yield
        return
    file = getattr(module, "__file__", None)
    try:
        handle = open(f"{file}.lock", "a") if file else None  # noqa: SIM115 - closed below
    except OSError:
        handle = None  # a cache folder that cannot take the lock file: no lock
    if handle is None:
        yield
        return
    locked = False
    try:
        deadline = time.monotonic() + wait_seconds
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
                break
            except BlockingIOError:  # held by another process
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            except OSError:  # a file system without locks (some network mounts): no lock
                break
        yield
    finally:
        if locked:
            fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()


# ---------------------------------------------------------------- single-player search entries

SEARCH_ENTRY = '''"""Generated by nmcs.core.generated for nmcs.search.entry: the compiled
entry point of {kernels} x {builder}, levels 0 to {levels}.
Do not edit; it is rewritten when its sources change and deleted with the cache."""
# sources: {digest}
import numpy as np
from numba import njit

from {builder_module} import {builder_name} as build
from nmcs.search.anytime import PLAYOUT_MOVES, PLAYOUTS
from nmcs.core.clock import now, thread_cpu
from nmcs.search.engine import build_search
import {kernels} as game

new_workspace, run, score = build_search(game, build, {levels})


@njit(cache=True, nogil=True)
def run_block(state0, seeds, params, out, lo, hi):
    stats = np.zeros(2, np.int64)
    ws = new_workspace(state0, params, stats)
    state = np.empty_like(state0)
    rng = np.empty(1, np.uint64)
    c0 = thread_cpu()
    for i in range(lo, hi):
        stats[PLAYOUTS] = 0
        stats[PLAYOUT_MOVES] = 0
        rng[0] = seeds[i]
        t0 = now()
        for j in range(state0.shape[0]):
            state[j] = state0[j]
        length, n_trace = run(state, params, rng, ws, out.moves[i], out.trace[i])
        out.seconds[i] = now() - t0
        out.n_trace[i] = n_trace
        out.score[i] = score(state)
        out.length[i] = length
        out.playouts[i] = stats[PLAYOUTS]
        out.playout_moves[i] = stats[PLAYOUT_MOVES]
        # The thread's CPU time over search i's turn of the loop, read once per search (a
        # system call): from the end of search i - 1's turn to the end of its own. It holds
        # that read too (about 0.5 us): more than the wall time of a sub-microsecond search.
        c1 = thread_cpu()
        out.cpu_seconds[i] = c1 - c0
        c0 = c1
'''


def search_entry_source(
    kernels: str, builder_module: str, builder_name: str, levels: int, digest: str
) -> str:
    """The entry point of the search that ``builder_module.builder_name`` builds on the game
    kernels module ``kernels``, for levels 0 to ``levels``: one module-level
    ``@njit(cache=True, nogil=True)`` ``run_block(state0, seeds, params, out, lo, hi)`` that runs
    searches ``lo`` to ``hi`` (``nmcs.search.engine.run_searches``), search ``i`` seeding its
    own generator, playing on a copy of ``state0`` and writing row ``i`` of ``out``: its wall
    time around the search (``now``), and the CPU time of the thread over its whole turn of
    the loop (``thread_cpu``, read once per search: the block's turns add up to its CPU time).
    ``digest``: the hash of the files it binds."""
    return SEARCH_ENTRY.format(
        kernels=kernels,
        builder=f"{builder_module}.{builder_name}",
        builder_module=builder_module,
        builder_name=builder_name,
        digest=digest,
        levels=int(levels),
    )


# ---------------------------------------------------------------- two-player protocol

TWOPLAYER_PROTOCOL = '''"""Generated by nmcs.core.generated for nmcs.games.twoplayer.protocol:
the jitted protocol of the two-player games {names}, dispatching on the state's GAME slot.
Do not edit; a new set of games (or an edited game) gets another file."""
# sources: {digest}
import numpy as np
from numba import njit

from nmcs.core.rng import below
from nmcs.games.twoplayer.layout import GAME, ONGOING, WINNER
{imports}


@njit(cache=True)
def legal_moves(state, out):
    if state[WINNER] != ONGOING:
        return 0
    g = state[GAME]
{legal_moves}


@njit(cache=True)
def random_move(state, rng, buf):
    """A uniformly random legal move (the game is not over); ``buf`` holds max_branching
    moves. A game's own ``random_move`` if it has one (the pawn and Go-like games draw by
    rejection instead of generating every legal move), as an int32 like the moves of the
    move lists: one type of move, so ``play`` compiles once."""
    g = state[GAME]
{random_move}


@njit(cache=True)
def play(state, move):
    g = state[GAME]
{play}


@njit(cache=True)
def max_moves(state):
    """Upper bound on the moves left from ``state`` (the game's own)."""
    g = state[GAME]
{max_moves}
'''


def _chain(
    modules: Sequence[ModuleType], call: Callable[[int, ModuleType], str], statement: bool = False
) -> str:
    """The if-chain over the game ids, ``call(i, module)`` the body of game i's branch (the
    last game's is the fall-through)."""
    lines = []
    for i, module in enumerate(modules):
        body = call(i, module).splitlines()
        if i < len(modules) - 1:
            keyword = "if" if i == 0 or not statement else "elif"
            lines.append(f"    {keyword} g == {i}:")
            lines += [f"        {b}" for b in body]
        else:
            if statement and len(modules) > 1:
                lines.append("    else:")
                lines += [f"        {b}" for b in body]
            else:
                lines += [f"    {b}" for b in body]
    return "\n".join(lines)


def _random_branch(i: int, module: ModuleType) -> str:
    if hasattr(module, "random_move"):
        return f"return np.int32(g{i}.random_move(state, rng, buf))"
    return f"n = g{i}.legal_moves(state, buf)\nreturn buf[below(rng, n)]"


def twoplayer_protocol_source(games: Mapping[str, ModuleType], digest: str) -> str:
    """The jitted protocol (``legal_moves``, ``random_move``, ``play``, ``max_moves``) over
    the two-player game modules ``games`` (name -> module, in id order: game ``i`` is the
    state's GAME ``i``), each function an if-chain on the game id. ``digest``: the hash of
    the game modules."""
    modules = list(games.values())
    return TWOPLAYER_PROTOCOL.format(
        names=", ".join(games),
        digest=digest,
        imports="\n".join(f"import {m.__name__} as g{i}" for i, m in enumerate(modules)),
        legal_moves=_chain(modules, lambda i, m: f"return g{i}.legal_moves(state, out)"),
        random_move=_chain(modules, _random_branch),
        play=_chain(modules, lambda i, m: f"g{i}.play(state, move)", statement=True),
        max_moves=_chain(modules, lambda i, m: f"return g{i}.max_moves(state)"),
    )


# ---------------------------------------------------------------- two-player players

TWOPLAYER_PLAYERS = '''"""Generated by nmcs.core.generated for nmcs.search.twoplayer.players:
the players' compiled entry points over the two-player games of {kernels}.
Do not edit; another set of games (or an edit) gets another file."""
# sources: {digest}
from numba import njit

import {kernels} as game
from {builder_module} import build

_k = build(game)
{entries}
'''

TWOPLAYER_PLAYERS_ENTRY = """

_{name} = njit(inline="always")(_k["{name}"].py_func)


@njit(cache=True{nogil})
def {name}({args}):
    return _{name}({args})
"""


def twoplayer_players_source(
    kernels: str,
    builder_module: str,
    signatures: Mapping[str, Sequence[str]],
    nogil: Collection[str],
    digest: str,
) -> str:
    """The players' entry points over the protocol module ``kernels``: the kernels that
    ``builder_module.build(game)`` returns (name -> jitted function), each inlined into a
    module-level ``@njit(cache=True)`` function of the same name and arguments
    (``signatures``: name -> argument names, in the order of the module), ``nogil=True`` for
    the names in ``nogil``. ``digest``: the hash of the modules it binds."""
    entries = "".join(
        TWOPLAYER_PLAYERS_ENTRY.format(
            name=name, nogil=", nogil=True" if name in nogil else "", args=", ".join(args)
        )
        for name, args in signatures.items()
    )
    return TWOPLAYER_PLAYERS.format(
        kernels=kernels, builder_module=builder_module, digest=digest, entries=entries
    )
