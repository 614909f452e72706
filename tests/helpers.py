"""Helpers shared by the tests that drive the command line (run.py, python -m analysis)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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


def run_quick_experiments(outputs, experiments):
    """Each experiment at quick scale into ``outputs/quick/<experiment>``, then the analysis."""
    for experiment in experiments:
        run_python(
            "run.py",
            "-m",
            f"experiment={experiment}",
            "scale=quick",
            "progress=false",
            f"hydra.sweep.dir={outputs / 'quick'}",
        )
    run_python("-m", "analysis", "--outputs", str(outputs))
    return outputs
