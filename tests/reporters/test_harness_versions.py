"""Harness versions: the tested table is the lab's pins; found() reads real installations.

The installations are the lab's own (lab/.harnesses, `make harnesses`), reached the ways a
node reaches them: on PATH through npm's .bin links, through a global npm prefix, through
Hermes's installer layout (~/.hermes/hermes-agent/venv) and its ~/.local/bin link.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from lab import setups
from roombot.harness_versions import INSTALLS, TESTED, found, is_tested

ROOT = Path(__file__).resolve().parents[2]
NPM_MODULES = setups.HARNESSES / "npm" / "node_modules"
HERMES_VENV = setups.HARNESSES / "hermes"


@pytest.fixture(scope="module", autouse=True)
def _harnesses() -> None:
    if not setups.installed() or not (HERMES_VENV / "bin" / "hermes").is_file():
        pytest.fail("harnesses not installed: run `make harnesses` (lab/install.sh)")


def test_tested_is_what_the_lab_pins() -> None:
    lab = ROOT / "lab"
    pins = json.loads((lab / "harnesses/npm/package.json").read_text())["dependencies"]
    lock = json.loads((lab / "harnesses/npm/package-lock.json").read_text())["packages"]
    install_sh = (lab / "install.sh").read_text()
    hermes_pin = re.search(r"HERMES_PIN='hermes-agent\[acp\]==([^']+)'", install_sh)
    assert hermes_pin is not None
    expected = {}
    for install in INSTALLS:
        if install.registry == "npm":
            assert lock[f"node_modules/{install.package}"]["version"] == pins[install.package]
            expected[install.harness] = frozenset({pins[install.package]})
        else:
            assert install.package == "hermes-agent"
            expected[install.harness] = frozenset({hermes_pin.group(1)})
    assert dict(TESTED) == expected
    # every harness the lab drives, and only those
    assert {i.harness for i in INSTALLS} == set(setups.HARNESSES_BY_NAME)


def test_found_reads_each_lab_harness_on_path(tmp_path: Path) -> None:
    env = {"PATH": f"{setups.NPM_BIN}:{HERMES_VENV / 'bin'}:/usr/bin:/bin"}
    versions = found(env, home=tmp_path, system=())
    assert versions == {h: next(iter(v)) for h, v in TESTED.items()}
    assert all(is_tested(h, v) for h, v in versions.items())
    # nothing on PATH, nothing in the usual places: nothing found
    assert set(found({"PATH": "/usr/bin:/bin"}, home=tmp_path, system=()).values()) == {None}


def test_found_in_a_global_npm_prefix_and_hermes_installer_layout(tmp_path: Path) -> None:
    home = tmp_path / "home"
    # `npm install -g` with prefix ~/.npm-global, its bin not on a service's PATH
    modules = home / ".npm-global" / "lib" / "node_modules"
    (modules / "@earendil-works").mkdir(parents=True)
    (modules / "openclaw").symlink_to(NPM_MODULES / "openclaw")
    (modules / "@earendil-works" / "pi-coding-agent").symlink_to(
        NPM_MODULES / "@earendil-works" / "pi-coding-agent"
    )
    # Hermes's per-user installer: the venv in ~/.hermes/hermes-agent/venv
    (home / ".hermes" / "hermes-agent").mkdir(parents=True)
    (home / ".hermes" / "hermes-agent" / "venv").symlink_to(HERMES_VENV)
    versions = found({"PATH": "/usr/bin:/bin"}, home=home, system=())
    assert (versions["openclaw"], versions["pi"], versions["hermes"]) == (
        "2026.9.6",
        "1.6.0",
        "0.19.0",
    )
    assert versions["codex"] is None
    # and its ~/.local/bin/hermes link on PATH, as the installer leaves it
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "hermes").symlink_to(HERMES_VENV / "bin" / "hermes")
    other = tmp_path / "other"
    other.mkdir()
    on_path = found({"PATH": str(home / ".local" / "bin")}, home=other, system=())
    assert on_path["hermes"] == "0.19.0"


def untested_openclaw(root: Path, version: str = "2026.10.1") -> Path:
    """A global npm install of another OpenClaw: PREFIX/bin/openclaw -> the package's script."""
    package = root / "lib" / "node_modules" / "openclaw"
    package.mkdir(parents=True)
    meta = json.loads((NPM_MODULES / "openclaw" / "package.json").read_text())
    meta["version"] = version
    (package / "package.json").write_text(json.dumps(meta, indent=2))
    shutil.copyfile(NPM_MODULES / "openclaw" / "openclaw.mjs", package / "openclaw.mjs")
    os.chmod(package / "openclaw.mjs", 0o755)
    (root / "bin").mkdir()
    (root / "bin" / "openclaw").symlink_to("../lib/node_modules/openclaw/openclaw.mjs")
    return root / "bin"


def test_the_first_on_path_is_the_one_that_runs(tmp_path: Path) -> None:
    newer = untested_openclaw(tmp_path / "prefix")
    env = {"PATH": f"{newer}:{setups.NPM_BIN}"}
    versions = found(env, home=tmp_path, system=())
    assert versions["openclaw"] == "2026.10.1" and not is_tested("openclaw", "2026.10.1")
    assert versions["pi"] == "1.6.0"
    # a command whose package cannot be read: unknown, not the next one's version
    (tmp_path / "prefix" / "lib" / "node_modules" / "openclaw" / "package.json").unlink()
    assert found(env, home=tmp_path, system=())["openclaw"] is None
