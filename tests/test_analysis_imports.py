"""Reading results and rebuilding the report import neither numba nor Hydra."""

import pytest
from helpers import run_python

pytestmark = pytest.mark.unit


def test_the_analysis_imports_neither_numba_nor_hydra():
    code = (
        "import sys, analysis.__main__, nmcs.harness.results; "
        "print(sorted(m for m in ('numba', 'hydra', 'omegaconf') if m in sys.modules))"
    )
    assert run_python("-c", code).stdout.strip() == "[]"


def test_the_scales_are_the_config_groups():
    from pathlib import Path

    from nmcs.core.scales import SCALES

    conf = Path(__file__).resolve().parents[1] / "conf" / "scale"
    assert set(SCALES) == {p.stem for p in conf.glob("*.yaml")}


def test_the_morpion_modules_name_every_morpion_experiment():
    from analysis import morpion_common, morpion_nmcs, morpion_reflexive, records
    from analysis.publish import EXPERIMENTS_DIR

    conf = {p.stem for p in EXPERIMENTS_DIR.glob("morpion_*.yaml")}
    # The record hunts (and 5T at level 4) have a module of their own (analysis.records).
    assert set(morpion_common.EXPERIMENTS) | set(records.EXPERIMENTS) == conf
    hunted = {*records.HUNTS.values(), *records.LEVEL4.values()}
    assert hunted | {records.EFFICIENCY} == set(records.EXPERIMENTS)
    nmcs = {*morpion_nmcs.DISTRIBUTIONS, "morpion_fig10"}
    reflexive = {e for _, e, *_ in morpion_reflexive.TABLES}
    reflexive |= {"morpion_reflexive_table4_5", morpion_reflexive.UCT_C}
    assert set(morpion_common.NMCS_EXPERIMENTS) == nmcs
    assert set(morpion_common.REFLEXIVE_EXPERIMENTS) == reflexive


def test_the_samegame_modules_name_every_samegame_experiment():
    from analysis import samegame, samegame_policy, samegame_records
    from analysis.publish import EXPERIMENTS_DIR

    conf = {p.stem for p in EXPERIMENTS_DIR.glob("samegame_*.yaml")}
    named = {*samegame.EXPERIMENTS, samegame_records.EXPERIMENT, *samegame_policy.EXPERIMENTS}
    assert named == conf
