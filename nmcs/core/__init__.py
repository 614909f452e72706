"""The floor that games, searches and the harness share, and that imports none of them: the
random generator (``rng``), the clock (``clock``), bit tricks (``bits``), how compiled functions
are named (``jit_names``), ``ConfigError`` (``errors``) and the scales (``scales``).

Importing the package imports nothing heavy: ``errors`` and ``scales`` are read by code that
only reads results, without numba. ``nmcs.games`` and ``nmcs.search`` install ``jit_names``
before anything compiles.
"""
