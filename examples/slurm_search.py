"""One search over 64 Slurm jobs: dask-jobqueue starts the workers, the master plays the top
level here (docs: Run on a cluster). Needs ``pip install dask-jobqueue`` and a Slurm cluster;
the tests skip it where dask-jobqueue is not installed."""

from dask_jobqueue import SLURMCluster  # pip install dask-jobqueue

from nmcs.games import game_module
from nmcs.harness.parallel import parallel_search

if __name__ == "__main__":
    cluster = SLURMCluster(cores=1, processes=1, memory="2GB", walltime="04:00:00")
    cluster.scale(jobs=64)
    state0 = game_module("morpion").make_state()
    res = parallel_search("morpion", state0, seed=1, level=4, address=cluster.scheduler_address)
    print(res.score, len(res.moves), res.stopped)
