"""Hydra's composition with the memos of ``nmcs.harness.compose_cache`` is the composition
without them: the project's configs, a config folder whose files change, a schema stored
again, an interpolated default, cells that differ in values only, groups added, deleted or
unknown, a search path too large to read, and a broken YAML file's error."""

from collections import OrderedDict

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from omegaconf import OmegaConf

from nmcs.harness import compose_cache
from nmcs.harness.cli import CONFIG_DIR, register

pytestmark = pytest.mark.unit

# Games and algorithms of each kind, a two-player match, experiments with sweeps of their own,
# command-line values over defaults, and Hydra's multirun mode.
COMMANDS = [
    [],
    ["game=samegame", "algo=beam", "algo.beam=[4,1]", "level=2"],
    ["game=morpion", "algo=nrpa", "hydra.mode=MULTIRUN"],
    ["game=sudoku", "algo=fc", "seed=7"],
    ["game=leftmost", "algo=reflexive"],
    ["experiment=twoplayer_paper_time", "scale=quick", "game=breakthrough", "level=1"],
    ["experiment=mcbs_table1", "scale=quick", "hydra.mode=MULTIRUN"],
    ["experiment=leftmove_distributions", "scale=paper", "level=3"],
]


def composed(config_dir, overrides, enabled, monkeypatch):
    monkeypatch.setattr(compose_cache, "ENABLED", enabled)
    with initialize_config_dir(str(config_dir), job_name="run", version_base="1.3"):
        cfg = compose("config", overrides=overrides, return_hydra_config=True)
    return OmegaConf.to_yaml(cfg), OmegaConf.is_struct(cfg), OmegaConf.is_readonly(cfg)


@pytest.mark.parametrize("overrides", COMMANDS, ids=lambda o: " ".join(o) or "defaults")
def test_the_project_configs_compose_the_same_with_the_memos(overrides, monkeypatch):
    register()
    without = composed(CONFIG_DIR, overrides, False, monkeypatch)
    assert composed(CONFIG_DIR, overrides, True, monkeypatch) == without  # filled
    assert composed(CONFIG_DIR, overrides, True, monkeypatch) == without  # read back


def test_a_value_set_on_one_composition_stays_out_of_the_next(monkeypatch):
    register()
    without = composed(CONFIG_DIR, ["game=samegame"], False, monkeypatch)
    for overrides in (["game=samegame"], ["game=samegame", "seed=5", "game.width=3"]):
        composed(CONFIG_DIR, overrides, True, monkeypatch)  # filled, then read back and changed
    assert composed(CONFIG_DIR, ["game=samegame"], True, monkeypatch) == without


def test_a_changed_added_or_stored_config_is_read_again(tmp_path, monkeypatch):
    register()
    (tmp_path / "thing").mkdir()
    (tmp_path / "config.yaml").write_text("defaults:\n  - thing: a\n  - _self_\nname: top\n")
    (tmp_path / "thing" / "a.yaml").write_text("x: 1\n")

    def x(*overrides):
        text, _, _ = composed(tmp_path, list(overrides), True, monkeypatch)
        return OmegaConf.create(text).thing.x

    assert x() == 1
    (tmp_path / "thing" / "a.yaml").write_text("x: 2\n")  # the same size: content, not stat
    assert x() == 2
    (tmp_path / "thing" / "b.yaml").write_text("x: 3\n")
    assert x("thing=b") == 3
    ConfigStore.instance().store(group="thing", name="c", node={"x": 4})
    assert x("thing=c") == 4
    ConfigStore.instance().store(group="thing", name="c", node={"x": 5})
    assert x("thing=c") == 5


def test_a_broken_yaml_file_is_named_in_the_error(tmp_path, monkeypatch):
    register()
    (tmp_path / "config.yaml").write_text("a: [1\n")
    with pytest.raises(Exception, match="config.yaml"):
        composed(tmp_path, [], True, monkeypatch)


def test_an_interpolated_default_still_resolves(tmp_path, monkeypatch):
    register()
    for group, name, text in (("thing", "a", "x: 1\n"), ("other", "a", "y: 10\n")):
        (tmp_path / group).mkdir(exist_ok=True)
        (tmp_path / group / f"{name}.yaml").write_text(text)
    (tmp_path / "config.yaml").write_text(
        "defaults:\n  - thing: a\n  - other: ${thing}\n  - _self_\n"
    )
    without = composed(tmp_path, [], False, monkeypatch)
    assert composed(tmp_path, [], True, monkeypatch) == without
    assert OmegaConf.create(without[0]).other.y == 10


def test_a_search_path_too_large_to_read_is_composed_without_the_memos(tmp_path, monkeypatch):
    register()
    (tmp_path / "thing").mkdir()
    (tmp_path / "config.yaml").write_text("defaults:\n  - thing: a\n  - _self_\n")
    (tmp_path / "thing" / "a.yaml").write_text("x: 1\n")
    (tmp_path / "thing" / "b.yaml").write_text("x: 2\n")
    monkeypatch.setattr(compose_cache, "MAX_FILES", 2)  # three files here
    kept = len(compose_cache._MERGED), len(compose_cache._TREES)
    without = composed(tmp_path, [], False, monkeypatch)
    assert composed(tmp_path, [], True, monkeypatch) == without
    assert (len(compose_cache._MERGED), len(compose_cache._TREES)) == kept


def test_cells_that_differ_in_values_only_share_a_defaults_list_and_keep_their_values(
    monkeypatch,
):
    """The defaults-list memo is keyed on the overrides that choose configs; a cell's values
    (and Hydra's own, here the run folder) are its own, also when it reads another's list."""
    register()
    cells = [
        ["game=samegame", "algo=beam", "seed=1"],
        ["game=samegame", "algo=beam", "game.width=3", "seed=2", "hydra.run.dir=elsewhere"],
        ["game=morpion", "algo=beam", "seed=2"],  # another choice: another list
        ["algo=beam", "game=samegame", "seed=3", "+hydra.job.env_set.X=1"],
    ]
    without = [composed(CONFIG_DIR, cell, False, monkeypatch) for cell in cells]
    monkeypatch.setattr(compose_cache, "_TREES", OrderedDict())
    kept = []
    for cell, expected in zip(cells, without, strict=True):
        assert composed(CONFIG_DIR, cell, True, monkeypatch) == expected
        kept.append(len(compose_cache._TREES))
    assert kept == [1, 1, 2, 3]  # the second cell read the first one's list
    values = OmegaConf.create(without[1][0])
    assert (values.seed, values.game.width, values.game.name) == (2, 3, "samegame")


def test_added_deleted_and_unknown_groups_compose_as_without_the_memo(tmp_path, monkeypatch):
    register()
    for group, name, text in (("thing", "a", "x: 1\n"), ("thing", "b", "x: 2\n")):
        (tmp_path / group).mkdir(exist_ok=True)
        (tmp_path / group / f"{name}.yaml").write_text(text)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.yaml").write_text("y: 10\n")
    (tmp_path / "config.yaml").write_text("defaults:\n  - thing: a\n  - _self_\nz: 0\n")
    for overrides in (
        ["z=1"],
        ["thing=b", "z=2"],
        ["+other=a", "z=3"],
        ["~thing", "z=4"],
        ["~thing", "+other=a"],
        ["thing={x:9}", "z=6"],  # a group's name with a dict: a value, merged into its node
    ):
        without = composed(tmp_path, overrides, False, monkeypatch)
        for _ in range(2):  # filled, then read back
            assert composed(tmp_path, overrides, True, monkeypatch) == without, overrides
    for _ in range(2):  # an override of a group the defaults do not hold: refused each time
        with pytest.raises(Exception, match="Could not override 'other'"):
            composed(tmp_path, ["other=a", "z=5"], True, monkeypatch)
