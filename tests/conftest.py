"""The order in which `make test` hands test files to its workers: the slowest first.

`make test` runs the files on two workers (pytest-xdist, ``--dist loadfile
--no-loadscope-reorder``, an option since pytest-xdist 3.8), each file on one worker, handed
out in collection order as workers free up. Longest first keeps the two workers busy to the
end; xdist's own default order (most tests first) left files of one slow end-to-end test, such
as the NRPA experiments (about a minute on a cold cache), for the end while the other worker
idled. The list comes from ``pytest --durations=0`` (a cold run, 2026-11-27, evening); a file
missing from it runs after these, in the usual order, so a stale list costs time, never a test.

The suite writes the bytecode of the modules it imports (``__pycache__``, git-ignored) even
where ``PYTHONDONTWRITEBYTECODE`` is set, as on this project's machines: it starts about 110 Python
processes (Dask workers and the ``run.py`` commands that need a process of their own), and each
compiled the repository's modules from source again, about 0.3 s of a 1.9 s start.
"""

import os
import sys

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the processes the tests start
sys.dont_write_bytecode = False  # this one

SLOWEST_FIRST = (
    "test_beam.py",
    "test_harness.py",
    "test_twoplayer_matches.py",
    "test_nrpa_experiments.py",
    "test_morpion_experiments.py",
    "test_sudoku.py",
    "test_parallel.py",
    "test_golden.py",
    "test_twoplayer_reduced.py",
    "test_conformance.py",
    "test_twoplayer_plugin.py",
    "test_compile_once.py",
    "test_results_integrity.py",
    "test_search_leftmove.py",
    "test_twoplayer_players.py",
    "test_budget_cut.py",
    "test_restore.py",
    "test_layers.py",
    "test_nrpa_parallel.py",
    "test_samegame_table1.py",
    "test_nrpa.py",
    "test_examples.py",
    "test_docs.py",
    "test_readme.py",
    "test_independent_uct.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: file order kept
