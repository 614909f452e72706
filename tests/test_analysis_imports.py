"""Reading results and rebuilding the report import neither numba nor Hydra."""

from helpers import run_python


def test_the_analysis_imports_neither_numba_nor_hydra():
    code = (
        "import sys, analysis.__main__, nmcs.harness.results; "
        "print(sorted(m for m in ('numba', 'hydra', 'omegaconf') if m in sys.modules))"
    )
    assert run_python("-c", code).stdout.strip() == "[]"


def test_the_analysis_knows_every_scale():
    from analysis.__main__ import SCALES
    from nmcs.harness.schema import SCALES as SCHEMA_SCALES

    assert SCALES == SCHEMA_SCALES
