"""SameGame's record book: game files written, read back and replayed (and refused when they
do not replay), a cell that keeps only the games that beat its best, the upper bound of a
position, and the literature's per-position bests against the published values."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from nmcs.games import samegame as sg
from nmcs.games.samegame import RECORDS, gamefile, io
from nmcs.harness import rerun
from nmcs.harness.batch import search_batch, search_seeds
from tests.helpers import REPO, run_cli

pytestmark = pytest.mark.unit


def a_game(instance=0, seed=0):
    state0 = sg.make_state(instance=instance)
    res = search_batch("samegame", state0, search_seeds(seed, 0, 1), level=0)
    return state0, res.moves[0], int(res.score[0])


def test_a_game_file_replays_to_its_score_and_a_broken_one_is_refused(tmp_path):
    state0, moves, score = a_game()
    assert gamefile.save_checked(state0, moves, tmp_path / "g") == score
    board, read = gamefile.read_game(tmp_path / "g.sgm")
    np.testing.assert_array_equal(read, moves)
    np.testing.assert_array_equal(sg.to_grid(board), sg.to_grid(state0))
    assert (tmp_path / "g.png").stat().st_size > 0
    lines = (tmp_path / "g.sgm").read_text().splitlines()
    at = lines.index("moves") + 1
    lines[at] = "0 14 +0"  # the top-left cell: not the smallest cell of a group of 2 or more
    (tmp_path / "bad.sgm").write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"bad\.sgm: not a SameGame game file: move 0"):
        gamefile.read_game(tmp_path / "bad.sgm")


def test_the_upper_bound_is_every_colour_in_one_group_and_the_board_cleared():
    grid = io.standard_board(0)
    counts = np.bincount(grid.ravel(), minlength=5)
    assert RECORDS.upper_bound["0"] == 1000 + sum(int(n - 2) ** 2 for n in counts)
    # No game found can beat it: a level-1 search's best is far below.
    assert a_game()[2] < RECORDS.upper_bound["0"]


def test_best_known_scores_are_table_1s_best_of_sp_mcts_and_nmcs_level_3():
    paper = yaml.safe_load((REPO / "analysis" / "paper_values" / "samegame.yaml").read_text())
    for position, values in paper["positions"].items():
        sp_mcts, level3m = values[0], values[3]
        assert RECORDS.best_known[str(position - 1)] == max(sp_mcts, level3m)


@pytest.mark.compile  # the frontier's SameGame NRPA entry point: 11 s from a cold cache
def test_a_frontier_cell_keeps_only_games_that_beat_its_best(tmp_path):
    out = tmp_path / "cell"
    args = ("experiment=samegame_frontier", "scale=quick", "game.instance=1", "level=1")
    run_cli(*args, "n_searches=8", "workers=1", "progress=false", f"hydra.run.dir={out}")
    rows = pd.read_parquet(out / "results.parquet").sort_values("search")
    running = rows["score"].cummax()
    beats = rows[rows["score"] > running.shift(fill_value=-1)]
    saved = sorted((out / "records").glob("*.sgm"))
    assert [int(p.stem.split("-")[1]) for p in saved] == beats["search"].tolist()
    best = rows.loc[rows["score"].idxmax()]
    assert rerun.main([str(out), "--search", str(best["search"])]) == 0


def test_published_frontier_games_replay_to_their_scores():
    folder = REPO / "results" / "paper" / "samegame_frontier" / "records"
    files = sorted(Path(folder).glob("*/*.sgm"))
    if not files:
        pytest.skip("no published SameGame frontier games in this checkout")
    for path in files:
        board, moves = gamefile.read_game(path)
        score = int(path.stem.split("-score-")[1])
        assert int(io.replay(board, moves)[sg.SCORE]) == score
