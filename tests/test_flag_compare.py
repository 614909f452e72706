"""Numba's compile flags hashed and compared by ``nmcs.core.flag_compare`` give numba's own
values, hashes and equalities."""

import pytest
from numba.core import targetconfig
from numba.core.compiler import Flags

import nmcs.search  # noqa: F401  (installs it, as every compile of the package does)
from nmcs.core import flag_compare

pytestmark = pytest.mark.unit

numba_values, numba_hash = flag_compare._ORIGINAL


def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)


def flag_sets():
    """Flags as numba compiles with them: the defaults, options set (to their default too),
    a copy, and every other TargetConfig class loaded."""
    plain = Flags()
    compiled = Flags()
    compiled.nrt = True
    compiled.boundscheck = False  # set to its default: set, and the same value
    compiled.fastmath = True
    compiled.inline = "always"
    compiled.error_model = "numpy"
    others = [cls() for cls in subclasses(targetconfig.TargetConfig) if cls is not Flags]
    return [plain, compiled, compiled.copy(), *others]


def test_it_is_installed_on_the_pinned_numba():
    assert flag_compare.applies() and flag_compare.install()
    assert targetconfig.TargetConfig.values is flag_compare._values


@pytest.mark.parametrize("flags", flag_sets(), ids=lambda f: f"{type(f).__name__}")
def test_values_and_hash_are_numbas(flags):
    assert flags.values() == numba_values(flags)
    assert list(flags.values()) == list(numba_values(flags))  # the same keys in the same order
    assert hash(flags) == numba_hash(flags)


def test_equality_follows_every_option():
    a, b = Flags(), Flags()
    assert a == b and hash(a) == hash(b)
    b.boundscheck = False  # its default: set, but the same value
    assert a == b
    b.fastmath = True
    assert a != b and numba_values(a) != numba_values(b)
    a.fastmath = True
    assert a == b
