"""Records: SameGame at the field's frontier (experiment samegame_frontier), the SameGame section
of RECORDS.md and its claims.

- Per position (``game.instance`` 0-19, the paper's positions 1-20): the best game our engine
  found, replayed from its game file (``<cell>/records/search-<i>-score-<s>.sgm``, published
  under ``records/<cell>/``) by the engine's reader (``nmcs.games.samegame.gamefile.read_game``,
  which checks every move with a flood fill of its own) and again by plain Python rules that
  share no code with the engine (``analysis.independent.samegame_rules``); a file that does not
  replay to the score it is named with, or not on its position's board, stops the analysis with
  one line. Beside it: the search, the command that reproduces it, its picture, the record
  book's best known (``nmcs.games.samegame.RECORDS``) and the CPU hours spent on the position
  (the searches' ``cpu_seconds`` summed; rows without CPU time are said, never replaced by their
  wall time).
- Totals over the 20 positions: the level-3 total (the FIRST search of each position, one
  search a position like NMCS's 77,934) and the best total (each position's best game), each
  with its CPU core-hours and the machine that ran it, beside the field's totals
  (``analysis/paper_values/samegame_frontier.yaml``).
- Claims: our level-3 NRPA total against NMCS level 3 and NRPA (a statistical test: the 95%
  interval of the sum of the per-position means, from each position's spread, which needs at
  least ``MIN_SEARCHES`` searches a position), and the best total against NMCS level 3, NRPA and
  parallel NRPA (record rows: reached or not, with what was spent; not a test).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    NOT_ENOUGH,
    NOT_REACHED,
    NOT_RUN,
    REACHED,
    Claim,
    Context,
    cells_read,
    paper_values,
    rerun_command,
    save_table,
    verdict_sign,
)
from analysis.independent import samegame_rules as independent
from analysis.publish import cell_metas
from nmcs.harness.results import ResultsFileError, cpu_hours

SECTION = "Records (SameGame)"
EXPERIMENT = "samegame_frontier"
POSITIONS = 20
# Searches a position for the interval of the level-3 total (a variance needs two).
MIN_SEARCHES = 2
# The rules that decide this section's verdicts, as the report prints them.
LEVEL_RULE = (
    "our level-3 total above another's: the 95% interval of the sum of the per-position mean "
    "scores (Student's t on sqrt(sum s_k^2 / n_k) with Welch-Satterthwaite degrees of freedom; "
    "the positions' cells independent, as seeds=cell runs them) against their total taken as "
    "its value (one run, its spread not published); 'agrees' when its low end is above, "
    "'differs' with its p-value when its high end is below; the searches of the highest level "
    f"run with the tabu rule; at least {MIN_SEARCHES} searches a position (else 'not enough "
    f"data'), all {POSITIONS} positions (else 'not run')"
)
RECORD_RULE = (
    "a best total: each position's best game, replayed from its saved file by the engine's "
    "reader and by plain Python, summed; 'reached' when it is at least the literature's total, "
    "with the searches and CPU core-hours spent; a best-of result, not a statistical test, "
    "not counted among the decidable statements"
)
_GAME_FILE = re.compile(r"search-(\d+)-score-(\d+)\.sgm$")


def _samegame() -> tuple:
    """SameGame's record book, game reader, replay and boards, imported when the frontier is
    analysed (they load numba, which the analysis does not import otherwise)."""
    from nmcs.games.samegame import RECORDS, io  # noqa: PLC0415
    from nmcs.games.samegame import rules as sg  # noqa: PLC0415
    from nmcs.games.samegame.gamefile import read_game  # noqa: PLC0415

    return RECORDS, read_game, io, sg


def load(ctx: Context) -> pd.DataFrame:
    """The frontier's searches with their position (``instance``, 0-19) and cell folder
    (``cell_dir``), sorted so that each position's first search comes first."""
    df = ctx.results(EXPERIMENT)
    if df.empty:
        return df
    df = df[df["game"] == "samegame"]
    instance = pd.to_numeric(
        df["instance"].astype(str).str.extract(r"(?:^|instance=)(\d+)(?:,|$)")[0], errors="coerce"
    )
    df = df.assign(instance=instance)[instance.notna()]
    df = df.assign(instance=df["instance"].astype(int))
    if "policy" not in df.columns:
        df = df.assign(policy="tabu")
    if "cell_dir" not in df.columns:  # outputs/: the folder of each cell, from its meta.json
        folders = {m.get("cell"): d for d, m in _metas(ctx).items()}
        df = df.assign(cell_dir=df["cell"].map(folders))
    return df.sort_values(["instance", "seed", "search"], kind="stable").reset_index(drop=True)


def _metas(ctx: Context) -> dict[str, dict]:
    folder = ctx.results_dir / EXPERIMENT
    return cell_metas(folder) if folder.is_dir() else {}


def machines(ctx: Context, rows: pd.DataFrame) -> str:
    """The machines that ran ``rows``: each cell's CPU model and cores, from its record."""
    by_cell = {
        m.get("cell"): f"{m.get('cpu') or 'unknown CPU'}, {m.get('cores') or '?'} cores"
        for m in _metas(ctx).values()
    }
    found = sorted({by_cell.get(c, "unknown machine") for c in rows["cell"].unique()})
    return "; ".join(found) if found else "-"


# ------------------------------------------------------------------------------ the games


def found_games(ctx: Context) -> pd.DataFrame:
    """Every saved game of the frontier, replayed: instance, cell folder, search, score, moves,
    the file and its picture (relative to the results folder), and the rerun command.
    ResultsFileError (one line naming the file) for a file that does not replay to the score
    it is named with, on its position's board, by the engine's reader and by plain Python."""
    folder = ctx.results_dir / EXPERIMENT
    metas = _metas(ctx)
    rows = []
    for path in sorted(folder.glob("**/records/**/*.sgm")):
        m = _GAME_FILE.search(path.name)
        if not m:
            continue
        cell_folder = path.parent if path.parent.name != "records" else path.parent.parent
        meta = metas.get(cell_folder.name)
        if meta is None:
            raise ResultsFileError(f"{path}: no record of its cell '{cell_folder.name}'")
        instance = meta["config"]["game"]["instance"]
        score, moves = replay_checked(path, instance, int(m.group(2)))
        png = path.with_suffix(".png")
        rows.append(
            {
                "instance": int(instance),
                "cell_dir": cell_folder.name,
                "search": int(m.group(1)),
                "score": score,
                "moves": moves,
                "file": str(path.relative_to(ctx.results_dir)),
                "picture": str(png.relative_to(ctx.results_dir)) if png.exists() else "",
                "command": rerun_search_command(ctx, cell_folder.name, int(m.group(1))),
            }
        )
    return pd.DataFrame(rows)


def replay_checked(path: Path, instance: int | None, score: int) -> tuple[int, int]:
    """(score, moves) of a game file, replayed twice: by the engine's reader, and by plain
    Python rules that share no code with it; ResultsFileError (one line naming the file) unless
    both give ``score``, on the board of position ``instance`` (None: a random board)."""
    _, read_game, io, sg = _samegame()
    try:
        board, moves = read_game(path)  # ValueError: a move that is not a legal group
        engine = int(io.replay(board, moves)[sg.SCORE])
        plain = independent.replay_sgm(path.read_text())
    except ValueError as error:
        text = str(error)
        raise ResultsFileError(text if str(path) in text else f"{path}: {text}") from None
    if instance is not None and plain.board != io.standard_board(int(instance)).tolist():
        raise ResultsFileError(f"{path}: not the board of standard position {instance}")
    if not engine == plain.score == score:
        raise ResultsFileError(
            f"{path}: named {score} points; replays to {engine} (engine), {plain.score} (plain "
            "Python)"
        )
    return score, plain.moves


def rerun_search_command(ctx: Context, cell: str, search: int) -> str:
    """The command that runs one search of a cell again and compares it with the saved game."""
    where = ctx.results_dir / EXPERIMENT
    if ctx.published is None:
        return f"python -m nmcs.harness.rerun {where / cell} --search {search}"
    return f"python -m nmcs.harness.rerun {where} --cell {cell} --search {search}"


# ------------------------------------------------------------------------------ the numbers


def cpu_text(rows: pd.DataFrame) -> str:
    """The CPU core-hours of ``rows``, or what is missing: never their wall time."""
    if rows.empty:
        return "-"
    try:
        return f"{cpu_hours(rows):.3g}"
    except ValueError:
        missing = int(rows["cpu_seconds"].isna().sum()) if "cpu_seconds" in rows else len(rows)
        return f"not recorded ({missing} of {len(rows)} searches carry no CPU time)"


def _range(counts: pd.Series) -> str:
    """'3' or '2-5': the fewest and most searches a position."""
    low, high = int(counts.min()), int(counts.max())
    return f"{low}" if low == high else f"{low}-{high}"


def first_searches(df: pd.DataFrame) -> pd.DataFrame:
    """The first search of each position (lowest seed, then search index): one search a
    position, the searches of the level-3 total."""
    ordered = df.sort_values(["instance", "seed", "search"], kind="stable")
    return ordered.groupby("instance", as_index=False).head(1)


def best_games(df: pd.DataFrame) -> pd.DataFrame:
    """The best search of each position (the first to reach its best score), the searches of
    the best total."""
    ordered = df.sort_values(["instance", "seed", "search"], kind="stable").reset_index(drop=True)
    return ordered.loc[ordered.groupby("instance")["score"].idxmax()]


def top_level(df: pd.DataFrame) -> pd.DataFrame:
    """The frontier's searches with the tabu rule at the highest level run (3 at paper scale):
    the rows of the level-3 total and its claims."""
    tabu = df[df["policy"] == "tabu"]
    return tabu[tabu["level"] == tabu["level"].max()] if len(tabu) else tabu


def total_interval(df: pd.DataFrame) -> tuple[float, float, float, float]:
    """The sum of the per-position mean scores and its 95% interval (Welch-Satterthwaite: t on
    sqrt(sum of s_k^2 / n_k) with its effective degrees of freedom), and the fewest searches a
    position; the interval is NaN when a position has fewer than MIN_SEARCHES."""
    per = df.groupby("instance")["score"].agg(["mean", "var", "count"])
    mean = float(per["mean"].sum())
    fewest = float(per["count"].min())
    if fewest < MIN_SEARCHES:
        return mean, float("nan"), float("nan"), fewest
    v = per["var"] / per["count"]
    se = float(np.sqrt(v.sum()))
    if se == 0:
        return mean, mean, mean, fewest
    dof = v.sum() ** 2 / (v**2 / (per["count"] - 1)).sum()
    half = float(stats.t.ppf(0.975, dof)) * se
    return mean, mean - half, mean + half, fewest


def per_position(ctx: Context, df: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """One row per position: our best game (with its saved file, replayed), the record book's
    best known and upper bound, the searches and their CPU hours."""
    book = _samegame()[0]
    best = best_games(df).set_index("instance")
    saved = games.set_index(["cell_dir", "search"]) if len(games) else None
    rows = []
    for k, part in df.groupby("instance"):
        b = best.loc[k]
        game = None
        if saved is not None and (b["cell_dir"], int(b["search"])) in saved.index:
            game = saved.loc[(b["cell_dir"], int(b["search"]))]
        known = book.best_known.get(str(k))
        rows.append(
            {
                "instance": int(k),
                "paper_position": int(k) + 1,
                "best": int(b["score"]),
                "level": int(b["level"]),
                "policy": b["policy"],
                "cell": b["cell_dir"],
                "search": int(b["search"]),
                "saved": game is not None,
                "command": game["command"] if game is not None else "",
                "picture": game["picture"] if game is not None else "",
                "best_known": known,
                "gap": int(b["score"]) - known if known is not None else np.nan,
                "upper_bound": book.upper_bound.get(str(k)),
                "searches": len(part),
                "mean": float(part["score"].mean()),
                "cpu_core_hours": cpu_text(part),
            }
        )
    return pd.DataFrame(rows)


def totals(ctx: Context, df: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Our level-3 total (first search a position) and best total (best game a position), each
    with its searches, CPU core-hours and machine, beside the field's totals."""
    rows = []
    top = top_level(df)
    positions = df["instance"].nunique()
    partial = "" if positions == POSITIONS else f" ({positions} of {POSITIONS} positions)"
    if len(top):
        first = first_searches(top)
        level = int(top["level"].max())
        rows.append(
            {
                "total": f"ours: level-{level} NRPA, the first search of each position{partial}",
                "score": int(first["score"].sum()),
                "searches": f"{len(first)} (one a position)",
                "cpu_core_hours": cpu_text(first),
                "machine": machines(ctx, first),
            }
        )
    best = best_games(df)
    counts = df.groupby("instance").size()
    rows.append(
        {
            "total": f"ours: the best game of each position{partial}",
            "score": int(best["score"].sum()),
            "searches": f"{len(df)} ({_range(counts)} a position)",
            "cpu_core_hours": cpu_text(df),
            "machine": machines(ctx, df),
        }
    )
    for t in paper["totals"].values():
        rows.append(
            {
                "total": f"{t['label']} ({t['source']})",
                "score": int(t["total"]),
                "searches": t["searches"] or "not in our sources",
                "cpu_core_hours": "not in our sources",
                "machine": "-",
            }
        )
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ the claims


def level_claims(df: pd.DataFrame, paper: dict, command: str) -> list[Claim]:
    """Our level-3 total against NMCS level 3's and NRPA's: the 95% interval of the sum of the
    per-position means (``total_interval``) against each total taken as its value (theirs is
    one run: its own spread is not published). Above: 'agrees'; below: 'differs' (with its
    p-value); 'not enough data' with fewer than MIN_SEARCHES searches a position; 'not run'
    short of the 20 positions."""
    top = top_level(df)
    level = int(top["level"].max()) if len(top) else 3
    claims = []
    for key in paper["level3_against"]:
        t = paper["totals"][key]
        statement = (
            f"level-{level} NRPA (N = 100, tabu playouts): its total over the 20 positions is "
            f"above {t['label']}'s"
        )
        theirs = f"{t['total']:,} ({t['label']}, {t['source']}" + (
            f"; {t['searches']})" if t["searches"] else "; its searches not in our sources)"
        )
        positions = top["instance"].nunique() if len(top) else 0
        if positions < POSITIONS:
            ours = f"only {positions} of {POSITIONS} positions run" + (
                "" if len(top) else " (no tabu searches)"
            )
            claims.append(
                Claim(SECTION, statement, theirs, ours, NOT_RUN, command, rules=(LEVEL_RULE,))
            )
            continue
        first = int(first_searches(top)["score"].sum())
        mean, low, high, fewest = total_interval(top)
        rule = (
            f"rule: the 95% interval of the sum of the per-position means (t with "
            f"Welch-Satterthwaite degrees of freedom on sqrt(sum s_k^2 / n_k)), >= "
            f"{MIN_SEARCHES} searches a position; above {t['total']:,} when its low end is, "
            "below when its high end is; theirs taken as its value"
        )
        if not np.isfinite(low):
            ours = (
                f"first search a position {first:,}; a position with {int(fewest)} search "
                f"only: no spread ({rule})"
            )
            verdict: str = NOT_ENOUGH
        else:
            counts = top.groupby("instance").size()
            ours = (
                f"first search a position {first:,}; mean total {mean:,.0f} [{low:,.0f}, "
                f"{high:,.0f}], {_range(counts)} searches a position ({rule})"
            )
            verdict = verdict_sign(low - t["total"], high - t["total"])
        claims.append(
            Claim(
                SECTION,
                statement,
                theirs,
                ours,
                verdict,
                command,
                reads=cells_read(top),
                rules=(LEVEL_RULE,),
            )
        )
    return claims


def best_claims(ctx: Context, df: pd.DataFrame, paper: dict, command: str) -> list[Claim]:
    """Our best total (each position's best game, replayed) against the field's totals: record
    rows, 'reached' or 'not reached' with the CPU time spent; not a statistical test."""
    claims = []
    positions = df["instance"].nunique()
    best = best_games(df)
    counts = df.groupby("instance").size()
    for key in paper["best_against"]:
        t = paper["totals"][key]
        statement = f"our best game of each position, summed, reaches {t['label']}'s total"
        theirs = f"{t['total']:,} ({t['label']}, {t['source']})"
        if positions < POSITIONS:
            ours = f"only {positions} of {POSITIONS} positions run"
            claims.append(
                Claim(SECTION, statement, theirs, ours, NOT_RUN, command, rules=(RECORD_RULE,))
            )
            continue
        score = int(best["score"].sum())
        ours = (
            f"{score:,}: the best of {_range(counts)} searches a position "
            f"({len(df)} searches, {cpu_text(df)} CPU core-hours on {machines(ctx, df)}); a "
            "best-of total, not a statistical test"
        )
        verdict = REACHED if score >= t["total"] else NOT_REACHED
        claims.append(
            Claim(
                SECTION,
                statement,
                theirs,
                ours,
                verdict,
                command,
                reads=cells_read(df),
                rules=(RECORD_RULE,),
            )
        )
    return claims


# ------------------------------------------------------------------------------ the page


def _link(ctx: Context, relative: str) -> str:
    """A path under the results folder as seen from RECORDS.md (written in ``ctx.outputs``)."""
    return Path(os.path.relpath(ctx.results_dir / relative, ctx.outputs)).as_posix()


def page_lines(
    ctx: Context, positions: pd.DataFrame, total_rows: pd.DataFrame, paper: dict
) -> list[str]:
    """The SameGame section of RECORDS.md."""
    lines = ["## SameGame: the 20 standard positions (NRPA, N = 100, tabu playouts)", ""]
    lines += [
        "Each position's best game, read back from its game file by the engine's reader and "
        "replayed again by plain Python rules (`analysis/independent/samegame_rules.py`); the "
        "best known is the record book's (`nmcs.games.samegame.RECORDS`: the larger of SP-MCTS "
        "and NMCS level 3 in the NMCS paper's Table 1). CPU core-hours are the searches' CPU "
        "time (`cpu_seconds`, the thread of each search; a published row carries its cell's "
        "mean), summed over the position's searches.",
        "",
        "| game.instance (paper's position) | ours: best | level | searches | reproduce | "
        "picture | best known | ours - best known | CPU core-hours |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in positions.itertuples():
        reproduce = f"`{r.command}`" if r.saved else f"no game file (search {r.search})"
        picture = f"[png]({_link(ctx, r.picture)})" if r.picture else "-"
        gap = f"{r.gap:+,}" if np.isfinite(r.gap) else "-"
        lines.append(
            f"| {r.instance} ({r.paper_position}) | {r.best:,} | {r.level} | {r.searches} | "
            f"{reproduce} | {picture} | {r.best_known:,} | {gap} | {r.cpu_core_hours} |"
        )
    lines += ["", "### Totals over the 20 positions", ""]
    nmcs = paper["totals"]["nmcs_level3"]
    lines += [
        "The level-3 total is the first search of each position, one search a position as "
        f"{nmcs['label']}'s {nmcs['total']:,} was; the best total is each position's best game. "
        "The other totals are the literature's (`analysis/paper_values/samegame_frontier.yaml`).",
        "",
        "| total | score | searches | CPU core-hours | machine |",
        "|---|---|---|---|---|",
    ]
    for r in total_rows.itertuples():
        lines.append(
            f"| {r.total} | {r.score:,} | {r.searches} | {r.cpu_core_hours} | {r.machine} |"
        )
    return lines + [""]


def section(ctx: Context) -> tuple[list[Claim], list[str]]:
    """The frontier's claims and its section of RECORDS.md (none when it did not run: the
    report's 'not run' list names it)."""
    df = load(ctx)
    if df.empty:
        return [], []
    paper = paper_values("samegame_frontier")
    command = rerun_command(ctx.scale, EXPERIMENT)
    games = found_games(ctx)
    positions = per_position(ctx, df, games)
    total_rows = totals(ctx, df, paper)
    save_table(positions, ctx.tables, "samegame_frontier_positions")
    save_table(total_rows, ctx.tables, "samegame_frontier_totals")
    claims = level_claims(df, paper, command) + best_claims(ctx, df, paper, command)
    return claims, page_lines(ctx, positions, total_rows, paper)
