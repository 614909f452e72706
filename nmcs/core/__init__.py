"""The floor that games, searches and the harness share, and that imports none of them: the
random generator (``rng``), the clock (``clock``), bit tricks (``bits``), how compiled functions
are named (``jit_names``), ``ConfigError`` (``errors``) and the scales (``scales``).

Importing it installs process-unique names for compiled functions (``jit_names``) before
anything compiles: ``nmcs.games`` and ``nmcs.search`` import it first for that reason.
"""

from nmcs.core.jit_names import install

install()
