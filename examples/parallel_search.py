"""One search spread over Dask workers: root-parallel NMCS on Morpion, on an embedded
LocalCluster of two worker processes (docs: Run on a cluster)."""

from nmcs.games import game_module
from nmcs.harness.parallel import parallel_search

if __name__ == "__main__":  # Dask starts worker processes: a script needs this guard
    state0 = game_module("morpion").make_state()
    res = parallel_search("morpion", state0, seed=1, level=2, workers=2)  # root-parallel NMCS
    print(res.score, len(res.moves), res.stopped)  # "finished", or the budget that stopped it
    # At scale: level=4, workers=64; top_width=4 for a beam of 4 at the top;
    # address="tcp://host:8786" to use a running scheduler instead of a local cluster.
