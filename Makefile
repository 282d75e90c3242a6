# make run: set up and run the main job; make test: set up and run the tests.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup run test bench clean

$(BIN)/taash: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/taash

setup: $(BIN)/taash

run: setup
	$(BIN)/taash check variants/*.yaml variants/house/*.yaml
	@for v in 29 28 house/29-hidden-trump; do \
	  $(BIN)/taash simulate $$v --matches 3 --seed 1 || exit 1; \
	done

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python bench/playouts.py

clean:
	rm -rf $(VENV) build *.egg-info
