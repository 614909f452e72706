# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run reproduce-quick test figures lint format bench clean

# Every paper experiment (conf/experiment/*.yaml).
EXPERIMENTS := $(basename $(notdir $(wildcard conf/experiment/*.yaml)))

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The default sweep, then the quick left-move distributions (theory against simulation), then the
# report: outputs/REPRODUCTION.md has the left-move claims filled in.
run: $(STAMP)
	$(PY) run.py -m level=0,1,2,3
	$(PY) run.py -m experiment=leftmove_distributions scale=quick
	$(PY) -m analysis

# Every experiment at quick scale (a pipeline check of every table, figure and claim).
reproduce-quick: $(STAMP)
	set -e; for e in $(EXPERIMENTS); do $(PY) run.py -m experiment=$$e scale=quick progress=false; done
	if [ -f analysis/sudoku_table2.py ]; then $(PY) -m analysis.sudoku_table2 --scale quick; fi
	$(PY) -m analysis --scale quick

test: $(STAMP)
	$(PY) -m pytest -q

figures: $(STAMP)
	$(PY) -m analysis

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy nmcs/harness

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(STAMP)
	$(PY) benchmarks/bench_leftmove.py

clean:
	rm -rf $(VENV) .numba_cache
