"""Morpion 5D: the engine against the independent plain-Python implementation
(``analysis.independent.morpion_mobility``, which shares no code with ``nmcs``): the legal
moves from the start and along whole games, the mobility of every move, the first move of
mobility playouts, the 82-move record, and the mean length of random playouts."""

import math
import random
from pathlib import Path

import numpy as np
import pytest

from analysis.independent import morpion_mobility as I
from nmcs.core.rng import new_rng
from nmcs.games import morpion as M
from nmcs.games.morpion.psol import read_psol
from nmcs.harness.batch import search_batch, search_seeds

pytestmark = pytest.mark.statistical

RECORD_5D = Path(__file__).parent / "data" / "record_5D_82.psol"
SHIFT = M.BOX - I.ORIGIN  # the two boards put the cross's box at different places


def common(move):
    """An independent move (direction, first cell, new dot) as the engine's (x, y, d, k)."""
    d, first, p = move
    x, y = I.xy(p)
    return x + SHIFT, y + SHIFT, d, (p - first) // I.STEPS[d]


def engine_moves(state):
    out = np.empty(M.max_branching(state), np.int32)
    n = M.legal_moves(state, out)
    return {M.decode(c): int(c) for c in out[:n]}


def test_start_position_has_the_same_28_moves():
    board, state = I.Board(), M.make_state(variant="5D")
    assert len(board.moves) == 28 == len(engine_moves(state))
    assert {common(m) for m in board.moves} == set(engine_moves(state))
    assert board.moves == board.scan()


@pytest.mark.parametrize("seed", range(12))
def test_same_moves_and_mobility_along_random_games(seed):
    # Each step: the same legal moves, and for every move the same number of legal moves after
    # it (the engine counts it without playing; the independent code plays, counts, undoes).
    rng = random.Random(seed)
    board, state = I.Board(), M.make_state(variant="5D", policy="mobility")
    while board.moves:
        ours = engine_moves(state)
        theirs = {common(m): m for m in board.moves}
        assert set(theirs) == set(ours), board.score
        assert sorted(board.moves) == board.scan()
        for key, code in ours.items():
            assert M.mobility_after(state, code) == board.mobility(theirs[key]), (board.score, key)
        key = rng.choice(sorted(ours))
        board.play(theirs[key])
        M.play(state, ours[key])
    assert not engine_moves(state)
    assert M.score(state) == board.score


def test_record_82_replays_in_both():
    board = I.replay_psol(RECORD_5D.read_text())
    state0, codes = read_psol(RECORD_5D, variant="5D")
    assert board.score == len(codes) == 82 and not board.moves
    state = state0.copy()
    for c in codes:
        M.play(state, c)
    assert M.score(state) == 82 and not engine_moves(state)


def test_mobility_playouts_start_with_a_most_mobile_move():
    board, state0 = I.Board(), M.make_state(variant="5D", policy="mobility")
    values = {common(m): board.mobility(m) for m in board.moves}
    best = {k for k, v in values.items() if v == max(values.values())}
    firsts = set()
    out = np.empty(M.max_moves(state0) + 1, np.int32)
    for seed in range(200):
        M.playout(state0.copy(), new_rng(seed), out, True)
        firsts.add(M.decode(out[0]))
    assert firsts == best  # at most 12 tied moves: 200 draws miss one with p < 12 * 0.92**200


def test_random_playout_lengths_agree():
    # Single random games: the same distribution, mean within 5 standard errors (sd ~ 13.5).
    rng = random.Random(7)
    theirs = [I.playout(I.Board(), rng)[0] for _ in range(2000)]
    res = search_batch("morpion", M.make_state(variant="5D"), search_seeds(7, 0, 20000), level=0)
    ours = res.score
    se = math.sqrt(np.var(theirs, ddof=1) / len(theirs) + ours.var(ddof=1) / len(ours))
    assert abs(np.mean(theirs) - ours.mean()) < 5 * se
    # and the same share of games that die early (the low mode of the bimodal distribution)
    p_t, p_o = np.mean(np.array(theirs) < 40), np.mean(ours < 40)
    se_p = math.sqrt(p_t * (1 - p_t) / len(theirs) + p_o * (1 - p_o) / len(ours))
    assert abs(p_t - p_o) < 5 * se_p
