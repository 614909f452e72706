"""Options that do not apply, plain experiment names, bounded cells and seeds: each refused by
the pre-flight check in one line naming the key, before any folder is made (docs/safety.md).
File-system faults outside a cell's own files and the inputs a run answers with a line of its
own: tests/test_faults.py."""

import os

import numpy as np
import pytest
from helpers import preflight_error, run_python

import nmcs
from nmcs.core.errors import ConfigError
from nmcs.harness.results import ResultsFileError, read_results

pytestmark = pytest.mark.unit

REFUSED = [
    # memorize and memorize_from: the algorithm's record says it does not memorize
    (("algo=nrpa", "memorize=false"), "memorize: algo=nrpa does not memorize (only algo=nested"),
    (("algo=gnrpa", "memorize=true"), "memorize: algo=gnrpa does not memorize"),
    (("algo=nrpa", "memorize_from=2"), "memorize_from = 2: algo=nrpa does not memorize"),
    (
        ("algo=reflexive", "level=2", "memorize_from=1"),
        "memorize_from: algo=reflexive does not memorize",
    ),
    # match cells read neither level nor algo
    (("experiment=twoplayer_matches", "level=3"), "level: a match cell does not read it"),
    (("experiment=twoplayer_matches", "algo=nrpa"), "algo: a match cell does not read it"),
    (("experiment=twoplayer_matches", "n_searches=5"), "n_searches: a match cell does not"),
    # booleans are true or false, not anything OmegaConf reads as one
    (("progress=2",), "progress = 2: must be true or false"),
    (("stop_at_target=yes",), "stop_at_target = yes: must be true or false"),
    (("memorize=on",), "memorize = on: must be true or false"),
    # one key, once
    (("-m", "level=0,1", "level=2"), "level: given twice on the command line (level=0,1 and"),
    # plain experiment names
    (("experiment_name=../../escape",), "experiment_name = '../../escape': must be a plain name"),
    (("experiment_name=a/b",), "experiment_name = 'a/b': must be a plain name"),
    (("experiment_name=..",), "experiment_name = '..': must be a plain name"),
    (("experiment_name=",), "experiment_name = '': must be a plain name"),
    (("experiment_name='a b'",), "experiment_name = 'a b': must be a plain name"),
    # bounded cells and budgets
    (("n_searches=10000000000000",), "n_searches = 10000000000000: at most 10000000 in one"),
    (
        ("algo=iterative", "budget.seconds=inf"),
        "budget.seconds = inf: must be a finite number > 0",
    ),
    # a seed the results file cannot hold: refused before any search runs
    (("seed=18446744073709551616",), "seed = 18446744073709551616: must be an integer from 0 to"),
    # memorize_from without memorization changes the cell's seeds and nothing else
    (("memorize=false", "memorize_from=2"), "memorize_from = 2: only with memorize=true"),
    # a scheduler address that is none, for whole searches on Dask too
    (
        ("parallel.backend=dask_searches", "parallel.address=notanaddress"),
        "parallel.address = notanaddress: not a scheduler address",
    ),
]


@pytest.mark.parametrize(("argv", "expected"), REFUSED, ids=[" ".join(a) for a, _ in REFUSED])
def test_refused_in_one_line(argv, expected):
    lines = preflight_error(*argv)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"run.py: error: {expected}"), lines[0]


def test_accepted_still():
    """The same keys where they apply pass the check (it refuses by the record, not by name)."""
    from nmcs.harness.cli import _check_read, _given_keys

    assert _given_keys(["level=1", "memorize=false", "algo.beam=[1]"]) == [
        "level",
        "memorize",
        "algo.beam",
    ]
    from nmcs.harness.search_cell import SearchCell  # noqa: F401 - the record decides

    nested = nmcs.algorithm("nested")
    assert nested.memorizes and nmcs.algorithm("iterative").memorizes
    assert not nmcs.algorithm("nrpa").memorizes and not nmcs.algorithm("beam").memorizes
    _check_read({}, ["memorize"])  # a memorizing algorithm: nothing unread


def test_refused_by_run_py_no_folder(tmp_path):
    """Through run.py itself: exit status 2, one line, no folder made."""
    out = tmp_path / "out"
    proc = run_python("run.py", "experiment_name=../../escape", f"hydra.run.dir={out}", check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "run.py: error: experiment_name = '../../escape': must be a plain name of letters, "
        "digits and _-. (not empty, not . or .., no / or spaces)"
    ]
    assert not out.exists()


API_REFUSED = [
    (
        lambda s: nmcs.search_batch("leftmove", s, [1], algo="iterative", max_seconds=np.inf),
        "max_seconds = inf: must be a finite number >= 0",
    ),
    (
        lambda s: nmcs.search_batch("leftmove", s, [1], algo="nrpa", memorize=False),
        "memorize = False: algo=nrpa does not memorize",
    ),
    (
        lambda s: nmcs.search_batch("leftmove", s, [1], algo="nrpa", memorize_from=2),
        "memorize_from = 2: algo=nrpa does not memorize",
    ),
    (
        lambda s: nmcs.search_batch("leftmove", s, [1], algo="beam", beam="abc"),
        "algo.beam = 'abc': one size for every level",
    ),
    (
        lambda s: nmcs.search_batch("leftmove", s, [1], algo="beam", beam=[1, True]),
        "algo.beam = [1, True]: one size",
    ),
    (lambda s: nmcs.search_seeds(-1, 0, 3), "seed = -1: must be an integer >= 0"),
    (lambda s: nmcs.search_seeds(2**63, 0, 3), "seed = 9223372036854775808: must be an integer"),
    (lambda s: nmcs.search_seeds(0, -2, 3), "start = -2: must be an integer >= 0"),
    (lambda s: nmcs.search_seeds(0, 0, 2.5), "count = 2.5: must be an integer >= 0"),
    (lambda s: nmcs.best_score_probability(9.0, 3), "depth must be an integer, got 9.0"),
    (lambda s: nmcs.best_score_probability(9, "3"), "level must be an integer, got '3'"),
]


@pytest.mark.parametrize(("call", "expected"), API_REFUSED)
def test_api_refusals_name_the_argument(call, expected):
    state = nmcs.make_state("leftmove", depth=5)
    with pytest.raises(ValueError) as error:
        call(state)
    assert str(error.value).startswith(expected), str(error.value)
    assert "\n" not in str(error.value)


def test_api_numpy_integers_accepted():
    """numpy integers wherever ints are: the same values as the ints give."""
    assert nmcs.best_score_probability(np.int64(9), np.int32(3)) == nmcs.best_score_probability(
        9, 3
    )
    assert (
        nmcs.search_seeds(np.int64(3), np.int64(0), np.int64(2)) == nmcs.search_seeds(3, 0, 2)
    ).all()
    from nmcs.harness.batch import algo_config

    nrpa = nmcs.algorithm("nrpa")
    config = algo_config(nrpa, {"iterations": np.int64(10), "alpha": np.float32(0.5)})
    assert config.iterations == 10 and type(config.iterations) is int
    nrpa.config.check(config, nmcs.Settings(level=1))  # accepted as the int 10


def test_read_results_names_the_path_as_given(tmp_path):
    with pytest.raises(ResultsFileError, match=r"^no results file 'x/results.parquet'$"):
        read_results("x/results.parquet")
    bad = tmp_path / "results.parquet"
    bad.write_bytes(b"PAR1 not parquet")
    with pytest.raises(ResultsFileError, match=rf"^{bad}: unreadable results file"):
        nmcs.read_results([bad])
    with pytest.raises(ResultsFileError, match=r"^no experiment folder 'nope/x'$"):
        nmcs.experiment_results("nope/x")


def test_config_error_is_the_api_error():
    assert issubclass(ResultsFileError, ValueError) and issubclass(ConfigError, ValueError)


def test_numbas_error_becomes_one_plain_line_coloured_or_not():
    """``compile_error`` keeps one line of numba's message, without the ANSI colours numba adds
    where colorama is installed and numba was imported before ``nmcs`` (which asks numba for
    plain messages: ``NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING``)."""
    from nmcs.core.errors import compile_error

    assert os.environ.get("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING")  # set by importing nmcs
    plain = (
        "Failed in nopython mode pipeline (step: nopython frontend)\n"
        "No implementation of function Function(<built-in function add>) found for signature:\n"
        " \n >>> add(int64, unicode_type)\n"
        'File "kernels.py", line 7:\ndef legal_moves(state, out):\n    <source elided>\n'
    )
    coloured = "\x1b[1m" + plain.replace("No", "\x1b[1mNo").replace("7:", "7:\x1b[0m") + "\x1b[0m"
    for text in (plain, coloured):
        said = str(compile_error("game toy (toy.py)", Exception(text)))
        assert said == (
            "game toy (toy.py): numba cannot compile legal_moves "
            f"({os.path.abspath('kernels.py')}, line 7): No implementation of function "
            "Function(<built-in function add>) found for signature: >>> add(int64, unicode_type); "
            "fix it to compile in nopython mode"
        ), said
