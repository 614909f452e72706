"""Two-player matches from Python: one Breakthrough match of NMC(1)+COW against MCS, then four
Domineering matches at 5 ms a move (docs: Two-player games)."""

from nmcs.search.twoplayer import Budget, PlayerConfig, play_match, run_matches

rec = play_match(
    "breakthrough",
    {"misere": False},
    PlayerConfig(1, cow=True),
    PlayerConfig(0),
    Budget(playouts=100),  # the paper's scale: about 1,000 playouts or 320 ms a move
    seed=0,
)
print(rec.winner, rec.length, rec.moves[:5], rec.seconds[:5])
rows = run_matches(
    "domineering",
    {},
    PlayerConfig(1, discount=True, pod=True),
    PlayerConfig(0),
    Budget(ms=5),
    n_matches=4,
    seed=0,
)  # one dict per match, colours alternate
print([row["winner"] for row in rows])
