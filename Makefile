# Two commands from a fresh clone: `make demo` and `make test`. Both create .venv at the repo root.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
# The CPU build of torch that lies on the build machines' disk; a looser pin pulls a multi-GB CUDA build.
TORCH_PIN := torch==2.13.0

.PHONY: demo test test-fast install install-dev install-lint lint format clean sandbox-image sandbox-image-languages bench bench-quick

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.core-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q $(TORCH_PIN)
	$(PIP) install -q -e '.[dev,train,ray,serve,ray-serve]'
	touch $@ $(VENV)/.core-installed

# Lint-only: the core package, ruff, mypy and the stubs mypy needs; no torch.
$(VENV)/.lint-installed: pyproject.toml | $(BIN)/python
	$(PIP) install -q -e '.[lint]'
	touch $@ $(VENV)/.core-installed

install: $(VENV)/.core-installed

install-dev: $(VENV)/.dev-installed

install-lint: $(VENV)/.lint-installed

# The tools extra (jsonschema): the tool-call example checks arguments against the tools' schemas.
$(VENV)/.tools-installed: pyproject.toml | $(VENV)/.core-installed
	$(PIP) install -q -e '.[tools]'
	touch $@

# The ifeval extra (langdetect): the instruction-following example's language and case checks.
$(VENV)/.ifeval-installed: pyproject.toml | $(VENV)/.core-installed
	$(PIP) install -q -e '.[ifeval]'
	touch $@

demo: $(VENV)/.core-installed $(VENV)/.tools-installed $(VENV)/.ifeval-installed
	$(BIN)/rewardkit verify math --reference '\frac12' 'The answer is \boxed{0.5}'
	$(BIN)/rewardkit score --reward examples/math_spec.yaml --input examples/math.jsonl --output examples/out/math_scored.jsonl
	$(BIN)/rewardkit score --reward examples/mcq_spec.yaml --input examples/mcq.jsonl --output examples/out/mcq_scored.jsonl
	$(BIN)/rewardkit score --reward examples/mixed_spec.yaml --input examples/mixed.jsonl --output examples/out/mixed_scored.jsonl --workers 2
	$(BIN)/rewardkit score --reward examples/code_spec.yaml --input examples/code.jsonl --output examples/out/code_scored.jsonl --workers 2
	$(BIN)/rewardkit score --reward examples/length_budget_spec.yaml --input examples/length_budget.jsonl --output examples/out/length_budget_scored.jsonl
	$(BIN)/rewardkit score --reward examples/tool_calls_spec.yaml --input examples/tool_calls.jsonl --output examples/out/tool_calls_scored.jsonl
	$(BIN)/rewardkit score --reward examples/ifeval_spec.yaml --input examples/ifeval.jsonl --output examples/out/ifeval_scored.jsonl
	$(BIN)/rewardkit score --reward examples/code_datasets_spec.yaml --input examples/code_datasets.jsonl --output examples/out/code_datasets_scored.jsonl --workers 2

test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest

# The inner loop: everything but the Docker, hostile-program, training and slow tests (`make test` runs all).
test-fast: $(VENV)/.dev-installed
	$(BIN)/python -m pytest -m "not docker and not hostile and not train and not slow"

# Every performance target against its same-run baseline, one table (several minutes; bench-quick: ~1).
bench: $(VENV)/.dev-installed
	$(BIN)/rewardkit bench

bench-quick: $(VENV)/.dev-installed
	$(BIN)/rewardkit bench --quick

# The Docker sandbox image (rewardkit-sandbox:latest); a no-op when it exists. Needs a running engine.
sandbox-image: $(VENV)/.core-installed
	$(BIN)/rewardkit sandbox-image

# The variant with the native toolchains (gcc, g++, JDK, Go, rustc, node): rewardkit-sandbox:languages.
sandbox-image-languages: $(VENV)/.core-installed
	$(BIN)/rewardkit sandbox-image --languages all

lint: $(VENV)/.lint-installed
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/ruff format --check src tests examples benchmarks
	$(BIN)/mypy

# Rewrites files: the formatter, then ruff's safe fixes (import order, unused noqa).
format: $(VENV)/.lint-installed
	$(BIN)/ruff format src tests examples benchmarks
	$(BIN)/ruff check --fix src tests examples benchmarks

clean:
	rm -rf $(VENV) build dist src/*.egg-info
