"""Hunt a Morpion 5D record, at the scale of a test: budgeted beam searches, the best game
written as Pentasol (.psol), read back (every move replayed and checked), and set beside the
82-move record (docs: Hunt a record). ``python examples/record_hunt.py 1000000`` gives each
search a million playouts."""

import sys
import tempfile
from pathlib import Path

import nmcs
from nmcs.games.morpion.psol import read_psol, write_psol

budget = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000  # playouts per search
state0 = nmcs.make_state("morpion", variant="5D")
seeds = nmcs.search_seeds(0, 0, 2)  # searches 0 and 1 of a cell with seed 0
res = nmcs.search_batch(
    "morpion", state0, seeds, algo="iterative_beam", level=1, beam=[4], max_playouts=budget
)
best = int(res.score.argmax())
path = Path(tempfile.mkdtemp()) / "best.psol"
write_psol(path, res.moves[best])
_, replayed = read_psol(path, variant="5D")  # a ValueError names the first illegal move
assert len(replayed) == res.score[best]
_, record = read_psol("tests/data/record_5D_82.psol", variant="5D")
print(f"best of {len(seeds)} searches: {res.score[best]} moves ({path}); record: {len(record)}")
