# Two entry points on a fresh clone: `make demo` (the main job on a built-in default) and `make test`.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-$(shell sha256sum pyproject.toml | cut -c1-12)

.PHONY: demo test install wheel-test

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gtkit demo --out out/demo --force

test: $(STAMP)
	$(VENV)/bin/python -m pytest

# The same demo and test suite against a wheel installed in a fresh venv outside the checkout (CI runs it).
wheel-test: $(STAMP)
	rm -rf dist && $(VENV)/bin/python -m pip wheel --quiet --no-deps -w dist .
	d=$$(mktemp -d) && $(PYTHON) -m venv $$d/venv \
	  && $$d/venv/bin/python -m pip install --quiet "$$(ls dist/gtkit-*.whl)[dev]" \
	  && cp -r tests $$d/ && cd $$d && venv/bin/gtkit demo --out demo \
	  && venv/bin/python -m pytest -p no:cacheprovider tests && rm -rf $$d
