"""Search algorithms written once for every game (see ``nmcs.search.registry``)."""

from nmcs.jit_names import install

install()  # before any search is compiled: see nmcs/jit_names.py
