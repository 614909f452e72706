"""One conformance check run against every game (as pgx checks every environment with one
shared validator): the kernels obey the protocol of ``nmcs.games`` (their declared bounds
first: a game that breaks them fails in one line before any kernel writes past a buffer) and
the shared searches work on them; every two-player game obeys
``nmcs.games.twoplayer.protocol`` and the two-player players play it. Both lists come from the
registry, so a game added from ``NMCS_PLUGINS`` is checked too (tests/test_toy_game.py,
tests/test_twoplayer_plugin.py)."""

import numba
import numpy as np
import pytest

from nmcs.core.errors import PluginError
from nmcs.core.rng import new_rng
from nmcs.games import registry
from nmcs.games.bounds import check_bounds
from nmcs.games.twoplayer import protocol as P
from nmcs.games.twoplayer.layout import HEADER, STAMP
from nmcs.harness.batch import search_batch, search_seeds
from nmcs.search import registry as algorithms
from nmcs.search.twoplayer import Budget, PlayerConfig, play_match

pytestmark = pytest.mark.unit


def replay(game, state0, moves):
    """Play ``moves`` from a copy of state0 through legal_moves/play, checking each is legal."""
    state = state0.copy()
    legal = np.empty(game.max_branching(state0), np.int32)
    for t, move in enumerate(moves):
        n = game.legal_moves(state, legal)
        assert move in legal[:n], f"move {t} ({move}) is not legal"
        game.play(state, move)
    return state


class GameUnderTest:
    """A game's kernels plus the record's ``make_state`` and small position."""

    def __init__(self, record):
        self.record = record
        self.NAME = record.name
        self.make_state = record.make_state

    def __getattr__(self, name):
        return getattr(self.record.kernels, name)


# Single-player games: the searches run on them. Two-player games (cells="matches") have their
# own protocol and checks (below; their rules: tests/test_twoplayer_games.py).
SEARCH_GAMES = [name for name in registry.names() if registry.game(name).cells == "searches"]


def checked_bounds(record):
    """The game's declared bounds from its default and its small position
    (``nmcs.games.bounds``), before any check calls its kernels with buffers of those sizes:
    a game that breaks them fails its tests with one line naming the bound, instead of
    writing past a buffer."""
    broken = None
    for options in ({}, record.small_options):
        try:
            check_bounds(record, record.make_state(**options))
        except PluginError as error:
            broken = str(error)
    if broken:
        pytest.fail(broken, pytrace=False)


@pytest.fixture(params=SEARCH_GAMES)
def game(request):
    record = registry.game(request.param)
    checked_bounds(record)
    return GameUnderTest(record)


def small_state(game):
    """A position small enough for level-2 searches in a test (the record's small_options)."""
    return game.make_state(**game.record.small_options)


def test_registry_records_are_consistent(game):
    record = game.record
    assert record.kernels.NAME == record.name
    defaults = record.options()
    assert defaults.name == record.name
    defaults.check()  # the defaults (the YAML's) are valid
    options = {k: getattr(defaults, k) for k in record.option_names()}
    np.testing.assert_array_equal(record.make_state(**options), record.make_state())


def test_state_and_bounds(game):
    state = game.make_state()
    assert state.ndim == 1
    assert game.max_moves(state) >= 1
    assert game.max_branching(state) >= 1
    legal = np.empty(game.max_branching(state), np.int32)
    n = game.legal_moves(state, legal)
    assert 1 <= n <= game.max_branching(state)
    assert len(set(legal[:n].tolist())) == n, "legal moves must be distinct"
    if game.record.check_state is not None:  # the Python API's check accepts real positions
        game.record.check_state(state)
        game.record.check_state(game.make_state(**game.record.small_options))
    size = getattr(game.record.kernels, "STATE_SIZE", None)
    if size is not None:  # a fixed size the searches copy unrolled: it must be the real one
        assert state.shape[0] == size
        assert game.make_state(**game.record.small_options).shape[0] == size


def test_random_walk_ends_within_max_moves(game):
    state0 = game.make_state()
    rng = np.random.default_rng(1)
    legal = np.empty(game.max_branching(state0), np.int32)
    for _ in range(20):
        state = state0.copy()
        steps = 0
        while (n := game.legal_moves(state, legal)) > 0:
            before = state.copy()
            game.play(state, legal[rng.integers(n)])
            assert not np.array_equal(before, state), "a move must change the state"
            steps += 1
            assert steps <= game.max_moves(state0)
        assert isinstance(int(game.score(state)), int)
        if game.record.check_state is not None:  # a finished game is a position too
            game.record.check_state(state)


def test_playout_replays_and_is_deterministic(game):
    state0 = game.make_state()
    for seed in range(10):
        recorded = state0.copy()
        moves = np.empty(game.max_moves(state0) + 1, np.int32)
        n = game.playout(recorded, new_rng(seed), moves, True)
        assert game.legal_moves(recorded, np.empty(game.max_branching(state0), np.int32)) == 0
        unrecorded = state0.copy()
        assert game.playout(unrecorded, new_rng(seed), moves[:0].copy(), False) == n
        np.testing.assert_array_equal(recorded, unrecorded)
        np.testing.assert_array_equal(replay(game, state0, moves[:n]), recorded)


def test_policy_steps_list_legal_moves_with_their_codes_and_replay(game):
    # A game's own policy steps (the ``policy_moves`` capability) against its legal_moves,
    # code and play: random steps, each move listed legal with its code, a move list only
    # empty at the end of the game, and the playout's end the position play gives.
    if not hasattr(game, "policy_moves"):
        pytest.skip(f"{game.NAME} has no policy steps of its own")
    state0 = game.make_state()
    width = game.max_branching(state0)
    out, legal = np.empty(width, np.int32), np.empty(width, np.int32)
    codes, betas = np.empty(width, np.int64), np.zeros(width)
    rng = np.random.default_rng(0)
    for _ in range(5):
        state, ref = state0.copy(), state0.copy()
        scratch = np.zeros(game.policy_scratch(state), np.uint64)
        game.policy_begin(state, scratch)
        while True:
            n = game.policy_moves(state, scratch, out, codes, betas, False)
            m = game.legal_moves(ref, legal)
            assert (n == 0) == (m == 0)
            assert set(out[:n].tolist()) <= set(legal[:m].tolist())
            assert len(set(out[:n].tolist())) == n
            assert [game.code(ref, mv) for mv in out[:n]] == codes[:n].tolist()
            if n == 0:
                break
            move = out[rng.integers(n)]
            game.policy_play(state, scratch, move)
            game.play(ref, move)
            assert game.score(state) == game.score(ref)
        game.policy_end(state, scratch)
        np.testing.assert_array_equal(state, ref)


# Levels 0 and 2 each compile an entry point per game that the fast tier needs for nothing
# else (about 8 and 20 s from a cold cache; level 1's entry holds level 0's code as its inner
# level): they run with the compile tier, beside the golden searches.
@pytest.mark.parametrize(
    "level,memorize",
    [
        pytest.param(0, False, marks=pytest.mark.compile),
        (1, False),
        (1, True),
        pytest.param(2, True, marks=pytest.mark.compile),
    ],
)
def test_search_sequences_replay_to_their_score(game, level, memorize):
    state0 = small_state(game)
    res = search_batch(game.NAME, state0, search_seeds(7, 0, 4), level=level, memorize=memorize)
    for i in range(4):
        assert res.length[i] == len(res.moves[i])
        final = replay(game, state0, res.moves[i])
        assert game.score(final) == res.score[i]
        assert res.playouts[i] >= 1


def test_results_do_not_depend_on_workers(game):
    state0 = small_state(game)
    seeds = search_seeds(3, 0, 6)
    one = search_batch(game.NAME, state0, seeds, level=1, memorize=True, workers=1)
    two = search_batch(game.NAME, state0, seeds, level=1, memorize=True, workers=2)
    np.testing.assert_array_equal(one.score, two.score)
    np.testing.assert_array_equal(one.playouts, two.playouts)
    for a, b in zip(one.moves, two.moves, strict=True):
        np.testing.assert_array_equal(a, b)


# NRPA's entry point per game (about 10 s each from a cold cache) runs with the compile tier;
# the fast tier checks NRPA's kernels in tests/test_nrpa.py.
@pytest.mark.compile
@pytest.mark.parametrize("algo", ["nrpa", "gnrpa"])
def test_nrpa_sequences_replay_to_their_score(game, algo):
    # Every single-player game has move codes (``code``), so NRPA and GNRPA run on it.
    state0 = small_state(game)
    seeds = search_seeds(5, 0, 3)
    # Level 1: the compiled code the quick NRPA experiments load again (a level-2 entry point
    # per game and algorithm cost about 30 s of compiling each; levels 2 and up, which know no
    # game, run in tests/test_nrpa.py and on three games in tests/test_nrpa_experiments.py).
    res = search_batch(game.NAME, state0, seeds, algo=algo, level=1, iterations=5)
    for i in range(3):
        assert res.length[i] == len(res.moves[i])
        assert game.score(replay(game, state0, res.moves[i])) == res.score[i]
        assert res.playouts[i] == 5 or game.NAME == "sudoku"  # Sudoku stops when solved
    two = search_batch(game.NAME, state0, seeds, algo=algo, level=1, iterations=5, workers=2)
    np.testing.assert_array_equal(res.score, two.score)


# Every (algorithm, game) pair that can run, from the records: a new algorithm or game is
# checked here without a test of its own. Small searches: level 1 (0 for an algorithm without
# levels), the record's small options over its defaults, 100 playouts for an algorithm that
# needs a budget (a budget of playouts, so that the searches stay deterministic).
ALGORITHMS = algorithms.names()  # those registered now (a toy one too, if imported first)
PAIRS = [
    (algo, name)
    for algo in ALGORITHMS
    for name in SEARCH_GAMES
    if algorithms.lacks(algorithms.algorithm(algo), name) is None
]


def small_search(algo: str, name: str, seeds, workers: int):
    checked_bounds(registry.game(name))
    record = algorithms.algorithm(algo)
    state0 = small_state(GameUnderTest(registry.game(name)))
    budget = 100 if record.needs_budget is True else 0
    level = min(1, record.max_level)
    res = search_batch(
        name,
        state0,
        seeds,
        algo=algo,
        level=level,
        max_playouts=budget,
        workers=workers,
        **record.small_options,
    )
    return state0, res


@pytest.mark.compile  # one entry point per pair: about a minute and a half on a cold cache
@pytest.mark.parametrize("algo,name", PAIRS, ids=[f"{a}-{g}" for a, g in PAIRS])
def test_every_algorithm_replays_repeats_and_ignores_workers_on_every_game(algo, name):
    seeds = search_seeds(11, 0, 3)
    state0, res = small_search(algo, name, seeds, workers=1)
    game = GameUnderTest(registry.game(name))
    for i in range(len(seeds)):
        assert res.length[i] == len(res.moves[i])
        assert game.score(replay(game, state0, res.moves[i])) == res.score[i]
        assert res.playouts[i] >= 1
    for workers in (1, 2):  # the same searches again, on one and on two threads
        _, again = small_search(algo, name, seeds, workers=workers)
        np.testing.assert_array_equal(again.score, res.score)
        np.testing.assert_array_equal(again.playouts, res.playouts)
        for a, b in zip(again.moves, res.moves, strict=True):
            np.testing.assert_array_equal(a, b)


def test_the_pairs_cover_every_algorithm_and_every_game():
    assert {a for a, _ in PAIRS} == set(ALGORITHMS)
    assert {g for _, g in PAIRS} == set(SEARCH_GAMES)


# ---------------------------------------------------------------- two-player games

# Two-player games (cells="matches"), every registered one (NMCS_PLUGINS games included): the
# protocol of nmcs.games.twoplayer.protocol, the text forms, and a short match of the players.
MATCH_GAMES = [name for name in registry.names() if registry.game(name).cells == "matches"]


@pytest.fixture(params=MATCH_GAMES)
def twoplayer(request):
    return request.param


def _small(name):
    """(rows, cols) of a 5x5 board, or the game's smallest if larger."""
    module = P.MODULES[name]
    return max(5, P.min_rows(module)), max(5, P.min_cols(module))


def _board(state):
    return state[: HEADER + int(state[P.ROWS]) * int(state[P.COLS])]


def _random_game(state, rng):
    moves = []
    while not P.is_terminal(state):
        legal = P.legal_move_list(state)
        assert legal, "a position that is not over has a legal move"
        assert len(set(legal)) == len(legal), "legal moves must be distinct"
        assert len(legal) <= P.max_branching(state)
        m = legal[rng.integers(len(legal))]
        P.apply_move(state, m)
        moves.append(m)
    return moves


def test_twoplayer_record_is_consistent(twoplayer):
    record = registry.game(twoplayer)
    assert P.MODULES[twoplayer].NAME == twoplayer == record.name
    defaults = record.options()
    assert defaults.name == twoplayer
    defaults.check()  # the defaults (the YAML's) are valid
    options = {k: getattr(defaults, k) for k in record.option_names()}
    state = record.make_state(**options)
    np.testing.assert_array_equal(state, record.make_state())
    assert P.game_name(state) == twoplayer and P.to_move(state) == 0 and P.depth(state) == 0
    assert not P.is_terminal(state) and P.max_moves(state) >= 1


def test_twoplayer_random_games_end_with_a_result_and_misere_flips_it(twoplayer):
    rng = np.random.default_rng(7)
    bound = int(P.max_moves(P.make_state(twoplayer)))
    draws = getattr(P.MODULES[twoplayer], "DRAWS", False)
    for _ in range(30):
        state = P.make_state(twoplayer)
        moves = _random_game(state, rng)
        assert P.depth(state) == len(moves) <= bound
        assert P.legal_move_list(state) == []
        o0, o1 = P.outcome(state, 0), P.outcome(state, 1)
        assert o1 == -o0 and (o0 in (-1, 1) or draws)
        mis = P.make_state(twoplayer, misere=True)
        for m in moves:
            P.apply_move(mis, m)
        assert P.outcome(mis, 0) == -o0
        # The text of any position reads back to the same position.
        back = P.parse(P.draw(state))
        back[STAMP] = state[STAMP]
        assert np.array_equal(_board(back), _board(state))
        with pytest.raises(P.IllegalMoveError, match="after the game ended"):
            P.apply_move(state, moves[-1])


def test_twoplayer_initial_position_text(twoplayer):
    state = P.make_state(twoplayer, misere=True)
    text = P.draw(state)
    assert text.splitlines()[0].startswith(f"{twoplayer} ")
    assert "misere, x to move, ply 0" in text
    back = P.parse(text)
    back[STAMP] = state[STAMP]  # the flood-fill counter is scratch, not position
    assert np.array_equal(_board(back), _board(state))
    for move in P.legal_move_list(state):
        assert P.parse_move(state, P.move_name(state, move)) == move


def test_twoplayer_random_move_is_uniform_over_the_legal_moves(twoplayer):
    # Some games draw by rejection instead of generating every move: the draw must still be
    # uniform over exactly the legal moves. A mid-game position of each game:
    rng = np.random.default_rng(3)
    rows, cols = _small(twoplayer)
    state = P.make_state(twoplayer, rows=rows, cols=cols)
    for _ in range(6):
        legal = P.legal_move_list(state)
        after = state.copy()
        P.apply_move(after, legal[rng.integers(len(legal))])
        if P.is_terminal(after):
            break
        state = after
    legal = P.legal_move_list(state)
    gen = np.array([11], dtype=np.uint64)
    buf = np.empty(P.max_branching(state), dtype=np.int32)
    n = 400 * len(legal)
    counts = {}
    for _ in range(n):
        m = int(P.random_move(state, gen, buf))
        counts[m] = counts.get(m, 0) + 1
    assert set(counts) == set(legal)
    expected = n / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < len(legal) + 6 * (2 * len(legal)) ** 0.5  # far inside the chi-square tail
    # Every game's move comes back as an int32, the type of the move lists, so that ``play``
    # compiles once inside the players (not once more for an int64 move).
    returned = {signature.return_type for signature in P.random_move.nopython_signatures}
    assert returned == {numba.types.int32}


def test_twoplayer_match_between_the_players_replays(twoplayer):
    rows, cols = _small(twoplayer)
    options = {"rows": rows, "cols": cols}
    a, b = PlayerConfig(1, cow=True), PlayerConfig(0)
    rec = play_match(twoplayer, options, a, b, Budget(playouts=8), seed=3)
    assert rec.length == len(rec.moves) >= 1
    state = P.make_state(twoplayer, **options)
    for move in rec.moves:
        P.apply_move(state, move)
    assert P.is_terminal(state) and P.draw(state) == rec.final
    assert rec.outcome_a == P.outcome(state, 0)  # A played first
    again = play_match(twoplayer, options, a, b, Budget(playouts=8), seed=3)
    assert again.moves == rec.moves  # the same seed plays the same game
