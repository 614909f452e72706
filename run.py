"""Run one table cell, or a sweep of them with -m:

    python run.py -m level=0,1,2,3
    python run.py -m experiment=leftmove_distributions scale=paper

Everything happens in ``nmcs.harness``; see the README for the keys.
"""

import sys

import hydra

from nmcs.harness import interrupt
from nmcs.harness.cli import CONFIG_DIR, preflight, register, run_job

register()


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")
def main(cfg):
    run_job(cfg)


def command() -> None:
    """The command ``python run.py <sys.argv[1:]>``: the pre-flight check of every cell, then
    Hydra's run or sweep (the tests call it in their own process, ``tests/helpers.py``)."""
    try:
        preflight(sys.argv[1:])
        main()
    except KeyboardInterrupt:
        # Outside a cell's search loop (compiling, composing): nothing of a cell was lost.
        print(
            f"run.py: {interrupt.name()}; saved chunks are kept, run the same command to resume",
            file=sys.stderr,
        )
        sys.exit(interrupt.exit_status())


if __name__ == "__main__":
    interrupt.install()
    command()
