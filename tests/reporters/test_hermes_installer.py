"""`roombot reporters enable|disable hermes`: Hermes's config.yaml edited line by line.

hermes-cli.yaml was written by Hermes itself (`hermes config set model.provider custom`,
`hermes plugins enable disk-cleanup`: its comment sections included); hermes-bare.yaml by
`hermes config set agent.api_max_retries 2` alone; the lab writes JSON (lab/setups.py).
The commands run as a user runs them: `python -m roombot reporters ...` in a subprocess.
That the real Hermes loads the result is test_hermes_in_hermes.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from roombot import yaml_config
from tests.reporters.test_installer import TOKEN, roombot

CONFIGS = Path(__file__).parent / "configs"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "reporter.token"
    path.write_text(TOKEN + "\n")
    return path


def home_with(name: str, tmp_path: Path) -> Path:
    home = tmp_path / ".hermes"
    home.mkdir()
    shutil.copyfile(CONFIGS / name, home / "config.yaml")
    return home


def url(token_file: Path) -> list[str]:
    return ["--url", "http://127.0.0.1:8450", "--token-file", str(token_file)]


@pytest.mark.parametrize("name", ["hermes-cli.yaml", "hermes-bare.yaml"])
def test_enable_edits_only_its_lines_and_disable_gives_the_file_back(
    name: str, tmp_path: Path, token_file: Path
) -> None:
    home = home_with(name, tmp_path)
    config = home / "config.yaml"
    original = config.read_bytes()
    env = {"HERMES_HOME": str(home)}
    shown = roombot("enable", "hermes", *url(token_file), env=env)
    assert shown.returncode == 0, shown.stderr
    assert config.read_bytes() == original  # a plan writes nothing
    assert "\n+    - roombot-reporter\n" in shown.stdout  # the item, in the file's own indent
    out = roombot("enable", "hermes", *url(token_file), "--apply", env=env)
    assert out.returncode == 0, out.stderr
    assert "hermes gateway restart" in out.stdout  # printed, not run
    text = config.read_text()
    tree = yaml.safe_load(text)
    assert "roombot-reporter" in tree["plugins"]["enabled"]
    settings = {"url": "http://127.0.0.1:8450", "tokenFile": str(token_file)}
    assert tree["roombot_reporter"] == settings
    assert TOKEN not in text
    # every line that was there is still there, in order (comments included)
    old_lines = original.decode().splitlines()
    new_lines = iter(text.splitlines())
    assert all(any(line == n for n in new_lines) for line in old_lines)
    # the plugin directory Hermes scans: its manifest and a loader of this checkout's code
    plugin = home / "plugins" / "roombot-reporter"
    manifest = (ROOT / "reporters" / "hermes" / "plugin.yaml").read_text()
    assert (plugin / "plugin.yaml").read_text() == manifest
    assert json.dumps(str(ROOT / "reporters" / "hermes")) in (plugin / "__init__.py").read_text()
    enabled = config.read_bytes()
    again = roombot("enable", "hermes", *url(token_file), "--apply", env=env)
    assert again.returncode == 0 and "already enabled" in again.stdout
    assert config.read_bytes() == enabled
    listed = roombot("list", env=env)
    row = next(line for line in listed.stdout.splitlines() if line.startswith("hermes"))
    assert row.split()[:5] == ["hermes", "hermes", "yes", "yes", "http://127.0.0.1:8450"]
    off = roombot("disable", "hermes", "--apply", env=env)
    assert off.returncode == 0, off.stderr
    assert config.read_bytes() == original
    assert "already disabled" in roombot("disable", "hermes", "--apply", env=env).stdout


def test_the_labs_json_config_stays_json_and_keeps_the_operators_keys(
    tmp_path: Path, token_file: Path
) -> None:
    home = tmp_path / ".hermes"
    home.mkdir()
    config = home / "config.yaml"
    lab = {
        "model": {"provider": "custom", "base_url": "http://127.0.0.1:1/v1", "default": "m"},
        "roombot_reporter": {"room": "!team:example.org", "url": "http://127.0.0.1:1"},
        "plugins": {"disabled": ["roombot-reporter"]},
    }
    config.write_text(json.dumps(lab, indent=2))
    out = roombot("enable", "hermes", *url(token_file), "--apply", env={"HERMES_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    tree = json.loads(config.read_text())  # still plain JSON
    assert tree["roombot_reporter"] == {
        "url": "http://127.0.0.1:8450",
        "tokenFile": str(token_file),
        "room": "!team:example.org",  # the operator's own key is kept
    }
    assert tree["plugins"] == {"enabled": ["roombot-reporter"], "disabled": []}


BAD = {
    "not YAML": ("model: [unclosed\n", "not valid YAML at line 2 column 1"),
    "a list at the top": ("- a\n- b\n", "expected a mapping at the top"),
    "two documents": ("a: 1\n---\nb: 2\n", "several YAML documents"),
    "plugins inline": ("plugins: {enabled: [foo]}\n", "written inline on one line"),
    "enabled not a list": ("plugins:\n  enabled: foo\n", "plugins.enabled: expected a list"),
    "the block not a mapping": ("roombot_reporter: 5\n", "roombot_reporter: expected an object"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_file_that_cannot_be_edited_safely_is_refused_untouched(
    case: str, tmp_path: Path, token_file: Path
) -> None:
    text, why = BAD[case]
    home = tmp_path / ".hermes"
    home.mkdir()
    (home / "config.yaml").write_text(text)
    out = roombot("enable", "hermes", *url(token_file), "--apply", env={"HERMES_HOME": str(home)})
    assert out.returncode == 2, out.stdout
    assert why in out.stderr and "config.yaml" in out.stderr
    assert (home / "config.yaml").read_text() == text
    assert not (home / "plugins").exists()  # nothing of the plan was written


# --- the line edits themselves (pure) ------------------------------------------------------


def _enable(tree: dict[str, Any]) -> dict[str, Any]:
    new = json.loads(json.dumps(tree))
    plugins = new.setdefault("plugins", {})
    plugins["enabled"] = [*(plugins.get("enabled") or []), "roombot-reporter"]
    new["roombot_reporter"] = {"url": "http://127.0.0.1:8450"}
    return new


def _disable(tree: dict[str, Any]) -> dict[str, Any]:
    """As roombot.reporters does it: the item out, and the containers it leaves empty."""
    new = json.loads(json.dumps(tree))
    new["plugins"]["enabled"].remove("roombot-reporter")
    if not new["plugins"]["enabled"]:
        del new["plugins"]["enabled"]
    if not new["plugins"]:
        del new["plugins"]
    del new["roombot_reporter"]
    return new


@pytest.mark.parametrize(
    ("text", "same"),
    [
        ("", True),
        ("# only a comment\n", True),
        ("plugins:\n  # which\n  enabled: [foo, bar]  # mine\nagent:\n  x: 1\n", False),
        ("plugins:\n  enabled:\n  - foo\n  # - old\n  disabled: []\n", True),
        ("plugins:\n    enabled:\n        - foo\n", True),
        ("plugins:\n  disabled:\n    - x\nlast: true", False),
        ("model:\n  default: x\n\n\nplugins:\n  enabled:\n", False),
    ],
)
def test_enable_then_disable_edits_the_same_lines_back(text: str, same: bool) -> None:
    before = yaml_config.parse(text)
    after = _enable(before)
    written = yaml_config.render(text, before, after, lists_under="plugins")
    assert yaml_config.parse(written) == after
    for line in text.splitlines():
        if "enabled" not in line:
            assert line in written.splitlines() or line == "last: true"  # the rest kept
    off = _disable(after)
    back = yaml_config.render(written, after, off, lists_under="plugins")
    assert yaml_config.parse(back) == off
    assert (back == text) is same  # the same bytes wherever the tree comes back the same


def test_a_change_the_lines_cannot_make_is_refused() -> None:
    # the list is an anchor another key reuses: one item more would change that key too
    text = "plugins:\n  enabled: &mine\n    - foo\nother: *mine\n"
    before = yaml_config.parse(text)
    with pytest.raises(yaml_config.YamlEditError, match="not a list"):
        yaml_config.render(text, before, _enable(before), lists_under="plugins")
    # a list of mappings: the item lines read back, the new item would not fit among them
    text = "plugins:\n  enabled:\n    - name: foo\n      on: true\n"
    before = yaml_config.parse(text)
    with pytest.raises(yaml_config.YamlEditError, match="by hand"):
        yaml_config.render(text, before, _enable(before), lists_under="plugins")
