"""Test tiers and the order in which `make test` hands test files to its workers.

Tiers: every test has one, by marker (``pytest.mark.unit`` ...): a file's ``pytestmark``, or a
test's own marker, which wins over its file's. ``TIERS`` says what each means; ``--tier``
selects tiers (``make test-fast``: ``--tier unit``, every module of the package in about a
minute); without it every test runs.

Order: `make test` runs the files on two workers (pytest-xdist, ``--dist loadfile
--no-loadscope-reorder``), each file on one worker, handed out in collection order as workers
free up. Slowest first keeps the two workers busy to the end, so the files are sorted by how
long their tests took in the last runs (kept in pytest's cache, ``.pytest_cache``, written at
the end of every run: the order keeps itself), a file never timed by its tier's typical time.

The suite writes the bytecode of the modules it imports (``__pycache__``, git-ignored) even
where ``PYTHONDONTWRITEBYTECODE`` is set, as on this project's machines: it starts about 110 Python
processes (Dask workers and the ``run.py`` commands that need a process of their own), and each
compiled the repository's modules from source again, about 0.3 s of a 1.9 s start.
"""

import os
import sys
from collections import defaultdict

import pytest

import nmcs  # noqa: F401 - before any test module imports numba: numba's settings (nmcs/__init__)

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # the processes the tests start
sys.dont_write_bytecode = False  # this one

# Each tier and the seconds a file of it typically takes (the order of a file never timed).
TIERS = {
    "unit": ("rules, records, checks and small searches: the fast tier", 2.0),
    "compile": ("many entry points compiled, or how often (fresh processes, the cache)", 10.0),
    "statistical": ("distributions against exact values or other implementations", 20.0),
    "dask": ("searches on Dask workers", 40.0),
    "experiment": ("run.py and the analysis end to end, quick scale", 60.0),
}
DURATIONS = "nmcs/durations"  # pytest cache key: test id -> seconds, from the last runs


def pytest_addoption(parser):
    parser.addoption(
        "--tier",
        default="",
        help=f"run only these tiers, comma-separated ({', '.join(TIERS)}); default: all",
    )


def pytest_configure(config):
    for tier, (what, _) in TIERS.items():
        config.addinivalue_line("markers", f"{tier}: {what}")
    config.stash[_timed] = {}


_timed = pytest.StashKey[dict]()


def tier(item) -> str:
    """The item's tier: its own marker, else its file's; a test without one is refused."""
    for marker in item.iter_markers():  # closest first: the test's, then its module's
        if marker.name in TIERS:
            return marker.name
    raise pytest.UsageError(f"{item.nodeid}: no tier marker (one of {', '.join(TIERS)})")


def pytest_collection_modifyitems(config, items):
    tiers = {item: tier(item) for item in items}
    wanted = [t.strip() for t in config.getoption("tier").split(",") if t.strip()]
    unknown = sorted(set(wanted) - set(TIERS))
    if unknown:
        raise pytest.UsageError(f"--tier {unknown[0]}: not a tier ({', '.join(TIERS)})")
    if wanted:
        config.hook.pytest_deselected(items=[i for i in items if tiers[i] not in wanted])
        items[:] = [i for i in items if tiers[i] in wanted]
    cache = getattr(config, "cache", None)
    known = cache.get(DURATIONS, {}) if cache is not None else {}
    seconds: dict = defaultdict(float)
    for item in items:
        seconds[item.path.name] += known.get(item.nodeid, TIERS[tiers[item]][1])
    items.sort(key=lambda item: -seconds[item.path.name])  # stable: file order kept


_session: list = []  # this process's session, for the report hook


def pytest_sessionstart(session):
    _session[:] = [session]


def pytest_runtest_logreport(report):
    """Time every test (setup, call and teardown; on the xdist controller too, from the
    workers' reports)."""
    if _session:
        timed = _session[0].config.stash[_timed]
        timed[report.nodeid] = timed.get(report.nodeid, 0.0) + report.duration


def pytest_sessionfinish(session):
    cache = getattr(session.config, "cache", None)
    if hasattr(session.config, "workerinput") or cache is None:
        return  # an xdist worker: the controller saves
    timed = session.config.stash[_timed]
    if timed:
        known = cache.get(DURATIONS, {})
        known.update({k: round(v, 3) for k, v in timed.items()})
        cache.set(DURATIONS, known)
