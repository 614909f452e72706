"""Seed schemes (``nmcs.harness.seeding``): each cell its own stream by default, common random
numbers on request, and a cell started under the old scheme (every published cell) keeping its
hash and its seeds when it is extended."""

import dataclasses
import gzip
import json

import numpy as np
import pandas as pd
import pytest
from helpers import REPO
from hydra import compose, initialize_config_dir

from analysis.publish import PACKED_CELLS
from nmcs.core.errors import ConfigError
from nmcs.harness.cell import cell_hash, run
from nmcs.harness.cli import CONFIG_DIR, register
from nmcs.harness.match_cell import match_identity
from nmcs.harness.search_cell import search_identity
from nmcs.harness.seeding import continued_identity, resumed_scheme, seed_key
from nmcs.harness.validate import validate

BASE = ["game.depth=8", "n_searches=6", "workers=1", "progress=false", "seed=0"]

pytestmark = pytest.mark.unit


def cell(*overrides):
    register()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return validate(compose("config", overrides=[*BASE, *overrides]))


def legacy_seeds(seed, n):
    return [np.random.SeedSequence([seed, i]).generate_state(1, np.uint64)[0] for i in range(n)]


def test_two_cells_of_different_configs_with_seed_0_share_no_search_seed(tmp_path):
    # Two configs that differ in a value the search reads at run time (one compiled entry).
    a = run(cell("level=1"), tmp_path / "a")
    b = run(cell("level=1", "memorize=false"), tmp_path / "b")
    assert len(a) == len(b) == 6
    assert not set(a["search_seed"]) & set(b["search_seed"])
    assert a["search_seed"].nunique() == 6
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["seed_scheme"] == "cell" and meta["identity"]["seed_scheme"] == "cell"
    # The cell's own words enter the seed: SeedSequence([seed, i, *words of its hash]).
    words = (int(meta["cell"][:8], 16), int(meta["cell"][8:], 16))
    first = np.random.SeedSequence([0, 0, *words]).generate_state(1, np.uint64)[0]
    assert a["search_seed"].iloc[0] == first


def test_common_seeds_give_every_cell_the_same_seeds_and_the_old_identity(tmp_path):
    a = run(cell("level=1", "seeds=common"), tmp_path / "a")
    b = run(cell("level=1", "memorize=false", "seeds=common"), tmp_path / "b")
    assert list(a["search_seed"]) == list(b["search_seed"]) == legacy_seeds(0, 6)
    common = cell("level=1", "seeds=common")
    assert "seed_scheme" not in common.identity and seed_key(common.identity) == ()
    assert json.loads((tmp_path / "a" / "meta.json").read_text())["seed_scheme"] == "common"


def test_a_cell_started_under_common_seeds_extends_with_them(tmp_path):
    """A folder written before seed schemes existed (no seed_scheme in its meta.json) is
    continued under its own seeds and hash by a config that asks for per-cell seeds."""
    out = tmp_path / "old"
    first = run(cell("seeds=common"), out)
    meta = json.loads((out / "meta.json").read_text())
    del meta["seed_scheme"]  # as the cells published before schemes existed
    (out / "meta.json").write_text(json.dumps(meta))
    (out / "results.parquet").unlink()
    extended = run(cell("n_searches=9"), out)
    assert list(extended["search_seed"]) == legacy_seeds(0, 9)
    assert set(extended["cell"]) == {first["cell"].iloc[0]}
    assert extended.iloc[:6]["score"].tolist() == first["score"].tolist()
    # A folder of the per-cell scheme next to it draws other seeds.
    fresh = run(cell(), tmp_path / "new")
    assert not set(fresh["search_seed"]) & set(extended["search_seed"])


def test_a_corrected_cell_extends_with_the_seeds_of_the_hash_it_was_seeded_as(tmp_path):
    """A cell whose recorded identity was corrected after it ran (analysis.migrate_policy)
    records the hash its searches were seeded from (``seeded_as``): a config of the corrected
    identity continues it under that hash's seeds, and names it by its own hash."""
    out = tmp_path / "cell"
    first = run(cell(), out)
    meta = json.loads((out / "meta.json").read_text())
    seeded_as = meta["cell"]
    meta["identity"]["seeded_as"] = seeded_as  # as the migration writes a corrected identity
    meta["cell"] = cell_hash(meta["identity"])
    (out / "meta.json").write_text(json.dumps(meta))
    for chunk in (out / "chunks").glob("*.parquet"):
        pd.read_parquet(chunk).assign(cell=meta["cell"]).to_parquet(chunk)
    (out / "results.parquet").unlink()
    extended = run(cell("n_searches=9"), out)
    whole = run(cell("n_searches=9"), tmp_path / "whole")
    assert extended["search_seed"].tolist() == whole["search_seed"].tolist()
    assert extended["score"].tolist() == whole["score"].tolist()
    assert set(extended["cell"]) == {meta["cell"]} and meta["cell"] != seeded_as
    assert extended.iloc[:6]["score"].tolist() == first["score"].tolist()
    assert json.loads((out / "meta.json").read_text())["identity"]["seeded_as"] == seeded_as
    # Its seeds are the seeded_as hash's; another cell with seeded_as absent is not continued.
    assert seed_key(meta["identity"]) == seed_key(cell().identity)
    assert continued_identity(cell("level=2").identity, meta["identity"]) is None


def published_cells():
    for path in sorted((REPO / "results" / "paper").glob(f"*/{PACKED_CELLS}")):
        with gzip.open(path, "rt") as lines:
            yield from (json.loads(line) for line in lines)


def test_every_published_cell_keeps_its_hash_and_its_seeds(tmp_path):
    """Each published cell's config, read today with the default seed scheme, resumes its
    folder with the hash and the seeds it was started with."""
    identities = {"searches": search_identity, "matches": match_identity}
    checked = legacies = 0
    for meta in published_cells():
        config = {**meta["config"], "seeds": "cell"}  # resolved, as run.py resolves a config
        folder = tmp_path / str(checked)
        folder.mkdir()
        (folder / "meta.json").write_text(json.dumps(meta))
        fresh = Cellish(identities[meta.get("kind", "searches")](config))
        assert fresh.identity["seed_scheme"] == "cell"
        resumed = resumed_scheme(fresh, folder)
        assert cell_hash(resumed.identity) == meta["cell"], meta["cell_dir"]
        # Cells published before seed schemes existed keep SeedSequence([seed, i]); those
        # run since (leftmove_coverage) keep their own words.
        legacy = "seed_scheme" not in meta["identity"]
        assert (seed_key(resumed.identity) == ()) == legacy
        checked += 1
        legacies += legacy
    assert checked > 500 and legacies > 500


@dataclasses.dataclass(frozen=True)
class Cellish:
    """What ``resumed_scheme`` reads of a cell."""

    identity: dict


def test_match_cells_draw_their_own_stream():
    from nmcs.search.twoplayer.match import match_seed

    assert match_seed(0, 3) == legacy_seeds(0, 4)[3]
    assert match_seed(0, 3, (1, 2)) != match_seed(0, 3, (1, 3)) != match_seed(0, 3)


def test_an_unknown_seed_scheme_stops_with_one_line():
    with pytest.raises(ConfigError, match="seeds = paired: must be one of cell, common"):
        cell("seeds=paired")
