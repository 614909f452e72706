"""Figures, tables and the reproduction report, rebuilt from ``outputs/`` by one command:

    python -m analysis            # every scale found under outputs/
    python -m analysis --scale paper
    python -m analysis --from results/paper   # a published folder, into outputs/published/paper/

Each module handles one family of experiments and returns the claims it checked; the papers'
published values are data in ``analysis/paper_values/*.yaml``.
"""
