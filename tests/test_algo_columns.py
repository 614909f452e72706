"""Algorithm options as typed result columns (``algo_<key>``): results written before those
columns existed have only the ``algo_options`` string, which the reader parses in one place
(``nmcs.harness.results.with_algo_columns``), so the analysis reads columns only."""

from dataclasses import fields

import numpy as np
import pandas as pd
import pytest
from helpers import REPO

from nmcs.harness.results import experiment_results, parse_algo_options, with_algo_columns

pytestmark = pytest.mark.unit

# Every format of the string in results/paper, and those the writer can give.
LEGACY = {
    "": {},
    "beam=(1,)": {"beam": [1]},
    "beam=(128,)": {"beam": [128]},
    "beam=(1, 16)": {"beam": [1, 16]},
    "beam=[1, 2]": {"beam": [1, 2]},
    "games=(100, 1000)": {"games": [100, 1000]},
    "games=(1, 1)": {"games": [1, 1]},
    "games=100": {"games": 100},  # the Python API takes an int
    "games=None": {"games": None},  # reflexive level 0
    "uct_c=0.1,uct_nodes=0,uct_edges=0": {"c": 0.1, "nodes": 0, "edges": 0},
    "uct_c=1.0,uct_nodes=2000,uct_edges=64000": {"c": 1.0, "nodes": 2000, "edges": 64000},
    "uct_c=0.03,uct_nodes=0,uct_edges=0": {"c": 0.03, "nodes": 0, "edges": 0},
    "k=4": {"k": 4},  # an algorithm registered from outside: its own key
}


@pytest.mark.parametrize("text", LEGACY)
def test_the_legacy_string_parses_into_typed_options(text):
    assert parse_algo_options(text) == LEGACY[text]


def test_the_parser_reads_what_the_writer_writes_for_every_algorithm():
    from nmcs.harness.batch import algo_options_string, api_options
    from nmcs.search.registry import algorithm, names

    for name in names():
        algo = algorithm(name)
        config = algo.config()
        written = algo_options_string(api_options(algo, config))
        keys = [f.name for f in fields(config) if f.name in algo.option_names()]
        assert parse_algo_options(written) == {k: getattr(config, k) for k in keys}, name


def test_legacy_rows_get_typed_columns_and_new_rows_pass_unchanged():
    legacy = pd.DataFrame(
        {
            "algo": ["beam", "uct", "nested", "reflexive"],
            "algo_options": ["beam=(1, 2)", "uct_c=0.3,uct_nodes=0,uct_edges=0", "", "games=(10,)"],
        }
    )
    df = with_algo_columns(legacy)
    assert df["algo_beam"].tolist() == [[1, 2], None, None, None]
    assert df["algo_games"].tolist() == [None, None, None, [10]]
    assert df["algo_c"].dtype == float and df["algo_c"].iloc[1] == 0.3
    assert np.isnan(df["algo_c"].iloc[[0, 2, 3]]).all()
    assert str(df["algo_nodes"].dtype) == "Int64" and df["algo_nodes"].iloc[1] == 0
    assert "algo_beam" not in legacy  # the input is not modified
    # A row that has its typed column keeps it, even where the string says otherwise; a packed
    # file holding new and old rows fills only the old ones.
    new = pd.DataFrame(
        {
            "algo": ["uct", "uct"],
            "algo_options": ["uct_c=0.1,uct_nodes=0,uct_edges=0"] * 2,
            "algo_c": [0.5, np.nan],
            "algo_nodes": [7, None],
            "algo_edges": [8, None],
        }
    )
    df = with_algo_columns(new)
    assert df["algo_c"].tolist() == [0.5, 0.1] and df["algo_nodes"].tolist() == [7, 0]
    typed = new.iloc[:1].astype({"algo_nodes": "int64", "algo_edges": "int64"})
    pd.testing.assert_frame_equal(with_algo_columns(typed), typed)
    beams = pd.DataFrame(
        {"algo": "beam", "algo_options": ["beam=(1, 2)"], "algo_beam": [np.array([1, 2])]}
    )
    assert with_algo_columns(beams)["algo_beam"].iloc[0] is beams["algo_beam"].iloc[0]
    # Only the options asked for.
    assert "algo_nodes" not in with_algo_columns(legacy, ["c"])


def test_the_committed_paper_results_read_with_typed_columns():
    published = REPO / "results" / "paper"
    if not (published / "mcbs_table1" / "results.parquet").exists():
        pytest.skip("no published paper-scale results in this checkout")
    beams = experiment_results(published / "mcbs_table1", columns=["algo_beam"])
    assert {tuple(b) for b in beams["algo_beam"]} >= {(1, 1), (1, 32), (32, 1), (4, 8)}
    assert "algo_options" not in beams
    uct = experiment_results(published / "morpion_reflexive_uct_c")
    assert sorted(uct["algo_c"].unique()) == [0.03, 0.1, 0.3, 1.0, 3.0]
    games = experiment_results(published / "morpion_reflexive_table4_5")
    assert [100, 1000] in games["algo_games"].tolist()
