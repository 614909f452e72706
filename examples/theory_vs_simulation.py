"""Theory against simulation: the probability that a level-3 search without memorization finds
the best score of the depth-9 left move, from 20,000 seeded searches with a 95% interval, and
exactly from the dynamic programme of NMCS section 4.2 (docs: Getting started, Exact theory)."""

import math

import nmcs

state0 = nmcs.make_state("leftmove", depth=9)
seeds = nmcs.search_seeds(0, 0, 20000)  # searches 0-19999 of a cell with seed 0
res = nmcs.search_batch("leftmove", state0, seeds, level=3, memorize=False)
p = (res.score == 9).mean()  # P(best score), simulated
half = 1.96 * math.sqrt(p * (1 - p) / len(seeds))
print(f"simulated {p:.4f} +- {half:.4f}, exact {nmcs.best_score_probability(9, 3):.4f}")
