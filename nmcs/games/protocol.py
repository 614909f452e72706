"""The one game protocol: what a game's modules must hold and what they may hold, as
``typing.Protocol`` classes (documentation and static checks; numba sees only the functions),
checked when a game registers (``check_kernels``, ``check_rules``): a missing kernel is named
in one line.

    GameKernels      the kernel module of a one-player game (``Game.kernels``, cells of
                     searches); its optional capabilities are ``CAPABILITIES``, which an
                     algorithm names in ``Algorithm.requires`` (NRPA: ``("code",)``)
    TwoPlayerRules   the rules module of a two-player game (cells of matches), which
                     ``nmcs.games.twoplayer.protocol`` combines into one jitted dispatcher
                     (the ``kernels`` of every two-player game's record)

All kernels are ``@njit(cache=True)`` functions taking the state (a 1-D numpy array holding
everything, so copying it copies the position) first. ``nmcs.search`` builds every algorithm
from them, so a new game needs no search code.
"""

from __future__ import annotations

import difflib
import inspect
from typing import Any, Protocol

import numpy as np

from nmcs.core.errors import PluginError

# The optional members of a one-player game's kernels, each what it enables (GameKernels).
CAPABILITIES = {
    "code": "a move's identity across positions: policy-learning searches (NRPA, GNRPA)",
    "bias": "GNRPA's prior bias of a move (none: 0)",
    "policy_moves": "the moves a policy-learning search's playouts choose from, with their codes, "
    "listed by the game (its playout rule, a faster listing): PolicyKernels",
    "target_score": "a score no game can beat: a search stops at the first game reaching it",
    "STATE_SIZE": "a fixed state length: states are copied by an unrolled loop",
    "POSITION_SIZE": "the leading state entries that identify a position (beam duplicates)",
    "RECORD_AT_RUN_TIME": "playouts take `record` at run time, so a long playout compiles once",
}


class GameKernels(Protocol):
    """What ``nmcs.search`` calls on a one-player game: the module ``Game.kernels`` of its
    record. Every kernel is a module-level ``@njit(cache=True)`` function taking the state (a
    1-D numpy array that holds the whole position, so that copying it copies the position)
    first; the game registers only if each member below is there, compiled, and takes these
    arguments (``check_kernels``: a one-line ``PluginError`` otherwise).

    The bounds are checked, not trusted: the searches size their buffers by
    ``max_branching(state0)`` and ``max_moves(state0)``, and a few random games from the
    position a run starts from are played through the kernels with buffers of those sizes
    before its first search (``nmcs.games.bounds``).

    Optional capabilities (``CAPABILITIES``; an algorithm names those it needs in
    ``Algorithm.requires``, and ``Game.capabilities()`` lists a game's):

    - ``code(state, move)``: a move's identity across positions (``CodedKernels``), which NRPA
      and GNRPA learn a weight for; they require it;
    - ``bias(state, move)``: GNRPA's prior bias beta of a move, a float (none: 0);
    - ``policy_moves`` and its four companions (``PolicyKernels``): the moves NRPA's and
      GNRPA's playouts choose from, with their codes, listed by the game (its playout rule, a
      faster listing than ``legal_moves`` and ``code``);
    - ``target_score(state)``: a score no game can beat (a solved puzzle), read once from the
      position a search starts from; a search stops at the first game that reaches it;
    - ``STATE_SIZE``: the length of every state, for a game whose state has a fixed size; the
      searches then copy states with a loop the compiler unrolls
      (``nmcs.search.anytime.state_copier``), which matters for small states (the tree
      problems' 3-4 entries), and nested search compiles its level 1 once with and once without
      memorization (``nmcs.search.nested.build_nested``), which matters when a playout takes
      nanoseconds;
    - ``POSITION_SIZE``: the leading state entries that identify a position, where the rest
      records how it was reached (Morpion's list of legal moves, in an order that depends on
      the history); beam search's ``algo.merge_duplicates`` compares positions on them
      (default: the whole state);
    - ``RECORD_AT_RUN_TIME``: True to have the searches pass ``record`` to ``playout`` as a
      run-time bool rather than a literal, so that a long playout compiles once
      (``nmcs.search.anytime.playout_caller``; SameGame).
    """

    NAME: str

    def max_moves(self, state: np.ndarray) -> int:
        """An upper bound on the number of moves of every game from ``state`` (checked)."""
        ...

    def max_branching(self, state: np.ndarray) -> int:
        """An upper bound on the number of legal moves of every position reachable from
        ``state`` (checked)."""
        ...

    def legal_moves(self, state: np.ndarray, out: np.ndarray) -> int:
        """Write the legal moves (int32 codes) into ``out``; return how many (0: game over)."""
        ...

    def play(self, state: np.ndarray, move: int) -> None:
        """Apply a legal move in place."""
        ...

    def score(self, state: np.ndarray) -> int:
        """Score of the position (the result when the game is over)."""
        ...

    def playout(self, state: np.ndarray, rng: np.ndarray, moves: np.ndarray, record: bool) -> int:
        """Play the game's playout policy to the end in place; return the number of moves;
        write them into ``moves`` only if ``record``. Must be a function of ``state`` and the
        ``rng`` words it draws (``nmcs.core.rng``): searches replay playouts from a saved
        generator word."""
        ...


class CodedKernels(GameKernels, Protocol):
    """The ``code`` capability (``CAPABILITIES``): what NRPA and GNRPA require of a game."""

    def code(self, state: np.ndarray, move: int) -> np.int64:
        """A move's identity across positions (a non-negative int64) for policy-learning
        searches (NRPA, GNRPA: ``nmcs.search.nrpa``): the same code in two positions means the
        same policy weight. Each game documents its code and the source of that coding in its
        module docstring. Optional kernel ``bias(state, move)`` (float64): GNRPA's prior bias
        beta of a move (none: 0)."""
        ...


class PolicyKernels(CodedKernels, Protocol):
    """The ``policy_moves`` capability (``CAPABILITIES``): the steps of the playouts of NRPA and
    GNRPA, given by the game rather than built from ``legal_moves``, ``code`` and ``play``
    (``nmcs.search.policy_steps``). A game gives them to restrict the moves its policy
    playouts choose from (a playout rule of the game's literature: SameGame's tabu colour)
    and to list the moves and their codes in one pass. Between ``policy_begin`` and
    ``policy_end`` only these kernels touch the state; ``policy_end`` leaves the position that
    ``play`` gives for the same moves. Optional constant ``POLICY_BETAS``: True if
    ``policy_moves`` writes betas (GNRPA's bias)."""

    def policy_scratch(self, state: np.ndarray) -> int:
        """Words (uint64) of the scratch buffer a playout from ``state`` needs."""
        ...

    def policy_begin(self, state: np.ndarray, scratch: np.ndarray) -> None:
        """A policy playout starts from ``state``."""
        ...

    def policy_moves(
        self,
        state: np.ndarray,
        scratch: np.ndarray,
        out: np.ndarray,
        codes: np.ndarray,
        betas: np.ndarray,
        biased: bool,
    ) -> int:
        """The moves the policy may choose from now, into ``out`` (moves of ``legal_moves``),
        ``codes`` (as ``code`` gives them) and, if ``biased``, ``betas``; how many (0: the game
        is over)."""
        ...

    def policy_play(self, state: np.ndarray, scratch: np.ndarray, move: int) -> None:
        """Play a move ``policy_moves`` listed."""
        ...

    def policy_end(self, state: np.ndarray, scratch: np.ndarray) -> None:
        """The playout is over: ``state`` becomes its final position."""
        ...


class TwoPlayerRules(Protocol):
    """What a two-player game's rules module holds (``nmcs.games.twoplayer.protocol`` documents
    each member, the optional ones too: ``MIN_ROWS``, ``MIN_COLS``, ``EXTRA_PLANES``,
    ``DRAWS``, ``random_move``, ``parsed``, ``move_name``, ``parse_move``)."""

    NAME: str
    DEFAULT_ROWS: int
    DEFAULT_COLS: int

    def fill_initial(self, state: np.ndarray) -> None: ...

    def legal_moves(self, state: np.ndarray, out: np.ndarray) -> int: ...

    def play(self, state: np.ndarray, move: int) -> None: ...

    def max_moves(self, state: np.ndarray) -> int: ...

    def rule_winner(self, state: np.ndarray) -> int: ...


def members(protocol: type) -> tuple[str, ...]:
    """The names a module must hold to follow ``protocol``: its annotated constants and its
    methods, in the order written."""
    names = list(getattr(protocol, "__annotations__", {}))
    names += [n for n, v in vars(protocol).items() if callable(v) and not n.startswith("_")]
    return tuple(dict.fromkeys(names))


def missing(module: Any, protocol: type) -> list[str]:
    """The members of ``protocol`` that ``module`` lacks."""
    return [name for name in members(protocol) if not hasattr(module, name)]


# Optional kernels described in the docstrings above rather than as protocol methods, with
# their arguments.
OPTIONAL_KERNELS = {"target_score": ("state",), "bias": ("state", "move")}


def check_kernels(record: Any) -> None:
    """PluginError (one line naming the game, its kernel module's file and the fix) unless
    the game record's kernels follow the protocol of its kind: a one-player game's
    (``cells="searches"``) ``GameKernels`` and the protocols of the capabilities it has, each
    kernel compiled by numba and taking the protocol's arguments, ``NAME`` the record's name;
    a two-player game's rules are checked when they join the dispatcher
    (``nmcs.games.twoplayer.protocol.add_game``, ``TwoPlayerRules``)."""
    if record.cells != "searches":
        return
    kernels = record.kernels
    where = f"game {record.name} ({getattr(kernels, '__file__', None) or kernels.__name__})"
    lacking = missing(kernels, GameKernels)
    if hasattr(kernels, "policy_moves"):
        lacking += missing(kernels, PolicyKernels)
    if lacking:
        raise PluginError(
            f"{where}: kernels {kernels.__name__} lack {', '.join(lacking)}"
            f"{_misspelt(kernels, lacking)}; define them as nmcs.games.protocol.GameKernels says"
        )
    if kernels.NAME != record.name:
        raise PluginError(
            f"{where}: NAME = {kernels.NAME!r} in {kernels.__name__}, the record's name is "
            f"{record.name!r}; make them the same"
        )
    for name, arguments in _kernel_arguments(kernels).items():
        said = _kernel_problem(getattr(kernels, name), arguments)
        if said:
            raise PluginError(f"{where}: {name} {said}")


def _kernel_arguments(kernels: Any) -> dict[str, tuple[str, ...]]:
    """The kernels ``kernels`` holds, each with the arguments its protocol gives it."""
    found: dict[str, tuple[str, ...]] = {}
    for protocol in (GameKernels, CodedKernels, PolicyKernels):
        for name, method in vars(protocol).items():
            if callable(method) and not name.startswith("_") and hasattr(kernels, name):
                found[name] = tuple(inspect.signature(method).parameters)[1:]  # not self
    found.update({k: v for k, v in OPTIONAL_KERNELS.items() if hasattr(kernels, k)})
    return found


def _kernel_problem(kernel: Any, arguments: tuple[str, ...]) -> str | None:
    """What is wrong with one kernel (not compiled, other arguments), or None."""
    shown = f"({', '.join(arguments)})"
    if not hasattr(kernel, "py_func"):
        return f"is not compiled by numba: decorate it with @njit(cache=True) (it takes {shown})"
    parameters = inspect.signature(kernel.py_func).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
        return None
    total = len(parameters)
    required = sum(1 for p in parameters if p.default is p.empty)
    if required <= len(arguments) <= total:
        return None
    takes = ", ".join(p.name for p in parameters)
    return f"takes ({takes}); the protocol calls it with {shown}: give it those arguments"


def _misspelt(module: Any, lacking: list[str]) -> str:
    """`` (found legal_move: misspelt?)`` for a name of ``module`` close to a lacking one."""
    names = [n for n in vars(module) if n not in members(GameKernels) + members(PolicyKernels)]
    found = [
        f"{close[0]} for {name}"
        for name in lacking
        if (close := difflib.get_close_matches(name, names, n=1, cutoff=0.8))
    ]
    return f" (found {', '.join(found)}: misspelt?)" if found else ""
