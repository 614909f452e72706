# The two commands of the README: `make run` and `make test`; `make docs` builds the site.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.installed-docs

.PHONY: run reproduce-quick test test-fast docs figures lint format bench clean

# Every paper experiment (conf/experiment/*.yaml).
EXPERIMENTS := $(basename $(notdir $(wildcard conf/experiment/*.yaml)))

# pip byte-compiles what it installs on one core (20 of a fresh install's 40 s here);
# compileall does the same on every core, leaving out what nothing here imports or what only
# the documentation build's process imports a few modules of (the dependencies' own tests, pip
# and setuptools, mypy's sources (its compiled modules load instead), urllib3, fsspec, the
# site's lexers, locales and theme: 4,300 of 7,700 files; the rest takes 9 s, 11 with those).
NOT_COMPILED := /(tests?|testing|pip|setuptools|_vendor|pkg_resources|mypy|mypyc|urllib3|fsspec|pygments|babel|material|backrefs|tzdata|watchdog)/
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --no-compile -e ".[dev]"
	$(PY) -m compileall -q -j 0 -x "$(NOT_COMPILED)" $(VENV)/lib
	touch $(STAMP)

# The documentation site's packages (the docs extra of pyproject.toml), only for the targets
# that build the site: they took 10 of a fresh install's 27 s here, which `make test-fast`
# does without. Installed by name, so that the package itself is not built again; the names
# are read when the recipe runs, each quoted for the shell.
DOCS_REQUIREMENTS = $(shell $(PY) -c "import tomllib; print(*map(repr, tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['docs']))")
$(DOCS_STAMP): $(STAMP)
	$(PY) -m pip install --quiet --no-compile $(DOCS_REQUIREMENTS)
	$(PY) -m compileall -q -j 0 -x "$(NOT_COMPILED)" $(VENV)/lib
	touch $(DOCS_STAMP)

# The default sweep, then the quick left-move distributions (theory against simulation), then the
# report: outputs/REPRODUCTION.md has the left-move claims filled in.
run: $(STAMP)
	$(PY) run.py -m level=0,1,2,3
	$(PY) run.py -m experiment=leftmove_distributions scale=quick
	$(PY) -m analysis

# Every experiment at quick scale (a pipeline check of every table, figure and claim).
reproduce-quick: $(STAMP)
	set -e; for e in $(EXPERIMENTS); do $(PY) run.py -m experiment=$$e scale=quick progress=false; done
	$(PY) -m analysis --scale quick

# Both cores (pytest-xdist), a test file per worker: a file's module fixtures (quick
# experiments) run once; the slowest files first (tests/conftest.py, timed in the last runs).
test: $(DOCS_STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

# The fast tier (tests/conftest.py, TIERS): rules, records, checks and small searches, every
# module of the package; most of its time from an empty cache is numba compiling.
test-fast: $(STAMP)
	$(PY) -m pytest -q -n auto --dist loadfile --no-loadscope-reorder --tier unit

# The documentation site into site/ (its reference pages generated from the registries);
# `make test` builds it too, with --strict (tests/test_docs.py).
docs: $(DOCS_STAMP)
	$(VENV)/bin/mkdocs build --strict

figures: $(STAMP)
	$(PY) -m analysis

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Every game's speed benchmark, the left move beside a plain-C reference of the same algorithm
# (built with the system C compiler); `make bench REF=<commit>`: the work tree against that
# commit, in interleaved pairs (benchmarks/compare_commits.py).
bench: $(STAMP)
ifdef REF
	$(PY) benchmarks/compare_commits.py --ref $(REF)
else
	$(PY) benchmarks/bench_vs_c.py
	$(PY) benchmarks/bench_leftmove.py --seconds 1
	$(PY) benchmarks/bench_morpion.py --seconds 1
	$(PY) benchmarks/bench_samegame.py --seconds 0.2
	$(PY) benchmarks/bench_sudoku.py --problems 20 --methods l1m,l2m
endif

clean:
	rm -rf $(VENV) .numba_cache
