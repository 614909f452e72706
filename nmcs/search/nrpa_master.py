"""The master of a distributed NRPA search (``algo=nrpa``/``gnrpa`` with
``parallel.backend=dask``): the top level's iterations run here, its level-(L-1) searches on
remote workers.

NRPA's iterations are sequential: each level-(L-1) search starts from the policy that the
previous ones adapted. So the master runs what the kernel runs with ``algo.batch = B``
(``nmcs.search.nrpa``): at each of the N top-level iterations, B level-(L-1) searches start
from a copy of the master's policy, at once on B workers; the best of them (ties: the newer,
``>=``, in the order b = 0..B-1) competes with the best sequence so far, and the policy is
adapted toward that (Rosin's ``Adapt``, GNRPA's with tau and the game's bias). With B = 1 this
is NRPA, run one remote search at a time; the speed-up needs B > 1, which changes the
algorithm (more searches per adaptation). That is the trade the distributed NRPA of
Negrevergne and Cazenave (2017, "Distributed Nested Rollout Policy for SameGame") studies;
the batch form is our reading of it (only the abstract was reachable), see docs/nrpa.md.

Results do not depend on the executor or the number of workers: the search of (iteration i,
member b) is seeded from (seed, i, b) alone, and the master reads the B results in the order
of b. They differ from the kernel's with the same B (whose searches draw from one generator),
so a Dask cell is a cell of its own, as for the nested and beam masters.

``lower(state, seed, codes, weights) -> (score, moves, playouts, playout_moves, cpu_seconds)``
is the remote level-(L-1) search from the policy of the pairs (codes[i], weights[i]), with the
CPU time of the thread that ran it (summed into the result's ``remote_cpu_seconds``);
``nmcs.harness.parallel.remote_nrpa`` is the one that runs the kernel.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from nmcs.search.executors import Executor
from nmcs.search.master import MasterResult, child_seed
from nmcs.search.policy_steps import step_lists


def adapt(
    game: Any,
    state0: np.ndarray,
    seq: np.ndarray,
    policy: dict[int, float],
    alpha: float,
    tau: float = 1.0,
    bias: bool = False,
) -> None:
    """Rosin's Adapt of ``policy`` (code -> weight, missing = 0) toward ``seq`` played from
    ``state0``, in place: at every step, alpha / tau added to the played move's code and
    alpha / tau x p(m) taken from every legal move's, p the softmax of w / tau + beta over the
    legal moves with the weights as they were before this adaptation (plain Python: the
    master adapts once per iteration). The moves of each step are those the game's policy
    steps list (``nmcs.search.policy_steps``), as in the kernel; ``bias``: GNRPA's betas."""
    step = alpha / tau
    delta: dict[int, float] = {}
    for move, (moves, codes, betas) in zip(seq, step_lists(game, state0, seq, bias), strict=True):
        logits = [
            policy.get(int(c), 0.0) / tau + float(b) for c, b in zip(codes, betas, strict=True)
        ]
        top = max(logits)
        exps = [math.exp(z - top) for z in logits]
        total = sum(exps)
        for c, e in zip(codes, exps, strict=True):
            delta[int(c)] = delta.get(int(c), 0.0) - step * e / total
        played = int(codes[list(moves).index(move)])
        delta[played] = delta.get(played, 0.0) + step
    for c, d in delta.items():
        policy[c] = policy.get(c, 0.0) + d


def nrpa_master_search(
    game: Any,
    state0: np.ndarray,
    seed: int,
    iterations: int,
    alpha: float,
    tau: float,
    batch: int,
    lower: Callable,
    executor: Executor,
    use_bias: bool = False,
    stop_score: int | None = None,
) -> MasterResult:
    """The top level of a distributed NRPA search from ``state0`` (see the module docstring);
    ``stop_score``: stop at the first game with at least this score (a solved Sudoku)."""
    start = time.perf_counter()
    policy: dict[int, float] = {}
    best_score: int | None = None
    best = np.empty(0, np.int32)
    playouts = playout_moves = 0
    remote_cpu = 0.0
    trace = []
    stopped = "finished"
    it = 0
    for it in range(iterations):
        codes = np.fromiter(policy.keys(), np.int64, len(policy))
        weights = np.fromiter(policy.values(), np.float64, len(policy))
        futures = [
            executor.submit(lower, state0, child_seed(seed, it, b), codes, weights)
            for b in range(batch)
        ]
        results: list[Any] = [None] * batch
        for b, found in executor.as_completed(futures):
            results[b] = found
        for score, moves, used, used_moves, cpu in results:
            playouts += int(used)
            playout_moves += int(used_moves)
            remote_cpu += float(cpu)
            if best_score is None or int(score) >= best_score:  # ties: the newer (Rosin's >=)
                if best_score is None or int(score) > best_score:
                    trace.append((time.perf_counter() - start, playouts, int(score)))
                best_score = int(score)
                best = np.asarray(moves, np.int32)
        assert best_score is not None
        if stop_score is not None and best_score >= stop_score:
            stopped = "score"
            break
        if it < iterations - 1:  # the last adaptation would change nothing returned
            adapt(game, state0, best, policy, alpha, tau, use_bias)
    assert best_score is not None
    return MasterResult(
        score=best_score,
        moves=best,
        playouts=playouts,
        playout_moves=playout_moves,
        seconds=time.perf_counter() - start,
        steps=it + 1,
        stopped=stopped,
        trace=trace,
        remote_cpu_seconds=remote_cpu,
    )
