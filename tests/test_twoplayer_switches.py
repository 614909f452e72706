"""The two-player investigation's switches as config keys: the defaults keep the identity
(hash) of every match cell written before them; game.size sweeps square boards; bad values
fail in one line."""

import pytest
from hydra import compose, initialize_config_dir

from nmcs.core.errors import ConfigError
from nmcs.games.twoplayer.layout import COLS, ROWS
from nmcs.harness import cli
from nmcs.harness.cell import cell_hash
from nmcs.harness.match_cell import validate_match

pytestmark = pytest.mark.unit

# Hashes of match cells computed before backup, solver and game.size existed (commit f5a84e0).
OLD_HASHES = {
    ("experiment=twoplayer_matches",): "7be8a86e3cfa91fb",
    (
        "experiment=twoplayer_matches",
        "game=domineering",
        "game.rows=5",
        "game.cols=5",
        "budget.playouts=60",
    ): "4d382b2ed1cabe29",
    (
        "experiment=twoplayer_paper_time",
        "player_a=nmc2_pod",
        "budget.ms=320",
        "game=nogo",
    ): "510811bb067c9dd2",
    (
        "experiment=twoplayer_paper_playouts_misere",
        "player_a=nmc1_d_pod",
        "budget.playouts=4000",
        "scale=paper",
    ): "d2bae1354d77d2ec",
}


def _cell(*overrides):
    cli.register()
    with initialize_config_dir(config_dir=str(cli.CONFIG_DIR), version_base="1.3"):
        # Common random numbers: the seed scheme of the cells published before seed schemes
        # existed, whose hashes OLD_HASHES are (tests/test_seeding.py: they resume as such).
        return validate_match(compose("config", overrides=[*overrides, "seeds=common"]))


@pytest.mark.parametrize("overrides", list(OLD_HASHES))
def test_defaults_keep_the_old_cells_hashes(overrides):
    assert cell_hash(_cell(*overrides).identity) == OLD_HASHES[overrides]
    # Naming a default explicitly is the same cell.
    same = (
        *overrides,
        "player_a.backup=outcome",
        "player_b.solver=false",
        "game.size=null",
        "player_a.root=uct",
        "player_b.expand=node",
    )
    assert cell_hash(_cell(*same).identity) == OLD_HASHES[overrides]


@pytest.mark.parametrize(
    "extra",
    [
        "player_a.backup=discounted",
        "player_a.solver=true",
        "player_b.solver=true",
        "game.size=6",
        "player_a.root=flat",
        "player_a.expand=playout",
    ],
)
def test_a_switch_off_its_default_is_another_cell(extra):
    base = OLD_HASHES[("experiment=twoplayer_matches",)]
    cell = _cell("experiment=twoplayer_matches", extra)
    assert cell_hash(cell.identity) != base


@pytest.mark.parametrize("size", [5, 6])
@pytest.mark.parametrize(
    "game", ["breakthrough", "knightthrough", "domineering", "nogo", "atarigo"]
)
def test_game_size_is_a_square_board(game, size):
    cell = _cell("experiment=twoplayer_matches", f"game={game}", f"game.size={size}")
    assert cell.options["rows"] == cell.options["cols"] == size and "size" not in cell.options
    assert (cell.state0[ROWS], cell.state0[COLS]) == (size, size)
    same = _cell(
        "experiment=twoplayer_matches", f"game={game}", f"game.rows={size}", f"game.cols={size}"
    )
    assert (cell.state0 == same.state0).all()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (("game.size=3",), "breakthrough: game.rows must be between 4 and 19, got 3"),
        (("game.size=6", "game.rows=5"), "game.size=6 is a 6x6 board; game.rows=5 contradicts"),
        (("player_a.backup=value",), "player_a: player backup must be 'outcome' or 'discounted'"),
        (("player_b.backup=discounted",), "player_b: backup applies to nested playouts"),
        (("player_a.c=-1",), "player_a: player c must be a finite number >= 0, got -1.0"),
        (("player_a.root=tree",), "player_a: player root must be 'uct' or 'flat', got 'tree'"),
        (
            ("player_b.root=flat", "player_b.solver=true"),
            "player_b: solver applies to the tree (root uct), not to root flat",
        ),
        (
            ("player_b.expand=playout",),
            "player_b: expand playout applies to the tree of a nested player",
        ),
    ],
)
def test_bad_switches_fail_in_one_line(overrides, message):
    with pytest.raises(ConfigError) as error:
        _cell("experiment=twoplayer_matches", *overrides)
    assert message in str(error.value) and "\n" not in str(error.value)
