"""Compiled functions get process-unique names (nmcs/core/jit_names.py): the same function compiled
in two processes has two different symbols, so code cached by different processes never
shares a symbol with another body when one process loads both (numba issue #10486)."""

import subprocess
import sys

import pytest
from numba.core.bytecode import FunctionIdentity

pytestmark = pytest.mark.compile

COMPILE = (
    "import nmcs.search\n"
    "from numba import njit\n"
    "f = njit(lambda x: x + 1)\n"
    "f(1)\n"
    "print(f.overloads[f.signatures[0]].fndesc.mangled_name)\n"
)


def compiled_name() -> str:
    proc = subprocess.run(
        [sys.executable, "-c", COMPILE], capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def test_the_same_function_compiled_in_two_processes_has_two_names():
    first, second = compiled_name(), compiled_name()
    assert first and first != second


def test_ids_are_distinct_within_a_process():
    import nmcs.search  # noqa: F401  (installs the random ids)

    ids = [next(FunctionIdentity._unique_ids) for _ in range(10_000)]
    assert len(set(ids)) == len(ids) and all(0 <= i < 2**62 for i in ids)
