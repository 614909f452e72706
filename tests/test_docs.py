"""The documentation site: its generated reference names every registered game and algorithm
with its options and every result column, it builds with ``mkdocs build --strict`` (no broken
link, anchor or API reference), and no page names an issue number."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nmcs.games import registry as games
from nmcs.search import registry as algorithms

pytestmark = pytest.mark.experiment

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("reference", ROOT / "docs/hooks/reference.py")
assert _spec is not None and _spec.loader is not None
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)


def _section(page: str, name: str) -> str:
    """The part of a generated page under ``## `name```."""
    found = re.search(rf"^## `{re.escape(name)}`\n(.*?)(?=^## |\Z)", page, re.S | re.M)
    assert found, f"no section for {name}"
    return found.group(1)


def _meaning(section: str, key: str) -> str:
    """The last cell (the meaning) of ``key``'s row in a section's table of options."""
    row = re.search(rf"^\| `{re.escape(key)}` \|.*\| ([^|]*) \|$", section, re.M)
    assert row, key
    return row.group(1).strip()


def test_every_game_is_named_with_its_options_and_their_meanings():
    page = reference.games_page()
    for name in games.names():
        section = _section(page, name)
        for option in games.game(name).option_names():
            assert f"| `game.{option}` |" in section, (name, option)
            assert _meaning(section, f"game.{option}"), (name, option)


def test_every_algorithm_is_named_with_its_options_and_defaults():
    page = reference.algorithms_page()
    for name in algorithms.names():
        record = algorithms.algorithm(name)
        section = _section(page, name)
        for option in record.option_names():
            row = re.search(rf"^\| `algo\.{option}` \| [^|]+ \| `([^`]*)` \|", section, re.M)
            assert row, (name, option)
            default = getattr(record.config(), option)
            shown = reference._show(list(default) if isinstance(default, tuple) else default)
            assert row.group(1) == shown, (name, option, row.group(1), shown)
            assert _meaning(section, f"algo.{option}"), (name, option)


def test_the_config_reference_gives_the_checks_own_words():
    page = reference.config_page()
    assert "| `level` | int | `1` | level = -1: must be an integer from 0 to 6 |" in page
    assert "| `seed` | int | `0` | seed = -1: must be an integer from 0 to 2**63 - 1 |" in page
    assert "`player_a.level`" in page


def test_every_result_column_is_described():
    columns = reference.result_columns()
    described = set(reference.SEARCH_COLUMNS)
    written = set(reference._search(columns))
    assert written == described, written ^ described
    assert set(reference._match(columns)) == set(reference.MATCH_COLUMNS)


def test_no_page_names_an_issue_number():
    pages = [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    for page in pages:
        for line in page.read_text().splitlines():
            line = re.sub(r"numba issue #?\d+", "", line)
            assert not re.search(r"\b[Ii]ssues? #?\d+", line), f"{page.name}: {line.strip()}"


def _prose(page: Path) -> list[str]:
    """The lines of a Markdown page outside its fenced blocks (code, file contents)."""
    lines, fenced = [], False
    for line in page.read_text().splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


DATED = re.compile(
    r"\b20\d\d-[01]\d-[0-3]\d\b|\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
    r"[a-z]* 20\d\d\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? 20\d\d\b"
)


@pytest.mark.unit
def test_no_page_says_when_something_was_measured_or_done():
    """A page says what holds and on which machine, not on which day (a date dates it)."""
    pages = [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    dated = [f"{p.name}: {line.strip()}" for p in pages for line in _prose(p) if DATED.search(line)]
    assert not dated, dated


@pytest.mark.unit
def test_the_readmes_links_work_on_the_repository_page():
    """Every relative link of README.md names a file or folder of the repository (a page that
    exists only in the built site would be a dead link there)."""
    readme = (ROOT / "README.md").read_text()
    targets = re.findall(r"\]\((?!https?://|#)([^)#\s]+)", readme)
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, missing


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:  # make test-fast installs without them
        pytest.fail(
            "the documentation site's packages are not installed: make test (or make docs) "
            "installs them, as does pip install -e '.[docs]'",
            pytrace=False,
        )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert (tmp_path / "reference" / "games" / "index.html").exists()
    assert (tmp_path / "reference" / "api" / "index.html").exists()


REPORT = ROOT / "results" / "paper" / "REPRODUCTION.md"
# A count of verdicts as a page would state one ("103 agree, 18 differ, 16 not enough data, 8
# not run") and a number of decidable statements ("121 decidable").
COUNTS = re.compile(
    r"(\d+) agrees?, (\d+) differs?(?:, (\d+) not enough data)?(?:, (\d+) not run)?"
)
DECIDABLE = re.compile(r"(\d+) (?:statements (?:decided on our data )?(?:are )?)?decidable")


def report_counts() -> dict:
    """The published report's headline: its counts by statement decided on our data (and of
    the paper's values against exact ones), and how many are decidable."""
    report = REPORT.read_text()
    data = re.search(r"Decided on our data \((\d+) statements\): (.*)\.$", report, re.M)
    assert data, "the report's counts by statement"
    counts = {w: int(n) for n, w in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", data.group(2))}
    assert counts and sum(counts.values()) == int(data.group(1))
    exact = re.search(r"^Paper vs exact \(\d+ statements.*?\): (.*)\.$", report, re.M)
    decidable = re.search(r"^(\d+) statements decided on our data are decidable", report, re.M)
    assert decidable, "the report's number of decidable statements"
    return {
        "statements": int(data.group(1)),
        "counts": counts,
        "exact": {w: int(n) for n, w in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", exact.group(1))}
        if exact
        else {},
        "decidable": int(decidable.group(1)),
    }


def said(counts: dict) -> str:
    """Counts as the README says them, in the singular: "103 agree, 18 differ, ..."."""
    return ", ".join(
        f"{n} {word.replace('agrees', 'agree').replace('differs', 'differ')}"
        for word, n in counts.items()
    )


def test_the_readme_is_short_and_its_verdict_counts_are_the_reports():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    report = report_counts()
    assert f"{said(report['counts'])} (of {report['statements']} statements" in readme
    assert f"of the {report['decidable']} decidable ones" in readme
    if report["exact"]:
        assert f"the paper's values against exact ones: {said(report['exact'])}" in readme


def test_no_page_states_counts_other_than_the_reports():
    """The docs include the report's counts (pymdownx snippets, ``--8<--`` of the report's
    ``counts`` section) rather than state them; a page that states a count of verdicts or of
    decidable statements must state the report's."""
    report = report_counts()
    verdicts = list(report["counts"].values())
    text = REPORT.read_text()
    assert "[start:counts]" in text and "[end:counts]" in text, "the section the docs include"
    for page in [*(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]:
        for line in page.read_text().splitlines():
            for found in COUNTS.findall(line):
                stated = [int(n) for n in found if n]
                assert stated == verdicts[: len(stated)] or stated == list(
                    report["exact"].values()
                ), f"{page.name}: {line.strip()[:120]}"
            for found in DECIDABLE.findall(line):
                assert int(found) == report["decidable"], f"{page.name}: {line.strip()[:120]}"
    include = '--8<-- "results/paper/REPRODUCTION.md:counts"'
    for page in ("reproduction.md", "verdicts.md"):
        assert include in (ROOT / "docs" / page).read_text(), page


def test_the_intervals_the_reproduction_page_quotes_are_the_reports():
    """docs/reproduction.md sums the report up experiment by experiment: every interval it
    quotes must be one the report prints, so that a rebuilt report cannot leave it behind."""
    page = (ROOT / "docs" / "reproduction.md").read_text()
    report = REPORT.read_text()
    quoted = set(re.findall(r"\[[-+]?\d[\d.,% +-]*\]", page))
    assert quoted
    assert not sorted(q for q in quoted if q not in report)


def test_an_algorithm_registered_from_elsewhere_is_named_too():
    """A plugin's record (here the toy algorithm of the tests, whose YAML is not in conf/) is
    listed with its options and their dataclass defaults."""
    import toy_algorithm

    page = reference.algorithms_page()
    section = _section(page, "toy")
    assert "| `algo.k` | int | `4` |" in section
    assert algorithms.algorithm("toy") is toy_algorithm.TOY
