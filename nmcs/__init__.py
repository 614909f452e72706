"""nmcs: Nested Monte-Carlo Search and its relatives, with numba game kernels.

Importing the package points numba's on-disk cache at a folder named after a hash of the
source files that hold jitted code (``games``, ``search``, ``engines``). Numba checks only the
timestamp of the file that holds a cached entry point, not of the search and game modules
compiled into it, so an edit to those would otherwise run stale machine code. Set
NUMBA_CACHE_DIR yourself to take over.
"""

import hashlib
import os
import sys
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _source_hash():
    # Only the packages that hold jitted code (and their subpackages, e.g. games/twoplayer)
    # can make a cached entry point stale.
    digest = hashlib.sha1()
    subs = ("games", "search", "engines")
    paths = [p for sub in subs for p in (_PACKAGE_DIR / sub).rglob("*.py")]
    for path in sorted(paths):
        digest.update(str(path.relative_to(_PACKAGE_DIR)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


if "NUMBA_CACHE_DIR" not in os.environ:
    _cache_root = Path(os.environ.get("NMCS_CACHE_ROOT", _PACKAGE_DIR.parent / ".numba_cache"))
    os.environ["NUMBA_CACHE_DIR"] = str(_cache_root / _source_hash())
    if "numba" in sys.modules:
        # numba reads its environment once, at import; a script that imported it first must
        # not cache our functions next to their sources (where staleness goes unnoticed).
        sys.modules["numba"].core.config.reload_config()

__version__ = "0.1.0"
