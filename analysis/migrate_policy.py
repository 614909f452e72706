"""Record the playout policy that NRPA and GNRPA really used on SameGame in a published folder:

    python -m analysis.migrate_policy results/paper            # rewrite it in place
    python -m analysis.migrate_policy results/paper --check    # only say what it would change

Why. NRPA and GNRPA take their playout moves from the game's policy steps
(``nmcs/search/policy_steps.py``): on SameGame, ``game.policy=tabu`` (the default) leaves the
tabu colour's groups out by the rule of the SameGame NRPA literature, and ``game.policy=random``
lists every group. Code without policy steps listed every group whatever ``game.policy`` said,
and its cells recorded the default, ``tabu``: their searches played uniform playouts (every
group) under a label that says otherwise. ``game.policy=random`` on the code with policy steps
plays those same games, seed for seed.

What. Each search cell of ``nrpa`` or ``gnrpa`` on ``samegame`` that records ``policy: tabu``
and was run by code without policy steps (``nmcs/search/policy_steps.py`` is not in the tree
of its ``git_commit``) becomes the cell it is, ``game.policy=random``:

- its identity and config say ``policy: random``. Under the ``cell`` seed scheme its searches
  were seeded from the old identity's hash, so the identity also records
  ``seeded_as: <that hash>`` (``nmcs.harness.seeding``): the searches it holds, and those it is
  extended by, keep the seeds they were run with;
- its hash (``cell``, in its record and its rows) is recomputed from that identity
  (``nmcs.harness.seeding.cell_hash``);
- its folder name (``cell_dir``) is the one Hydra gives its overrides with ``game.policy=random``
  added (``game.instance=0,game.policy=random,level=1``), so that after
  ``python -m analysis.restore`` the run ``python run.py -m experiment=<e> scale=paper
  game.policy=random`` finds it done, and the default (tabu) run gets a folder of its own;
- its rows say ``policy`` random and ``game_options`` with ``policy=random``; its best game and
  record folder follow its name; its record gains ``migrated``: what was changed, from what.

``RUNS.md`` is rewritten where a cell changed. Every other cell (other games and algorithms,
cells already relabelled, cells run with policy steps) is left as it is, so running the
migration again changes nothing.
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from analysis.publish import PACKED_CELLS, read_published, write_published, write_runs
from nmcs.harness.seeding import SEEDED_AS_KEY, cell_hash, identity_scheme

REPO = Path(__file__).resolve().parents[1]
ALGORITHMS = ("nrpa", "gnrpa")
GAME = "samegame"
OLD, NEW = "tabu", "random"
# The file whose presence in a commit's tree says that its NRPA honours ``game.policy``.
POLICY_STEPS = "nmcs/search/policy_steps.py"
OVERRIDE = f"game.policy={NEW}"
WHY = (
    "NRPA/GNRPA code without policy steps played uniform playouts (every group) whatever "
    "game.policy said; the cell recorded the default, tabu"
)


class MigrationError(Exception):
    """A cell that cannot be relabelled safely: one line that names it."""


def ran_uniform(meta: dict[str, Any]) -> bool:
    """Whether the code that ran a cell had no policy steps (so its NRPA listed every group):
    ``POLICY_STEPS`` is not in the tree of its ``git_commit``. MigrationError where git does
    not know the commit."""
    commit = str(meta.get("git_commit") or "")

    def git(*args: str) -> int:
        return subprocess.run(
            ["git", "-C", str(REPO), "cat-file", "-e", *args], capture_output=True, check=False
        ).returncode

    if not commit or git(f"{commit}^{{commit}}") != 0:
        raise MigrationError(
            f"commit {commit or '(none)'} unknown to the git history in {REPO}: cannot tell "
            "whether its NRPA honoured game.policy (fetch the full history)"
        )
    return git(f"{commit}:{POLICY_STEPS}") != 0


def _exclude_keys() -> set[str]:
    """The override keys that do not name a cell's folder (conf/config.yaml)."""
    config = yaml.safe_load((REPO / "conf" / "config.yaml").read_text())
    return set(config["hydra"]["job"]["config"]["override_dirname"]["exclude_keys"])


def folder_name(overrides: list[str], exclude: set[str]) -> str:
    """A cell's folder name as Hydra makes it from the job's overrides (``override_dirname``:
    those whose key is not excluded, sorted, joined by commas; ``nmcs.harness.cli``)."""
    kept = sorted(o for o in overrides if o.split("=", 1)[0] not in exclude)
    return ",".join(kept).replace("/", "_") or "base"


def mislabelled(meta: dict[str, Any], uniform: Callable[[dict[str, Any]], bool]) -> bool:
    """Whether a published cell is an NRPA/GNRPA SameGame cell labelled tabu and run uniform."""
    identity = meta.get("identity") or {}
    algo, game = identity.get("algo"), identity.get("game")
    return (
        meta.get("kind", "searches") == "searches"
        and isinstance(algo, dict)
        and algo.get("name") in ALGORITHMS
        and isinstance(game, dict)
        and game.get("name") == GAME
        and game.get("policy") == OLD
        and uniform(meta)
    )


def _game_options(text: str) -> str:
    """A row's ``game_options`` string (sorted ``key=value`` pairs) with ``policy`` relabelled."""
    pairs = [p.partition("=") for p in text.split(",")]
    return ",".join(f"{k}={NEW if k == 'policy' else v}" for k, _, v in pairs)


def relabelled(cell_dir: str, meta: dict[str, Any], exclude: set[str]) -> tuple[str, dict]:
    """The new folder name and record of a mislabelled cell."""
    identity, old_hash = meta["identity"], meta.get("cell")
    if cell_hash(identity) != old_hash:
        raise MigrationError(
            f"{cell_dir}: its record's hash {old_hash} is not its identity's {cell_hash(identity)}"
        )
    overrides = list(meta.get("overrides") or [])
    if folder_name(overrides, exclude) != cell_dir:
        raise MigrationError(
            f"{cell_dir}: not the folder its overrides name ({folder_name(overrides, exclude)})"
        )
    overrides = [o for o in overrides if o.split("=", 1)[0] != "game.policy"] + [OVERRIDE]
    new_identity = copy.deepcopy(identity)
    new_identity["game"]["policy"] = NEW
    if identity_scheme(identity) != "common":
        # Its searches were seeded from the old hash's words: they stay so.
        new_identity.setdefault(SEEDED_AS_KEY, old_hash)
    new = copy.deepcopy(meta)
    new["config"]["game"]["policy"] = NEW
    new.update(
        identity=new_identity,
        cell=cell_hash(new_identity),
        overrides=overrides,
        migrated={
            "by": "python -m analysis.migrate_policy",
            "why": WHY,
            "game.policy": f"{OLD} -> {NEW}",
            "cell": old_hash,
            "cell_dir": cell_dir,
        },
    )
    return folder_name(overrides, exclude), new


def migrate_experiment(
    folder: Path, uniform: Callable[[dict[str, Any]], bool] = ran_uniform, check: bool = False
) -> list[dict[str, Any]]:
    """Relabel the mislabelled cells of one published experiment (unless ``check``); one
    summary per such cell: its old and new folder name and hash, and its rows."""
    rows, metas, games = read_published(folder)
    exclude = _exclude_keys()
    changed = []
    for cell_dir, meta in sorted(metas.items()):
        if not mislabelled(meta, uniform):
            continue
        new_dir, new_meta = relabelled(cell_dir, meta, exclude)
        if new_dir in metas:
            raise MigrationError(f"{folder.name}/{cell_dir}: {new_dir} is published already")
        mine = rows["cell_dir"] == cell_dir
        if set(rows.loc[mine, "cell"]) - {meta["cell"]}:
            raise MigrationError(f"{folder.name}/{cell_dir}: rows of another hash than its record")
        changed.append(
            {
                "experiment": folder.name,
                "cell_dir": cell_dir,
                "new_cell_dir": new_dir,
                "cell": meta["cell"],
                "new_cell": new_meta["cell"],
                "rows": int(rows.loc[mine, "count"].sum() if "count" in rows else mine.sum()),
                "scale": str(meta["config"]["scale"]["name"]),
            }
        )
        if check:
            continue
        rows.loc[mine, "cell_dir"] = new_dir
        rows.loc[mine, "cell"] = new_meta["cell"]
        rows.loc[mine, "policy"] = NEW
        rows.loc[mine, "game_options"] = rows.loc[mine, "game_options"].map(_game_options)
        del metas[cell_dir]
        metas[new_dir] = new_meta
        if cell_dir in games:
            games[new_dir] = games.pop(cell_dir)
        records = folder / "records" / cell_dir
        if records.is_dir():
            records.rename(folder / "records" / new_dir)
    if changed and not check:
        write_published(folder, rows, metas, games)
    return changed


def migrate(
    published: Path, uniform: Callable[[dict[str, Any]], bool] = ran_uniform, check: bool = False
) -> list[dict[str, Any]]:
    """Relabel every mislabelled cell of a published folder; rewrite its RUNS.md if any was.
    Every cell is checked before anything is written: a MigrationError leaves it as it was."""
    folders = sorted(p for p in published.glob("*/") if (p / PACKED_CELLS).exists())
    changed = [c for folder in folders for c in migrate_experiment(folder, uniform, check=True)]
    if check or not changed:
        return changed
    for folder in sorted({published / c["experiment"] for c in changed}):
        migrate_experiment(folder, uniform)
    if (published / "RUNS.md").exists():
        write_runs(published, changed[0]["scale"])
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis.migrate_policy", description=__doc__)
    parser.add_argument("published", type=Path, help="a published folder, e.g. results/paper")
    parser.add_argument("--check", action="store_true", help="say what would change; write nothing")
    args = parser.parse_args(argv)
    if not args.published.is_dir():
        print(f"migrate_policy: error: no folder '{args.published}'", file=sys.stderr)
        return 2
    try:
        changed = migrate(args.published, check=args.check)
    except MigrationError as error:
        print(f"migrate_policy: error: {error}", file=sys.stderr)
        return 2
    verb = "would relabel" if args.check else "relabelled"
    done = "to relabel" if args.check else "relabelled"
    for c in changed:
        print(
            f"migrate_policy: {verb} {c['experiment']}/{c['cell_dir']} ({c['cell']}, "
            f"{c['rows']} searches) as {c['new_cell_dir']} ({c['new_cell']})"
        )
    print(f"migrate_policy: {len(changed)} cells {done} in {args.published}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
