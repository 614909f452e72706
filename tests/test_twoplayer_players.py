"""Two-player players: the nested player finds wins, discounting orders wins and losses by
depth, POD and COW save playouts without changing what is found, seeded determinism, matches;
the player without a tree (root=flat) and the tree that keeps its playouts (expand=playout)."""

import numpy as np
import pytest

from nmcs.core.rng import below
from nmcs.games.twoplayer import protocol as P
from nmcs.games.twoplayer.layout import ONGOING, PLY, TO_MOVE, WINNER
from nmcs.search.twoplayer import Budget, PlayerConfig, play_match, run_matches
from nmcs.search.twoplayer import players as players_module
from nmcs.search.twoplayer.players import Player, nested_choice

pytestmark = pytest.mark.unit

# x wins at once with a5a6 or a5b6; every other move lets o's last pawn (whose every move
# reaches row 1) win: each child's value is the same in every playout.
WIN_IN_ONE = """
breakthrough 6x4, x to move
6 . . . .
5 x . . .
4 . . . .
3 . . . .
2 . . . o
1 . x . .
"""

# x wins with its second move if it advances the a4 runner now (o needs two moves); a move of
# the b1 pawn lets o's pawn reach row 2, and it wins before the runner arrives.
WIN_IN_TWO = """
breakthrough 6x4, x to move
6 . . . .
5 . . . .
4 x . . .
3 . . . o
2 . . . .
1 . x . .
"""

# Domineering, x (vertical) to move: a2 or b2 takes o's only room (the 2x2 square) and wins
# at once; d2, f2, h2 (x's spare slots) win too, but only four moves later, whatever is played.
FASTER_WIN = """
domineering 2x9, x to move
2 . . x . x . x . x
1 . . x . x . x . x
"""

# x loses whatever it does (o has two slots, x one column of four cells); a4 or a2 keeps a
# second x move (o wins at ply 10), a3 spoils the column (o wins at ply 8).
SLOWER_LOSS = """
domineering 4x5, x to move
4 . x . . x
3 . x x x x
2 . x . . x
1 . x x x x
"""


def _names(state, moves):
    return {P.move_name(state, m) for m in moves}


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("cow", [True, False])
def test_nested_playout_wins_at_once(level, cow):
    s = P.parse(WIN_IN_ONE)
    for seed in range(10):
        move, _ = nested_choice(s, level, seed, cow=cow)
        assert P.move_name(s, move) in {"a5a6", "a5b6"}


@pytest.mark.parametrize(
    "cfg",
    [
        PlayerConfig(1, cow=True),
        PlayerConfig(2, cow=True),
        PlayerConfig(1, discount=True, pod=True),
    ],
)
def test_nested_player_wins_at_once_and_in_two(cfg):
    for text, good in ((WIN_IN_ONE, {"a5a6", "a5b6"}), (WIN_IN_TWO, {"a4a5", "a4b5"})):
        s = P.parse(text)
        for seed in range(5):
            player = Player(cfg, Budget(playouts=200), s, seed)
            assert P.move_name(s, player.choose(s)) in good, (text, seed)


def test_nmc2_step_wins_in_two():
    s = P.parse(WIN_IN_TWO)
    for seed in range(10):
        move, _ = nested_choice(s, 2, seed, cow=True)
        assert P.move_name(s, move) in {"a4a5", "a4b5"}


def test_discounting_prefers_the_faster_win():
    s = P.parse(FASTER_WIN)
    fast = {"a2", "b2"}
    with_d = [P.move_name(s, nested_choice(s, 1, seed, discount=True)[0]) for seed in range(12)]
    without = [P.move_name(s, nested_choice(s, 1, seed)[0]) for seed in range(12)]
    assert set(with_d) <= fast
    assert not set(without) <= fast  # every move wins: without discounting any may be chosen


def test_discounting_prefers_the_slower_loss():
    s = P.parse(SLOWER_LOSS)
    slow = {"a4", "a2"}
    with_d = [P.move_name(s, nested_choice(s, 1, seed, discount=True)[0]) for seed in range(12)]
    without = [P.move_name(s, nested_choice(s, 1, seed)[0]) for seed in range(12)]
    assert set(with_d) <= slow
    assert "a3" in without  # every move loses: without discounting any may be chosen


def test_pod_and_cow_save_playout_moves_and_keep_the_fast_win():
    from nmcs.search.twoplayer import players

    s = P.parse(FASTER_WIN)
    import numpy as np

    def moves_played(**kw):
        total = 0
        for seed in range(8):
            ws = players.new_workspace(s, 1, 1)
            stats = np.zeros(2, dtype=np.int64)
            rng = np.array([seed], dtype=np.uint64)
            m = players.step1(
                s.copy(),
                rng,
                ws[9],
                ws[10],
                True,
                kw.get("pod", False),
                kw.get("cow", False),
                stats,
                players.NO_LIMIT,
                0.0,  # no deadline
            )
            if not kw.get("cow"):
                assert P.move_name(s, m) in {"a2", "b2"}
            total += int(stats[players.S_MOVES])
        return total

    plain = moves_played()
    assert moves_played(pod=True) < plain
    assert moves_played(cow=True) < plain


def test_same_seed_same_game_and_other_seed_other_game():
    a, b = PlayerConfig(1, cow=True), PlayerConfig(0)
    budget = Budget(playouts=60)
    r1 = play_match("breakthrough", {"rows": 6, "cols": 5}, a, b, budget, seed=3)
    r2 = play_match("breakthrough", {"rows": 6, "cols": 5}, a, b, budget, seed=3)
    r3 = play_match("breakthrough", {"rows": 6, "cols": 5}, a, b, budget, seed=4)
    assert r1.moves == r2.moves and r1.winner == r2.winner
    assert r1.moves != r3.moves
    assert r1.length == len(r1.moves) == len(r1.seconds) == len(r1.playouts)
    assert r1.winner in ("a", "b") and r1.outcome_a == (1 if r1.winner == "a" else -1)
    assert max(r1.playouts) <= 60 + 1000  # one NMC(1) playout may overrun the budget


@pytest.mark.parametrize("game", list(P.GAMES))
def test_match_on_every_game_and_misere(game):
    rec = play_match(
        game,
        {"rows": 5, "cols": 5, "misere": True},
        PlayerConfig(1, discount=True, pod=True),
        PlayerConfig(0),
        Budget(playouts=30),
        seed=1,
        a_first=False,
    )
    assert rec.length > 0 and rec.winner in ("a", "b") and not rec.a_first
    assert rec.final.startswith(f"{game} 5x5 misere,")


def test_run_matches_alternates_colours_and_is_split_invariant():
    args = (
        "domineering",
        {"rows": 4, "cols": 4},
        PlayerConfig(1, cow=True),
        PlayerConfig(0),
        Budget(playouts=20),
    )
    rows = run_matches(*args, n_matches=4, seed=9)
    assert [r["a_first"] for r in rows] == [True, False, True, False]
    assert [r["match"] for r in rows] == [0, 1, 2, 3]
    split = run_matches(*args, n_matches=4, seed=9, indices=range(2, 4))
    assert [r["moves"] for r in split] == [r["moves"] for r in rows[2:]]
    threads = run_matches(*args, n_matches=4, seed=9, workers=2)
    assert [r["moves"] for r in threads] == [r["moves"] for r in rows]
    assert rows[0]["player_a"] == "NMC(1)+COW" and rows[0]["player_b"] == "MCS"


def test_bad_player_and_budget_settings():
    with pytest.raises(ValueError, match="level must be 0, 1 or 2"):
        PlayerConfig(3)
    with pytest.raises(ValueError, match="apply to nested playouts"):
        PlayerConfig(0, cow=True)
    assert Budget() == Budget(playouts=1000) and Budget(ms=40).playouts is None
    with pytest.raises(ValueError, match="budget.ms must be a positive number"):
        Budget(ms=0)
    with pytest.raises(ValueError, match="budget.playouts must be a positive integer"):
        Budget(playouts=0)


@pytest.mark.parametrize("cfg", [PlayerConfig(0), PlayerConfig(2, discount=True, pod=True)])
def test_millisecond_budget_is_a_hard_limit(cfg):
    # An NMC(2) playout from the start of Breakthrough takes far longer than 20 ms: the
    # deadline stops it inside the nested playout.
    import time

    s = P.make_state("breakthrough")
    tiny = P.make_state("breakthrough", rows=4, cols=3)
    Player(cfg, Budget(playouts=1), tiny, 0).choose(tiny)  # compile, on a board that is quick
    player = Player(cfg, Budget(ms=20), s, 0)
    t = time.perf_counter()
    move = player.choose(s)
    assert time.perf_counter() - t < 0.1
    assert move in P.legal_move_list(s)


def test_win_rate_and_its_interval():
    from nmcs.search.twoplayer.match import win_rate

    rows = [{"outcome_a": 1}] * 15 + [{"outcome_a": -1}] * 5
    rate, lo, hi = win_rate(rows)
    assert rate == 0.75 and 0.53 < lo < 0.54 and 0.88 < hi < 0.89  # Wilson, n = 20
    assert win_rate([{"outcome_a": 0}])[0] == 0.5
    with pytest.raises(ValueError, match="no matches"):
        win_rate([])


def test_pruning_on_depth_reaches_the_inner_level():
    # An NMC(1) playout bounded at one move past the start (as NMC(2)+POD bounds its inner
    # playouts by the shallowest win found so far) plays one step; that step's random playouts
    # start at the bound, so with POD each one stops at once and plays no move. Before the fix
    # they ran to the end of the game (the step used only its own win depth).
    import numpy as np

    from nmcs.games.twoplayer.layout import PLY
    from nmcs.search.twoplayer import players

    s = P.make_state("breakthrough")
    for pod, stops_at_once in ((True, True), (False, False)):
        ws = players.new_workspace(s, 1, 1)
        stats = np.zeros(2, dtype=np.int64)
        rng = np.array([3], dtype=np.uint64)
        state = s.copy()
        limit = np.int32(s[PLY] + 1)
        done = players.nmc1(state, rng, ws[9], ws[10], limit, True, pod, False, stats, 0.0)
        assert not done and state[PLY] == limit  # one step played, then the bound stopped it
        assert stats[players.S_PLAYOUTS] == len(P.legal_move_list(s))
        assert (stats[players.S_MOVES] == 0) == stops_at_once, stats


def _root_children(player):
    """(move, visits, mean reward, proof) of the root's tried children after ``choose``."""
    visits, total, first, n_edges, edge_move, edge_child = player.ws[:6]
    proven = player.ws[11]
    out = []
    for e in range(first[0], first[0] + n_edges[0]):
        ch = edge_child[e]
        if ch >= 0 and visits[ch] > 0:
            out.append((int(edge_move[e]), int(visits[ch]), total[ch] / visits[ch], proven[ch]))
    return out


@pytest.mark.parametrize("level", [0, 1])
def test_solver_plays_a_proven_win_and_stops_early(level):
    s = P.parse(WIN_IN_ONE)
    for seed in range(4):
        plain = Player(PlayerConfig(level), Budget(playouts=400), s, seed)
        plain.choose(s)
        solver = Player(PlayerConfig(level, solver=True), Budget(playouts=400), s, seed)
        move = solver.choose(s)
        assert P.move_name(s, move) in {"a5a6", "a5b6"}
        assert solver.stats[0] < 400 <= plain.stats[0]  # solved: the search stops
        assert any(p == 1 for _, _, _, p in _root_children(solver))


def test_solver_proves_a_win_in_two_and_avoids_proven_losses():
    # WIN_IN_TWO: advancing the a4 runner wins in two; a move of the b1 pawn loses. The solver
    # proves the win (the search stops before the budget) and never plays the losing pawn.
    s = P.parse(WIN_IN_TWO)
    for seed in range(4):
        player = Player(PlayerConfig(0, solver=True), Budget(playouts=5000), s, seed)
        move = P.move_name(s, player.choose(s))
        assert move.startswith("a4"), move
        assert player.stats[0] < 5000
        children = _root_children(player)
        assert any(p == 1 for _, _, _, p in children)
        losing = [P.move_name(s, m) for m, _, _, p in children if p == -1]
        assert all(m.startswith("b1") for m in losing)


def test_the_tree_backs_up_the_outcome_or_the_discounted_value():
    # FASTER_WIN: every x move wins. Backing up outcomes gives each tried root move a mean of
    # exactly 1; backing up discounted values, 0.5 * (1 + 1/T) < 1, higher for faster wins.
    s = P.parse(FASTER_WIN)
    outcome = Player(PlayerConfig(1, cow=True), Budget(playouts=300), s, 1)
    outcome.choose(s)
    assert all(mean == 1.0 for _, _, mean, _ in _root_children(outcome))
    disc = Player(PlayerConfig(1, cow=True, backup="discounted"), Budget(playouts=300), s, 1)
    disc.choose(s)
    means = {P.move_name(s, m): mean for m, _, mean, _ in _root_children(disc)}
    assert all(0.5 < m < 1.0 for m in means.values()), means
    fast = [means[m] for m in ("a2", "b2") if m in means]
    slow = [means[m] for m in ("d2", "f2", "h2") if m in means]
    assert fast and slow and min(fast) > max(slow), means


def test_each_player_has_its_own_uct_constant():
    # The nested player's c changes its games; the opponent (MCS, c = 0.4) stays the same.
    def game(c):
        a = PlayerConfig(1, cow=True, c=c)
        return play_match("domineering", {}, a, PlayerConfig(0), Budget(playouts=1000), 4).moves

    assert game(0.0) != game(5.0)
    assert game(0.4) == game(0.4)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": True}, "level must be 0, 1 or 2, got True"),
        ({"level": 1, "cow": "yes"}, "cow must be true or false, got 'yes'"),
        ({"level": 1, "solver": 1}, "solver must be true or false, got 1"),
        ({"level": 1, "c": -0.1}, "c must be a finite number >= 0, got -0.1"),
        ({"level": 1, "c": float("nan")}, "c must be a finite number >= 0"),
        ({"level": 1, "c": "0.4"}, "c must be a finite number >= 0, got '0.4'"),
        ({"level": 1, "backup": "value"}, "backup must be 'outcome' or 'discounted', got 'value'"),
        ({"level": 0, "backup": "discounted"}, "backup applies to nested playouts"),
        ({"level": 1, "root": "tree"}, "root must be 'uct' or 'flat', got 'tree'"),
        ({"level": 0, "root": "flat", "solver": True}, "solver applies to the tree"),
        ({"level": 1, "expand": "tree"}, "expand must be 'node' or 'playout', got 'tree'"),
        ({"level": 0, "expand": "playout"}, "expand playout applies to the tree of a nested"),
        ({"level": 1, "expand": "playout", "root": "flat"}, "expand playout applies to the"),
    ],
)
def test_player_switches_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        PlayerConfig(**kwargs)


def test_labels_of_the_new_switches():
    assert PlayerConfig(0, solver=True).label == "MCS+S"
    assert PlayerConfig(1, cow=True, backup="discounted", solver=True).label == "NMC(1)+COW+DB+S"
    assert PlayerConfig(1, cow=True).label == "NMC(1)+COW"
    assert PlayerConfig(0, root="flat").label == "flat MC"
    assert PlayerConfig(1, cow=True, root="flat").label == "flat NMC(1)+COW"
    assert PlayerConfig(2, cow=True, expand="playout").label == "NMC(2)+COW+EP"


# ------------------------------------------ root=flat (reason 3 of the two-player investigation)


@pytest.mark.parametrize(
    "cfg", [PlayerConfig(0, root="flat"), PlayerConfig(1, cow=True, root="flat")]
)
def test_flat_player_wins_at_once_and_in_two(cfg):
    for text, good in ((WIN_IN_ONE, {"a5a6", "a5b6"}), (WIN_IN_TWO, {"a4a5", "a4b5"})):
        s = P.parse(text)
        for seed in range(5):
            player = Player(cfg, Budget(playouts=400), s, seed)
            assert P.move_name(s, player.choose(s)) in good, (text, seed)


def _flat_rounds_by_hand(s, level, budget, seed):
    """The flat player's rounds written out in Python over the compiled playouts: the root's
    moves shuffled by the player's generator, then one NMC(level) playout per move in turn until
    the budget is spent; (move, visits, mean value for the player to move) per move, in the
    shuffled order."""
    nested_playout = players_module.compiled().nested_playout
    ws = players_module.new_workspace(s, 1, 1)
    legal, child, rec = ws[9], ws[10], ws[12]
    rng = np.array([seed], dtype=np.uint64)
    stats = np.zeros(2, dtype=np.int64)
    moves = np.zeros(P.max_branching(s), np.int32)
    n = P.legal_moves(s, moves)
    for j in range(n - 1, 0, -1):  # the shuffle's draws, in its order
        k = below(rng, j + 1)
        moves[j], moves[k] = moves[k], moves[j]
    visits, totals = [0] * n, [0.0] * n
    p = int(s[TO_MOVE])
    j = 0
    while stats[0] < budget:
        sim = s.copy()
        P.play(sim, moves[j])
        if sim[WINNER] == ONGOING:
            nested_playout(sim, level, rng, legal, child, False, False, level > 0, stats, 0.0, rec)
        else:
            stats[0] += 1
        visits[j] += 1
        totals[j] += 0.5 * (P.outcome(sim, p) + 1)
        j = (j + 1) % n
    means = [totals[i] / visits[i] if visits[i] else -1.0 for i in range(n)]
    return [(int(moves[i]), visits[i], means[i]) for i in range(n)], int(stats[0])


@pytest.mark.parametrize("level", [0, 1])
def test_flat_player_is_rounds_over_the_root_moves_and_the_best_mean(level):
    # Domineering 5x5 from the start: 40 moves, no game ends in one move. With NMC(1)
    # playouts the budget (random playouts) is checked between simulations, as for UCT.
    s = P.make_state("domineering", rows=5, cols=5)
    cfg = PlayerConfig(level, cow=level > 0, root="flat")
    budget = (300, 3000)[level]
    for seed in range(3):
        rows, used = _flat_rounds_by_hand(s, level, budget, seed)
        visits = [v for _, v, _ in rows]
        assert max(visits) - min(visits) <= 1 and visits == sorted(visits, reverse=True)
        best = max(rows, key=lambda r: r[2])  # max keeps the first of equal means
        player = Player(cfg, Budget(playouts=budget), s, seed)
        assert player.choose(s) == best[0]
        assert int(player.stats[0]) == used >= budget


# ---------------------------------------------------------------- expand="playout" (reason 2)


def _visited_line(player, root):
    """From the root, the moves to the most visited child, node after node, played on a copy
    of ``root``: (moves, the position reached, the visits along the line)."""
    visits, _, first, n_edges, edge_move, edge_child = player.ws[:6]
    pos, node, moves, seen = root.copy(), 0, [], []
    while first[node] >= 0:
        tried = [e for e in range(first[node], first[node] + n_edges[node]) if edge_child[e] >= 0]
        if not tried:
            break
        e = max(tried, key=lambda e: visits[edge_child[e]])
        moves.append(int(edge_move[e]))
        P.play(pos, edge_move[e])
        node = edge_child[e]
        seen.append(int(visits[node]))
    return moves, pos, seen


@pytest.mark.parametrize("level", [1, 2])
def test_expand_playout_keeps_the_nested_playout_as_a_line_of_nodes(level):
    # One simulation (a budget of one random playout; the nested playout that starts finishes):
    # with expand="node" the tree is the root and one child; with expand="playout" it is the
    # line of the whole game, the leaf's nested playout included, each node visited once.
    s = P.make_state("domineering", rows=5, cols=5)
    for seed in range(3):
        one = Player(PlayerConfig(level, cow=True), Budget(playouts=1), s, seed)
        one.choose(s)
        moves, pos, seen = _visited_line(one, s)
        assert len(moves) == 1 and seen == [1] and pos[WINNER] == ONGOING
        chain = Player(PlayerConfig(level, cow=True, expand="playout"), Budget(playouts=1), s, seed)
        chain.choose(s)
        moves, pos, seen = _visited_line(chain, s)
        assert pos[WINNER] != ONGOING and len(moves) == int(pos[PLY]) and seen == [1] * len(moves)
        # The same simulation: the same first move and the same random playouts.
        assert moves[0] == _visited_line(one, s)[0][0] and chain.stats[0] == one.stats[0]


@pytest.mark.parametrize("level", [1, 2])
def test_expand_playout_player_wins_at_once_and_in_two(level):
    cfg = PlayerConfig(level, cow=True, expand="playout")
    for text, good in ((WIN_IN_ONE, {"a5a6", "a5b6"}), (WIN_IN_TWO, {"a4a5", "a4b5"})):
        s = P.parse(text)
        for seed in range(5):
            player = Player(cfg, Budget(playouts=200), s, seed)
            assert P.move_name(s, player.choose(s)) in good, (text, seed)


# x to move; after either x move every o move leaves x without a move: each NMC(2) playout of
# o wins with the first move it tries and runs no random playout.
ZERO_COST_PLAYOUTS = """
domineering 3x4, x to move
3 . . . .
2 . o o x
1 . . . x
"""


def _choose_in_time(player, state, seconds=60.0):
    """The player's move, or a failure (not a hung suite) if it does not come in time."""
    import threading

    result = []
    thread = threading.Thread(target=lambda: result.append(player.choose(state)), daemon=True)
    thread.start()  # the move kernels release the GIL
    thread.join(seconds)
    assert not thread.is_alive(), "the player did not return a move"
    return result[0]


@pytest.mark.parametrize("root", ["uct", "flat"])
def test_simulations_without_random_playouts_still_spend_the_budget(root):
    # Budget 1: the tree holds the root and its two children; every later simulation starts a
    # zero-cost NMC(2) playout from a full tree (uct), and every flat round is one (flat).
    # Such simulations once repeated for ever; each now counts one playout.
    state = P.parse(ZERO_COST_PLAYOUTS)
    for seed in range(5):
        player = Player(PlayerConfig(level=2, cow=True, root=root), Budget(playouts=1), state, seed)
        before = int(player.stats[0])
        move = _choose_in_time(player, state)
        assert move in P.legal_move_list(state)
        assert 1 <= int(player.stats[0]) - before <= 2
