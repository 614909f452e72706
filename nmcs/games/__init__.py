"""Games: the rules of each game as numba kernels over one flat numpy state array.

A game is a module in this package that defines the names below (and nothing about search).
``nmcs.search`` builds every algorithm from them, so a new game needs no search code.

Python-level (run once per search batch)::

    NAME                      str, the name used in configs (``game=NAME``)
    make_state(**options)     -> 1-D numpy array, the initial state; options are the keys of
                              ``conf/game/NAME.yaml`` except ``name`` (raise ValueError with a
                              one-line message naming the option for a bad value)
    describe(state0, moves)   -> str, a human-readable form of a move sequence
    SMALL_OPTIONS             optional dict: ``make_state`` options of a small position that
                              the conformance test searches at level 2 (default: no options)
    save_game(state0, moves, path_stem)   optional: write pictures / game files of a game
                              (the harness calls it for the best game of every cell)

Jitted kernels (``@njit(cache=True)``), all taking the state array first::

    max_moves(state)          upper bound on the number of moves of a game from ``state``
    max_branching(state)      upper bound on the number of legal moves in any position
    legal_moves(state, out)   write the legal moves (int32 codes) into ``out``, return how many;
                              0 means the game is over
    play(state, move)         apply a legal move in place
    score(state)              int score of the position (the result when the game is over)
    target_score(state)       optional: a score no game can beat (e.g. a solved puzzle); a
                              search stops at the first game that reaches it
    playout(state, rng, moves, record)
                              play the game's playout policy to the end in place and return
                              the number of moves played; write them into ``moves`` only if
                              ``record`` (the search replays a playout when it needs its moves,
                              so it must be a function of ``state`` and the ``rng`` words it
                              draws, via ``nmcs.search.rng``)

The state array carries everything the kernels need (sizes, options such as the playout
policy), so copying it copies the position. Each game module starts with an ASCII sketch of its
state layout and move encoding.

To add a game: write ``nmcs/games/NAME.py``, copy ``nmcs/engines/leftmove.py`` to
``nmcs/engines/NAME.py`` (it binds the shared engine to the game), add ``conf/game/NAME.yaml``
and its schema in ``nmcs.harness.schema``, and list it in ``GAMES`` below; the conformance test
(``tests/test_conformance.py``) then checks it with everything else.
"""

import importlib

GAMES = ("leftmove", "leftmost", "sudoku", "samegame", "morpion")


def game_module(name):
    """The kernel module of game ``name``."""
    if name not in GAMES:
        raise ValueError(f"unknown game '{name}' (allowed: {', '.join(GAMES)})")
    return importlib.import_module(f"nmcs.games.{name}")
