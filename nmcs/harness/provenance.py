"""What produced a result: code version, packages, machine, times."""

import datetime
import os
import platform
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

REPO_DIR = Path(__file__).resolve().parents[2]
PACKAGES = ("nmcs", "numba", "llvmlite", "numpy", "hydra-core", "omegaconf", "pandas", "pyarrow")


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=REPO_DIR, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def versions() -> dict[str, str | None]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def provenance() -> dict[str, Any]:
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": bool(status) if status is not None else None,
        "versions": versions(),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "overrides": hydra_overrides(),
        "command_line": command_line(),
    }


def command_line() -> list[str] | None:
    """The overrides typed on the command line (a sweep's lists unexpanded), or None outside a
    Hydra job: the exact command, and what tells a run made smaller than its experiment's scale
    (``n_searches=3``) from one that ran as configured."""
    if hydra_overrides() is None:
        return None
    return [a for a in sys.argv[1:] if "=" in a and not a.startswith("-")]


def hydra_overrides() -> list[str] | None:
    """The command-line overrides of the Hydra job this process runs (sweep values included),
    or None outside a Hydra job (the Python API)."""
    try:
        from hydra.core.hydra_config import HydraConfig

        return list(HydraConfig.get().overrides.task)
    except (ImportError, ValueError):
        return None


def now_iso() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
