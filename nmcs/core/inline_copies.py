"""Numba's ``inline="always"`` without its two spare copies of every inlined function.

Numba inlines a function marked ``inline="always"`` in its untyped pass ``InlineInlinables``,
through ``InlineWorker.inline_function``: that translates the callee's Python function afresh
(``run_untyped_passes``, a new IR at every call site) and hands the new IR to ``inline_ir``,
which deep-copies it twice before splicing it in: once to mutate (the IR is already the call
site's own) and once to return unmutated (the pass throws it away). A deep copy of numba's IR
copies each variable's scope, every variable of the scope with it, so the cost grows with what
the callee has inlined itself: the searches' chain of inlined layers (entry point, restart
loop, search, level) spent 1-2.3 s of a 4-13 s first compile in these copies (SameGame's
level-1 beam search: 2.3 s of 12.4).

``install()`` replaces ``inline_function`` with one that hands ``inline_ir`` its fresh IR with
``copy.deepcopy`` (what ``inline_closurecall`` uses its ``copy`` module for, and nothing else)
the identity for that one call. The compiled code is the same, byte for byte: the LLVM IR and
the assembly of search entry points compiled both ways are identical, and
``tests/test_inline_copies.py`` compares a chain of inlined functions compiled both ways. The
other caller of ``inline_ir``, numba's overload inlining, reuses a cached IR and keeps its
copies. Numba compiles under its global compiler lock, so no other thread inlines while the
copies are off.

The replacement applies only to a numba whose source still has this shape (``applies()``);
another version keeps its own inlining.
"""

import inspect
import re
import types
from pathlib import Path

from numba.core import inline_closurecall, untyped_passes

_ORIGINAL = inline_closurecall.InlineWorker.inline_function
_NO_COPY = types.SimpleNamespace(deepcopy=lambda obj, memo=None: obj)

# What the replacement relies on, in numba's source: inline_function translates the callee
# afresh and returns inline_ir's result; inline_ir copies with copy.deepcopy, the module's only
# use of its copy module; the inlining pass, the one caller of inline_function, discards the
# unmutated IR it returns.
_SHAPE = (
    (inline_closurecall, r"callee_ir = self\.run_untyped_passes\(function\)"),
    (inline_closurecall, r"return self\.inline_ir\(caller_ir, block, i, callee_ir, freevars,"),
    (inline_closurecall, r"callee_ir_original = copy_ir\(callee_ir\)"),
    (untyped_passes, r"_, _, _, new_blocks = \\\s*inline_worker\.inline_function\("),
)


def applies() -> bool:
    """Whether the installed numba has the inlining this module streamlines."""
    sources = {
        m: Path(inspect.getfile(m)).read_text() for m in (inline_closurecall, untyped_passes)
    }
    uses_of_copy = re.findall(r"\bcopy\.\w+", sources[inline_closurecall])
    return uses_of_copy == ["copy.deepcopy"] and all(
        re.search(pattern, sources[module]) for module, pattern in _SHAPE
    )


def _inline_function(self, caller_ir, block, i, function, arg_typs=None):
    """``InlineWorker.inline_function`` without copying the IR it has just made."""
    callee_ir = self.run_untyped_passes(function)
    freevars = function.__code__.co_freevars
    copy_module = inline_closurecall.copy
    setattr(inline_closurecall, "copy", _NO_COPY)  # noqa: B010  (a module attribute, for mypy)
    try:
        return self.inline_ir(caller_ir, block, i, callee_ir, freevars, arg_typs=arg_typs)
    finally:
        setattr(inline_closurecall, "copy", copy_module)  # noqa: B010


def install() -> bool:
    """Inline without the spare copies for the rest of the process, where numba's source has
    the expected shape (idempotent); returns whether it is installed."""
    worker = inline_closurecall.InlineWorker
    if worker.inline_function is _ORIGINAL and applies():
        setattr(worker, "inline_function", _inline_function)  # noqa: B010
    return worker.inline_function is _inline_function


def uninstall() -> None:
    """numba's own inlining again (for comparisons)."""
    setattr(inline_closurecall.InlineWorker, "inline_function", _ORIGINAL)  # noqa: B010
