"""NMCS for two-player games (Cazenave, Saffidine, Schofield and Thielscher, AAAI 2016): the win
rate of each nested setting against MCS on the nine game versions, at each time per move
(experiments ``twoplayer_paper_time`` and ``_misere``) and under equal playout budgets (beyond
the paper: ``twoplayer_paper_playouts`` and ``_misere``).

Outputs (per scale): ``tables/<scale>/twoplayer_time.csv|md`` (one row per cell: version,
setting, budget, matches, win rate and its 95% Wilson interval, mean length, seconds per match),
``twoplayer_time_table.md`` (the paper's layout: a row per version and setting, a column per
time), the same for ``playouts``, and ``figures/<scale>/twoplayer_time.png|pdf`` (win rate
against time per move, one panel per version, one line per setting) and ``twoplayer_playouts``.

Methods:
- A cell's win rate counts a draw as half a win (the five games have none); its interval is
  Wilson's.
- The difference of two settings' win rates has Newcombe's hybrid (Wilson-based) interval,
  which stays honest when a rate is 0 or 1 (a Wald interval would be [0, 0] there).
- The claims are about 320 ms; where the scale did not run 320 ms (quick) they are computed at
  its longest time per move and say so. How the words "best", "wins clearly", "about half" and
  "loses" are read (thresholds) is in ``analysis/paper_values/twoplayer.yaml`` and in each
  claim's text.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_RUN,
    Claim,
    paper_values,
    rerun_command,
    save_figure,
    save_table,
    verdict_sign,
    wilson,
)
from analysis.pairing import SEED, Combination, mean_combination

# The paper's statements about its table, each judged under several readings.
STATEMENTS = {
    "best": "NMC(1)+COW is the best nested setting",
    "mcs": "NMC(1)+COW against MCS: clear wins, halves and a loss",
    "worse": "NMC(2)+COW is worse than NMC(1)+COW",
}
SECTION = "NMCS for two-player games (Cazenave et al., AAAI 2016): nested settings against MCS"
TIME = ("twoplayer_paper_time", "twoplayer_paper_time_misere")
PLAYOUTS = ("twoplayer_paper_playouts", "twoplayer_paper_playouts_misere")
# The paper's nine versions: five games, and the misere versions of the first four.
VERSIONS = (
    ("breakthrough", False),
    ("knightthrough", False),
    ("domineering", False),
    ("nogo", False),
    ("atarigo", False),
    ("breakthrough", True),
    ("knightthrough", True),
    ("domineering", True),
    ("nogo", True),
)
SETTINGS = tuple(
    f"NMC({level}){'+D' if d else ''}+{cut}"
    for level in (1, 2)
    for cut in ("COW", "POD")
    for d in (False, True)
)


def version_name(game: str, misere: bool) -> str:
    return f"{game} misere" if misere else game


# The versions' names: all nine, the five normal games and the four misere versions.
NAMES = [version_name(*v) for v in VERSIONS]
NORMAL = [version_name(g, m) for g, m in VERSIONS if not m]
MISERE = [version_name(g, m) for g, m in VERSIONS if m]


def load(ctx, experiments) -> pd.DataFrame:
    """The match rows of ``experiments`` where a nested player (A) meets MCS (B)."""
    parts = [ctx.results(e) for e in experiments]
    parts = [p for p in parts if not p.empty and "outcome_a" in p.columns]
    if not parts:
        return pd.DataFrame()
    df = pd.concat(parts, ignore_index=True)
    df = df[(df["player_b"] == "MCS") & (df["a_level"] > 0)].copy()
    df["version"] = [
        version_name(g, bool(m)) for g, m in zip(df["game"], df["misere"], strict=True)
    ]
    return df


def cell_table(df: pd.DataFrame, budget: str) -> pd.DataFrame:
    """One row per (version, setting, budget): n, A's win rate, its Wilson 95% interval."""
    rows = []
    df = df.assign(board=[f"{r}x{c}" for r, c in zip(df["rows"], df["cols"], strict=True)])
    keys = ["version", "board", "player_a", budget]
    for (version, board, setting, b), group in df.groupby(keys, sort=False):
        n = len(group)
        wins = float(((group["outcome_a"] + 1) / 2).sum())
        low, high = wilson(wins, n)
        rows.append(
            {
                "version": version,
                "board": board,
                "setting": setting,
                budget: b,
                "n": n,
                "win_rate": wins / n,
                "ci95_low": low,
                "ci95_high": high,
                "mean_length": float(group["length"].mean()),
                "a_playouts_per_move": float(group["a_playouts_per_move"].mean()),
                "b_playouts_per_move": float(group["b_playouts_per_move"].mean()),
                "seconds_per_match": float(group["wall_seconds"].mean()),
            }
        )
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    order = {version_name(*v): i for i, v in enumerate(VERSIONS)}
    rank = {s: i for i, s in enumerate(SETTINGS)}
    table["_v"] = table["version"].map(order).fillna(99)
    table["_s"] = table["setting"].map(rank).fillna(99)
    table = table.sort_values(["_v", "board", "_s", budget]).drop(columns=["_v", "_s"])
    return table.reset_index(drop=True)


def wide_table(table: pd.DataFrame, budget: str, unit: str) -> pd.DataFrame:
    """The paper's layout: a row per (version, setting), a column per budget, 'rate [lo, hi]'."""
    budgets = sorted(table[budget].unique())
    out = []
    for (version, board, setting), group in table.groupby(
        ["version", "board", "setting"], sort=False
    ):
        row = {
            "version": version,
            "board": board,
            "setting": setting,
            "n": int(group["n"].min()),
        }
        by_budget = group.set_index(budget)
        for b in budgets:
            if b in by_budget.index:
                r = by_budget.loc[b]
                row[f"{b:g} {unit}"] = (
                    f"{r['win_rate']:.2f} [{r['ci95_low']:.2f}, {r['ci95_high']:.2f}]"
                )
            else:
                row[f"{b:g} {unit}"] = "-"
        out.append(row)
    return pd.DataFrame(out)


def figure(ctx, table: pd.DataFrame, budget: str, xlabel: str, stem: str, title: str) -> None:
    """Win rate against the budget, a panel per version, a line per setting."""
    table = table.assign(
        panel=[f"{v} {b}" for v, b in zip(table["version"], table["board"], strict=True)]
    )
    order = {version_name(*v): i for i, v in enumerate(VERSIONS)}
    panels = table.drop_duplicates("panel")
    versions = sorted(panels["panel"], key=lambda p: (order.get(p.rsplit(" ", 1)[0], 99), p))
    cols = 3
    rows = -(-len(versions) // cols)
    fig, axes = plt.subplots(
        rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False, sharex=True, sharey=True
    )
    for ax in axes.flat[len(versions) :]:
        ax.set_visible(False)
    for ax, version in zip(axes.flat, versions, strict=False):
        part = table[table["panel"] == version]
        for setting, line in part.groupby("setting", sort=False):
            err = np.vstack(
                [line["win_rate"] - line["ci95_low"], line["ci95_high"] - line["win_rate"]]
            )
            err = np.maximum(err, 0.0)  # Wilson's bound at 0 wins can be 1e-18 above 0
            ax.errorbar(
                line[budget], line["win_rate"], yerr=err, fmt="-o", ms=3, capsize=2, label=setting
            )
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xscale("log", base=2)
        ticks = sorted(table[budget].unique())
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks], fontsize=7)
        ax.minorticks_off()
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{version} (n={int(part['n'].min())})", fontsize=9)
    for ax in axes[-1]:
        ax.set_xlabel(xlabel)
    for ax in axes[:, 0]:
        ax.set_ylabel("win rate against MCS")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.97))
    save_figure(fig, ctx.figures, stem)


RULES = (
    "win rates: Wilson 95% intervals; a version is a clear win, about half or a loss when its "
    "interval lies inside that band (the bands of each reading are in its row); a pattern is "
    "'differs' when no choice the intervals allow gives the paper's counts (no single test: "
    "no p-value)",
    "a setting worse than another: the 95% interval of the difference of win rates, paired "
    "by match where the two settings' cells share their seeds, else Newcombe's; 'agrees' "
    "above 0",
)


def newcombe_diff(p1: float, n1: int, p2: float, n2: int) -> tuple[float, float, float]:
    """p1 - p2 and Newcombe's hybrid score 95% interval (from the two Wilson intervals)."""
    l1, u1 = wilson(p1 * n1, n1)
    l2, u2 = wilson(p2 * n2, n2)
    d = p1 - p2
    return d, d - np.hypot(p1 - l1, u2 - p2), d + np.hypot(u1 - p1, p2 - l2)


def _fmt(p: float, low: float, high: float) -> str:
    return f"{p:.2f} [{low:.2f}, {high:.2f}]"


def classes(low: float, high: float, lo_t: float, hi_t: float) -> list[int]:
    """The classes a win rate's 95% interval [low, high] allows: 0 wins clearly (above
    ``hi_t``), 1 about half (inside [lo_t, hi_t]), 2 loses (below ``lo_t``); one class when
    the interval lies inside it (decided), several while it straddles a threshold."""
    bands = ((hi_t, 1.0), (lo_t, hi_t), (0.0, lo_t))
    return [k for k, (a, b) in enumerate(bands) if high >= a and low <= b]


def pattern_verdict(options: list[list[int]], target: tuple[int, ...], expected: int) -> str:
    """Whether the versions' possible classes (``options``, one list per version run) give
    the counts ``target`` (wins, halves, losses) over ``expected`` versions: agrees when every
    version is decided and the counts are the target, differs when no choice the intervals
    allow gives the target, else not enough data (not run without versions)."""
    if not options:
        return NOT_RUN
    feasible = any(
        tuple(choice.count(k) for k in range(3)) == target for choice in itertools.product(*options)
    )
    if len(options) < expected:
        # Versions not run yet: differs only if the run ones already exceed the target.
        counts = [sum(o == [k] for o in options) for k in range(3)]
        return DIFFERS if any(c > t for c, t in zip(counts, target, strict=True)) else NOT_ENOUGH
    if all(len(o) == 1 for o in options):
        return AGREES if feasible else DIFFERS
    return NOT_ENOUGH if feasible else DIFFERS


def combine(verdicts: list[str]) -> str:
    """One verdict of parts that must all hold: differs if one differs, agrees if all agree."""
    if not verdicts or all(v == NOT_RUN for v in verdicts):
        return NOT_RUN
    if DIFFERS in verdicts:
        return DIFFERS
    return AGREES if all(v == AGREES for v in verdicts) else NOT_ENOUGH


def _pooled(part: pd.DataFrame) -> tuple[float, int]:
    n = int(part["n"].sum())
    return float((part["win_rate"] * part["n"]).sum()) / n, n


def class_readings(paper: dict) -> list[tuple[str, float, float]]:
    """(name, lo_t, hi_t) of each reading of "wins clearly / about half / loses"."""
    half = paper["half_band"]
    return [
        (
            f"bands: clear win above {paper['wins_above']:g}, loss below {paper['loses_below']:g}",
            paper["loses_below"],
            paper["wins_above"],
        ),
        (
            f"against half: clear win / loss = above / below 0.5 +- {half:g} (the half-width "
            "of a 95% interval at the paper's 500 matches)",
            0.5 - half,
            0.5 + half,
        ),
    ]


def _best_verdict(status: dict[str, str], group: list[str], allowed: int) -> str:
    """Claim 1 in ``group``: agrees when NMC(1)+COW is best in all but ``allowed`` versions,
    differs when it is beaten in more."""
    if not any(v in status for v in group):
        return NOT_RUN
    if sum(status.get(v) == "best" for v in group) >= len(group) - allowed:
        return AGREES
    if sum(status.get(v) == "beaten" for v in group) > allowed:
        return DIFFERS
    return NOT_ENOUGH


def _describe_best(status: dict[str, str], group: list[str], settings: str) -> str:
    n = {what: sum(status.get(v) == what for v in group) for what in ("best", "undecided")}
    beaten = [v for v in group if status.get(v) == "beaten"]
    return (
        f"best in {n['best']} of {len(group)}, beaten in {len(beaten)}"
        f"{' (' + ', '.join(beaten) + ')' if beaten else ''}, undecided in {n['undecided']}, "
        f"not run in {sum(v not in status for v in group)}; settings compared: {settings}"
    )


class Reading(NamedTuple):
    """One reading of one of the paper's statements (a key of STATEMENTS), before ``judge``
    says where it was read and gives it its command."""

    statement: str
    text: str
    paper_text: str
    ours: str
    verdict: str


def judge(
    at: pd.DataFrame, where: str, paper: dict, cmd: str, matches: pd.DataFrame | None = None
) -> list[Claim]:
    """Every claim about the paper's table under each reading, from ``at``: our cells at one
    time per move and one board family (columns version, setting, n, win_rate, ci95_low,
    ci95_high; ``matches``: their match rows, which pair the settings' cells by match where they
    share seeds). A claim's text starts with ``where`` and names its reading."""
    best = paper["best_setting"]
    present = [v for v in NAMES if ((at["version"] == v) & (at["setting"] == best)).any()]
    readings = (
        best_setting_readings(at, present, paper)
        + against_mcs_readings(at, present, paper)
        + worse_setting_readings(at, present, paper, matches)
    )
    return [reading_claim(r, where, cmd) for r in readings]


def reading_claim(reading: Reading, where: str, cmd: str) -> Claim:
    """The claim row of one reading: each reading of a statement is a row, the first decides."""
    return Claim(
        SECTION,
        f"{where}, {reading.text}",
        reading.paper_text,
        "-" if reading.verdict == NOT_RUN else reading.ours,
        reading.verdict,
        cmd,
        statement=f"{where}: {STATEMENTS[reading.statement]}",
        rules=RULES,
    )


# ---------------------------------------------------------------- 1. the best nested setting


def best_status(at: pd.DataFrame, present: list[str], best: str, floor: float) -> dict[str, str]:
    """Version -> best | beaten | undecided for the setting ``best``: "beaten" when some
    setting is significantly better, "best" when every difference's interval lies above
    ``floor``; otherwise undecided (absence of evidence decides nothing)."""
    status: dict[str, str] = {}
    for v in present:
        part = at[at["version"] == v].set_index("setting")
        mine = part.loc[best]
        others = part.drop(index=best)
        if others.empty:
            continue
        diffs = [
            newcombe_diff(mine["win_rate"], mine["n"], o["win_rate"], o["n"])
            for _, o in others.iterrows()
        ]
        if any(high < 0 for _, _, high in diffs):
            status[v] = "beaten"
        elif all(low > floor for _, low, _ in diffs) and set(SETTINGS) <= set(part.index):
            # Best among some settings is not best among the eight: a setting not run
            # could beat it (the reduced table runs only NMC(1)+COW and NMC(2)+COW).
            status[v] = "best"
        else:
            status[v] = "undecided"
    return status


def settings_compared(at: pd.DataFrame) -> str:
    """The settings that ran, and how many of the eight did not (none of those is best)."""
    run = [s for s in SETTINGS if s in set(at["setting"])]
    settings = ", ".join(run)
    if len(run) < len(SETTINGS):
        settings += f" ({len(SETTINGS) - len(run)} of {len(SETTINGS)} not run: none is best)"
    return settings


def best_setting_readings(at: pd.DataFrame, present: list[str], paper: dict) -> list[Reading]:
    """Statement 1: NMC(1)+COW is the best nested setting in 8 of the 9 versions."""
    best = paper["best_setting"]
    tol = paper["best_tolerance"]
    need = paper["best_in_versions"]
    best_readings = [
        (f"best = no setting better by more than {tol:g}", -tol),
        ("best = significantly better than every other setting (95%)", 0.0),
    ]
    settings = settings_compared(at)
    allowed = len(NAMES) - need
    readings = []
    for reading, floor in best_readings:
        status = best_status(at, present, best, floor)
        readings.append(
            Reading(
                "best",
                f"{best} is the best nested setting in {need} of 9 versions [reading (a): the "
                f"nine versions as one table; {reading}]",
                f"{need} of 9",
                _describe_best(status, NAMES, settings),
                _best_verdict(status, NAMES, allowed),
            )
        )
        for label, group in (("normal", NORMAL), ("misere", MISERE)):
            readings.append(
                Reading(
                    "best",
                    f"{best} is the best nested setting in all {label} versions but at most "
                    f"{allowed} [reading (b): normal and misere separately; {reading}]",
                    f"at most {allowed} exception",
                    _describe_best(status, group, settings),
                    _best_verdict(status, group, allowed),
                )
            )
    return readings


# ---------------------------------------------------------------- 2. against MCS


def against_mcs_readings(at: pd.DataFrame, present: list[str], paper: dict) -> list[Reading]:
    """Statement 2: against MCS NMC(1)+COW wins clearly in five versions, about half in three
    and loses in one; readings (a), (b) and (c) under each reading of the classes."""
    best = paper["best_setting"]
    target = (
        paper["against_mcs"]["wins"],
        paper["against_mcs"]["half"],
        paper["against_mcs"]["loses"],
    )
    rows = {v: at[(at["version"] == v) & (at["setting"] == best)].iloc[0] for v in present}
    readings = []
    for reading, lo_t, hi_t in class_readings(paper):
        options = {v: classes(r["ci95_low"], r["ci95_high"], lo_t, hi_t) for v, r in rows.items()}
        readings.append(mcs_pattern_reading(rows, options, target, best, reading))
        readings += mcs_split_readings(options, best, reading)
        readings.append(mcs_assignment_reading(at, options, target, best, reading))
    return readings


def mcs_pattern_reading(
    rows: dict[str, pd.Series],
    options: dict[str, list[int]],
    target: tuple[int, ...],
    best: str,
    reading: str,
) -> Reading:
    """Reading (a) of statement 2: the nine versions as one table."""
    labels = [f"{v} {_fmt(r['win_rate'], r['ci95_low'], r['ci95_high'])}" for v, r in rows.items()]
    decided = [o[0] for o in options.values() if len(o) == 1]
    ours = (
        f"wins clearly in {decided.count(0)}, about half in {decided.count(1)}, loses in "
        f"{decided.count(2)}, undecided in {len(options) - len(decided)}, not run in "
        f"{len(NAMES) - len(options)}: " + "; ".join(labels)
        if options
        else "-"
    )
    return Reading(
        "mcs",
        f"{best} against MCS wins clearly in {target[0]} versions, about half in "
        f"{target[1]}, loses in {target[2]} [reading (a): the nine versions as one table; "
        f"{reading}]",
        "{} / {} / {}".format(*target),
        ours,
        pattern_verdict(list(options.values()), target, len(NAMES)),
    )


def mcs_split_readings(options: dict[str, list[int]], best: str, reading: str) -> list[Reading]:
    """Reading (b) of statement 2: the normal and misere groups separately, for each place
    where the summary's pattern can fall."""
    splits = (
        ("the four misere versions are four of the clear wins", (4, 0, 0), (1, 3, 1)),
        ("the five normal versions are the clear wins", (0, 3, 1), (5, 0, 0)),
    )
    readings = []
    for text, misere_target, normal_target in splits:
        parts = []
        notes = []
        for group, gt, label in (
            (MISERE, misere_target, "misere"),
            (NORMAL, normal_target, "normal"),
        ):
            opts = [options[v] for v in group if v in options]
            parts.append(pattern_verdict(opts, gt, len(group)))
            dec = [o[0] for o in opts if len(o) == 1]
            notes.append(
                f"{label}: {dec.count(0)} / {dec.count(1)} / {dec.count(2)} decided, "
                f"{len(opts) - len(dec)} undecided (wanted {'/'.join(map(str, gt))}): "
                f"{parts[-1]}"
            )
        readings.append(
            Reading(
                "mcs",
                f"{best} against MCS: {text} [reading (b): normal and misere separately; "
                f"{reading}]",
                "misere {}/{}/{}, normal {}/{}/{}".format(*misere_target, *normal_target),
                "; ".join(notes),
                combine(parts),
            )
        )
    return readings


def mcs_assignment_reading(
    at: pd.DataFrame,
    options: dict[str, list[int]],
    target: tuple[int, ...],
    best: str,
    reading: str,
) -> Reading:
    """Reading (c) of statement 2: which of our versions can be the five, the three and the
    one."""
    can = [[v for v, o in options.items() if k in o] for k in range(3)]
    n_ways = (
        sum(
            tuple(choice.count(k) for k in range(3)) == target
            for choice in itertools.product(*options.values())
        )
        if options
        else 0
    )
    ns = at[at["setting"] == best]["n"]
    span = f"{int(ns.min())}-{int(ns.max())}" if options else "0"
    ours = (
        f"can be a clear win: {', '.join(can[0]) or 'none'}; can be about half: "
        f"{', '.join(can[1]) or 'none'}; can be the loss: {', '.join(can[2]) or 'none'}; "
        f"{n_ways} assignment(s) of our versions give {'/'.join(map(str, target))} "
        f"(Wilson 95% intervals at {span} matches a version)"
    )
    return Reading(
        "mcs",
        f"the {target[0]} / {target[1]} / {target[2]} pattern of {best} against MCS "
        f"[reading (c): which of our versions can be the five clear wins, the three halves "
        f"and the one loss; {reading}]",
        "{} / {} / {}".format(*target),
        ours,
        pattern_verdict(list(options.values()), target, len(NAMES)),
    )


# ---------------------------------------------------------------- 3. the deeper setting


def worse_setting_readings(
    at: pd.DataFrame, present: list[str], paper: dict, matches: pd.DataFrame | None = None
) -> list[Reading]:
    """Statement 3, reading (d): NMC(2)+COW is worse than NMC(1)+COW, pooled over each group
    of versions, then version by version."""
    worse = paper["worse_setting"]
    both = [v for v in present if ((at["version"] == v) & (at["setting"] == worse)).any()]
    readings = []
    for label, group in (
        ("the nine versions as one table", NAMES),
        ("normal", NORMAL),
        ("misere", MISERE),
    ):
        vs = [v for v in both if v in group]
        readings.append(worse_pooled_reading(at, vs, label, paper, matches))
    readings.append(worse_by_version_reading(at, both, paper, matches))
    return readings


def match_scores(
    at: pd.DataFrame, matches: pd.DataFrame, version: str, setting: str
) -> pd.DataFrame:
    """One cell's matches as a win score each (1, 0.5, 0) with their index and seed (as
    ``search``, ``search_seed``): what ``analysis.pairing`` pairs by."""
    board = at[(at["version"] == version) & (at["setting"] == setting)]["board"].iloc[0]
    boards = [f"{r}x{c}" for r, c in zip(matches["rows"], matches["cols"], strict=True)]
    rows = matches[
        (matches["version"] == version)
        & (matches["player_a"] == setting)
        & (pd.Series(boards, index=matches.index) == board)
    ]
    return pd.DataFrame(
        {
            "search": rows["match"].to_numpy(),
            SEED: rows["match_seed"].to_numpy() if "match_seed" in rows else pd.NA,
            "score": ((rows["outcome_a"] + 1) / 2).to_numpy(float),
        }
    )


def pooled_difference(
    at: pd.DataFrame, matches: pd.DataFrame, vs: list[str], best: str, worse: str
) -> Combination:
    """The win rate of ``best`` minus ``worse`` over every match of versions ``vs``, the two
    settings' cells of a version paired by match where they share seeds."""
    parts = []
    for v in vs:
        a, b = match_scores(at, matches, v, best), match_scores(at, matches, v, worse)
        parts.append((a, b))
    na, nb = sum(len(a) for a, _ in parts), sum(len(b) for _, b in parts)
    weighted = [(len(a) / na, a) for a, _ in parts] + [(-len(b) / nb, b) for _, b in parts]
    # Pairs are only ever within a version: cells of different versions play other games.
    return mean_combination(weighted)


def worse_pooled_reading(
    at: pd.DataFrame, vs: list[str], label: str, paper: dict, matches: pd.DataFrame | None = None
) -> Reading:
    """Reading (d) pooled over the versions ``vs`` (both settings ran) of the group ``label``:
    paired by match where the matches are given and the cells share seeds, else Newcombe's
    interval of two independent proportions."""
    best, worse = paper["best_setting"], paper["worse_setting"]
    if not vs:
        return Reading(
            "worse",
            f"{worse} is worse than {best} [reading (d) pooled over {label}]",
            "worse",
            "-",
            NOT_RUN,
        )
    part = at[at["version"].isin(vs)]
    pa, na = _pooled(part[part["setting"] == best])
    pb, nb = _pooled(part[part["setting"] == worse])
    d, low, high = newcombe_diff(pa, na, pb, nb)
    how = "independent cells, Newcombe"
    if matches is not None and not matches.empty:
        gap = pooled_difference(at, matches, vs, best, worse)
        d, low, high, how = gap.value, gap.low, gap.high, gap.pairing.replace("search", "match")
    return Reading(
        "worse",
        f"{worse} is worse than {best} [reading (d) pooled over {label}: win rate of "
        f"{best} minus {worse} over the matches of every version both ran]",
        "worse",
        f"{_fmt(d, low, high)} over {na} and {nb} matches of {len(vs)} versions ({how})",
        verdict_sign(low, high),
    )


def worse_by_version_reading(
    at: pd.DataFrame, both: list[str], paper: dict, matches: pd.DataFrame | None = None
) -> Reading:
    """Reading (d) version by version: significantly worse in a majority of the nine; each
    version's two cells paired by match where the matches are given and the cells share
    seeds, else Newcombe's interval of two independent proportions."""
    best, worse = paper["best_setting"], paper["worse_setting"]
    ahead = behind = 0
    hows = []
    for v in both:
        if matches is not None and not matches.empty:
            a_scores = match_scores(at, matches, v, best)
            b_scores = match_scores(at, matches, v, worse)
            gap = mean_combination([(1.0, a_scores), (-1.0, b_scores)])
            low, high, how = gap.low, gap.high, gap.pairing.replace("search", "match")
        else:
            a = at[(at["version"] == v) & (at["setting"] == best)].iloc[0]
            b = at[(at["version"] == v) & (at["setting"] == worse)].iloc[0]
            _, low, high = newcombe_diff(a["win_rate"], a["n"], b["win_rate"], b["n"])
            how = "independent cells, Newcombe"
        ahead += low > 0
        behind += high < 0
        hows.append(how)
    majority = len(NAMES) // 2 + 1
    verdict = (
        NOT_RUN
        if not both
        else AGREES
        if ahead >= majority
        else DIFFERS
        if behind >= majority or len(both) - behind < majority
        else NOT_ENOUGH
    )
    return Reading(
        "worse",
        f"{worse} is worse than {best} [reading (d) version by version: significantly worse "
        f"in at least {majority} of 9]",
        f"worse in >= {majority} of 9",
        f"significantly worse in {ahead}, significantly better in {behind}, undecided in "
        f"{len(both) - ahead - behind} of {len(both)} versions run"
        + (f" ({'; '.join(dict.fromkeys(hows))})" if hows else ""),
        verdict,
    )


def board_family(game: str, board: str, paper: dict) -> str:
    """``usual boards`` for a game's usual board (``paper['usual_boards']``), else the
    board (``6x6``): the claims are judged per family."""
    return "usual boards" if paper["usual_boards"].get(game) == board else board


def claims_at(
    table: pd.DataFrame,
    ms: float,
    scale: str,
    paper: dict,
    matches: pd.DataFrame | None = None,
) -> list[Claim]:
    """The paper's claims about its table, from our cells at ``ms`` per move, under each
    reading, for each board family the cells ran on (``matches``: the cells' match rows)."""
    cmd = rerun_command(scale, *TIME)
    at = table[table["budget_ms"] == ms] if "budget_ms" in table else table
    at = at[at["setting"].isin(SETTINGS)]  # the paper's eight settings, not our extra switches
    where = f"at {ms:g} ms" + ("" if ms == paper["budget_ms"] else " (this scale's longest)")
    if at.empty:
        return judge(at.assign(family="-"), where, paper, cmd)
    at = at.assign(
        family=[
            board_family(v.removesuffix(" misere"), b, paper)
            for v, b in zip(at["version"], at["board"], strict=True)
        ]
    )
    claims = []
    families = sorted(set(at["family"]), key=lambda f: (f != "usual boards", f))
    for family in families:
        claims += judge(at[at["family"] == family], f"{where} on {family}", paper, cmd, matches)
    return claims


def analyze(ctx) -> list[Claim]:
    """Tables and figures of the time and playout experiments; the paper's claims."""
    paper = paper_values("twoplayer")
    time_rows = load(ctx, TIME)
    if not time_rows.empty:
        table = cell_table(time_rows, "budget_ms")
        save_table(table, ctx.tables, "twoplayer_time")
        save_table(wide_table(table, "budget_ms", "ms"), ctx.tables, "twoplayer_time_table")
        figure(
            ctx,
            table,
            "budget_ms",
            "time per move (ms)",
            "twoplayer_time",
            "Nested settings against MCS: win rate against time per move (95% Wilson intervals)",
        )
    playout_rows = load(ctx, PLAYOUTS)
    if not playout_rows.empty:
        ptable = cell_table(playout_rows, "budget_playouts")
        save_table(ptable, ctx.tables, "twoplayer_playouts")
        save_table(
            wide_table(ptable, "budget_playouts", "playouts"),
            ctx.tables,
            "twoplayer_playouts_table",
        )
        figure(
            ctx,
            ptable,
            "budget_playouts",
            "random playouts per move",
            "twoplayer_playouts",
            "Nested settings against MCS under equal playout budgets (beyond the paper)",
        )
    if time_rows.empty:
        empty = pd.DataFrame(columns=["version", "board", "setting", "budget_ms", "n", "win_rate"])
        return claims_at(empty, paper["budget_ms"], ctx.scale, paper)
    ms = paper["budget_ms"] if (table["budget_ms"] == paper["budget_ms"]).any() else None
    if ms is None:
        ms = float(table["budget_ms"].max())
    return claims_at(table, ms, ctx.scale, paper, time_rows[time_rows["budget_ms"] == ms])
