"""The left move and leftmost path experiments of the NMCS paper, section 4: Figs 3-6, the
probability of finding the best score beside the dynamic programme, goodness of fit of theory
against simulation, and the leftmost-path claims."""

import functools

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from analysis.common import (
    AGREES,
    DATA,
    DIFFERS,
    EXACT,
    NOT_ENOUGH,
    Claim,
    Context,
    Verdict,
    caption,
    cells_read,
    first_rows,
    paper_values,
    plot_by_level,
    rerun_command,
    save_figure,
    save_table,
    verdict_interval,
    verdict_p,
    verdict_sign,
    wilson,
)
from analysis.pairing import SCHEME, SEED, Combination, mean_combination
from nmcs.harness.summary import pooled_bins
from nmcs.theory import leftmove_memorized
from nmcs.theory.leftmove import score_distribution

SECTION = "NMCS 4 (left move, leftmost path)"
# The exact law of the memorized search (nmcs.theory.leftmove_memorized) is computed in float64
# up to this depth: its state is the whole returned sequence (2**depth entries), so the cost
# doubles with each depth; levels 1-3 at depths 1-20, every memorize_from, take about 5 s
# (depth 24, its limit, about 2 minutes and 1.4 GB). Deeper cells (Figs 3-4's depth 60) have
# no exact value with memorization.
MEMORIZED_THEORY_MAX_DEPTH = 20
MEMORIZED_THEORY = "nmcs.theory.leftmove_memorized"
# leftmove_best_probability's cells run again, each with its own random numbers: the coverage
# claims' binomial count assumes independent cells.
COVERAGE_EXPERIMENT = "leftmove_coverage"


# What the score analyses read of a search: the published cells of 100,000 searches expand to
# 12 million rows (nmcs.read_results), and reading the rest too (traces, options) made
# `python -m analysis --from results/paper` take 38 s instead of 24 s.
SCORE_COLUMNS = ["experiment", "level", "depth", "memorize", "memorize_from", "score"]


@functools.cache  # the same cells' laws are asked for by several tables
def exact_best_probability(depth, level, memorize_from):
    """The exact P(best score) of a left-move cell: the dynamic programme when no level
    memorizes (``memorize_from`` None or above the level), any depth; the memorized law of
    ``nmcs.theory.leftmove_memorized`` (float64, within its rounding bound) up to
    MEMORIZED_THEORY_MAX_DEPTH; NaN deeper."""
    depth, level = int(depth), int(level)
    start = None if memorize_from is None else int(memorize_from)
    if not leftmove_memorized.memorizes(level, start):
        return float(score_distribution(depth, level)[depth])
    if depth > MEMORIZED_THEORY_MAX_DEPTH:
        return float("nan")
    return leftmove_memorized.best_score_probability(depth, level, start)


def in_interval(low, high, value):
    """Whether ``value`` lies in [low, high] (1e-9 of slack for the exact ones and zeros);
    None when there is no value."""
    if not np.isfinite(value):
        return None
    return bool(low - 1e-9 <= value <= high + 1e-9)


# The cut-offs of the coverage claims, as the report prints them.
COVERAGE_RULES = {
    True: "coverage over independent cells: the count of cells whose 95% interval holds the "
    "exact value is binomial(n, 0.95); 'differs' below its 0.1% quantile (P(at most the "
    "count) < 0.001)",
    False: "coverage over cells on common seeds (the count is overdispersed): Bonferroni over "
    "the cells' two-sided binomial tests; 'differs' when the smallest p times the number of "
    "cells is below 0.05",
}


def coverage_verdict(known: pd.DataFrame, independent: bool) -> tuple[str, str]:
    """Whether the exact P(best) of every cell of ``known`` (columns n, p_best, theory,
    theory_in_ci) is what our cells estimate, and how that was judged.

    Independent cells (each its own random numbers): the count of cells whose 95% interval
    holds the exact value is binomial(n, 0.95); 'differs' below its 0.1% quantile. Cells that
    share random numbers (common seeds) make that count overdispersed, so there the test is
    Bonferroni's, valid whatever the dependence: 'differs' when some cell's two-sided binomial
    p-value times the number of cells is below 5%."""
    n = len(known)
    if independent:
        hits = sum(bool(x) for x in known["theory_in_ci"])
        p = float(stats.binom.cdf(hits, n, 0.95))
        how = f"cells independent: binomial({n}, 0.95) count, P(at most {hits}) = {p:.2g}"
        return verdict_p(p >= 0.001, p), how
    pvalues = [
        stats.binomtest(int(round(r.p_best * r.n)), int(r.n), float(r.theory)).pvalue
        if 0 < r.theory < 1
        else float(round(r.p_best * r.n) == round(r.theory * r.n))
        for r in known.itertuples()
    ]
    p = min(1.0, n * min(pvalues))
    how = (
        "cells share their random numbers (common seeds), so the binomial count does not apply; "
        f"Bonferroni over the {n} cells' binomial tests: smallest p x {n} = {p:.2g}"
    )
    return verdict_p(p >= 0.05, p), how


def exact_cells_claim(table, claim, cmd, independent=False, statement=None):
    """One claim for the cells of ``table`` whose exact P(best) (column ``theory``) is known:
    the exact value inside our 95% interval in about 95% of them (``coverage_verdict``); the
    memorized cells are covered up to MEMORIZED_THEORY_MAX_DEPTH."""
    known = table[np.isfinite(table["theory"].astype(float))]
    if known.empty:
        return []
    n = len(known)
    hits = sum(bool(x) for x in known["theory_in_ci"])
    depths = sorted(int(d) for d in known["depth"].unique())
    verdict, how = coverage_verdict(known, independent)
    ours = (
        f"theory inside the 95% CI in {hits} of {n} cells (about {0.95 * n:.0f} expected), "
        f"depths {depths[0]}-{depths[-1]}; {how}"
    )
    memo = known[known["memorized"].astype(bool)]
    if len(memo):
        bound = max(
            leftmove_memorized.rounding_bound(int(r.depth), int(r.level), int(r.memorize_from))
            for r in memo.itertuples()
        )
        ours += (
            f" ({MEMORIZED_THEORY} in float64, relative error below {bound:.0e}; feasible up "
            f"to depth {MEMORIZED_THEORY_MAX_DEPTH})"
        )
    missing = len(table) - n
    if missing:
        ours += f"; {missing} deeper cells not compared (no exact law there)"
    return [
        Claim(
            SECTION,
            claim,
            "exact (our theory)",
            ours,
            verdict,
            cmd,
            cells_of_rows(known),
            statement,
            rules=(COVERAGE_RULES[independent],),
        )
    ]


def cells_of_rows(table: pd.DataFrame) -> frozenset[tuple[str, str]]:
    """The cells read by the rows of a table of cells (its ``cells`` column)."""
    if "cells" not in table.columns:
        return frozenset()
    return frozenset().union(*table["cells"])


def exact_verdict(row, paper_value, tol):
    """The paper's value against the cell's exact P(best) where it is known (then the row
    says so, and it is a comparison of kind "paper vs exact"), else against our 95% interval;
    and the text that shows the exact value."""
    if not np.isfinite(row.theory):
        return verdict_interval(row.ci_low, row.ci_high, paper_value - tol, paper_value + tol), ""
    note = f"; exact: {row.theory:.4f} ({MEMORIZED_THEORY})"
    if not row.theory_in_ci:
        note += ", outside our interval"
    verdict = verdict_interval(row.theory, row.theory, paper_value - tol, paper_value + tol)
    return verdict, note


def goodness_of_fit(scores, depth, level):
    """Chi-square and G tests (tails pooled to expected >= 5) of observed scores against the
    dynamic programme, and the largest absolute difference between the two distributions."""
    theory = score_distribution(depth, level)
    n = len(scores)
    observed = np.bincount(np.asarray(scores), minlength=depth + 1)[: depth + 1]
    groups = pooled_bins(theory * n)
    o = np.array([observed[g].sum() for g in groups], float)
    e = np.array([theory[g].sum() * n for g in groups], float)
    dof = max(len(groups) - 1, 1)
    chi2 = float(((o - e) ** 2 / e).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        g = float(2 * np.nansum(np.where(o > 0, o * np.log(o / e), 0.0)))
    return {
        "n": n,
        "bins": len(groups),
        "chi2": chi2,
        "chi2_p": float(stats.chi2.sf(chi2, dof)),
        "G": g,
        "G_p": float(stats.chi2.sf(g, dof)),
        "max_abs_diff": float(np.abs(observed / n - theory).max()),
    }


def max_diff_noise(depth, levels_n, reps=400, seed=0):
    """95th percentile of the largest |simulated - exact| frequency over the given levels when
    the simulation follows the dynamic programme exactly: multinomial draws of each level's n
    searches. A bound on the largest difference is only testable when this is below it."""
    rng = np.random.default_rng(seed)
    worst = np.zeros(reps)
    for level, n in levels_n:
        theory = score_distribution(depth, level)
        draws = rng.multinomial(n, theory, size=reps) / n
        worst = np.maximum(worst, np.abs(draws - theory).max(axis=1))
    return float(np.percentile(worst, 95))


def plot_distributions(results, title, theory, note=""):
    """Score histograms per level (lines), with the dynamic programme dashed when asked; the
    title stays one line, what needs saying beside it goes under the axes."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    depth = int(results["depth"].iloc[0])
    for level, group in sorted(results.groupby("level")):
        freq = np.bincount(group["score"], minlength=depth + 1) / len(group)
        (line,) = ax.plot(np.arange(depth + 1), freq, label=f"level {level} (n={len(group)})")
        if theory:
            ax.plot(
                np.arange(depth + 1),
                score_distribution(depth, level),
                "--",
                color=line.get_color(),
                lw=1,
            )
    ax.set_xlabel("score (left moves)")
    ax.set_ylabel("frequency")
    ax.set_title(title)
    ax.legend()
    ax.set_xlim(depth * 0.3, depth)
    if theory:
        note = "Solid: our searches; dashed: the exact law (the dynamic programme). " + note
    if note.strip():
        caption(fig, note.strip())
    return fig


def analyze_distributions(ctx: Context, experiment: str = "leftmove_distributions") -> list[Claim]:
    """Figs 3 and 4, the goodness-of-fit table, and the 1.02 % claim."""
    # With the seeds: Figs 3-4 combine cells, and say how they were paired.
    df = ctx.results(experiment, [*SCORE_COLUMNS, "seed", SEED])
    if df.empty:
        return []
    paper = paper_values("leftmove")
    gof_rows = []
    for memorize, part in df.groupby("memorize"):
        depth = int(part["depth"].iloc[0])
        name = "fig4" if memorize else "fig3"
        title = (
            f"{'Fig 4' if memorize else 'Fig 3'}: depth {depth}, "
            f"{'with' if memorize else 'without'} memorization"
        )
        note = ""
        if memorize and depth > MEMORIZED_THEORY_MAX_DEPTH:
            note = (
                f"No exact curve: the memorized law's state has 2^{depth} sequences; it is "
                f"computed up to depth {MEMORIZED_THEORY_MAX_DEPTH}."
            )
        fig = plot_distributions(part, title, theory=not memorize, note=note)
        save_figure(fig, ctx.figures, f"{experiment}_{name}")
        if memorize:
            continue
        for level, group in sorted(part.groupby("level")):
            gof_rows.append(
                {
                    "depth": depth,
                    "level": level,
                    **goodness_of_fit(group["score"].to_numpy(), depth, level),
                }
            )
    claims = []
    fig3 = cells_read(df[~df["memorize"].astype(bool)])
    if gof_rows:
        gof = pd.DataFrame(gof_rows)
        save_table(gof, ctx.tables, f"{experiment}_goodness_of_fit")
        worst = gof["max_abs_diff"].max()
        limit = paper["theory_agreement_percent"] / 100
        p_min = min(gof["chi2_p"].min(), gof["G_p"].min())
        depth = int(gof["depth"].iloc[0])
        noise = max_diff_noise(depth, zip(gof["level"], gof["n"], strict=True))
        if noise > limit:
            verdict = NOT_ENOUGH  # an exact simulation would exceed the bound by chance
        else:
            verdict = AGREES if worst <= limit else DIFFERS
        claims.append(
            Claim(
                SECTION,
                "Fig 3 simulations lie within 1.02 % of the dynamic programme",
                f"{paper['theory_agreement_percent']} %",
                f"max abs diff {100 * worst:.2f} % over levels "
                f"{', '.join(str(v) for v in sorted(gof['level']))}, "
                f"n={int(gof['n'].min())} per level (sampling noise alone: up to "
                f"{100 * noise:.2f} %, 95th percentile); smallest chi2/G p-value {p_min:.3g}",
                verdict,
                rerun_command(ctx.scale, experiment),
                fig3,
                rules=(
                    "Fig 3's 1.02 %: 'agrees' when the largest difference between our frequencies "
                    "and the dynamic programme's is at most 1.02 %; 'not enough data' when "
                    "sampling noise alone (its 95th percentile, multinomial draws of our n) "
                    "exceeds 1.02 %",
                ),
            )
        )
        # The simulation follows the dynamic programme: a goodness-of-fit test per level, with
        # Bonferroni's correction over the levels tested.
        alpha = 0.01 / len(gof)
        claims.append(
            Claim(
                SECTION,
                "Fig 3: the score distribution without memorization is the dynamic programme's "
                "(chi-square test per level)",
                "exact (our DP)",
                "; ".join(
                    f"level {int(r.level)}: p={r.chi2_p:.3g} (n={int(r.n)})"
                    for r in gof.itertuples()
                ),
                AGREES if gof["chi2_p"].min() >= alpha else DIFFERS,
                rerun_command(ctx.scale, experiment),
                fig3,
                rules=(
                    f"Fig 3's distributions: a chi-square test per level (tails pooled to "
                    f"expected counts of 5 or more); 'differs' when one p-value is below 0.01 / "
                    f"{len(gof)} (Bonferroni over the {len(gof)} levels at 1%)",
                ),
            )
        )
    claims += fig4_claims(df, rerun_command(ctx.scale, experiment))
    return claims


def fig4_claims(df: pd.DataFrame, cmd: str) -> list[Claim]:
    """Fig 4 against Fig 3 (section 4.3): "A Nested Monte-Carlo Search that does not memorize
    the best sequence improves much less with the level than a search that does", and "a
    level 3 search with memorization has some chances of finding the best score, whereas a
    search without memorization has very little chances of finding it"."""
    levels = sorted(set(df["level"]))
    if not ({0, 3} <= set(levels) and set(df["memorize"]) == {False, True}):
        return []
    return [_much_less_claim(df, cmd), _some_chance_claim(df, cmd)]


def _cell(df: pd.DataFrame, level: int, memorize: bool) -> pd.DataFrame:
    return df[(df["level"] == level) & (df["memorize"] == memorize)]


def _much_less_claim(df: pd.DataFrame, cmd: str) -> Claim:
    """gain(memo) - 2 gain(no memo) > 0: without memorization the gain from level 0 to level 3
    is less than half the gain with it."""
    depth = int(df["depth"].iloc[0])
    # Level 0 is one playout whatever the setting (the two level-0 cells hold the same games),
    # so it enters once, with weight 2 - 1.
    level0 = _cell(df, 0, False)
    parts = [(1.0, _cell(df, 3, True)), (-2.0, _cell(df, 3, False)), (1.0, level0)]
    c = mean_combination(parts)
    gain_m = parts[0][1]["score"].mean() - level0["score"].mean()
    gain_n = parts[1][1]["score"].mean() - level0["score"].mean()
    return Claim(
        SECTION,
        f"Figs 3-4 (depth {depth}): without memorization the search improves much less with "
        "the level (read as: its mean gain from level 0 to level 3 is less than half the "
        "gain with memorization)",
        "much less",
        f"gain {gain_n:+.2f} without vs {gain_m:+.2f} with memorization; gain with - 2 x "
        f"gain without = {c.value:+.2f} [{c.low:+.2f}, {c.high:+.2f}], "
        f"n={len(parts[0][1])} per level ({c.pairing})",
        verdict_sign(c.low, c.high),
        cmd,
        cells_read(*(part for _, part in parts)),
    )


def _some_chance_claim(df: pd.DataFrame, cmd: str) -> Claim:
    """Some chance with memorization, very little without: the exact chance without (the
    dynamic programme) beside ours with, which must reach the paper's "some chance" read as a
    number that a memorization that does nothing misses (``some_chance`` in
    paper_values/leftmove.yaml, with its reason)."""
    depth = int(df["depth"].iloc[0])
    memo = _cell(df, 3, True)
    hits, n = int((memo["score"] == depth).sum()), len(memo)
    low, high = wilson(hits, n)
    exact = float(score_distribution(depth, 3)[depth])  # without memorization
    some = float(paper_values("leftmove")["some_chance"])
    none_high = wilson(0, n)[1]
    return Claim(
        SECTION,
        f"Fig 4 (depth {depth}): a level-3 search with memorization has some chance of "
        "finding the best score, one without has very little (read as: ours with "
        f"memorization is at least {some:g} a search, {some / exact:.0e} times the exact "
        "chance without)",
        "some vs very little",
        f"with memorization {hits / n:.5f} [{low:.5f}, {high:.5f}] (n={n}); without: "
        f"{exact:.1e} (dynamic programme), so {n:,} searches that do not memorize find it in "
        f"none: [0, {none_high:.1e}]",
        AGREES
        if low >= some
        else Verdict(DIFFERS, _below_p(hits, n, some))
        if high < some
        else NOT_ENOUGH,
        cmd,
        cells_read(memo),
        rules=(
            f"Fig 4's 'some chance': 'agrees' when our 95% interval (Wilson) lies above {some:g} "
            f"a search, 'differs' when it lies below (as {n:,} searches that do not memorize "
            "would give), else 'not enough data'",
        ),
    )


def _below_p(hits: int, n: int, p: float) -> float:
    """Two-sided binomial p-value of ``hits`` in ``n`` against a chance of ``p``."""
    return float(stats.binomtest(hits, n, p).pvalue)


def best_probability_table(ctx: Context, experiment: str) -> pd.DataFrame:
    """P(best score) of each cell (level, depth, memorize) of ``experiment`` with its Wilson
    interval and the cell's exact law (saved as the experiment's table); empty if not run."""
    # Rows as published (a row per distinct outcome, with its count), not one per search.
    df = ctx.results(experiment, SCORE_COLUMNS, counted=True)
    if df.empty:
        return pd.DataFrame()
    df = df[df["memorize_from"] == 1]  # every level memorizes (see analyze_memorize_from)
    keys = ["level", "depth", "memorize"]
    weights = pd.DataFrame({"sum": (df["score"] == df["depth"]) * df["count"], "size": df["count"]})
    counts = weights.groupby([df[key] for key in keys]).sum()
    firsts = first_rows(df, [*keys, *(c for c in ("experiment", "cell") if c in df.columns)])
    read = {key: cells_read(rows) for key, rows in firsts.groupby(keys)}
    rows = []
    for key, hits, n in zip(counts.index, counts["sum"], counts["size"], strict=True):
        (level, depth, memorize), hits, n = key, int(hits), int(n)
        low, high = wilson(hits, n)
        theory = float(score_distribution(depth, level)[depth])
        # The cell's own exact law: the DP without memorization, the memorized law with it.
        exact = exact_best_probability(depth, level, 1 if memorize else None)
        rows.append(
            {
                "level": level,
                "depth": depth,
                "memorize": memorize,
                "n": n,
                "p_best": hits / n,
                "ci_low": low,
                "ci_high": high,
                "theory_no_memorization": theory,
                "theory_memorized": exact if memorize else float("nan"),
                "theory": exact,
                "theory_in_ci": in_interval(low, high, exact),
                "cells": read[key],
            }
        )
    table = pd.DataFrame(rows).sort_values(["memorize", "level", "depth"])
    save_table(table.drop(columns="cells"), ctx.tables, experiment)
    return table


def analyze_best_probability(
    ctx: Context, experiment: str = "leftmove_best_probability"
) -> list[Claim]:
    """P(best score) per level and depth, with and without memorization, beside theory."""
    table = best_probability_table(ctx, experiment)
    if table.empty:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (level, memorize), part in table.groupby(["level", "memorize"]):
        # The simulation as points with their 95% intervals, each cell's exact law as a line
        # of the same colour (dotted: the DP; dashed: the memorized law, where computed).
        bars = ax.errorbar(
            part["depth"],
            part["p_best"],
            yerr=np.clip(
                [part["p_best"] - part["ci_low"], part["ci_high"] - part["p_best"]], 0, None
            ),
            fmt="o" if memorize else "s",
            ms=3,
            capsize=2,
            label=f"level {level} {'memorized' if memorize else 'no memorization'}",
        )
        ax.plot(
            part["depth"],
            part["theory"],
            "--" if memorize else ":",
            color=bars.lines[0].get_color(),
            lw=1,
        )
    ax.set_xlabel("depth")
    ax.set_ylabel("P(best score)")
    ax.set_title(
        "Probability of finding the best score (points: simulation, 95% CI)\ndotted: dynamic "
        "programme, no memorization; dashed: exact memorized law "
        f"(depths <= {MEMORIZED_THEORY_MAX_DEPTH})",
        fontsize=10,
    )
    ax.legend(fontsize=7)
    save_figure(fig, ctx.figures, experiment)

    paper = paper_values("leftmove")["best_probability"]
    tol = 0.5 * 10 ** -paper["decimals"]
    claims = []
    for memorize, key in ((False, "without_memorization"), (True, "with_memorization")):
        match = table[
            (table["level"] == paper["level"])
            & (table["depth"] == paper["depth"])
            & (table["memorize"] == memorize)
        ]
        if match.empty:
            continue
        row = match.iloc[0]
        ours = f"{row.p_best:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}] (n={row.n})"
        claim = (
            f"level {paper['level']}, depth {paper['depth']}: P(best score) "
            f"{'with' if memorize else 'without'} memorization"
        )
        kind = DATA
        if not memorize:
            ours += f"; dynamic programme {row.theory_no_memorization:.4f}"
            verdict = verdict_interval(row.ci_low, row.ci_high, paper[key] - tol, paper[key] + tol)
        else:
            verdict, note = exact_verdict(row, paper[key], tol)
            ours += note
            if note:
                claim += " (verdict: the paper's value against the exact one)"
                kind = EXACT
        claims.append(
            Claim(
                SECTION,
                claim,
                f"{paper[key]:.2f}",
                ours,
                verdict,
                rerun_command(ctx.scale, experiment),
                row.cells,
                kind=kind,
            )
        )
    independent = best_probability_table(ctx, COVERAGE_EXPERIMENT)
    if len(independent):
        claims += coverage_claims(
            independent,
            rerun_command(ctx.scale, COVERAGE_EXPERIMENT),
            True,
            "cells with independent random numbers",
        )
    return claims + coverage_claims(
        table, rerun_command(ctx.scale, experiment), False, "cells with common random numbers"
    )


COVERAGE = (
    "the dynamic programme predicts P(best score) without memorization",
    "the exact memorized law predicts P(best score) with memorization (every level memorizes)",
)


def coverage_claims(table, cmd, independent, label):
    """The two coverage claims (the exact law inside our intervals in about 95% of the cells),
    without and with memorization, from the cells of ``table``, named by ``label``; one
    statement each, whichever experiment reads it."""
    no_memo = table[~table["memorize"].astype(bool)].assign(memorized=False, memorize_from=1)
    memo = table[table["memorize"].astype(bool)].assign(memorized=True, memorize_from=1)
    claims = []
    for part, statement in ((no_memo, COVERAGE[0]), (memo, COVERAGE[1])):
        if len(part):
            claims += exact_cells_claim(part, f"{statement} ({label})", cmd, independent, statement)
    return claims


def analyze_memorize_from(ctx, experiment="leftmove_memorize_from"):
    """P(best score) of a memorized level-3 search when only the levels from ``memorize_from``
    up memorize: the paper's 0.80 at depth 9 against each reading of its pseudo-code."""
    df = ctx.results(experiment, SCORE_COLUMNS, counted=True)  # rows as stored, with counts
    if df.empty:
        return []
    rows = []
    for (level, depth, start), group in df.groupby(["level", "depth", "memorize_from"]):
        hits = int(group["count"][group["score"] == depth].sum())
        n = int(group["count"].sum())
        low, high = wilson(hits, n)
        exact = exact_best_probability(depth, level, start)
        rows.append(
            {
                "level": level,
                "depth": depth,
                "memorize_from": start,
                "n": n,
                "p_best": hits / n,
                "ci_low": low,
                "ci_high": high,
                "theory_no_memorization": float(score_distribution(depth, level)[depth]),
                "theory": exact,
                "theory_in_ci": in_interval(low, high, exact),
                "cells": cells_read(group),
            }
        )
    table = pd.DataFrame(rows).sort_values(["level", "memorize_from", "depth"])
    save_table(table.drop(columns="cells"), ctx.tables, experiment)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (level, start), part in table.groupby(["level", "memorize_from"]):
        bars = ax.errorbar(
            part["depth"],
            part["p_best"],
            yerr=np.clip(
                [part["p_best"] - part["ci_low"], part["ci_high"] - part["p_best"]], 0, None
            ),
            fmt="o",
            ms=3,
            capsize=2,
            label=f"level {level}, levels >= {start} memorize",
        )
        ax.plot(part["depth"], part["theory"], "--", color=bars.lines[0].get_color(), lw=1)
    for _, part in table.groupby("level"):
        part = part.drop_duplicates("depth")
        ax.plot(part["depth"], part["theory_no_memorization"], "k:", lw=1)
    paper = paper_values("leftmove")["best_probability"]
    ax.plot([paper["depth"]], [paper["with_memorization"]], "r*", ms=10, label="paper")
    ax.set_xlabel("depth")
    ax.set_ylabel("P(best score)")
    ax.set_title(
        "Which levels memorize (points: simulation, 95% CI)\ndashed: exact memorized law "
        f"(depths <= {MEMORIZED_THEORY_MAX_DEPTH}); dotted: no memorization, dynamic programme",
        fontsize=10,
    )
    ax.legend(fontsize=7)
    save_figure(fig, ctx.figures, experiment)

    tol = 0.5 * 10 ** -paper["decimals"]
    claims = []
    for row in table[
        (table["level"] == paper["level"]) & (table["depth"] == paper["depth"])
    ].itertuples():
        verdict, note = exact_verdict(row, paper["with_memorization"], tol)
        claims.append(
            Claim(
                SECTION,
                f"level {paper['level']}, depth {paper['depth']}: P(best score) with "
                f"memorization at levels >= {int(row.memorize_from)} only"
                + (" (verdict: the paper's value against the exact one)" if note else ""),
                f"{paper['with_memorization']:.2f}",
                f"{row.p_best:.3f} [{row.ci_low:.3f}, {row.ci_high:.3f}] (n={int(row.n)})" + note,
                verdict,
                rerun_command(ctx.scale, experiment),
                row.cells,
                kind=EXACT if note else DATA,
            )
        )
    claims += exact_cells_claim(
        table.assign(
            memorized=[
                leftmove_memorized.memorizes(int(r.level), int(r.memorize_from))
                for r in table.itertuples()
            ]
        ),
        "the exact memorized law predicts P(best score) for each reading of memorization "
        "(memorize_from)",
        rerun_command(ctx.scale, experiment),
    )
    return claims


def score_at(trace_x, trace_score, grid):
    """Best score reached by each grid point (NaN before the first completed search)."""
    idx = np.searchsorted(np.asarray(trace_x), grid, side="right") - 1
    scores = np.asarray(trace_score, float)
    return np.where(idx >= 0, scores[np.clip(idx, 0, None)] if len(scores) else np.nan, np.nan)


def anytime_curves(df, axis):
    """Per-search best score on a grid of seconds (0.01 doubling, and the budget itself where it
    is not on that grid: MCBS Fig 5's 163 s) or playouts (doubling)."""
    if axis == "seconds":
        budget = (
            df["budget_seconds"].max() if df["budget_seconds"].max() > 0 else df["seconds"].min()
        )
        grid = 0.01 * 2.0 ** np.arange(0, 40)
        grid = grid[grid <= budget * (1 + 1e-9)]
        if not np.isclose(grid, budget).any():
            grid = np.append(grid, budget)
        col = "trace_seconds"
    else:
        top = df["playouts"].min()
        grid = 2.0 ** np.arange(7, 63)
        grid = grid[grid <= top]
        col = "trace_playouts"
    curves = {}
    for (level, memorize), group in df.groupby(["level", "memorize"]):
        curves[(level, memorize)] = np.vstack(
            [score_at(x, s, grid) for x, s in zip(group[col], group["trace_score"], strict=True)]
        )
    return grid, curves


def curve_searches(df: pd.DataFrame) -> dict[tuple, pd.DataFrame]:
    """The searches behind each curve of ``anytime_curves`` (level, memorize), in its order."""
    return {key: group for key, group in df.groupby(["level", "memorize"])}


def averaged_gap(
    a: np.ndarray, a_rows: pd.DataFrame, b: np.ndarray, b_rows: pd.DataFrame, common: np.ndarray
) -> Combination:
    """The mean of each search's score averaged over the ``common`` grid points, curve ``a``
    (its searches ``a_rows``) minus curve ``b``: paired by search where the two cells share
    their seeds (``analysis.pairing``), else Welch's."""

    def frame(matrix: np.ndarray, rows: pd.DataFrame) -> pd.DataFrame:
        kept = [c for c in ("cell", "search", "seed", SEED, SCHEME) if c in rows.columns]
        return rows[kept].assign(score=matrix[:, common].mean(1))

    return mean_combination([(1.0, frame(a, a_rows)), (-1.0, frame(b, b_rows))])


def realtime_table(grid: np.ndarray, curves: dict, axis: str) -> pd.DataFrame:
    """Mean best score of each level and memorization at each grid point of ``axis`` that
    every search had reached, with its 95% t interval."""
    rows = []
    for (level, memorize), matrix in curves.items():
        for j, x in enumerate(grid):
            col = matrix[:, j]
            if np.isnan(col).any():
                continue  # not every search had finished one nested search yet
            rows.append(
                {
                    "level": level,
                    "memorize": memorize,
                    axis: x,
                    "n": len(col),
                    "mean_score": col.mean(),
                    "ci95": stats.t.ppf(0.975, len(col) - 1) * col.std(ddof=1) / np.sqrt(len(col))
                    if len(col) > 1
                    else 0.0,
                }
            )
    return pd.DataFrame(rows)


def realtime_figures(ctx: Context, table: pd.DataFrame, axis: str, experiment: str) -> None:
    """Fig 5 (with memorization) and Fig 6 (without) against ``axis``: one line per level."""
    for memorize, part in table.groupby("memorize"):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        plot_by_level(ax, part, axis, "mean_score")
        ax.set_xscale("log", base=2)
        ax.set_xlabel(f"{axis} (log scale)")
        ax.set_ylabel("mean best score")
        fig_name = "fig5" if memorize else "fig6"
        ax.set_title(
            f"{'Fig 5' if memorize else 'Fig 6'}: iterative NMCS, "
            f"{'with' if memorize else 'without'} memorization"
        )
        ax.legend()
        save_figure(fig, ctx.figures, f"{experiment}_{fig_name}_{axis}")


def memorized_gap_claims(
    grid: np.ndarray, curves: dict, searches: dict, paper: dict, cmd: str
) -> list[Claim]:
    """With memorization, each level against the one below in real time, where the paper
    gives the gain: each search's scores averaged over the common time points (``searches``:
    each curve's searches, ``curve_searches``)."""
    claims = []
    levels = sorted(level for (level, m) in curves if m)
    for lo, hi in zip(levels, levels[1:], strict=False):
        a, b = curves[(hi, True)], curves[(lo, True)]
        common = ~(np.isnan(a).any(axis=0) | np.isnan(b).any(axis=0))
        if not common.any():
            continue
        value = paper["realtime_gain_with_memorization"].get(f"level{hi}_minus_level{lo}")
        if value is None:
            continue
        rows = searches[(hi, True)], searches[(lo, True)]
        gap = averaged_gap(a, rows[0], b, rows[1], common)
        claims.append(
            Claim(
                SECTION,
                f"real time, memorization: level {hi} beats level {lo} by "
                f"about {value} points (read as within 0.5; investigation: "
                "docs/investigations/leftmove_realtime.md)",
                f"+{value}",
                f"{gap.value:+.2f} [{gap.low:+.2f}, {gap.high:+.2f}] over "
                f"{grid[common][0]:g}-{grid[common][-1]:g} s, n={a.shape[0]} ({gap.pairing})",
                verdict_interval(gap.low, gap.high, value - 0.5, value + 0.5),
                cmd,
                cells_read(*rows),
            )
        )
    return claims


def unmemorized_gap_claims(curves: dict, searches: dict, cmd: str) -> list[Claim]:
    """Without memorization, levels 2 and 3 against level 1 in real time: the paper finds them
    worse."""
    claims = []
    for hi in (2, 3):
        if (hi, False) not in curves or (1, False) not in curves:
            continue
        a, b = curves[(hi, False)], curves[(1, False)]
        common = ~(np.isnan(a).any(axis=0) | np.isnan(b).any(axis=0))
        if not common.any():
            continue
        rows = searches[(hi, False)], searches[(1, False)]
        gap = averaged_gap(a, rows[0], b, rows[1], common)
        claims.append(
            Claim(
                SECTION,
                f"real time, no memorization: level {hi} is worse than level 1",
                "worse",
                f"{gap.value:+.2f} [{gap.low:+.2f}, {gap.high:+.2f}] points, n={a.shape[0]} "
                f"({gap.pairing})",
                verdict_sign(-gap.high, -gap.low),
                cmd,
                cells_read(*rows),
            )
        )
    return claims


def analyze_realtime(ctx: Context, experiment: str = "leftmove_realtime") -> list[Claim]:
    """Figs 5 and 6 against seconds and playouts, and the level-gap claims."""
    df = ctx.results(experiment)
    if df.empty:
        return []
    claims = []
    paper = paper_values("leftmove")
    cmd = rerun_command(ctx.scale, experiment)
    for axis in ("seconds", "playouts"):
        grid, curves = anytime_curves(df, axis)
        table = realtime_table(grid, curves, axis)
        save_table(table, ctx.tables, f"{experiment}_{axis}")
        realtime_figures(ctx, table, axis, experiment)
        if axis == "seconds":
            searches = curve_searches(df)
            claims += memorized_gap_claims(grid, curves, searches, paper, cmd)
            claims += unmemorized_gap_claims(curves, searches, cmd)
    return claims


# --8<-- [start:analyze_leftmost] (shown in the docs' guide to adding an experiment)
def analyze_leftmost(ctx: Context, experiment: str = "leftmost_level1") -> list[Claim]:
    df = ctx.results(experiment)
    if df.empty:
        return []
    df = df.assign(best=df["score"] == df["depth"], expected_moves=df["depth"] * (df["depth"] - 1))
    table = (
        df.groupby(["depth", "memorize"])
        .agg(
            n=("score", "size"),
            p_best=("best", "mean"),
            playout_moves=("playout_moves", "mean"),
            expected_moves=("expected_moves", "first"),
            playouts=("playouts", "mean"),
        )
        .reset_index()
    )
    save_table(table, ctx.tables, experiment)
    always = bool(df["best"].all())
    exact = bool((df["playout_moves"] == df["expected_moves"]).all())
    cmd = rerun_command(ctx.scale, experiment)
    return [
        Claim(
            SECTION,
            "leftmost path: a level-1 search always finds the best score",
            "always",
            f"{int(df['best'].sum())} of {len(df)} searches, depths "
            f"{', '.join(str(d) for d in sorted(df['depth'].unique()))}",
            "agrees" if always else "differs",
            cmd,
            cells_read(df),
        ),
        Claim(
            SECTION,
            "leftmost path: a level-1 search costs n(n-1) (moves played in playouts)",
            "n(n-1)",
            "equal in every search" if exact else "not equal in some searches",
            "agrees" if exact else "differs",
            cmd,
            cells_read(df),
        ),
    ]


# --8<-- [end:analyze_leftmost]


def analyze_adhoc(ctx: Context) -> list[Claim]:
    """Ad-hoc runs (``python run.py`` without an experiment, filed in ``adhoc_<game>_<algo>``):
    score distributions of the nested searches on the tree problems, one figure per depth and
    memorization, and the goodness of fit of every cell the dynamic programme describes."""
    claims = []
    for folder in sorted(ctx.results_dir.glob("adhoc_*")):
        name = folder.name
        df = ctx.results(name)
        if df.empty:
            continue
        game, algo = df["game"].iloc[0], df["algo"].iloc[0]
        if game not in ("leftmove", "leftmost") or algo != "nested":
            ctx.skip(name, "no summary figure for this game and algorithm (see its summary.md)")
            continue
        for (depth, memorize), part in df.groupby(["depth", "memorize"]):
            depth = int(depth)
            theory = game == "leftmove" and not memorize
            memo = "memorized" if memorize else "not_memorized"
            fig = plot_distributions(
                part,
                f"{game}, depth {depth}, {'with' if memorize else 'without'} memorization",
                theory=theory,
            )
            save_figure(fig, ctx.figures, f"{name}_depth{depth}_{memo}")
        if game != "leftmove":
            continue
        # Level 0 is one playout whatever `memorize` says; otherwise the DP is without it.
        fit = df[(df["level"] == 0) | ~df["memorize"].astype(bool)]
        for (depth, level, seed), cell in fit.groupby(["depth", "level", "seed"]):
            if cell["memorize"].nunique() > 1:
                cell = cell[~cell["memorize"].astype(bool)]
            gof = goodness_of_fit(cell["score"].to_numpy(), int(depth), int(level))
            claims.append(
                Claim(
                    "Ad-hoc runs: simulation against the dynamic programme (NMCS 4.2)",
                    f"depth {int(depth)}, level {int(level)}, seed {int(seed)}: the score "
                    "distribution is the dynamic programme's (chi-square test, 1% level)",
                    "exact (our DP)",
                    f"p={gof['chi2_p']:.3g}, largest frequency difference "
                    f"{100 * gof['max_abs_diff']:.2f} %, n={gof['n']}",
                    # A 'differs' carries the test's p-value (Holm adjusts it).
                    verdict_p(gof["chi2_p"] >= 0.01, gof["chi2_p"]),
                    f"python run.py -m level=0,1,2,3 memorize=false game.depth={int(depth)} "
                    f"scale={ctx.scale} && python -m analysis",
                )
            )
    return claims


def analyze(ctx: Context) -> list[Claim]:
    return (
        analyze_adhoc(ctx)
        + analyze_distributions(ctx)
        + analyze_best_probability(ctx)
        + analyze_memorize_from(ctx)
        + analyze_realtime(ctx)
        + analyze_leftmost(ctx)
    )
