"""Compile only what runs: the cached entry point of one (game, algorithm, levels) triple.

Numba caches a function on disk only if it is defined at module level, and it checks only the
timestamp of that function's own file, not of the game and search modules compiled into it.
So for each pair that runs, ``entry_point(...)`` writes a small module into the cache folder
(``$NUMBA_CACHE_DIR/entries/nmcs_entry_<game>__<builder>__L<levels>.py``, its text filled in
by ``nmcs.core.generated.search_entry_source``) that builds the algorithm's search on the
game's kernels (``nmcs.search.engine.build_search``) for levels 0 to ``levels`` and runs a
block of searches in a module-level ``@njit(cache=True, nogil=True)`` function, imports it and
returns that function (``nmcs.search.engine.run_searches`` runs one block per thread). A pair
never run is never compiled, nor are the levels above a run's where each level is a function
of its own (nested search: ``engine.compiled_levels``, 0, 1, 2, 3 or 6; beam search: 0, 1, or
every level from 2 up); a triple run before loads from the cache in a new process. An entry
point is keyed on the algorithm's builder, not its name: two algorithms built by one function
(``nrpa`` and ``gnrpa``, ``beam`` and ``iterative_beam``) share their compiled code. Threads
started from Python rather than numba's ``parallel=True`` loop: the parallel loop cost 3 s of
compilation per entry point for the same speed.

Staleness: ``nmcs/__init__.py`` names the cache folder after a hash of the package's jitted
sources, and the generated module holds a hash of the two files it binds (the game's kernel
module and the algorithm's module), so an edit to either, even outside the package (an
algorithm registered from ``NMCS_PLUGINS``), rewrites the module and numba recompiles it. The
module is rewritten only when its text changes (a rewrite with the same text would change its
timestamp and throw the cache away).

Saying so: ``compile_entry`` makes the first call of a block of searches (over no search, before
any runs) and prints ``compiling <game> x <algo>, level <levels> (first run only; cached
afterwards) ...`` (``levels 4-6`` for the entry of levels 4 to 6; no level for an algorithm
whose one entry point serves every level, ``Algorithm.per_level``) and ``... done in 9.8 s``
on stderr when numba compiles the entry point, and nothing when it loads it from the cache:
numba fires its ``numba:compile`` event only for a real compilation, after its cache lookup
failed.

Two processes at once: ``compile_entry`` holds a lock on the generated module
(``nmcs.core.generated.compile_lock``) while it compiles or loads an entry point it has not
loaded yet, so processes that start the same pair together (the runs of a sweep on one
machine, test workers, Dask workers) compile it once: the others wait and load it from the
cache, instead of each compiling the pair for seconds of CPU.
"""

from __future__ import annotations

import hashlib
import inspect
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path
from types import ModuleType
from typing import Any

from numba.core import event

from nmcs.core.generated import compile_lock, load_generated, search_entry_source

_LOADED: dict[str, Callable] = {}


def _digest(*objects: Any) -> str:
    digest = hashlib.sha1()
    for obj in objects:
        digest.update(Path(inspect.getfile(obj)).read_bytes())
    return digest.hexdigest()[:16]


def entry_point(game_name: str, kernels: ModuleType, build: Callable, levels: int) -> Callable:
    """The cached ``run_block(state0, seeds, params, out, lo, hi)`` of ``build`` (a
    module-level function, the algorithm's registry ``build``) on ``kernels``, compiled for
    levels 0 to ``levels``."""
    if "." in build.__qualname__ or "<" in build.__qualname__:
        raise ValueError(f"{build.__qualname__}: an algorithm's build must be module-level")
    # What the generated module binds, and nothing else (its module too: two plugins may
    # both name their builder ``build``).
    builder = f"{build.__module__.replace('.', '_')}__{build.__qualname__}"
    key = f"nmcs_entry_{game_name}__{builder}__L{levels}"
    if key in _LOADED:
        return _LOADED[key]
    text = search_entry_source(
        kernels.__name__, build.__module__, build.__qualname__, levels, _digest(kernels, build)
    )
    module = load_generated("entries", key, text)
    _LOADED[key] = module.run_block
    return module.run_block


class _CompileNotice(event.Listener):
    """Says on stderr when numba starts compiling ``dispatcher`` (not when it loads it from the
    cache: numba fires its ``numba:compile`` event only for a real compilation)."""

    def __init__(self, dispatcher: Any, label: str) -> None:
        self.dispatcher = dispatcher
        self.label = label
        self.t0: float | None = None

    def on_start(self, ev: event.Event) -> None:
        if ev.data["dispatcher"] is self.dispatcher and self.t0 is None:
            self.t0 = time.perf_counter()
            print(
                f"compiling {self.label} (first run only; cached afterwards) ...",
                file=sys.stderr,
                flush=True,
            )

    def on_end(self, ev: event.Event) -> None:
        pass  # said by compile_entry once the call returns (numba raises a failure after this)


def compile_entry(run_block: Callable, label: str, state0, seeds, params, out) -> None:
    """Compile ``run_block`` for these arguments' types, or load it from the cache, before any
    search runs (a call over no search), saying so on stderr when it compiles::

        compiling samegame x nested, level 1 (first run only; cached afterwards) ...
        ... done in 9.8 s

    Nothing is printed when the entry point is already loaded or comes from the cache, nor
    after a compilation that fails (the caller says why, ``nmcs.core.errors.compile_error``)."""
    notice = _CompileNotice(run_block, label)
    # Locked only while nothing is loaded: a process that has the entry point waits for no one.
    module = None
    if not getattr(run_block, "signatures", True):
        module = sys.modules.get(getattr(getattr(run_block, "py_func", None), "__module__", ""))
    with (
        compile_lock(module) if module else nullcontext(),
        event.install_listener("numba:compile", notice),
    ):
        run_block(state0, seeds, params, out, 0, 0)
    if notice.t0 is not None:
        print(f"... done in {time.perf_counter() - notice.t0:.1f} s", file=sys.stderr, flush=True)
