"""Which rows of the report are one statement: a statement is the data it judges.

Rows are grouped into statements in two ways, and a group decided by its first row (the others
are readings of it, shown and not counted):

- by text: readings of one published sentence share ``Claim.statement`` (the two-player
  table's readings, NRPA's playout policies, ...);
- by data: two rows that read the same searches and state the same paper value are one
  statement, whichever experiments hold the searches. The searches are compared by a
  fingerprint of each cell the row reads (``Claim.reads``): the number of its searches, the
  multiset of their settings and outcomes (game, algorithm, level, ...; score, length,
  playouts, ...) and their seeds where they are known. Two experiments that ran the same
  config on the same seeds (a cell run again under another experiment's name) give the same
  fingerprint, so the analysis finds them; no list of them is kept by hand.

A row that reads nothing, or a cell of which the analysis has no rows, keeps its text as its
only identity.
"""

import hashlib
from collections.abc import Callable, Iterable

import pandas as pd

from analysis.common import Claim, Context
from analysis.pairing import SCHEME, SEED
from nmcs.harness.summary import CELL_KEYS

# What a search's outcome is, where its rows have them; seeds (where kept) pin the searches
# themselves.
OUTCOME_COLUMNS = (
    "score",
    "length",
    "playouts",
    "playout_moves",
    "winner",
    "result",
    "solved",
    SEED,
)
# What was run, as the rows record it (not the experiment's name): cells of different settings
# whose outcomes are certain (a depth-1 left move) are not one statement.
SETTING_COLUMNS = (*(key for key in CELL_KEYS if key != "experiment"), SCHEME)


def experiment_rows(ctx: Context, experiment: str) -> pd.DataFrame:
    """The settings and outcomes of every search of an experiment, published counts kept as
    counts (``Context.results(..., counted=True)``: a published left-move experiment would
    expand to 12 million rows), each (cell, search) once, with the seeds a published copy
    dropped put back."""
    return ctx.results(experiment, ["experiment", *SETTING_COLUMNS, *OUTCOME_COLUMNS], counted=True)


def cell_fingerprints(rows: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(experiment, cell) -> a digest of the cell's searches: their number and the multiset of
    their outcomes (rows published as counts weigh their ``count``)."""
    if rows.empty or not {"experiment", "cell"} <= set(rows.columns):
        return {}
    outcome = [c for c in OUTCOME_COLUMNS if c in rows.columns]
    if not outcome:
        return {}
    setting = [c for c in SETTING_COLUMNS if c in rows.columns]
    weight = rows["count"] if "count" in rows.columns else pd.Series(1, rows.index)
    weight = weight.fillna(1)
    # One grouping of the whole frame, settings and outcomes together.
    keys = [rows[c].astype(str) if rows[c].dtype == object else rows[c] for c in
            ("experiment", "cell", *setting, *outcome)]  # fmt: skip
    counts = weight.groupby(keys, dropna=False, sort=True).sum()
    # One pass over the sorted counts (a pandas group per cell took 2 ms each to iterate).
    outcomes: dict[tuple, list[str]] = {}
    searches: dict[tuple, float] = {}
    for key, n in counts.items():
        cell = key[:2]
        outcomes.setdefault(cell, []).append(f"{key[2:]}:{int(n)}")
        searches[cell] = searches.get(cell, 0) + n
    found = {}
    for (experiment, cell), parts in outcomes.items():
        text = f"{int(searches[(experiment, cell)])}|" + "|".join(parts)
        found[(str(experiment), str(cell))] = hashlib.sha1(text.encode()).hexdigest()[:16]
    return found


def fingerprint_claims(claims: list[Claim], results: Callable[[str], pd.DataFrame]) -> None:
    """Set ``Claim.data`` of every claim that reads cells (``reads``), from the rows of each
    experiment it names (``results(experiment)``, read once each): None where a cell has no
    rows or no outcome."""
    experiments = sorted({e for c in claims for e, _ in (c.reads or ())})
    prints: dict[tuple[str, str], str] = {}
    for experiment in experiments:
        prints.update(cell_fingerprints(results(experiment)))
    for c in claims:
        if c.reads and all(cell in prints for cell in c.reads):
            c.data = frozenset(prints[cell] for cell in c.reads)


def _keys(claim: Claim) -> Iterable[tuple]:
    yield ("text", claim.section, claim.statement or claim.claim)
    if claim.data:
        yield ("data", claim.data, claim.paper.strip())


def statement_groups(claims: list[Claim]) -> list[list[Claim]]:
    """The claims grouped into statements (linked by text or by data, see the module's
    docstring), each group in report order, the groups in the order of their first claim."""
    parent = list(range(len(claims)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple, int] = {}
    for i, c in enumerate(claims):
        for key in _keys(c):
            j = first.setdefault(key, i)
            a, b = root(i), root(j)
            parent[max(a, b)] = min(a, b)
    groups: dict[int, list[Claim]] = {}
    for i, c in enumerate(claims):
        groups.setdefault(root(i), []).append(c)
    return [groups[k] for k in sorted(groups)]


def same_searches(group: list[Claim]) -> dict[int, Claim]:
    """The readings of a statement joined to it by data alone (by ``id``), each with the row it
    repeats: the rows the report marks "the same searches as ...". A reading whose text links it
    to the first row is not among them."""
    head = group[0]
    text = ("text", head.section, head.statement or head.claim)
    return {id(c): head for c in group[1:] if next(iter(_keys(c))) != text}
