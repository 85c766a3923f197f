# Slugline: `make run` serves the site, `make test` runs the suite (README.md).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PORT ?= 8000
export PORT
# Python writes its byte-code caches (__pycache__/, git-ignored) even where the shell
# says not to: without them every test process rewrites the tests' asserts and every
# server or command a test starts compiles the project anew (docs/testing.md, "Time").
unexport PYTHONDONTWRITEBYTECODE
# Translations (the site's in locale/, the comments app's in comments/locale/): each
# catalog compiled when its .po is newer than its .mo.
# msgfmt comes from Debian's gettext package; the .mo files are not committed.
PO := $(wildcard locale/*/LC_MESSAGES/django.po comments/locale/*/LC_MESSAGES/django.po)
MO := $(PO:.po=.mo)
LANGUAGE_CODES := vi hi id

.PHONY: run test typecheck devdb devdb-stop venv clean compilemessages messages \
	devdb-cluster devdb-cluster-stop devdb-cluster-add-worker test-cluster html-check wheel-check

run: $(STAMP) $(MO)
	@$(PY) -m devdb run -- $(PY) -m slugline.serve

# mypy over what pyproject.toml's [tool.mypy] names (the comments app and infra/, strictly).
typecheck: $(STAMP)
	@$(PY) -m mypy

# The suite runs on TEST_WORKERS processes (pytest-xdist), each module on one of them (the
# browser tier's modules together, tests/scheduling.py): one more than the cores, since a
# process often waits on a server starting, a subprocess or a sleep (docs/testing.md);
# TEST_WORKERS=0 runs it in this process. The cluster tier runs on CLUSTER_TEST_WORKERS (2:
# its own servers keep the cores busy, and a third process was slower there).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
CLUSTER_TEST_WORKERS ?= 2
test: $(STAMP) $(MO) typecheck
	@bash tools/browser-setup.sh
	@bash tools/redis-setup.sh
	@$(PY) -m devdb run -- $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)
	@$(PY) -m devdb run -- $(PY) -m pytest -c tests/hosts/recipes/pytest.ini -q

# The Nu HTML Checker over every page type (tools/html_check.py, docs/testing.md):
# Java 17+ and vnu.jar (npm ci in tools/html-check/). Not part of `make test`.
html-check: $(STAMP) $(MO)
	@cd tools/html-check && npm ci --silent --no-audit --no-fund
	@$(PY) -m devdb run -- $(PY) tools/html_check.py

devdb: $(STAMP)
	@$(PY) -m devdb start

devdb-stop: $(STAMP)
	@$(PY) -m devdb stop

# The sharded development cluster (DocumentDB on Citus, docs/dev-cluster.md); nothing
# else uses it. test-cluster runs what only a cluster can show: every comment store's
# reads and writes on sharded collections (each store, counters, votes, listings,
# imports and migrations, backups, concurrency) and the sharding tests; the pages and
# mail built on those same calls are the single node's tiers, as are the query plans
# (test_query_plans: a shard's planner may scan a small shard where one node uses an index).
CLUSTER_COMMENTS := backup blocklist buckets buckets_concurrency comment_stores comments_listings \
	comments_migrate_load comments_reading comments_services counters discussion_state \
	duplicates_at_once embedded embedded_concurrency flags importing member_replies members \
	moderation_changes posting_once ranked_views takeovers thread_context votes \
	windowed_pages
# test_cluster_faults (a cluster of its own, about 70 s on one process) comes first,
# so that the other process runs the rest meanwhile.
CLUSTER_TESTS := tests/integration/devdb/test_cluster_faults.py \
	$(CLUSTER_COMMENTS:%=tests/integration/comments/test_%.py) \
	tests/integration/infra/test_sharding.py tests/integration/infra/test_cluster.py \
	tests/integration/devdb/test_devdb_cluster.py tests/integration/devdb/test_devdb_statistics.py \
	tests/unit/test_shard_keys.py

devdb-cluster: $(STAMP)
	@$(PY) -m devdb cluster start

devdb-cluster-stop: $(STAMP)
	@$(PY) -m devdb cluster stop

# One more worker in the running cluster; `manage.py rebalance_shards` moves shards onto it.
devdb-cluster-add-worker: $(STAMP)
	@$(PY) -m devdb cluster add-worker

test-cluster: $(STAMP) $(MO)
	@$(PY) -m devdb cluster run -- $(PY) -m pytest -n $(CLUSTER_TEST_WORKERS) --dist loadfile $(CLUSTER_TESTS) $(PYTEST_ARGS)

venv: $(STAMP)

# tools/wheelhouse.py installs through a folder of wheels kept outside the checkout (built
# the first time; a new clone's install then skips pip's resolving against the index), with
# --no-compile: pip would byte-compile every module of every package (about 5,000 files,
# 7 s of a fresh install here); Python compiles those a process imports, once, into the
# same __pycache__/ folders.
$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Slugline needs Python 3.11 or newer; set PYTHON=/path/to/python3.11.")'
	@test -x $(PY) || { echo "make: creating a virtualenv in $(VENV)/"; $(PYTHON) -m venv $(VENV); }
	@bash tools/icu-setup.sh
	@echo "make: installing requirements.txt into $(VENV)/ with pip (a few minutes the first time, PyICU's build the longest; pip lists what it fetches)"
	@$(PY) tools/wheelhouse.py requirements.txt
	@echo "make: $(VENV)/ is ready"
	@touch $@

compilemessages: $(MO)

%.mo: %.po
	@msgfmt --check -o $@ $<

# Refresh the catalogs from the code and templates (after changing any text): the site's
# from all but comments/, the comments app's from inside it (its wheel carries them).
messages: $(STAMP)
	@$(PY) manage.py makemessages $(addprefix -l ,$(LANGUAGE_CODES)) --no-location --no-obsolete \
		-i .venv -i var -i tests -i bench -i tools -i docs -i static -i node_modules -i comments
	@cd comments && PYTHONPATH=.. ../$(PY) ../manage.py makemessages $(addprefix -l ,$(LANGUAGE_CODES)) \
		--no-location --no-obsolete

clean:
	rm -rf $(VENV) var/build

# The slugline-comments wheel in a fresh virtualenv and a new startproject with the five
# lines (tests/packaging/wheel_check.py, docs/distribution.md), against the dev database.
wheel-check: $(STAMP) $(MO)
	@$(PY) -m devdb run -- $(PY) -m tests.packaging.wheel_check
