"""Reflexive Monte-Carlo Search and UCT (``nmcs.search.reflexive``, ``nmcs.search.uct``) on the
left move and leftmost path games.

Three kinds of checks:
- exact: the compiled searches give move for move the sequences of plain-Python transcriptions
  of the paper's definitions (``findBestMove`` / ``playMetaGame`` / ``findBestMetaMove`` with a
  list ``bestVariation`` shifted at every step; UCT over a dict of move paths) fed with the same
  random words, and the number of playouts of a reflexive search matches its closed form;
- distributional: the score of a level-1 reflexive search has an exact distribution on these
  trees (dynamic programme below), and the observed scores must fit it (chi-square);
- UCT against sampling with the same number of playouts.

Reflexive search with one game per level is not NMCS without memorization: NMCS tries every
legal move at each step, whereas reflexive search plays its lower-level games from the current
position and keeps the best sequence found so far; so no such equivalence is tested.
"""

import math
from collections import defaultdict

import numpy as np
import pytest
from scipy import stats

from nmcs.core.rng import below, new_rng
from nmcs.games import leftmost, leftmove
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.statistical

GAMES = {"leftmove": leftmove, "leftmost": leftmost}


def replay(game, state0, moves):
    state = state0.copy()
    legal = np.empty(game.max_branching(state0), np.int32)
    for t, move in enumerate(moves):
        n = game.legal_moves(state, legal)
        assert move in legal[:n], f"move {t} ({move}) is not legal"
        game.play(state, move)
    assert game.legal_moves(state, legal) == 0, "the sequence must end the game"
    return state


# ---------------------------------------------------------------- plain-Python references


def ref_reflexive(game, state, level, games, rng):
    """A level-``level`` reflexive game on ``state`` in place, as the paper's C code: returns its
    moves. Level-0 games are playouts, replayed from their saved generator word for their moves
    (the compiled search does the same, so both draw the same random words)."""
    buf = np.empty(game.max_moves(state) + 1, np.int32)
    if level == 0:
        n = game.playout(state, rng, buf, True)
        return [int(m) for m in buf[:n]]
    legal = np.empty(game.max_branching(state), np.int32)
    prefix, best_variation, best = [], [], None
    while game.legal_moves(state, legal) > 0:  # findBestMove returns -1 at the end
        best_variation = best_variation[1:]  # the memorized game, shifted by one move
        for _ in range(games[level - 1]):
            child = state.copy()
            if level == 1:
                saved = rng.copy()
                game.playout(child, rng, buf, False)
                replayed = state.copy()
                n = game.playout(replayed, saved, buf, True)
                variation = [int(m) for m in buf[:n]]
            else:
                variation = ref_reflexive(game, child, level - 1, games, rng)
            s = int(game.score(child))
            if best is None or s > best:  # strictly better only: the memorized game wins ties
                best, best_variation = s, variation
        prefix.append(best_variation[0])
        game.play(state, best_variation[0])
    return prefix


def ref_uct(game, state0, c, seed, n_sims):
    """UCT over a dict keyed by move paths; returns (best score, its moves, [(sim, score)])."""
    rng = new_rng(seed)
    legal = np.empty(game.max_branching(state0), np.int32)
    buf = np.empty(game.max_moves(state0) + 1, np.int32)
    visits, total, edges = {(): 0}, {(): 0.0}, {}
    best, best_seq, trace = None, None, []
    for sim in range(n_sims):
        state = state0.copy()
        path, nodes = (), [()]
        while visits[path] > 0:
            if path not in edges:
                n = game.legal_moves(state, legal)
                edges[path] = [int(m) for m in legal[:n]]
            moves = edges[path]
            if not moves:
                break
            untried = [m for m in moves if path + (m,) not in visits]
            if untried:
                move = untried[int(below(rng, len(untried)))]
            else:
                explore = math.sqrt(math.log(visits[path]) / c)
                best_v, ties, move = -math.inf, 0, None
                for m in moves:
                    child = path + (m,)
                    v = total[child] / visits[child] + explore / math.sqrt(visits[child])
                    if v > best_v:
                        best_v, ties, move = v, 1, m
                    elif v == best_v:
                        ties += 1
                        if below(rng, ties) == 0:
                            move = m
            game.play(state, move)
            path += (move,)
            nodes.append(path)
            if path not in visits:
                visits[path], total[path] = 0, 0.0
        saved, before = rng.copy(), state.copy()
        game.playout(state, rng, buf, False)
        s = int(game.score(state))
        for p in nodes:
            visits[p] += 1
            total[p] += s
        if best is None or s > best:
            k = game.playout(before, saved, buf, True)
            best, best_seq = s, list(path) + [int(m) for m in buf[:k]]
            trace.append((sim + 1, s))
    return best, best_seq, trace


# ---------------------------------------------------------------- exact level-1 distributions


def level1_distribution(name, depth, n_games):
    """Exact score distribution of a level-1 reflexive game with ``n_games`` playouts per step.

    State of the chain: the number of remaining moves r, and of the memorized game only what
    the score depends on (leftmove: its left moves m; leftmost: its run of left moves m); given
    that, the memorized game is uniform (the games are i.i.d. and chosen by score only), so its
    first move is left with probability m / r (leftmove) or iff m >= 1 (leftmost)."""
    dist = {(-1, 0): 1.0}  # (m, score so far) -> probability; m = -1: nothing memorized yet
    final = defaultdict(float)
    for r in range(depth, 0, -1):
        if name == "leftmove":
            cdf = np.cumsum([math.comb(r, j) / 2**r for j in range(r + 1)])
        else:
            cdf = np.array([1 - 2.0 ** -(j + 1) for j in range(r)] + [1.0])
        p_max = np.diff(np.concatenate([[0.0], cdf**n_games]))  # max of n_games scores
        new = defaultdict(float)
        for (m, acc), p in dist.items():
            for x in range(r + 1):
                c = x if x > m else m
                q = p * p_max[x]
                if name == "leftmove":
                    new[(c - 1, acc + 1)] += q * c / r
                    new[(c, acc)] += q * (1 - c / r)
                elif c >= 1:
                    new[(c - 1, acc + 1)] += q
                else:
                    final[acc] += q  # a right move: the leftmost path score is settled
        dist = new
    for (_, acc), p in dist.items():
        final[acc] += p
    probs = np.zeros(depth + 1)
    for acc, p in final.items():
        probs[acc] += p
    return probs


def test_level1_distribution_is_a_distribution():
    for name in GAMES:
        for n in (1, 3):
            probs = level1_distribution(name, 10, n)
            assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    # One game per step on leftmove: the first playout is replaced by later ones only when they
    # beat it, so the score stochastically dominates a single playout's Bin(10, 1/2).
    assert level1_distribution("leftmove", 10, 1) @ np.arange(11) > 5.5


def chi_square_p(observed_scores, probs):
    """p-value of the observed scores against probs, pooling bins of expected count < 5."""
    n = len(observed_scores)
    counts = np.bincount(observed_scores, minlength=len(probs)).astype(float)
    expected = probs * n
    assert counts[expected == 0].sum() == 0, "a score of probability zero was observed"
    obs_bins, exp_bins, o, e = [], [], 0.0, 0.0
    for k in np.argsort(-expected):  # pool the rarest scores together
        o, e = o + counts[k], e + expected[k]
        if e >= 5:
            obs_bins.append(o)
            exp_bins.append(e)
            o, e = 0.0, 0.0
    if e > 0:
        obs_bins[-1] += o
        exp_bins[-1] += e
    return stats.chisquare(obs_bins, exp_bins).pvalue


@pytest.mark.parametrize("name", ["leftmove", "leftmost"])
@pytest.mark.parametrize("n_games", [1, 4])
def test_level1_scores_follow_the_exact_distribution(name, n_games):
    depth, n = 12, 4000
    game = GAMES[name]
    res = search_batch(
        name,
        game.make_state(depth=depth),
        search_seeds(11, 0, n),
        algo="reflexive",
        level=1,
        games=n_games,
        workers=2,
    )
    probs = level1_distribution(name, depth, n_games)
    mean = probs @ np.arange(depth + 1)
    sd = math.sqrt(probs @ (np.arange(depth + 1) - mean) ** 2)
    assert abs(res.score.mean() - mean) < 4.5 * sd / math.sqrt(n)
    assert chi_square_p(res.score, probs) > 1e-4


def test_leftmost_level1_often_finds_the_whole_path():
    # With many games per step the memorized run rarely breaks; the DP says how often exactly.
    depth, n = 12, 2000
    res = search_batch(
        "leftmost",
        leftmost.make_state(depth=depth),
        search_seeds(5, 0, n),
        algo="reflexive",
        level=1,
        games=16,
        workers=2,
    )
    p_opt = level1_distribution("leftmost", depth, 16)[depth]
    assert p_opt > 0.5
    hits = int((res.score == depth).sum())
    assert stats.binomtest(hits, n, p_opt).pvalue > 1e-4


# ---------------------------------------------------------------- reflexive: exact checks


@pytest.mark.parametrize("name", ["leftmove", "leftmost"])
@pytest.mark.parametrize("level,games", [(0, ()), (1, (3,)), (2, (2, 3)), (3, (2, 1, 2))])
def test_reflexive_matches_the_papers_code(name, level, games):
    game = GAMES[name]
    state0 = game.make_state(depth=7)
    seeds = search_seeds(21, 0, 5)
    res = search_batch(name, state0, seeds, algo="reflexive", level=level, games=games)
    for i, seed in enumerate(seeds):
        state = state0.copy()
        moves = ref_reflexive(game, state, level, games, new_rng(int(seed)))
        assert res.moves[i].tolist() == moves
        assert res.score[i] == game.score(state) == game.score(replay(game, state0, moves))
        assert res.length[i] == len(moves)


def test_reflexive_counts_its_games():
    # On leftmove every game from r remaining moves has r steps, so a level-l search plays
    # P_l(d) = sum_{r=1..d} n_l P_{l-1}(r) playouts, P_0 = 1.
    depth, games = 9, (3, 2, 2)

    def playouts(level, d):
        if level == 0:
            return 1
        return sum(games[level - 1] * playouts(level - 1, r) for r in range(1, d + 1))

    for level in range(4):
        res = search_batch(
            "leftmove",
            leftmove.make_state(depth=depth),
            search_seeds(2, 0, 3),
            algo="reflexive",
            level=level,
            games=games[:level],
        )
        assert (res.playouts == playouts(level, depth)).all()
        assert (res.playout_moves <= res.playouts * depth).all()


@pytest.mark.parametrize("algo", ["reflexive", "uct"])
def test_deterministic_and_independent_of_workers(algo):
    kwargs = {"level": 2, "games": (2, 2)} if algo == "reflexive" else {"max_playouts": 300}
    state0 = leftmove.make_state(depth=20)
    seeds = search_seeds(4, 0, 6)
    one = search_batch("leftmove", state0, seeds, algo=algo, workers=1, **kwargs)
    two = search_batch("leftmove", state0, seeds, algo=algo, workers=2, **kwargs)
    again = search_batch("leftmove", state0, seeds[::-1], algo=algo, workers=2, **kwargs)
    np.testing.assert_array_equal(one.score, two.score)
    np.testing.assert_array_equal(one.score, again.score[::-1])
    np.testing.assert_array_equal(one.playouts, two.playouts)
    for a, b in zip(one.moves, two.moves, strict=True):
        np.testing.assert_array_equal(a, b)
    assert len(set(one.score.tolist())) > 1 or len({m.tobytes() for m in one.moves}) > 1


def test_reflexive_levels_improve_on_leftmove():
    # Higher levels play more games; the mean score must grow (depth 30, optimum 30).
    state0 = leftmove.make_state(depth=30)
    seeds = search_seeds(8, 0, 60)
    means = [
        search_batch(
            "leftmove", state0, seeds, algo="reflexive", level=level, games=(2,) * level, workers=2
        ).score.mean()
        for level in range(4)
    ]
    assert means[0] < means[1] < means[2] < means[3]


def test_reflexive_rejects_bad_games():
    state0 = leftmove.make_state(depth=5)
    seeds = search_seeds(0, 0, 1)
    # One count applies to every level (as algo.games=[2] does in a config).
    for bad in [None, (), (2, 0), (1, 2, 3)]:
        with pytest.raises(ValueError, match="games"):
            search_batch("leftmove", state0, seeds, algo="reflexive", level=2, games=bad)


# ---------------------------------------------------------------- UCT


@pytest.mark.parametrize("name", ["leftmove", "leftmost"])
@pytest.mark.parametrize("c", [0.1, 2.0])
def test_uct_matches_a_plain_python_uct(name, c):
    game = GAMES[name]
    state0 = game.make_state(depth=8)
    seeds = search_seeds(31, 0, 4)
    res = search_batch(name, state0, seeds, algo="uct", max_playouts=300, uct_c=c)
    for i, seed in enumerate(seeds):
        best, moves, trace = ref_uct(game, state0, c, int(seed), 300)
        assert res.moves[i].tolist() == moves
        assert res.score[i] == best == game.score(replay(game, state0, moves))
        assert res.trace[i][:, 1:].tolist() == [[float(a), float(b)] for a, b in trace]
        assert res.playouts[i] == 300


def test_uct_beats_sampling_and_finds_the_optimum_on_a_small_tree():
    # leftmove of depth 8 has 256 leaves and one optimum (8). Sampling 256 playouts finds it
    # with probability 1 - (255/256)^256 = 0.63; UCT, which does not revisit leaves blindly,
    # must do much better. (Not always: UCT follows means, and an early lucky right subtree can
    # hold it for a long time, so the test asks for a high rate, not for every search.)
    n = 200
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=8),
        search_seeds(1, 0, n),
        algo="uct",
        max_playouts=256,
        workers=2,
    )
    p_sample = 1 - (255 / 256) ** 256
    hits = int((res.score == 8).sum())
    assert hits / n > 0.9
    assert stats.binomtest(hits, n, p_sample, alternative="greater").pvalue < 1e-6
    more = search_batch(
        "leftmove",
        leftmove.make_state(depth=8),
        search_seeds(1, 0, n),
        algo="uct",
        max_playouts=2000,
        workers=2,
    )
    assert (more.score >= res.score).all()  # the same searches, continued


def test_uct_with_a_full_tree_still_returns_games():
    # A tiny tree stops growing; simulations go on from its leaves.
    state0 = leftmove.make_state(depth=30)
    res = search_batch(
        "leftmove",
        state0,
        search_seeds(3, 0, 4),
        algo="uct",
        max_playouts=500,
        uct_nodes=5,
        uct_edges=6,
    )
    for i in range(4):
        assert res.playouts[i] == 500
        assert res.score[i] == leftmove.score(replay(leftmove, state0, res.moves[i]))


def test_uct_seconds_budget():
    res = search_batch(
        "leftmove",
        leftmove.make_state(depth=30),
        search_seeds(3, 0, 2),
        algo="uct",
        max_seconds=0.05,
        uct_nodes=10_000,
    )
    assert (res.seconds >= 0.05).all() and (res.seconds < 2.0).all()
    assert (res.playouts > 100).all()
    for i in range(2):
        assert res.trace[i][-1, 2] == res.score[i]


def test_uct_rejects_bad_parameters():
    state0 = leftmove.make_state(depth=5)
    seeds = search_seeds(0, 0, 1)
    with pytest.raises(ValueError, match="needs budget.seconds and/or budget.playouts"):
        search_batch("leftmove", state0, seeds, algo="uct")
    with pytest.raises(ValueError, match=r"algo.c = 0.0: must be > 0"):
        search_batch("leftmove", state0, seeds, algo="uct", max_playouts=10, uct_c=0.0)
