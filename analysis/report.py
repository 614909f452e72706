"""outputs/REPRODUCTION.md: each published claim, the paper's value, ours, a verdict."""

from pathlib import Path

from analysis.common import (
    AGREES_READING,
    DECIDED,
    DIFFERS,
    NOT_REACHED,
    REACHED,
    Claim,
    p_value,
)
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
    ]
    if not claims_by_scale and not kept:
        lines.append("No results found: run an experiment first (see README).")
    present = {*kept, *claims_by_scale}
    for scale in [*(s for s in SCALES if s in present), *(s for s in present if s not in SCALES)]:
        if scale not in claims_by_scale:
            lines += kept[scale]
            continue
        claims = claims_by_scale[scale]
        lines += [f"{SCALE_HEADING}{scale}", ""]
        if scale in PIPELINE_CHECK:
            lines += [PIPELINE_CHECK[scale], ""]
        if not claims:
            lines += ["No experiment with published claims was run at this scale.", ""]
            continue
        lines += headline(claims)
        holm = holm_adjusted(claims)
        deciding = deciding_claims(claims)
        section = None
        for c in claims:
            if c.section != section:
                section = c.section
                lines += [
                    f"### {section}",
                    "",
                    "| claim | paper | ours (95% CI) | verdict | Holm p |",
                    "|---|---|---|---|---|",
                ]
            verdict = c.verdict if id(c) in deciding else f"({c.verdict}; another reading)"
            adjusted = f"{holm[id(c)]:.2g}" if id(c) in holm else ""
            lines.append(f"| {c.claim} | {c.paper} | {c.ours} | {verdict} | {adjusted} |")
            if c is claims[-1] or claims[claims.index(c) + 1].section != section:
                cmds = sorted({x.command for x in claims if x.section == section})
                lines += ["", "Rerun: " + "; ".join(f"`{cmd}`" for cmd in cmds), ""]
    text = "\n".join(lines) + "\n"
    if not (path.is_file() and _without_generated(path.read_text()) == _without_generated(text)):
        path.write_text(text)
    return path


def _without_generated(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("Generated ")]


def statement_key(claim: Claim) -> tuple[str, str]:
    return claim.section, claim.statement or claim.claim


def deciding_claims(claims: list[Claim]) -> dict[int, Claim]:
    """The claim that decides each statement (the first of its readings), by ``id``."""
    first: dict[tuple[str, str], Claim] = {}
    for c in claims:
        first.setdefault(statement_key(c), c)
    return {id(c): c for c in first.values()}


def holm_adjusted(claims: list[Claim]) -> dict[int, float]:
    """Holm-adjusted p-values of the deciding 'differs' that carry a p-value, by ``id``: the
    family is every decided statement (m of them), the p-values of the others are at least
    the largest of these (they did not reject at 5%), so the step-down needs only these."""
    deciding = list(deciding_claims(claims).values())
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


def headline(claims: list[Claim]) -> list[str]:
    """The counts by statement (each decided by its first reading), the number of decidable
    statements and the 'differs' that chance alone would give, and how many survive Holm."""
    deciding = list(deciding_claims(claims).values())
    counts = {v: sum(c.verdict == v for c in deciding) for v in VERDICTS}
    decided = sum(counts[v] for v in DECIDED)
    holm = holm_adjusted(claims)
    untested = sum(c.verdict == DIFFERS and p_value(c.verdict) is None for c in deciding)
    survive = sum(p < 0.05 for p in holm.values())
    readings = len(claims) - len(deciding)
    return [
        f"By statement ({len(deciding)} statements from {len(claims)} rows; "
        f"{readings} rows are further readings of a statement, shown and not counted): "
        + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        + ".",
        "",
        f"{decided} statements are decidable (agree or differ). If every one of them held, "
        f"chance alone would make about {0.05 * decided:.1f} of them 'differs' at 95% "
        f"(a 95% range of {_binom_range(decided)}). Holm's adjustment over the {decided} "
        f"(column 'Holm p'): {survive} of the {len(holm)} 'differs' with a p-value stay below "
        f"0.05"
        + (f"; {untested} 'differs' with no single test (a pattern)" if untested else "")
        + ".",
        "",
    ]


def _binom_range(n: int) -> str:
    from scipy import stats  # noqa: PLC0415 - only here

    low, high = stats.binom.ppf([0.025, 0.975], n, 0.05)
    return f"{int(low)}-{int(high)}"
