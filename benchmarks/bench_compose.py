"""CPU milliseconds of one Hydra composition of a cell, with and without the memos of
``nmcs.harness.compose_cache``.

    taskset -c 1 python benchmarks/bench_compose.py [--compositions 40] [--rounds 3]

Each round composes ``--compositions`` cells (a two-player match cell of the quick time table,
each with another seed, as a sweep's cells differ) in a new process without the memos, then in
a new process with them (the first composition, which fills them, not counted), and prints
both figures; then the medians and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

ONE = r"""
import sys, time
from hydra import compose, initialize_config_dir
from nmcs.harness import compose_cache
from nmcs.harness.cli import CONFIG_DIR, register

register()
compose_cache.ENABLED = sys.argv[1] == "on"
n = int(sys.argv[2])
cell = ["experiment=twoplayer_paper_time", "scale=quick", "hydra.mode=MULTIRUN",
        "game=breakthrough", "level=1"]
with initialize_config_dir(str(CONFIG_DIR), job_name="run", version_base="1.3"):
    compose("config", overrides=cell, return_hydra_config=True)
    start = time.process_time()
    for seed in range(n):
        compose("config", overrides=[*cell, f"seed={seed}"], return_hydra_config=True)
    print((time.process_time() - start) / n * 1000)
"""


def one(mode: str, compositions: int) -> float:
    done = subprocess.run(
        [sys.executable, "-c", ONE, mode, str(compositions)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.split()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compositions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    off, on = [], []
    for r in range(args.rounds):
        off.append(one("off", args.compositions))
        on.append(one("on", args.compositions))
        print(f"round {r + 1}: without the memos {off[-1]:.1f} ms, with {on[-1]:.1f} ms")
    a, b = statistics.median(off), statistics.median(on)
    print(f"median: {a:.1f} ms without, {b:.1f} ms with (ratio {a / b:.2f})")


if __name__ == "__main__":
    main()
