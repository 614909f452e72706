"""The steps of a policy playout, as every policy-learning search (NRPA, GNRPA) takes them from
a game: the moves the game's playout policy may choose from, with their codes, and how to play
one (``policy_stepper``).

A game may give these steps itself (its kernels' ``policy_moves`` capability,
``nmcs.games.protocol.PolicyKernels``): to restrict the moves its policy playouts choose from
(SameGame's tabu colour) and to list them faster than ``legal_moves`` and ``code`` one by one
(SameGame lists its groups from bitboards kept for the whole playout). Every other game gets
steps built from ``legal_moves``, ``code``, ``bias`` and ``play``::

    size  = scratch(state0)                        words (uint64) of the playout's scratch
    begin(state, scratch)                          a playout starts from ``state``
    n     = moves(state, scratch, out, codes, betas, biased)
                                                   the moves into out[:n] (and, from a game's
                                                   own steps, their codes and betas)
    code_at(state, codes, out, i)                  the code of out[i]
    beta_at(state, betas, out, i)                  GNRPA's beta of out[i] (0 without a bias)
    step(state, scratch, move)                     play one of them
    end(state, scratch)                            the playout is over: ``state`` is its end

Between ``begin`` and ``end`` only these may touch the state; after ``end`` it is the position
the same moves give through ``play``.
"""

from typing import NamedTuple

import numpy as np
from numba import njit


class PolicyStepper(NamedTuple):
    scratch: object
    begin: object
    moves: object
    step: object
    end: object
    code_at: object  # code_at(state, codes, legal, i): the code of legal[i]
    beta_at: object  # beta_at(state, betas, legal, i): its beta
    has_bias: bool  # whether betas can be non-zero (GNRPA's bias compiled in)


@njit(inline="always")
def _listed_code(state, codes, legal, i):
    return codes[i]


@njit(inline="always")
def _listed_beta(state, betas, legal, i):
    return betas[i]


@njit(inline="always")
def _zero_bias(state, move):
    return 0.0


def policy_stepper(game) -> PolicyStepper:
    """The policy steps of ``game``'s kernel module: its own, or those of its move list. With
    its own, the codes and betas are those ``moves`` listed; without, ``moves`` lists the legal
    moves only and each code (and beta) is computed where it is read, as before the steps
    existed: a separate pass over the codes made Morpion's NRPA 8% slower."""
    if hasattr(game, "policy_moves"):
        return PolicyStepper(
            game.policy_scratch,
            game.policy_begin,
            game.policy_moves,
            game.policy_play,
            game.policy_end,
            _listed_code,
            _listed_beta,
            bool(getattr(game, "POLICY_BETAS", False)),
        )
    legal_moves, code, play = game.legal_moves, game.code, game.play
    has_bias = hasattr(game, "bias")
    bias = game.bias if has_bias else _zero_bias

    @njit(inline="always")
    def scratch(state):
        return 1

    @njit(inline="always")
    def begin(state, scratch):
        pass

    @njit(inline="always")
    def moves(state, scratch, out, codes, betas, biased):
        return legal_moves(state, out)

    @njit(inline="always")
    def step(state, scratch, move):
        play(state, move)

    @njit(inline="always")
    def code_at(state, codes, legal, i):
        return code(state, legal[i])

    @njit(inline="always")
    def beta_at(state, betas, legal, i):
        return bias(state, legal[i])

    return PolicyStepper(scratch, begin, moves, step, begin, code_at, beta_at, has_bias)


def step_lists(game, state0: np.ndarray, seq, biased: bool = False):
    """For each move of ``seq`` played from ``state0``, in Python (a Dask master adapts its
    policy once an iteration): the moves the policy chose among, their codes and their betas
    (zeros unless ``biased``), as the compiled steps list them."""
    state = state0.copy()
    width = int(game.max_branching(state0))
    out, codes, betas = np.empty(width, np.int32), np.empty(width, np.int64), np.zeros(width)
    own = hasattr(game, "policy_moves")
    bias = getattr(game, "bias", None) if biased else None
    scratch = np.zeros(int(game.policy_scratch(state)) if own else 1, np.uint64)
    if own:
        game.policy_begin(state, scratch)
    for move in seq:
        if own:
            n = int(game.policy_moves(state, scratch, out, codes, betas, biased))
        else:
            n = int(game.legal_moves(state, out))
            for i in range(n):
                codes[i] = game.code(state, out[i])
                betas[i] = 0.0 if bias is None else float(bias(state, out[i]))
        yield out[:n].copy(), codes[:n].copy(), (betas[:n].copy() if biased else np.zeros(n))
        if own:
            game.policy_play(state, scratch, move)
        else:
            game.play(state, move)
