"""Match cells through run.py (nmcs.harness.match_cell) and their analysis (analysis/twoplayer.py):
the quick paper experiments end to end, resume after a kill, rows that do not depend on the
number of workers, one-line errors for bad configs; and the reduced paper table
(benchmarks/twoplayer_reduced.py), whose cells are the full table's cells (same folders and
identities, fewer matches), its quick version end to end.

The reduced quick table runs first, into the folder the quick experiments then run in: the
quick experiments extend its cells (the same cells, two matches more) rather than playing
their first matches again, as a full table run after a reduced one does."""

import importlib.util
import json
import re
import shutil
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from helpers import (
    REPO,
    preflight_error,
    run_analysis,
    run_cli,
    run_python,
    run_quick_experiments,
)
from hydra import compose, initialize_config_dir

from nmcs.harness import cli
from nmcs.harness.cell import cell_hash
from nmcs.harness.match_cell import validate_match

pytestmark = pytest.mark.experiment

# A small pairing with a playout budget: the same rows on any machine.
CELL = (
    "experiment=twoplayer_matches",
    "game=domineering",
    "game.rows=5",
    "game.cols=5",
    "budget.playouts=60",
    "progress=false",
)
SAME_ON_ANY_RUN = ["match", "match_seed", "a_first", "winner", "outcome_a", "length"]
EXPERIMENTS = (
    "twoplayer_paper_time",
    "twoplayer_paper_time_misere",
    "twoplayer_paper_playouts",
    "twoplayer_paper_playouts_misere",
)


def _moves(df):
    return [m.tolist() for m in df["moves"]]


spec = importlib.util.spec_from_file_location(
    "twoplayer_reduced", REPO / "benchmarks" / "twoplayer_reduced.py"
)
reduced = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reduced)


@pytest.fixture(scope="module")
def reduced_run(tmp_path_factory):
    """(the outputs folder the reduced quick table ran in, a copy of it as that run left it,
    the seconds the run took)."""
    outputs = tmp_path_factory.mktemp("outputs")
    t = time.perf_counter()
    # The script's command line, each of its run.py commands in this process.
    reduced.main(
        ["--scale", "quick", "--outputs", str(outputs), "progress=false"],
        run_py=lambda args: run_cli(*args),
    )
    seconds = time.perf_counter() - t
    kept = tmp_path_factory.mktemp("reduced") / "outputs"
    shutil.copytree(outputs, kept)
    return outputs, kept, seconds


@pytest.fixture(scope="module")
def quick_outputs(reduced_run):
    outputs, _, _ = reduced_run
    return run_quick_experiments(outputs, EXPERIMENTS)


def test_quick_experiments_write_cells_summaries_tables_figures_and_claims(quick_outputs):
    quick = quick_outputs / "quick"
    summary = pd.read_csv(quick / "twoplayer_paper_time" / "summary.csv")
    assert len(summary) == 5 * 2 * 2  # five games, two settings, two times
    assert set(summary["player_b"]) == {"MCS"} and (summary["n"] == 4).all()
    misere = pd.read_csv(quick / "twoplayer_paper_time_misere" / "summary.csv")
    assert len(misere) == 4 * 2 * 2 and misere["misere"].all()
    cell = next((quick / "twoplayer_paper_time").glob("*game=nogo*player_a=nmc2_cow*"))
    meta = json.loads((cell / "meta.json").read_text())
    assert meta["kind"] == "matches" and meta["finished"] and meta["n_done"] == 4
    assert meta["git_commit"] is None or len(meta["git_commit"]) == 40
    rows = pd.read_parquet(cell / "results.parquet")
    assert rows["match"].tolist() == [0, 1, 2, 3] and rows["a_first"].tolist() == [1, 0, 1, 0]
    assert (rows["length"] == rows["moves"].map(len)).all()
    assert (rows["player_a"] == "NMC(2)+COW").all() and (
        rows["budget_ms"] == rows["budget_ms"][0]
    ).all()
    tables = quick_outputs / "tables" / "quick"
    table = pd.read_csv(tables / "twoplayer_time.csv")
    assert len(table) == 9 * 2 * 2 and table["ci95_low"].le(table["win_rate"]).all()
    assert (tables / "twoplayer_time_table.md").exists()
    assert len(pd.read_csv(tables / "twoplayer_playouts.csv")) == 9 * 2
    for stem in ("twoplayer_time", "twoplayer_playouts"):
        assert (quick_outputs / "figures" / "quick" / f"{stem}.png").exists()
    report = (quick_outputs / "REPRODUCTION.md").read_text()
    section = report.split("NMCS for two-player games")[1]
    claims = [line for line in section.splitlines() if line.startswith("| at ")]
    # Every claim under every reading, on the one board family of the quick scale (5x5):
    # claim 1 (2 readings of "best" x one table, normal, misere), claim 2 (2 readings of the
    # classes x one table, two splits, the assignment), claim 3 (pooled x 3, by version).
    assert len(claims) == 6 + 8 + 4, claims
    assert all(line.startswith("| at 4 ms (this scale's longest) on 5x5, ") for line in claims)
    # 4 matches a cell decide nothing version by version under the one-table readings.
    one_table = [c for c in claims if "[reading (a)" in c and "is worse than" not in c]
    assert len(one_table) == 4
    # The verdict column (a further reading shows its verdict in parentheses).
    assert all("not enough data" in line.split(" | ")[-2] for line in one_table), one_table
    # The pooled claim 3 reads 72 matches a setting, the cells of a version paired match by
    # match (common seeds): its verdict follows the sign of its interval, as printed; a bound
    # printed 0.00 could lie on either side, so it decides nothing here.
    at = table[table["budget_ms"] == table["budget_ms"].max()]
    a, b = at[at["setting"] == "NMC(1)+COW"], at[at["setting"] == "NMC(2)+COW"]
    assert int(a["n"].sum()) == int(b["n"].sum()) == 36
    pooled = [c for c in claims if "pooled over the nine versions" in c]
    assert len(pooled) == 1 and "over 36 and 36 matches" in pooled[0], pooled
    assert "paired by match" in pooled[0], pooled
    bounds = re.search(r"\[(-?[0-9.]+), (-?[0-9.]+)\] over 36 and 36", pooled[0])
    assert bounds, pooled
    low, high = (float(x) for x in bounds.groups())
    if low != 0.0 and high != 0.0:
        expected = "agrees" if low > 0 else "differs" if high < 0 else "not enough data"
        assert pooled[0].rstrip(" |").endswith(expected), (pooled, low, high)


def test_a_killed_cell_resumes_and_rows_do_not_depend_on_workers(tmp_path):
    out = tmp_path / "cell"
    args = ["run.py", *CELL, "n_matches=40", "chunk_seconds=0.01", "workers=1"]
    proc = subprocess.Popen(
        [sys.executable, *args, f"hydra.run.dir={out}"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.time() + 120
    chunks = out / "chunks"
    while time.time() < deadline and proc.poll() is None:
        if chunks.is_dir() and len(list(chunks.glob("*.parquet"))) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = pd.concat([pd.read_parquet(p) for p in sorted(chunks.glob("*.parquet"))])
    assert len(kept) >= 1 and kept["match"].is_unique
    second = run_cli(*args[1:], f"hydra.run.dir={out}")
    if len(kept) < 40:
        assert f"({len(kept)} already done)" in second.stdout + second.stderr
    resumed = pd.read_parquet(out / "results.parquet")
    assert resumed["match"].tolist() == list(range(40))
    third = run_cli(*args[1:], f"hydra.run.dir={out}")
    assert "cell complete (40 matches), nothing to run" in third.stdout + third.stderr
    # One run on two workers with other chunks: the same matches.
    fresh_dir = tmp_path / "fresh"
    run_cli(*CELL, "n_matches=40", "workers=2", f"hydra.run.dir={fresh_dir}")
    fresh = pd.read_parquet(fresh_dir / "results.parquet")
    pd.testing.assert_frame_equal(resumed[SAME_ON_ANY_RUN], fresh[SAME_ON_ANY_RUN])
    assert _moves(resumed) == _moves(fresh)
    assert resumed["cell"].nunique() == 1 and resumed["cell"][0] == fresh["cell"][0]


def test_raising_n_matches_extends_the_cell(tmp_path):
    out = tmp_path / "cell"
    run_cli(*CELL, "n_matches=4", f"hydra.run.dir={out}")
    first = pd.read_parquet(out / "results.parquet")
    proc = run_cli(*CELL, "n_matches=6", f"hydra.run.dir={out}")
    assert "2 matches to run (4 already done)" in proc.stdout + proc.stderr
    extended = pd.read_parquet(out / "results.parquet")
    assert extended["match"].tolist() == list(range(6))
    assert _moves(extended)[:4] == _moves(first)


def test_a_folder_of_another_pairing_is_refused(tmp_path):
    out = tmp_path / "cell"
    run_cli(*CELL, "n_matches=2", f"hydra.run.dir={out}")
    proc = run_cli(*CELL, "n_matches=2", "player_a=nmc1_pod", f"hydra.run.dir={out}", check=False)
    assert proc.returncode == 2
    assert "holds results of another config (differs in: player_a)" in proc.stderr


@pytest.mark.parametrize(
    "arg,expected",
    [
        ("game.bogus=1", "unknown key 'game.bogus' (allowed: cols, misere, name, rows, size)"),
        ("game.rows=3", "breakthrough: game.rows must be between 4 and 19, got 3"),
        ("game=domineering game.cols=30", "domineering: game.cols must be between 2 and 19"),
        ("game.misere=perhaps", "game.misere: Value 'perhaps' is not a valid bool"),
        ("player_a=nmc3", "player_a: unknown option 'nmc3' (allowed: flat_mc, flat_nmc1_cow, mcs"),
        ("player_a.level=3", "player_a: player level must be 0, 1 or 2, got 3"),
        ("player_b.cow=true", "player_b: discount, pod and cow apply to nested playouts"),
        (
            "player_a.speed=2",
            "unknown key 'player_a.speed' (allowed: backup, c, cow, discount, expand, level",
        ),
        ("player_a.c=-1", "player_a: player c must be a finite number >= 0"),
        ("n_matches=0", "n_matches = 0: must be at least 1"),
        ("budget.playouts=null", "a two-player game needs budget.playouts and/or budget.ms"),
        ("budget.ms=0", "budget.ms = 0.0: must be a finite number > 0"),
        ("budget.seconds=1", "budget.seconds: a two-player game's budget per move is budget.ms"),
    ],
)
def test_bad_match_config_stops_with_one_line(tmp_path, arg, expected):
    out = tmp_path / "cell"
    lines = preflight_error("experiment=twoplayer_matches", *arg.split(), f"hydra.run.dir={out}")
    assert len(lines) == 1, lines
    assert expected in lines[0]
    assert not out.exists()


@pytest.mark.parametrize(
    "arg,expected",
    [
        ("n_matches=3", "n_matches: only for two-player games"),
        ("budget.ms=3", "budget.ms: only for two-player games"),
        ("player_a.level=1", "player_a.level: no player_a in this config"),
    ],
)
def test_match_keys_are_refused_for_searches(tmp_path, arg, expected):
    lines = preflight_error(arg, f"hydra.run.dir={tmp_path / 'cell'}")
    assert len(lines) == 1 and expected in lines[0], lines


def test_a_bad_cell_inside_a_sweep_stops_before_any_cell(tmp_path):
    proc = run_python(
        "run.py",
        "-m",
        "experiment=twoplayer_matches",
        "game=breakthrough,domineering",
        "game.rows=4,3",
        f"hydra.sweep.dir={tmp_path / 's'}",
        check=False,
    )
    assert proc.returncode == 2 and "game.rows must be between" in proc.stderr
    assert not (tmp_path / "s").exists()


def test_published_match_cells_give_the_same_claims(quick_outputs, tmp_path):
    target = tmp_path / "published"
    args = ("--outputs", str(quick_outputs), "--scale", "quick", "--to", str(target))
    run_analysis("analysis.publish", *args)
    packed = target / "twoplayer_paper_time" / "results.parquet"
    assert {"moves", "playouts"}.isdisjoint(pd.read_parquet(packed).columns)
    out = tmp_path / "report"
    run_analysis("analysis", "--from", str(target), "--scale", "quick", "--out", str(out))
    run_analysis("analysis", "--outputs", str(quick_outputs), "--scale", "quick")

    def claims(path):
        return [line for line in path.read_text().splitlines() if line.startswith("| at ")]

    assert claims(out / "REPRODUCTION.md") == claims(quick_outputs / "REPRODUCTION.md")
    assert not (target / "REPRODUCTION.md").exists()  # written into the folder only on --publish


# ---------------------------------------------------------------- the reduced paper table


def test_paper_commands_are_the_paper_experiments_with_fewer_matches():
    cmds = reduced.commands("paper")
    assert [c[1] for c in cmds] == [
        "experiment=twoplayer_paper_playouts",
        "experiment=twoplayer_paper_playouts_misere",
        "experiment=twoplayer_paper_time",
        "experiment=twoplayer_paper_time_misere",
    ]
    assert all("scale=paper" in c for c in cmds)
    assert [next(a for a in c if a.startswith("n_matches=")) for c in cmds] == [
        "n_matches=100",
        "n_matches=100",
        "n_matches=40",
        "n_matches=40",
    ]
    assert all("player_a=nmc1_cow,nmc2_cow" in c and "budget.ms=320" in c for c in cmds[2:])
    with pytest.raises(ValueError, match="scale must be 'quick' or 'paper'"):
        reduced.commands("full")
    with pytest.raises(ValueError, match="n_matches must be a positive integer"):
        reduced.commands("paper", n_matches=0)


def test_a_reduced_cell_is_the_full_cell():
    # n_matches is not in a cell's identity: running the full table later extends these cells.
    cli.register()
    base = [
        "experiment=twoplayer_paper_time_misere",
        "scale=paper",
        "game=nogo",
        "player_a=nmc2_cow",
        "budget.ms=320",
    ]
    with initialize_config_dir(config_dir=str(cli.CONFIG_DIR), version_base="1.3"):
        full = validate_match(compose("config", overrides=base))
        part = validate_match(compose("config", overrides=[*base, "n_matches=40"]))
    assert full.n == 500 and part.n == 40
    assert cell_hash(full.identity) == cell_hash(part.identity)


def test_quick_reduced_table_runs_and_is_marked_reduced(reduced_run):
    _, outputs, seconds = reduced_run
    # Tens of seconds with numba's cache warm (a cold cache adds the compilation); the bound
    # leaves room for a loaded machine.
    assert seconds < 180, seconds
    quick = outputs / "quick"
    for experiment, cells in (
        ("twoplayer_paper_playouts", 10),
        ("twoplayer_paper_playouts_misere", 8),
        ("twoplayer_paper_time", 10),
        ("twoplayer_paper_time_misere", 8),
    ):
        summary = pd.read_csv(quick / experiment / "summary.csv")
        assert len(summary) == cells and (summary["n"] == 2).all(), experiment
    cell = next((quick / "twoplayer_paper_time").glob("budget.ms=4,game=nogo,player_a=nmc2_cow"))
    meta = json.loads((cell / "meta.json").read_text())
    assert "n_matches=2" in (meta.get("command_line") or meta.get("overrides"))
    run_analysis("analysis", "--outputs", str(outputs), "--scale", "quick")
    report = (outputs / "REPRODUCTION.md").read_text()
    section = report.split("NMCS for two-player games")[1].split("\n### ")[0]
    claims = [line for line in section.splitlines() if line.startswith("| at 4 ms")]
    assert len(claims) == 18 and all("(reduced runs: " in line for line in claims)
