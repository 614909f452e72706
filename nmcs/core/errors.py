"""The one error type of invalid input, shared by the command line, the harness and the API,
and the one line that says why numba cannot compile a game's or an algorithm's code."""

import os
import re


class ConfigError(ValueError):
    """An invalid configuration or search argument; the message is one line that names what is
    wrong and what is allowed."""


class PluginError(ConfigError):
    """A game or an algorithm module that cannot be used as it is (a plugin named in
    ``NMCS_PLUGINS`` that is not found or fails to import, kernels that lack a member of the
    game protocol or take other arguments): the message is one line naming the module's file
    and the fix."""


# Numba colours its messages with ANSI escapes, whatever the terminal, where colorama is
# installed and numba was imported before ``nmcs`` (which asks numba for plain text).
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# The innermost place numba names: 'File "<path>", line <n>:' then the function's def line.
_PLACE = re.compile(r'File "([^"]+)", line (\d+):\n\s*def (\w+)\(')


def compile_error(where: str, error: Exception) -> PluginError:
    """One line for code that numba cannot compile (its ``NumbaError``: a typing error in a
    game's kernel, say), instead of numba's many: ``where`` (the game, its file), the function
    and line numba names first (the innermost), and the first line of numba's own message
    (after its "Failed in nopython mode pipeline" headers)."""
    text = _ANSI.sub("", str(error))
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith("Failed in ")]
    said = lines[0] if lines else type(error).__name__
    if said.endswith(":") and len(lines) > 1:  # "... found for signature:" and the signature
        said = f"{said} {lines[1]}"
    place = _PLACE.search(text)
    what = f"{place[3]} ({os.path.abspath(place[1])}, line {place[2]})" if place else "its code"
    return PluginError(
        f"{where}: numba cannot compile {what}: {said}; fix it to compile in nopython mode"
    )
