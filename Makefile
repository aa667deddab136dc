# Two front doors: `make demo` and `make test`. Both set up .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench bench-plan bench-spark bench-capture screenshot clean

# the CLI alone (seconds), then the extras a part needs when it is reached
LINT := $(VENV)/.installed-lint

$(LINT): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(LINT)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,spark,capture,plan,cel,server]'
	touch $(LINT) $(STAMP)

# a quick first look: lint on the bundled examples as soon as the CLI is installed; the
# live capture and the fleet audit install what they need first, and say so
demo: $(LINT)
	@echo '$$ policylint lint examples/gitops --cluster examples/clusters/prod-eu-1.json --policy examples/policylint.yaml'
	@$(BIN)/policylint lint examples/gitops --cluster examples/clusters/prod-eu-1.json --policy examples/policylint.yaml || true
	@echo
	@echo '$$ policylint lint examples/two-clusters    # one directory per cluster, no --cluster'
	@$(BIN)/policylint lint examples/two-clusters || true
	@echo
	@echo '$$ policylint lint examples/clusters/prod-eu-1.json'
	@$(BIN)/policylint lint examples/clusters/prod-eu-1.json || true
	@echo
	@echo '$$ policylint lint examples/clean --cluster examples/clusters/prod-eu-1.json'
	@$(BIN)/policylint lint examples/clean --cluster examples/clusters/prod-eu-1.json
	@echo
	@echo '# next: a live cluster and a fleet audit. Installing policylint[capture,spark,dev]'
	@echo '# (a Kafka client, a local broker and Apache Spark: pyspark is about 0.5 GB) ...'
	@$(MAKE) --no-print-directory $(STAMP)
	@echo '$$ policylint lint examples/team-rules    # a team'"'"'s own rules, in CEL, in its policy'
	@cd examples/team-rules && ../../$(BIN)/policylint lint . --select TEAM || true
	@echo '$$ policylint plan examples/clusters/prod-eu-1.json --allow-in-flight --repair    # a plan written'
	@$(BIN)/policylint plan examples/clusters/prod-eu-1.json --allow-in-flight --repair > /dev/null || true
	@echo '# a live cluster: a local broker started, captured, and a plan linted against it'
	@$(BIN)/python examples/live/demo.py
	@echo '$$ policylint audit examples/fleet/snapshots --output .demo/fleet --report .demo/fleet-report.html'
	@$(BIN)/policylint audit examples/fleet/snapshots --output .demo/fleet --report .demo/fleet-report.html

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python bench/run.py
	$(BIN)/python bench/plan.py
	$(BIN)/python bench/server.py

# policylint plan beside Kafka's --generate placement and the lower bound (1M partitions)
bench-plan: $(STAMP)
	$(BIN)/python bench/plan.py

bench-spark: $(STAMP)
	$(BIN)/python bench/spark_audit.py

bench-capture: $(STAMP)
	$(BIN)/python bench/capture.py

# The README's picture of the report, made anew from the example fleet (needs Chromium)
screenshot: $(STAMP)
	$(BIN)/policylint audit examples/fleet/snapshots --output .demo/fleet --report .demo/fleet-report.html
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1500 \
		--screenshot=$(CURDIR)/examples/fleet-report.png file://$(CURDIR)/.demo/fleet-report.html

clean:
	rm -rf $(VENV) build dist *.egg-info
