# Two front doors: `make demo` and `make test`. Both set up .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,spark]'
	touch $(STAMP)

demo: $(STAMP)
	@echo '$$ policylint lint examples/gitops --cluster examples/clusters/prod-eu-1.json --policy examples/policylint.yaml'
	@$(BIN)/policylint lint examples/gitops --cluster examples/clusters/prod-eu-1.json --policy examples/policylint.yaml || true
	@echo
	@echo '$$ policylint lint examples/clusters/prod-eu-1.json'
	@$(BIN)/policylint lint examples/clusters/prod-eu-1.json || true
	@echo
	@echo '$$ policylint lint examples/clean --cluster examples/clusters/prod-eu-1.json'
	@$(BIN)/policylint lint examples/clean --cluster examples/clusters/prod-eu-1.json

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py

clean:
	rm -rf $(VENV) build dist *.egg-info
