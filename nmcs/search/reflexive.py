"""Reflexive Monte-Carlo Search (Cazenave 2007, "Reflexive Monte-Carlo Search"), written once for
every game.

The paper (section 3) defines it by its C code: ``findBestMove`` plays ``nbGames`` random games
from the current position of a meta-game and returns the first move of the best game found so
far; ``playMetaGame`` plays a whole game choosing every move with ``findBestMove``;
``findBestMetaMove`` plays ``nbMetaGames`` meta-games from the current position of the
meta-meta-game and returns the first move of the best one; "all the meta-levels above the ground
level use a very similar code". Generalised to any number of levels::

    level 0   one game of the game's playout policy from the position
    level l   a whole game: at each step, play n_l level-(l-1) games from the current position
              (each starts afresh), and play the first move of the best sequence found so far
              in this level-l game; stop when the position is over

So the paper's meta-meta-game with "games x meta-games" (Tables 4 and 5) is level 2 with
``games = (n_1, n_2) = (games, meta-games)``, and its 78-move record is level 2 with (100, 1000).
What is faithful to the code:

- the lower-level games start from the current position itself, not after each legal move (this
  is what distinguishes it from Nested Monte-Carlo Search, which tries every legal move);
- the best sequence is memorized for the whole level-l game (``bestVariation`` shifted by one
  move at each step, ``best = previousBestScore - 1``) and replaced only by a strictly better
  game: the memorized sequence wins ties, and among new games the first best one wins (the
  games are i.i.d., so this is a uniform choice among them; no random numbers are drawn);
- a level-l game starts with no memory (``playMetaGame`` resets ``previousBestScore``).

Choice: the paper compares game lengths (Morpion's score); here games are compared by
``game.score`` of their final positions, which is the same for Morpion and makes the search
meaningful for every game. (The listing's ``findBestMove`` never increments ``nb``; it is read as
the intended ``nb++``.)

``build_reflexive(game)`` returns jitted functions:

- ``new_workspace(state0, stats)``: buffers allocated once per worker; ``stats`` is the engine's
  shared ``int64[2]`` counter array (playouts, playout moves);
- ``reflexive(state, level, games, rng, ws, seq)``: plays a level-``level`` game on ``state`` in
  place, ``games[l - 1]`` = n_l for l = 1..level, writes its moves into ``seq`` and returns
  their number; the score is ``game.score(state)`` afterwards.

Implementation: a level-1 game is one function (its playouts are not recorded but replayed from
their saved generator word when they improve, as in ``nmcs.search.nested``); the levels above it
run in one loop over an explicit stack of frames, one per level, rather than as one function per
level: numba cannot cache recursive functions without signatures (numba issue 6061), and unrolled
levels cost about 6 s of compilation more in every game's engine. The memorized sequence of a
level-l game lives in its own output (playing its next move needs no shifting), and a level-l
game lets its children write into one of two buffers, keeping the best by swapping them.

Workspace (a tuple; L = MAX_LEVEL + 1, S = state size, M = max moves + 1, B = max branching)::

    pos     [L, S]     pos[l]: the position of the running level-l game (pos[0]: a playout's)
    seqs    [L, 2, M]  seqs[l]: the two child-sequence buffers of the running level-l game
    frames  int64[F, L] per level: moves played, end of the memorized sequence in the output,
                       best score, games played at this step, length of the best child of
                       this step, child buffer in use, whether this step improved
    cont    [M]        the replayed moves of a level-1 playout
    legal   [B]        legal moves, only to test whether the root of a game is over
    aux     uint64[1]  generator state used for replays
    stats   int64[2]   shared with the engine: playouts started, moves played in playouts
"""

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit

from nmcs.search.anytime import NO_SCORE, PLAYOUT_MOVES, PLAYOUTS, copy_into, playout_caller
from nmcs.search.nested import MAX_LEVEL
from nmcs.search.registry import Algorithm, Settings, register

# Rows of the frames array.
F_PLAYED, F_MEMO_END, F_BEST, F_GAMES, F_BEST_LEN, F_CUR, F_IMPROVED = 0, 1, 2, 3, 4, 5, 6
N_FRAME = 7


def _make_new_workspace(max_moves, max_branching):
    """``new_workspace(state0, stats)``: the buffers of a search (module docstring)."""

    @njit
    def new_workspace(state0, stats):
        n_levels = MAX_LEVEL + 1
        m = max_moves(state0) + 1
        pos = np.empty((n_levels, state0.shape[0]), state0.dtype)
        seqs = np.empty((n_levels, 2, m), np.int32)
        frames = np.zeros((N_FRAME, n_levels), np.int64)
        cont = np.empty(m, np.int32)
        legal = np.empty(max_branching(state0), np.int32)
        aux = np.zeros(1, np.uint64)
        return pos, seqs, frames, cont, legal, aux, stats

    return new_workspace


def _make_level1(legal_moves, play, score, playout):
    """``level1``: a level-1 game, the paper's meta-game."""

    @njit
    def level1(state, n_games, rng, ws, seq):
        """A level-1 game (the paper's meta-game) on ``state`` in place; returns its length."""
        pos, _, _, cont, legal, aux, stats = ws
        child = pos[0]
        if legal_moves(state, legal) == 0:
            return 0
        best = NO_SCORE
        played = 0
        memo_end = -1  # seq[played:memo_end] is the rest of the best game; -1: none yet
        while memo_end != played:  # the best game is complete, so it ends here iff we do
            improved = False
            best_rng = np.uint64(0)
            for _ in range(n_games):
                copy_into(child, state)
                saved = rng[0]
                stats[PLAYOUT_MOVES] += playout(child, rng, cont, False)
                stats[PLAYOUTS] += 1
                s = score(child)
                if s > best:
                    best = s
                    best_rng = saved
                    improved = True
            if improved:
                copy_into(child, state)
                aux[0] = best_rng
                k = playout(child, aux, cont, True)
                for j in range(k):
                    seq[played + j] = cont[j]
                memo_end = played + k
            play(state, seq[played])
            played += 1
        return played

    return level1


def _make_frames(legal_moves):
    """``start`` and ``child_done``: a level's frame opened, and told of a child's end."""

    @njit
    def start(f, l, legal, pos):
        """Open the frame of a level-l game from pos[l]; False if that position is over."""
        f[F_PLAYED, l] = 0
        f[F_MEMO_END, l] = -1
        f[F_BEST, l] = NO_SCORE
        f[F_GAMES, l] = 0
        f[F_IMPROVED, l] = 0
        return legal_moves(pos[l], legal) > 0

    @njit
    def child_done(f, l, length, s):
        """A level-(l-1) child of the level-l game ended with ``length`` moves and score s."""
        f[F_GAMES, l] += 1
        if s > f[F_BEST, l]:
            f[F_BEST, l] = s
            f[F_BEST_LEN, l] = length
            f[F_CUR, l] = 1 - f[F_CUR, l]
            f[F_IMPROVED, l] = 1

    return start, child_done


def _make_reflexive(play, score, playout, level1, start, child_done):
    """``reflexive``: a game of any level, the levels above 1 on the stack of frames."""

    @njit
    def reflexive(state, level, games, rng, ws, seq):
        if level <= 0:
            stats = ws[6]  # the workspace tuple's last entry (see the module docstring)
            n = playout(state, rng, seq, True)
            stats[PLAYOUTS] += 1
            stats[PLAYOUT_MOVES] += n
            return n
        if level == 1:
            return level1(state, games[0], rng, ws, seq)
        pos, seqs, f, _, legal, _, _ = ws
        copy_into(pos[level], state)
        if not start(f, level, legal, pos):
            return 0
        l = level
        while True:
            # The output of the level-l game: seq at the top, else its parent's child buffer.
            out = seq if l == level else seqs[l + 1, f[F_CUR, l + 1]]
            if f[F_GAMES, l] < games[l - 1]:
                copy_into(pos[l - 1], pos[l])
                if l == 2:
                    length = level1(pos[1], games[0], rng, ws, seqs[2, f[F_CUR, 2]])
                    # np.int64: a literal 2 would compile child_done once more
                    child_done(f, np.int64(2), length, score(pos[1]))
                else:
                    start(f, l - 1, legal, pos)  # never over: pos[l] is not
                    l -= 1
                continue
            # Every child of this step has played: move along the best sequence.
            played = f[F_PLAYED, l]
            if f[F_IMPROVED, l]:
                src = seqs[l, 1 - f[F_CUR, l]]
                best_len = f[F_BEST_LEN, l]
                for j in range(best_len):
                    out[played + j] = src[j]
                f[F_MEMO_END, l] = played + best_len
            play(pos[l], out[played])
            played += 1
            f[F_PLAYED, l] = played
            f[F_GAMES, l] = 0
            f[F_IMPROVED, l] = 0
            if f[F_MEMO_END, l] == played:  # this level-l game is over
                if l == level:
                    copy_into(state, pos[l])
                    return played
                child_done(f, l + 1, played, score(pos[l]))
                l += 1

    return reflexive


def build_reflexive(game):
    """Jitted Reflexive Monte-Carlo search functions specialised to ``game``'s kernels."""
    legal_moves = game.legal_moves
    play = game.play
    score = game.score
    playout = playout_caller(game)  # record: a literal unless the game says otherwise
    max_moves = game.max_moves
    max_branching = game.max_branching

    new_workspace = _make_new_workspace(max_moves, max_branching)
    level1 = _make_level1(legal_moves, play, score, playout)
    start, child_done = _make_frames(legal_moves)
    return new_workspace, _make_reflexive(play, score, playout, level1, start, child_done)


# --- The registry record: algo=reflexive -------------------------------------------------------


class ReflexiveParams(NamedTuple):
    level: int
    games: np.ndarray  # int64[MAX_LEVEL]: games[l - 1] level-(l-1) games per step of level l


@dataclass
class ReflexiveConfig:
    """``algo=reflexive``: ``games[l-1]`` level-(l-1) games per step of a level-l game, from the
    ground up (a single value applies to every level); the Python API calls it ``games`` too
    and also takes an int."""

    name: str = "reflexive"
    # the games of level l-1 played at each step of a level-l game, from the ground level up;
    # one value: the same at every level
    games: list[int] | None = field(default_factory=lambda: [100, 1000])

    def check(self, settings: Settings) -> None:
        reflexive_games(settings.level, self.games)


def reflexive_games(level, games):
    """The MAX_LEVEL games-per-step slots of a level-``level`` search (unused levels get 0);
    ValueError naming ``algo.games`` if ``games`` does not fit the level."""
    if games is None:
        if level == 0:
            return [0] * MAX_LEVEL
        raise ValueError("algo.games = null: algo=reflexive needs one count per level")
    counts = [int(games)] if np.ndim(games) == 0 else [int(g) for g in games]
    if (
        (not counts and level > 0)
        or min(counts, default=1) < 1
        or (len(counts) > 1 and len(counts) != level)
    ):
        raise ValueError(
            f"algo.games = {counts}: one count >= 1 for every level, or {level} counts "
            "(one per level from the ground up)"
        )
    if len(counts) == 1:
        counts = counts * level
    counts = counts[:level]
    return counts + [0] * (MAX_LEVEL - len(counts))


def reflexive_params(options, settings, kernels, state0):
    games = np.array(reflexive_games(settings.level, options.games), np.int64)
    return ReflexiveParams(int(settings.level), games)


def build_reflexive_search(game, levels: int):
    """``(new_workspace, run)`` of algo=reflexive for the engine (``nmcs.search.engine``)."""
    new_reflexive_workspace, reflexive = build_reflexive(game)

    @njit
    def new_workspace(state0, params, stats):
        return new_reflexive_workspace(state0, stats)

    @njit
    def run(state, params, rng, ws, seq, trace):
        return reflexive(state, params.level, params.games, rng, ws, seq), 0

    return new_workspace, run


REFLEXIVE = register(
    Algorithm(
        name="reflexive",
        config=ReflexiveConfig,
        params=reflexive_params,
        build=build_reflexive_search,
        max_level=MAX_LEVEL,
        small_options={"games": [3]},
    )
)
