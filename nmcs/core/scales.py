"""The scales every experiment has (``conf/scale/<name>.yaml``): ``quick`` (small runs, used
by the tests) and ``paper`` (the papers' sizes). A light module: reading results needs it, and
must not import Hydra or numba to get it."""

SCALES = ("quick", "paper")
