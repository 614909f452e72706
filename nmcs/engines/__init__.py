"""Compiled entry points, one module per game: each binds the shared search engine to one game's
kernels in a module-level ``@njit(cache=True)`` function, so numba caches it on disk.

Adding a game means adding a module here that repeats the five lines of ``leftmove.py`` with
the new game's name, and listing it in ``nmcs.games.GAMES``.
"""
