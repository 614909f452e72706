"""The analysis on unsafe ground (docs/safety.md): an unreadable results file is named in one
line; analysing one scale keeps the report's other sections; analysing the same results again
changes no byte of the report or the tables."""

from pathlib import Path

import pandas as pd
import pytest
from helpers import run_analysis

from analysis.common import save_table
from analysis.report import scale_sections, write_report

pytestmark = pytest.mark.experiment


def test_an_unreadable_results_file_is_named_in_one_line(tmp_path):
    cell = tmp_path / "quick" / "leftmove_distributions" / "level=1"
    cell.mkdir(parents=True)
    pd.DataFrame({"cell": ["c"], "search": [0]}).to_parquet(cell / "results.parquet")
    data = (cell / "results.parquet").read_bytes()
    (cell / "results.parquet").write_bytes(data[: len(data) // 2])
    proc = run_analysis("analysis", "--outputs", str(tmp_path), "--scale", "quick", check=False)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(
        f"analysis: error: {cell / 'results.parquet'}: unreadable results file ("
    )


def test_one_scale_keeps_the_other_sections(tmp_path):
    paper = ["## Scale: paper", "", "### A section", "", "| claim | x |", ""]
    report = tmp_path / "REPRODUCTION.md"
    report.write_text("# Reproduction report\n\nGenerated long ago.\n\n" + "\n".join(paper) + "\n")
    (tmp_path / "quick").mkdir()
    run_analysis("analysis", "--outputs", str(tmp_path), "--scale", "quick")
    sections = scale_sections(report)
    assert list(sections) == ["quick", "paper"]
    assert sections["paper"] == paper
    first = report.read_bytes()
    run_analysis("analysis", "--outputs", str(tmp_path), "--scale", "quick")
    assert report.read_bytes() == first  # only the Generated line would differ: not rewritten


def test_the_report_is_rewritten_when_a_claim_changes(tmp_path):
    path = write_report(tmp_path, {"quick": []})
    before = path.read_text()
    write_report(tmp_path, {"quick": []})
    assert path.read_text() == before
    write_report(tmp_path, {})
    assert path.read_text() != before


def test_table_floats_are_rounded(tmp_path: Path):
    """A value computed in another order differs in its last bits: the CSV is the same."""
    a, b = 0.010808360369313269, 0.01080836036931327
    assert a != b
    save_table(pd.DataFrame({"p": [a]}), tmp_path / "a", "t")
    save_table(pd.DataFrame({"p": [b]}), tmp_path / "b", "t")
    assert (tmp_path / "a" / "t.csv").read_bytes() == (tmp_path / "b" / "t.csv").read_bytes()
    assert (tmp_path / "a" / "t.csv").read_text() == "p\n0.0108083603693\n"
