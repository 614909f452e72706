# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # Theory against simulation on the left move problem
#
# The NMCS paper (section 4.2) derives the exact score distribution of a nested search without
# memorization on the left move problem. Here we compare that dynamic programme
# (`nmcs.theory.leftmove`) with seeded simulations of the shared engine, and show what
# memorization adds. The memorized search has an exact law too
# (`nmcs.theory.leftmove_memorized`), but only at small depths: its state is the whole
# sequence a level returns, 2**depth entries, so it is computed up to depth 20 here (24 at
# most), not at Figs 3-4's depth 60.
#
# Open with `jupytext --to notebook notebooks/theory_vs_simulation.py`, or run it as a script.
# `NMCS_SCALE=paper` uses the paper's 100,000 searches per level; the default `quick` uses
# 1,000 (the tests run it that way).

# %%
import os

import matplotlib

if "MPLBACKEND" not in os.environ and not os.environ.get("DISPLAY"):
    matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from nmcs.games.leftmove import make_state
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.summary import pooled_bins
from nmcs.theory import leftmove_memorized
from nmcs.theory.leftmove import best_score_probability, score_distribution

SCALE = os.environ.get("NMCS_SCALE", "quick")
N = {"quick": 1000, "paper": 100_000}[SCALE]
DEPTH = 60

# %% [markdown]
# ## Score distributions at depth 60 (Fig 3 of the paper, with the theory dashed)

# %%
fig, ax = plt.subplots(figsize=(7, 4))
rows = []
for level in range(4):
    res = search_batch(
        "leftmove",
        make_state(DEPTH),
        search_seeds(0, 0, N),
        level=level,
        memorize=False,
        workers=os.cpu_count(),
    )
    freq = np.bincount(res.score, minlength=DEPTH + 1) / N
    theory = score_distribution(DEPTH, level)
    (line,) = ax.plot(freq, label=f"level {level}")
    ax.plot(theory, "--", color=line.get_color(), lw=1)
    rows.append((level, np.abs(freq - theory).max(), res.score.mean(), theory @ np.arange(61)))
ax.set_xlim(15, 60)
ax.set_xlabel("score")
ax.set_ylabel("frequency")
ax.legend()
plt.show()

# %%
print(f"{'level':>5} {'max |sim - theory|':>20} {'mean sim':>9} {'mean theory':>12}")
for level, diff, mean_sim, mean_theory in rows:
    print(f"{level:>5} {100 * diff:>19.2f}% {mean_sim:>9.3f} {mean_theory:>12.3f}")
# Sampling noise alone gives differences of order sqrt(p(1-p)/N) per score.
print(f"noise scale at p=0.1: {100 * np.sqrt(0.09 / N):.2f}%  (the paper: within 1.02%)")

# %% [markdown]
# ## Probability of finding the best score, depth 1 to 12, level 3

# %%
depths = range(1, 13)
n_small = N // 4
p_plain, p_memo, p_theory, p_exact_memo = [], [], [], []
for d in depths:
    seeds = search_seeds(1, 0, n_small)
    plain = search_batch("leftmove", make_state(d), seeds, level=3, memorize=False, workers=2)
    memo = search_batch("leftmove", make_state(d), seeds, level=3, memorize=True, workers=2)
    p_plain.append((plain.score == d).mean())
    p_memo.append((memo.score == d).mean())
    p_theory.append(best_score_probability(d, 3))
    p_exact_memo.append(leftmove_memorized.best_score_probability(d, 3, memorize_from=1))
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(depths, p_plain, "s-", label="simulation, no memorization")
ax.plot(depths, p_theory, "k:", label="dynamic programme")
ax.plot(depths, p_memo, "o-", label="simulation, memorization")
ax.plot(depths, p_exact_memo, "k--", label="exact law, memorization")
ax.set_xlabel("depth")
ax.set_ylabel("P(best score), level 3")
ax.legend()
plt.show()
z = stats.norm.ppf(0.975)
half = z * np.sqrt(p_theory[8] * (1 - p_theory[8]) / n_small)
print(
    f"depth 9, level 3: theory {p_theory[8]:.4f}, simulation {p_plain[8]:.4f} "
    f"(+-{half:.4f}), with memorization {p_memo[8]:.4f}; paper 0.41 and 0.80"
)
print(f"depth 9, level 3, with memorization: exact {p_exact_memo[8]:.4f}")

# %% [markdown]
# ## The exact memorized law against simulation: depth 9, level 3
#
# The whole score law, not only P(best score), for each reading of memorization
# (`memorize_from`: the lowest level that memorizes; 1 is the paper's pseudo-code read
# literally, 2 is the reading that gives its 0.80), against fresh simulations of the engine.
# Pearson's chi-square test pools the scores whose expected count is below 5.

# %%
SMALL_DEPTH = 9
n_memo = N  # as many as the paper's 100,000 at paper scale


def chi_square(counts, law, minimum=5.0):
    """Pearson's chi-square of observed counts against a law, low-count scores pooled as the
    report pools them (``nmcs.harness.summary.pooled_bins``)."""
    expected = law * counts.sum()
    groups = pooled_bins(expected, minimum)
    o = np.array([counts[g].sum() for g in groups], float)
    e = np.array([expected[g].sum() for g in groups])
    chi2 = float(((o - e) ** 2 / e).sum())
    dof = max(len(groups) - 1, 1)
    return chi2, dof, float(stats.chi2.sf(chi2, dof))


fig, ax = plt.subplots(figsize=(7, 4))
scores = np.arange(SMALL_DEPTH + 1)
print(
    f"{'memorize_from':>13} {'P(best) exact':>14} {'simulated':>10} {'chi2':>7} {'dof':>4} {'p':>6}"
)
for start in (1, 2, 3):
    res = search_batch(
        "leftmove",
        make_state(SMALL_DEPTH),
        search_seeds(10 + start, 0, n_memo),
        level=3,
        memorize=True,
        memorize_from=start,
        workers=2,
    )
    counts = np.bincount(res.score, minlength=SMALL_DEPTH + 1)
    law = leftmove_memorized.score_distribution(SMALL_DEPTH, 3, memorize_from=start)
    chi2, dof, p = chi_square(counts, law)
    (line,) = ax.plot(scores, counts / n_memo, "o", label=f"memorize_from={start}, simulation")
    ax.plot(scores, law, "--", color=line.get_color(), lw=1)
    print(
        f"{start:>13} {law[-1]:>14.4f} {counts[-1] / n_memo:>10.4f} {chi2:>7.2f} {dof:>4} {p:>6.3f}"
    )
ax.set_xlim(4, SMALL_DEPTH)
ax.set_xlabel("score")
ax.set_ylabel("frequency (dashed: exact law)")
ax.set_title(f"Level 3, depth {SMALL_DEPTH}, with memorization (n={n_memo} per reading)")
ax.legend(fontsize=8)
plt.show()
