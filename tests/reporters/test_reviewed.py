"""Reviewed plans: the digest, apply only as planned, backups, idempotence, the refusals.

The harness configurations are copies of real ones (tests/reporters/configs/), the harness
versions are read from the lab's real installations (lab/.harnesses) put on PATH, and the
commands run as a user runs them (`python -m roombot reporters ...` in a subprocess).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from lab import setups
from roombot import reviewed
from roombot.commands import node_management
from roombot.reporters import Settings
from roombot.reviewed import PlanRefused, apply_digest, make_plan
from tests.reporters.test_harness_versions import untested_openclaw

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = Path(__file__).parent / "configs"
LAB_PATH = f"{setups.NPM_BIN}:{setups.HARNESSES / 'hermes' / 'bin'}:/usr/bin:/bin"
SETTINGS = Settings("http://127.0.0.1:8450", token_env="ROOMBOT_API_TOKEN")


@pytest.fixture(scope="module", autouse=True)
def _harnesses() -> None:
    if not setups.installed():
        pytest.fail("harnesses not installed: run `make harnesses` (lab/install.sh)")


@pytest.fixture
def node(tmp_path: Path) -> dict[str, Path]:
    """A node's home with Pi's and OpenClaw's configuration as the lab writes them."""
    home = tmp_path / "home"
    (home / ".pi" / "agent").mkdir(parents=True)
    (home / ".openclaw").mkdir(parents=True)
    shutil.copyfile(CONFIGS / "pi-lab.json", home / ".pi" / "agent" / "settings.json")
    shutil.copyfile(CONFIGS / "openclaw-lab.json", home / ".openclaw" / "openclaw.json")
    return {
        "home": home,
        "state": tmp_path / "state",
        "pi": home / ".pi" / "agent" / "settings.json",
        "openclaw": home / ".openclaw" / "openclaw.json",
    }


def env_of(node: dict[str, Path], path: str = LAB_PATH) -> dict[str, str]:
    return {"PATH": path, "HOME": str(node["home"]), "ROOMBOT_NODE_STATE": str(node["state"])}


def plan(
    node: dict[str, Path], name: str = "pi", action: str = "enable", **kw: object
) -> reviewed.Plan:
    settings = kw.pop("settings", SETTINGS)
    return make_plan(
        name,
        action,
        settings,  # type: ignore[arg-type]
        state_dir=node["state"],
        env=env_of(node),
        home=node["home"],
        **kw,  # type: ignore[arg-type]
    )


def tree_hash(root: Path) -> dict[str, str]:
    """Every file under root (path -> sha256 and mode): what 'writes nothing' is checked by."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            out[str(p.relative_to(root))] = f"{digest} {oct(p.stat().st_mode)}"
    return out


def roombot(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roombot", "reporters", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=60,
    )


def test_plan_writes_nothing_but_its_record(node: dict[str, Path]) -> None:
    before = tree_hash(node["home"])
    p = plan(node, "pi")
    p2 = plan(node, "openclaw")
    assert tree_hash(node["home"]) == before
    code = ROOT / "reporters" / "pi"
    assert p.files == (str(node["pi"]),) and f'+    "{code}"' in p.diff.splitlines()
    assert p.versions["pi"] == "1.6.0" and p2.versions["openclaw"] == "2026.9.6"
    assert len(p.digest) == 64 and p.digest != p2.digest
    # the record: a private directory, private files, one per plan
    plans = node["state"] / "plans"
    assert stat.S_IMODE(plans.stat().st_mode) == 0o700
    records = sorted(plans.iterdir())
    assert [r.name for r in records] == sorted(f"{d}.json" for d in (p.digest, p2.digest))
    assert {stat.S_IMODE(r.stat().st_mode) for r in records} == {0o600}


def test_apply_keeps_a_backup_and_is_idempotent(node: dict[str, Path]) -> None:
    config = node["openclaw"]
    os.chmod(config, 0o640)
    original = config.read_bytes()
    env = env_of(node)
    url = ["--url", "http://127.0.0.1:8450", "--token-env", "ROOMBOT_API_TOKEN"]
    out = roombot("plan", "openclaw", "enable", *url, env=env)
    assert out.returncode == 0, out.stderr
    assert config.read_bytes() == original
    digest = out.stdout.split("# plan digest: ")[1].split()[0]
    assert "# versions found: openclaw 2026.9.6 (tested), " in out.stdout
    assert f"roombot reporters apply openclaw --plan-digest {digest}" in out.stdout
    assert out.stdout.startswith(f"--- a{config}\n")
    done = roombot("apply", "openclaw", "--plan-digest", digest, env=env)
    assert done.returncode == 0, done.stderr
    backup = config.with_name(f"openclaw.json.roombot-{digest[:12]}.bak")
    assert f"# backup: {backup}\n# wrote {config}\n" in done.stdout
    assert backup.read_bytes() == original
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640 == stat.S_IMODE(config.stat().st_mode)
    tree = json.loads(config.read_text())
    assert (
        tree["plugins"]["entries"]["roombot-reporter"]["config"]["tokenEnv"] == "ROOMBOT_API_TOKEN"
    )
    enabled = config.read_bytes()
    files = tree_hash(node["home"])
    again = roombot("apply", "openclaw", "--plan-digest", digest, env=env)
    assert again.returncode == 0, again.stderr
    assert "nothing changed" in again.stdout and "backup" not in again.stdout
    assert tree_hash(node["home"]) == files
    # the plan now finds nothing to do, and disable gives the file back byte for byte
    same = roombot("plan", "openclaw", *url, env=env)
    assert "already enabled; nothing to change" in same.stdout and "would write" not in same.stdout
    off = roombot("plan", "openclaw", "disable", env=env)
    undo = off.stdout.split("# plan digest: ")[1].split()[0]
    assert roombot("apply", "openclaw", "--plan-digest", undo, env=env).returncode == 0
    assert config.read_bytes() == original
    assert config.with_name(f"openclaw.json.roombot-{undo[:12]}.bak").read_bytes() == enabled


def test_apply_after_the_file_changed_is_refused_and_writes_nothing(node: dict[str, Path]) -> None:
    p = plan(node, "pi")
    # someone edits the file between the review and the apply
    tree = json.loads(node["pi"].read_text())
    tree["retry"]["maxRetries"] = 3
    node["pi"].write_text(json.dumps(tree, indent=2))
    edited = tree_hash(node["home"])
    with pytest.raises(PlanRefused) as e:
        apply_digest("pi", p.digest, state_dir=node["state"])
    assert str(node["pi"]) in str(e.value) and "changed since plan" in str(e.value)
    assert tree_hash(node["home"]) == edited  # no write, no backup
    # the same through the command: exit 2, the file named
    out = roombot("apply", "pi", "--plan-digest", p.digest, env=env_of(node))
    assert out.returncode == 2 and out.stdout == ""
    assert f"refused: {node['pi']}: changed since plan {p.digest[:12]}" in out.stderr
    assert tree_hash(node["home"]) == edited
    # a file deleted since is a change too
    node["pi"].unlink()
    with pytest.raises(PlanRefused, match="changed since plan"):
        apply_digest("pi", p.digest, state_dir=node["state"])
    assert not node["pi"].exists()


def test_the_digest_covers_the_bytes_and_the_change(node: dict[str, Path]) -> None:
    first = plan(node, "pi")
    assert plan(node, "pi").digest == first.digest  # the same files, the same change
    other_url = plan(node, "pi", settings=Settings("http://127.0.0.1:9999", token_env="T"))
    assert other_url.digest != first.digest
    assert plan(node, "pi", "disable").digest != first.digest
    # the same JSON in other bytes (a trailing newline): another digest, the old one refused
    node["pi"].write_bytes(node["pi"].read_bytes() + b"\n")
    reformatted = plan(node, "pi")
    assert reformatted.digest != first.digest
    with pytest.raises(PlanRefused, match="changed since plan"):
        apply_digest("pi", first.digest, state_dir=node["state"])
    applied = apply_digest("pi", reformatted.digest, state_dir=node["state"])
    assert applied.changed and applied.plan == reformatted


def test_untested_versions_are_refused_unless_allowed(
    node: dict[str, Path], tmp_path: Path
) -> None:
    newer = untested_openclaw(tmp_path / "prefix")
    env = env_of(node, f"{newer}:{LAB_PATH}")
    before = tree_hash(node["home"])
    with pytest.raises(PlanRefused) as e:
        make_plan("openclaw", "enable", SETTINGS, state_dir=node["state"], env=env)
    assert "openclaw 2026.10.1" in str(e.value) and "2026.9.6" in str(e.value)
    assert "--allow-untested" in str(e.value)
    out = roombot("plan", "openclaw", "--url", "http://127.0.0.1:8450", "--token-env", "T", env=env)
    assert (
        out.returncode == 2
        and "refused: openclaw 2026.10.1: not a version the lab tested" in out.stderr
    )
    assert tree_hash(node["home"]) == before
    p = make_plan(
        "openclaw", "enable", SETTINGS, state_dir=node["state"], env=env, allow_untested=True
    )
    assert p.versions["openclaw"] == "2026.10.1" and p.files == (str(node["openclaw"]),)
    flagged = roombot("plan", "openclaw", "--url", "http://127.0.0.1:8450", "--token-env", "T",
                      "--allow-untested", env=env)  # fmt: skip
    assert flagged.returncode == 0 and "openclaw 2026.10.1 (untested)" in flagged.stdout
    # taking the reporter out needs no tested version
    make_plan("openclaw", "disable", None, state_dir=node["state"], env=env)
    # a harness that is not there at all: its version cannot be checked
    with pytest.raises(PlanRefused, match="pi: not found on this node"):
        make_plan("pi", "enable", SETTINGS, state_dir=node["state"], env=env_of(node, "/usr/bin"))


def hand_copy(where: Path, name: str) -> Path:
    """The reporter copied by hand from a checkout, as someone installs it without roombot."""
    shutil.copytree(ROOT / "reporters" / name, where / name, ignore=shutil.ignore_patterns("test"))
    shutil.copytree(
        ROOT / "reporters" / "common", where / "common", ignore=shutil.ignore_patterns("test")
    )
    return where / name


def test_a_copy_installed_by_hand_is_refused_unless_replaced(node: dict[str, Path]) -> None:
    old = hand_copy(node["home"] / "opt" / "roombot-old" / "reporters", "pi")
    tree = json.loads(node["pi"].read_text())
    tree["extensions"] = [str(old)]
    tree["roombotReporter"] = {"url": "http://127.0.0.1:8450", "tokenEnv": "OLD"}
    node["pi"].write_text(json.dumps(tree, indent=2) + "\n")
    before = tree_hash(node["home"])
    with pytest.raises(PlanRefused) as e:
        plan(node, "pi")
    assert f"{old} (in extensions)" in str(e.value) and "--replace-unmanaged" in str(e.value)
    with pytest.raises(PlanRefused, match="--replace-unmanaged to plan taking it out too"):
        plan(node, "pi", "disable")
    out = roombot(
        "plan", "pi", "--url", "http://127.0.0.1:8450", "--token-env", "T", env=env_of(node)
    )
    assert (
        out.returncode == 2
        and f"refused: {old} (in extensions): a copy of the pi reporter" in out.stderr
    )
    assert tree_hash(node["home"]) == before
    p = plan(node, "pi", replace_unmanaged=True)
    assert f'-    "{old}"' in p.diff and f'+    "{ROOT / "reporters" / "pi"}"' in p.diff
    apply_digest("pi", p.digest, state_dir=node["state"])
    after = json.loads(node["pi"].read_text())
    assert after["extensions"] == [str(ROOT / "reporters" / "pi")]
    assert after["roombotReporter"]["tokenEnv"] == "ROOMBOT_API_TOKEN"
    # once replaced, nothing unmanaged is left: a plain plan finds nothing to do
    assert plan(node, "pi").files == ()


def test_a_copy_the_harness_loads_by_itself_is_refused_even_with_the_flag(
    node: dict[str, Path],
) -> None:
    # `openclaw plugins install PATH` puts the plugin in ~/.openclaw/extensions/ and records it
    installed = node["home"] / ".openclaw" / "extensions"
    copy = hand_copy(installed, "openclaw").rename(installed / "roombot-reporter")
    before = tree_hash(node["home"])
    for flag in (False, True):
        with pytest.raises(PlanRefused) as e:
            plan(node, "openclaw", replace_unmanaged=flag)
        assert f"{copy} (loaded by openclaw from extensions/)" in str(e.value)
        assert "remove or move it yourself" in str(e.value)
    assert tree_hash(node["home"]) == before
    # this checkout's own reporter named in the file is not a copy
    shutil.rmtree(installed)
    p = plan(node, "openclaw")
    apply_digest("openclaw", p.digest, state_dir=node["state"])
    assert plan(node, "openclaw").files == ()


def test_apply_refuses_what_it_did_not_plan(node: dict[str, Path]) -> None:
    p = plan(node, "pi")
    state = node["state"]
    with pytest.raises(PlanRefused, match="not a plan digest"):
        apply_digest("pi", "@room " + "x" * 500, state_dir=state)
    with pytest.raises(PlanRefused, match="no plan 000000000000 on this node"):
        apply_digest("pi", "0" * 64, state_dir=state)
    with pytest.raises(PlanRefused, match="made for the pi reporter, not openclaw"):
        apply_digest("openclaw", p.digest, state_dir=state)
    with pytest.raises(PlanRefused, match="no such reporter"):
        apply_digest("gemini", p.digest, state_dir=state)
    # a record edited in the state directory no longer matches its digest
    record = state / "plans" / f"{p.digest}.json"
    data = json.loads(record.read_text())
    data["files"][0]["new"] = '{"extensions": ["/tmp/evil"]}\n'
    record.write_text(json.dumps(data))
    before = tree_hash(node["home"])
    with pytest.raises(PlanRefused, match="does not match its digest"):
        apply_digest("pi", p.digest, state_dir=state)
    assert tree_hash(node["home"]) == before


def test_a_plan_for_a_file_that_does_not_exist_yet(node: dict[str, Path]) -> None:
    node["pi"].unlink()
    p = plan(node, "pi")
    assert p.diff.startswith(f"--- /dev/null\n+++ b{node['pi']}\n") and not node["pi"].exists()
    done = apply_digest("pi", p.digest, state_dir=node["state"])
    assert done.changed and done.backups == ()  # nothing was there to back up
    assert stat.S_IMODE(node["pi"].stat().st_mode) == 0o600
    assert not apply_digest("pi", p.digest, state_dir=node["state"]).changed


def management(state: Path, *words: str) -> str:
    parser = argparse.ArgumentParser()
    node_management.add_arguments(parser)
    args = parser.parse_args([*words, "--state-dir", str(state)])
    assert node_management.run(args) == 0
    return ""


def test_plugin_management_is_off_until_the_node_opts_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    assert not reviewed.management_enabled(state)
    management(state, "status")
    assert "plugin management: disabled" in capsys.readouterr().out
    assert not state.exists()  # asking writes nothing
    management(state, "enable")
    assert "plugin management: enabled" in capsys.readouterr().out
    assert reviewed.management_enabled(state)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "plugin-management.json").stat().st_mode) == 0o600
    management(state, "status")
    assert "enabled" in capsys.readouterr().out
    management(state, "disable")
    assert "disabled" in capsys.readouterr().out and not reviewed.management_enabled(state)
    # anything but a clear yes is no
    for text in ("", "yes", '{"enabled": "true"}', "[true]", '{"enabled": 1}'):
        (state / "plugin-management.json").write_text(text)
        assert not reviewed.management_enabled(state), text
    assert reviewed.default_state_dir({"HOME": "/h"}) == Path("/h/.local/state/roombot")
    assert reviewed.default_state_dir({"ROOMBOT_NODE_STATE": "/s", "HOME": "/h"}) == Path("/s")


def test_a_symlinked_configuration_is_written_through_its_link(node: dict[str, Path]) -> None:
    dotfiles = node["home"] / "dotfiles"
    dotfiles.mkdir()
    node["pi"].rename(dotfiles / "settings.json")
    node["pi"].symlink_to(dotfiles / "settings.json")
    p = plan(node, "pi")
    assert p.files == (str(dotfiles / "settings.json"),)
    apply_digest("pi", p.digest, state_dir=node["state"])
    assert node["pi"].is_symlink()
    assert json.loads(node["pi"].read_text())["extensions"] == [str(ROOT / "reporters" / "pi")]


def test_a_loader_of_this_checkouts_reporter_is_not_a_copy(node: dict[str, Path]) -> None:
    # a shim in the harness's own extensions directory that loads this checkout's code
    shim = node["home"] / ".pi" / "agent" / "extensions" / "roombot"
    shim.mkdir(parents=True)
    shutil.copyfile(ROOT / "reporters" / "pi" / "package.json", shim / "package.json")
    code = ROOT / "reporters" / "pi" / "index.js"
    (shim / "index.js").write_text(f'export {{ default }} from "{code}";\n')
    assert plan(node, "pi").files == (str(node["pi"]),)
    # the same directory holding the code itself is a copy
    shutil.copyfile(code, shim / "index.js")
    with pytest.raises(PlanRefused, match="loaded by pi from extensions/"):
        plan(node, "pi")
