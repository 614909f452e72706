"""Run one table cell, or a sweep of them with -m:

    python run.py -m level=0,1,2,3
    python run.py -m experiment=leftmove_distributions scale=paper

Everything happens in ``nmcs.harness``; see the README for the keys.
"""

import sys

import hydra

from nmcs.core.errors import ConfigError
from nmcs.harness import composed, interrupt
from nmcs.harness.cli import (
    CONFIG_DIR,
    file_system_error,
    hydra_errors_raised,
    preflight,
    register,
    run_job,
)


@hydra.main(version_base="1.3", config_path=str(CONFIG_DIR), config_name="config")
def main(cfg):
    run_job(cfg)


def command() -> None:
    """The command ``python run.py <sys.argv[1:]>``: the schemas of every registered game and
    algorithm, the pre-flight check of every cell, then Hydra's run or sweep (the tests call it
    in their own process, ``tests/helpers.py``). A plugin that cannot be used is one line, exit
    status 2; a file that cannot be written outside a cell's own (Hydra's job folder and
    ``.hydra/``, the compiled code's cache) one line, exit status 1."""
    try:
        register()
        preflight(sys.argv[1:])
        with hydra_errors_raised():
            main()
    except ConfigError as error:  # a game or an algorithm module refused as it loads
        print(f"run.py: error: {error}", file=sys.stderr)
        sys.exit(2)
    except OSError as error:
        said = file_system_error(error)
        if said is None:
            raise
        print(f"run.py: error: {said}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        # Outside a cell's search loop (compiling, composing): nothing of a cell was lost.
        print(
            f"run.py: {interrupt.name()}; saved chunks are kept, run the same command to resume",
            file=sys.stderr,
        )
        sys.exit(interrupt.exit_status())
    finally:
        composed.forget()


if __name__ == "__main__":
    interrupt.install()
    command()
