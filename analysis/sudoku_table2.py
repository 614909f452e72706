"""NMCS paper 5.3 (16x16 Sudoku): Table 2 and the solving effort against the fraction of empty
cells. A standalone script (the "restart until solved" loop does not fit the harness's fixed
number of searches per cell):

    python -m analysis.sudoku_table2 --scale quick|paper [--out DIR] [--fc-cap S]
    python -m analysis          # adds its table, figure and claims to outputs/REPRODUCTION.md

Writes into ``--out`` (default ``outputs/<scale>/sudoku_table2``, where ``python -m analysis``
reads it): ``table2_rows.csv`` (one row per method and problem), ``table2.md``
(totals beside the paper's), ``effort_rows.csv`` and ``effort_vs_empty.png`` (median effort of
forward checking and NMCS level 1 against the empty fraction). ``analysis/sudoku.py`` turns
them into claims of the reproduction report.

Scales (one core):
- quick: Table 2 on the first 10 stored problems, FC capped at 2 s per problem, level 2 without
  memorization on 5; figure: 5 problems per fraction 0.40..0.90, FC capped at 10^6 nodes.
  About 2-4 minutes.
- paper: the 100 stored problems, FC capped at ``--fc-cap`` seconds (the paper's 20,000 s; with
  21 problems at the cap that alone is > 5 days, so ``--fc-cap 600`` is the practical choice and
  the table says which cap was used); figure: 30 problems per fraction, FC capped at 10^8 nodes
  (about 20 s each). Without FC about 15 minutes; with FC at 600 s up to 17 hours.
"""

import argparse
import time
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import yaml

from nmcs.games import sudoku as S
from nmcs.games.sudoku import io as IO
from nmcs.harness.sudoku_solve import solve

PAPER = Path(__file__).resolve().parent / "paper_values" / "sudoku.yaml"
METHODS = {  # key: (method, level, memorize, label)
    "fc": ("fc", 0, False, "forward checking"),
    "sampling": ("sampling", 0, False, "iterative sampling"),
    "l1m": ("nested", 1, True, "NMCS level 1"),
    "l2m": ("nested", 2, True, "NMCS level 2"),
    "l1": ("nested", 1, False, "level 1, no memorization"),
    "l2": ("nested", 2, False, "level 2, no memorization"),
}
SCALES = {
    "quick": dict(problems=10, fc_cap=2.0, l2_problems=5, fig_per=5, fig_fc_nodes=10**6),
    "paper": dict(problems=100, fc_cap=20000.0, l2_problems=100, fig_per=30, fig_fc_nodes=10**8),
}
FRACTIONS = np.round(np.arange(0.40, 0.901, 0.05), 2)


def table2(cfg, seed, log):
    problems = IO.stored_problems()[: cfg["problems"]]
    rows = []
    for key, (method, level, memorize, label) in METHODS.items():
        if key not in cfg.get("methods", METHODS):
            continue
        count = cfg["l2_problems"] if key == "l2" else len(problems)
        for i, problem in enumerate(problems[:count]):
            res = solve(
                S.state_from_grid(problem),
                method,
                level,
                memorize,
                seed=(seed, i),
                max_seconds=cfg["fc_cap"] if method == "fc" else 0.0,
            )
            if res.solved and not IO.check_solution(problem, res.grid):
                raise RuntimeError(f"{key}: wrong solution for problem {i}")
            rows.append(
                dict(
                    method=key,
                    label=label,
                    problem=i,
                    solved=res.solved,
                    searches=res.searches,
                    playouts=res.playouts,
                    seconds=res.seconds,
                    wall=res.wall,
                )
            )
        done = [r for r in rows if r["method"] == key]
        log(f"  {label}: {sum(r['solved'] for r in done)}/{len(done)} solved")
    return pd.DataFrame(rows)


def table2_markdown(df, cfg, paper):
    lines = [
        f"Table 2 (16x16 Sudoku, 66% empty): totals over the stored problems; FC capped at "
        f"{cfg['fc_cap']:g} s per problem (paper: 20,000 s). Effort = playouts (FC: nodes). "
        "Paper times are for 100 problems on a 2009 machine.",
        "",
        "| method | problems | unsolved | total seconds | total playouts / nodes | paper seconds"
        " (100) | paper unsolved |",
        "|---|---|---|---|---|---|---|",
    ]
    for key, (_, _, _, label) in METHODS.items():
        g = df[df["method"] == key]
        if g.empty:
            continue
        unsolved = int((~g["solved"]).sum())
        secs = g["seconds"].sum()
        sec_txt = f"> {secs:.2f}" if unsolved else f"{secs:.2f}"
        ps = paper["seconds"][key]
        paper_txt = f"> {ps:,.2f}" if key == "fc" else f"{ps:,.2f}"
        lines.append(
            f"| {label} | {len(g)} | {unsolved} | {sec_txt} | {int(g['playouts'].sum()):,} | "
            f"{paper_txt} | {paper['unsolved'][key]} |"
        )
    return "\n".join(lines) + "\n"


def effort(cfg, seed, log):
    rows = []
    for frac in FRACTIONS:
        for j in range(cfg["fig_per"]):
            problem = IO.generate(4, float(frac), seed=10_000 + j)
            state = S.state_from_grid(problem, f"generated {frac} #{j}")
            for key in ("fc", "l1m"):
                method, level, memorize, _ = METHODS[key]
                res = solve(
                    state,
                    method,
                    level,
                    memorize,
                    seed=(seed, j, int(frac * 100)),
                    max_playouts=cfg["fig_fc_nodes"] if key == "fc" else 0,
                )
                if res.solved and not IO.check_solution(problem, res.grid):
                    raise RuntimeError(f"{key}: wrong solution at {frac} #{j}")
                rows.append(
                    dict(
                        method=key,
                        empty_fraction=float(frac),
                        problem=j,
                        solved=res.solved,
                        playouts=res.playouts,
                        seconds=res.seconds,
                    )
                )
        log(f"  effort at {frac:.2f} done")
    return pd.DataFrame(rows)


def effort_figure(df, cfg, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label in (("fc", "forward checking (nodes)"), ("l1m", "NMCS level 1 (playouts)")):
        g = df[df["method"] == key].groupby("empty_fraction")
        med = g["playouts"].median()
        ax.plot(med.index, med.values, "o-", label=label)
        if key == "fc":
            # A median at the cap is only a lower bound: more than half the problems hit it.
            capped = g["solved"].mean() <= 0.5
            ax.plot(med.index[capped], med.values[capped], "kx", ms=10, label="median >= cap")
    ax.set_yscale("log")
    ax.set_xlabel("fraction of empty cells")
    ax.set_ylabel("median effort to solve")
    ax.set_title(f"16x16 Sudoku, {cfg['fig_per']} problems per point")
    ax.axvline(0.66, color="grey", ls=":", lw=1)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description="NMCS paper 5.3: Table 2 and effort figure")
    ap.add_argument("--scale", choices=tuple(SCALES), default="quick")
    ap.add_argument("--out", help="output folder (default: outputs/<scale>/sudoku_table2)")
    ap.add_argument("--fc-cap", type=float, help="seconds per problem for FC (Table 2)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-figure", action="store_true")
    args = ap.parse_args()
    cfg = dict(SCALES[args.scale])
    if args.fc_cap is not None:
        cfg["fc_cap"] = args.fc_cap
    numba.set_num_threads(1)
    out = Path(args.out or f"outputs/{args.scale}/sudoku_table2")
    out.mkdir(parents=True, exist_ok=True)
    paper = yaml.safe_load(PAPER.read_text())
    t0 = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", flush=True)

    log(f"Table 2, scale {args.scale}")
    t2 = table2(cfg, args.seed, log)
    t2.to_csv(out / "table2_rows.csv", index=False)
    md = table2_markdown(t2, cfg, paper)
    (out / "table2.md").write_text(md)
    print(md)
    eff = None
    if not args.no_figure:
        log("effort against empty fraction")
        eff = effort(cfg, args.seed, log)
        eff.to_csv(out / "effort_rows.csv", index=False)
        effort_figure(eff, cfg, out / "effort_vs_empty.png")
    log(f"done; `python -m analysis` adds the claims to outputs/REPRODUCTION.md (rows in {out})")


if __name__ == "__main__":
    main()
