"""Every script of ``examples/`` runs as written: they are the code of the documentation's
how-to guides (included in the pages from these files, so a guide cannot drift from what runs
here). A script that imports a package this machine does not have (dask-jobqueue for Slurm)
is skipped, naming it."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "examples").glob("*.py"))


def test_every_example_is_in_a_page():
    pages = "".join(p.read_text() for p in (ROOT / "docs").rglob("*.md"))
    for script in SCRIPTS:
        assert f'--8<-- "examples/{script.name}"' in pages, f"{script.name} is in no page"


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_example_runs(script):
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", done.stderr)
    if done.returncode != 0 and missing and not missing.group(1).startswith("nmcs"):
        pytest.skip(f"{script.name} needs {missing.group(1)}, not installed here")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), f"{script.name} printed nothing"
