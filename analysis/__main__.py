"""Rebuild every figure, table and outputs/REPRODUCTION.md from the results in outputs/, or, with
``--from results/paper``, the published report from the compact files committed there: into
outputs/published/paper/ (or ``--out``), and into results/paper itself only with ``--publish``."""

import argparse
import dataclasses
import functools
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from analysis import (
    beam,
    leftmove,
    morpion_nmcs,
    morpion_reflexive,
    nrpa,
    records,
    samegame,
    samegame_policy,
    sudoku,
    twoplayer,
)
from analysis.common import Claim, Context
from analysis.publish import (
    EXPERIMENTS_DIR,
    SIZE_KEYS,
    cell_metas,
    reduced_overrides,
    write_runs,
)
from analysis.report import write_report
from analysis.statements import experiment_rows, fingerprint_claims
from nmcs.core.scales import SCALES
from nmcs.harness.provenance import provenance
from nmcs.harness.results import ResultsFileError, experiment_result_files

MODULES = (
    leftmove,
    morpion_nmcs,
    morpion_reflexive,
    samegame,
    samegame_policy,
    sudoku,
    beam,
    twoplayer,
    nrpa,
    records,
)


def _main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__)
    parser.add_argument(
        "--outputs",
        type=Path,
        default=Path("outputs"),
        help="folder holding <scale>/<experiment>/<cell> results (default: outputs)",
    )
    parser.add_argument("--scale", choices=(*SCALES, "all"), default="all")
    parser.add_argument(
        "--from",
        dest="published",
        type=Path,
        help="a published folder (python -m analysis.publish): read its experiments (scale: "
        "paper unless --scale says) and write the report, figures and tables under "
        "<outputs>/published/<its name>/ (or --out); never into it, except with --publish",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="with --from: the folder that receives REPRODUCTION.md, figures/ and tables/",
    )
    parser.add_argument(
        "--publish",
        action="store_true",
        help="with --from: write the report, figures and tables into the published folder "
        "itself (its committed files), after python -m analysis.publish",
    )
    args = parser.parse_args(argv)
    info = provenance()  # the code that makes the report, before it writes anything
    if args.published is None and (args.out is not None or args.publish):
        parser.error("--out and --publish go with --from")
    modified = modified_code()
    # The report's header names the code that made it: a change outside that code (a page of
    # docs, the published results themselves) does not make it "(modified)".
    info = {**info, "git_dirty": bool(modified) if modified is not None else info["git_dirty"]}
    if args.publish and modified != []:
        said = ", ".join(modified[:5]) + (", ..." if len(modified) > 5 else "") if modified else ""
        print(
            "analysis: error: --publish writes a report that names its commit, and "
            + (
                f"{'/, '.join(CODE_FOLDERS)}/ differ from it ({said}): commit them first"
                if modified
                else "this is not a git checkout, so the commit of its code is not known"
            ),
            file=sys.stderr,
        )
        return 2
    if args.published is not None:
        scale = "paper" if args.scale == "all" else args.scale
        if args.publish:
            if args.out is not None:
                parser.error("--publish writes into the --from folder; leave out --out")
            out = args.published
        else:
            out = args.out or args.outputs / "published" / args.published.resolve().name
            if out.resolve() == args.published.resolve():
                parser.error(
                    f"--out {out} is the published folder: add --publish to write over its files"
                )
        return analyze_published(args.published, scale, out, info)
    if not args.outputs.is_dir():
        print(
            f"analysis: error: no results folder '{args.outputs}' (run `python run.py` first)",
            file=sys.stderr,
        )
        return 2
    scales = SCALES if args.scale == "all" else (args.scale,)
    claims = {}
    for scale in scales:
        if (args.outputs / scale).is_dir():
            claims[scale] = analyze_scale(Context(args.outputs, scale))
    # One scale analysed: the report keeps the other scales' sections as they were.
    keep = tuple(s for s in SCALES if s not in scales)
    report = write_report(args.outputs, claims, info=info, keep=keep)
    print(f"analysis: wrote {report}")
    return 0


# The folders whose code makes a report: a published report must come from them as committed.
CODE_FOLDERS = ("nmcs", "analysis", "conf")


def modified_code() -> list[str] | None:
    """The files of CODE_FOLDERS that differ from the commit checked out (changed, staged,
    deleted or not yet tracked), as ``git status`` names them; None where git cannot say (not
    a git checkout)."""
    root = Path(__file__).resolve().parents[1]
    try:
        done = subprocess.run(
            ["git", "status", "--porcelain", "--", *CODE_FOLDERS],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return [line[3:] for line in done.stdout.splitlines() if line.strip()]


def analyze_scale(ctx: Context) -> list[Claim]:
    """Every claim of one scale; figures and tables rebuilt from scratch."""
    # The analysis owns these folders: rebuild them whole, so that no figure or table of an
    # earlier run survives the results it was drawn from.
    for folder in (ctx.figures, ctx.tables):
        shutil.rmtree(folder, ignore_errors=True)
    claims = [c for module in MODULES for c in module.analyze(ctx)]
    reduced, cells = reduced_runs(ctx), reduced_cells(ctx)
    claims = [mark_reduced(c, reduced, cells) for c in claims]
    claims += not_run_claims(ctx)
    # Two rows over the same searches are one statement: each row's cells fingerprinted.
    fingerprint_claims(claims, lambda experiment: experiment_rows(ctx, experiment))
    made = [str(f) for f in (ctx.figures, ctx.tables) if f.is_dir()]
    print(
        f"analysis: {ctx.scale}: {len(claims)} claims checked"
        + (f"; wrote {' and '.join(made)}" if made else "; no figure or table to draw")
    )
    for note in ctx.skipped:
        print(f"analysis: {ctx.scale}: skipped {note}")
    return claims


def reduced_runs(ctx: Context) -> dict[str, str]:
    """experiment -> the size overrides (``n_searches=3``) its cells were run with, for the
    experiments run smaller than their scale (read from each cell's meta.json)."""
    found: dict[str, set[str]] = {}
    for folder in sorted(ctx.results_dir.glob("*/")):
        for meta in cell_metas(folder).values():
            overrides = reduced_overrides(meta, folder.name)
            if overrides:
                found.setdefault(folder.name, set()).add(overrides)
    return {e: ", ".join(sorted(o)) for e, o in found.items()}


def reduced_cells(ctx: Context) -> dict[tuple[str, str], str]:
    """(experiment, cell) -> the size overrides of that cell's run, for the cells run smaller
    than their scale whose meta.json names their cell (its hash, the ``cell`` column)."""
    found: dict[tuple[str, str], set[str]] = {}
    for folder in sorted(ctx.results_dir.glob("*/")):
        for meta in cell_metas(folder).values():
            overrides = reduced_overrides(meta, folder.name)
            if overrides and meta.get("cell"):
                found.setdefault((folder.name, meta["cell"]), set()).add(overrides)
    return {k: ", ".join(sorted(o)) for k, o in found.items()}


def mark_reduced(
    claim: Claim, reduced: dict[str, str], cells: dict[tuple[str, str], str] | None = None
) -> Claim:
    """The claim with the reduced runs it read said beside its result (naming the experiment
    when it read several) and in its rerun command. What it read: the cells of
    ``claim.reads`` (``cells``: the reduced ones, by experiment and cell; an experiment whose
    cells are not known by hash counts whole), else every experiment its command names."""
    said = []
    for experiment, overrides in reduced.items():
        token = f"experiment={experiment} scale="
        if token in claim.command:
            if claim.reads is None:
                said.append((experiment, overrides))
            claim = dataclasses.replace(
                claim,
                command=re.sub(
                    rf"(experiment={experiment} scale=\S+)([^&]*)",
                    functools.partial(_with_overrides, overrides=overrides),
                    claim.command,
                ),
            )
    if claim.reads is not None:
        cells = cells or {}
        hashed = {e for e, _ in cells}
        read: dict[str, set[str]] = {}
        for experiment, cell in claim.reads:
            if experiment not in reduced:
                continue
            cell_overrides = (
                cells.get((experiment, cell)) if experiment in hashed else reduced[experiment]
            )
            if cell_overrides:
                read.setdefault(experiment, set()).add(cell_overrides)
        said = [(e, ", ".join(sorted(read[e]))) for e in reduced if e in read]
    if len(said) == 1:
        claim = dataclasses.replace(claim, ours=f"{claim.ours} (reduced run: {said[0][1]})")
    elif said:
        runs = "; ".join(f"{e}: {o}" for e, o in said)
        claim = dataclasses.replace(claim, ours=f"{claim.ours} (reduced runs: {runs})")
    return claim


def _with_overrides(match: re.Match[str], overrides: str) -> str:
    """One command of a rerun line with the reduced run's overrides after its scale, unless it
    sizes its run itself."""
    if _sized(match[2]):
        return match[0]
    return f"{match[1]} {overrides}{match[2]}"


def _sized(rest: str) -> bool:
    """Whether the rest of one command already says how many searches (or how long): a claim
    that reruns exactly the cells it read, which the reduced-run note must not change."""
    return any(f" {key}=" in f" {rest}" for key in SIZE_KEYS)


NOT_RUN_SECTION = "Experiments not run at this scale"


def not_run_claims(ctx: Context) -> list:
    """One line per experiment of conf/experiment with no results at this scale, with what it
    reproduces (its YAML's opening comment) and why it is missing (analysis/not_run.yaml)."""
    reasons = yaml.safe_load((Path(__file__).parent / "not_run.yaml").read_text()) or {}
    claims = []
    for path in sorted(EXPERIMENTS_DIR.glob("*.yaml")):
        experiment = path.stem
        if experiment_result_files(ctx.results_dir / experiment):
            continue
        comment = []
        for line in path.read_text().splitlines():
            if not line.startswith("#"):
                break
            text = line.lstrip("# ").rstrip()
            if text.startswith("@package") or text.startswith("python run.py"):
                continue
            comment.append(text)
        # The first sentence ("N = 10 ... 1,000" is not an end).
        what = re.split(r"(?<=[a-z0-9)])\.\s+(?=[A-Z])", " ".join(comment))[0].rstrip(".")
        why = reasons.get(experiment, "not run at this scale")
        claims.append(
            Claim(
                NOT_RUN_SECTION,
                f"`{experiment}`: {what}",
                "-",
                why,
                "not run",
                f"python run.py -m experiment={experiment} scale={ctx.scale}",
            )
        )
    return claims


def analyze_published(folder: Path, scale: str, out: Path, info: dict | None = None) -> int:
    """The report of a published folder's experiments, its figures and tables, written into
    ``out`` (the folder itself when publishing)."""
    if not folder.is_dir():
        print(f"analysis: error: no published folder '{folder}'", file=sys.stderr)
        return 2
    if not any(experiment_result_files(e) for e in folder.iterdir() if e.is_dir()):
        print(
            f"analysis: error: --from {folder}: no published results in it (no "
            "<experiment>/results.parquet); give a folder written by python -m analysis.publish, "
            "such as results/paper",
            file=sys.stderr,
        )
        return 2
    out.mkdir(parents=True, exist_ok=True)
    claims = {scale: analyze_scale(Context(out, scale, published=folder))}
    report = write_report(out, claims, source=folder, info=info)
    print(f"analysis: wrote {report}")
    if out.resolve() == folder.resolve():
        # The list of runs is derived from the same packed cells: rewritten with the report.
        write_runs(folder, scale)
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m analysis``; a missing or unreadable results file is said in one line that
    names it (exit status 1)."""
    try:
        return _main(argv)
    except ResultsFileError as error:
        print(f"analysis: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
