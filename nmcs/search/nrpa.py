"""Nested Rollout Policy Adaptation (Rosin, IJCAI 2011) and its generalization GNRPA (Cazenave
2020), written once for every game that has move codes (``code(state, move)``, see
``nmcs.games.protocol``); docs/nrpa.md has the definitions and the sources.

``algo=nrpa`` (options ``algo.iterations`` N, ``algo.alpha``) and ``algo=gnrpa`` (the same and
``algo.tau``, with the game's optional ``bias(state, move)`` kernel as beta) share this module's
kernels, and one compiled entry point per game: tau is a parameter of both (1 for NRPA), and
beta is read at run time when the search is GNRPA (``NrpaParams.use_bias``), so a sweep over
both algorithms compiles once (a second entry point cost 20 s on a first run)::

    level 0   one playout: at each step, move m is drawn with probability
              exp(w[code(m)] / tau + beta(m)) / sum over the legal moves (NRPA: tau = 1, beta = 0)
    level L   N level-(L-1) searches, each starting from a copy of this level's policy; keeps
              the best sequence (ties: the newer replaces the best, ``>=`` as in Rosin's
              pseudo-code) and, after each search but the last (that adaptation would change
              nothing returned), adapts its policy toward the best sequence:
              w[code(b_t)] += alpha / tau and w[code(m)] -= alpha / tau * p(m) for every legal
              m at each step t, the probabilities p taken from the policy as it was before
              this adaptation (Rosin's ``Adapt``; GNRPA's gradient with tau and beta)

The top level starts from the uniform policy (every weight 0), or from the policy given in
``NrpaParams.policy_codes/policy_weights`` (a remote search of the Dask master,
``nmcs.search.nrpa_master``). ``algo.batch`` = B runs B level-(L-1) searches per iteration of
the top level, all from the same policy, each compared in turn with the best (1: NRPA).

With a budget (``budget.playouts`` and/or ``budget.seconds``) the level-L search is repeated
from a fresh policy until the budget is spent, the search under way stopping after the playout
that spends it and returning the best game it knows (so the budget works as for
``algo=iterative``); without one, a single level-L search runs to completion (N**L playouts).
A game with a target score (Sudoku) stops every level at the first playout that reaches it.
The anytime trace records each playout that beats the best so far.

The policy: one hash table per level (``nmcs.search.nrpa_table``, whose docstring says how).

The adaptation caches, per level, the table slot of every legal move's code at every step of
the best sequence (a code's slot never changes once inserted): above level 1 by replaying a
new best sequence once, at level 1 from the recording the playout made as it drew its moves
(the ``r_*`` buffers), which saves a replay each time the best changes (0.44 times per
playout on Morpion 5D, ties replacing); each adaptation then sums exp(w / tau) over every
step's legal moves (first pass), applies the updates with each probability read from the old
exp(w / tau) (second pass) and only then recomputes exp(w / tau) for the codes it touched:
Rosin's copy of the policy without copying it. Softmax overflow (weights beyond about +-700)
falls back to subtracting the largest logit.

Workspace (T = level + 2 tables: table k belongs to the level-k search, table 1 is read by the
playouts, table ``level + 1`` stays empty and is what the top level copies: the uniform
policy; C = capacity, S = state size, B = max branching, M = max moves + 1, U = M x B)::

    keys   int64 [T, C]    codes (EMPTY = -1)     vals / evals  float64 [T, C]  w, exp(w / tau)
    slots  int64 [T, C]    occupied slots         used          int64 [T]       how many
    states [T, S]          the child position of each level; states[0] for replays
    best   int32 [T, M]    best sequence of each level          cand  int32 [T, M]  the last one
    legal  int32 [B], probs float64 [B]           the step being drawn
    upd_val float64 [U]    an adaptation's sum per step (its probabilities on overflow)
    c_*    [T, ...]        the adaptation cache of each level: c_slot [T, U] slots of the legal
                           moves step by step, c_n [T, M] their number, c_best [T, M] the
                           played move's slot, c_bias [T, U] exp(beta) (GNRPA), c_touched [T, U]
                           and c_nd [T] the distinct slots, c_ok [T] valid; stamp [C] and
                           stamp_id [1] deduplicate the slots
    r_*    [U], [M]        the last playout's recording: r_code, r_slot, r_bias per legal
                           move, r_n moves per step, r_pick the index drawn
    stats  int64 [2]       playouts, playout moves
    ctl    float64 [7]     budget clock (0-3), cut flag, best score seen, target score
    n_trace int64 [1]      rows of the anytime trace written
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from nmcs.core.rng import uniform
from nmcs.search.anytime import (
    NO_SCORE,
    PLAYOUT_MOVES,
    PLAYOUTS,
    record_improvement,
    refcounted_kernels,
    start_clock,
    state_copier,
    target_score_kernel,
    time_is_up,
)
from nmcs.search.nrpa_table import (
    EMPTY,
    MAX_CAPACITY,  # noqa: F401 - re-exported
    MIN_CAPACITY,  # noqa: F401 - re-exported
    copy_table,
    find_slot,
    insert_code,
    load_policy,
    table_capacity,
    weight,
)
from nmcs.search.policy_steps import policy_stepper
from nmcs.search.registry import Algorithm, DaskPlan, Settings, added_option, register

MAX_LEVEL = 4
CTL_CUT, CTL_BEST, CTL_TARGET, CTL_BIAS = 4, 5, 6, 7
CTL_SIZE = 8


NO_CODES = np.zeros(0, np.int64)
NO_WEIGHTS = np.zeros(0, np.float64)


class NrpaParams(NamedTuple):
    level: int
    iterations: int
    alpha: float
    tau: float
    max_seconds: float  # 0: no limit of that kind
    max_playouts: int
    capacity: int  # slots of each policy table (a power of two)
    batch: int = 1  # level-(L-1) searches per iteration of the top level, from the same policy
    # The policy the top level starts from, as (code, weight) pairs (empty: uniform); a Dask
    # master's remote searches start from the master's policy (nmcs.search.nrpa_master).
    policy_codes: np.ndarray = NO_CODES
    policy_weights: np.ndarray = NO_WEIGHTS
    use_bias: bool = False  # GNRPA: the game's bias kernel, if it has one, as beta


class NrpaWorkspace(NamedTuple):
    """Per-worker buffers of an NRPA search (see the module docstring)."""

    keys: np.ndarray
    vals: np.ndarray
    evals: np.ndarray
    slots: np.ndarray
    used: np.ndarray
    states: np.ndarray
    best: np.ndarray
    cand: np.ndarray
    legal: np.ndarray
    codes: np.ndarray
    betas: np.ndarray
    scratch: np.ndarray
    probs: np.ndarray
    upd_val: np.ndarray
    c_slot: np.ndarray
    c_bias: np.ndarray
    c_n: np.ndarray
    c_best: np.ndarray
    c_touched: np.ndarray
    c_nd: np.ndarray
    c_ok: np.ndarray
    r_code: np.ndarray
    r_slot: np.ndarray
    r_bias: np.ndarray
    r_n: np.ndarray
    r_pick: np.ndarray
    stamp: np.ndarray
    stamp_id: np.ndarray
    stats: np.ndarray
    ctl: np.ndarray
    n_trace: np.ndarray


# --- The search --------------------------------------------------------------------------------


def _make_new_workspace(max_moves, max_branching, scratch_size, has_bias):
    """``new_workspace(state0, params, stats)``: the buffers of a search (module docstring)."""

    @njit
    def new_workspace(state0, params, stats):
        t = params.level + 2
        cap = params.capacity
        m = max_moves(state0) + 1
        b = max_branching(state0)
        keys = np.full((t, cap), EMPTY, np.int64)
        vals = np.zeros((t, cap), np.float64)
        evals = np.ones((t, cap), np.float64)
        slots = np.zeros((t, cap), np.int64)
        used = np.zeros(t, np.int64)
        states = np.empty((t, state0.shape[0]), state0.dtype)
        best = np.empty((t, m), np.int32)
        cand = np.empty((t, m), np.int32)
        legal = np.empty(b, np.int32)
        codes = np.empty(b, np.int64)
        betas = np.zeros(b, np.float64)
        scratch = np.zeros(scratch_size(state0), np.uint64)
        probs = np.empty(b, np.float64)
        u = m * b
        upd_val = np.empty(u, np.float64)
        c_slot = np.empty((t, u), np.int64)
        c_bias = np.empty((t, u if has_bias else 1), np.float64)
        c_n = np.empty((t, m), np.int64)
        c_best = np.empty((t, m), np.int64)
        c_touched = np.empty((t, u), np.int64)
        c_nd = np.zeros(t, np.int64)
        c_ok = np.zeros(t, np.int64)
        r_code = np.empty(u, np.int64)
        r_slot = np.empty(u, np.int64)
        r_bias = np.empty(u if has_bias else 1, np.float64)
        r_n = np.empty(m, np.int64)
        r_pick = np.empty(m, np.int64)
        stamp = np.zeros(cap, np.int64)
        stamp_id = np.zeros(1, np.int64)
        ctl = np.zeros(CTL_SIZE, np.float64)
        ctl[CTL_BIAS] = 1.0 if params.use_bias else 0.0
        n_trace = np.zeros(1, np.int64)
        return NrpaWorkspace(
            keys, vals, evals, slots, used, states, best, cand, legal, codes, betas, scratch,
            probs, upd_val, c_slot,
            c_bias, c_n, c_best, c_touched, c_nd, c_ok, r_code, r_slot, r_bias, r_n, r_pick,
            stamp, stamp_id, stats, ctl, n_trace,
        )  # fmt: skip

    return new_workspace


def _make_softmax(steps, has_bias):
    """``softmax``: a step's move probabilities under one table, recorded for ``promote``."""

    @njit(inline="always")
    def softmax(state, n, t, inv_tau, ws, u):
        """probs[:n] := the unnormalized move probabilities of table ``t`` at ``state``
        (legal[:n] listed, with their codes and betas); returns their sum. Records each
        move's code, slot (or the empty slot where it would go) and exp(beta) at
        r_*[u:u + n], for ``promote``."""
        probs = ws.probs
        keys, evals = ws.keys, ws.evals
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        r_code, r_slot = ws.r_code, ws.r_slot
        total = 0.0
        codes, legal = ws.codes, ws.legal
        for i in range(n):
            c = steps.code_at(state, codes, legal, i)
            j = find_slot(keys, t, c)
            r_code[u + i] = c
            r_slot[u + i] = j
            e = evals[t, j] if keys[t, j] == c else 1.0
            if biased:
                eb = math.exp(steps.beta_at(state, ws.betas, legal, i))
                ws.r_bias[u + i] = eb
                e *= eb
            probs[i] = e
            total += e
        if not 0.0 < total < np.inf:
            # exp(w / tau) overflowed or underflowed: the same with the largest logit taken
            # out first (weights beyond about +-700 only).
            hi = -np.inf
            for i in range(n):
                z = weight(ws, t, steps.code_at(state, codes, legal, i)) * inv_tau
                if biased:
                    z += steps.beta_at(state, ws.betas, legal, i)
                probs[i] = z
                hi = max(hi, z)
            total = 0.0
            for i in range(n):
                e = math.exp(probs[i] - hi)
                probs[i] = e
                total += e
        return total

    return softmax


def _make_rollout(steps, softmax, has_bias):
    """``rollout``: the level-0 playout with the policy of table 1, through the game's policy
    steps (``nmcs.search.policy_steps``)."""

    @njit(inline="always")
    def rollout(state, params, rng, ws, seq, trace):
        """Level 0: one playout with the policy of table 1; returns its length."""
        inv_tau = 1.0 / params.tau
        legal = ws.legal
        r_n, r_pick = ws.r_n, ws.r_pick
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        played = np.int64(0)  # not a literal 0: see search's best_len
        u = 0
        steps.begin(state, ws.scratch)
        while True:
            n = steps.moves(state, ws.scratch, legal, ws.codes, ws.betas, biased)
            if n == 0:
                break
            # Every step is recorded (r_*), so that the level-1 search can cache this
            # playout's slots for its adaptations without replaying it (``promote``).
            total = softmax(state, n, 1, inv_tau, ws, u)
            j = 0
            if n > 1:
                r = uniform(rng) * total
                probs = ws.probs
                acc = probs[0]
                while acc <= r and j < n - 1:
                    j += 1
                    acc += probs[j]
            r_n[played] = n
            r_pick[played] = j
            u += n
            move = legal[j]
            seq[played] = move
            steps.step(state, ws.scratch, move)
            played += 1
        steps.end(state, ws.scratch)
        stats = ws.stats
        stats[PLAYOUTS] += 1
        stats[PLAYOUT_MOVES] += played
        return played

    return rollout


def _make_cache_steps(steps, has_bias, copy_state):
    """``cache_steps``: the adaptation cache of a table from a replay of its best sequence."""

    @njit(_nrt=False)  # type: ignore[call-overload]
    def cache_steps(state0, t, seq, length, ws):
        """Replay ``seq`` from ``state0`` and cache, for table ``t``, the slot of every legal
        move's code at every step (inserting missing codes with weight 0, which changes no
        probability), the slot of the played move and (GNRPA) exp(beta) of every legal move,
        and the distinct slots touched. A code's slot never changes once inserted, so the
        cache serves every adaptation toward the same sequence in the same table. The moves
        are listed by the game's policy steps, as the playouts list them."""
        state = ws.states[0]
        copy_state(state, state0)
        steps.begin(state, ws.scratch)
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        legal = ws.legal
        keys, vals, evals, slots, used = ws.keys, ws.vals, ws.evals, ws.slots, ws.used
        c_slot, c_n, c_best, c_bias = ws.c_slot, ws.c_n, ws.c_best, ws.c_bias
        stamp = ws.stamp
        ws.stamp_id[0] += 1
        sid = ws.stamp_id[0]
        u = 0
        nd = 0
        codes = ws.codes
        for s in range(length):
            n = steps.moves(state, ws.scratch, legal, codes, ws.betas, biased)
            c_n[t, s] = n
            for i in range(n):
                c = steps.code_at(state, codes, legal, i)
                j = insert_code(keys, vals, evals, slots, used, t, c)
                c_slot[t, u] = j
                if biased:
                    c_bias[t, u] = math.exp(steps.beta_at(state, ws.betas, legal, i))
                u += 1
                if stamp[j] != sid:
                    stamp[j] = sid
                    ws.c_touched[t, nd] = j
                    nd += 1
                if legal[i] == seq[s]:
                    c_best[t, s] = j
            steps.step(state, ws.scratch, seq[s])
        steps.end(state, ws.scratch)
        ws.c_nd[t] = nd
        ws.c_ok[t] = 1

    return cache_steps


def _make_promote(has_bias):
    """``promote``: the adaptation cache of table 1 from the last playout's recording."""

    @njit(_nrt=False)  # type: ignore[call-overload]
    def promote(length, ws):
        """The adaptation cache of table 1 from the recording of the playout just played (the
        level-1 search's new best sequence): its moves' slots as the playout found them. A
        slot found empty is still the code's place if still empty (codes are only ever
        inserted, so the probe sequence before it did not change); otherwise probe again."""
        keys, vals, evals, slots, used = ws.keys, ws.vals, ws.evals, ws.slots, ws.used
        c_slot, c_n, c_best, c_bias = ws.c_slot, ws.c_n, ws.c_best, ws.c_bias
        r_code, r_slot, r_n, r_pick = ws.r_code, ws.r_slot, ws.r_n, ws.r_pick
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        stamp = ws.stamp
        ws.stamp_id[0] += 1
        sid = ws.stamp_id[0]
        u = 0
        nd = 0
        for s in range(length):
            n = r_n[s]
            c_n[1, s] = n
            for i in range(u, u + n):
                c = r_code[i]
                j = r_slot[i]
                if keys[1, j] != c:
                    if keys[1, j] == EMPTY:
                        n_used = used[1]
                        if 4 * (n_used + 1) > 3 * keys.shape[1]:
                            raise RuntimeError("nrpa: policy table full")
                        keys[1, j] = c
                        vals[1, j] = 0.0
                        evals[1, j] = 1.0
                        slots[1, n_used] = j
                        used[1] = n_used + 1
                    else:
                        j = insert_code(keys, vals, evals, slots, used, 1, c)
                c_slot[1, i] = j
                if biased:
                    c_bias[1, i] = ws.r_bias[i]
                if stamp[j] != sid:
                    stamp[j] = sid
                    ws.c_touched[1, nd] = j
                    nd += 1
            c_best[1, s] = c_slot[1, u + r_pick[s]]
            u += n
        ws.c_nd[1] = nd
        ws.c_ok[1] = 1

    return promote


def _make_adapt(cache_steps, has_bias):
    """``adapt``: Rosin's adaptation of a table, and ``adapt_overflow``, its slow path."""

    @njit(_nrt=False)  # type: ignore[call-overload]
    def adapt_overflow(t, length, inv_tau, step, ws):
        """The updates of ``adapt`` when exp(w / tau) overflows or underflows at some step
        (weights beyond about +-700): every probability first, with the largest logit taken
        out, then the updates."""
        vals = ws.vals
        c_slot, c_n, c_best, c_bias = ws.c_slot, ws.c_n, ws.c_best, ws.c_bias
        probs = ws.upd_val
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        u = 0
        for s in range(length):
            n = c_n[t, s]
            hi = -np.inf
            for i in range(u, u + n):
                z = vals[t, c_slot[t, i]] * inv_tau
                if biased:
                    z += math.log(c_bias[t, i])
                probs[i] = z
                hi = max(hi, z)
            total = 0.0
            for i in range(u, u + n):
                e = math.exp(probs[i] - hi)
                probs[i] = e
                total += e
            scale = 1.0 / total
            for i in range(u, u + n):
                probs[i] *= scale
            u += n
        u = 0
        for s in range(length):
            n = c_n[t, s]
            for i in range(u, u + n):
                vals[t, c_slot[t, i]] -= step * probs[i]
            vals[t, c_best[t, s]] += step
            u += n

    @njit(_nrt=False)  # type: ignore[call-overload]
    def adapt(state0, t, seq, length, params, ws):
        """Rosin's Adapt of table ``t`` toward ``seq`` played from ``state0``: every
        step's sum of exp(w / tau) with the old weights (first pass), then the updates applied
        (second pass) and exp(w / tau) refreshed for the codes touched. The caller sets
        ``ws.c_ok[t] = 0`` when ``seq`` changes."""
        if ws.c_ok[t] == 0:
            cache_steps(state0, t, seq, length, ws)
        inv_tau = 1.0 / params.tau
        step = params.alpha * inv_tau
        biased = has_bias and ws.ctl[CTL_BIAS] != 0.0
        vals, evals = ws.vals, ws.evals
        c_slot, c_n, c_best, c_bias = ws.c_slot, ws.c_n, ws.c_best, ws.c_bias
        totals = ws.upd_val
        # First pass: each step's sum of exp(w / tau) (exp(beta) included), from the old
        # weights. Only when one overflows do the probabilities need the slow path below.
        finite = True
        u = 0
        for s in range(length):
            n = c_n[t, s]
            total = 0.0
            for i in range(u, u + n):
                e = evals[t, c_slot[t, i]]
                if biased:
                    e *= c_bias[t, i]
                total += e
            totals[s] = total
            finite = finite and 0.0 < total < np.inf
            u += n
        if finite:
            # Second pass: the updates. evals still holds the old exp(w / tau) (refreshed
            # below), so each probability is read from the old policy, as Rosin's copy does.
            u = 0
            for s in range(length):
                n = c_n[t, s]
                scale = 1.0 / totals[s]
                for i in range(u, u + n):
                    e = evals[t, c_slot[t, i]]
                    if biased:
                        e *= c_bias[t, i]
                    vals[t, c_slot[t, i]] -= step * (e * scale)
                vals[t, c_best[t, s]] += step
                u += n
        else:
            adapt_overflow(t, length, inv_tau, step, ws)
        for d in range(ws.c_nd[t]):
            j = ws.c_touched[t, d]
            evals[t, j] = math.exp(vals[t, j] * inv_tau)

    return adapt


def _make_level0(score, rollout):
    """``level0``: a level-0 search, one playout and its bookkeeping (``after_playout``)."""

    @njit(inline="always")
    def after_playout(state, params, ws, trace):
        """Trace a new best, and set the cut flag once the budget is spent or the target
        score reached."""
        ctl = ws.ctl
        stats = ws.stats
        s = score(state)
        if s > ctl[CTL_BEST]:
            ctl[CTL_BEST] = s
            ws.n_trace[0] = record_improvement(trace, ws.n_trace[0], ctl, stats[PLAYOUTS], s)
        if s >= ctl[CTL_TARGET]:
            ctl[CTL_CUT] = 1.0
        elif params.max_playouts > 0 and stats[PLAYOUTS] >= params.max_playouts:
            ctl[CTL_CUT] = 1.0
        elif params.max_seconds > 0 and time_is_up(ctl, params.max_seconds):
            ctl[CTL_CUT] = 1.0

    @njit(inline="always")
    def level0(state, params, rng, ws, seq, trace):
        """A level-0 search: one playout (of the uniform policy at the top)."""
        length = rollout(state, params, rng, ws, seq, trace)
        after_playout(state, params, ws, trace)
        return length

    return level0


def _make_search(play, score, copy_state, level0, promote, adapt):
    """``search``: the search of every level, one recursive function."""

    # One function for every level, calling itself for the level below. A function per level
    # compiled each level as a layer of its own, and every layer optimises and emits again all
    # the machine code below it: a level-2 entry point's first compile cost 4-6 s more than
    # level 1's. Now one entry point serves every level (``per_level=False``), compiled once
    # for a sweep over levels 0-4. The playout is inlined at one place, the level-1 loop (a
    # call per playout made the left move's NRPA slower); a level-0 search goes through that
    # loop once (its playout on a copy of the position, then replayed: the same game).
    @njit(_nrt=False)  # type: ignore[call-overload]
    def search(state, k, params, rng, ws, seq, trace):
        """A level-``k`` search from ``state`` (played in place); returns the length of the
        sequence written into ``seq``. ``k`` is also the search's table (see the docstring;
        level 0 plays the policy of table 1)."""
        if k > 0:
            copy_table(ws, k, k + 1)
        ws.c_ok[k] = 0
        child = ws.states[k]
        cand = ws.cand[k]
        best = ws.best[k]
        best_score = NO_SCORE
        # np.int64, not a literal 0: numba types a call made with a variable that starts
        # as a literal once with the literal type and once with int64, and compiles the
        # callee (adapt, promote and all below them) twice.
        best_len = np.int64(0)
        reps = params.batch if k == params.level else 1
        iterations = params.iterations if k > 0 else 1
        for it in range(iterations):
            for _ in range(reps):
                copy_state(child, state)
                if k <= 1:
                    length = level0(child, params, rng, ws, cand, trace)
                else:
                    length = search(child, k - 1, params, rng, ws, cand, trace)
                s = score(child)
                if s >= best_score:  # ties: the newer sequence replaces (Rosin's >=)
                    same = length == best_len
                    for j in range(length):
                        same = same and best[j] == cand[j]
                        best[j] = cand[j]
                    best_score = s
                    best_len = length
                    if k == 1 and not same:
                        promote(length, ws)  # the playout's own recording: no replay
                    elif not same:
                        ws.c_ok[k] = 0
                if ws.ctl[CTL_CUT] != 0.0:
                    break
            if ws.ctl[CTL_CUT] != 0.0 or it == iterations - 1:
                break
            adapt(state, k, best, best_len, params, ws)
        for j in range(best_len):
            seq[j] = best[j]
            play(state, best[j])
        return best_len

    return search


def _make_run(play, score, copy_state, target_score, search):
    """``run``: the engine's search, repeated under a budget until it is spent."""

    @njit
    def run(state, params, rng, ws, seq, trace):
        ctl = ws.ctl
        clock = start_clock()
        for j in range(4):
            ctl[j] = clock[j]
        ctl[CTL_CUT] = 0.0
        ctl[CTL_BEST] = NO_SCORE
        ctl[CTL_TARGET] = target_score(state)
        ws.n_trace[0] = 0
        top_table = params.level + 1
        if params.policy_codes.shape[0] > 0 and ws.used[top_table] == 0:
            load_policy(ws, top_table, params.policy_codes, params.policy_weights, params.tau)
        budgeted = params.max_playouts > 0 or params.max_seconds > 0
        top = ws.states[params.level + 1]
        out = ws.cand[params.level + 1]
        best = NO_SCORE
        best_len = 0
        while True:
            copy_state(top, state)
            length = search(top, np.int64(params.level), params, rng, ws, out, trace)
            s = score(top)
            if s > best:
                best = s
                best_len = length
                for j in range(length):
                    seq[j] = out[j]
            if not budgeted or ctl[CTL_CUT] != 0.0:
                break
        for j in range(best_len):
            play(state, seq[j])
        return best_len, ws.n_trace[0]

    return run


@functools.cache
def build_nrpa(game: Any) -> tuple:
    """``(new_workspace, run, adapt)`` of NRPA and GNRPA on ``game``'s kernels, every level
    (one recursive function), its playouts taking the game's policy steps
    (``nmcs.search.policy_steps``); the game's betas, if any, are used when the workspace was
    made with ``params.use_bias`` (GNRPA).
    ``adapt(state0, t, seq, length, params, ws)`` is Rosin's adaptation of table ``t`` toward
    ``seq`` (exposed for the tests)."""
    play = game.play
    score = game.score
    max_moves = game.max_moves
    max_branching = game.max_branching
    steps = policy_stepper(game)
    # Compiled in only for a game with betas, then switched on by ws.ctl[CTL_BIAS].
    has_bias = steps.has_bias
    copy_state = state_copier(game)
    target_score = target_score_kernel(game)

    # The search functions below that allocate nothing (the levels, adapt, promote,
    # cache_steps) are compiled without numba's reference counting (_nrt=False): with it, each
    # call increfed and decrefed every array of the workspace, and Morpion's level-2 search ran
    # 2.6 times slower (bench_nrpa.py, results identical).
    refcounted_kernels(game)

    new_workspace = _make_new_workspace(max_moves, max_branching, steps.scratch, has_bias)
    softmax = _make_softmax(steps, has_bias)
    rollout = _make_rollout(steps, softmax, has_bias)
    cache_steps = _make_cache_steps(steps, has_bias, copy_state)
    promote = _make_promote(has_bias)
    adapt = _make_adapt(cache_steps, has_bias)
    level0 = _make_level0(score, rollout)
    search = _make_search(play, score, copy_state, level0, promote, adapt)
    run = _make_run(play, score, copy_state, target_score, search)
    return new_workspace, run, adapt


# --- The registry records: algo=nrpa and algo=gnrpa ----------------------------------------------


def _check_options(iterations: Any, alpha: Any, tau: Any, batch: Any, level: int) -> None:
    for key, value, high in (("iterations", iterations, 10**7), ("batch", batch, 10**4)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise ValueError(f"algo.{key} = {value!r}: must be an integer from 1 to {high}")
    if batch > 1 and level < 1:
        # A level-0 search is one playout: it has no iterations to batch.
        raise ValueError(f"algo.batch = {batch}: needs level >= 1 (level 0 is one playout)")
    for key, value, low in (("alpha", alpha, ">= 0"), ("tau", tau, "> 0")):
        ok = not isinstance(value, bool) and isinstance(value, int | float)
        ok = ok and math.isfinite(value) and (value >= 0 if key == "alpha" else value > 0)
        if not ok:
            raise ValueError(f"algo.{key} = {value!r}: must be a finite number {low}")


@dataclass
class NrpaConfig:
    """``algo=nrpa``: NRPA of ``level`` with ``iterations`` (N) searches per level and step
    ``alpha``; ``batch`` level-(L-1) searches per top-level iteration, all from the same
    policy, the best of them adapting it (1: Rosin's NRPA; the parallel version on Dask)."""

    name: str = "nrpa"
    iterations: int = 100  # N: the searches of level L-1 at each level-L search
    alpha: float = 1.0  # the adaptation step toward the best sequence
    batch: int = added_option(1, 1)  # level-(L-1) searches per top-level iteration (1: NRPA)

    def check(self, settings: Settings) -> None:
        _check_options(self.iterations, self.alpha, 1.0, self.batch, settings.level)


@dataclass
class GnrpaConfig:
    """``algo=gnrpa``: GNRPA, NRPA with a temperature ``tau`` and the game's bias beta."""

    name: str = "gnrpa"
    iterations: int = 100  # N: the searches of level L-1 at each level-L search
    alpha: float = 1.0  # the adaptation step toward the best sequence
    tau: float = 1.0  # the temperature: move probabilities exp(w / tau + beta)
    batch: int = added_option(1, 1)  # level-(L-1) searches per top-level iteration (1: NRPA)

    def check(self, settings: Settings) -> None:
        _check_options(self.iterations, self.alpha, self.tau, self.batch, settings.level)


def uses_bias(options: Any) -> bool:
    """Whether a search of these options takes the game's bias as beta: GNRPA's do."""
    return isinstance(options, GnrpaConfig)


def nrpa_params(options: Any, settings: Settings, kernels: Any, state0: np.ndarray) -> NrpaParams:
    """The engine parameters of an NRPA or GNRPA search."""
    return NrpaParams(
        int(settings.level),
        int(options.iterations),
        float(options.alpha),
        float(getattr(options, "tau", 1.0)),
        float(settings.max_seconds),
        int(settings.max_playouts),
        table_capacity(int(kernels.max_moves(state0)), int(kernels.max_branching(state0))),
        int(options.batch),
        use_bias=uses_bias(options),
    )


def build_nrpa_search(game: Any, levels: int) -> tuple:
    """``(new_workspace, run)`` of algo=nrpa and algo=gnrpa for the engine
    (``nmcs.search.engine``): one builder, so one compiled entry point per game serves both
    (``nmcs.search.entry`` keys entry points on the builder), and every level (``levels`` is
    ignored: ``per_level=False``)."""
    return build_nrpa(game)[:2]


# requires=("code",): the games whose kernels give a move's code (nmcs.games.protocol).
# needs_budget=None: a search runs to completion without a budget, and a budget, if given,
# repeats and cuts it.


def nrpa_dask_plan(options: dict, settings: Settings) -> DaskPlan:
    """Dask: the top level's policy on the master (``nmcs.search.nrpa_master``), ``batch``
    searches of the level below per iteration on the workers."""
    batch = options.get("batch", NrpaConfig.batch)
    return DaskPlan(batch, None, {**options, "batch": 1}, master="nrpa")


NRPA = register(
    Algorithm(
        name="nrpa",
        config=NrpaConfig,
        params=nrpa_params,
        build=build_nrpa_search,
        needs_budget=None,
        writes_trace=True,
        requires=("code",),
        max_level=MAX_LEVEL,
        dask_plan=nrpa_dask_plan,
    )
)
GNRPA = register(
    Algorithm(
        name="gnrpa",
        config=GnrpaConfig,
        params=nrpa_params,
        build=build_nrpa_search,
        needs_budget=None,
        writes_trace=True,
        requires=("code",),
        max_level=MAX_LEVEL,
        dask_plan=nrpa_dask_plan,
    )
)
