"""Time of ``make test`` (or ``make test-fast``) on a fresh clone, and where it goes.

    python benchmarks/test_time.py                       # make test on a fresh clone of HEAD
    python benchmarks/test_time.py --target test-fast --runs 2   # fresh, then warm
    python benchmarks/test_time.py --summarize LOG [--durations CLONE/.pytest_cache]

Clones the committed HEAD into a temporary folder (what CI runs: ``.ci/run`` is ``make test``
there), and runs the target ``--runs`` times in it: the first run creates ``.venv`` (the
install) and compiles on an empty numba cache, later runs find both. Each run prints its wall
seconds and the CPU seconds of everything it started (user + sys of the children: pip, pytest
and its workers, the processes the tests start). With ``NMCS_COMPILE_LOG`` set for the runs
(``nmcs.core.compile_log``), it then prints where the first run's compile time went: in all,
per test file, and the functions compiled by more than one process (two workers that did
not wait for each other, or a test that compiles on a fresh cache of its own); and the test
files' own seconds from pytest's cache (``tests/conftest.py`` times every test).

Run it on a quiet machine: every figure is the machine's whole CPU, shared with anything else
running (pause long runs first: ``kill -STOP``, then ``kill -CONT``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DURATIONS = Path("v") / "nmcs" / "durations"  # under .pytest_cache (tests/conftest.py)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_target(clone: Path, target: str, log: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``make <target>`` in ``clone``, and its exit status."""
    env = {**os.environ, "NMCS_COMPILE_LOG": str(log)}
    env.pop("NUMBA_CACHE_DIR", None)  # the clone's own cache, empty at first
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(["make", target], cwd=clone, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    tail = [line for line in done.stdout.splitlines() if " passed" in line or "failed" in line]
    print(f"make {target}: {wall:.0f} s wall, {cpu:.0f} CPU s; {tail[-1] if tail else ''}")
    if done.returncode:
        print(done.stdout[-3000:], done.stderr[-2000:], sep="\n", file=sys.stderr)
    return wall, cpu, done.returncode


def summarize(log: Path, durations: Path | None = None, top: int = 12) -> None:
    """Print the compile log's totals, per test file and repeated functions; then the
    slowest test files from pytest's durations cache, if given."""
    rows = [line.rstrip("\n").split("\t") for line in log.read_text().splitlines() if line]
    total = sum(float(r[2]) for r in rows)
    print(f"\ncompiling: {total:.0f} CPU s in {len(rows)} compilations")
    by_file: dict[str, float] = defaultdict(float)
    by_function: dict[str, list[float]] = defaultdict(list)
    for _pid, _start, cpu, function, test in rows:
        by_file[test.split("::")[0]] += float(cpu)
        by_function[function].append(float(cpu))
    print("  per test file (CPU s):")
    for name, cpu in sorted(by_file.items(), key=lambda kv: -kv[1])[:top]:
        print(f"    {cpu:7.1f}  {name}")
    repeated = {f: c for f, c in by_function.items() if len(c) > 1}
    extra = sum(sum(c) - max(c) for c in repeated.values())
    print(
        f"  compiled more than once: {len(repeated)} functions, {extra:.0f} CPU s beyond the first"
    )
    for function, cpus in sorted(repeated.items(), key=lambda kv: -sum(kv[1]))[:top]:
        print(f"    {sum(cpus) - max(cpus):7.1f}  x{len(cpus)}  {function}")
    if durations is not None and (durations / DURATIONS).is_file():
        timed = json.loads((durations / DURATIONS).read_text())
        files: dict[str, float] = defaultdict(float)
        for test, seconds in timed.items():
            files[test.split("::")[0]] += seconds
        print(f"\ntests: {sum(files.values()):.0f} s in all (both workers), slowest files:")
        for name, seconds in sorted(files.items(), key=lambda kv: -kv[1])[:top]:
            print(f"    {seconds:7.1f}  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="test", choices=("test", "test-fast"))
    parser.add_argument("--runs", type=int, default=1, help="runs in the same clone (default 1)")
    parser.add_argument("--keep", action="store_true", help="keep the clone and print its path")
    parser.add_argument("--summarize", type=Path, metavar="LOG", help="only summarize a log")
    parser.add_argument("--durations", type=Path, metavar="PYTEST_CACHE")
    args = parser.parse_args(argv)
    if args.summarize:
        summarize(args.summarize, args.durations)
        return 0
    if args.runs < 1:
        parser.error(f"--runs = {args.runs}: must be at least 1")
    folder = Path(tempfile.mkdtemp(prefix="nmcs_test_time_"))
    clone = folder / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True)
    status = 0
    for run in range(args.runs):
        log = folder / f"compile_{run + 1}.log"
        log.touch()
        _, _, code = run_target(clone, args.target, log)
        status = status or code
    summarize(folder / "compile_1.log", clone / ".pytest_cache")
    if args.keep:
        print(f"\nkept: {folder}")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
