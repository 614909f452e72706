"""The reference pages of the documentation site, generated when the site is built.

An MkDocs hook (``hooks:`` in ``mkdocs.yml``): ``on_files`` adds five pages that nobody edits
by hand, so they cannot drift from the code:

- ``reference/config.md``: every top-level config key, with its type (the schema's dataclasses),
  its default (the composed ``conf/config.yaml``), what the validation refuses and its comment
  in the YAML;
- ``reference/games.md`` and ``reference/algorithms.md``: every registered game and algorithm,
  each option with its type, default (the YAML's, composed), range and meaning (the comment
  beside its default in the options dataclass, ``nmcs.core.options``);
- ``reference/results.md``: the columns of a cell's ``results.parquet`` (built by the cells' own
  ``rows`` methods) with what each holds;
- ``reference/api.md``: every name of ``nmcs.__all__``, for mkdocstrings to document, then the
  game protocol's optional capabilities and what a game module uses beyond ``nmcs.__all__``;

and the published paper-scale report (``results/paper``: ``REPRODUCTION.md``, ``RUNS.md``,
``RECORDS.md``, the figures and the record games' pictures) under ``published/``, as committed.

The range of a key is what ``run.py``'s pre-flight check answers when the key is given a value
out of every range (-1, ``[-1]`` or ``"?"``): the real check's own words, not a copy of it. Only
the registries' public functions (``names``, ``game``, ``algorithm``, ``option_names``) and
the records' option dataclasses are read here, so a refactor of the registries changes this one
module at most. ``tests/test_docs.py`` checks that every game and algorithm is named with its
options, and builds the site with ``mkdocs build --strict``.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "conf"
# A value out of every range, by the type of a key: what the pre-flight check is asked about.
PROBES: dict[type, str] = {int: "-1", float: "-1", str: "?", list: "[-1]"}
# A cell of each kind that validates as it stands (the keys a search or a match cell needs).
SEARCH_CELL: list[str] = []
MATCH_CELL = ["experiment=twoplayer_matches"]

# What each column of results.parquet holds. tests/test_docs.py checks that these are exactly the
# columns the cells write, so a new column without a line here fails the tests.
SEARCH_COLUMNS = {
    "experiment": "the experiment (`experiment_name`): the results folder under `outputs/<scale>/`",
    "cell": "a hash of the cell's identity: its config without `n_searches` and the worker "
    "settings (`workers`, `progress`, `chunk_seconds`, `scale`)",
    "game": "the game (`game=`)",
    "instance": "the game's `instance` option (a position of a test set) where it has one, "
    "else the same as `game_options`",
    "game_options": "all the game's options as one string",
    "algo": "the algorithm (`algo=`)",
    "algo_options": "the algorithm's options as one string, for display",
    "level": "the search level",
    "memorize": "whether the search memorizes its best sequence",
    "memorize_from": "with `memorize`: the lowest level that memorizes",
    "stop_at_target": "whether a search stops at the first playout that reaches the game's "
    "target score",
    "parallel_backend": "`none` (threads) or `dask` (one search over Dask workers)",
    "budget_seconds": "the budget in seconds; null where none was set",
    "budget_playouts": "the budget in playouts; null where none was set",
    "seed": "the cell's base seed (`seed=`)",
    "search": "the search's index *i* in its cell",
    "search_seed": "the search's own seed, drawn from `SeedSequence([seed, i])`",
    "score": "the score of the best game found",
    "length": "the number of moves of that game",
    "playouts": "the playouts the search started (replays not counted)",
    "playout_moves": "the moves played inside those playouts",
    "seconds": "the wall time of the search",
    "cpu_seconds": "CPU seconds of the search's own thread (`time.thread_time`); NaN in rows "
    "published before it was recorded. A search spread over Dask workers "
    "(`parallel_backend` `dask`): the master process's CPU time plus its remote searches' "
    "thread CPU time on the workers",
    "moves": "the best game's moves from the initial position (the game's own integer codes)",
    "trace_seconds": "anytime trace (iterative searches): the time of each improvement",
    "trace_playouts": "anytime trace: the playouts at each improvement",
    "trace_score": "anytime trace: the best score after each improvement",
}
MATCH_COLUMNS = {
    "experiment": SEARCH_COLUMNS["experiment"],
    "cell": "a hash of the cell's identity: its config without `n_matches` and the worker settings",
    "kind": "`matches`",
    "game": "the game (`game=`)",
    "game_options": "all the game's options as one string",
    "rows": "the board's rows",
    "cols": "the board's columns",
    "misere": "whether the rule winner loses (the misere version)",
    "player_a": "player A's label (e.g. `NMC(1)+COW`)",
    "player_b": "player B's label",
    "budget_playouts": "the budget per move in random playouts; null where none was set",
    "budget_ms": "the budget per move in milliseconds; null where none was set",
    "seed": "the cell's base seed (`seed=`)",
    "match": "the match's index in its cell",
    "search": "the same as `match` (the index every reader of results keys on)",
    "match_seed": "the match's own seed",
    "a_first": "whether player A moved first (colours alternate)",
    "winner": "`a`, `b` or `draw`",
    "outcome_a": "+1, 0 or -1 for player A",
    "length": "the number of moves of the match",
    "moves": "the moves of the match",
    "seconds": "the time of each move",
    "playouts": "the random playouts of each move",
    "a_seconds_per_move": "player A's time per move",
    "b_seconds_per_move": "player B's time per move",
    "a_playouts_per_move": "player A's playouts per move",
    "b_playouts_per_move": "player B's playouts per move",
    "wall_seconds": "the wall time of the match",
    "final": "the final position, drawn as text",
}


# ---------------------------------------------------------------- reading the sources


def yaml_comments(path: Path) -> tuple[str, dict[str, str]]:
    """The header comment of a config file (before its first key, ``# @package`` lines left
    out) and the comment of each key (dotted for nested keys), continuation lines included."""
    header: list[str] = []
    comments: dict[str, str] = {}
    stack: list[tuple[int, str]] = []  # (indent, key) of the keys that enclose the next line
    last: str | None = None
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if stripped.startswith("#"):
            text = stripped.lstrip("#").strip()
            if last is None and not stack and not text.startswith("@package"):
                header.append(text)
            elif last is not None and indent > 0 and comments.get(last):
                comments[last] += " " + text  # a comment continued under its key's
            continue
        found = re.match(r"([\w]+):\s*(.*)$", stripped)
        if not found:
            last = None
            continue
        while stack and stack[-1][0] >= indent:
            stack.pop()
        key = ".".join([k for _, k in stack] + [found.group(1)])
        stack.append((indent, found.group(1)))
        comment = found.group(2).partition(" #")[2] if " #" in found.group(2) else ""
        if found.group(2).startswith("#"):
            comment = found.group(2).lstrip("#")
        comments[key] = comment.strip()
        last = key
    return " ".join(header), comments


def prose(header: str) -> str:
    """A config file's header comment as Markdown: its ``python run.py`` examples as code."""
    text, _, example = header.partition("python run.py")
    if not example:
        return header
    return f"{text.strip()}\n\n```bash\npython run.py{example}\n```"


def type_name(annotation: Any) -> str:
    """A field's type as a user writes its value: ``int``, ``float or null``, ``list of int``."""
    if isinstance(annotation, str):
        return annotation.replace("| None", "or null").replace("None |", "null or").strip()
    args = typing.get_args(annotation)
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " or ".join(type_name(a) for a in rest) + " or null"
    if typing.get_origin(annotation) in (list, tuple):
        inner = {type_name(a) for a in args if a is not Ellipsis}
        return "list of " + (" or ".join(sorted(inner)) or "values")
    if annotation is Any:
        return "config group"
    return getattr(annotation, "__name__", str(annotation))


def _probe_value(annotation: Any) -> str | None:
    """The out-of-range value given to a key of this type, or None (booleans, config groups)."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    args = [a for a in typing.get_args(annotation) if a is not type(None)] if union else []
    for arg in args or [annotation]:
        base = typing.get_origin(arg) or arg
        if base is bool:
            return None
        if base in PROBES:
            return PROBES[base]
    return None


class Checker:
    """Asks the pre-flight check of ``run.py`` (compose, then validate) about one cell."""

    def __init__(self) -> None:
        from hydra import initialize_config_dir

        from nmcs.harness import cli

        cli.register()
        self._context = initialize_config_dir(config_dir=str(CONF), version_base="1.3")

    def __enter__(self) -> Checker:
        self._context.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._context.__exit__(*exc)

    def compose(self, overrides: list[str]) -> Any:
        from hydra import compose

        return compose("config", overrides=overrides)

    def refusal(self, overrides: list[str]) -> str | None:
        """The one line the check prints for these overrides, or None if it accepts them."""
        from nmcs.harness.cli import one_line
        from nmcs.harness.validate import validate

        try:
            validate(self.compose(overrides))
        except Exception as error:  # noqa: BLE001 - every refusal is one line
            return one_line(error, overrides)
        return None

    def allowed(self, key: str, annotation: Any, cell: list[str]) -> str:
        """What the check says of ``key`` given a value out of every range."""
        if _probe_value(annotation) is None:
            return "`true` or `false`" if bool in _flat_args(annotation) else ""
        said = self.refusal(cell + [f"{key}={_probe_value(annotation)}"])
        return "any" if said is None else said


def _flat_args(annotation: Any) -> list[Any]:
    """The members of a union type (``int | None``), or the type itself."""
    union = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    return list(typing.get_args(annotation)) if union else [annotation]


def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - a plugin's annotations may not resolve here
        return {f.name: f.type for f in dataclasses.fields(cls)}


def _value(node: Any, key: str) -> Any:
    from omegaconf import OmegaConf

    value = OmegaConf.select(node, key, throw_on_missing=False)
    return OmegaConf.to_container(value) if OmegaConf.is_config(value) else value


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def option_rows(
    checker: Checker,
    prefix: str,
    cls: type,
    cell: list[str],
    yaml: Path,
    meanings: dict[str, str] | None = None,
) -> list[tuple[str, str, str, str, str]]:
    """(key, type, default, refusal, meaning) for every field of an options dataclass but
    ``name``, defaults as composed from the group's YAML file. The meaning is the comment
    beside the field's default in the dataclass (``nmcs.core.options``), or, given
    ``meanings``, that (a player preset's keys: the comments of its YAML file). A record
    registered from elsewhere (``NMCS_PLUGINS``) whose YAML is not in ``conf/`` gets its
    dataclass's defaults and no range (``run.py`` would need the plugin's config folder to
    check it)."""
    from nmcs.core.options import option_meanings

    listed = yaml.exists()
    comments = option_meanings(cls) if meanings is None else meanings
    node = checker.compose(cell) if listed else None
    hints = _hints(cls)
    rows = []
    for field in dataclasses.fields(cls):
        if field.name == "name":
            continue
        key = f"{prefix}.{field.name}"
        default = _value(node, key) if listed else getattr(cls(), field.name)
        rows.append(
            (
                f"`{key}`",
                type_name(hints[field.name]),
                f"`{_show(list(default) if isinstance(default, tuple) else default)}`",
                checker.allowed(key, hints[field.name], cell) if listed else "",
                comments.get(field.name, ""),
            )
        )
    return rows


def header_of(yaml: Path, record_class: type) -> str:
    """What a game or an algorithm is: its YAML file's header comment, else (a record
    registered from outside ``conf/``) its options dataclass's docstring."""
    if yaml.exists():
        return prose(yaml_comments(yaml)[0])
    return (record_class.__doc__ or "").strip()


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(x) for x in row) + " |" for row in rows]
    return "\n".join(lines)


# The config groups of the top level, each a folder of conf/, and where the site describes them.
GROUPS = ("game", "algo", "scale", "experiment")
GROUP_PAGES = {
    "game": ": [Games](games.md)",
    "algo": ": [Algorithms](algorithms.md)",
    "scale": ": quick (a pipeline check) or paper",
    "experiment": ": a paper experiment with its own sweep ([Experiments](../experiments.md))",
}
OPTION_HEADER = ("key", "type", "default", "range, in the check's words", "meaning")
GENERATED = "*Generated from the code when the site is built; do not edit.*"


# ---------------------------------------------------------------- the pages


def _top_level_keys() -> Iterator[tuple[str, Any]]:
    """Every scalar key of the schema's top level, nested dataclasses as dotted keys."""
    from nmcs.harness.schema import Config

    for field in dataclasses.fields(Config):
        annotation = _hints(Config)[field.name]
        inner = [
            a for a in _flat_args(annotation) if isinstance(a, type) and dataclasses.is_dataclass(a)
        ]
        if inner:
            for sub in dataclasses.fields(inner[0]):
                yield f"{field.name}.{sub.name}", _hints(inner[0])[sub.name]
        else:
            yield field.name, annotation


def config_page() -> str:
    from nmcs.harness.schema import Config

    _, comments = yaml_comments(CONF / "config.yaml")
    rows = []
    with Checker() as checker:
        node = checker.compose(SEARCH_CELL)
        for group in GROUPS:
            choices = sorted(p.stem for p in (CONF / group).glob("*.yaml"))
            default = _value(node, f"{group}.name") if group != "experiment" else None
            where = GROUP_PAGES.get(group, "")
            rows.append(
                (
                    f"`{group}`",
                    "config group",
                    f"`{_show(default)}`",
                    "one of " + ", ".join(f"`{c}`" for c in choices),
                    f"`conf/{group}/`{where}",
                )
            )
        for key, annotation in _top_level_keys():
            if key.startswith(("player_", "n_matches")) or key.split(".")[0] in GROUPS:
                continue
            default = f"`{_show(_value(node, key))}`"
            cell = ["algo=iterative"] if key.startswith("budget.") else SEARCH_CELL
            if key == "budget.ms":
                cell = MATCH_CELL
            allowed = checker.allowed(key, annotation, cell)
            rows.append(
                (f"`{key}`", type_name(annotation), default, allowed, comments.get(key, ""))
            )
        preset = _preset_yaml()
        player = option_rows(
            checker, "player_a", _player_schema(), MATCH_CELL, preset, yaml_comments(preset)[1]
        )
    n_matches = [f for f in dataclasses.fields(Config) if f.name == "n_matches"]
    return "\n\n".join(
        [
            "# Configuration keys",
            GENERATED,
            "The top-level keys of `python run.py` (`conf/config.yaml`; types from the schema "
            "`nmcs.harness.schema.Config`). `n_searches` is by scale: "
            "`${by_scale:quick,paper}`. The range is what `run.py` answers, before any "
            "search runs, when the key is given a value out of every range (-1, `[-1]` or "
            '`"?"`); options of the game and the algorithm are in [Games](games.md) and '
            "[Algorithms](algorithms.md).",
            table(OPTION_HEADER, rows),
            "## Match cells (two-player games)",
            "A two-player game's cells are matches (`experiment=twoplayer_matches`): "
            f"`{n_matches[0].name}` matches per cell, a budget per move (`budget.playouts` "
            "and/or `budget.ms`), and two players, `player_a` and `player_b`, each a preset "
            "of `conf/player_a/` with these keys (defaults: the preset "
            f"`{_preset_yaml().stem}` that `experiment=twoplayer_matches` gives player A):",
            table(OPTION_HEADER, player),
        ]
    )


def _preset_yaml() -> Path:
    """The player preset that the match experiment gives player A (its defaults list)."""
    text = (CONF / "experiment" / "twoplayer_matches.yaml").read_text()
    [name] = re.findall(r"/player_a:\s*(\w+)", text)
    return CONF / "player_a" / f"{name}.yaml"


def _player_schema() -> type:
    from nmcs.harness.schema import Config

    [schema] = [
        a
        for a in _flat_args(_hints(Config)["player_a"])
        if dataclasses.is_dataclass(a) and isinstance(a, type)
    ]
    return schema


def games_page() -> str:
    from nmcs.games import registry

    sections = [
        "# Games",
        GENERATED,
        "Every registered game (`nmcs.games.registry`), in `game=` order, with its options "
        "(`game.*` keys, `conf/game/<name>.yaml`).",
    ]
    with Checker() as checker:
        for name in registry.names():
            record = registry.game(name)
            yaml = CONF / "game" / f"{name}.yaml"
            matches = record.cells == "matches"
            cell = (MATCH_CELL if matches else SEARCH_CELL) + [f"game={name}"]
            kind = "two-player: its cells are matches" if matches else "its cells are searches"
            kernels = f"Kernels: `{record.kernels.__name__}`; {kind}."
            sections += [
                f"## `{name}`",
                f"{header_of(yaml, record.options)}\n\n{kernels}",
                table(OPTION_HEADER, option_rows(checker, "game", record.options, cell, yaml)),
            ]
    return "\n\n".join(sections)


def _budget(record: Any) -> str:
    needs = record.needs_budget
    if needs is True:
        return "needs `budget.seconds` and/or `budget.playouts`"
    if needs is None:
        return "runs to completion; a budget, if given, repeats and cuts it"
    return "runs to completion and takes no budget"


def algorithms_page() -> str:
    from nmcs.search import registry

    sections = [
        "# Algorithms",
        GENERATED,
        "Every registered algorithm (`nmcs.search.registry`), in `algo=` order, with its "
        "options (`algo.*` keys, `conf/algo/<name>.yaml`). Every algorithm also reads the "
        "top-level `level`, `memorize` and `budget.*` keys ([Configuration](config.md)).",
    ]
    with Checker() as checker:
        for name in registry.names():
            record = registry.algorithm(name)
            yaml = CONF / "algo" / f"{name}.yaml"
            cell = [f"algo={name}"]
            if record.games:
                cell.append(f"game={record.games[0]}")
            if record.needs_budget is True:
                cell.append("budget.playouts=100")
            facts = [
                _budget(record),
                f"levels 0 to {record.max_level}",
                "writes an anytime trace" if record.writes_trace else "no anytime trace",
                "games: " + (", ".join(f"`{g}`" for g in record.games) if record.games else "all"),
            ]
            rows = option_rows(checker, "algo", record.config, cell, yaml)
            sections += [
                f"## `{name}`",
                header_of(yaml, record.config) + "\n\n" + "; ".join(facts).capitalize() + ".",
                table(OPTION_HEADER, rows) if rows else "No options of its own.",
            ]
    return "\n\n".join(sections)


def result_columns() -> dict[str, list[str]]:
    """The columns a search cell and a match cell write, from their own ``rows`` methods."""
    from nmcs.harness.batch import BatchResult
    from nmcs.harness.match_cell import MatchCell
    from nmcs.harness.search_cell import SearchCell
    from nmcs.harness.validate import validate

    with Checker() as checker:
        search = validate(checker.compose(SEARCH_CELL))
        match = validate(checker.compose(MATCH_CELL))
    assert isinstance(search, SearchCell) and isinstance(match, MatchCell)
    one = BatchResult(
        seed=np.zeros(1, np.uint64),
        score=np.zeros(1, np.int64),
        length=np.zeros(1, np.int64),
        playouts=np.zeros(1, np.int64),
        playout_moves=np.zeros(1, np.int64),
        seconds=np.zeros(1),
        cpu_seconds=np.zeros(1),
        moves=[np.zeros(0, np.int32)],
        trace=[np.zeros((0, 3))],
    )
    return {
        "searches": list(search.rows("cell", [0], one).columns),
        "matches": list(match.rows("cell", []).columns),
    }


def results_page() -> str:
    from nmcs.games import registry as games
    from nmcs.search import registry as algorithms

    columns = result_columns()
    game_options = {
        k
        for n in games.names()
        if games.game(n).cells == "searches"
        for k in games.game(n).option_names()
    }
    search_rows = [(f"`{c}`", SEARCH_COLUMNS.get(c, "")) for c in _search(columns)]
    return "\n\n".join(
        [
            "# Result columns",
            GENERATED,
            "`results.parquet` of a cell holds one row per search (per match for a two-player "
            "game). Read it with `nmcs.read_results`, which keeps each `(cell, search)` once "
            "whatever folders hold it.",
            "## Search cells",
            table(("column", "holds"), search_rows),
            "Beside these, one column per game option (named as the option: "
            + ", ".join(f"`{k}`" for k in sorted(game_options - {"instance"}))
            + ") and one typed column per algorithm option, `algo_<key>` ("
            + ", ".join(
                sorted(
                    {
                        f"`algo_{k}`"
                        for n in algorithms.names()
                        for k in algorithms.algorithm(n).option_names()
                    }
                )
            )
            + ").",
            "## Match cells",
            table(("column", "holds"), [(f"`{c}`", MATCH_COLUMNS[c]) for c in _match(columns)]),
            "Beside these, `a_<key>` and `b_<key>` for every player key "
            "([Configuration](config.md#match-cells-two-player-games)).",
        ]
    )


def _search(columns: dict[str, list[str]]) -> list[str]:
    """The search columns but those of the default cell's game and algorithm options."""
    from nmcs.harness.search_cell import SearchCell
    from nmcs.harness.validate import validate

    with Checker() as checker:
        cell = validate(checker.compose(SEARCH_CELL))
    assert isinstance(cell, SearchCell)
    options = set(cell.game.option_names()) | set(cell.option_columns)
    return [c for c in columns["searches"] if c not in options - {"instance"}]


def _match(columns: dict[str, list[str]]) -> list[str]:
    player = {f.name for f in dataclasses.fields(_player_schema())}
    return [c for c in columns["matches"] if not (c[:2] in ("a_", "b_") and c[2:] in player)]


def api_page() -> str:
    """Every name of ``nmcs.__all__``, documented from its docstring by mkdocstrings where it is
    defined (the package imports them on first use)."""
    import nmcs

    exports: dict[str, str] = getattr(nmcs, "_EXPORTS", {})
    entries = [
        f"::: {exports.get(name, 'nmcs')}.{name}\n    options:\n      heading_level: 2\n"
        f"      show_root_full_path: false"
        for name in nmcs.__all__
        if not name.startswith("_")
    ]
    return "\n\n".join(
        [
            "# Python API",
            GENERATED,
            "The public package: `import nmcs` gives every name below (`nmcs.__all__`), imported "
            "on first use, so that reading results needs neither numba nor Hydra.",
            *entries,
            *extension_section(),
        ]
    )


# What a game module uses beyond nmcs.__all__ (the guide, docs/howto/add-game.md, names them).
EXTENSION_NAMES = (
    "nmcs.games.protocol.CodedKernels",
    "nmcs.games.protocol.PolicyKernels",
    "nmcs.games.registry.register",
    "nmcs.games.registry.checked_options",
)


def extension_section() -> list[str]:
    """The game protocol's optional capabilities (``CAPABILITIES``, what each enables) and
    the protocols and functions a game module uses beyond ``nmcs.__all__``."""
    from nmcs.games.protocol import CAPABILITIES

    rows = [(f"`{name}`", what) for name, what in CAPABILITIES.items()]
    entries = [
        f"::: {name}\n    options:\n      heading_level: 3\n      show_root_full_path: true"
        for name in EXTENSION_NAMES
    ]
    return [
        "## Writing a game: the protocol's capabilities",
        "A game's kernels hold the members of `GameKernels` (above) and may hold these "
        "optional capabilities (`nmcs.games.protocol.CAPABILITIES`); an algorithm names those "
        "it needs in `Algorithm.requires` ([Add a game](../howto/add-game.md)).",
        table(("capability", "what it enables"), rows),
        *entries,
    ]


PAGES: dict[str, Callable[[], str]] = {
    "reference/config.md": config_page,
    "reference/games.md": games_page,
    "reference/algorithms.md": algorithms_page,
    "reference/results.md": results_page,
    "reference/api.md": api_page,
}


# The published paper-scale report, its list of runs and its figures, served as they are.
PUBLISHED = ROOT / "results" / "paper"


def on_files(files: Any, config: Any) -> Any:
    """MkDocs hook: add the generated pages and the published report to the site's files."""
    from mkdocs.structure.files import File

    for path, make in PAGES.items():
        files.append(File.generated(config, path, content=make() + "\n"))
    for name in ("REPRODUCTION.md", "RUNS.md", "RECORDS.md"):
        files.append(
            File.generated(config, f"published/{name}", abs_src_path=str(PUBLISHED / name))
        )
    # The figures, and the pictures RECORDS.md links to (its record games').
    records = PUBLISHED / "RECORDS.md"
    linked = re.findall(r"\]\(([^)\s]+\.png)\)", records.read_text()) if records.exists() else []
    pictures = {*(PUBLISHED / "figures").glob("*.png"), *(PUBLISHED / link for link in linked)}
    for picture in sorted(p for p in pictures if p.is_file()):
        src = f"published/{picture.relative_to(PUBLISHED).as_posix()}"
        files.append(File.generated(config, src, abs_src_path=str(picture)))
    return files
