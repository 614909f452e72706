"""Every fenced Python block of README.md runs as written, as a script (so a Dask block needs
its ``if __name__ == "__main__":`` guard), each at the small scale the README gives it. A block
that imports a package this machine does not have is skipped, naming it."""

import re

import pytest
from helpers import REPO, run_script

pytestmark = pytest.mark.experiment

BLOCKS = re.findall(r"```python\n(.*?)```", (REPO / "README.md").read_text(), re.S)


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_block_runs(index, tmp_path):
    script = tmp_path / f"readme_block_{index}.py"
    script.write_text(BLOCKS[index])
    run_script(script, f"README block {index}")
