"""Search algorithms written once for every game (see ``nmcs.search.registry``)."""

from nmcs.core.jit_names import install

install()  # process-unique names of compiled functions, before any compiles
