"""Every fenced Python block of README.md runs as written, as a script (so a Dask block needs
its ``if __name__ == "__main__":`` guard), each at the small scale the README gives it. A block
that imports a package this machine does not have (dask-jobqueue for SLURM) is skipped, naming
it."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.experiment

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path):
    script = tmp_path / f"readme_block_{index}.py"
    script.write_text(BLOCKS[index])
    done = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    missing = re.search(r"ModuleNotFoundError: No module named '([\w.]+)'", done.stderr)
    if done.returncode != 0 and missing and not missing.group(1).startswith("nmcs"):
        pytest.skip(f"README block {index} needs {missing.group(1)}, not installed here")
    assert done.returncode == 0, done.stderr[-2000:]
