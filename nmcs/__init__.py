"""nmcs: Nested Monte-Carlo Search and its relatives, with numba game kernels.

Importing the package points numba's on-disk cache at a folder named after a hash of the
source files that hold jitted code (``games``, ``search``, subpackages included). Numba checks
only the timestamp of the file that holds a cached entry point, not of the search and game modules
compiled into it, so an edit to those would otherwise run stale machine code. Set
NUMBA_CACHE_DIR yourself to take over.
"""

import hashlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

_PACKAGE_DIR = Path(__file__).resolve().parent


def _source_hash():
    # Only the packages that hold jitted code (and their subpackages, e.g. games/twoplayer)
    # can make a cached entry point stale.
    digest = hashlib.sha1()
    # (core holds the generator, the clock and how compiled functions are named)
    paths = [p for sub in ("core", "games", "search") for p in (_PACKAGE_DIR / sub).rglob("*.py")]
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

# Numba colours its error messages where colorama is installed (the documentation's
# dependencies bring it), and typing builds such a message, colorama set up and torn down,
# for each of the thousands of overloads it tries and rejects while compiling. What we show
# of numba's errors is plain text anyway (``nmcs.core.errors`` strips the colours): plain
# from the start, as without colorama (a first run takes 5-14% less CPU; measured in
# docs/reference/architecture.md).
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

__version__ = "0.1.0"

# The public API. Imported on first use (PEP 562), so that `import nmcs` stays cheap for code
# that only reads results; type checkers see the real imports below.
_EXPORTS = {
    "search_batch": "nmcs.harness.batch",
    "search_seeds": "nmcs.harness.batch",
    "seeds_for": "nmcs.harness.batch",
    "BatchResult": "nmcs.harness.batch",
    "make_state": "nmcs.games",
    "game": "nmcs.games.registry",
    "Game": "nmcs.games.registry",
    "GameKernels": "nmcs.games.protocol",
    "algorithm": "nmcs.search.registry",
    "Algorithm": "nmcs.search.registry",
    "Settings": "nmcs.search.registry",
    "ConfigError": "nmcs.core.errors",
    "run_cell": "nmcs.harness.runner",
    "read_results": "nmcs.harness.results",
    "experiment_results": "nmcs.harness.results",
    "cpu_hours": "nmcs.harness.results",
    "score_distribution": "nmcs.theory.leftmove",
    "best_score_probability": "nmcs.theory.leftmove",
}
__all__ = [
    "Algorithm",
    "BatchResult",
    "ConfigError",
    "Game",
    "GameKernels",
    "Settings",
    "__version__",
    "algorithm",
    "algorithm_names",
    "best_score_probability",
    "cpu_hours",
    "experiment_results",
    "game",
    "game_names",
    "make_state",
    "read_results",
    "run_cell",
    "score_distribution",
    "search_batch",
    "search_seeds",
    "seeds_for",
]

if TYPE_CHECKING:  # pragma: no cover
    from nmcs.core.errors import ConfigError
    from nmcs.games import make_state
    from nmcs.games.protocol import GameKernels
    from nmcs.games.registry import Game, game
    from nmcs.harness.batch import BatchResult, search_batch, search_seeds, seeds_for
    from nmcs.harness.results import cpu_hours, experiment_results, read_results
    from nmcs.harness.runner import run_cell
    from nmcs.search.registry import Algorithm, Settings, algorithm
    from nmcs.theory.leftmove import best_score_probability, score_distribution


def game_names() -> list[str]:
    """The registered games (``game=`` values)."""
    from nmcs.games import registry

    return registry.names()


def algorithm_names() -> list[str]:
    """The registered algorithms (``algo=`` values)."""
    from nmcs.search import registry

    return registry.names()


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        import importlib

        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'nmcs' has no attribute {name!r}")
