"""The documentation site: its generated reference names every registered game and algorithm
with its options and every result column, it builds with ``mkdocs build --strict`` (no broken
link, anchor or API reference), and no page names an issue number."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_records import NO_MEANING_YET

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
            if (name, option) not in NO_MEANING_YET:
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


def test_the_readme_is_short_and_its_verdict_counts_are_the_reports():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    report = (ROOT / "results" / "paper" / "REPRODUCTION.md").read_text()
    line = re.search(r"^By statement \((\d+) statements.*?\): (.*)\.$", report, re.M)
    assert line, "the report's counts by statement"
    counts = dict(
        (word, int(n)) for n, word in re.findall(r"(\d+) ([a-z ]+?)(?:,|$)", line.group(2))
    )
    assert counts and sum(counts.values()) == int(line.group(1))
    # The README says them in the singular: "101 agree, 23 differ, ...".
    said = ", ".join(
        f"{n} {word.replace('agrees', 'agree').replace('differs', 'differ')}"
        for word, n in counts.items()
    )
    assert f"{said} (of {line.group(1)} statements" in readme, said


def test_an_algorithm_registered_from_elsewhere_is_named_too():
    """A plugin's record (here the toy algorithm of the tests, whose YAML is not in conf/) is
    listed with its options and their dataclass defaults."""
    import toy_algorithm

    page = reference.algorithms_page()
    section = _section(page, "toy")
    assert "| `algo.k` | int | `4` |" in section
    assert algorithms.algorithm("toy") is toy_algorithm.TOY
