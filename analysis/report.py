"""outputs/REPRODUCTION.md: each published claim, the paper's value, ours, a verdict."""

from pathlib import Path

from analysis.common import Claim
from nmcs.core.scales import SCALES
from nmcs.harness.provenance import now_iso, provenance

VERDICTS = {
    "agrees": "our 95% interval meets the paper's value (widened by its rounding or the claim's "
    "tolerance), or a qualitative statement holds with 95% confidence; where the paper reports "
    "one run, its value lies in our 95% prediction interval of one run",
    "differs": "our interval excludes the paper's value, or the statement fails with 95% "
    "confidence",
    "not enough data": "our interval is wider than the claim's tolerance (or holds both "
    "outcomes), or fewer than 39 runs where one run is compared: run more searches",
    "not run": "the experiment or cell was not run at this scale",
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
        if claims:
            counts = {v: sum(c.verdict == v for c in claims) for v in VERDICTS}
            lines += [", ".join(f"{n} {v}" for v, n in counts.items() if n) + ".", ""]
        if not claims:
            lines += ["No experiment with published claims was run at this scale.", ""]
            continue
        section = None
        for c in claims:
            if c.section != section:
                section = c.section
                lines += [
                    f"### {section}",
                    "",
                    "| claim | paper | ours (95% CI) | verdict |",
                    "|---|---|---|---|",
                ]
            lines.append(f"| {c.claim} | {c.paper} | {c.ours} | {c.verdict} |")
            if c is claims[-1] or claims[claims.index(c) + 1].section != section:
                cmds = sorted({x.command for x in claims if x.section == section})
                lines += ["", "Rerun: " + "; ".join(f"`{cmd}`" for cmd in cmds), ""]
    text = "\n".join(lines) + "\n"
    if not (path.is_file() and _without_generated(path.read_text()) == _without_generated(text)):
        path.write_text(text)
    return path


def _without_generated(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith("Generated ")]
