# Two front doors: `make demo` and `make test`. Both set up .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS := dev,spark,audit,capture,plan,cel,server

.PHONY: demo test test-readme-newest test-dev bench bench-plan bench-spark bench-capture bench-kafka bench-controller bench-yaml bench-opa controller screenshot clean

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
	$(BIN)/pip install --quiet -e '.[$(EXTRAS)]'
	touch $(LINT) $(STAMP)

# the demo's extras: capture, plan, CEL and the in-process audit (no Spark)
DEMO := $(VENV)/.installed-demo

$(DEMO): pyproject.toml $(LINT)
	$(BIN)/pip install --quiet -e '.[demo]'
	touch $(DEMO)

# a quick first look: lint on the bundled examples as soon as the CLI is installed; the
# live capture and the fleet audit install what they need first, and say so; each command
# is echoed as it is run
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
	@echo '# next: a team'"'"'s rules, a plan, a live cluster and a fleet audit. Installing'
	@echo '# policylint[demo] (CEL, OR-Tools, a Kafka client, a local broker, pyarrow) ...'
	@$(MAKE) --no-print-directory $(DEMO)
	@echo '$$ cd examples/team-rules && policylint lint . --select TEAM    # a team'"'"'s own rules, in CEL'
	@cd examples/team-rules && ../../$(BIN)/policylint lint . --select TEAM || true
	@echo '$$ policylint plan examples/clusters/prod-eu-1.json --allow-in-flight --add 7:eu-1a,8:eu-1b,9:eu-1c -o .demo/expand.json --force'
	@mkdir -p .demo
	@$(BIN)/policylint plan examples/clusters/prod-eu-1.json --allow-in-flight --add 7:eu-1a,8:eu-1b,9:eu-1c -o .demo/expand.json --force
	@echo '# a live cluster: a local broker started, captured, and a plan linted against it'
	@$(BIN)/python examples/live/demo.py
	@echo '$$ policylint audit examples/fleet/snapshots --output .demo/fleet --report .demo/fleet-report.html'
	@$(BIN)/policylint audit examples/fleet/snapshots --output .demo/fleet --report .demo/fleet-report.html

# The suite against what users install: the sdist and the wheel built (reproducibly, the wheel
# from the sdist) and checked, the wheel installed with every extra into a fresh venv outside
# this checkout, and pytest run there with the checkout not importable (PYTHONSAFEPATH: no
# script's or working directory is put on sys.path). CI runs this.
TESTENV ?= $(or $(TMPDIR),/tmp)/policylint-wheel-test
DIST_TOOLS := 'build>=1.2' 'twine>=6' 'check-wheel-contents>=0.6'

test: controller
	rm -rf $(TESTENV)
	$(PYTHON) -m venv $(TESTENV)
	$(TESTENV)/bin/pip install --quiet --upgrade pip $(DIST_TOOLS)
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 315532800) \
		$(TESTENV)/bin/python -m build --outdir $(TESTENV)/dist .
	$(TESTENV)/bin/twine check --strict $(TESTENV)/dist/*
	$(TESTENV)/bin/check-wheel-contents $(TESTENV)/dist/*.whl
	$(TESTENV)/bin/pip install --quiet "$$(ls $(TESTENV)/dist/*.whl)[$(EXTRAS)]"
	POLICYLINT_DIST=$(TESTENV)/dist POLICYLINT_INSTALLED=$(TESTENV) PYTHONSAFEPATH=1 \
		$(TESTENV)/bin/pytest

# The Kafka controller plugin's jar (Java 17, Maven: kafka-clients provided, CEL-Java shaded
# in), built again when a source changes; without Maven its tests skip (CI requires them)
CONTROLLER_JAR := controller/target/policylint-controller.jar

controller: $(CONTROLLER_JAR)

$(CONTROLLER_JAR): controller/pom.xml $(shell find controller/src -name '*.java' 2>/dev/null)
	@if command -v mvn >/dev/null; then mvn -q -B -f controller/pom.xml package; \
	else echo "no Maven here: the controller plugin is not built (its tests skip)"; fi

# The README's commands on the newest Python 3.12+ the machine has (the suite runs on 3.11
# above; the README says 3.11+): installed from this checkout into a fresh venv
NEWEST_PYTHON ?= $(shell for v in 3.14 3.13 3.12; do for p in $$(command -v python$$v) \
	$$(ls -d $$HOME/.pyenv/versions/$$v*/bin/python$$v 2>/dev/null); do \
	"$$p" -c 1 >/dev/null 2>&1 && echo "$$p" && exit; done; done)
NEWEST_ENV ?= $(or $(TMPDIR),/tmp)/policylint-newest-python

test-readme-newest:
	@if [ -z "$(NEWEST_PYTHON)" ]; then echo "no Python 3.12+ here: the README's commands ran on 3.11 (make test)"; exit 0; fi; \
	rm -rf $(NEWEST_ENV) && $(NEWEST_PYTHON) -m venv $(NEWEST_ENV) && \
	$(NEWEST_ENV)/bin/pip install --quiet --upgrade pip && \
	$(NEWEST_ENV)/bin/pip install --quiet '.[dev,plan,cel,capture,audit,server]' && \
	PYTHONSAFEPATH=1 $(NEWEST_ENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_readme.py

# The same suite against this checkout, editable in .venv: quicker while working on it
test-dev: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP) controller
	$(BIN)/python bench/run.py
	$(BIN)/python bench/plan.py
	$(BIN)/python bench/server.py
	$(BIN)/python bench/controller.py
	$(BIN)/python bench/opa.py

# YAML parsers that keep positions (rapidyaml) beside PyYAML's C loader, values compared
bench-yaml: $(STAMP)
	$(BIN)/pip install --quiet rapidyaml
	$(BIN)/python bench/yaml_parsers.py

# policylint beside OPA: the same rules in Rego (bench/rego/), OPA built with Go
bench-opa: $(STAMP)
	$(BIN)/python bench/opa.py

# the controller plugin: a validation's latency, and the export of a large policy
bench-controller: $(STAMP) controller
	$(BIN)/python bench/controller.py

# policylint plan beside Kafka's --generate placement and the lower bound (1M partitions)
bench-plan: $(STAMP)
	$(BIN)/python bench/plan.py

# policylint's verdicts asked of a running Apache Kafka, every release from 3.3 to 4.4
# (Java 17+ and Maven: the jars come from Maven Central, once); a few minutes
bench-kafka: $(STAMP)
	$(BIN)/python bench/kafka_oracle.py

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
	rm -rf $(VENV) $(TESTENV) build dist *.egg-info controller/target
