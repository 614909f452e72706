"""The one error type of invalid input, shared by the command line, the harness and the API."""


class ConfigError(ValueError):
    """An invalid configuration or search argument; the message is one line that names what is
    wrong and what is allowed."""


class PluginError(ConfigError):
    """A game or an algorithm module that cannot be used as it is (a plugin named in
    ``NMCS_PLUGINS`` that is not found or fails to import, kernels that lack a member of the
    game protocol or take other arguments): the message is one line naming the module's file
    and the fix."""
