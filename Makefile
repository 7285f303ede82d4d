# Two commands for a newcomer: `make demo` and `make test`. Both build their
# own virtual environment from pyproject.toml on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-stamp
# The statically checked parts: `cards` and the pure stages of `roombot`.
MYPY_PATHS = cards roombot/env_names.py roombot/nodes.py roombot/node_name.py roombot/node_agent.py roombot/metrics.py roombot/normalise roombot/redact roombot/turns.py roombot/events.py roombot/acp/observer.py roombot/acp/build.py roombot/acp/rooms.py roombot/acp/lines.py roombot/acp/frames.py roombot/acp/settings.py roombot/crosssign/keys.py roombot/crosssign/recovery.py roombot/crosssign/assess.py roombot/crosssign/store.py roombot/crosssign/manage.py roombot/crosssign/startup.py roombot/private_files.py roombot/report_tls.py roombot/api/tls.py roombot/crosssign/devices.py roombot/crosssign/recipients.py roombot/check roombot/session.py roombot/initconfig.py roombot/logs.py roombot/roomcommands.py roombot/node_desk.py roombot/room_reader.py roombot/node_requests.py roombot/api/desk.py roombot/yaml_config.py reporters/hermes roombot/silences.py roombot/room.py roombot/relations.py roombot/silence_summary.py roombot/wakeup.py roombot/store

.PHONY: demo test lint typecheck unit clean harnesses browser postgres

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# A throwaway Synapse, an encrypted room, failed turns through the bot, read back.
demo: $(STAMP)
	$(BIN)/roombot demo

lint: $(STAMP)
	$(BIN)/ruff check cards roombot tests bench lab reporters/hermes
	$(BIN)/ruff format --check cards roombot tests bench lab reporters/hermes

typecheck: $(STAMP)
	$(BIN)/mypy $(wildcard $(MYPY_PATHS))

# The real harnesses the lab (tests/lab) drives: pinned, installed into lab/.harnesses/.
harnesses:
	lab/install.sh

# Debian's Chromium and a real Matrix web client (Hydrogen, from npm) for tests/browser.
browser:
	browser/install.sh

# Debian's PostgreSQL server binaries, for the throwaway clusters of the PostgreSQL
# store's tests (roombot/store/pgcluster.py); nothing is started or configured here.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ apt-get update -qq && apt-get install -y -qq postgresql; }

unit: $(STAMP) harnesses browser postgres
	$(BIN)/python -m pytest

test: lint typecheck unit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
