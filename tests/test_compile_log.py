"""NMCS_COMPILE_LOG (nmcs/core/compile_log.py): one line per outermost numba compilation, in
every process that imports the engine; benchmarks/test_time.py sums such a log."""

import importlib.util
import os
import subprocess
import sys

import pytest

from tests.helpers import REPO

pytestmark = pytest.mark.unit

# An outer function that compiles an inner one: one line, the outer's, with both CPU times.
COMPILE = (
    "import nmcs.search\n"
    "from numba import njit\n"
    "@njit\n"
    "def inner(x):\n"
    "    return x + 1\n"
    "@njit\n"
    "def outer(x):\n"
    "    return inner(x) * 2\n"
    "assert outer(1) == 4\n"
)


def test_each_outermost_compilation_is_one_line_naming_the_function_and_the_test(tmp_path):
    log = tmp_path / "compile.log"
    env = {**os.environ, "NMCS_COMPILE_LOG": str(log)}
    subprocess.run([sys.executable, "-c", COMPILE], env=env, check=True, cwd=REPO)
    lines = [line.split("\t") for line in log.read_text().splitlines()]
    assert len(lines) == 1, lines
    pid, start, cpu, function, test = lines[0]
    assert int(pid) > 0 and float(start) > 0 and float(cpu) > 0
    assert function == "__main__.outer"
    assert test == os.environ["PYTEST_CURRENT_TEST"].split(" ")[0]


def test_without_the_variable_no_listener_is_installed():
    env = {k: v for k, v in os.environ.items() if k != "NMCS_COMPILE_LOG"}
    check = COMPILE + "from nmcs.core import compile_log\nprint(len(compile_log._INSTALLED))\n"
    done = subprocess.run(
        [sys.executable, "-c", check], env=env, check=True, cwd=REPO, capture_output=True, text=True
    )
    assert done.stdout.split() == ["0"]


def test_the_summary_adds_cpu_per_file_and_counts_repeated_functions(tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("test_time", REPO / "benchmarks" / "test_time.py")
    test_time = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(test_time)
    log = tmp_path / "compile.log"
    log.write_text(
        "1\t0.0\t4.00\tentry_a.run_block\ttests/test_a.py::test_x\n"
        "2\t0.5\t3.00\tentry_a.run_block\ttests/test_b.py::test_y\n"
        "2\t9.0\t1.50\tentry_b.run_block\ttests/test_b.py::test_z\n"
    )
    test_time.summarize(log)
    out = capsys.readouterr().out
    assert "compiling: 8 CPU s in 3 compilations" in out
    assert "4.5  tests/test_b.py" in out and "4.0  tests/test_a.py" in out
    assert "compiled more than once: 1 functions, 3 CPU s beyond the first" in out
    assert "x2  entry_a.run_block" in out
