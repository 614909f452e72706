"""What each option of an options dataclass means, read from the one place it is written: the
comment beside its default.

A game's options (``Game.options``) and an algorithm's (``Algorithm.config``) are dataclasses
whose fields are the ``game.*`` and ``algo.*`` keys. Each field's meaning is the comment on its
line, or the comment lines right above it when the meaning is long::

    @dataclass
    class StepsOptions:
        name: str = "steps"
        depth: int = 8  # the steps of every game

The generated reference (``docs/hooks/reference.py``) shows it beside the key's type, default
and range; the YAML file of the game or the algorithm holds ``defaults`` and ``name`` only, so
nothing is written twice.
"""

from __future__ import annotations

import ast
import inspect
import io
import textwrap
import tokenize


def option_meanings(options: type) -> dict[str, str]:
    """Field name -> the comment beside its default (empty where there is none) for every
    annotated field of the dataclass ``options`` and of the classes it derives from (a field
    written again in a subclass takes the subclass's comment), ``name`` included. A class whose
    source cannot be read (one built at run time, ``dataclasses.make_dataclass``) adds nothing:
    its fields take their bases' comments."""
    meanings: dict[str, str] = {}
    for cls in reversed(options.__mro__):
        meanings.update(_written_beside(cls))
    return meanings


def _written_beside(cls: type) -> dict[str, str]:
    """The comments beside the annotated fields written in ``cls`` itself."""
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return {}
    comments = {
        token.start[0]: token.string.lstrip("#").strip()
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    }
    lines = source.splitlines()
    found = [node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)]
    meanings: dict[str, str] = {}
    for node in found[0].body if found else []:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        above: list[str] = []
        line = node.lineno - 1
        # Comment lines right above the field (not a trailing comment of the field before).
        while line in comments and lines[line - 1].lstrip().startswith("#"):
            above.insert(0, comments[line])
            line -= 1
        last = node.end_lineno or node.lineno
        beside = [comments.get(n, "") for n in range(node.lineno, last + 1)]
        meanings[node.target.id] = " ".join(c for c in above + beside if c).strip()
    return meanings
