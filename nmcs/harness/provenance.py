"""What produced a result: code version, packages, machine, times."""

import datetime
import functools
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


@functools.cache
def cpu_model() -> str:
    """The CPU's model name, which the rows' CPU seconds are measured on: Linux's
    ``/proc/cpuinfo`` (x86), ``lscpu`` (Linux on ARM, whose cpuinfo has no model name) or
    macOS's ``sysctl``; else the processor or machine type Python knows (read once per
    process)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    asks = ((["lscpu"], "Model name:"), (["sysctl", "-n", "machdep.cpu.brand_string"], ""))
    for command, prefix in asks:
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in out.stdout.splitlines() if out.returncode == 0 else []:
            if line.strip() and line.startswith(prefix):
                return line.removeprefix(prefix).strip()
    return platform.processor() or platform.machine()


@functools.cache
def _versions() -> tuple[tuple[str, str | None], ...]:
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return tuple(found.items())


def versions() -> dict[str, str | None]:
    """Python's and the packages' versions (read once per process)."""
    return dict(_versions())


@functools.cache
def code_state() -> tuple[str | None, bool | None]:
    """(commit, whether tracked files were modified), read once per process: the code that runs
    is the code the process imported, and a sweep of many cells should not run git for each
    (about 0.1 s a cell)."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return _git("rev-parse", "HEAD"), (bool(status) if status is not None else None)


def provenance() -> dict[str, Any]:
    commit, dirty = code_state()
    return {
        "git_commit": commit,
        "git_dirty": dirty,
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
