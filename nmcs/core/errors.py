"""The one error type of invalid input, shared by the command line, the harness and the API."""


class ConfigError(ValueError):
    """An invalid configuration or search argument; the message is one line that names what is
    wrong and what is allowed."""
