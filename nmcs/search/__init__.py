"""Search algorithms written once for every game (see ``nmcs.search.registry``)."""

from nmcs.core.jit_names import install

install()  # numba set up (process-unique names, cheaper inlining) before anything compiles
