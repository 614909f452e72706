"""NRPA and GNRPA (nmcs.search.nrpa): the adaptation step to the digit, the uniform policy's
exact distribution, an independent plain-Python NRPA in distribution, budgets, traces,
determinism and the validation of the options."""

import math
import random
import types

import numpy as np
import pytest
from numba import njit
from scipy import stats

from nmcs.core.errors import ConfigError
from nmcs.core.rng import new_rng
from nmcs.games import leftmove
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.harness.summary import pooled_bins
from nmcs.search import nrpa
from tests.helpers import exact_best_of

pytestmark = pytest.mark.unit

L, R = 0, 1


def policy(ws, t):
    """Table ``t`` of a workspace as {code: weight}."""
    return {int(ws.keys[t, i]): float(ws.vals[t, i]) for i in ws.slots[t, : ws.used[t]]}


# NRPA's workspace and adaptation step on the left move. A factory-built function compiles in
# every process (about 8 s here); called from a module-level cached function, as the engine's
# entry points call them, it compiles once and loads from numba's cache afterwards.
_NEW_WORKSPACE, _, _ADAPT = nrpa.build_nrpa(leftmove)


@njit(cache=True)
def _new_workspace(state0, params, stats):
    return _NEW_WORKSPACE(state0, params, stats)


@njit(cache=True)
def _adapt(state0, t, seq, length, params, ws):
    _ADAPT(state0, t, seq, length, params, ws)


def adapt_kernels(depth, alpha=1.0, tau=1.0, use_bias=False):
    state0 = leftmove.make_state(depth=depth)
    params = nrpa.NrpaParams(1, 2, alpha, tau, 0.0, 0, 1 << 12, use_bias=use_bias)
    ws = _new_workspace(state0, params, np.zeros(2, np.int64))
    return state0, params, ws, _adapt


def test_adaptation_step_to_the_digit():
    # The depth-2 left-move tree: codes 2 * depth + move, so L, R at the root are 0, 1 and
    # L, R below are 2, 3. Adapting twice toward (L, R) with alpha = 1 from the uniform policy.
    state0, params, ws, adapt = adapt_kernels(2)
    seq = np.array([L, R], np.int32)
    adapt(state0, 1, seq, 2, params, ws)
    # First step: every probability is 1/2, so +1 - 1/2 on the played code, -1/2 on the other.
    assert policy(ws, 1) == {0: 0.5, 1: -0.5, 2: -0.5, 3: 0.5}
    adapt(state0, 1, seq, 2, params, ws)
    # Second: p(played) = e^0.5 / (e^0.5 + e^-0.5) = 1 / (1 + e^-1), from the weights before.
    p = 1.0 / (1.0 + math.exp(-1.0))
    want = {0: 0.5 + 1 - p, 1: -0.5 - (1 - p), 2: -0.5 - (1 - p), 3: 0.5 + 1 - p}
    got = policy(ws, 1)
    for code, w in want.items():
        assert got[code] == pytest.approx(w, abs=1e-15)
    assert got[0] == pytest.approx(0.7689414213699951, abs=1e-15)  # 1.5 - 0.7310585786300049


def test_gnrpa_adaptation_with_a_temperature():
    # GNRPA (Cazenave 2020): p = softmax(w / tau), w += alpha / tau * (delta - p).
    state0, params, ws, adapt = adapt_kernels(1, alpha=1.0, tau=2.0, use_bias=True)
    seq = np.array([R], np.int32)
    adapt(state0, 1, seq, 1, params, ws)
    assert policy(ws, 1) == {0: -0.25, 1: 0.25}
    adapt(state0, 1, seq, 1, params, ws)
    p_r = 1.0 / (1.0 + math.exp(-0.25))  # softmax((0.25 - -0.25) / 2)
    got = policy(ws, 1)
    assert got[1] == pytest.approx(0.25 + 0.5 * (1 - p_r), abs=1e-15)
    assert got[0] == pytest.approx(-0.25 - 0.5 * (1 - p_r), abs=1e-15)


def _biased_leftmove():
    """The left move with GNRPA's beta = log 3 on the left move, 0 on the right."""
    game = types.ModuleType("biased_leftmove")
    for name in dir(leftmove):
        if not name.startswith("__"):
            setattr(game, name, getattr(leftmove, name))

    @njit
    def bias(state, move):
        return math.log(3.0) if move == L else 0.0

    game.bias = bias
    return game


BIASED_LEFTMOVE = _biased_leftmove()
_NEW_BIASED_WORKSPACE, _, _ADAPT_BIASED = nrpa.build_nrpa(BIASED_LEFTMOVE)


@njit(cache=True)
def _new_biased_workspace(state0, params, stats):
    return _NEW_BIASED_WORKSPACE(state0, params, stats)


@njit(cache=True)
def _adapt_biased(state0, t, seq, length, params, ws):
    _ADAPT_BIASED(state0, t, seq, length, params, ws)


@pytest.mark.parametrize("use_bias", [False, True])
def test_gnrpa_bias_is_beta_and_nrpa_ignores_it(use_bias):
    # One kernel serves both: with beta(L) = log 3, p(L) = 3/4, so adapting toward (R) moves
    # each weight by 1 - 1/4 (GNRPA); NRPA's policy ignores the bias: p(L) = 1/2.
    state0 = leftmove.make_state(depth=1)
    params = nrpa.NrpaParams(1, 2, 1.0, 1.0, 0.0, 0, 1 << 12, use_bias=use_bias)
    ws = _new_biased_workspace(state0, params, np.zeros(2, np.int64))
    _adapt_biased(state0, 1, np.array([R], np.int32), 1, params, ws)
    step = 0.75 if use_bias else 0.5
    assert policy(ws, 1) == pytest.approx({0: -step, 1: step}, abs=1e-15)


def test_alpha_zero_is_the_best_of_n_uniform_playouts_exactly():
    # alpha = 0: the policy stays uniform, so a level-1 search with N iterations returns the
    # best of N uniform playouts: P(max <= k) = F(k)^N, F the Binomial(d, 1/2) distribution.
    depth, n_iter, n = 9, 4, 20000
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=depth),
        search_seeds(11, 0, n),
        algo="nrpa",
        level=1,
        iterations=n_iter,
        alpha=0.0,
    )
    assert (res.playouts == n_iter).all()
    exact = exact_best_of(depth, n_iter)
    assert sum(exact) == 1
    expected = np.array([float(p) * n for p in exact])
    counts = np.bincount(res.score, minlength=depth + 1)
    groups = pooled_bins(expected)
    obs = [counts[g].sum() for g in groups]
    exp = [expected[g].sum() for g in groups]
    chi2, p_value = stats.chisquare(obs, exp)
    assert p_value > 1e-3, (obs, exp)


def python_nrpa(level, pol, depth, n_iter, alpha, rng):
    """Plain-Python NRPA on the left move, written from Rosin's pseudo-code: codes are the
    pairs (depth, move); returns (score, sequence)."""
    if level == 0:
        seq = []
        for t in range(depth):
            wl, wr = math.exp(pol.get((t, L), 0.0)), math.exp(pol.get((t, R), 0.0))
            seq.append(L if rng.random() < wl / (wl + wr) else R)
        return seq.count(L), seq
    best, best_seq = -1, None
    for _ in range(n_iter):
        score, seq = python_nrpa(level - 1, dict(pol), depth, n_iter, alpha, rng)
        if score >= best:
            best, best_seq = score, seq
        new = dict(pol)
        for t, move in enumerate(best_seq):
            z = sum(math.exp(pol.get((t, m), 0.0)) for m in (L, R))
            new[(t, move)] = new.get((t, move), 0.0) + alpha
            for m in (L, R):
                new[(t, m)] = new.get((t, m), 0.0) - alpha * math.exp(pol.get((t, m), 0.0)) / z
        pol = new
    return best, best_seq


def test_agrees_in_distribution_with_a_plain_python_nrpa():
    depth, n_iter, level = 9, 3, 2
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=depth),
        search_seeds(5, 0, 20000),
        algo="nrpa",
        level=level,
        iterations=n_iter,
        alpha=1.0,
    )
    assert (res.playouts == n_iter**level).all()
    rng = random.Random(3)
    ours = np.bincount(res.score, minlength=depth + 1)
    theirs = np.bincount(
        [python_nrpa(level, {}, depth, n_iter, 1.0, rng)[0] for _ in range(6000)],
        minlength=depth + 1,
    )
    pooled = ours + theirs
    groups = pooled_bins(pooled * min(ours.sum(), theirs.sum()) / pooled.sum())
    table = np.array([[ours[g].sum() for g in groups], [theirs[g].sum() for g in groups]])
    chi2, p_value, _, _ = stats.chi2_contingency(table)
    assert p_value > 1e-3, table


def test_level1_beats_the_best_of_n_random_playouts_at_equal_playouts():
    state0 = leftmove.make_state(depth=60)
    seeds = search_seeds(2, 0, 200)
    learned = search_batch("leftmove", state0, seeds, algo="nrpa", level=1, iterations=100)
    best_of = search_batch(
        "leftmove", state0, seeds, algo="nrpa", level=1, iterations=100, alpha=0.0
    )
    assert (learned.playouts == best_of.playouts).all()
    diff = learned.score.mean() - best_of.score.mean()
    se = math.sqrt(learned.score.var() / 200 + best_of.score.var() / 200)
    assert diff > 4 * se, (learned.score.mean(), best_of.score.mean())


def test_sequences_replay_deterministic_and_worker_independent():
    state0 = leftmove.make_state(depth=30)
    seeds = search_seeds(9, 0, 6)
    for algo, extra in (("nrpa", {}), ("gnrpa", {"tau": 0.5})):
        one = search_batch("leftmove", state0, seeds, algo=algo, level=2, iterations=5, **extra)
        two = search_batch(
            "leftmove", state0, seeds, algo=algo, level=2, iterations=5, workers=2, **extra
        )
        again = search_batch("leftmove", state0, seeds, algo=algo, level=2, iterations=5, **extra)
        for other in (two, again):
            np.testing.assert_array_equal(one.score, other.score)
            for a, b in zip(one.moves, other.moves, strict=True):
                np.testing.assert_array_equal(a, b)
        for i in range(6):
            assert one.score[i] == int((np.asarray(one.moves[i]) == L).sum())
            assert one.playouts[i] == 25


def test_gnrpa_with_tau_one_and_no_bias_is_nrpa():
    state0 = leftmove.make_state(depth=20)
    seeds = search_seeds(4, 0, 10)
    a = search_batch("leftmove", state0, seeds, algo="nrpa", level=2, iterations=4)
    b = search_batch("leftmove", state0, seeds, algo="gnrpa", level=2, iterations=4)
    np.testing.assert_array_equal(a.score, b.score)
    for x, y in zip(a.moves, b.moves, strict=True):
        np.testing.assert_array_equal(x, y)


def test_budget_cuts_and_repeats_and_the_trace_records_improvements():
    state0 = leftmove.make_state(depth=40)
    seeds = search_seeds(6, 0, 4)
    # 25 playouts per level-2 search (N = 5): 60 playouts = two whole searches and a cut one.
    res = search_batch(
        "leftmove", state0, seeds, algo="nrpa", level=2, iterations=5, max_playouts=60
    )
    assert (res.playouts == 60).all()
    for i in range(4):
        trace = res.trace[i]
        assert len(trace) >= 1
        scores = [row[2] for row in trace]
        assert scores == sorted(scores) and scores[-1] == res.score[i]
        assert all(1 <= row[1] <= 60 for row in trace)
    timed = search_batch(
        "leftmove", state0, seeds[:1], algo="nrpa", level=2, iterations=5, max_seconds=0.05
    )
    assert timed.seconds[0] < 1.0 and timed.playouts[0] > 25


@pytest.mark.parametrize(
    "options, message",
    [
        ({"iterations": 0}, "algo.iterations = 0: must be an integer from 1 to 10000000"),
        ({"iterations": 2.5}, "algo.iterations = 2.5: must be an integer from 1 to 10000000"),
        ({"iterations": True}, "algo.iterations = True: must be an integer from 1 to 10000000"),
        ({"batch": 0}, "algo.batch = 0: must be an integer from 1 to 10000"),
        ({"batch": "2"}, "algo.batch = '2': must be an integer from 1 to 10000"),
        ({"batch": 2, "level": 0}, "algo.batch = 2: needs level >= 1 (level 0 is one playout)"),
        ({"alpha": -1.0}, "algo.alpha = -1.0: must be a finite number >= 0"),
        ({"alpha": float("nan")}, "algo.alpha = nan: must be a finite number >= 0"),
        ({"alpha": "1"}, "algo.alpha = '1': must be a finite number >= 0"),
    ],
)
def test_options_are_validated(options, message):
    state0 = leftmove.make_state(depth=5)
    with pytest.raises(ConfigError) as error:
        search_batch("leftmove", state0, search_seeds(0, 0, 1), algo="nrpa", **options)
    assert str(error.value) == message


def test_gnrpa_tau_is_validated_and_nrpa_has_none():
    state0 = leftmove.make_state(depth=5)
    seeds = search_seeds(0, 0, 1)
    with pytest.raises(ConfigError, match=r"^algo.tau = 0.0: must be a finite number > 0$"):
        search_batch("leftmove", state0, seeds, algo="gnrpa", tau=0.0)
    with pytest.raises(ConfigError, match="unknown option 'tau' for algo=nrpa"):
        search_batch("leftmove", state0, seeds, algo="nrpa", tau=1.0)


def test_policy_table_capacity_and_overflow_safe_softmax():
    assert nrpa.table_capacity(1, 2) == nrpa.MIN_CAPACITY
    assert nrpa.table_capacity(141, 180) == 1 << 17
    assert nrpa.table_capacity(10**6, 10**3) == nrpa.MAX_CAPACITY
    # alpha = 1000: weights far beyond exp's range; the draws must still follow the best.
    state0 = leftmove.make_state(depth=30)
    res = search_batch(
        "leftmove", state0, search_seeds(1, 0, 5), algo="nrpa", level=2, iterations=5, alpha=1e3
    )
    assert (res.score >= 0).all() and all(len(m) == 30 for m in res.moves)


def test_codes_identify_moves_across_positions():
    from nmcs.games import registry

    rng = np.random.default_rng(0)
    coded = [n for n in registry.names() if "code" in registry.game(n).capabilities()]
    assert {"leftmove", "leftmost", "sudoku", "samegame", "morpion"} <= set(coded)
    for name in coded:
        record = registry.game(name)
        k = record.kernels
        state = record.make_state(**record.small_options)
        legal = np.empty(k.max_branching(state), np.int32)
        while (n := k.legal_moves(state, legal)) > 0:
            codes = [int(k.code(state, m)) for m in legal[:n]]
            assert len(set(codes)) == n and min(codes) >= 0, name
            k.play(state, legal[rng.integers(n)])
    s = leftmove.make_state(depth=4)
    assert [int(leftmove.code(s, m)) for m in (L, R)] == [0, 1]
    leftmove.play(s, R)
    assert [int(leftmove.code(s, m)) for m in (L, R)] == [2, 3]


def test_two_player_games_are_refused():
    from nmcs.games import registry

    two = [g for g in registry.names() if registry.game(g).cells == "matches"]
    assert two
    with pytest.raises(ConfigError):
        search_batch(two[0], np.zeros(3, np.int64), search_seeds(0, 0, 1), algo="nrpa")


def test_rng_is_seeded_per_search():
    # Sanity: the same seed, the same game, whatever ran before in the worker.
    state0 = leftmove.make_state(depth=25)
    a = search_batch("leftmove", state0, search_seeds(8, 0, 3), algo="nrpa", level=1)
    b = search_batch("leftmove", state0, search_seeds(8, 0, 3)[::-1], algo="nrpa", level=1)
    np.testing.assert_array_equal(a.score, b.score[::-1])
    assert new_rng(1)[0] == 1
