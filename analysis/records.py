"""Records: the Morpion record hunts (experiments morpion_record_hunt, morpion_record_hunt_5t,
and 5T at level 4, morpion_5t_level4), the games they found, and the search efficiency of NRPA
against memorized NMCS and beam search; and RECORDS.md, whose SameGame section
``analysis.samegame_records`` builds.

- the NRPA score distribution of each hunt; P(score >= k) for k = 80, 81, 82 (5D) and 150, 160,
  170 (5T) with Wilson intervals; the expected core-hours to a first such game (mean search
  time / P, its interval from the Wilson interval of P), in CPU time where every search of the
  hunt carries it and in wall time, said so, where it does not;
- 5T at level 4: the CPU core-hours spent until the first game of 170 (Bruneau's), or the
  core-hours spent without one, and a record row (reached or not; not a statistical test);
- every game the hunts saved (``<cell>/records/*.psol``, published under
  ``records/<cell>/``), replayed through ``nmcs.games.morpion.psol.read_psol`` before it is
  counted (5D games also through the independent plain-Python rules of
  ``analysis.independent.morpion_mobility``), with the command that reproduces it bit for
  bit; its picture, beside those of the literature's 5D 82 (Rosin 2010) and 5T 170 (Bruneau
  1976) grids;
- Rosin's claim (IJCAI 2011) that NRPA improves search efficiency over NMCS, as a rate on one
  machine in CPU time: games of 80 or more per CPU core-hour, NRPA (the 5D hunt's searches
  that carry their CPU time) against the best configuration of each competitor, one cell each
  of ``morpion_efficiency`` (memorized NMCS level 3, beam search level 1 with a beam of 2,048,
  MCBS level 2 at (32, 1) and (8, 4)), never pooled. A rate is hits / CPU core-hours, with the
  exact (Clopper-Pearson) 95% interval of the hits' proportion divided by the mean CPU hours a
  search. The claim agrees when NRPA's lower bound is above every competitor's upper bound,
  differs when its upper bound is below a competitor's lower bound, and has not enough data
  otherwise (and below EFFICIENCY_MIN_NRPA searches, or on more than one CPU model). The
  record claim agrees when a saved game of 82 replays, and differs when HUNT_BUDGET searches
  or more found none; a hunt of more than one cell (a replay on common seeds, a new sample on
  its own) is shown cell by cell and pooled.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from analysis import samegame_records
from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_REACHED,
    NOT_RUN,
    REACHED,
    Claim,
    Context,
    cells_read,
    rerun_command,
    save_table,
    wilson,
)
from analysis.independent import morpion_mobility as independent_morpion
from analysis.publish import cell_metas
from nmcs.harness.results import ResultsFileError, cpu_hours
from nmcs.harness.seeding import identity_scheme

SECTION = "Records (Morpion Solitaire)"
HUNTS = {"5D": "morpion_record_hunt", "5T": "morpion_record_hunt_5t"}
# 5T at level 4 (its record row: a first game of LEVEL4_TARGET moves).
LEVEL4 = {"5T": "morpion_5t_level4"}
LEVEL4_TARGET = 170
# Every experiment this module reads, by variant.
SOURCES = {v: (HUNTS[v], *([LEVEL4[v]] if v in LEVEL4 else [])) for v in HUNTS}
HUNTED = (*HUNTS.values(), *LEVEL4.values())
# The efficiency claim's competitors (conf/competitor/), a cell each.
EFFICIENCY = "morpion_efficiency"
EXPERIMENTS = (*HUNTED, EFFICIENCY)
# Its competitors: a cell each; the claim is decided once every one has run.
COMPETITORS = tuple(
    sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "conf/competitor").glob("*.yaml"))
)
THRESHOLDS = {"5D": (80, 81, 82), "5T": (150, 160, 170)}
DATA = Path(__file__).resolve().parents[1] / "nmcs" / "data"
LITERATURE = {
    "5D": (DATA / "record_5D_82.psol", "Rosin 2010"),
    "5T": (DATA / "record_5T_170_bruneau.psol", "Bruneau 1976"),
}
EFFICIENCY_SCORE = 80
# Fewer NRPA searches with their CPU time than this: not enough data.
EFFICIENCY_MIN_NRPA = 100
HUNT_BUDGET = 400  # searches of the hunt's first published cell; none of 82 in them: differs
# The rules that decide this section's verdicts, as the report prints them.
HUNT_RULE = (
    f"the 5D record claim: 'agrees' when a saved game of 82 replays (through the engine's reader "
    f"and independent plain-Python rules), 'differs' (no single test: no p-value) when "
    f"{HUNT_BUDGET} or more level-3 searches found none, else 'not enough data'"
)
EFFICIENCY_RULE = (
    f"games of {EFFICIENCY_SCORE}+ per CPU core-hour: hits over the searches' CPU hours, the 95% "
    "interval the Clopper-Pearson interval of the proportion of hits over the mean CPU hours a "
    f"search; NRPA: the level-3 5D hunt's searches that carry their CPU time (at least "
    f"{EFFICIENCY_MIN_NRPA}); each competitor: one cell of {EFFICIENCY}, never pooled; every "
    "competitor run and every cell on one CPU model, else 'not enough data'; 'agrees' when "
    "NRPA's lower bound is above every competitor's upper bound, 'differs' (no single test: no "
    "p-value) when its upper bound is below a competitor's lower bound, with no correction for "
    "the several competitors compared; 'not enough data' otherwise"
)
LEVEL4_RULE = (
    f"level 4: 'reached' when a saved game of {LEVEL4_TARGET}+ replays, 'not reached' "
    "otherwise: a best-of result, not a statistical test; P(>= k) with Wilson 95% intervals"
)


def _morpion() -> tuple:
    """Morpion's record book, game reader and drawer, imported when a hunt is analysed (they
    load numba, which the analysis does not import otherwise)."""
    from nmcs.games.morpion import RECORDS  # noqa: PLC0415
    from nmcs.games.morpion.draw import draw_game  # noqa: PLC0415
    from nmcs.games.morpion.psol import read_psol  # noqa: PLC0415

    return RECORDS, read_psol, draw_game


_GAME_FILE = re.compile(r"search-(\d+)-score-(\d+)\.psol$")


def analyze(ctx: Context) -> list[Claim]:
    """The Morpion and SameGame record claims; RECORDS.md when either ran at this scale."""
    claims, lines = morpion_section(ctx)
    samegame_claims, samegame_lines = samegame_records.section(ctx)
    claims += samegame_claims
    if lines or samegame_lines:
        write_page(ctx, claims, lines + samegame_lines)
    return claims


def hunt_rows(ctx: Context) -> dict[str, pd.DataFrame]:
    """variant -> the searches of every experiment of that variant, each row with its
    experiment in ``hunt``."""
    hunts = {}
    for variant, experiments in SOURCES.items():
        parts = [ctx.results(e).assign(hunt=e) for e in experiments]
        parts = [p for p in parts if len(p)]
        hunts[variant] = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return hunts


def morpion_section(ctx: Context) -> tuple[list[Claim], list[str]]:
    """The Morpion claims and the Morpion part of RECORDS.md (none when no hunt ran)."""
    hunts = hunt_rows(ctx)
    distribution_rows, probability_rows = [], []
    for variant, df in hunts.items():
        if df.empty:
            continue
        for (hunt, level), part in df.groupby(["hunt", "level"], sort=False):
            distribution_rows += [
                {
                    "variant": variant,
                    "experiment": hunt,
                    "level": int(level),
                    "score": int(s),
                    "searches": int(c),
                }
                for s, c in part["score"].value_counts().sort_index().items()
            ]
            probability_rows += sample_probabilities(ctx, variant, int(level), part, str(hunt))
    five_d = hunts["5D"]
    five_d = five_d[five_d["hunt"] == HUNTS["5D"]] if len(five_d) else five_d
    if not distribution_rows:  # no hunt at this scale: nothing to replay or draw
        return [
            record_claim(ctx, five_d, pd.DataFrame()),
            efficiency_claim(ctx, pd.DataFrame()),
        ], []
    distribution = pd.DataFrame(distribution_rows)
    probs = pd.DataFrame(probability_rows)
    save_table(distribution, ctx.tables, "records_distribution")
    save_table(probs, ctx.tables, "records_probabilities")
    games = found_games(ctx)
    if len(games):
        save_table(games, ctx.tables, "records_games")
    drawn = pictures(ctx, games)
    claims = [record_claim(ctx, five_d, games)]
    efficiency = efficiency_table(ctx, five_d) if not five_d.empty else pd.DataFrame()
    claims.append(efficiency_claim(ctx, efficiency))
    firsts = level4_firsts(hunts)
    claims += level4_claims(ctx, hunts, games, probs, firsts)
    lines = morpion_lines(ctx, probs, distribution, games, efficiency, drawn, firsts)
    return claims, lines


def write_page(ctx: Context, claims: list[Claim], sections: list[str]) -> Path:
    """``<outputs>/RECORDS.md``: the claims, then each game's section (its numbers, the games of
    the record length with the commands that reproduce them, the pictures), beside
    REPRODUCTION.md."""
    lines = ["# Records", ""]
    lines += [f"- **{c.claim}**: {c.ours} ({c.verdict}; {c.paper})" for c in claims]
    lines += ["", *sections]
    page = ctx.outputs / "RECORDS.md"
    page.write_text("\n".join(lines).rstrip("\n") + "\n")
    return page


def morpion_lines(
    ctx: Context,
    probs: pd.DataFrame,
    distribution: pd.DataFrame,
    games: pd.DataFrame,
    efficiency: pd.DataFrame,
    drawn: list[Path],
    firsts: pd.DataFrame,
) -> list[str]:
    """The Morpion section of RECORDS.md."""
    book, _, _ = _morpion()
    lines = ["## Morpion Solitaire", ""]
    lines += ["### NRPA (N = 100): P(score >= k) and the cost of a first such game", ""]
    lines += [
        "Core-hours are one core's: the searches' own CPU time (`cpu_seconds`, the thread of "
        "each search; clock `CPU`) where every search of the hunt carries it, else their wall "
        "seconds (clock `wall`: searches published before CPU time was recorded; a search that "
        "shared its core counts the wait too, so these are upper bounds of a quiet core's "
        "cost; `python benchmarks/bench_nrpa.py` measures that). `sample`: where an experiment "
        "holds more than one cell, each cell and its seed scheme (a cell on common seeds replays "
        "the searches published with it; a cell on its own seeds is a new sample), then all of "
        "them pooled, whose cost is the mean CPU time of the searches that carry it.",
        "",
    ]
    lines += [
        "| variant | experiment | sample | level | k | searches | hits | P (Wilson 95%) | "
        "expected core-hours (95%) | clock |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in probs.itertuples():
        lines.append(
            f"| {r.variant} | {r.experiment} | {r.sample} | {r.level} | {r.score_at_least} | "
            f"{r.searches} | "
            f"{r.hits} | {r.p:.3f} [{r.p_low:.3f}, {r.p_high:.3f}] | "
            f"{_hours(r.expected_core_hours)} [{_hours(r.core_hours_low)}, "
            f"{_hours(r.core_hours_high)}] | {r.clock} |"
        )
    lines += sample_lines(ctx)
    for r in firsts.itertuples():
        scores = distribution[
            (distribution["experiment"] == r.experiment) & (distribution["level"] == r.level)
        ]
        lines += ["", f"### Morpion {r.variant} at level {r.level} (`{r.experiment}`)", ""]
        lines.append(
            "Scores (searches): "
            + ", ".join(f"{s.score} ({s.searches})" for s in scores.itertuples())
            + "."
        )
        lines += ["", f"{first_text(r)}.", ""]
    if len(efficiency):
        lines += ["", f"### Games of {EFFICIENCY_SCORE}+ per CPU core-hour on Morpion 5D", ""]
        lines += [f"The rule: {EFFICIENCY_RULE}.", ""]
        lines += [
            "| algorithm | experiment | searches | CPU core-hours | CPU | best | hits | per CPU "
            "core-hour (95%) |"
        ]
        lines += ["|---|---|---|---|---|---|---|---|"]
        for r in efficiency.itertuples():
            lines.append(
                f"| {r.algorithm} | {r.experiment} | {r.searches} | {r.cpu_core_hours:.2f} | "
                f"{r.cpu} | {r.best} | {r.hits} | {r.per_core_hour:.2f} [{r.low:.2f}, "
                f"{r.high:.2f}] |"
            )
    best = {v: book.best_known[v] for v in HUNTS}
    top = games[games["score"] >= games["variant"].map(best)] if len(games) else games
    lines += ["", "### Our games of the record length, and how to reproduce each", ""]
    if top.empty:
        lines.append("None yet.")
    for r in top.itertuples():
        lines.append(f"- {r.variant}, {r.score} moves, search {r.search}: `{r.command}`")
    lines += ["", "### Pictures", ""]
    for path in drawn:
        rel = path.relative_to(ctx.outputs) if path.is_relative_to(ctx.outputs) else path
        lines.append(f"![{path.stem}]({rel.as_posix()})")
    return lines + [""]


def sample_command(ctx: Context, experiment: str, meta: dict) -> str:
    """The command that runs exactly the searches of a hunt's cell again: its seed scheme (a
    cell on common seeds replays them with ``seeds=common``; one on its own seeds is drawn
    again with ``seeds=cell``, its seeds being its identity's) and its number of searches."""
    scheme = identity_scheme(meta.get("identity", {}))
    return (
        f"python run.py experiment={experiment} scale={ctx.scale} seeds={scheme} "
        f"n_searches={meta.get('n_done')} record.target=null"
    )


def hunt_command(ctx: Context, experiment: str, cells=None, then: str = "") -> str:
    """The rerun command of a claim on a hunt: each of its cells (``cells``: those hashes
    only) by ``sample_command``, then ``then``, then the analysis; the experiment's own run
    where no cell is known."""
    metas = cell_metas(ctx.results_dir / experiment).values()
    runs = [
        sample_command(ctx, experiment, m) for m in metas if cells is None or m.get("cell") in cells
    ]
    if not runs:
        return rerun_command(ctx.scale, experiment)
    return " && ".join([*runs, *([then] if then else []), "python -m analysis"])


def sample_lines(ctx: Context) -> list[str]:
    """For each experiment with more than one cell: each cell's seed scheme, its searches, and
    the command that runs exactly those searches again (``sample_command``)."""
    lines = []
    for experiment in HUNTED:
        metas = cell_metas(ctx.results_dir / experiment)
        if len(metas) <= 1:
            continue
        lines += ["", f"Samples of `{experiment}`:", ""]
        for meta in metas.values():
            scheme = identity_scheme(meta.get("identity", {}))
            what = "replays the published searches" if scheme == "common" else "a new sample"
            lines.append(
                f"- cell {meta.get('cell')} ({scheme} seeds, {meta.get('n_done')} searches; "
                f"{what}): `{sample_command(ctx, experiment, meta)}`"
            )
    return lines


def _hours(value: float) -> str:
    return "-" if not np.isfinite(value) else f"{value:.2f}"


def _clock(part: pd.DataFrame) -> tuple[str, float]:
    """('CPU', mean CPU seconds a search) where every search carries its CPU time, else
    ('wall', mean wall seconds)."""
    if "cpu_seconds" in part.columns and part["cpu_seconds"].notna().all():
        return "CPU", float(part["cpu_seconds"].mean())
    return "wall", float(part["seconds"].mean())


def probabilities(
    variant: str,
    level: int,
    part: pd.DataFrame,
    experiment: str | None = None,
    sample: str = "-",
    pooled: bool = False,
) -> list[dict]:
    """P(score >= k) with its Wilson interval, and the expected core-hours to a first such game
    (one core: the mean search time over P, CPU time where every search has it, else wall
    time, the ``clock`` says which; ``pooled``: cells of one configuration, whose cost is the
    mean CPU time of the searches that carry it, where some do), for the thresholds of
    ``variant``."""
    n = len(part)
    clock, seconds = _clock(part)
    if pooled and clock == "wall" and "cpu_seconds" in part and part["cpu_seconds"].notna().any():
        timed = part["cpu_seconds"].dropna()
        clock, seconds = f"CPU ({len(timed)} of {n} searches)", float(timed.mean())
    hours = seconds / 3600.0
    rows = []
    for k in THRESHOLDS[variant]:
        hits = int((part["score"] >= k).sum())
        low, high = wilson(hits, n)
        rows.append(
            {
                "variant": variant,
                "experiment": experiment or HUNTS[variant],
                "sample": sample,
                "level": level,
                "score_at_least": k,
                "searches": n,
                "hits": hits,
                "p": hits / n,
                "p_low": low,
                "p_high": high,
                "clock": clock,
                "core_hours_per_search": hours,
                "expected_core_hours": hours / (hits / n) if hits else float("inf"),
                "core_hours_low": hours / high if high > 0 else float("inf"),
                "core_hours_high": hours / low if low > 0 else float("inf"),
            }
        )
    return rows


def sample_probabilities(
    ctx: Context, variant: str, level: int, part: pd.DataFrame, experiment: str
) -> list[dict]:
    """The rows of ``probabilities`` for each cell of a hunt that holds more than one (its
    seed scheme in ``sample``: a cell on common seeds is the replay of its published searches,
    a cell on its own seeds a new sample), then for all of them pooled, whose cost per search
    is the mean CPU time of the searches that carry it. One cell: its rows."""
    metas = {m.get("cell"): m for m in cell_metas(ctx.results_dir / experiment).values()}

    def scheme(cell: str) -> str:
        return identity_scheme(metas.get(cell, {}).get("identity", {}))

    cells = list(dict.fromkeys(part["cell"])) if "cell" in part else []
    if len(cells) <= 1:
        sample = f"{scheme(cells[0])} seeds" if cells else "-"
        return probabilities(variant, level, part, experiment, sample=sample)
    rows = []
    for cell in cells:
        sample = f"cell {cell}, {scheme(cell)} seeds"
        rows += probabilities(variant, level, part[part["cell"] == cell], experiment, sample)
    return rows + probabilities(variant, level, part, experiment, sample="pooled", pooled=True)


def first_reach(part: pd.DataFrame, k: int) -> dict:
    """The first search (in seed and index order) that scores ``k`` or more, and the CPU
    core-hours of the searches up to it (all of them when none does; NaN when some carry no
    CPU time)."""
    ordered = part.sort_values(["seed", "search"], kind="stable")
    hits = (ordered["score"] >= k).to_numpy()
    first = int(np.argmax(hits)) if hits.any() else None
    spent = ordered if first is None else ordered.iloc[: first + 1]
    try:
        hours = cpu_hours(spent)
    except ValueError:
        hours = float("nan")
    return {
        "score_at_least": k,
        "searches": len(ordered),
        "first_search": None if first is None else int(ordered["search"].iloc[first]),
        "searches_spent": len(spent),
        "cpu_core_hours": hours,
    }


def level4_firsts(hunts: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """For each level-4 experiment that ran: its level, and its first game of LEVEL4_TARGET."""
    rows = []
    for variant, experiment in LEVEL4.items():
        df = hunts[variant]
        part = df[df["hunt"] == experiment] if len(df) else df
        if part.empty:
            continue
        level = int(part["level"].max())
        part = part[part["level"] == level]
        rows.append(
            {
                "variant": variant,
                "experiment": experiment,
                "level": level,
                "best": int(part["score"].max()),
                **first_reach(part, LEVEL4_TARGET),
            }
        )
    return pd.DataFrame(rows)


def first_text(r) -> str:
    """'first 170 in search 3, after 2.10 CPU core-hours (the 4 searches up to it)' or '170 not
    reached in ...' (``r``: a row of ``level4_firsts``)."""
    hours = float(r.cpu_core_hours)
    spent = f"{hours:.2f} CPU core-hours" if np.isfinite(hours) else "CPU time not recorded"
    k = int(r.score_at_least)
    if r.first_search is None or not np.isfinite(r.first_search):
        return f"{k} not reached in {spent} ({int(r.searches)} searches, best {int(r.best)})"
    return (
        f"first {k} in search {int(r.first_search)}, after {spent} (the "
        f"{int(r.searches_spent)} searches up to it)"
    )


def level4_claims(
    ctx: Context,
    hunts: dict[str, pd.DataFrame],
    games: pd.DataFrame,
    probs: pd.DataFrame,
    firsts: pd.DataFrame,
) -> list[Claim]:
    """A record row per level-4 experiment that ran: reached when a saved game of
    LEVEL4_TARGET or more replays, with P(>= 160), P(>= 170) and the CPU time spent; not a
    statistical test."""
    book, _, _ = _morpion()
    claims = []
    for r in firsts.itertuples():
        df = hunts[r.variant]
        part = df[(df["hunt"] == r.experiment) & (df["level"] == r.level)]
        rows = probs[(probs["experiment"] == r.experiment) & (probs["level"] == r.level)]
        shown = rows[rows["score_at_least"] >= LEVEL4_TARGET - 10]
        chances = "; ".join(
            f"P(>= {p.score_at_least}) {p.p:.3f} [{p.p_low:.3f}, {p.p_high:.3f}]"
            for p in shown.itertuples()
        )
        # The saved games of the searches counted (a cell still running saves games too).
        counted = set(part.loc[part["score"] >= LEVEL4_TARGET, "search"])
        hits = (
            games[
                (games["experiment"] == r.experiment)
                & (games["score"] >= LEVEL4_TARGET)
                & games["search"].isin(counted)
            ]
            if len(games)
            else games
        )
        ours = (
            f"best {r.best} in {r.searches} searches (mean {part['score'].mean():.1f}); "
            f"{chances} (Wilson 95%); {first_text(r)}; {len(hits)} game(s) of "
            f"{LEVEL4_TARGET}+ saved and replayed; a best-of result, not a statistical test"
        )
        claims.append(
            Claim(
                SECTION,
                f"level-{r.level} NRPA (N = 100) finds a Morpion {r.variant} game of "
                f"{LEVEL4_TARGET} moves or more",
                f"{LEVEL4_TARGET} (Bruneau 1976, by hand); {book.best_known[r.variant]} "
                "with NRPA (Rosin 2011)",
                ours,
                REACHED if len(hits) else NOT_REACHED,
                rerun_command(ctx.scale, r.experiment),
                reads=cells_read(part),
                rules=(LEVEL4_RULE,),
            )
        )
    return claims


def found_games(ctx: Context) -> pd.DataFrame:
    """Every saved game of the hunts, replayed from its file: variant, experiment, cell, search,
    score, the replayed length, and the command that reruns that search and checks it.
    ResultsFileError (one line naming the file) for a file that does not replay to the length
    it is named with."""
    _, read_psol, _ = _morpion()
    rows = []
    for variant, experiments in SOURCES.items():
        for experiment in experiments:
            folder = ctx.results_dir / experiment
            for path in sorted(folder.glob("**/records/**/*.psol")):
                m = _GAME_FILE.search(path.name)
                if not m:
                    continue
                try:
                    _, moves = read_psol(path, variant=variant)  # a file that does not replay
                except ValueError as error:
                    text = str(error)
                    raise ResultsFileError(
                        text if str(path) in text else f"{path}: {text}"
                    ) from None
                if variant == "5D":  # and again in plain Python, sharing no code with the engine
                    independent = independent_morpion.replay_psol(path.read_text()).score
                    if independent != len(moves):
                        raise ResultsFileError(
                            f"{path}: {len(moves)} moves, {independent} independently"
                        )
                cell_folder = path.parent if path.parent.name != "records" else path.parent.parent
                rows.append(
                    {
                        "variant": variant,
                        "experiment": experiment,
                        "cell": cell_folder.name,
                        "search": int(m.group(1)),
                        "score": int(m.group(2)),
                        "replayed": len(moves),
                        "file": str(path.relative_to(ctx.results_dir)),
                        "command": rerun_search_command(
                            ctx, experiment, cell_folder.name, m.group(1)
                        ),
                    }
                )
    df = pd.DataFrame(rows)
    if len(df) and (df["replayed"] != df["score"]).any():
        bad = df[df["replayed"] != df["score"]].iloc[0]
        raise ResultsFileError(
            f"{bad['file']}: replays to {bad['replayed']} moves, named {bad['score']}"
        )
    return df


def rerun_search_command(ctx: Context, experiment: str, cell: str, search: str) -> str:
    """The command that runs one search of a cell again and compares it with the saved game."""
    where = ctx.results_dir / experiment
    if ctx.published is None:
        where = where / cell
        return f"python -m nmcs.harness.rerun {where} --search {int(search)}"
    return f"python -m nmcs.harness.rerun {where} --cell {cell} --search {int(search)}"


def pictures(ctx: Context, games: pd.DataFrame) -> list[Path]:
    """Each record-length game of ours (or, short of one, the best game saved of each variant)
    and the literature's grids, drawn from their replays; returns the files."""
    book, read_psol, draw_game = _morpion()
    out = ctx.figures / "records"
    drawn: list[Path] = []
    if len(games):
        best = {v: book.best_known[v] for v in HUNTS}
        for variant, part in games.groupby("variant"):
            top = part[part["score"] >= best[variant]]
            top = top if len(top) else part[part["score"] == part["score"].max()].head(1)
            for row in top.itertuples():
                _, moves = read_psol(ctx.results_dir / row.file, variant=row.variant)
                title = f"Morpion {row.variant}, {row.score} moves (NRPA, search {row.search})"
                # The hunt's games keep their names; another experiment's are named by it.
                other = "" if row.experiment == HUNTS[row.variant] else f"_{row.experiment}"
                stem = out / f"ours_{row.variant}_{row.score}_search{row.search}{other}"
                drawn += draw_game(moves, stem, title=title, formats=("png",))
    for variant, (path, who) in LITERATURE.items():
        _, moves = read_psol(path, variant=variant)
        title = f"Morpion {variant}, {len(moves)} moves ({who})"
        stem = out / f"literature_{variant}_{len(moves)}"
        drawn += draw_game(moves, stem, title=title, formats=("png",))
    return drawn


def record_claim(ctx: Context, df: pd.DataFrame, games: pd.DataFrame) -> Claim:
    book, _, _ = _morpion()
    statement = "our engine finds a Morpion 5D game of the record length (level-3 NRPA)"
    paper = f"{book.best_known['5D']} moves (Rosin 2010)"
    cmd = hunt_command(ctx, HUNTS["5D"])
    df = df[df["level"] == 3] if len(df) else df
    if df.empty:
        return Claim(SECTION, statement, paper, "-", NOT_RUN, cmd, rules=(HUNT_RULE,))
    record = book.best_known["5D"]
    hits = games[(games["variant"] == "5D") & (games["score"] >= record)] if len(games) else games
    best = int(df["score"].max())
    ours = f"best {best} in {len(df)} searches; {len(hits)} game(s) of {record} saved and replayed"
    # None found: a failure once the hunt has spent its budget of searches, else too early.
    verdict = AGREES if len(hits) else DIFFERS if len(df) >= HUNT_BUDGET else NOT_ENOUGH
    return Claim(
        SECTION, statement, paper, ours, verdict, cmd, reads=cells_read(df), rules=(HUNT_RULE,)
    )


def rate(hits: int, n: int, mean_seconds: float) -> tuple[float, float, float]:
    """Games per core-hour and its 95% interval (Clopper-Pearson on the proportion)."""
    low = stats.beta.ppf(0.025, hits, n - hits + 1) if hits else 0.0
    high = stats.beta.ppf(0.975, hits + 1, n - hits) if hits < n else 1.0
    per_hour = 3600.0 / mean_seconds
    return hits / n * per_hour, float(low) * per_hour, float(high) * per_hour


def competitor_label(row) -> str:
    """'memorized NMCS, level 3', 'beam search, level 1, beam 2048', 'MCBS, level 2, beams
    (32, 1)' for a row of a competitor's cell."""
    if row["algo"] == "nested":
        memo = "memorized " if bool(row["memorize"]) else ""
        return f"{memo}NMCS, level {int(row['level'])}"
    beam = tuple(int(b) for b in row["algo_beam"]) if "algo_beam" in row else ()
    if int(row["level"]) == 1:
        return f"beam search, level 1, beam {beam[0] if beam else '?'}"
    return f"MCBS, level {int(row['level'])}, beams {beam}"


def efficiency_table(ctx: Context, hunt: pd.DataFrame) -> pd.DataFrame:
    """Games of 80 or more per CPU core-hour on Morpion 5D: NRPA (the hunt's searches at its
    level, 3 at paper scale, that carry their CPU time) and each cell of the competitors'
    experiment, with the CPU model its searches ran on."""
    level = int(hunt["level"].max()) if len(hunt) else 0  # 3 at paper scale
    nrpa = hunt[hunt["level"] == level] if len(hunt) else hunt
    frames = []
    if len(nrpa) and "cpu_seconds" in nrpa:
        frames.append((f"NRPA, level {level}", HUNTS["5D"], nrpa[nrpa["cpu_seconds"].notna()]))
    others = ctx.results(EFFICIENCY)
    if len(others):
        others = others[others["cpu_seconds"].notna()] if "cpu_seconds" in others else others[:0]
        for _, part in others.groupby("cell", sort=False):
            frames.append((competitor_label(part.iloc[0]), EFFICIENCY, part))
    machines = {
        e: {m.get("cell"): m.get("cpu", "?") for m in cell_metas(ctx.results_dir / e).values()}
        for e in (HUNTS["5D"], EFFICIENCY)
    }
    rows = []
    for label, experiment, part in frames:
        if part.empty:
            continue
        hits, n = int((part["score"] >= EFFICIENCY_SCORE).sum()), len(part)
        mean_seconds = float(part["cpu_seconds"].mean())
        per_hour, low, high = rate(hits, n, mean_seconds)
        cpus = sorted({str(machines[experiment].get(c, "?")) for c in part["cell"].unique()})
        rows.append(
            {
                "algorithm": label,
                "experiment": experiment,
                "searches": n,
                "cpu_core_hours": mean_seconds * n / 3600.0,
                "cpu": ", ".join(cpus),
                "best": int(part["score"].max()),
                "hits": hits,
                "per_core_hour": per_hour,
                "low": low,
                "high": high,
                "_cells": cells_read(part),
            }
        )
    return pd.DataFrame(rows)


def efficiency_claim(ctx: Context, table: pd.DataFrame) -> Claim:
    statement = (
        f"level-3 NRPA reaches {EFFICIENCY_SCORE}+ on Morpion 5D more often per CPU core-hour "
        "than the best configuration of memorized NMCS, beam search and MCBS"
    )
    paper = "NRPA substantially improves search efficiency over NMCS (Rosin 2011)"
    rules = (EFFICIENCY_RULE,)
    is_nrpa = table["algorithm"].str.startswith("NRPA") if len(table) else pd.Series(dtype=bool)
    competitors = f"python run.py -m experiment={EFFICIENCY} scale={ctx.scale}"
    if is_nrpa.any():  # the hunt's cells that NRPA's row read, each run again
        cells = {cell for _, cell in table[is_nrpa].iloc[0]["_cells"]}
        cmd = hunt_command(ctx, HUNTS["5D"], cells, then=competitors)
    else:
        cmd = rerun_command(ctx.scale, HUNTS["5D"], EFFICIENCY, extra={HUNTS["5D"]: "seeds=cell"})
    if table.empty or not is_nrpa.any() or is_nrpa.all():
        return Claim(SECTION, statement, paper, "-", NOT_RUN, cmd, rules=rules)
    save_table(table.drop(columns="_cells"), ctx.tables, "records_efficiency")
    nrpa = table[is_nrpa].iloc[0]
    others = table[~is_nrpa]
    top = others.loc[others["high"].idxmax()]
    cpus = sorted(set(", ".join(table["cpu"]).split(", ")))
    ours = (
        f"NRPA {nrpa['per_core_hour']:.1f} [{nrpa['low']:.1f}, {nrpa['high']:.1f}] per CPU "
        f"core-hour ({int(nrpa['hits'])} in {int(nrpa['searches'])} searches); the best other "
        f"upper bound {top['high']:.2f} ({top['algorithm']}, {int(top['hits'])} in "
        f"{int(top['searches'])} searches, {top['cpu_core_hours']:.2f} CPU core-hours); "
        f"on {', '.join(cpus)}"
    )
    if len(others) < len(COMPETITORS):
        ours += f"; {len(others)} of the {len(COMPETITORS)} competitors run"
    # Higher than every other: agrees; lower than any other: differs; else undecided.
    if nrpa["searches"] < EFFICIENCY_MIN_NRPA or len(cpus) != 1 or "?" in cpus:
        verdict = NOT_ENOUGH
    elif len(others) < len(COMPETITORS):
        verdict = NOT_ENOUGH
    elif nrpa["low"] > others["high"].max():
        verdict = AGREES
    elif nrpa["high"] < others["low"].max():
        verdict = DIFFERS
    else:
        verdict = NOT_ENOUGH
    reads = frozenset().union(*table["_cells"])
    return Claim(SECTION, statement, paper, ours, verdict, cmd, reads=reads, rules=rules)
