"""SameGame: the game's record in the registry and its public face.

``rules`` holds the kernels (and imports nothing above it); ``io`` reads board files and the
standard test set and checks moves; ``draw`` draws games. This package re-exports the rules,
so ``nmcs.games.samegame.make_state`` and the kernels are one import away.
"""

from dataclasses import dataclass

from nmcs.games.registry import Game, RecordBook, checked_options, register
from nmcs.games.samegame import gamefile, io, rules
from nmcs.games.samegame.rules import *  # noqa: F403 - the package's public face is its rules
from nmcs.games.samegame.rules import MAX_COLORS, MAX_SIDE, POLICIES, state_from_grid


@dataclass
class SameGameOptions:
    """``game=samegame`` options (``conf/game/samegame.yaml``)."""

    name: str = "samegame"
    # 0..19: position of the standard test set (15x15, 5 colours); null: random board
    instance: int | None = 0
    width: int = 15  # 1..64, random boards only (must be 15 with an instance)
    height: int = 15  # 1..64, random boards only (must be 15 with an instance)
    colors: int = 5  # 1..20, random boards only (must be 5 with an instance)
    board_seed: int = 0  # >= 0, seed of the random board (instance=null)
    # tabu (NMCS: TabuColorRandom; NRPA/GNRPA: the NRPA literature's rule) | random (every
    # group) | bias (GNRPA only: every group, those of the tabu colour with beta -2)
    policy: str = "tabu"

    def check(self) -> None:
        if self.policy not in POLICIES:
            raise ValueError(
                f"game.policy must be one of {', '.join(POLICIES)}, got '{self.policy}'"
            )
        # Ranges first, so that the suggestion below never proposes a board that fails again.
        for key, value, top in (("width", self.width, MAX_SIDE), ("height", self.height, MAX_SIDE)):
            if not 1 <= value <= top:
                raise ValueError(f"game.{key} must be 1..{top}, got {value}")
        if not 1 <= self.colors <= MAX_COLORS:
            raise ValueError(f"game.colors must be 1..{MAX_COLORS}, got {self.colors}")
        if self.instance is not None and (self.width, self.height, self.colors) != (15, 15, 5):
            raise ValueError(
                f"game.instance={self.instance} is a 15x15 board with 5 colours; set "
                f"game.instance=null for a random {self.width}x{self.height} board with "
                f"{self.colors} colours"
            )


def make_state(instance=0, width=15, height=15, colors=5, board_seed=0, policy="tabu"):
    """Initial state: position ``instance`` (0..19) of the standard test set (15x15, 5 colours),
    or, with ``instance=None``, a uniformly random ``width`` x ``height`` board with ``colors``
    colours drawn from ``board_seed``. ``policy`` is the playout policy: tabu | random."""
    given = dict(instance=instance, width=width, height=height, colors=colors)
    checked_options(SameGameOptions, {**given, "board_seed": board_seed, "policy": policy})
    if instance is not None:
        grid = io.standard_board(instance)
    else:
        grid = io.random_board(board_seed, width, height, colors)
    return state_from_grid(grid, colors=colors, policy=policy)


def save_game(state0, moves, path_stem):
    """Write a game as ``path_stem`` + ``.png`` (every move, the removed group outlined) and
    ``.gif`` (one frame per move); called by the harness for the best game of a cell."""
    from nmcs.games.samegame.draw import save_game_gif, save_game_strip

    stem = str(path_stem)
    return [
        save_game_strip(state0, moves, stem + ".png"),
        save_game_gif(state0, moves, stem + ".gif"),
    ]


def check_state(state):
    """ValueError unless ``state`` has the layout of a SameGame position (rules.py)."""
    hdr = rules.HDR
    ok = state.shape[0] > hdr and min(int(state[0]), int(state[1]), int(state[2])) >= 1
    if ok:
        w, h, k = (int(x) for x in state[:3])
        ok = state.shape[0] == hdr + w + k + w * h
    if not ok:
        raise ValueError(f"not a SameGame position ({state.shape[0]} entries)")


# The best score of each standard position in the sources we hold: the larger of SP-MCTS
# (Schadd et al. 2008) and memorized NMCS of level 3 in Table 1 of the NMCS paper (the same
# values as analysis/paper_values/samegame.yaml; tests/test_samegame.py checks it). The field's
# best totals (NRPA 80,030, parallel NRPA 83,050) come without per-position scores in them.
BEST_IN_TABLE_1 = (
    3121, 3813, 3085, 3697, 4055, 4459, 2949, 3999, 4695, 3223,
    3147, 3201, 3197, 2859, 3677, 4979, 4919, 5201, 4883, 4853,
)  # fmt: skip


def upper_bound(grid) -> int:
    """A score no game of the board can beat: the clear bonus and, for each colour of n cells,
    (n - 2)^2, its score if it all went in one group ((a + b - 2)^2 >= (a - 2)^2 + (b - 2)^2 for
    a, b >= 2: splitting a colour never scores more)."""
    counts = [int((grid == x).sum()) for x in range(int(grid.max()) + 1)]
    return rules.CLEAR_BONUS + sum((n - 2) ** 2 for n in counts if n >= 2)


def _read_moves(path, game_options):
    return gamefile.read_game(path)[1]


RECORDS = RecordBook(
    option="instance",
    best_known={str(i): s for i, s in enumerate(BEST_IN_TABLE_1)},
    upper_bound={str(i): upper_bound(io.standard_board(i)) for i in range(io.STANDARD_COUNT)},
    sources={
        str(i): "best of SP-MCTS and NMCS level 3 in the NMCS paper's Table 1; upper bound: "
        "each colour in one group and the board cleared"
        for i in range(io.STANDARD_COUNT)
    },
    save_checked=gamefile.save_checked,
    suffix=gamefile.SUFFIX,
    read_moves=_read_moves,
    keep="best",
)


GAME = register(
    Game(
        name="samegame",
        options=SameGameOptions,
        kernels=rules,
        make_state=make_state,
        describe=rules.describe,
        save_game=save_game,
        small_options=dict(rules.SMALL_OPTIONS),
        check_state=check_state,
        records=RECORDS,
        check_search=rules.check_search,
    )
)
