"""The master of a parallel search (Monte-Carlo Beam Search, Cazenave 2012, Algorithms 3-4; the
parallel NMCS of Cazenave and Jouandeau 2009): the master plays the top level and sends every
child position to a remote worker, which runs the lower-level search and sends back the best
game it found.

``master_search(game, state0, seed, top_width, lower, executor, ...)`` runs the top level of a
beam search of width ``top_width`` (``top_width = 1``: the top level of NMCS with memorization,
i.e. root-parallel NMCS). ``lower(state, seed) -> (score, moves, playouts, playout_moves,
cpu_seconds)`` is the lower-level search, run by ``executor`` (``nmcs.search.executors``: in this
process, or on Dask workers); ``cpu_seconds`` is the CPU time of the thread that ran it, summed
into the result's ``remote_cpu_seconds``.

Results do not depend on the executor or the number of workers: each child's search is seeded
from its place in the tree (the search seed, the step, the child's index in the step), and the
master's own tie-breaking draws come from a generator seeded by the search seed alone. Ties
follow ``nmcs.search.beam``: a memorized position beats a child of equal score, equal children
are ordered uniformly at random.

Budgets: ``max_seconds`` and/or ``max_playouts`` (0 = none) and ``stop_score`` (stop at the
first game with at least this score). When one is reached the master cancels the outstanding
remote searches and returns the best game found so far; ``stopped`` says why.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from nmcs.search.executors import Executor


@dataclass
class MasterResult:
    score: int
    moves: np.ndarray
    playouts: int
    playout_moves: int  # moves played inside the children's playouts
    seconds: float
    steps: int
    stopped: str  # "finished", "seconds", "playouts" or "score"
    trace: list = field(default_factory=list)  # (seconds, playouts, best score) at improvements
    remote_cpu_seconds: float = 0.0  # the CPU seconds the lower searches reported, summed


def child_seed(seed: int, step: int, index: int) -> int:
    """The seed of the search of child ``index`` of ``step``: a function of its place only."""
    return int(np.random.SeedSequence([int(seed), step, index]).generate_state(1, np.uint64)[0])


@dataclass
class _Entry:
    state: np.ndarray | None  # None: a finished game, kept only for its moves and score
    game: np.ndarray  # best game from the search's start position (prefix included)
    pos: int  # moves played to reach ``state``
    score: int | None  # None: no game found from ``state`` yet


def master_search(
    game,
    state0: np.ndarray,
    seed: int,
    top_width: int,
    lower: Callable,
    executor: Executor,
    max_seconds: float = 0.0,
    max_playouts: int = 0,
    stop_score: int | None = None,
) -> MasterResult:
    """The top level of a parallel beam search from ``state0`` (see the module docstring)."""
    if top_width < 1:
        raise ValueError(f"top_width = {top_width}: must be >= 1")
    start = time.perf_counter()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([int(seed), 0x6D6173])))
    legal = np.empty(int(game.max_branching(state0)), np.int32)
    beam = [_Entry(state0.copy(), np.empty(0, np.int32), 0, None)]
    best: _Entry | None = None
    playouts = playout_moves = 0
    remote_cpu = 0.0
    trace = []
    stopped = "finished"
    step = 0
    child_seconds = None  # the mean search time of a child in the previous step
    while True:
        # Every child of every beam position, searched remotely.
        jobs = []
        for b, entry in enumerate(beam):
            assert entry.state is not None  # beam entries are positions
            n = int(game.legal_moves(entry.state, legal))
            for i in range(n):
                child = entry.state.copy()
                game.play(child, legal[i])
                jobs.append((b, int(legal[i]), child))
        if not jobs:
            break
        # A task is a chunk of children (one per child in this process), so that a worker's
        # round trip costs little beside its searches.
        n_tasks = executor.tasks_per_step(len(jobs), child_seconds)
        chunks = np.array_split(np.arange(len(jobs)), n_tasks)
        chunks = [c for c in chunks if len(c)]
        futures = [
            executor.submit(
                search_children,
                lower,
                [(jobs[j][2], child_seed(seed, step, int(j))) for j in chunk],
            )
            for chunk in chunks
        ]
        results: list[tuple[int, np.ndarray] | None] = [None] * len(jobs)
        searched = 0.0
        for c, (found, seconds) in executor.as_completed(futures):
            searched += seconds
            for j, (score, moves, used, used_moves, cpu) in zip(chunks[c], found, strict=True):
                found_score, found_moves = int(score), np.asarray(moves, np.int32)
                results[j] = (found_score, found_moves)
                playouts += int(used)
                playout_moves += int(used_moves)
                remote_cpu += float(cpu)
                b, move, _ = jobs[j]
                parent = beam[b]
                if best is None or best.score is None or found_score > best.score:
                    game_moves = np.concatenate(
                        [parent.game[: parent.pos], [move], found_moves]
                    ).astype(np.int32)
                    best = _Entry(None, game_moves, 0, found_score)
                    trace.append((time.perf_counter() - start, playouts, found_score))
            assert best is not None and best.score is not None  # a chunk holds a child
            stopped = _budget_reached(
                start, playouts, best.score, max_seconds, max_playouts, stop_score
            )
            if stopped != "finished":
                executor.cancel(futures)
                break
        if stopped != "finished":
            break
        child_seconds = searched / len(jobs)
        beam = _next_beam(game, beam, jobs, results, top_width, rng)
        step += 1
    if stopped == "finished":
        # The best game of the final beam (earlier positions win ties), as the kernel returns.
        finals = [(e.score, -i, e) for i, e in enumerate(beam) if e.score is not None]
        best = max(finals, key=lambda f: (f[0], f[1]))[2] if finals else None
    if best is None:  # the start position was terminal
        best = _Entry(None, np.empty(0, np.int32), 0, int(game.score(state0)))
    assert best.score is not None
    return MasterResult(
        score=best.score,
        moves=best.game,
        playouts=playouts,
        playout_moves=playout_moves,
        seconds=time.perf_counter() - start,
        steps=step,
        stopped=stopped,
        trace=trace,
        remote_cpu_seconds=remote_cpu,
    )


def search_children(lower: Callable, children: list) -> tuple[list, float]:
    """Algorithm 4 for a chunk of children: each (position, seed) searched by ``lower``; also
    the seconds it took (the master sizes the next step's tasks by it)."""
    start = time.perf_counter()
    found = [lower(state, seed) for state, seed in children]
    return found, time.perf_counter() - start


def _budget_reached(start, playouts, best_score, max_seconds, max_playouts, stop_score):
    if stop_score is not None and best_score >= stop_score:
        return "score"
    if max_playouts > 0 and playouts >= max_playouts:
        return "playouts"
    if max_seconds > 0 and time.perf_counter() - start >= max_seconds:
        return "seconds"
    return "finished"


def _next_beam(game, beam, jobs, results, width, rng):
    """The best ``width`` of the memorized positions and the children (see the module
    docstring for the order of ties)."""
    ranked = []
    for b, entry in enumerate(beam):
        if entry.score is None:
            continue  # the start position has no game yet
        state = entry.state.copy()
        pos = entry.pos
        if pos < len(entry.game):
            game.play(state, entry.game[pos])
            pos += 1
        ranked.append((-entry.score, 0, b, _Entry(state, entry.game, pos, entry.score)))
    order = rng.permutation(len(jobs))  # equal children in random order
    for rank, j in enumerate(order):
        b, move, child = jobs[j]
        parent = beam[b]
        score, moves = results[j]
        full = np.concatenate([parent.game[: parent.pos], [move], moves]).astype(np.int32)
        ranked.append((-score, 1, rank, _Entry(child, full, parent.pos + 1, score)))
    ranked.sort(key=lambda r: r[:3])
    return [entry for *_, entry in ranked[:width]]
