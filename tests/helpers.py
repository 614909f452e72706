"""Helpers shared by the tests: driving the command line (run.py, python -m analysis), exact
distributions that several tests check searches against, and a stand-in for the analyses'
Context."""

import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def run_script(script: Path, name: str) -> subprocess.CompletedProcess:
    """Run ``script`` as ``python script`` from the repository, as a reader of the docs would;
    skip the test (naming it) if it imports a package this machine does not have, such as
    dask-jobqueue for Slurm; fail with its stderr if it fails otherwise."""
    import re

    import pytest

    done = subprocess.run(
        [sys.executable, str(script)], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", done.stderr)
    if done.returncode != 0 and missing and not missing.group(1).startswith("nmcs"):
        pytest.skip(f"{name} needs {missing.group(1)}, not installed here")
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def run_python(*args, check=True, env=None, timeout=900):
    """``python *args`` in the repository; raise with its stderr tail if ``check`` and it fails."""
    proc = subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"{args} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def _called_in_process(command: list[str], call, check: bool) -> subprocess.CompletedProcess:
    """``call()`` (a command's main) with what it prints captured and its exit status (its
    return value, or a ``SystemExit``'s code) in a ``CompletedProcess`` named ``command``;
    raise with its stderr tail if ``check`` and the status is not 0."""
    import contextlib
    import io

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            code = call()
        except SystemExit as stop:  # argparse's errors, run.py's refusals and interruptions
            code = stop.code
    proc = subprocess.CompletedProcess(command, code or 0, stdout.getvalue(), stderr.getvalue())
    if check and proc.returncode != 0:
        raise AssertionError(f"{command} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc


def terminal_lines(err: str) -> list[str]:
    """What a command said on stderr, less the compiler's progress note that a first run on an
    empty cache prints (``compiling ... (first run only; cached afterwards) ...`` and
    ``... done in 2.4 s``), so that a test's "one line" holds whatever ran before it."""
    return [
        line
        for line in err.strip().splitlines()
        if not (line.startswith("compiling ") and "(first run only;" in line)
        and not line.startswith("... done in ")
    ]


def start_run_py(out: Path, *argv: str) -> subprocess.Popen:
    """``python run.py`` of a slow cell (level-3 searches, chunks of 0.05 s, one worker) into
    ``out``, started in a process of its own for a test to signal or race; ``argv`` adds keys
    (``n_searches=...``). Its stdout and stderr are pipes (text)."""
    import signal

    return subprocess.Popen(
        [
            sys.executable,
            "run.py",
            "level=3",
            "chunk_seconds=0.05",
            "progress=false",
            "workers=1",
            f"hydra.run.dir={out}",
            *argv,
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A child inherits an ignored SIGINT, and a test suite started in the background of a
        # non-interactive shell (`make test &`) ignores it: give run.py the terminal's default.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


_RUN_PY = None


def run_cli(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python run.py *argv`` called in this process: run.py's ``command`` (the pre-flight check,
    then Hydra's run or sweep) with ``sys.argv`` set and what it prints captured, its exit status
    in a ``CompletedProcess``. A process per command spent about 1.3 s starting (Python, Hydra,
    numba, the cached entry points loaded again), for a cached cell that runs in 0.3 s; the tests
    that need a process of their own (killed, interrupted, Dask, another environment) and one
    cell of ``test_harness.py`` still run ``run.py`` with ``run_python``. Ctrl-C's handler is
    not installed (``run.py``'s ``__main__`` does that)."""
    import contextlib
    import importlib.util

    global _RUN_PY
    if _RUN_PY is None:
        spec = importlib.util.spec_from_file_location("run", REPO / "run.py")
        _RUN_PY = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_RUN_PY)
    saved_argv = sys.argv
    sys.argv = [str(REPO / "run.py"), *argv]
    try:
        with contextlib.chdir(REPO):
            return _called_in_process(["run.py", *argv], _RUN_PY.command, check)
    finally:
        sys.argv = saved_argv


def run_analysis(module: str, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python -m <module> *argv`` (``analysis`` or ``analysis.publish``) called in this process:
    its ``main``, with what it prints captured. A process per call spent about 2.5 s importing
    pandas, scipy and matplotlib (a dozen calls in the suite); ``python -m analysis`` itself is run
    as a process by ``test_analysis_without_results_says_so``."""
    import importlib

    main = importlib.import_module("analysis.__main__" if module == "analysis" else module).main
    return _called_in_process(["-m", module, *argv], lambda: main(list(argv)), check)


def preflight_error(*argv: str) -> list[str]:
    """The stderr lines of ``python run.py *argv`` for a command that its pre-flight check
    refuses (status 2), from that check called in this process: ``run.py`` runs it before
    anything else, and a process per refused command cost a second of start-up each (about 40
    of them). Each test file that uses it also runs one refused command through ``run.py``."""
    import contextlib
    import io

    from nmcs.harness.cli import preflight

    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            preflight(list(argv))
        except SystemExit as stop:
            assert stop.code == 2, f"{argv}: exit status {stop.code}:\n{stderr.getvalue()}"
        else:
            raise AssertionError(f"{argv}: the pre-flight check accepted it")
    return stderr.getvalue().strip().splitlines()


def run_quick_experiments(outputs, experiments):
    """Each experiment at quick scale into ``outputs/quick/<experiment>``, then the analysis."""
    for experiment in experiments:
        run_cli(
            "-m",
            f"experiment={experiment}",
            "scale=quick",
            "progress=false",
            f"hydra.sweep.dir={outputs / 'quick'}",
        )
    run_analysis("analysis", "--outputs", str(outputs))
    return outputs


def exact_best_of(depth: int, n: int) -> list[Fraction]:
    """P(best of n uniform playouts = k) on the depth-``depth`` left move: F(k)^n - F(k-1)^n,
    F the Binomial(depth, 1/2) distribution, in fractions."""
    cdf = np.cumsum([Fraction(math.comb(depth, k), 2**depth) for k in range(depth + 1)])
    return [cdf[k] ** n - (cdf[k - 1] ** n if k else 0) for k in range(depth + 1)]


class FrameContext:
    """What the analyses read of a Context: hand-made results by experiment (a frame for every
    experiment, or a dict of them), figures and tables written under ``folder``."""

    def __init__(self, frames, folder, scale="paper"):
        self.frames, self.scale = frames, scale
        self.figures, self.tables = folder / "figures", folder / "tables"
        # Where cells' meta.json files are read (none unless a test writes them).
        self.results_dir = folder / "results"

    def results(self, experiment, columns=None, counted=False):
        import pandas as pd  # noqa: PLC0415 - only the analysis tests need it

        if isinstance(self.frames, pd.DataFrame):
            df = self.frames
        else:
            df = self.frames.get(experiment, pd.DataFrame())
        if counted and not df.empty and "count" not in df.columns:
            df = df.assign(count=1)  # a row per search, as Context.results(counted=True) gives
        return df
