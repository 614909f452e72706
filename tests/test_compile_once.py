"""Each search function compiles once: no argument that starts as a literal and becomes an
int64 later, and no level passed as the literal constant of its level function (numba then
types the call once per literal and compiles the callee, and all it calls, once each: 7 s of a
first beam compile, 5 s of NRPA's; then 2.4 s of a level-2 beam or NRPA search, whose two
levels passed Literal[int](1) and (2)). Run in a fresh process with a fresh cache, since code
loaded from the cache compiles nothing that could be checked."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

pytestmark = pytest.mark.compile

CHECK = r"""
import gc, json, sys
from numba.core import types
from numba.core.registry import CPUDispatcher
from nmcs import make_state, search_batch, search_seeds

for game, algo, level, extra in [
    ("leftmove", "beam", 2, {}),
    ("leftmove", "nrpa", 2, {"iterations": 3}),
    ("leftmove", "uct", 1, {"max_playouts": 50}),
]:
    search_batch(game, make_state(game, depth=6), search_seeds(0, 0, 1), algo=algo,
                 level=level, **extra)

twice = []
for d in gc.get_objects():
    if not isinstance(d, CPUDispatcher) or not d.py_func.__module__.startswith("nmcs.search"):
        continue
    sigs = list(d.signatures)
    for i, a in enumerate(sigs):
        for b in sigs[i + 1:]:
            # Two signatures of one function that differ only in literal values or literalness.
            if all(types.unliteral(x) == types.unliteral(y) for x, y in zip(a, b)):
                twice.append(f"{d.py_func.__qualname__}: {a} and {b}")
print(json.dumps(twice))
"""


def test_search_functions_compile_once_per_argument_type(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["NMCS_CACHE_ROOT"] = str(tmp_path / "cache")
    # What is checked is decided by numba's typing, before LLVM: unoptimised machine code
    # compiles in 4 s less (and is not cacheable, which this fresh cache does not need).
    env["NUMBA_OPT"] = "0"
    proc = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=REPO, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    twice = json.loads(proc.stdout.strip().splitlines()[-1])
    assert twice == [], "compiled once with a literal and once without:\n" + "\n".join(twice)


def test_a_game_may_take_the_playout_record_flag_at_run_time():
    """``RECORD_AT_RUN_TIME``: the searches' calls with record True and False compile the
    game's playout once (a run-time bool); without it, once per literal (two specialisations)."""
    import types

    import numpy as np
    from numba import njit

    from nmcs.search.anytime import playout_caller

    def signatures(at_run_time: bool) -> list:
        @njit
        def playout(state, rng, moves, record):
            if record:
                moves[0] = 1
            return 1

        game = types.SimpleNamespace(playout=playout, RECORD_AT_RUN_TIME=at_run_time)
        run_playout = playout_caller(game)

        @njit
        def search(state, rng, moves):
            return run_playout(state, rng, moves, True) + run_playout(state, rng, moves, False)

        search(np.zeros(1, np.int32), np.zeros(1, np.uint64), np.zeros(1, np.int32))
        return playout.signatures

    assert len(signatures(True)) == 1
    assert len(signatures(False)) == 2
