# make run: set up and run the main job; make test: set up and run the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test bench docs playthroughs clean

$(BIN)/taash: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/taash

setup: $(BIN)/taash

run: setup
	$(BIN)/taash check variants/*.yaml variants/house/*.yaml
	$(BIN)/python -m taash.arena.cli.mainjob --data run-data

# the tests also need the optional extras (Ray, for tests/ladder/test_cluster*.py; train, for
# tests/learn/test_ppo.py: torch's CPU build first, which this machine keeps on disk as 2.13.0);
# make run does not
TORCH ?= torch==2.13.0
$(VENV)/.test-extras: $(BIN)/taash pyproject.toml
	$(BIN)/pip install -q '$(TORCH)'
	$(BIN)/pip install -q -e '.[dev,ray,train]'
	touch $@

test: setup $(VENV)/.test-extras
	@if command -v npm >/dev/null; then npm ci --prefix bots/node --no-audit --no-fund --silent; \
	else echo "npm not found: the Node.js bot test will be skipped"; fi
	$(BIN)/python -m pytest

docs: setup
	$(BIN)/python -m taash.interpreter.dsl.guide --write docs/authoring.md
	$(BIN)/python -m taash.interpreter.schema --write grammar/variant.schema.json
	@for v in $$($(BIN)/taash variants); do \
	  mkdir -p docs/rules/$$(dirname $$v); $(BIN)/taash rules $$v > docs/rules/$$v.md || exit 1; \
	done

# rewrite tests/playthroughs/ from the engine (after a deliberate rule or contract change)
playthroughs: setup
	$(BIN)/python -m tests.playthroughs --update

bench: setup
	$(BIN)/python bench/playouts.py

clean:
	rm -rf $(VENV) build *.egg-info
