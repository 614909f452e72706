"""Generated modules in the numba cache folder, shared by the search entry points
(``nmcs.search.entry``) and the two-player protocol and players.

Numba caches a function on disk only if it is defined at module level, and checks only the
timestamp of that function's own file, not of the functions compiled into it. Code that binds
modules chosen at run time (a set of games, a game and an algorithm) therefore lives in a small
module generated into ``$NUMBA_CACHE_DIR/<folder>/``, named after a hash of what it binds, and
rewritten only when its text changes (a rewrite with the same text would change its timestamp
and throw the cache away).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
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
