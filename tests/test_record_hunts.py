"""Record hunts: refused keys, games saved only once they replay, the stop at a target, the Dask
searches mode (rows as threads, a killed worker changes nothing), the rerun command, the
analysis' rates, and the published record games (replayed, their seeds checked)."""

import os
import re
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis import records
from analysis.common import AGREES, DIFFERS, NOT_ENOUGH, NOT_RUN, Context
from analysis.independent import morpion_mobility as independent_morpion
from analysis.records import probabilities, rate
from nmcs.games.morpion.psol import read_psol
from nmcs.harness import rerun
from nmcs.harness.batch import seeds_for
from nmcs.harness.seeding import seed_key
from tests.helpers import REPO, run_cli, run_python

pytestmark = pytest.mark.experiment

QUICK_HUNT = ("experiment=morpion_record_hunt", "scale=quick", "progress=false")


@pytest.mark.unit
@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["game=morpion", "record.target=85"],
            "record.target = 85: must be from 1 to 84, the proven upper bound of morpion 5D",
        ),
        (
            ["game=morpion", "game.variant=5T", "record.target=486"],
            "record.target = 486: must be from 1 to 485",
        ),
        (["game=morpion", "record.threshold=-1"], "record.threshold = -1: must be >= 0"),
        (["game=morpion", "record.hours=0"], "record.hours = 0.0: must be a positive number"),
        (
            ["game=samegame", "game.instance=null", "record.target=10"],
            "record.target: game=samegame instance=None has no record support "
            "(allowed: game.instance=0, 1, 2",
        ),
        (
            ["game=samegame", "game.instance=3", "record.target=20000"],
            "record.target = 20000: must be from 1 to 10335, the proven upper bound of samegame 3",
        ),
        (["game=sudoku", "record.target=10"], "record.target: game=sudoku has no record support"),
        (
            ["game=breakthrough", "record.threshold=1"],
            "record.threshold: game=breakthrough has no record support",
        ),
    ],
)
def test_record_keys_that_cannot_apply_are_refused_in_one_line(tmp_path, args, message):
    out = tmp_path / "cell"
    proc = run_cli(*args, f"hydra.run.dir={out}", check=False)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not out.exists()


@pytest.fixture(scope="module")
def hunt(tmp_path_factory):
    """A quick 5D hunt run to its budget: 20 level-2 NRPA searches, games of 70+ saved."""
    out = tmp_path_factory.mktemp("hunt") / "cell"
    proc = run_cli(*QUICK_HUNT, "workers=1", f"hydra.run.dir={out}")
    return out, proc


def test_every_game_at_the_threshold_is_saved_and_replays_to_its_score(hunt):
    out, proc = hunt
    rows = pd.read_parquet(out / "results.parquet")
    hits = rows[rows["score"] >= 70]
    assert len(hits) >= 1  # level-2 NRPA on 5D: about 1 search in 4 (a check of the check)
    files = sorted((out / "records").glob("*.psol"))
    assert [int(p.stem.split("-")[1]) for p in files] == sorted(hits["search"].tolist())
    for row in hits.itertuples():
        stem = out / "records" / f"search-{row.search:08d}-score-{row.score}"
        _, moves = read_psol(stem.with_suffix(".psol"), variant="5D")
        np.testing.assert_array_equal(moves, row.moves)
        assert stem.with_suffix(".png").stat().st_size > 0
        assert f"search {row.search} scored {row.score}" in proc.stdout
    assert f"record hunt: 20 searches done (the budget), best {rows['score'].max()}" in proc.stdout


def test_a_hunt_stops_at_its_target_and_a_rerun_runs_nothing(hunt, tmp_path):
    full = pd.read_parquet(hunt[0] / "results.parquet")
    target = int(full["score"].max())
    first = int(full[full["score"] >= target]["search"].min())
    out = tmp_path / "cell"
    args = (*QUICK_HUNT, f"record.target={target}", "workers=1", "chunk_seconds=0.001")
    proc = run_cli(*args, f"hydra.run.dir={out}")
    line = f"record hunt: target {target} reached by search {first} (score {target})"
    assert line in proc.stdout
    saved = pd.read_parquet(out / "results.parquet")
    assert first in set(saved["search"]) and len(saved) < 20  # stopped before its budget
    # The same searches as the full run, seed for seed.
    merged = saved.merge(full, on="search", suffixes=("", "_full"))
    assert (merged["score"] == merged["score_full"]).all()
    again = run_cli(*args, f"hydra.run.dir={out}")
    assert line in again.stdout
    assert len(pd.read_parquet(out / "results.parquet")) == len(saved)
    # record.target=null hunts on to the budget.
    on = run_cli(*QUICK_HUNT, "workers=1", f"hydra.run.dir={out}")
    assert "record hunt: 20 searches done (the budget)" in on.stdout


def test_rerun_reproduces_a_saved_game_and_names_bad_input(hunt, capsys):
    out, _ = hunt
    rows = pd.read_parquet(out / "results.parquet")
    best = rows.loc[rows["score"].idxmax()]
    assert rerun.main([str(out), "--search", str(best["search"])]) == 0
    printed = capsys.readouterr().out
    assert f"score {best['score']}" in printed and "identical to the game saved" in printed
    assert " s of CPU)" in printed
    assert rerun.main([str(out), "--search", "20"]) == 2
    assert "--search 20: the cell has searches 0 to 19" in capsys.readouterr().err
    assert rerun.main([str(out / "nowhere"), "--search", "1"]) == 2


@pytest.mark.dask
def test_dask_searches_give_the_rows_of_threads(hunt, tmp_path):
    """Whole searches on an embedded cluster of 2 workers: the rows of the threads' run."""
    out = tmp_path / "cell"
    args = ("parallel.backend=dask_searches", "parallel.workers=2", f"hydra.run.dir={out}")
    proc = run_python("run.py", *QUICK_HUNT, *args)
    assert "dask: the cell's searches on 2 workers" in proc.stdout
    threads = pd.read_parquet(hunt[0] / "results.parquet")
    dask = pd.read_parquet(out / "results.parquet")
    same = ["cell", "search", "search_seed", "score", "length", "playouts", "playout_moves"]
    pd.testing.assert_frame_equal(dask[same], threads[same])
    assert all(np.array_equal(a, b) for a, b in zip(dask["moves"], threads["moves"], strict=True))
    assert set(dask["parallel_backend"]) == {"dask_searches"}
    assert (dask["cpu_seconds"] > 0).all()  # each search's thread, on its worker


@pytest.mark.dask
def test_a_killed_dask_worker_changes_nothing():
    """A worker killed (SIGKILL) while its searches run: Dask runs its task again elsewhere,
    from the same seeds, and the batch is the threads' batch."""
    from dask.distributed import Client, LocalCluster

    from nmcs.games import registry as games
    from nmcs.harness.batch import run_batch
    from nmcs.harness.dask_searches import DaskSearches
    from nmcs.search import registry as algorithms
    from nmcs.search.registry import Settings

    game, algo = games.game("morpion"), algorithms.algorithm("nested")
    options, settings = algo.config(), Settings(level=2)  # about 0.2 s a search
    state0 = game.make_state()
    seeds = seeds_for(7, range(16))
    expected = run_batch(game, algo, options, settings, state0, seeds, 1)
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0")
    try:
        with Client(cluster) as client:
            runner = DaskSearches(client, "morpion", "nested", options, settings, state0, 2)
            runner(seeds[:2])  # the workers have loaded the entry point
            before = client.run(os.getpid)
            killed_at = []

            def kill_one():
                os.kill(next(iter(before.values())), signal.SIGKILL)
                killed_at.append(time.monotonic())

            timer = threading.Timer(0.5, kill_one)
            timer.start()
            got = runner(seeds)
            finished_at = time.monotonic()
            timer.join()
            assert killed_at and killed_at[0] < finished_at  # killed while searches ran
            client.wait_for_workers(2, timeout=60)
            assert set(client.run(os.getpid).values()) != set(before.values())  # a new worker
    finally:
        cluster.close()
    np.testing.assert_array_equal(got.score, expected.score)
    assert all(np.array_equal(a, b) for a, b in zip(got.moves, expected.moves, strict=True))


@pytest.mark.unit
def test_rates_and_probabilities_match_their_exact_definitions():
    # No hit in 30 searches of 100 s: the upper bound is 1 - 0.025 ** (1 / 30) per search.
    per_hour, low, high = rate(0, 30, 100.0)
    assert per_hour == 0 and low == 0
    assert high == pytest.approx((1 - 0.025 ** (1 / 30)) * 36, rel=1e-9)
    per_hour, low, high = rate(5, 20, 3600.0)
    assert per_hour == 0.25
    assert low == pytest.approx(stats.beta.ppf(0.025, 5, 16))
    assert high == pytest.approx(stats.beta.ppf(0.975, 6, 15))
    part = pd.DataFrame({"score": [79, 80, 81, 82], "seconds": [3600.0] * 4})
    rows = {r["score_at_least"]: r for r in probabilities("5D", 3, part)}
    assert [rows[k]["hits"] for k in (80, 81, 82)] == [3, 2, 1]
    assert rows[82]["expected_core_hours"] == pytest.approx(4.0)
    assert rows[82]["core_hours_low"] < 4.0 < rows[82]["core_hours_high"]


def efficiency_row(algorithm, hits, n, cpu_seconds, cpu="AMD EPYC"):
    per_hour, low, high = rate(hits, n, cpu_seconds)
    return {
        "algorithm": algorithm,
        "experiment": "e",
        "searches": n,
        "cpu_core_hours": n * cpu_seconds / 3600,
        "cpu": cpu,
        "best": 80,
        "hits": hits,
        "per_core_hour": per_hour,
        "low": low,
        "high": high,
        "_cells": frozenset({("e", algorithm)}),
    }


@pytest.mark.unit
@pytest.mark.parametrize(
    "nrpa, other, verdict",
    [
        # 50 hits in 400 searches of 10 CPU s against none in half an hour: agrees.
        (
            ("NRPA, level 3", 50, 400, 10.0),
            ("beam search, level 1, beam 2048", 0, 340, 5.3),
            AGREES,
        ),
        # A slow NRPA (1,000 CPU s a search) against a competitor with hits: differs.
        (("NRPA, level 3", 2, 400, 1000.0), ("MCBS, level 2, beams (8, 4)", 20, 220, 8.0), DIFFERS),
        # Too few NRPA searches with their CPU time: whatever the rates, not enough data.
        (("NRPA, level 3", 50, 99, 10.0), ("memorized NMCS, level 3", 0, 45, 40.0), NOT_ENOUGH),
        # Overlapping intervals: not enough data.
        (
            ("NRPA, level 3", 5, 400, 10.0),
            ("MCBS, level 2, beams (32, 1)", 4, 220, 8.0),
            NOT_ENOUGH,
        ),
    ],
)
def test_the_efficiency_claim_can_come_out_every_way(tmp_path, nrpa, other, verdict):
    ctx = Context(tmp_path, "paper")
    # The competitor's row for each of the experiment's cells.
    rows = [efficiency_row(*nrpa)] + [efficiency_row(*other)] * len(records.COMPETITORS)
    table = pd.DataFrame(rows)
    claim = records.efficiency_claim(ctx, table)
    assert claim.verdict == verdict
    # A competitor not run yet: never decided.
    assert records.efficiency_claim(ctx, table.iloc[:-1]).verdict == NOT_ENOUGH
    assert records.EFFICIENCY_RULE in claim.rules
    # Cells on two CPU models are not one machine: never decided.
    table.loc[1, "cpu"] = "Intel Xeon"
    assert records.efficiency_claim(ctx, table).verdict == NOT_ENOUGH
    # NRPA alone, or the competitors alone: not run.
    assert records.efficiency_claim(ctx, table.iloc[:1]).verdict == NOT_RUN
    assert records.efficiency_claim(ctx, table.iloc[1:]).verdict == NOT_RUN


def test_the_efficiency_claim_reads_the_hunt_and_each_competitor_cell(hunt, tmp_path):
    """The quick hunt and the quick competitors (one cell each) in one outputs folder: a row
    per cell, never pooled, each in CPU time; 20 NRPA searches are too few to decide."""
    import shutil

    outputs = tmp_path / "outputs"
    shutil.copytree(hunt[0], outputs / "quick" / "morpion_record_hunt" / "base")
    sweep = ("-m", "experiment=morpion_efficiency", "scale=quick", "progress=false")
    run_cli(*sweep, f"hydra.sweep.dir={outputs / 'quick'}")
    ctx = Context(outputs, "quick")
    table = records.efficiency_table(ctx, records.hunt_rows(ctx)["5D"])
    assert sorted(table["algorithm"]) == [
        "MCBS, level 2, beams (2, 2)",
        "MCBS, level 2, beams (4, 1)",
        "NRPA, level 2",
        "beam search, level 1, beam 16",
        "memorized NMCS, level 1",
    ]
    assert table.set_index("algorithm").loc["NRPA, level 2", "searches"] == 20
    assert (table["cpu_core_hours"] > 0).all() and table["cpu"].nunique() == 1
    claim = records.efficiency_claim(ctx, table)
    assert claim.verdict == NOT_ENOUGH and "20 searches" in claim.ours


@pytest.mark.unit
def test_the_budget_line_counts_what_the_cell_kept():
    """A hunt that keeps every game at its threshold counts them; one that keeps only new
    bests (SameGame) counts those, not every score above a threshold of 0."""
    from types import SimpleNamespace

    from nmcs.harness.records import budget_line

    rows = pd.DataFrame({"search": range(6), "score": [5, 3, 9, 9, 12, 1]})
    every = SimpleNamespace(book=SimpleNamespace(keep="all"), threshold=4, target=None)
    assert budget_line(every, rows, 6) == (
        "record hunt: 6 searches done (the budget), best 12, 4 at 4 or more"
    )
    best = SimpleNamespace(book=SimpleNamespace(keep="best"), threshold=0, target=None)
    assert budget_line(best, rows, 6).endswith(", 3 new bests of 0 or more saved")
    best.threshold = 6  # 5 is below it: 9 and 12 are the new bests saved
    assert budget_line(best, rows, 6).endswith(", 2 new bests of 6 or more saved")


@pytest.mark.unit
def test_competitors_are_labelled_by_their_configuration():
    row = {"algo": "nested", "memorize": True, "level": 3}
    assert records.competitor_label(row) == "memorized NMCS, level 3"
    row = {"algo": "beam", "memorize": True, "level": 1, "algo_beam": [2048]}
    assert records.competitor_label(row) == "beam search, level 1, beam 2048"
    row = {"algo": "beam", "memorize": True, "level": 2, "algo_beam": [32, 1]}
    assert records.competitor_label(row) == "MCBS, level 2, beams (32, 1)"


@pytest.mark.unit
def test_a_pooled_hunt_costs_the_cpu_time_of_the_searches_that_carry_it():
    """A hunt of an old cell (wall time only) and a new one (CPU time): each cell's rows keep
    their own clock, the pooled row counts every search and the CPU-timed searches' cost."""
    old = pd.DataFrame({"score": [80] * 4 + [70] * 6, "seconds": 30.0, "cpu_seconds": np.nan})
    new = pd.DataFrame({"score": [82] + [70] * 9, "seconds": 20.0, "cpu_seconds": 10.0})
    both = pd.concat([old, new], ignore_index=True)
    assert probabilities("5D", 3, old)[0]["clock"] == "wall"
    pooled = {r["score_at_least"]: r for r in probabilities("5D", 3, both, pooled=True)}
    assert pooled[80]["clock"] == "CPU (10 of 20 searches)"
    assert (pooled[80]["hits"], pooled[80]["searches"]) == (5, 20)
    assert pooled[80]["expected_core_hours"] == pytest.approx(10 / 3600 / (5 / 20))
    # Not pooled, a hunt that is partly timed is costed in wall time, and says so.
    assert probabilities("5D", 3, both)[0]["clock"] == "wall"


PUBLISHED = REPO / "results" / "paper" / "morpion_record_hunt"


@pytest.mark.unit
@pytest.mark.skipif(
    not (PUBLISHED / "records").is_dir(), reason="no record hunt published in results/paper"
)
def test_published_record_games_replay_and_their_seeds_are_the_cells():
    """Every published game of the 5D hunt replays to its score through read_psol, and its
    recorded seed is the one the cell's config gives that search; one game of 82 is there."""
    import gzip
    import json

    with gzip.open(PUBLISHED / "cells.jsonl.gz", "rt") as lines:
        metas = {m["cell_dir"]: m for m in map(json.loads, filter(str.strip, lines))}
    scores = []
    for games_csv in sorted((PUBLISHED / "records").glob("*/games.csv")):
        meta = metas[games_csv.parent.name]
        for row in pd.read_csv(games_csv, dtype={"search_seed": "uint64"}).itertuples():
            path = games_csv.parent / f"search-{row.search:08d}-score-{row.score}.psol"
            variant = meta["config"]["game"]["variant"]
            _, moves = read_psol(path, variant=variant)
            assert len(moves) == row.score
            if variant == "5D":  # the plain-Python rules, which share no code with the engine
                assert independent_morpion.replay_psol(path.read_text()).score == row.score
            key = seed_key(meta["identity"])  # the cell's seed scheme
            assert row.search_seed == seeds_for(meta["config"]["seed"], [row.search], key)[0]
            scores.append(row.score)
    assert max(scores) >= 82


@pytest.mark.dask
@pytest.mark.parametrize("sig, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_stopped_dask_searches_cell_keeps_its_finished_searches(tmp_path, sig, status):
    """The signal reaches the whole process group (a terminal's Ctrl-C, a scheduler's TERM):
    one line, the exit status, every saved chunk kept; the rerun (on threads: the same cell)
    finishes the cell with the rows of an uninterrupted run."""
    import subprocess
    import sys

    cell = tmp_path / "cell"
    args = [
        "run.py",
        "game=morpion",
        "level=1",
        "n_searches=100000",
        "chunk_seconds=0.2",
        "progress=false",
        "parallel.backend=dask_searches",
        "parallel.workers=2",
        f"hydra.run.dir={cell}",
    ]
    proc = subprocess.Popen(
        [sys.executable, *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 300
    while len(list((cell / "chunks").glob("*.parquet"))) < 2 and time.time() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == status, err
    # One line of run.py's own, beside any one-line Dask warnings (an overloaded machine makes
    # Dask warn of an unresponsive event loop) and, on an empty cache, the compiler's progress.
    lines = [
        x
        for x in err.splitlines()
        if x.startswith("run.py:") and not x.startswith("run.py: dask warning:")
    ]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "searches of" in lines[0] and "are saved" in lines[0], err
    saved = int(re.search(r"(\d+) of 100000 searches of", lines[0]).group(1))
    chunks = pd.concat(pd.read_parquet(p) for p in (cell / "chunks").glob("*.parquet"))
    assert 0 < saved == len(chunks) < 100000, (saved, len(chunks))
    assert sorted(chunks["search"]) == list(range(saved))
    # The rerun on threads (the same cell) ends it at 300 searches: those saved are kept.
    small = ["game=morpion", "level=1", "n_searches=300", "progress=false"]
    run_cli(*small, f"hydra.run.dir={cell}")
    threads = tmp_path / "threads"
    run_cli(*small, f"hydra.run.dir={threads}")
    a = pd.read_parquet(cell / "results.parquet")
    b = pd.read_parquet(threads / "results.parquet")
    pd.testing.assert_series_equal(a["score"], b["score"])
    assert all(np.array_equal(x, y) for x, y in zip(a["moves"], b["moves"], strict=True))
