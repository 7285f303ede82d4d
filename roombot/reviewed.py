"""Reviewed plans: a reporter change made on the node, reviewed, and applied only as planned.

`make_plan` computes the change (roombot.reporters' plan_enable / plan_disable), refuses an
untested harness version or a copy of the reporter installed by hand unless asked, and
records the plan under the node's state directory by its digest: a sha256 over the plan's
reporter and action, every file's path, the hash of its current bytes and the text it
would get. It writes no harness file and prints nothing. `apply_digest` takes a digest,
finds the recorded plan, and writes its texts only if every file still hashes as planned
(a file already holding the planned text counts as done, so a second apply changes
nothing); else it refuses naming the file and writes nothing. Each file is backed up
next to itself before it is written. `management_enabled` is the node's opt-in to being
managed from a room, off until `set_management(…, True)`. docs/reporters.md, "Reviewed plans".
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from roombot import harness_versions
from roombot.private_files import FILE_MODE, private_dir, replace_private
from roombot.reporters import (
    REPORTERS,
    Change,
    ConfigFileError,
    Reporter,
    Settings,
    apply_plan,
    code_dir,
    plan_disable,
    plan_enable,
    render_plan,
)

__all__ = [
    "ACTIONS",
    "Applied",
    "Plan",
    "PlanRefused",
    "apply_digest",
    "default_state_dir",
    "make_plan",
    "management_enabled",
    "set_management",
]

ACTIONS = ("enable", "disable")
RECORD_VERSION = 1
KEEP_PLANS = 32  # recorded plans kept (a room can ask for many): the oldest go first
_DIGEST = re.compile(r"[0-9a-f]{64}")
_WORD = re.compile(r"[\w.+~-]+", re.ASCII)
_AUTOLOAD_DIRS = ("extensions", "plugins")  # beside the config: loaded by the harness itself
_SCAN_BYTES = 256 * 1024


class PlanRefused(Exception):
    """The plan cannot be made or applied; the message says why, naming the file or version."""


@dataclass(frozen=True, slots=True)
class Plan:
    reporter: str
    action: str
    digest: str
    diff: str  # unified diffs; "" when nothing changes
    versions: Mapping[str, str | None]  # harness -> version found on this node
    files: tuple[str, ...]  # the files the plan writes


@dataclass(frozen=True, slots=True)
class Applied:
    plan: Plan
    backups: tuple[str, ...]  # one per existing file written; () when nothing changed
    changed: bool


def default_state_dir(env: Mapping[str, str] = os.environ) -> Path:
    """$ROOMBOT_NODE_STATE, else ~/.local/state/roombot."""
    if env.get("ROOMBOT_NODE_STATE"):
        return Path(env["ROOMBOT_NODE_STATE"]).expanduser()
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    return home / ".local" / "state" / "roombot"


# --- making a plan --------------------------------------------------------------------------


def make_plan(
    name: str,
    action: str,
    settings: Settings | None,
    *,
    state_dir: Path,
    config: Path | None = None,
    allow_untested: bool = False,
    replace_unmanaged: bool = False,
    env: Mapping[str, str] = os.environ,
    home: Path | None = None,
) -> Plan:
    reporter = _reporter(name)
    if action not in ACTIONS:
        raise PlanRefused(f"{_short(action)}: not an action (enable or disable)")
    if home is not None:
        env = {**env, "HOME": str(home)}
    versions = harness_versions.found(env=env, home=home)
    if action == "enable" and not allow_untested:
        _check_version(reporter, versions.get(reporter.harness))
    # The file itself, by an absolute name: apply may run from elsewhere, and renaming a
    # new file over a symlink would replace the link (a dotfiles checkout) with a copy.
    path = (config or reporter.find_config(env)).resolve()
    copies = _Copies(reporter, code_dir(reporter, env), replace_unmanaged)
    before = _bytes(path)
    try:
        if action == "enable":
            changes = plan_enable(reporter, settings, env=env, config=path, before=copies.look)
        else:
            changes = plan_disable(reporter, env=env, config=path, before=copies.look)
    except ConfigFileError as e:
        raise PlanRefused(str(e)) from None
    copies.check_autoload(path)
    copies.refuse_unless_replaced(action)
    if _bytes(path) != before or any(_text(ch.path) != ch.old for ch in changes):
        raise PlanRefused(f"{path}: changed while the plan was made; make it again")
    new = {str(ch.path): ch.new for ch in changes}
    files = [{"path": str(path), "sha256": _sha(before), "new": new.pop(str(path), None)}]
    files += [{"path": p, "sha256": _sha(_bytes(Path(p))), "new": t} for p, t in new.items()]
    record: dict[str, Any] = {
        "v": RECORD_VERSION,
        "reporter": reporter.name,
        "action": action,
        "files": files,
        "diff": render_plan(changes),
        "versions": versions,
    }
    digest = _digest(record)
    _record(state_dir, digest, record)
    return _plan_of(digest, record)


def _reporter(name: str) -> Reporter:
    reporter = REPORTERS.get(name)
    if reporter is None:
        known = ", ".join(sorted(REPORTERS))
        raise PlanRefused(f"{_short(name)}: no such reporter (there are: {known})")
    return reporter


def _check_version(reporter: Reporter, version: str | None) -> None:
    want = ", ".join(sorted(harness_versions.TESTED.get(reporter.harness, ()))) or "none"
    if version is None:
        raise PlanRefused(
            f"{reporter.harness}: not found on this node (PATH, npm's global prefixes, the "
            f"installers' places), so its version cannot be checked against the tested "
            f"{want}; --allow-untested to plan anyway"
        )
    if not harness_versions.is_tested(reporter.harness, version):
        raise PlanRefused(
            f"{reporter.harness} {_short(version)}: not a version the lab tested ({want}); "
            "--allow-untested to plan anyway"
        )


class _Copies:
    """Copies of the reporter that the harness would load besides this checkout's.

    Found in the configuration (any string naming a directory that holds the reporter:
    its entry file and its source name) and in the directories the harness loads by
    itself (`extensions/`, `plugins/` beside its configuration). With `replace`, a copy
    named in a list of the configuration is taken out of it by the same plan; one the
    harness loads by itself cannot be taken out by editing its configuration.
    """

    def __init__(self, reporter: Reporter, code: Path, replace: bool) -> None:
        self.reporter = reporter
        self.code = code.resolve()
        self.replace = replace
        self.named: list[str] = []  # in the configuration, removable
        self.fixed: list[str] = []  # not removable by this plan

    def look(self, tree: dict[str, Any]) -> dict[str, Any]:
        self._walk(tree, "")
        return tree

    def _walk(self, node: object, where: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str) and self._is_copy(value):
                    self.fixed.append(f"{value} (in {where}{key})")
                else:
                    self._walk(value, f"{where}{key}.")
        elif isinstance(node, list):
            keep = []
            for value in node:
                if isinstance(value, str) and self._is_copy(value):
                    self.named.append(f"{value} (in {where.rstrip('.')})")
                    if self.replace:
                        continue
                else:
                    self._walk(value, where)
                keep.append(value)
            node[:] = keep

    def check_autoload(self, config: Path) -> None:
        for sub in _AUTOLOAD_DIRS:
            directory = config.parent / sub
            if not directory.is_dir():
                continue
            for child in sorted(directory.iterdir()):
                if self._is_copy(str(child)):
                    self.fixed.append(f"{child} (loaded by {self.reporter.harness} from {sub}/)")

    def _is_copy(self, value: str) -> bool:
        if not value.startswith(("/", "~")):
            return False
        try:
            path = Path(value).expanduser()
            folder = path if path.is_dir() else path.parent
            if folder.resolve() == self.code or not (folder / self.reporter.entry).is_file():
                return False
            heads = [_head(f) for f in folder.iterdir() if f.is_file()]
        except OSError:
            return False
        # A loader that names this checkout's code (what `enable hermes` writes into
        # Hermes's plugins/) is this checkout's reporter, not a copy.
        if any(str(self.code).encode() in head for head in heads):
            return False
        return any(self.reporter.source.encode() in head for head in heads)

    def refuse_unless_replaced(self, action: str) -> None:
        name = self.reporter.name
        if self.fixed:
            raise PlanRefused(
                f"{self.fixed[0]}: a copy of the {name} reporter that is not this checkout's "
                f"({self.code}) and that a plan does not take out (only a path in one of the "
                "configuration's lists can be): remove or move it yourself, then plan again"
            )
        if self.named and not self.replace:
            what = "replacing it" if action == "enable" else "taking it out too"
            raise PlanRefused(
                f"{self.named[0]}: a copy of the {name} reporter installed by hand, not this "
                f"checkout's ({self.code}); --replace-unmanaged to plan {what}"
            )


# --- applying a plan -------------------------------------------------------------------------


def apply_digest(name: str, digest: str, *, state_dir: Path) -> Applied:
    reporter = _reporter(name)
    if not _DIGEST.fullmatch(digest):
        raise PlanRefused(f"{_short(digest)}: not a plan digest (64 hexadecimal digits)")
    record = _load(state_dir, digest)
    if record.get("reporter") != reporter.name:
        raise PlanRefused(
            f"plan {digest[:12]}: made for the {record.get('reporter')} reporter, not {name}"
        )
    with _locked(state_dir):  # the room's request loop and a person at the shell
        return _apply(reporter, digest, record)


def _apply(reporter: Reporter, digest: str, record: Mapping[str, Any]) -> Applied:
    plan = _plan_of(digest, record)
    writes: list[tuple[Path, bytes | None, str]] = []
    for entry in record["files"]:
        path, current = Path(entry["path"]), _bytes(Path(entry["path"]))
        new = entry["new"]
        if _sha(current) == entry["sha256"]:
            if new is not None and current != new.encode("utf-8"):
                writes.append((path, current, new))
        elif new is None or current != new.encode("utf-8"):
            raise PlanRefused(
                f"{path}: changed since plan {digest[:12]} was made (it no longer hashes as "
                "planned); nothing was written: make a new plan and review it"
            )
    backups = []
    for path, current, new in writes:
        if current is not None:
            backups.append(str(_backup(path, current, digest)))
        try:
            apply_plan([Change(path, None if current is None else current.decode("utf-8"), new)])
        except ConfigFileError as e:
            raise PlanRefused(str(e)) from None
    return Applied(plan, tuple(backups), bool(writes))


@contextlib.contextmanager
def _locked(state_dir: Path) -> Iterator[None]:
    fd = os.open(_plans_dir(state_dir) / ".lock", os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def _backup(path: Path, data: bytes, digest: str) -> Path:
    """PATH.roombot-DIGEST12.bak beside it, with its mode; an equal one already there is kept."""
    mode = path.stat().st_mode & 0o7777
    for n in range(1, 100):
        suffix = "" if n == 1 else f"-{n}"
        target = path.with_name(f"{path.name}.roombot-{digest[:12]}{suffix}.bak")
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        except FileExistsError:
            if _bytes(target) == data:
                return target
            continue
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(target, mode)
        return target
    raise PlanRefused(f"{path}: no free name for its backup; nothing was written")


# --- the record of plans, the opt-in --------------------------------------------------------


def _digest(record: Mapping[str, Any]) -> str:
    # The versions and the diff are what the reviewer is shown; the files and their texts
    # are what is written: the digest covers what decides the writing.
    covered = {k: record[k] for k in ("v", "reporter", "action", "files")}
    canonical = json.dumps(covered, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _plans_dir(state_dir: Path) -> Path:
    return private_dir(state_dir / "plans")


def _record(state_dir: Path, digest: str, record: Mapping[str, Any]) -> None:
    directory = _plans_dir(state_dir)
    data = json.dumps(record, indent=1, ensure_ascii=False).encode("utf-8")
    replace_private(directory / f"{digest}.json", data)
    kept = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in kept[KEEP_PLANS:]:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()


def _load(state_dir: Path, digest: str) -> dict[str, Any]:
    path = state_dir / "plans" / f"{digest}.json"
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanRefused(
            f"no plan {digest[:12]} on this node: make one with `roombot reporters plan`"
        ) from None
    except (OSError, ValueError) as e:
        raise PlanRefused(f"{path}: the recorded plan cannot be read ({e})") from None
    if not isinstance(record, dict) or record.get("v") != RECORD_VERSION:
        raise PlanRefused(f"{path}: not a plan this roombot recorded")
    if _digest(record) != digest:
        raise PlanRefused(f"{path}: the recorded plan does not match its digest; make a new one")
    return record


def _plan_of(digest: str, record: Mapping[str, Any]) -> Plan:
    return Plan(
        reporter=record["reporter"],
        action=record["action"],
        digest=digest,
        diff=record["diff"],
        versions=dict(record["versions"]),
        files=tuple(f["path"] for f in record["files"] if f["new"] is not None),
    )


_OPT_IN = "plugin-management.json"


def management_enabled(state_dir: Path) -> bool:
    """The node's opt-in to remote management; anything but a clear yes is no."""
    try:
        value = json.loads((state_dir / _OPT_IN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(value, dict) and value.get("enabled") is True


def set_management(state_dir: Path, enabled: bool) -> None:
    private_dir(state_dir)
    replace_private(state_dir / _OPT_IN, json.dumps({"enabled": enabled}).encode() + b"\n")


# --- small helpers ---------------------------------------------------------------------------


def _bytes(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise PlanRefused(f"{path}: cannot be read ({e.strerror})") from None


def _text(path: Path) -> str | None:
    data = _bytes(path)
    return None if data is None else data.decode("utf-8", "replace")


def _head(file: Path) -> bytes:
    try:
        with file.open("rb") as f:
            return f.read(_SCAN_BYTES)
    except OSError:
        return b""


def _sha(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _short(text: str, limit: int = 80) -> str:
    """Text from elsewhere (a room, a package.json): as it is if a plain word, else quoted."""
    if _WORD.fullmatch(text) and len(text) <= limit:
        return text
    return repr(text if len(text) <= limit else text[:limit] + "…")
