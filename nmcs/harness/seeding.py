"""How the items of a cell are seeded: one record that the search cells, the match cells, the
cell driver and ``analysis.restore`` read.

Item i (a search, a match) of a cell with base ``seed`` is seeded from the first word of::

    SeedSequence([seed, i, *key])

where ``key`` depends on the cell's seed scheme (config key ``seeds``):

- ``cell`` (the default): ``key`` is the two 32-bit words of the cell's identity hash
  (``nmcs.harness.cell.cell_hash``). Every cell draws its own stream, so two cells run with
  ``seed=0`` share no search seed, and cells compared in one claim are independent samples.
  The identity holds ``"seed_scheme": "cell"``.
- ``common``: ``key`` is empty, search i of every cell with the same ``seed`` uses the same
  seed (common random numbers). Its identity has no ``seed_scheme`` entry: a cell written
  before seed schemes existed is such a cell, keeps its hash and extends under the same seeds.
  Claims that compare two such cells pair their searches by index (``analysis.common``).

A folder that holds a cell started under ``common`` seeds (its ``meta.json`` has no
``seed_scheme``) is continued under them even when the config asks for ``cell``
(``resumed_scheme``), so a published cell extends with the seeds it was started with.

A cell whose identity was corrected after it ran (``analysis.migrate_policy``: a game option
that its searches never read, recorded at a value they did not play) has a new hash but was
seeded from the old one. Its identity then holds ``"seeded_as": <the old hash>``, whose words
seed its items instead of its own hash's, and a config that gives the corrected identity
continues such a folder under them (``resumed_scheme``): every search of the cell, old and new,
is seeded from the identity it records.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

# The largest base seed: the ``seed`` column of every results file is int64.
MAX_SEED = 2**63 - 1

SEED_SCHEMES = ("cell", "common")
DEFAULT_SCHEME = "cell"
IDENTITY_KEY = "seed_scheme"
# The hash whose words seed a corrected cell's items (``cell`` scheme), where it is not its own.
SEEDED_AS_KEY = "seeded_as"


def cell_hash(identity: dict[str, Any]) -> str:
    """A short stable name of a cell's identity (the ``cell`` column of its rows; its words
    seed the cell's searches under the ``cell`` scheme)."""
    text = json.dumps(identity, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def scheme_identity(identity: dict[str, Any], scheme: str) -> dict[str, Any]:
    """``identity`` (without the ``seeds`` config key) with the entry of ``scheme``: under
    ``common`` none, so such a cell has the hash it had before seed schemes existed."""
    identity = {k: v for k, v in identity.items() if k not in ("seeds", IDENTITY_KEY)}
    if scheme != "common":
        identity[IDENTITY_KEY] = scheme
    return identity


def identity_scheme(identity: dict[str, Any]) -> str:
    """The seed scheme of a cell from its identity (``common`` where it names none)."""
    return str(identity.get(IDENTITY_KEY, "common"))


def seed_key(identity: dict[str, Any]) -> tuple[int, ...]:
    """The words that enter every item seed of the cell of ``identity``: the two halves of its
    hash under the ``cell`` scheme, none under ``common``."""
    if identity_scheme(identity) == "common":
        return ()
    name = str(identity.get(SEEDED_AS_KEY) or cell_hash(identity))
    return (int(name[:8], 16), int(name[8:], 16))


def item_seeds(seed: int, indices: Iterable[int], key: tuple[int, ...] = ()) -> np.ndarray:
    """The uint64 seeds of items ``indices`` of a cell with base ``seed`` and seed ``key``; an
    item's seed depends on neither the chunking nor the number of workers."""
    return np.array(
        [
            np.random.SeedSequence([int(seed), int(i), *key]).generate_state(1, np.uint64)[0]
            for i in indices
        ],
        dtype=np.uint64,
    )


def continued_identity(identity: dict[str, Any], old: Any) -> dict[str, Any] | None:
    """The identity of a folder's cell (``old``, its ``meta.json``'s) that a config of
    ``identity`` continues under the seeds it was started with, where it is not ``identity``
    itself: the same cell started under ``common`` seeds (no ``seed_scheme``), or a corrected
    cell seeded as another hash (``seeded_as``). None where ``old`` is another cell."""
    if not isinstance(old, dict) or old == identity or identity_scheme(identity) == "common":
        return None
    if old == scheme_identity(identity, "common"):
        return old
    if old.get(SEEDED_AS_KEY) and {k: v for k, v in old.items() if k != SEEDED_AS_KEY} == identity:
        return old
    return None


Cell = TypeVar("Cell")


def resumed_scheme(cell: Cell, out_dir: Path) -> Cell:
    """``cell``, or the same cell under the seeds ``out_dir`` already holds it started with
    (``continued_identity``: ``common`` seeds, or those of the hash it is ``seeded_as``): a
    cell extends with the seeds it was started with."""
    identity: dict[str, Any] = getattr(cell, "identity")  # noqa: B009 - any kind of cell
    meta_path = Path(out_dir) / "meta.json"
    if not meta_path.exists():
        return cell
    try:
        old = json.loads(meta_path.read_text()).get("identity")
    except (OSError, ValueError):
        return cell
    continued = continued_identity(identity, old)
    if continued is None:
        return cell
    return dataclasses.replace(cell, identity=continued)  # type: ignore[type-var]
