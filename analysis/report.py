"""outputs/REPRODUCTION.md: each published claim, the paper's value, ours, a verdict."""

from pathlib import Path

from analysis.common import (
    AGREES_READING,
    DATA,
    DECIDED,
    DIFFERS,
    NOT_REACHED,
    REACHED,
    Claim,
    p_value,
)
from analysis.statements import same_searches, statement_groups
from nmcs.core.scales import SCALES
from nmcs.harness.provenance import now_iso, provenance

VERDICTS = {
    "agrees": "our 95% interval meets the paper's value (widened by its rounding or the claim's "
    "tolerance), or a qualitative statement holds with 95% confidence; where the paper reports "
    "one run, its value lies in our 95% prediction interval of one run",
    AGREES_READING: "our interval misses the paper's value widened by its rounding but meets it "
    "widened by a reading tolerance (a value read off a plot), stated with its reason in "
    "analysis/paper_values",
    "differs": "our interval excludes the paper's value, or the statement fails with 95% "
    "confidence",
    "not enough data": "our interval is wider than the claim's tolerance (or holds both "
    "outcomes), or fewer than 39 runs where one run is compared: run more searches",
    "not run": "the experiment or cell was not run at this scale",
    REACHED: "a record row: our best (a best game, or the sum of each position's best game), "
    "replayed from its saved game, is at least the literature's; a best-of result shown with "
    "the CPU time it cost, not a statistical test, and not counted among the decidable "
    "statements",
    NOT_REACHED: "a record row whose best is below the literature's after the CPU time shown",
}
KINDS = (
    "A verdict marked **(paper vs exact)** compares the paper's value with an exact value of our "
    "theory (nmcs.theory), which no run of ours can change: such statements are counted apart, "
    "and left out of the line on chance and of Holm's family. A row marked \"the same searches "
    'as" another reads the same searches and states the same value: one statement, counted '
    "once. The rules that decide each section's verdicts are printed under its heading "
    "(docs/verdicts.md)."
)
PIPELINE_CHECK = {
    "quick": "**Pipeline check, not a reproduction.** Quick scale runs a few searches per cell to "
    "check that every command, table and figure works; most verdicts here are 'not enough "
    "data' by design. The paper-scale section (`scale=paper`) is the reproduction.",
}


SCALE_HEADING = "## Scale: "


def scale_sections(path: Path) -> dict[str, list[str]]:
    """The ``## Scale: <scale>`` sections of an existing report, each as its lines."""
    sections: dict[str, list[str]] = {}
    if not path.is_file():
        return sections
    current: list[str] | None = None
    for line in path.read_text().splitlines():
        if line.startswith(SCALE_HEADING):
            current = sections.setdefault(line.removeprefix(SCALE_HEADING).strip(), [])
        if current is not None:
            current.append(line)
    return sections


def write_report(
    outputs: Path,
    claims_by_scale: dict[str, list[Claim]],
    source: Path | None = None,
    info: dict | None = None,
    keep: tuple[str, ...] = (),
) -> Path:
    """``<outputs>/REPRODUCTION.md`` from the claims read from ``source`` (default: ``outputs``);
    ``info``: the provenance of the code that made them (default: as it is now); ``keep``: the
    scales whose sections of the existing report stay as they are (an analysis of one scale
    keeps the others'). A report whose only change would be its "Generated" line is left as it
    is, so that analysing the same results twice changes no file."""
    path = outputs / "REPRODUCTION.md"
    kept = {s: lines for s, lines in scale_sections(path).items() if s in keep}
    info = info or provenance()
    lines = [
        "# Reproduction report",
        "",
        f"Generated {now_iso()} by `python -m analysis` from the results under "
        f"`{source or outputs}/`; "
        f"code {info['git_commit'] or 'unknown'}{' (modified)' if info['git_dirty'] else ''}, "
        f"CPU {info['cpu']}.",
        "",
        "Verdicts: " + "; ".join(f"**{k}**: {v}" for k, v in VERDICTS.items()) + ".",
        "",
        KINDS,
        "",
    ]
    if not claims_by_scale and not kept:
        lines.append("No results found: run an experiment first (see README).")
    present = {*kept, *claims_by_scale}
    for scale in [*(s for s in SCALES if s in present), *(s for s in present if s not in SCALES)]:
        if scale not in claims_by_scale:
            lines += kept[scale]
            continue
        claims = by_section(claims_by_scale[scale])
        lines += [f"{SCALE_HEADING}{scale}", ""]
        if scale in PIPELINE_CHECK:
            lines += [PIPELINE_CHECK[scale], ""]
        if not claims:
            lines += ["No experiment with published claims was run at this scale.", ""]
            continue
        lines += headline(claims)
        lines += section_lines(claims)
    text = "\n".join(lines) + "\n"
    if not (path.is_file() and _without_generated(path.read_text()) == _without_generated(text)):
        path.write_text(text)
    return path


def _without_generated(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("Generated ")]


def by_section(claims: list[Claim]) -> list[Claim]:
    """The claims in the order the report shows them: by section (in the order of each
    section's first claim), each section's in their own order; the first of a statement's
    readings shown is the one that decides it."""
    order = {s: i for i, s in enumerate(dict.fromkeys(c.section for c in claims))}
    return sorted(claims, key=lambda c: order[c.section])


def deciding_claims(claims: list[Claim]) -> dict[int, Claim]:
    """The claim that decides each statement (the first of its readings), by ``id``."""
    return {id(group[0]): group[0] for group in statement_groups(claims)}


def holm_adjusted(claims: list[Claim]) -> dict[int, float]:
    """Holm-adjusted p-values of the deciding 'differs' decided on our data that carry a
    p-value, by ``id``: the family is every statement decided on our data (m of them; a paper
    value against an exact one is no test of our data), the p-values of the others are at
    least the largest of these (they did not reject at 5%), so the step-down needs only
    these."""
    deciding = [c for c in deciding_claims(claims).values() if c.kind == DATA]
    m = sum(str(c.verdict) in DECIDED for c in deciding)
    tested = sorted(
        (c for c in deciding if c.verdict == DIFFERS and p_value(c.verdict) is not None),
        key=lambda c: p_value(c.verdict) or 0.0,
    )
    adjusted: dict[int, float] = {}
    running = 0.0
    for rank, c in enumerate(tested):
        running = max(running, min(1.0, (m - rank) * (p_value(c.verdict) or 0.0)))
        adjusted[id(c)] = running
    return adjusted


def _counts(deciding: list[Claim]) -> dict[str, int]:
    return {v: sum(c.verdict == v for c in deciding) for v in VERDICTS}


def _said(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {v}" for v, n in counts.items() if n) or "none"


# Around the headline's counts: docs/ include them from the published report (pymdownx
# snippets), so that no page states counts of its own.
COUNTS_START, COUNTS_END = "<!-- --8<-- [start:counts] -->", "<!-- --8<-- [end:counts] -->"


def headline(claims: list[Claim]) -> list[str]:
    """The counts by statement (each decided by its first reading), those decided on our data
    apart from the paper's values against exact ones, the number decidable on our data, the
    'differs' that chance alone would give among them, and how many survive Holm."""
    deciding = list(deciding_claims(claims).values())
    data = [c for c in deciding if c.kind == DATA]
    exact = [c for c in deciding if c.kind != DATA]
    counts = _counts(data)
    decided = sum(counts[v] for v in DECIDED)
    holm = holm_adjusted(claims)
    untested = sum(c.verdict == DIFFERS and p_value(c.verdict) is None for c in data)
    survive = sum(p < 0.05 for p in holm.values())
    readings = len(claims) - len(deciding)
    lines = [
        COUNTS_START,
        f"By statement ({len(deciding)} statements from {len(claims)} rows; {readings} rows "
        "are further readings of a statement, shown and not counted). "
        f"Decided on our data ({len(data)} statements): {_said(counts)}.",
    ]
    if exact:
        lines.append(
            f"Paper vs exact ({len(exact)} statements: a paper's value against an exact one of "
            f"our theory, which no run of ours can change; counted apart): "
            f"{_said(_counts(exact))}."
        )
    return [
        *lines,
        "",
        f"{decided} statements decided on our data are decidable (agree or differ). If every "
        f"one of them held, chance alone would make about {0.05 * decided:.1f} of them "
        f"'differs' at 95% (a 95% range of {_binom_range(decided)}). Holm's adjustment over "
        f"the {decided} (column 'Holm p'): {survive} of the {len(holm)} 'differs' with a "
        "p-value stay below 0.05"
        + (f"; {untested} 'differs' with no single test (a pattern)" if untested else "")
        + ".",
        COUNTS_END,
        "",
    ]


def section_lines(claims: list[Claim]) -> list[str]:
    """Each section: its heading, the rules that decide its verdicts, its rows, and the
    commands that rerun it."""
    holm = holm_adjusted(claims)
    groups = statement_groups(claims)
    deciding = {id(g[0]) for g in groups}
    repeats = {k: v for g in groups for k, v in same_searches(g).items()}
    lines: list[str] = []
    for section in dict.fromkeys(c.section for c in claims):
        rows = [c for c in claims if c.section == section]
        lines += [f"### {section}", ""]
        rules = list(dict.fromkeys(r for c in rows for r in c.rules))
        if rules:
            lines += ["Rules that decide these verdicts:", ""]
            lines += [f"- {rule}" for rule in rules] + [""]
        lines += ["| claim | paper | ours (95% CI) | verdict | Holm p |", "|---|---|---|---|---|"]
        for c in rows:
            adjusted = f"{holm[id(c)]:.2g}" if id(c) in holm else ""
            lines.append(
                f"| {c.claim} | {c.paper} | {c.ours} | {_verdict_cell(c, deciding, repeats)} "
                f"| {adjusted} |"
            )
        cmds = sorted({c.command for c in rows})
        lines += ["", "Rerun: " + "; ".join(f"`{cmd}`" for cmd in cmds), ""]
    return lines


def _verdict_cell(c: Claim, deciding: set[int], repeats: dict[int, Claim]) -> str:
    """A row's verdict as the table shows it: its kind where it is not decided on our data,
    in parentheses with why where it is a reading that does not count."""
    verdict = f"{c.verdict} ({c.kind})" if c.kind != DATA else str(c.verdict)
    if id(c) in deciding:
        return verdict
    if id(c) in repeats:
        return f"({verdict}; the same searches as '{repeats[id(c)].claim}')"
    return f"({verdict}; another reading)"


def _binom_range(n: int) -> str:
    from scipy import stats  # noqa: PLC0415 - only here

    low, high = stats.binom.ppf([0.025, 0.975], n, 0.05)
    return f"{int(low)}-{int(high)}"
