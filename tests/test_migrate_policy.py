"""The migration that records the playout policy NRPA and GNRPA really used on SameGame
(``python -m analysis.migrate_policy``), on a small synthetic published folder: the
mislabelled cells come out as ``game.policy=random`` with consistent hashes, folder names and
seeds, every other cell as it was, and a second run changes nothing."""

import json
import subprocess

import pandas as pd
import pytest
from helpers import REPO
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf

from analysis.migrate_policy import MigrationError, migrate, ran_uniform
from analysis.publish import read_published, write_published
from nmcs.harness.cli import CONFIG_DIR, register
from nmcs.harness.search_cell import search_identity
from nmcs.harness.seeding import cell_hash, continued_identity, seed_key

pytestmark = pytest.mark.unit

OLD, NEW = "old", "new"  # commits: without and with policy steps (the test's own rule)
# (experiment, overrides, commit): the cells of the synthetic folder.
CELLS = [
    ("levels", ["game=samegame", "algo=nrpa", "game.instance=0", "level=1", "seeds=common"], OLD),
    ("levels", ["game=samegame", "algo=nrpa", "game.instance=1", "level=1", "seeds=common"], NEW),
    ("versus", ["game=samegame", "algo=gnrpa", "level=2"], OLD),
    ("versus", ["game=samegame", "algo=iterative", "level=1"], OLD),
    ("versus", ["game=morpion", "algo=nrpa", "level=1"], OLD),
]


def record(experiment, overrides, commit):
    """A cell's folder name, record and rows as ``analysis.publish`` packs them."""
    register()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[*overrides, f"experiment_name={experiment}"])
    identity = search_identity(cfg)
    config = OmegaConf.to_container(cfg, resolve=True)
    cell_dir = ",".join(sorted(overrides))  # Hydra's folder name (nmcs.harness.cli)
    meta = {
        "kind": "searches",
        "identity": identity,
        "cell": cell_hash(identity),
        "config": config,
        "git_commit": commit,
        "overrides": [*overrides, "scale=paper", "workers=1"],
    }
    game = config["game"]
    options = {k: v for k, v in game.items() if k != "name"}
    rows = pd.DataFrame(
        {
            "experiment": experiment,
            "cell": meta["cell"],
            "game": game["name"],
            "game_options": ",".join(f"{k}={v}" for k, v in sorted(options.items())),
            **({"policy": game["policy"]} if "policy" in game else {}),
            "algo": config["algo"]["name"],
            "search": [0, 1, 2],
            "score": [10, 20, 30],
            "seconds": 0.5,
            "cell_dir": cell_dir,
            "count": 1,
        }
    )
    return cell_dir, meta, rows


def published_folder(root):
    by_experiment: dict = {}
    for experiment, overrides, commit in CELLS:
        cell_dir, meta, rows = record(experiment, overrides, commit)
        parts, metas, games = by_experiment.setdefault(experiment, ([], {}, {}))
        parts.append(rows)
        metas[cell_dir] = meta
        games[cell_dir] = f"game of {cell_dir}"
    for experiment, (parts, metas, games) in by_experiment.items():
        rows = pd.concat(parts, ignore_index=True)
        write_published(root / experiment, rows, metas, games)
    (root / "RUNS.md").write_text("# Published results (paper scale)\n")
    return root


def uniform(meta):
    return meta["git_commit"] == OLD


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_mislabelled_cells_are_relabelled_consistently_and_only_once(tmp_path):
    root = published_folder(tmp_path / "paper")
    before = {e: read_published(root / e) for e in ("levels", "versus")}
    changed = migrate(root, uniform=uniform)
    assert sorted((c["experiment"], c["new_cell_dir"]) for c in changed) == [
        (
            "levels",
            "algo=nrpa,game.instance=0,game.policy=random,game=samegame,level=1,seeds=common",
        ),
        ("versus", "algo=gnrpa,game.policy=random,game=samegame,level=2"),
    ]
    assert all(c["rows"] == 3 for c in changed)
    for experiment in ("levels", "versus"):
        rows, metas, games = read_published(root / experiment)
        old_rows, old_metas, _ = before[experiment]
        assert len(rows) == len(old_rows) and len(metas) == len(old_metas)
        for cell_dir, meta in metas.items():
            mine = rows[rows["cell_dir"] == cell_dir]
            # Every record's hash is its identity's, and its rows carry it.
            assert meta["cell"] == cell_hash(meta["identity"])
            assert set(mine["cell"]) == {meta["cell"]}
            assert (
                games[cell_dir] == f"game of {meta.get('migrated', {}).get('cell_dir', cell_dir)}"
            )
            if "migrated" not in meta:
                assert meta == old_metas[cell_dir]  # untouched
                continue
            old = old_metas[meta["migrated"]["cell_dir"]]
            assert meta["migrated"]["cell"] == old["cell"] != meta["cell"]
            assert meta["identity"]["game"]["policy"] == meta["config"]["game"]["policy"]
            assert meta["config"]["game"]["policy"] == "random"
            assert "game.policy=random" in meta["overrides"]
            assert set(mine["policy"]) == {"random"}
            assert mine["game_options"].str.contains("policy=random").all()
            assert not mine["game_options"].str.contains("tabu").any()
            assert mine["score"].tolist() == [10, 20, 30]
            # Its searches keep their seeds: none under common seeds, the old hash's words under
            # the cell scheme (``seeded_as``).
            assert seed_key(meta["identity"]) == seed_key(old["identity"])
            assert ("seeded_as" in meta["identity"]) == ("seed_scheme" in old["identity"])
            # The config it records, read today, continues it (restore, then run it again).
            config = OmegaConf.create({**meta["config"], "seeds": "cell"})
            fresh = search_identity(config)
            continued = continued_identity(fresh, meta["identity"]) or fresh
            assert cell_hash(continued) == meta["cell"]

    snap = snapshot(root)
    assert migrate(root, uniform=uniform) == []
    assert snapshot(root) == snap  # idempotent: not a byte changed


def test_check_writes_nothing_and_a_taken_name_stops_the_migration(tmp_path):
    root = published_folder(tmp_path / "paper")
    snap = snapshot(root)
    assert len(migrate(root, uniform=uniform, check=True)) == 2
    assert snapshot(root) == snap
    # A relabelled name already published: refused, nothing written.
    rows, metas, games = read_published(root / "versus")
    taken = "algo=gnrpa,game.policy=random,game=samegame,level=2"
    metas[taken] = json.loads(json.dumps(metas["algo=gnrpa,game=samegame,level=2"]))
    metas[taken]["identity"]["game"]["policy"] = "random"
    write_published(root / "versus", rows, metas, games)
    snap = snapshot(root)
    with pytest.raises(MigrationError, match="is published already"):
        migrate(root, uniform=uniform)
    assert snapshot(root) == snap


PUBLISHED_COMMIT = "71ff72664b50211963c12e5fe1404eddf241eb3f"  # ran published NRPA cells


def has_history():
    probe = ["git", "-C", str(REPO), "cat-file", "-e", f"{PUBLISHED_COMMIT}^{{commit}}"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def test_the_cells_of_code_without_policy_steps_are_told_by_its_tree():
    if not has_history():
        pytest.skip("the git history of the published cells is not here")
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert ran_uniform({"git_commit": PUBLISHED_COMMIT})
    assert not ran_uniform({"git_commit": head})
    with pytest.raises(MigrationError, match="unknown to the git history"):
        ran_uniform({"git_commit": "0" * 40})


def test_the_published_folder_holds_no_mislabelled_cell():
    """results/paper, migrated: no NRPA/GNRPA SameGame cell says tabu that played uniform."""
    if not has_history():
        pytest.skip("the git history of the published cells is not here")
    assert migrate(REPO / "results" / "paper", check=True) == []
