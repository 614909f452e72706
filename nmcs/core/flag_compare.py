"""Numba's compile flags hashed and compared without reading each option through a property.

While numba types a function, each call it resolves through an overload template looks its
implementation up in a cache keyed by the compile flags in force (a ``TargetConfig``: numba's
``Flags``, about 40 options), so it hashes the flags and compares them with each cached key:
33-47 thousand comparisons for one of the searches' entry points. Numba builds both from
``values()``, a dict that reads every option through its property (the value set, else the
option's default), so these lookups took 0.25-0.45 s of a 10 s first compile.

``install()`` gives ``TargetConfig`` a ``values()`` that builds the same dict from the class's
defaults and the values set (``_values``, the only thing the option properties read), and a
``__hash__`` that returns the same number without building it: numba hashes the sorted keys
of ``values()``, which are the class's option names, so the hash is the class's constant.
Equality stays the comparison of ``values()``. Nothing compiled changes, only how fast the
cache finds it: ``tests/test_flag_compare.py`` checks both against numba's own on the flags
numba compiles with.

The replacement applies only to a numba whose ``TargetConfig`` still has this shape
(``applies()``); another version keeps its own.
"""

import inspect
import re

from numba.core import targetconfig

_TargetConfig = targetconfig.TargetConfig
_ORIGINAL = (_TargetConfig.values, _TargetConfig.__hash__)

# What the replacement relies on, in numba's targetconfig.py: each option's property reads the
# value set or the option's default; values() reads every option; the hash is of its sorted
# keys; equality compares values().
_SHAPE = (
    r"return self\._values\.get\(name, option\.default\)",
    r"return \{k: getattr\(self, k\) for k in self\.options\}",
    r"return hash\(tuple\(sorted\(self\.values\(\)\)\)\)",
    r"return self\.values\(\) == other\.values\(\)",
)
_DEFAULTS: dict[type, dict] = {}  # class -> its options' defaults
_HASHES: dict[type, int] = {}  # class -> hash of its sorted option names


def applies() -> bool:
    """Whether the installed numba's ``TargetConfig`` has the shape this module relies on."""
    source = inspect.getsource(targetconfig)
    return all(re.search(pattern, source) for pattern in _SHAPE)


def _values(self) -> dict:
    """Every option's value: the class's defaults, then the values set."""
    cls = type(self)
    defaults = _DEFAULTS.get(cls)
    if defaults is None:
        defaults = _DEFAULTS[cls] = {k: o.default for k, o in cls.options.items()}
    return {**defaults, **self._values}


def _hash(self) -> int:
    cls = type(self)
    value = _HASHES.get(cls)
    if value is None:
        value = _HASHES[cls] = hash(tuple(sorted(cls.options)))
    return value


def install() -> bool:
    """Faster flag hashing and comparison for the rest of the process, where numba's source
    has the expected shape (idempotent); returns whether it is installed."""
    if _TargetConfig.values is _ORIGINAL[0] and applies():
        setattr(_TargetConfig, "values", _values)  # noqa: B010
        setattr(_TargetConfig, "__hash__", _hash)  # noqa: B010
    return _TargetConfig.values is _values


def uninstall() -> None:
    """Numba's own hashing and comparison again (for comparisons)."""
    setattr(_TargetConfig, "values", _ORIGINAL[0])  # noqa: B010
    setattr(_TargetConfig, "__hash__", _ORIGINAL[1])  # noqa: B010
