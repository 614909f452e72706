"""The analysis of the frontier experiments on hand-made results whose right answer is known:
SameGame's totals (the level-3 total is the first search of each position, the best total each
position's best game) and their claims, a game file that does not replay stopping the records
build with one line, the tabu-rule claim rejecting data where tabu is not better, and Morpion
5T at level 4 (P(>= k) with Wilson intervals against scipy, the CPU time to a first 170)."""

import json

import numpy as np
import pandas as pd
import pytest
from helpers import FrameContext
from scipy import stats

from analysis import records, samegame_policy, samegame_records
from analysis.__main__ import main as analysis_main
from analysis.common import (
    AGREES,
    DIFFERS,
    NOT_ENOUGH,
    NOT_REACHED,
    NOT_RUN,
    REACHED,
    Context,
    p_value,
    paper_values,
)
from analysis.independent import samegame_rules as independent

pytestmark = pytest.mark.unit

PAPER = paper_values("samegame_frontier")


def frontier_rows(scores_by_position, cpu=36.0, level=3, policy="tabu"):
    """Searches of the frontier: ``scores_by_position[k]`` lists position k's scores in search
    order (search i of its cell)."""
    rows = [
        {
            "experiment": "samegame_frontier",
            "cell": f"c{k}",
            "cell_dir": f"game.instance={k}",
            "game": "samegame",
            "instance": k,
            "policy": policy,
            "level": level,
            "seed": 0,
            "search": i,
            "score": s,
            "seconds": 2 * cpu,
            "cpu_seconds": cpu,
        }
        for k, scores in enumerate(scores_by_position)
        for i, s in enumerate(scores)
    ]
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- SameGame: totals


def test_the_level3_total_is_the_first_search_and_the_best_total_the_best_game():
    df = frontier_rows([[3000, 3100, 2900], [4000, 3900], [2500, 2500, 2600]])
    df = df.sample(frac=1.0, random_state=1)  # the order of the rows does not matter
    first = samegame_records.first_searches(df)
    assert first["score"].sum() == 3000 + 4000 + 2500
    assert sorted(first["search"]) == [0, 0, 0]
    best = samegame_records.best_games(df)
    assert best["score"].sum() == 3100 + 4000 + 2600
    # The first search to reach a position's best is the one reported (its game is the one the
    # cell saved: a cell keeps a game only when it beats its best so far).
    ties = samegame_records.best_games(frontier_rows([[2500, 2600, 2600]]))
    assert ties["search"].tolist() == [1]


def test_the_interval_of_the_level3_total_sums_the_positions_variances_over_their_searches():
    scores = [[3000, 3100, 2900], [4000, 3900], [2500, 2700, 2600, 2600]]
    mean, low, high, fewest = samegame_records.total_interval(frontier_rows(scores))
    means = [np.mean(s) for s in scores]
    v = np.array([np.var(s, ddof=1) / len(s) for s in scores])
    dof = v.sum() ** 2 / (v**2 / (np.array([len(s) for s in scores]) - 1)).sum()
    half = stats.t.ppf(0.975, dof) * np.sqrt(v.sum())
    assert mean == pytest.approx(sum(means))
    assert (low, high) == pytest.approx((sum(means) - half, sum(means) + half))
    assert fewest == 2
    _, low, high, fewest = samegame_records.total_interval(frontier_rows([[3000], [4000, 3900]]))
    assert fewest == 1 and np.isnan(low) and np.isnan(high)


@pytest.mark.parametrize(
    "per_position, spread, searches, expected",
    [
        # 20 x 3,990 = 79,800 +- 52: above NMCS's 77,934, below NRPA's 80,030
        (3990, 10, 3, {"NMCS level 3": AGREES, "NRPA": DIFFERS}),
        # 20 x 3,800 = 76,000: below both
        (3800, 10, 3, {"NMCS level 3": DIFFERS, "NRPA": DIFFERS}),
        # 20 x 3,900 = 78,000 with a wide spread: the interval holds 77,934 and 80,030
        (3900, 1500, 3, {"NMCS level 3": NOT_ENOUGH, "NRPA": NOT_ENOUGH}),
        # one search a position: no spread, whatever the total
        (4100, 0, 1, {"NMCS level 3": NOT_ENOUGH, "NRPA": NOT_ENOUGH}),
    ],
)
def test_the_level3_claims(per_position, spread, searches, expected):
    offsets = [-spread, spread, 0][:searches] if searches > 1 else [0]
    df = frontier_rows([[per_position + o for o in offsets] for _ in range(20)])
    claims = samegame_records.level_claims(df, PAPER, "cmd")
    assert len(claims) == 2
    for claim in claims:
        label = "NRPA" if "above NRPA's" in claim.claim else "NMCS level 3"
        assert claim.verdict == expected[label], (label, claim.ours)
        assert "rule: the 95% interval of the sum of the per-position means" in claim.ours
        assert f">= {samegame_records.MIN_SEARCHES} searches a position" in claim.ours
        if claim.verdict == DIFFERS:
            assert p_value(claim.verdict) is not None
    first = 20 * per_position + 20 * offsets[0]
    assert f"first search a position {first:,}" in claims[0].ours


def test_short_of_the_20_positions_the_totals_are_not_run():
    df = frontier_rows([[4000, 4100]] * 19)
    claims = samegame_records.level_claims(df, PAPER, "cmd")
    assert [c.verdict for c in claims] == [NOT_RUN, NOT_RUN]
    assert "only 19 of 20 positions run" in claims[0].ours


def test_the_best_total_is_a_record_row_with_what_it_cost(tmp_path):
    df = frontier_rows([[4000, 4100]] * 20, cpu=360.0)  # 80,000 from the first searches
    ctx = Context(tmp_path, "paper")
    claims = samegame_records.best_claims(ctx, df, PAPER, "cmd")
    verdicts = {c.paper.split(" (")[0]: c.verdict for c in claims}
    # 20 x 4,100 = 82,000: above NMCS's 77,934 and NRPA's 80,030, below parallel NRPA's 83,050
    assert verdicts == {"77,934": REACHED, "80,030": REACHED, "83,050": NOT_REACHED}
    ours = claims[0].ours
    assert ours.startswith("82,000: the best of 2 searches a position (40 searches, 4 CPU")
    assert "not a statistical test" in ours
    assert all(p_value(c.verdict) is None for c in claims)


def test_cpu_hours_never_fall_back_to_wall_time():
    df = frontier_rows([[4000, 4100]], cpu=1800.0)
    assert samegame_records.cpu_text(df) == "1"
    df.loc[0, "cpu_seconds"] = np.nan
    assert samegame_records.cpu_text(df) == "not recorded (1 of 2 searches carry no CPU time)"


# ---------------------------------------------------------------- SameGame: game files


def greedy_game(instance):
    """A whole game on standard position ``instance`` in the ``.sgm`` format, played by the plain
    Python rules (always the first group, column by column from the bottom); and its score."""
    from nmcs.games.samegame import io

    rows = io.standard_board(instance).tolist()
    columns, score, lines = independent.columns_of(rows), 0, []
    while independent.any_group(columns):
        c, r = next(
            (c, r)
            for c, column in enumerate(columns)
            for r in range(len(column))
            if len(independent.group(columns, c, r)) >= 2
        )
        columns, gained = independent.play(columns, c, r)
        score += gained
        lines.append(f"{c} {r} +{gained}")
    text = ["colors 5", "board", *(" ".join(map(str, row)) for row in rows), "moves", *lines]
    return "\n".join(text) + "\n", score


def write_frontier(outputs, instance=0, text=None, score=None):
    """outputs/paper/samegame_frontier/game.instance=K: one search, its meta and its game."""
    game, played = greedy_game(instance)
    text, score = text or game, played if score is None else score
    cell = outputs / "paper" / "samegame_frontier" / f"game.instance={instance}"
    (cell / "records").mkdir(parents=True)
    row = frontier_rows([[]] * instance + [[played]], cpu=40.0).assign(cell="h0")
    row.drop(columns="cell_dir").to_parquet(cell / "results.parquet", index=False)
    meta = {"cell": "h0", "config": {"game": {"instance": instance}}, "cpu": "Test CPU", "cores": 4}
    (cell / "meta.json").write_text(json.dumps(meta))
    path = cell / "records" / f"search-00000000-score-{score}.sgm"
    path.write_text(text)
    return path, played


def test_a_replayed_game_is_reported_with_its_command_and_cost(tmp_path):
    path, score = write_frontier(tmp_path, instance=2)
    assert analysis_main(["--outputs", str(tmp_path), "--scale", "paper"]) == 0
    page = (tmp_path / "RECORDS.md").read_text()
    row = next(line for line in page.splitlines() if line.startswith("| 2 (3) |"))
    assert f"| {score:,} | 3 | 1 |" in row
    assert f"`python -m nmcs.harness.rerun {path.parents[1]} --search 0`" in row
    assert "| 0.0111 |" in row  # 40 s of CPU
    assert "| Test CPU, 4 cores |" in page


@pytest.mark.parametrize(
    "spoil, message",
    [
        # a move that is not a group's reference cell: the engine's reader refuses it
        (lambda text, score: (text.replace("moves\n", "moves\n0 14 +0\n"), score), "move 0"),
        # a file named with another score than it replays to
        (lambda text, score: (text, score + 2), "named"),
        # points that are not the move's
        (lambda text, score: (text.replace(" +", " +1", 1), score), "the file says"),
    ],
)
def test_a_game_file_that_does_not_replay_stops_the_records_build_in_one_line(
    tmp_path, capsys, spoil, message
):
    text, score = spoil(*greedy_game(0))
    path, _ = write_frontier(tmp_path, instance=0, text=text, score=score)
    assert analysis_main(["--outputs", str(tmp_path), "--scale", "paper"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"analysis: error: {path}") and message in err, err
    assert not (tmp_path / "RECORDS.md").exists()


def test_the_plain_python_replay_agrees_with_the_engine():
    from nmcs.games.samegame import io
    from nmcs.games.samegame import rules as sg

    for instance in (0, 7):
        text, score = greedy_game(instance)
        replayed = independent.replay_sgm(text)
        assert replayed.score == score
        state0 = sg.state_from_grid(np.array(replayed.board), colors=5)
        h = int(state0[sg.HEIGHT])
        moves = [int(c) * h + int(r) for c, r, _ in independent.parse(text)[1]]
        assert int(io.replay(state0, moves)[sg.SCORE]) == score
    unfinished = "\n".join(text.splitlines()[:-1]) + "\n"
    with pytest.raises(ValueError, match="does not end"):
        independent.replay_sgm(unfinished)


# ---------------------------------------------------------------- SameGame: the tabu rule


def policy_rows(tabu, every, instance=0, bias=()):
    rows = []
    for policy, scores in (("tabu", tabu), ("random", every), ("bias", bias)):
        rows += [
            {
                "experiment": "samegame_gnrpa_bias" if policy == "bias" else "samegame_nrpa_policy",
                "cell": f"{instance}{policy}",
                "game": "samegame",
                "algo": "gnrpa" if policy == "bias" else "nrpa",
                "instance": instance,
                "policy": policy,
                "level": 2,
                "budget_seconds": 3.0,
                "search": i,
                "score": s,
                "playouts": 1000,
                "cpu_seconds": 2.9,
            }
            for i, s in enumerate(scores)
        ]
    return pd.DataFrame(rows)


def policy_ctx(rows, folder):
    """A context that gives each experiment its own rows."""
    by_experiment = {e: rows[rows["experiment"] == e] for e in samegame_policy.EXPERIMENTS}
    return FrameContext(by_experiment, folder)


@pytest.mark.parametrize(
    "tabu_mean, random_mean, n, expected",
    [
        (2600, 2000, 30, AGREES),
        (2000, 2600, 30, DIFFERS),  # tabu worse: rejected, with a p-value
        (2300, 2300, 30, NOT_ENOUGH),  # no difference: the claim does not hold
        (2600, 2000, 29, NOT_ENOUGH),  # below the minimum of 30 a side, however large
    ],
)
def test_the_tabu_rule_claim_holds_only_where_tabu_scores_higher(
    tmp_path, tabu_mean, random_mean, n, expected
):
    noise = np.resize([-150, -50, 0, 50, 150], n)
    frames = [policy_rows(tabu_mean + noise, random_mean + noise, k) for k in (0, 1, 2)]
    claims = samegame_policy.analyze(policy_ctx(pd.concat(frames, ignore_index=True), tmp_path))
    assert [c.claim.split(":")[0] for c in claims] == ["position 0", "position 1", "position 2"]
    for claim in claims:
        assert claim.verdict == expected, claim.ours
        assert "at 3 s a search" in claim.claim
        assert "(Welch 95%; tolerance 0 points;" in claim.ours
        assert f"n = {n}, {n}, at least 30 a side" in claim.ours
    if expected == DIFFERS:
        assert p_value(claims[0].verdict) is not None


def test_the_tabu_rule_against_gnrpas_bias(tmp_path):
    noise = np.resize([-150, -50, 0, 50, 150], 30)
    rows = pd.concat(
        [policy_rows(2600 + noise, 2000 + noise, k, bias=2300 + noise) for k in (0, 1, 2)]
    )
    claims = samegame_policy.analyze(policy_ctx(rows, tmp_path))
    assert len(claims) == 6
    bias = [c for c in claims if "than GNRPA with its bias against the tabu colour" in c.claim]
    assert len(bias) == 3 and all(c.verdict == AGREES for c in bias)
    assert "samegame_gnrpa_bias" in bias[0].command
    assert bias[0].ours.startswith("tabu 2,600, GNRPA's bias 2,300: +300 [")
    # GNRPA's bias above the tabu rule: rejected.
    rows = pd.concat(
        [policy_rows(2000 + noise, 2000 + noise, k, bias=2600 + noise) for k in (0, 1, 2)]
    )
    claims = samegame_policy.analyze(policy_ctx(rows, tmp_path))
    assert [c.verdict for c in claims if "GNRPA" in c.claim] == [DIFFERS] * 3
    # Without the bias experiment, no bias rows: the report's 'not run' list names it.
    claims = samegame_policy.analyze(policy_ctx(rows[rows["policy"] != "bias"], tmp_path))
    assert len(claims) == 3 and not any("GNRPA" in c.claim for c in claims)


def test_the_tabu_rule_claim_without_one_side_is_not_run(tmp_path):
    rows = policy_rows([2600] * 30, [])
    claims = samegame_policy.analyze(policy_ctx(rows, tmp_path))
    assert claims[0].verdict == NOT_RUN and claims[0].ours == "no random searches"
    assert claims[1].ours == "no tabu or random searches"


# ---------------------------------------------------------------- Morpion 5T at level 4


def test_5t_probabilities_are_wilson_intervals():
    scores = [150, 158, 160, 161, 165, 170, 152, 149, 171, 155]
    part = pd.DataFrame({"score": scores, "seconds": 3600.0, "cpu_seconds": 1800.0})
    rows = {r["score_at_least"]: r for r in records.probabilities("5T", 4, part, "exp")}
    for k in (160, 170):
        hits = sum(s >= k for s in scores)
        ci = stats.binomtest(hits, len(scores)).proportion_ci(method="wilson")
        assert (rows[k]["hits"], rows[k]["p"]) == (hits, hits / len(scores))
        assert (rows[k]["p_low"], rows[k]["p_high"]) == pytest.approx((ci.low, ci.high))
        assert rows[k]["clock"] == "CPU"
        assert rows[k]["expected_core_hours"] == pytest.approx(0.5 / (hits / len(scores)))
    # A search without CPU time: the whole hunt in wall time, and said so.
    part.loc[0, "cpu_seconds"] = np.nan
    wall = records.probabilities("5T", 4, part, "exp")[0]
    assert wall["clock"] == "wall" and wall["core_hours_per_search"] == 1.0


def test_the_cpu_time_to_a_first_170_counts_the_searches_up_to_it():
    part = pd.DataFrame(
        {
            "seed": 0,
            "search": [3, 0, 2, 1],
            "score": [172, 160, 171, 150],
            "cpu_seconds": [3600.0, 1800.0, 900.0, 1800.0],
        }
    )
    first = records.first_reach(part, 170)
    assert (first["first_search"], first["searches_spent"]) == (2, 3)
    assert first["cpu_core_hours"] == pytest.approx(1.25)
    row = pd.DataFrame([{**first, "best": 172}]).iloc[0]
    assert records.first_text(row) == (
        "first 170 in search 2, after 1.25 CPU core-hours (the 3 searches up to it)"
    )
    none = records.first_reach(part.assign(score=160), 170)
    assert none["first_search"] is None and none["cpu_core_hours"] == pytest.approx(2.25)
    row = pd.DataFrame([{**none, "best": 160}]).iloc[0]
    assert records.first_text(row) == (
        "170 not reached in 2.25 CPU core-hours (4 searches, best 160)"
    )
    lacking = records.first_reach(part.assign(cpu_seconds=np.nan), 170)
    row = pd.DataFrame([{**lacking, "best": 172}]).iloc[0]
    assert "after CPU time not recorded" in records.first_text(row)


def test_the_level4_record_row_is_reached_only_by_a_saved_replayed_game(tmp_path):
    part = pd.DataFrame(
        {
            "hunt": "morpion_5t_level4",
            "experiment": "morpion_5t_level4",
            "cell": "base",
            "level": 4,
            "seed": 0,
            "search": range(4),
            "score": [150, 160, 171, 165],
            "seconds": 3600.0,
            "cpu_seconds": 3000.0,
        }
    )
    hunts = {"5D": pd.DataFrame(), "5T": part}
    probs = pd.DataFrame(records.probabilities("5T", 4, part, "morpion_5t_level4"))
    firsts = records.level4_firsts(hunts)
    games = pd.DataFrame(
        {"variant": ["5T"], "experiment": ["morpion_5t_level4"], "score": [171], "search": [2]}
    )
    ctx = FrameContext(part, tmp_path)
    claim = records.level4_claims(ctx, hunts, games, probs, firsts)[0]
    assert claim.verdict == REACHED and p_value(claim.verdict) is None
    assert claim.claim == "level-4 NRPA (N = 100) finds a Morpion 5T game of 170 moves or more"
    assert "P(>= 160) 0.750 [" in claim.ours and "P(>= 170) 0.250 [" in claim.ours
    assert "first 170 in search 2, after 2.50 CPU core-hours" in claim.ours
    assert "not a statistical test" in claim.ours
    unsaved = records.level4_claims(ctx, hunts, games.iloc[:0], probs, firsts)[0]
    assert unsaved.verdict == NOT_REACHED


def test_the_nmcs_total_is_table_1s():
    table_1 = paper_values("samegame")["totals"]["level3m"]
    assert PAPER["totals"]["nmcs_level3"]["total"] == table_1
