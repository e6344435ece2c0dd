# mfact: the two commands of the README are `make run` and `make test`.
PY ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# torch 2.13.0 resolves to the CPU wheel on CPU-only machines; see README for CUDA builds.
TORCH_SPEC ?= torch==2.13.0
STAMP := $(VENV)/.mfact-installed

.PHONY: venv run test lint test-all test-slow bench clean

venv: $(STAMP)

$(STAMP): pyproject.toml setup.py Makefile
	test -x $(BIN)/python || $(PY) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q $(TORCH_SPEC)
	$(BIN)/python -m pip install -q -e ".[test,zim,st]"
	touch $(STAMP)

run: venv
	$(BIN)/mfact-tui $(ARGS)

# The CI suite: the linter and the type checker (pyproject.toml [tool.ruff], [tool.mypy]), then
# the wheel built, installed (not editable) in a fresh venv and run on a given text (.ci/wheel-check),
# then everything except tests marked slow, plus the real-model smoke tests marked `ci`.
test: venv lint
	bash .ci/wheel-check $(BIN)/python
	$(BIN)/python -m pytest -m "not slow or ci" $(PYTEST_ARGS)

lint: venv
	$(BIN)/ruff check core tui tests bench
	$(BIN)/mypy

test-all: venv
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-slow: venv
	$(BIN)/python -m pytest -m slow $(PYTEST_ARGS)

bench: venv
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
