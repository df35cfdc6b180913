# The README's two commands are `make run` and `make test`; everything they need is installed here.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000
WORKERS ?= 2
# Where gunicorn's workers and the sync worker write their metrics, added up at /metrics;
# emptied at each start (figures of processes from an earlier run would be added in).
METRICS_DIR := $(abspath $(or $(PORTAL_INSTANCE_PATH),instance)/metrics)
export FLASK_APP := wsgi
# `make run` and its setup use the built-in demo orchestrator unless told otherwise
# (make run PORTAL_ORCHESTRATOR_URL=https://orchestrator.example.org).
setup run: export PORTAL_ORCHESTRATOR_URL ?= demo
# Mails and the orchestrator's callbacks link to the portal's own address: the one `make run`
# serves on, unless given (`make run PORTAL_PORTAL_BASE_URL=https://portal.example.org`). The
# set-up needs it too: with mail turned on, every `flask` command checks that mails can link.
setup run: export PORTAL_PORTAL_BASE_URL ?= http://$(HOST):$(PORT)
# The demo's capacity sources (app/capacity/emulators): RECAS-BARI's cluster statistics and a
# Federation Registry, served by `make run` on this port while the demo orchestrator is in use
# (unless PORTAL_CAPACITY_SOURCES names others).
CAPACITY_DEMO_PORT ?= 5081
run: export DEMO_CAPACITY_SOURCES := [{"kind": "cluster-stats", "url": "http://127.0.0.1:$(CAPACITY_DEMO_PORT)/papi/RECAS-BARI", "site": "RECAS-BARI"}, {"kind": "fedreg", "url": "http://127.0.0.1:$(CAPACITY_DEMO_PORT)/fedreg"}]
# Debian packages the test suite starts or drives: a real LDAP server and a real browser.
TEST_APT_PACKAGES := slapd ldap-utils chromium fonts-dejavu-core

.PHONY: run setup test test-deps lint bench clean translations im-venv

$(BIN)/python:
	@if ! $(PYTHON) -c 'import ensurepip, venv' >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv python3-pip; \
	  else echo "Install python3-venv first (sudo apt-get install python3-venv)"; exit 1; fi; fi
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python setup.cfg setup.py pyproject.toml
	$(BIN)/pip install -q -e .
	@touch $@

$(VENV)/.installed-test: $(VENV)/.installed
	$(BIN)/pip install -q -e '.[test]'
	@touch $@

# The compiled catalogues the portal reads; `make translations` refreshes the sources. Installing
# the portal (setup.py) and starting it (create_app) compile them too, with the same code.
MO_FILES := $(patsubst %.po,%.mo,$(wildcard translations/*/LC_MESSAGES/messages.po))

translations/%.mo: translations/%.po $(VENV)/.installed
	$(BIN)/python -m app.catalogues

# Babel skips folders whose name starts with "_" unless told which to skip: templates/_macros
# holds words too. tests/test_translations.py extracts with the same flags.
EXTRACT_FLAGS := -F babel.cfg -k _l -k lazy_gettext -k lazy_ngettext:1,2 --ignore-dirs '.* __pycache__' \
  --no-wrap --sort-by-file --project research-cloud-portal
## translations: collect the words marked in code and templates into translations/*/messages.po
translations: $(VENV)/.installed
	$(BIN)/pybabel -q extract $(EXTRACT_FLAGS) -o translations/messages.pot .
	$(BIN)/pybabel -q update --no-wrap --ignore-obsolete -i translations/messages.pot -d translations

## setup: virtualenv, the portal, its database, the catalogue and two local accounts
setup: $(VENV)/.installed $(MO_FILES)
	$(BIN)/python -m app.instance
	$(BIN)/flask db upgrade
	$(BIN)/flask catalogue import
	$(BIN)/flask users bootstrap
	$(BIN)/flask users groups researcher --add gpu-users
	@# The demo's GPU applications run for a chosen time, so that leases can be seen at work.
	@for template in jupyter-ml-gpu marathon-gpu-container chronos-gpu-job; do \
	  $(BIN)/flask leases set --template $$template --if-unset --default 8h --max-initial 3d \
	    --extend-step 1d --max-extends 3 --cap 14d --extend-window 1d --warn 2h,30m --grace 2h \
	    --failed-cleanup 3d --reason "Demo: GPU time comes back by itself" || exit 1; \
	done
	@# The demo's two sites: RECAS-BARI has free A100s; DEMO-SITE is where the demo orchestrator places.
	@if [ "$$PORTAL_ORCHESTRATOR_URL" = demo ]; then \
	  $(BIN)/flask sites add RECAS-BARI --backend paas --placement sla-recas-bari --if-missing && \
	  $(BIN)/flask sites add DEMO-SITE --backend paas --placement sla-demo-site --if-missing; fi

## run: set up, then serve the portal on http://$(HOST):$(PORT)/
run: setup
	@echo "Serving the portal on http://$(HOST):$(PORT)/ with its worker and the demo's capacity sources (Ctrl-C stops them all)"
	@export PROMETHEUS_MULTIPROC_DIR=$(METRICS_DIR); rm -rf $(METRICS_DIR); mkdir -p $(METRICS_DIR); \
	capacity=; if [ "$$PORTAL_ORCHESTRATOR_URL" = demo ]; then \
	  export PORTAL_CAPACITY_SOURCES="$${PORTAL_CAPACITY_SOURCES:-$$DEMO_CAPACITY_SOURCES}"; \
	  $(BIN)/python -m app.capacity.emulators --port $(CAPACITY_DEMO_PORT) & capacity=$$!; fi; \
	$(BIN)/flask worker & worker=$$!; \
	trap 'kill $$worker $$capacity 2>/dev/null; wait $$worker $$capacity' EXIT; \
	PORTAL_SESSION_COOKIE_SECURE=false $(BIN)/gunicorn -c config/gunicorn.conf.py \
	  --bind $(HOST):$(PORT) --workers $(WORKERS) --access-logfile - wsgi:app

# The Infrastructure Manager the IM backend's tests run for real, in a virtualenv of its own (it is
# GPL-3.0 and a separate process; the portal never imports it). Pinned, without dependency
# resolution: tests/fixtures/im-requirements.txt names every package (ansible-core, not ansible).
IM_VENV ?= .im-venv
IM_REQUIREMENTS := tests/fixtures/im-requirements.txt

$(IM_VENV)/.installed: $(IM_REQUIREMENTS)
	$(PYTHON) -m venv $(IM_VENV)
	$(IM_VENV)/bin/pip install -q --upgrade pip
	$(IM_VENV)/bin/pip install -q --no-deps -r $(IM_REQUIREMENTS)
	@touch $@

## im-venv: the Infrastructure Manager 2.0 the IM backend's tests start
im-venv: $(IM_VENV)/.installed

## test-deps: the Debian packages (when root) and Python packages the tests need
test-deps: $(VENV)/.installed-test $(MO_FILES) $(IM_VENV)/.installed
	@missing=$$(for p in $(TEST_APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "Installing $$missing"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  else echo "Missing Debian packages: $$missing (run make test as root, or install them)"; exit 1; fi; \
	fi

## test: install what the tests need and run them all, browser tests included
test: test-deps
	$(BIN)/python -m pytest -n 2

lint: $(VENV)/.installed-test
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/pre-commit run --all-files
	$(BIN)/python -m app.config_reference --check

## bench: benchmarks that print figures (never part of the test run)
bench: $(VENV)/.installed-test
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(IM_VENV) instance .pytest_cache test-artifacts
