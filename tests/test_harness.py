"""run.py end to end: bad input, result files, resume after a kill, quick experiments, the
analysis command and the notebook."""

import json
import os
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

from nmcs.harness.provenance import cpu_model

pytestmark = pytest.mark.experiment

REQUIRED_COLUMNS = {
    "game",
    "depth",
    "level",
    "memorize",
    "seed",
    "score",
    "length",
    "playouts",
    "seconds",
    "moves",
    "experiment",
    "search",
}


def run(*args, check=True, env=None):
    return run_python(*args, check=check, env=env)


@pytest.mark.parametrize(
    "arg,expected",
    [
        ("level=-1", "level = -1: must be an integer from 0 to"),
        ("levl=2", "unknown key 'levl' (allowed: algo, budget"),
        ("level=two", "level: Value 'two'"),
        ("game=chess", "game: unknown option 'chess' (allowed: "),
        ("game.depth=0", "depth must be between 1 and 1000"),
        ("game.depth=1001", "depth must be between 1 and 1000"),
        ("n_searches=0", "n_searches = 0: must be at least 1"),
        ("budget.seconds=0", "budget.seconds = 0.0: must be a finite number > 0"),
        ("algo=iterative", "algo=iterative needs budget.seconds and/or budget.playouts"),
        ("budget.seconds=5", "budget: algo=nested runs to completion and takes no budget"),
        ("game=morpion game.bogus=1", "unknown key 'game.bogus' (allowed: name, policy, variant)"),
        (
            "game=leftmove_schema",
            "game: unknown option 'leftmove_schema' (allowed: "
            + ", ".join(sorted(p.stem for p in (REPO / "conf" / "game").glob("*.yaml")))
            + ")",
        ),
        ("experiment=fig99", "experiment: unknown option 'fig99'"),
        ("memorize=perhaps", "memorize: Value 'perhaps' is not a valid bool"),
        # the range is named before any suggestion that would fail again
        ("game=samegame game.colors=0", "game.colors must be 1..20, got 0"),
    ],
)
def test_invalid_config_stops_with_one_line(tmp_path, arg, expected):
    out = tmp_path / "cell"
    lines = preflight_error(*arg.split(), f"hydra.run.dir={out}")
    assert len(lines) == 1, lines
    assert expected in lines[0]
    assert not out.exists()


def test_run_py_stops_an_invalid_config_with_one_line_and_no_folder(tmp_path):
    out = tmp_path / "cell"
    proc = run("run.py", "level=-1", f"hydra.run.dir={out}", check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "run.py: error: level = -1: must be an integer from 0 to 6"
    ]
    assert not out.exists()


def test_help_lists_only_the_yaml_choices():
    groups = run_cli("--help").stdout.split("== Config ==")[0]
    # the single-player games and (matches: experiment=twoplayer_matches) the two-player ones
    assert (
        "game: atarigo, breakthrough, domineering, knightthrough, leftmost, leftmove, morpion, "
        "nogo, samegame, sudoku\n" in groups
    )
    assert "_schema" not in groups


def test_invalid_value_inside_a_sweep_stops_before_any_cell(tmp_path):
    proc = run_cli("-m", "level=1,2,-3", f"hydra.sweep.dir={tmp_path / 's'}", check=False)
    assert proc.returncode == 2 and "level = -3" in proc.stderr
    assert not (tmp_path / "s").exists()


def test_cell_writes_results_and_metadata(tmp_path):
    out = tmp_path / "cell"
    run("run.py", "level=2", "n_searches=30", "progress=false", f"hydra.run.dir={out}")
    df = pd.read_parquet(out / "results.parquet")
    assert REQUIRED_COLUMNS <= set(df.columns)
    assert len(df) == 30 and sorted(df["search"]) == list(range(30))
    assert (df["length"] == df["depth"]).all()
    meta = json.loads((out / "meta.json").read_text())
    assert meta["config"]["level"] == 2 and meta["n_done"] == 30 and meta["finished"]
    assert meta["versions"]["numba"] and meta["cpu"]
    assert len(meta["git_commit"] or "") in (0, 40)
    # the command line as typed, beside the job's overrides (what publish reads a reduction from)
    assert meta["command_line"] == [
        "level=2",
        "n_searches=30",
        "progress=false",
        f"hydra.run.dir={out}",
    ]
    assert "n_searches=30" in meta["overrides"]


def test_a_search_row_records_its_cpu_seconds_on_a_named_cpu(tmp_path):
    out = tmp_path / "cell"
    run_cli("level=2", "n_searches=20", "workers=1", "progress=false", f"hydra.run.dir={out}")
    df = pd.read_parquet(out / "results.parquet")
    cpu = df["cpu_seconds"]
    assert cpu.dtype == "float64" and (cpu > 0).all()
    assert (cpu <= df["seconds"] * 1.5 + 0.05).all()  # one thread: no more than its wall time
    meta = json.loads((out / "meta.json").read_text())
    assert meta["cpu"] and meta["cpu"] == cpu_model()  # the model name, where the OS gives it


def _chunks(folder):
    return sorted((folder / "chunks").glob("*.parquet")) if (folder / "chunks").exists() else []


def test_killed_run_resumes_without_recomputing(tmp_path):
    out = tmp_path / "cell"
    args = [
        "run.py",
        "level=3",
        "n_searches=400",
        "chunk_seconds=0.05",
        "progress=false",
        "workers=1",
        f"hydra.run.dir={out}",
    ]
    proc = subprocess.Popen(
        [sys.executable, *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.time() + 120
    while len(_chunks(out)) < 3 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = _chunks(out)
    assert kept, "no chunk was written before the kill"
    done = pd.concat([pd.read_parquet(p) for p in kept])  # every kept chunk is readable
    assert done["search"].is_unique
    if not (out / "results.parquet").exists():
        assert len(done) < 400
    second = run_cli(*args[1:])
    assert f"({len(done)} already done)" in second.stdout + second.stderr or len(done) == 400
    resumed = pd.read_parquet(out / "results.parquet")
    assert sorted(resumed["search"]) == list(range(400))
    # Same results as one uninterrupted run with other chunking and workers.
    fresh_dir = tmp_path / "fresh"
    run_cli(
        "level=3",
        "n_searches=400",
        "progress=false",
        "workers=2",
        f"hydra.run.dir={fresh_dir}",
    )
    fresh = pd.read_parquet(fresh_dir / "results.parquet")
    assert resumed["score"].tolist() == fresh["score"].tolist()
    assert [m.tolist() for m in resumed["moves"]] == [m.tolist() for m in fresh["moves"]]


def test_resume_refuses_a_folder_of_another_config(tmp_path):
    out = tmp_path / "cell"
    run_cli("level=1", "n_searches=5", "progress=false", f"hydra.run.dir={out}")
    proc = run_cli(
        "level=1",
        "memorize=false",
        "n_searches=5",
        "progress=false",
        f"hydra.run.dir={out}",
        check=False,
    )
    assert proc.returncode == 2
    assert "holds results of another config (differs in: memorize)" in proc.stderr
    assert len(pd.read_parquet(out / "results.parquet")) == 5


EXPERIMENTS = (
    "leftmove_distributions",
    "leftmove_best_probability",
    "leftmove_memorize_from",
    "leftmove_realtime",
    "leftmost_level1",
)


@pytest.fixture(scope="module")
def quick_outputs(tmp_path_factory):
    return run_quick_experiments(tmp_path_factory.mktemp("outputs"), EXPERIMENTS)


def test_quick_experiments_gather_their_cells(quick_outputs):
    summary = pd.read_csv(quick_outputs / "quick" / "leftmove_distributions" / "summary.csv")
    assert len(summary) == 8 and set(summary["level"]) == {0, 1, 2, 3}
    best = pd.read_csv(quick_outputs / "quick" / "leftmove_best_probability" / "summary.csv")
    assert len(best) == 18  # levels 1-3, memorized or not, depths 1, 5 and 9 (quick)


def test_analysis_writes_figures_tables_and_report(quick_outputs):
    figures = quick_outputs / "figures" / "quick"
    for stem in (
        "leftmove_distributions_fig3",
        "leftmove_distributions_fig4",
        "leftmove_best_probability",
        "leftmove_memorize_from",
        "leftmove_realtime_fig5_seconds",
        "leftmove_realtime_fig6_playouts",
    ):
        assert (figures / f"{stem}.png").stat().st_size > 0
        assert (figures / f"{stem}.pdf").stat().st_size > 0
    tables = quick_outputs / "tables" / "quick"
    gof = pd.read_csv(tables / "leftmove_distributions_goodness_of_fit.csv")
    assert set(gof["level"]) == {0, 1, 2, 3} and (gof["chi2_p"] > 0).all()
    report = (quick_outputs / "REPRODUCTION.md").read_text()
    for needle in (
        "level 3, depth 9: P(best score) without memorization",
        "level 3, depth 9: P(best score) with memorization",
        "level 3, depth 9: P(best score) with memorization at levels >= 2 only",
        "1.02 %",
        "level 1 beats level 0 by about 6 points",
        "level 3 is worse than level 1",
        "leftmost path: a level-1 search always finds the best score",
    ):
        assert needle in report
    # Experiments without results are listed with the reason they are missing.
    assert "| `samegame_table1_level3`: NMCS paper Table 1, last column" in report
    assert "about 90 core-hours" in report
    leftmost_rows = [line for line in report.splitlines() if line.startswith("| leftmost")]
    assert leftmost_rows and all(line.endswith("| agrees |  |") for line in leftmost_rows)


def test_analysis_without_results_says_so(tmp_path):
    proc = run("-m", "analysis", "--outputs", str(tmp_path / "none"), check=False)
    assert proc.returncode == 2 and "no results folder" in proc.stderr


def test_notebook_runs_at_quick_scale():
    proc = run("notebooks/theory_vs_simulation.py", env={"NMCS_SCALE": "quick"})
    assert "depth 9, level 3: theory 0.4118" in proc.stdout


def test_analysis_rebuilds_what_it_owns_and_says_what_it_skipped(quick_outputs, tmp_path):
    stale = quick_outputs / "figures" / "quick" / "from_an_old_run.png"
    stale.write_bytes(b"not a figure")
    # A cell that never finished is reported, not silently dropped.
    (quick_outputs / "quick" / "leftmove_distributions" / "level=9" / "chunks").mkdir(parents=True)
    proc = run_analysis("analysis", "--outputs", str(quick_outputs), "--scale", "quick")
    assert not stale.exists()
    assert (quick_outputs / "figures" / "quick" / "leftmove_distributions_fig3.png").exists()
    assert "wrote" in proc.stdout and str(quick_outputs / "tables" / "quick") in proc.stdout
    assert "skipped leftmove_distributions: 1 unfinished cell(s) not counted (level=9)" in (
        proc.stdout
    )
    report = (quick_outputs / "REPRODUCTION.md").read_text()
    assert "Pipeline check, not a reproduction" in report
    # 2,000 searches cannot tell 0.41 from 0.42: the rounding of the paper is +-0.005.
    row = next(line for line in report.splitlines() if "P(best score) without" in line)
    assert row.endswith("| not enough data |  |")  # no Holm p: not a "differs"


def test_published_results_regenerate_the_same_claims(quick_outputs, tmp_path, monkeypatch):
    from analysis import __main__ as entry

    monkeypatch.setattr(entry, "modified_code", lambda: [])  # publish as if committed
    target = tmp_path / "published"
    run_analysis(
        "analysis.publish", "--outputs", str(quick_outputs), "--scale", "quick", "--to", str(target)
    )
    packed = sorted(target.glob("*/results.parquet"))
    published = sum(pd.read_parquet(p, columns=["cell_dir"])["cell_dir"].nunique() for p in packed)
    assert published == len(list((quick_outputs / "quick").glob("*/*/results.parquet")))
    assert "moves" not in pd.read_parquet(packed[0]).columns
    assert (target / "RUNS.md").read_text().count("| leftmove_distributions |") == 8
    run_analysis("analysis", "--from", str(target), "--scale", "quick", "--publish")
    run_analysis("analysis", "--outputs", str(quick_outputs), "--scale", "quick")

    def claim_rows(path):
        return [line for line in path.read_text().splitlines() if line.startswith("| ")]

    assert claim_rows(target / "REPRODUCTION.md") == claim_rows(quick_outputs / "REPRODUCTION.md")
    assert (target / "figures" / "leftmove_distributions_fig3.png").stat().st_size > 0


def test_the_committed_paper_report_regenerates_from_its_files(tmp_path):
    """results/paper holds compact per-search files; the analysis rebuilds the same claims and
    verdicts from them (the report's first lines, which name the time and code, differ), and
    writes them into --out, not over the committed files."""
    published = REPO / "results" / "paper"
    if not (published / "REPRODUCTION.md").exists():
        pytest.skip("no published paper-scale results in this checkout")
    before = {p: p.stat().st_mtime_ns for p in published.rglob("*") if p.is_file()}
    out = tmp_path / "out"
    proc = run_analysis("analysis", "--from", str(published), "--out", str(out))
    assert f"wrote {out / 'REPRODUCTION.md'}" in proc.stdout

    def claims(path):
        return [line for line in path.read_text().splitlines() if line.startswith("| ")]

    assert claims(out / "REPRODUCTION.md") == claims(published / "REPRODUCTION.md")
    assert (out / "figures" / "leftmove_distributions_fig3.png").exists()
    assert (out / "tables" / "leftmove_distributions_goodness_of_fit.csv").exists()
    assert {p: p.stat().st_mtime_ns for p in published.rglob("*") if p.is_file()} == before


# Level 0, the smallest entry point (1.3 s to compile against 3.7 s for level 1): what is
# checked is the announcement, the same for every entry point.
COMPILE_ONE = (
    "from nmcs import make_state, search_batch, search_seeds\n"
    "search_batch('leftmove', make_state('leftmove', depth=5), search_seeds(0, 0, 1), level=0)\n"
)


def test_first_compile_is_announced_and_a_cached_load_is_not(tmp_path):
    """A pair's first run on a clean cache says on stderr that it compiles, and how long it
    took (nmcs.search.entry.compile_entry); a second process started at the same time waits
    for that compile (nmcs.core.generated.compile_lock) and loads it from the cache quietly."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["NMCS_CACHE_ROOT"] = str(tmp_path / "cache")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", COMPILE_ONE],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    said = [proc.communicate(timeout=300)[1].splitlines() for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], said
    compiled = [lines for lines in said if any("compiling" in line for line in lines)]
    assert len(compiled) == 1, said
    first = compiled[0]
    assert first[0] == (
        "compiling leftmove x nested, level 0 (first run only; cached afterwards) ..."
    )
    assert first[1].startswith("... done in ") and first[1].endswith(" s")


def test_a_compile_lock_held_elsewhere_is_waited_for_then_gone_without(tmp_path):
    """compile_lock: a second holder waits while the first holds the lock, and goes on
    without it once its wait is over (a process stopped mid-compile blocks no one for good),
    or at once where the lock file cannot be written."""
    import threading
    import time
    import types

    from nmcs.core.generated import compile_lock

    module = types.ModuleType("generated_entry")
    module.__file__ = str(tmp_path / "generated_entry.py")
    waited = []

    def second():
        t = time.monotonic()
        with compile_lock(module, wait_seconds=0.3):
            waited.append(time.monotonic() - t)

    with compile_lock(module):
        thread = threading.Thread(target=second)
        thread.start()
        thread.join()
    assert waited and waited[0] >= 0.3
    t = time.monotonic()
    with compile_lock(module, wait_seconds=0.3):
        assert time.monotonic() - t < 0.3
    module.__file__ = str(tmp_path / "no such folder" / "generated_entry.py")
    with compile_lock(module):  # nowhere to put the lock: none, and no error
        pass


def test_hydras_basic_sweeper_splits_a_sweep_as_the_preflight_relies_on():
    """What ``cli._cells`` relies on (``cli.basic_sweeper``): one batch, the product of the
    sweeps in key order, a key given again (the command line after an experiment's params)
    taking its last value."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from nmcs.harness import cli

    sweeper = cli.basic_sweeper()
    assert sweeper.__name__ == "BasicSweeper"
    parsed = OverridesParser.create().parse_overrides(
        ["level=0,1", "game=leftmove", "seed=1,2", "level=2,3"]
    )
    assert sweeper.split_arguments(parsed, None) == [
        [
            ["level=2", "game=leftmove", "seed=1"],
            ["level=2", "game=leftmove", "seed=2"],
            ["level=3", "game=leftmove", "seed=1"],
            ["level=3", "game=leftmove", "seed=2"],
        ]
    ]


def test_after_the_preflight_hydras_basic_sweeper_composes_no_job_again(monkeypatch):
    """The pre-flight check composes and validates every cell; Hydra's basic sweeper then skips
    its own compose of each job (``validate_batch_is_legal``), any other sweeper keeps it."""
    from hydra.plugins.sweeper import Sweeper

    from nmcs.harness import cli

    BasicSweeper = cli.basic_sweeper()

    checked = []
    monkeypatch.setattr(Sweeper, "validate_batch_is_legal", lambda self, batch: checked.append(1))
    cli._skip_hydras_batch_check(True)

    class OtherSweeper(BasicSweeper):
        pass

    BasicSweeper(max_batch_size=None, params=None).validate_batch_is_legal([["level=1"]])
    assert checked == []
    OtherSweeper(max_batch_size=None, params=None).validate_batch_is_legal([["level=1"]])
    assert checked == [1]
    # A later command whose cells the pre-flight check did not all compose (over
    # MAX_CHECKED_CELLS) keeps Hydra's check, in the same process (the patch is not stacked).
    patched = Sweeper.validate_batch_is_legal
    cli._skip_hydras_batch_check(False)
    assert Sweeper.validate_batch_is_legal is patched
    BasicSweeper(max_batch_size=None, params=None).validate_batch_is_legal([["level=1"]])
    assert checked == [1, 1]


@pytest.mark.unit
def test_the_summaries_skip_an_experiment_whose_only_cell_is_still_running(tmp_path):
    """A multirun's end summarizes every experiment folder whose cells changed meanwhile, those
    of other runs included: a folder whose one cell is still on its first run (a meta.json, no
    results yet) has nothing to summarize, and no summary is written."""
    from types import SimpleNamespace

    from nmcs.harness.callbacks import GatherCells
    from nmcs.harness.match_cell import write_match_summary
    from nmcs.harness.summary import write_summary

    experiment = tmp_path / "nrpa_vs_nmcs_time_morpion"
    (experiment / "level=2").mkdir(parents=True)
    (experiment / "level=2" / "meta.json").write_text(json.dumps({"kind": "searches"}))
    assert write_summary(experiment).empty and write_match_summary(experiment).empty
    config = SimpleNamespace(hydra=SimpleNamespace(sweep=SimpleNamespace(dir=str(tmp_path))))
    callback = GatherCells()
    callback.started = time.time() - 60
    callback.on_multirun_end(config)
    assert sorted(p.name for p in experiment.iterdir()) == ["level=2"]


@pytest.mark.parametrize(
    "command",
    [
        ("-m", "experiment=leftmove_memorize_from", "scale=quick", "n_searches=3"),
        ("level=1", "n_searches=3"),
    ],
    ids=["sweep", "single"],
)
def test_each_cell_is_composed_once_into_what_hydra_composes(tmp_path, monkeypatch, command):
    """Hydra's run uses the pre-flight check's composition of each cell
    (``nmcs.harness.composed``) instead of composing it again, and what it writes of each
    job's config (``.hydra/*.yaml``) is what composing it again writes."""
    from nmcs.harness import composed

    class Counted(dict):
        used = 0

        def pop(self, *args):
            Counted.used += 1
            return super().pop(*args)

    def run(folder, keep):
        monkeypatch.setattr(composed, "KEEP", keep)
        monkeypatch.setattr(composed, "_KEPT", Counted())
        Counted.used = 0
        dirs = (f"hydra.sweep.dir={folder}", f"hydra.run.dir={folder}/cell")
        run_cli(*command, "progress=false", *dirs)
        files = sorted(folder.rglob(".hydra/*.yaml"))
        return Counted.used, {
            str(p.relative_to(folder)): p.read_text().replace(str(folder), "OUT") for p in files
        }

    cells = 6 if "-m" in command else 1
    used, once = run(tmp_path / "once", keep=True)
    assert used == cells  # every cell's composition was used
    used, twice = run(tmp_path / "twice", keep=False)
    assert used == 0
    assert once == twice and len(once) == 3 * cells  # config, hydra and overrides of each
