# Two entry points on a fresh clone: `make demo` (the main job on a built-in default) and `make test`.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)

# ExtractBench's reference scorer for the differential test (tests/test_differential.py): Python >= 3.12,
# in a venv of its own, never a gtkit dependency.
EB_BASE_PYTHON ?= /root/.pyenv/versions/3.12.1/bin/python
EB_VENV := .venv-eb312
EB_STAMP := $(EB_VENV)/.installed-$(shell sha256sum scripts/extractbench-constraints.txt | cut -c1-12)

.PHONY: demo test install wheel-test extractbench lint mutate test-min

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gtkit demo --out out/demo --force

test: $(STAMP)
	GTKIT_EXTRACTBENCH_PYTHON=$(CURDIR)/$(EB_VENV)/bin/python $(VENV)/bin/python -m pytest

# ruff and mypy, as configured in pyproject.toml (CI runs it).
lint: $(STAMP)
	$(VENV)/bin/ruff check gtkit tests scripts
	$(VENV)/bin/mypy

# The interpreter the differential test runs ExtractBench with (the test is skipped without it).
extractbench: $(EB_STAMP)

$(EB_STAMP): scripts/extractbench-constraints.txt
	$(EB_BASE_PYTHON) -m venv $(EB_VENV)
	$(EB_VENV)/bin/python -m pip install --quiet -c scripts/extractbench-constraints.txt llama-extract-bench==1.0.0
	rm -f $(EB_VENV)/.installed-* && touch $(EB_STAMP)

# The same demo and test suite against a wheel installed in a fresh venv outside the checkout (CI runs it); the
# README goes with the tests, whose test_readme.py runs its "Using it" commands with the wheel's gtkit.
wheel-test: $(STAMP)
	rm -rf dist build && $(VENV)/bin/python -m pip wheel --quiet --no-deps -w dist .
	d=$$(mktemp -d) && $(PYTHON) -m venv $$d/venv \
	  && $$d/venv/bin/python -m pip install --quiet "$$(ls dist/gtkit-*.whl)[dev]" \
	  && cp -r tests README.md $$d/ && cd $$d && venv/bin/gtkit demo --out demo \
	  && venv/bin/python -m pytest -p no:cacheprovider tests && rm -rf $$d

# The suite once at the floors: a fresh venv with every dependency of [project].dependencies and the dev extra at the
# lowest version its range allows (uv's lowest-direct resolution; transitive ones at their newest compatible), checked
# against scripts/lowest_constraints.py before the tests run.
MIN_VENV := .venv-min

test-min:
	rm -rf $(MIN_VENV) && $(PYTHON) -m venv $(MIN_VENV)
	$(MIN_VENV)/bin/python -m pip install --quiet 'uv>=0.5,<1'
	$(MIN_VENV)/bin/uv pip install --quiet --python $(MIN_VENV)/bin/python --resolution lowest-direct -e '.[dev]'
	$(MIN_VENV)/bin/python scripts/lowest_constraints.py --check
	GTKIT_EXTRACTBENCH_PYTHON=$(CURDIR)/$(EB_VENV)/bin/python $(MIN_VENV)/bin/python -m pytest -p no:cacheprovider

# Mutation testing of the scoring core and the synth read-back ([tool.mutmut] in pyproject.toml) with mutmut, in a
# venv of its own; MUTANTS picks the mutants by name (make mutate MUTANTS='gtkit.scoring.normalize*'), and
# `$(MUT_VENV)/bin/mutmut results` and `mutmut show NAME` list and show the survivors afterwards.
MUT_VENV := .venv-mutmut
MUTANTS ?= gtkit.scoring.normalize* gtkit.scoring.pairing*

$(MUT_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(MUT_VENV)
	$(MUT_VENV)/bin/python -m pip install --quiet 'mutmut>=3.8,<4' -e '.[dev]'
	touch $@

mutate: $(MUT_VENV)/.installed
	rm -rf mutants
	$(MUT_VENV)/bin/mutmut run --max-children 2 $(foreach m,$(MUTANTS),'$(m)')
