"""Inlining without numba's spare IR copies (``nmcs.core.inline_copies``) compiles the same code."""

import copy
import itertools

import numpy as np
import pytest
from numba import njit
from numba.core import inline_closurecall, ir_utils
from numba.core.bytecode import FunctionIdentity

import nmcs.search  # noqa: F401  (installs it, as every compile of the package does)
from nmcs.core import inline_copies

pytestmark = pytest.mark.unit


def chain():
    """A fresh three-layer chain of inlined functions (loops, a tuple, an array, a branch),
    the shape of the searches' entry -> restart loop -> search."""

    @njit(inline="always")
    def inner(buf, k):
        total = 0
        for j in range(buf.shape[0]):
            if buf[j] > k:
                total += buf[j]
        return total, buf.shape[0]

    @njit(inline="always")
    def middle(buf, ws):
        best = -1
        for k in range(ws[1]):
            s, n = inner(buf, k)
            if s > best:
                best = s + n
        ws[0][0] = best
        return best

    @njit
    def outer(buf, ws):
        out = 0
        for _ in range(3):
            out += middle(buf, ws)
        return out

    return outer


def llvm_of_chain(with_copies: bool, start: int) -> tuple[str, int]:
    """The LLVM IR of a fresh chain and its result, compiled with numba's own inlining or
    without its copies, numba's function and block counters from ``start`` (the names
    match)."""
    counter = FunctionIdentity._unique_ids
    FunctionIdentity._unique_ids = itertools.count(start)
    ir_utils._the_max_label._value = start
    if with_copies:
        inline_copies.uninstall()
    try:
        outer = chain()
        args = (np.arange(5, dtype=np.int64), (np.zeros(1, np.int64), 4))
        result = outer(*args)
        return outer.inspect_llvm(outer.signatures[0]), result
    finally:
        inline_copies.install()
        FunctionIdentity._unique_ids = counter


def test_it_applies_to_the_installed_numba():
    # A numba release that changes its inlining fails here: check the new source, then
    # update the expected shape (inline_copies._SHAPE) or drop the module.
    assert inline_copies.applies()
    assert inline_closurecall.InlineWorker.inline_function is inline_copies._inline_function


def test_the_compiled_code_is_the_same_byte_for_byte():
    start = ir_utils._the_max_label._value + 10**6  # above every label and id used so far
    with_copies, result = llvm_of_chain(with_copies=True, start=start)
    without, result_without = llvm_of_chain(with_copies=False, start=start)
    assert result == result_without == 3 * 15
    calls = [line for line in with_copies.splitlines() if "define" in line or "call " in line]
    assert calls and not any("middle" in line or "inner" in line for line in calls)  # inlined
    assert without == with_copies
    assert inline_closurecall.copy is copy  # the copies are back on after each inlining
