"""Search algorithms written once for every game (see ``nmcs.search.registry``)."""

import nmcs.core  # noqa: F401 - names compiled functions per process before any compiles
