# The two commands: `make run` serves the studio, `make test` runs the whole suite.
# Python 3.12 or newer (the stream's writes start as eager tasks: tables/fanout.py): the first of
# these commands that runs one. `.python-version` names 3.12 for pyenv and uv.
PYTHON ?= $(firstword $(foreach p,python3.12 python3.13 python3.14 python3,$(shell $(p) -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && echo $(p))) python3.12)
VENV := .venv
PY := $(VENV)/bin/python
# Every installed version, with its hashes: pyproject.toml keeps the ranges, `make lock` resolves them.
LOCK := requirements.lock
STAMP := $(VENV)/.installed-$(shell cat $(LOCK) | cksum | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000
# Python keeps the bytecode it compiles. A machine that sets PYTHONDONTWRITEBYTECODE would compile
# the ~1,100 modules a Django process imports again in every process it starts: 2.5 s of CPU a start
# against 0.9 s with the bytecode kept, and the test suite starts about a hundred processes.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test install lock browser migrate demo bench wipe clean

# The environment is made without pip of its own (putting pip in it takes 4 s): the machine's pip
# installs into it (pip's --python); on a machine without pip, pip is put into the environment.
$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null || { echo "The studio needs Python 3.12 or newer (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv --without-pip $(VENV)

# uv (itself pinned and hashed in the lock, installed by pip) installs the lock with the same hash
# checks in a few seconds, downloading in parallel, where pip takes half a minute; pip installs it if
# uv cannot. Both compile the bytecode at install, so no process compiles a library again.
# tests/ops/test_lock_file.py checks that the environment is the locked one either way.
$(STAMP): $(LOCK) | $(PY)
	awk '/^uv==/{p=1} p{print} p && !/\\$$/{exit}' $(LOCK) > $(VENV)/uv-requirement.txt
	pip="$(PYTHON) -m pip --python $(PY)"; $$pip --version >/dev/null 2>&1 || { $(PY) -m ensurepip >/dev/null && pip="$(PY) -m pip"; }; \
	$$pip install -q --no-deps --require-hashes -r $(VENV)/uv-requirement.txt && \
	{ $(PY) -m uv pip install -q --python $(PY) --require-hashes --compile-bytecode -r $(LOCK) || $$pip install -q --require-hashes -r $(LOCK); }
	rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

# After a change to pyproject.toml's dependencies: one set of versions for every supported Python and
# platform (uv's universal resolution, fewest versions per package), every file's hash.
lock: install
	$(PY) -m uv pip compile pyproject.toml --extra test --universal --fork-strategy fewest \
	  --python-version 3.12 --generate-hashes --custom-compile-command "make lock" --quiet -o $(LOCK)

# Debian's Chromium for the browser tests (a test tool's own browser download cannot work here), and
# Debian's Noto fonts, so that Hindi, Nepali and Japanese pages render their letters in it.
BROWSER_PACKAGES := chromium fonts-noto-core fonts-noto-cjk
browser:
	@missing=""; command -v chromium >/dev/null 2>&1 || missing="chromium"; \
	for p in fonts-noto-core fonts-noto-cjk; do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else echo "missing for the browser tests: $$missing (sudo apt-get install $(BROWSER_PACKAGES))"; fi; fi

migrate: install
	$(PY) manage.py migrate --noinput -v 0

demo: migrate
	$(PY) manage.py demo_setup --url http://$(HOST):$(PORT)

# The studio as production runs it (scripts/serve.py): PostgreSQL and Valkey (the studio's own, in
# .studio/, unless DATABASE_URL / REDIS_URL name an operator's), migrated, the demo's data, web, the
# virtual dealer, a Celery worker and beat. Ctrl-C stops all of it.
run: install
	@$(PY) scripts/serve.py --prepare --host $(HOST) --port $(PORT)

# Deletes the studio's own PostgreSQL and Valkey, data and all (refused while they are in use).
wipe: install
	$(PY) -m embedded wipe

# The browser's packages install (`make browser`, output in $(BROWSER_LOG)) while the environment
# is made and the first tests run: the tests marked `long`, handed out first, need no browser. The
# installer holds a lock on $(BROWSER_LOCK) from before the tests start until it ends, the browser
# tests wait for it (tests/browser/conftest.py), and `make test` ends when both have. Meanwhile the
# layers (pyproject.toml, [tool.importlinter]): a broken contract fails in seconds. The pages'
# shared modules under Node's own test runner, then the whole suite in PYTEST_WORKERS pytest-xdist
# workers, a test file each at a time (its module-scoped servers stay in one worker;
# tests/workers.py gives each worker its own database, Redis database and ports).
PYTEST_WORKERS ?= 2
BROWSER_LOCK := $(VENV)/browser-install.lock
BROWSER_LOG := $(VENV)/browser-install.log
test:
	mkdir -p $(VENV); exec 9>$(BROWSER_LOCK); flock 9; $(MAKE) --no-print-directory browser >$(BROWSER_LOG) 2>&1 & exec 9>&-; \
	$(MAKE) --no-print-directory install && $(VENV)/bin/lint-imports --no-cache && node --test tests/js/ && \
	BROWSER_LOCK=$(BROWSER_LOCK) BROWSER_LOG=$(BROWSER_LOG) $(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS); \
	status=$$?; wait; exit $$status

# Benchmarks (not tests): need DATABASE_URL=postgres://... and REDIS_URL; see docs/PERFORMANCE.md.
bench: install
	$(PY) scripts/bench_cards.py
	$(PY) scripts/bench_settle.py
	$(PY) scripts/bench_bets_http.py

clean:
	rm -rf $(VENV) test-artifacts
