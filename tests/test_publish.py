"""Publishing results: each experiment packed into three files, RUNS.md lists every published
cell, and a run made smaller than its scale on the command line is said beside each of its
results."""

import dataclasses
import json
import shutil

import numpy as np
import pandas as pd
import pytest

from analysis import publish as publish_module
from analysis.__main__ import mark_reduced, reduced_cells, reduced_runs
from analysis.common import Claim, Context, cells_read
from analysis.publish import cell_metas, publish, read_published, reduced_overrides
from nmcs.harness.results import experiment_results

pytestmark = pytest.mark.experiment


def make_cell(root, experiment, cell, n, overrides=None, score=1):
    folder = root / experiment / cell
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"cell": cell, "search": range(n), "score": [score] * n, "seconds": [0.5] * n}
    ).to_parquet(folder / "results.parquet")
    (folder / "best_game.txt").write_text(f"game g, score {score}\n+--+\n|{cell}|\n")
    meta = {"git_commit": "abcdef0123456789", "git_dirty": False, "finished": "now"}
    if overrides is not None:
        meta["overrides"] = overrides
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


def test_reduced_overrides_name_only_the_size_keys():
    meta = {"overrides": ["experiment=e", "scale=paper", "n_searches=3", "memorize=true"]}
    assert reduced_overrides(meta) == "n_searches=3"
    assert reduced_overrides({"overrides": ["experiment=e", "memorize=true"]}) == ""
    assert reduced_overrides({}) == ""  # cells run before overrides were recorded


def test_reduced_overrides_leave_out_what_the_experiment_sweeps():
    # morpion_reflexive_table3 sweeps budget.playouts: each budget is a cell, not a reduction
    table3 = {"overrides": ["budget.playouts=100", "experiment=morpion_reflexive_table3"]}
    assert reduced_overrides(table3, "morpion_reflexive_table3") == ""
    fig10 = {"overrides": ["experiment=morpion_fig10", "budget.seconds=40.96", "n_searches=10"]}
    assert reduced_overrides(fig10, "morpion_fig10") == "budget.seconds=40.96 n_searches=10"
    # read from the command line as typed where it was recorded
    typed = {
        "overrides": ["game.problem_seed=10003", "sudoku_method=fc", "n_searches=1"],
        "command_line": ["experiment=sudoku_effort", "game.problem_seed=range(10000,10010)"],
    }
    assert reduced_overrides(typed, "sudoku_effort") == ""
    typed["command_line"].append("budget.playouts=1000")
    assert reduced_overrides(typed, "sudoku_effort") == "budget.playouts=1000"


def test_an_override_equal_to_the_scales_own_size_is_not_a_reduced_run():
    # mcbs_fig4_level1 runs 50 searches at paper scale and 3 at quick
    paper = {"config": {"scale": {"name": "paper"}}, "command_line": ["n_searches=50"]}
    assert reduced_overrides(paper, "mcbs_fig4_level1") == ""
    paper["command_line"] = ["n_searches=16"]
    assert reduced_overrides(paper, "mcbs_fig4_level1") == "n_searches=16"
    quick = {"config": {"scale": {"name": "quick"}}, "command_line": ["n_searches=50"]}
    assert reduced_overrides(quick, "mcbs_fig4_level1") == "n_searches=50"
    # mcbs_fig5's paper budget is 163.0 s: typed as 163 it is the same
    fig5 = {"config": {"scale": {"name": "paper"}}, "command_line": ["budget.seconds=163"]}
    assert reduced_overrides(fig5, "mcbs_fig5") == ""
    fig5["command_line"] = ["budget.seconds=40"]
    assert reduced_overrides(fig5, "mcbs_fig5") == "budget.seconds=40"


def test_an_experiment_is_packed_into_three_files_that_keep_every_cell(tmp_path):
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    for i in range(3):
        make_cell(outputs / "paper", "exp", f"a={i}", 2 + i, score=10 + i)
    publish(outputs, "paper", target)
    assert sorted(p.name for p in (target / "exp").iterdir()) == [
        "best_games.txt",
        "cells.jsonl.gz",
        "results.parquet",
    ]
    rows, metas, games = read_published(target / "exp")
    assert rows.groupby("cell_dir")["score"].agg(["size", "first"]).to_dict("index") == {
        "a=0": {"size": 2, "first": 10},
        "a=1": {"size": 3, "first": 11},
        "a=2": {"size": 4, "first": 12},
    }
    assert set(metas) == {"a=0", "a=1", "a=2"} and metas["a=1"]["git_commit"].startswith("abc")
    assert games["a=2"] == "game g, score 12\n+--+\n|a=2|"
    # a cell run again replaces its published copy; the others stay
    (outputs / "paper" / "exp").rename(tmp_path / "old")
    make_cell(outputs / "paper", "exp", "a=1", 5, score=20)
    publish(outputs, "paper", target)
    rows, metas, games = read_published(target / "exp")
    assert rows.groupby("cell_dir").size().to_dict() == {"a=0": 2, "a=1": 5, "a=2": 4}
    assert (rows[rows["cell_dir"] == "a=1"]["score"] == 20).all() and "score 20" in games["a=1"]
    assert cell_metas(target / "exp").keys() == metas.keys()


def test_a_cell_of_many_searches_that_end_alike_is_published_as_counts(tmp_path, monkeypatch):
    monkeypatch.setattr(publish_module, "COUNTED_ABOVE", 20)
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    scores = np.random.default_rng(1).integers(0, 3, 100)
    for cell, score in (("many", scores), ("distinct", np.arange(100)), ("few", scores[:20])):
        folder = make_cell(outputs / "paper", "exp", cell, len(score))
        rows = pd.read_parquet(folder / "results.parquet").assign(score=score)
        rows.assign(trace=[[int(s)] for s in score]).to_parquet(folder / "results.parquet")
    publish(outputs, "paper", target)
    stored = pd.read_parquet(target / "exp" / "results.parquet")
    sizes = stored.groupby("cell_dir").size().to_dict()
    assert sizes == {"many": 3, "distinct": 100, "few": 20}  # distinct rows keep their index
    assert (stored[stored["cell_dir"] == "many"]["search"] == -1).all()
    read = experiment_results(target / "exp")
    for cell, group in read.groupby("cell_dir"):
        original = pd.read_parquet(outputs / "paper" / "exp" / cell / "results.parquet")
        assert sorted(group["score"]) == sorted(original["score"])
        assert sorted(map(list, group["trace"])) == sorted(map(list, original["trace"]))
    assert "| exp | many | 100 |" in (target / "RUNS.md").read_text()
    # read with counted=True: the stored rows as they are, each weighing its count (1 for a
    # row with its own index), the same number of searches and score totals per cell
    kept = experiment_results(target / "exp", counted=True)
    assert kept.groupby("cell_dir").size().to_dict() == sizes
    assert (kept.loc[kept["search"] >= 0, "count"] == 1).all()
    assert (
        kept.groupby("cell_dir")["count"].sum().to_dict()
        == read.groupby("cell_dir").size().to_dict()
    )
    with pytest.raises(TypeError, match="counted = 'no': must be True or False"):
        experiment_results(target / "exp", counted="no")
    weighted = (kept["score"] * kept["count"]).groupby(kept["cell_dir"]).sum()
    assert weighted.to_dict() == read.groupby("cell_dir")["score"].sum().to_dict()
    # a copy published before counts is counted on the next publish, to the same rows
    again = tmp_path / "again"
    (again / "exp").mkdir(parents=True)
    expanded = read.drop(columns=["search"]).assign(
        search=np.concatenate([np.arange(n) for n in read.groupby("cell_dir", sort=False).size()])
    )
    expanded.to_parquet(again / "exp" / "results.parquet")
    (target / "exp" / "cells.jsonl.gz").rename(again / "exp" / "cells.jsonl.gz")
    shutil.copy(target / "exp" / "best_games.txt", again / "exp")
    publish_module.write_published(again / "exp", *read_published(again / "exp"))
    republished = pd.read_parquet(again / "exp" / "results.parquet")
    assert republished.groupby("cell_dir").size().to_dict() == sizes


def test_cpu_seconds_is_published_as_its_cell_mean_and_nan_where_a_row_lacks_it(monkeypatch):
    monkeypatch.setattr(publish_module, "COUNTED_ABOVE", 2)
    cpu = np.linspace(0.1, 0.4, 20)
    rows = pd.DataFrame(
        {"cell": "c", "search": range(20), "score": 1, "seconds": 0.5, "cpu_seconds": cpu}
    )
    compact = publish_module.compact_rows(rows, "c")
    # One mean, as for wall seconds: rows that end alike still pack into one counted row.
    assert len(compact) == 1 and compact["count"].tolist() == [20]
    assert compact["cpu_seconds"].tolist() == pytest.approx([0.25])
    partly = publish_module.compact_rows(rows.assign(cpu_seconds=[None, *cpu[1:]]), "c")
    assert partly["cpu_seconds"].isna().all()  # not the mean of the rows that have it


def test_cells_published_one_folder_each_are_packed_on_the_next_publish(tmp_path):
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    (outputs / "paper").mkdir(parents=True)
    make_cell(target, "older", "b=1", 3, ["experiment=older", "n_searches=3"], score=7)
    publish(outputs, "paper", target)
    assert not (target / "older" / "b=1").exists()
    rows, metas, games = read_published(target / "older")
    assert len(rows) == 3 and set(rows["cell_dir"]) == {"b=1"} and "score 7" in games["b=1"]
    assert "| older | b=1 | 3 | n_searches=3 |" in (target / "RUNS.md").read_text()


def test_publishing_again_keeps_the_cells_published_before(tmp_path):
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    make_cell(outputs / "paper", "first", "a=1", 4)
    publish(outputs, "paper", target)
    (outputs / "paper" / "first").rename(tmp_path / "gone")  # a later session's fresh outputs
    make_cell(outputs / "paper", "second", "b=1", 2, ["experiment=second", "n_searches=2"])
    copied = publish(outputs, "paper", target)
    assert list(copied["experiment"]) == ["second"]
    runs = (target / "RUNS.md").read_text()
    assert "| first | a=1 | 4 |" in runs
    assert "| second | b=1 | 2 | n_searches=2 |" in runs
    # seconds is the cell's total, kept through the compact copy
    assert "| 2 |" in runs.split("| first | a=1 |")[1].split("\n")[0]


def test_a_reduced_run_is_said_beside_its_results_and_in_its_command(tmp_path):
    make_cell(tmp_path, "small", "a=1", 3, ["experiment=small", "scale=paper", "n_searches=3"])
    make_cell(tmp_path, "full", "a=1", 10, ["experiment=full", "scale=paper"])
    reduced = reduced_runs(Context(tmp_path, "paper", published=tmp_path))
    assert reduced == {"small": "n_searches=3"}
    cmd = "python run.py -m experiment={} scale=paper && python -m analysis"
    small = mark_reduced(Claim("s", "c", "1", "2 [1, 3]", "agrees", cmd.format("small")), reduced)
    assert small.ours == "2 [1, 3] (reduced run: n_searches=3)"
    assert "experiment=small scale=paper n_searches=3 &&" in small.command
    full = Claim("s", "c", "1", "2", "agrees", cmd.format("full"))
    assert mark_reduced(full, reduced) == full


def test_a_claim_reading_two_reduced_runs_names_each():
    reduced = {"one": "n_searches=5", "two": "budget.playouts=100"}
    cmd = (
        "python run.py -m experiment=one scale=paper && "
        "python run.py -m experiment=two scale=paper algo=iterative && python -m analysis"
    )
    both = mark_reduced(Claim("s", "c", "1", "2", "agrees", cmd), reduced)
    assert both.ours == "2 (reduced runs: one: n_searches=5; two: budget.playouts=100)"
    assert "experiment=two scale=paper budget.playouts=100 algo=iterative &&" in both.command


def test_a_command_that_sizes_its_run_itself_is_left_as_it_is():
    """A claim that reruns exactly the cells it read (a hunt's samples, each with its
    n_searches) keeps its command; the other commands of the line still get the note's."""
    reduced = {"hunt": "n_searches=113", "other": "n_searches=22"}
    cmd = (
        "python run.py experiment=hunt scale=paper seeds=common n_searches=400 && "
        "python run.py experiment=hunt scale=paper seeds=cell n_searches=113 && "
        "python run.py -m experiment=other scale=paper && python -m analysis"
    )
    marked = mark_reduced(Claim("s", "c", "1", "2", "agrees", cmd), reduced)
    assert marked.command == cmd.replace("other scale=paper", "other scale=paper n_searches=22")


def test_from_writes_under_outputs_and_into_the_folder_only_with_publish(
    tmp_path, capsys, monkeypatch
):
    from analysis import __main__ as entry
    from analysis.__main__ import main

    monkeypatch.setattr(entry, "modified_code", lambda: [])  # as committed

    outputs, target = tmp_path / "outputs", tmp_path / "published"
    make_cell(outputs / "paper", "exp", "a=1", 3)
    publish(outputs, "paper", target)
    packed = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    # Default: <outputs>/published/<name>/, the published folder untouched.
    assert main(["--from", str(target), "--outputs", str(outputs)]) == 0
    report = outputs / "published" / "published" / "REPRODUCTION.md"
    assert f"results under `{target}/`" in report.read_text()
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == packed
    # --out names the folder; pointing it at the published folder needs --publish.
    assert main(["--from", str(target), "--out", str(tmp_path / "elsewhere")]) == 0
    assert (tmp_path / "elsewhere" / "REPRODUCTION.md").exists()
    for argv in (
        ["--from", str(target), "--out", str(target)],
        ["--from", str(target), "--out", str(tmp_path / "x"), "--publish"],
        ["--publish"],
    ):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
    assert not (target / "REPRODUCTION.md").exists()
    assert main(["--from", str(target), "--publish"]) == 0
    assert (target / "REPRODUCTION.md").read_text().splitlines()[4:] == (
        report.read_text().splitlines()[4:]
    )


def test_publish_refuses_code_that_differs_from_its_commit(tmp_path, capsys, monkeypatch):
    from analysis import __main__ as entry

    outputs, target = tmp_path / "outputs", tmp_path / "published"
    make_cell(outputs / "paper", "exp", "a=1", 3)
    publish(outputs, "paper", target)
    monkeypatch.setattr(entry, "modified_code", lambda: ["analysis/report.py", "conf/x.yaml"])
    assert entry.main(["--from", str(target), "--publish"]) == 2
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and "analysis/report.py, conf/x.yaml" in said[0]
    assert "commit them first" in said[0]
    assert not (target / "REPRODUCTION.md").exists()
    # Not a git checkout: the commit of the code is not known, so nothing is published either.
    monkeypatch.setattr(entry, "modified_code", lambda: None)
    assert entry.main(["--from", str(target), "--publish"]) == 2
    # A report elsewhere is still written, its header saying "(modified)".
    monkeypatch.setattr(entry, "modified_code", lambda: ["analysis/report.py"])
    assert entry.main(["--from", str(target), "--out", str(tmp_path / "draft")]) == 0
    assert "(modified)" in (tmp_path / "draft" / "REPRODUCTION.md").read_text()
    monkeypatch.setattr(entry, "modified_code", lambda: [])
    assert entry.main(["--from", str(target), "--publish"]) == 0
    assert "(modified)" not in (target / "REPRODUCTION.md").read_text()


def test_runs_md_says_each_cells_seeds_and_whether_its_tree_was_modified(tmp_path):
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    for cell, identity, dirty in (
        ("a=1", {"seed": 0}, False),
        ("a=2", {"seed": 0, "seed_scheme": "cell"}, True),
    ):
        folder = make_cell(outputs / "paper", "exp", cell, 3)
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(
            json.dumps(meta | {"identity": identity, "git_dirty": dirty})
        )
    publish(outputs, "paper", target)
    runs = (target / "RUNS.md").read_text()
    assert "| exp | a=1 | 3 |  | common | abcdef0123 | clean |" in runs
    assert "| exp | a=2 | 3 |  | cell | abcdef0123 | modified |" in runs
    assert "1 common, 1 cell" in runs and "(1 of 2 cells)" in runs
    before = runs
    publish_module.write_runs(target, "paper")
    assert (target / "RUNS.md").read_text() == before  # no date of its own: the same bytes


def test_a_claim_is_labelled_only_with_the_reduced_runs_it_reads(tmp_path):
    """Fig 8's peaks (10,000 searches, the paper's scale) share a section and a rerun command
    with Fig 9's reduced level-3 run; only a claim that reads the level-3 cells says so."""
    make_cell(tmp_path, "figs", "level=1", 10, ["experiment=figs", "scale=paper"])
    make_cell(tmp_path, "level3", "level=3", 3, ["experiment=level3", "n_searches=3"])
    mixed = make_cell(tmp_path, "mixed", "fc", 2, ["experiment=mixed", "budget.playouts=9"])
    make_cell(tmp_path, "mixed", "nested", 5, ["experiment=mixed"])
    for folder, cell in ((tmp_path / "level3" / "level=3", "h3"), (mixed, "hfc")):
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(json.dumps({**meta, "cell": cell}))
    ctx = Context(tmp_path, "paper", published=tmp_path)
    reduced, cells = reduced_runs(ctx), reduced_cells(ctx)
    assert reduced == {"level3": "n_searches=3", "mixed": "budget.playouts=9"}
    assert cells == {("level3", "h3"): "n_searches=3", ("mixed", "hfc"): "budget.playouts=9"}
    cmd = (
        "python run.py -m experiment=figs scale=paper && "
        "python run.py -m experiment=level3 scale=paper && python -m analysis"
    )
    peak = Claim("s", "c", "1", "2", "agrees", cmd, frozenset({("figs", "h1")}))
    marked = mark_reduced(peak, reduced, cells)
    assert marked.ours == "2"  # reads no reduced cell
    assert "experiment=level3 scale=paper n_searches=3 &&" in marked.command  # reruns the same
    cost = Claim("s", "c", "1", "2", "agrees", cmd, frozenset({("figs", "h1"), ("level3", "h3")}))
    assert mark_reduced(cost, reduced, cells).ours == "2 (reduced run: n_searches=3)"
    # Without what it reads, every reduced experiment of its command (as before).
    assert mark_reduced(Claim("s", "c", "1", "2", "agrees", cmd), reduced, cells).ours == (
        "2 (reduced run: n_searches=3)"
    )
    # Cells of one experiment: only the reduced one labels.
    mixed_cmd = "python run.py -m experiment=mixed scale=paper && python -m analysis"
    nested = Claim("s", "c", "1", "2", "agrees", mixed_cmd, frozenset({("mixed", "hn")}))
    assert mark_reduced(nested, reduced, cells).ours == "2"
    fc = dataclasses.replace(nested, reads=frozenset({("mixed", "hn"), ("mixed", "hfc")}))
    assert mark_reduced(fc, reduced, cells).ours == "2 (reduced run: budget.playouts=9)"
    # A cell whose meta.json does not name its hash: its experiment counts whole.
    assert mark_reduced(nested, reduced, {}).ours == "2 (reduced run: budget.playouts=9)"


def test_cells_read_names_experiment_and_cell():
    rows = pd.DataFrame({"experiment": ["e", "e", "f"], "cell": ["a", "a", "b"], "score": 1})
    assert cells_read(rows, rows.iloc[:0]) == {("e", "a"), ("f", "b")}
    assert cells_read(rows[["score"]]) == frozenset()


def test_a_cell_whose_extension_is_under_way_keeps_its_published_copy(tmp_path, capsys):
    # A finished cell of 3 searches, published; then n_searches raised to 5 and the run
    # stopped: results.parquet still holds 3 rows, meta.json names the larger run.
    outputs, target = tmp_path / "outputs", tmp_path / "published"
    cell = make_cell(outputs / "paper", "exp", "c=1", 3, overrides=["n_searches=3"])
    publish(outputs, "paper", target)
    meta = json.loads((cell / "meta.json").read_text())
    meta.update(finished=None, overrides=["n_searches=5"])
    (cell / "meta.json").write_text(json.dumps(meta))
    copied = publish(outputs, "paper", target)
    assert len(copied) == 0 and "c=1: left out, its extension is not finished" in (
        capsys.readouterr().err
    )
    assert cell_metas(target / "exp")["c=1"]["overrides"] == ["n_searches=3"]
    assert "n_searches=3" in (target / "RUNS.md").read_text()
