"""Golden two-player games: seeded matches whose moves are pinned in
``tests/data/twoplayer_golden.json``, so a refactor that changes what the players or the
kernels do (a rule, a random draw, the tree policy) shows up here.

After an intended change, rewrite the file and review its diff:

    NMCS_REWRITE_GOLDEN=1 python -m pytest tests/test_twoplayer_golden.py
"""

import json
import os
from pathlib import Path

import pytest

from nmcs.search.twoplayer import Budget, PlayerConfig, play_match

pytestmark = pytest.mark.unit

GOLDEN = Path(__file__).parent / "data" / "twoplayer_golden.json"
PLAYERS = {
    "NMC(1)+COW": PlayerConfig(1, cow=True),
    "NMC(1)+D+POD": PlayerConfig(1, discount=True, pod=True),
    "NMC(2)+COW": PlayerConfig(2, cow=True),
    "MCS": PlayerConfig(0),
}
CASES = [
    ("breakthrough", {"rows": 6, "cols": 5}, "NMC(1)+COW", "MCS"),
    ("knightthrough", {"rows": 6, "cols": 5, "misere": True}, "MCS", "NMC(1)+D+POD"),
    ("domineering", {"rows": 5, "cols": 5}, "NMC(2)+COW", "MCS"),
    ("nogo", {"rows": 5, "cols": 5, "misere": True}, "NMC(1)+D+POD", "NMC(1)+COW"),
    ("atarigo", {"rows": 5, "cols": 5}, "MCS", "NMC(1)+COW"),
]


def _play(game, options, a, b):
    rec = play_match(game, options, PLAYERS[a], PLAYERS[b], Budget(playouts=40), seed=2016)
    return {
        "game": game,
        "options": options,
        "a": a,
        "b": b,
        "moves": rec.moves,
        "winner": rec.winner,
        "final": rec.final,
    }


def test_golden_games():
    games = [_play(*case) for case in CASES]
    if os.environ.get("NMCS_REWRITE_GOLDEN"):
        GOLDEN.write_text(json.dumps(games, indent=1) + "\n")
        pytest.skip(f"rewrote {GOLDEN}")
    expected = json.loads(GOLDEN.read_text())
    for got, want in zip(games, expected, strict=True):
        assert got == want, f"{got['game']}: the golden game changed\n{got['final']}"
