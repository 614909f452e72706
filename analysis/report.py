"""outputs/REPRODUCTION.md: each published claim, the paper's value, ours, a verdict."""

from pathlib import Path

from analysis.common import Claim
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


def write_report(
    outputs: Path,
    claims_by_scale: dict[str, list[Claim]],
    source: Path | None = None,
    info: dict | None = None,
) -> Path:
    """``<outputs>/REPRODUCTION.md`` from the claims read from ``source`` (default: ``outputs``);
    ``info``: the provenance of the code that made them (default: as it is now)."""
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
    if not claims_by_scale:
        lines.append("No results found: run an experiment first (see README).")
    for scale, claims in claims_by_scale.items():
        lines += [f"## Scale: {scale}", ""]
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
    path = outputs / "REPRODUCTION.md"
    path.write_text("\n".join(lines) + "\n")
    return path
