"""outputs/REPRODUCTION.md: each published claim, the paper's value, ours, a verdict."""

from nmcs.harness.provenance import now_iso, provenance

VERDICTS = {
    "agrees": "the paper's value is inside our 95% confidence interval (widened by the paper's "
    "rounding), or the qualitative statement holds with 95% confidence",
    "differs": "it is not",
}


def write_report(outputs, claims_by_scale):
    info = provenance()
    lines = [
        "# Reproduction report",
        "",
        f"Generated {now_iso()} by `python -m analysis` from the results under `{outputs}/`; "
        f"code {info['git_commit'] or 'unknown'}{' (modified)' if info['git_dirty'] else ''}, "
        f"CPU {info['cpu']}.",
        "",
        "Verdicts: " + "; ".join(f"**{k}**: {v}" for k, v in VERDICTS.items()) + ".",
        "Quick-scale results are small samples for checking the pipeline; the paper-scale "
        "sections are the reproduction.",
        "",
    ]
    if not claims_by_scale:
        lines.append("No results found: run an experiment first (see README).")
    for scale, claims in claims_by_scale.items():
        lines += [f"## Scale: {scale}", ""]
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
