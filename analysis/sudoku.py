"""NMCS paper 5.3 (16x16 Sudoku): Table 2 and the effort-against-empty-fraction figure, read from
the cells of the experiments ``sudoku_table2`` (one cell per method and stored problem) and
``sudoku_effort`` (forward checking and NMCS level 1 on generated problems)::

    python run.py -m experiment=sudoku_table2 [scale=paper]
    python run.py -m experiment=sudoku_effort [scale=paper]
    python -m analysis

A method is told by its cell: ``algo=fc`` is forward checking; ``algo=iterative`` of level 0
is iterative sampling, of level 1 or 2 NMCS with or without memorization, restarted until
solved. A problem is solved when the search's score is the game's target (n^4 assigned cells).
Cells run with ``stop_at_target=false`` (the paper's nested search, no early stop inside a
search) are the methods ``<key>_nostop`` and get their own rows and claims.
"""

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    Claim,
    Context,
    cells_read,
    paper_values,
    save_figure,
    save_table,
    verdict_interval,
    verdict_sign,
)
from analysis.pairing import SCHEME

SECTION = "NMCS 5.3 (16x16 Sudoku, Table 2)"

# The rules that decide this section's verdicts, as the report prints them.
EFFORT_RULE = (
    "effort: the 95% bootstrap interval (2,000 resamples of the problems, one search each) of "
    "the ratio of two methods' total playouts on the same problems; 'agrees' when it lies "
    "below 1 ('needs less effort') or above 1 ('not beneficial'), 'differs' on the other side"
)
FC_RULE = (
    "forward checking: its unsolved count against the paper's 21 of 100 by Fisher's exact test "
    "('differs' below 0.05); under a cap below the paper's 20,000 s the counts and times are "
    "bounds, and only a bound that settles a claim gives a verdict"
)
PEAK_RULE = (
    "the hardest fraction of empty cells: the 95% bootstrap interval of the peak of forward "
    "checking's median effort against 66% ± 10 points"
)
COMMON_RULE = (
    "problems run on common seeds (search 0 of every cell draws the same random numbers, each "
    "on its own problem), one search a cell: no pairs estimate their covariance, so the "
    "problems are taken as independent"
)


def on_common_seeds(results: pd.DataFrame) -> bool:
    """Whether some of ``results``' cells ran on common seeds (``seeds=common``)."""
    return SCHEME in results.columns and bool((results[SCHEME] == "common").any())


def with_rule(claims: list[Claim], rule: str) -> list[Claim]:
    """The claims with ``rule`` added to the rules that decide them."""
    return [dataclasses.replace(c, rules=(*c.rules, rule)) for c in claims]


LABELS = {
    "fc": "forward checking",
    "sampling": "iterative sampling",
    "l1m": "NMCS level 1",
    "l2m": "NMCS level 2",
    "l1": "level 1, no memorization",
    "l2": "level 2, no memorization",
}
NOSTOP = "_nostop"  # suffix of the methods run with stop_at_target=false


def method_key(algo: str, level: int, memorize: bool, stop: bool = True) -> str:
    """The Table 2 method of a cell (``fc``, ``sampling``, ``l1m``, ...)."""
    if algo == "fc":
        return "fc"
    key = "sampling" if level == 0 else f"l{level}{'m' if memorize else ''}"
    return key if stop else key + NOSTOP


def label(key: str) -> str:
    base = key.removesuffix(NOSTOP)
    text = LABELS.get(base, base)
    return text + " (no early stop)" if key != base else text


def rows(df: pd.DataFrame) -> pd.DataFrame:
    """One row per search of a Sudoku experiment: method, problem, solved, effort."""
    stop = df["stop_at_target"] if "stop_at_target" in df else pd.Series(True, index=df.index)
    out = pd.DataFrame(
        {
            "method": [
                method_key(a, int(lv), bool(m), bool(st))
                for a, lv, m, st in zip(df["algo"], df["level"], df["memorize"], stop, strict=True)
            ],
            "problem": df["problem"],
            "empty_fraction": df["empty_fraction"],
            "problem_seed": df["problem_seed"],
            "solved": df["score"] == df["n"].astype(int) ** 4,
            "playouts": df["playouts"],
            "seconds": df["seconds"],
            # which cells each row comes from (Claim.reads), where the rows say
            **{c: df[c] for c in ("experiment", "cell") if c in df},
        }
    )
    return out.reset_index(drop=True)


def effort_figure(eff: pd.DataFrame, folder, per_point: int) -> None:
    """Median effort of forward checking (nodes) and NMCS level 1 (playouts) against the
    fraction of empty cells; a forward-checking median at the cap is marked."""
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, text in (("fc", "forward checking (nodes)"), ("l1m", "NMCS level 1 (playouts)")):
        g = eff[eff["method"] == key].groupby("empty_fraction")
        if not len(g):
            continue
        med = g["playouts"].median()
        ax.plot(med.index, med.values, "o-", label=text)
        if key == "fc":
            # A median at the cap is only a lower bound: more than half the problems hit it.
            capped = (g["solved"].mean() <= 0.5).to_numpy()
            ax.plot(med.index[capped], med.values[capped], "kx", ms=10, label="median >= cap")
    ax.set_yscale("log")
    ax.set_xlabel("fraction of empty cells")
    ax.set_ylabel("median effort to solve")
    ax.set_title(f"16x16 Sudoku, {per_point} problems per point")
    ax.axvline(0.66, color="grey", ls=":", lw=1)
    ax.legend()
    save_figure(fig, folder, "sudoku_effort_vs_empty")


def bootstrap_ratio(a, b, rng, reps=2000):
    """95% bootstrap interval of sum(a) / sum(b) for per-problem efforts on the same problems."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    idx = rng.integers(0, len(a), size=(reps, len(a)))
    ratios = a[idx].sum(1) / b[idx].sum(1)
    return np.percentile(ratios, [2.5, 97.5])


def table2_totals(results: pd.DataFrame, t2: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Table 2: one row per method, its problems, unsolved count, total seconds and playouts,
    the paper's values and the caps the cells ran under."""
    caps = results.groupby("algo")["budget_seconds"].max()
    totals = t2.groupby("method").agg(
        problems=("solved", "size"),
        unsolved=("solved", lambda s: int((~s).sum())),
        seconds=("seconds", "sum"),
        playouts=("playouts", "sum"),
    )
    order = [k for base in LABELS for k in (base, base + NOSTOP)]
    totals = totals.reindex([k for k in order if k in totals.index]).reset_index()
    totals.insert(1, "label", totals["method"].map(label))
    base = totals["method"].str.removesuffix(NOSTOP)
    totals["paper_seconds_100"] = base.map(paper["seconds"])
    totals["paper_unsolved"] = base.map(paper["unsolved"])
    totals["cap_seconds"] = np.where(
        totals["method"] == "fc", caps.get("fc", np.nan), caps.get("iterative", np.nan)
    )
    # FC's cap may be a node count instead (budget.playouts counts FC's nodes).
    node_caps = results.groupby("algo")["budget_playouts"].max()
    totals["cap_nodes_or_playouts"] = np.where(
        totals["method"] == "fc", node_caps.get("fc", np.nan), node_caps.get("iterative", np.nan)
    )
    return totals


def per_problem(t2: pd.DataFrame, key: str) -> pd.DataFrame:
    """The searches of method ``key``, in the order of their problems."""
    return t2[t2["method"] == key].sort_values("problem")


def less_effort_claim(
    t2: pd.DataFrame,
    fast: str,
    slow: str,
    text: str,
    paper_text: str,
    rng: np.random.Generator,
    cmd: str,
) -> list[Claim]:
    """The claim that ``fast`` needs less effort than ``slow`` on their common problems (the
    bootstrap interval of the ratio of their playouts below 1), as a list: empty unless
    ``fast`` solved all its problems."""
    a, b = per_problem(t2, fast), per_problem(t2, slow)
    common = sorted(set(a["problem"]) & set(b["problem"]))
    if not common or not a["solved"].all():
        return []
    a = a[a["problem"].isin(common)]
    b = b[b["problem"].isin(common)]
    low, high = bootstrap_ratio(a["playouts"], b["playouts"], rng)
    ours = (
        f"{a['seconds'].sum():.2f} s vs {b['seconds'].sum():.2f} s on {len(common)} "
        f"problems; playout ratio {a['playouts'].sum() / b['playouts'].sum():.3f} "
        f"[{low:.3f}, {high:.3f}]"
    )
    return [
        Claim(
            SECTION,
            text,
            paper_text,
            ours,
            verdict_sign(1 - high, 1 - low),
            cmd,
            cells_read(a, b),
            rules=(EFFORT_RULE,),
        )
    ]


def level2_claim(
    t2: pd.DataFrame, suffix: str, rule: str, paper: dict, rng: np.random.Generator, cmd: str
) -> Claim:
    """The claim "going from level 1 to level 2 is not beneficial", for the methods ending in
    ``suffix``."""
    # "Not beneficial": level 2 needs at least level 1's effort, i.e. the ratio of their
    # playouts on the same problems is >= 1. Counts to a solution are heavy-tailed (a failed
    # level-2 search costs some 20,000 playouts), so the verdict follows the ratio's bootstrap
    # interval, not the two totals.
    a, b = per_problem(t2, "l2m" + suffix), per_problem(t2, "l1m" + suffix)
    common = sorted(set(a["problem"]) & set(b["problem"]))
    a, b = a[a["problem"].isin(common)], b[b["problem"].isin(common)]
    low, high = bootstrap_ratio(a["playouts"], b["playouts"], rng)
    return Claim(
        SECTION,
        "going from level 1 to level 2 is not beneficial"
        + rule
        + " (investigation: docs/investigations/sudoku_stop_rule.md)",
        f"{paper['seconds']['l2m']} s vs {paper['seconds']['l1m']} s",
        f"{a['seconds'].sum():.2f} s vs {b['seconds'].sum():.2f} s on "
        f"{len(common)} problems; playout ratio "
        f"{a['playouts'].sum() / b['playouts'].sum():.2f} [{low:.2f}, {high:.2f}]",
        verdict_sign(low - 1, high - 1),
        cmd,
        cells_read(a, b),
        rules=(EFFORT_RULE,),
    )


def method_claims(
    t2: pd.DataFrame,
    methods: set[str],
    suffix: str,
    rule: str,
    paper: dict,
    rng: np.random.Generator,
    cmd: str,
) -> list[Claim]:
    """Table 2's comparisons of sampling and NMCS with and without memorization, for the
    methods ending in ``suffix`` that ran (``methods``)."""
    # Table 2's method -> its key among ours (sampling has no stop rule, so no suffix).
    key = {k: k + suffix for k in ("l1m", "l2m", "l1", "l2")} | {"sampling": "sampling"}
    seconds = paper["seconds"]
    claims = []
    for fast, slow, text in (
        ("l1m", "sampling", "NMCS level 1 needs less effort than iterative sampling"),
        ("l1m", "l1", "memorization helps at level 1"),
        ("l2m", "l2", "memorization helps at level 2"),
    ):
        if {key[fast], key[slow]} <= methods:
            paper_text = f"{seconds[fast]} s vs {seconds[slow]} s"
            claims += less_effort_claim(t2, key[fast], key[slow], text + rule, paper_text, rng, cmd)
    if {key["l1m"], key["l2m"]} <= methods:
        claims.append(level2_claim(t2, suffix, rule, paper, rng, cmd))
    return claims


def analyze(ctx: Context) -> list[Claim]:
    """Table 2, the effort figure and their claims."""
    results = ctx.results("sudoku_table2")
    if results.empty:
        return []
    cmd = f"python run.py -m experiment=sudoku_table2 scale={ctx.scale} && python -m analysis"
    paper = paper_values("sudoku")
    t2 = rows(results)
    totals = table2_totals(results, t2, paper)
    save_table(totals, ctx.tables, "sudoku_table2")
    methods = set(totals["method"])
    claims = []
    # One random stream for every bootstrap: each claim's interval depends on the claims
    # before it.
    rng = np.random.default_rng(0)
    # The same claims for the cells without the early stop inside a search (stop_at_target
    # false, the paper's pseudo-code); iterative sampling (level 0) has no inner stop to drop.
    for suffix, rule in (("", ""), (NOSTOP, " (paper's stop rule: no early stop in a search)")):
        claims += method_claims(t2, methods, suffix, rule, paper, rng, cmd)
    if "fc" in methods:
        claims += fc_claims(t2, paper, cmd)
    if on_common_seeds(results):
        claims = with_rule(claims, COMMON_RULE)
    effort_claim(ctx, claims)
    return claims


def fc_claims(t2: pd.DataFrame, paper: dict, cmd: str) -> list[Claim]:
    """The forward-checking claims of Table 2 and the conclusion, from one FC search per problem
    (``t2``: the rows of ``rows``; other methods are compared on FC's problems).

    A search stopped at its cap counts its time up to the cap, so FC's total is a lower bound
    and its count of unsolved problems an upper bound of what a larger cap would give. With a
    cap below the paper's 20,000 s (a node cap, or fewer seconds) a claim is settled only where
    these bounds settle it; otherwise it is 'not enough data' with the bound shown."""
    fc = t2[t2["method"] == "fc"]
    unsolved, n = int((~fc["solved"]).sum()), len(fc)
    fc_seconds = fc["seconds"].sum()
    capped = fc[~fc["solved"]]
    full_cap = unsolved == 0 or capped["seconds"].min() >= paper["fc_cap_seconds"]
    cap_text = (
        "no problem reached the cap"
        if unsolved == 0
        else f"each capped search stopped after {capped['seconds'].median():,.1f} s here"
        + ("" if full_cap else f" (the paper's cap: {paper['fc_cap_seconds']:,} s)")
    )
    fc_text = f"FC: {unsolved} of {n} unsolved at the cap, {'> ' if unsolved else ''}"
    fc_text += f"{fc_seconds:,.1f} s in all; {cap_text}"
    claims = []
    # FC's unsolved count against the paper's 21 of 100 (Fisher's exact test). Below the
    # paper's cap our count is an upper bound: only a count significantly BELOW 21 settles it.
    p_unsolved = paper["unsolved"]["fc"]
    _, p_value = stats.fisher_exact([[unsolved, n - unsolved], [p_unsolved, 100 - p_unsolved]])
    if full_cap:
        verdict = AGREES if p_value >= 0.05 else DIFFERS
    else:
        verdict = DIFFERS if unsolved < p_unsolved and p_value < 0.05 else NOT_ENOUGH
    claims.append(
        Claim(
            SECTION,
            f"forward checking fails on {p_unsolved} of 100 problems within "
            f"{paper['fc_cap_seconds']:,} s",
            f"{p_unsolved} of 100",
            f"{fc_text}; Fisher's exact test against {p_unsolved}/100: p = {p_value:.2g}",
            verdict,
            cmd,
            cells_read(fc),
            rules=(FC_RULE,),
        )
    )

    # Ratios of total times on this machine; FC's total is a lower bound while any is capped.
    def ratio_claim(key: str, text: str, paper_text: str, at_least: float) -> None:
        other = t2[(t2["method"] == key) & t2["problem"].isin(fc["problem"])]
        if len(other) < n:
            return  # the method did not run on all of FC's problems
        other_seconds, other_unsolved = other["seconds"].sum(), int((~other["solved"]).sum())
        ratio = fc_seconds / other_seconds
        ours = f"{fc_text}; {label(key)}: {other_seconds:,.2f} s, "
        ours += f"{other_unsolved} unsolved; ratio {'> ' if unsolved else ''}{ratio:,.0f}"
        if other_unsolved > 0:
            verdict = DIFFERS
        elif ratio >= at_least:
            verdict = AGREES
        else:
            verdict = DIFFERS if full_cap else NOT_ENOUGH
        claims.append(
            Claim(
                SECTION,
                text,
                paper_text,
                ours,
                verdict,
                cmd,
                cells_read(fc, other),
                rules=(FC_RULE,),
            )
        )

    seconds = paper["seconds"]
    ratio_claim(
        "sampling",
        "iterative sampling solves every problem and takes much less time than forward "
        "checking (read as at least 10 times less)",
        f"{seconds['sampling']} s vs > {seconds['fc']:,} s",
        10,
    )
    ratio_claim(
        "l1m",
        "NMCS (level 1) is more than 200,000 times faster than forward checking",
        f"{seconds['l1m']} s vs > {seconds['fc']:,} s",
        200_000,
    )
    return claims


def effort_claim(ctx: Context, claims: list[Claim]) -> None:
    """The effort figure, its table and the "hardest near 66%" claim (experiment
    sudoku_effort)."""
    results = ctx.results("sudoku_effort")
    if results.empty:
        return
    eff = rows(results)
    eff = eff[eff["problem"].isna()]  # generated problems only
    per_point = int(eff.groupby(["method", "empty_fraction"]).size().max())
    effort_figure(eff, ctx.figures, per_point)
    save_table(
        eff.groupby(["method", "empty_fraction"])
        .agg(median_effort=("playouts", "median"), solved=("solved", "mean"), n=("solved", "size"))
        .reset_index(),
        ctx.tables,
        "sudoku_effort_vs_empty",
    )
    fc = eff[eff["method"] == "fc"]
    if fc.empty:
        return
    hardest, low, high = peak_interval(fc, np.random.default_rng(0))
    common = (COMMON_RULE,) if on_common_seeds(results) else ()
    claims.append(
        Claim(
            SECTION,
            "the hardest problems have close to 66% empty cells (read as within 10 points)",
            "close to 66%",
            f"forward checking's median effort peaks at {100 * hardest:.0f}% "
            f"[{100 * low:.0f}%, {100 * high:.0f}%] (bootstrap over problems; "
            f"{per_point} problems per point)",
            verdict_interval(low, high, 0.56, 0.76),
            f"python run.py -m experiment=sudoku_effort scale={ctx.scale} && python -m analysis",
            cells_read(fc),
            rules=(PEAK_RULE, *common),
        )
    )


def peak_interval(fc: pd.DataFrame, rng, reps: int = 2000) -> tuple[float, float, float]:
    """The fraction of empty cells where the median effort peaks, and a 95% bootstrap interval
    of it: the problems of each fraction resampled, the peak found again each time. Efforts at
    the cap count as the cap (a median there is a lower bound, drawn as such in the figure)."""
    groups = [(float(f), g["playouts"].to_numpy(float)) for f, g in fc.groupby("empty_fraction")]
    fractions = np.array([f for f, _ in groups])
    observed = fractions[np.argmax([np.median(e) for _, e in groups])]
    medians = np.column_stack(
        [np.median(e[rng.integers(0, len(e), size=(reps, len(e)))], axis=1) for _, e in groups]
    )
    peaks = fractions[np.argmax(medians, axis=1)]
    return float(observed), float(np.percentile(peaks, 2.5)), float(np.percentile(peaks, 97.5))
