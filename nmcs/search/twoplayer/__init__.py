"""Players and matches for two-player games (NMCS for two-player games, AAAI 2016).

``players``: MCS (UCT with random playouts) and the nested player (UCT with NMC(n) playouts,
discounting, pruning on depth, cut on win); ``match``: one game between two players, and a
pairing's matches as rows. The single-player searches of ``nmcs.search`` are not touched.
"""

from nmcs.search.twoplayer.match import MatchRecord, play_match, run_matches
from nmcs.search.twoplayer.players import Budget, Player, PlayerConfig

__all__ = ["Budget", "MatchRecord", "Player", "PlayerConfig", "play_match", "run_matches"]
