# Sevivon: the two commands a newcomer needs are `make run` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

.PHONY: run test setup system-deps lint typecheck screenshots clean

# Installs everything (Debian packages when missing, then a venv) and runs a simulated table.
run: setup
	$(VENV)/bin/sevivon run

# Installs everything the tests need, then runs lint, type checks and the whole test suite.
test: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy controller/rules
	$(PY) -m pytest -n 2 -q

setup: system-deps $(STAMP)

system-deps:
	@bash scripts/install-system-deps.sh

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e '.[dev]'
	touch $(STAMP)

lint:
	$(VENV)/bin/ruff check .

typecheck:
	$(VENV)/bin/mypy controller/rules

clean:
	rm -rf $(VENV) build *.egg-info

# Page screenshots of the display and the judge console (headless Chromium) into docs/screenshots/.
screenshots: setup
	$(PY) scripts/screenshots.py
