"""Every script of ``examples/`` runs as written: they are the code of the documentation's
how-to guides (included in the pages from these files, so a guide cannot drift from what runs
here). A script that imports a package this machine does not have (dask-jobqueue for Slurm)
is skipped, naming it."""

import pytest
from helpers import REPO, run_script

pytestmark = pytest.mark.experiment

SCRIPTS = sorted((REPO / "examples").glob("*.py"))


def test_every_example_is_in_a_page():
    pages = "".join(p.read_text() for p in (REPO / "docs").rglob("*.md"))
    for script in SCRIPTS:
        assert f'--8<-- "examples/{script.name}"' in pages, f"{script.name} is in no page"


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.name for s in SCRIPTS])
def test_example_runs(script):
    done = run_script(script, script.name)
    assert done.stdout.strip(), f"{script.name} printed nothing"
