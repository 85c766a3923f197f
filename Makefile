# Slugline: `make run` serves the site, `make test` runs the suite (README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
export PORT

.PHONY: run test typecheck devdb devdb-stop venv clean

run: $(STAMP)
	@$(PY) -m infra.devdb run -- $(PY) -m slugline.serve

# mypy over what pyproject.toml's [tool.mypy] names (the comment stores, strictly).
typecheck: $(STAMP)
	@$(PY) -m mypy

test: $(STAMP) typecheck
	@bash tools/browser-setup.sh
	@bash tools/redis-setup.sh
	@$(PY) -m infra.devdb run -- $(PY) -m pytest $(PYTEST_ARGS)

devdb: $(STAMP)
	@$(PY) -m infra.devdb start

devdb-stop: $(STAMP)
	@$(PY) -m infra.devdb stop

venv: $(STAMP)

$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Slugline needs Python 3.11 or newer; set PYTHON=/path/to/python3.11.")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	@touch $@

clean:
	rm -rf $(VENV) var/build
