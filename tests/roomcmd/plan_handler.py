"""A node-side handler for the tests, until roombot.reviewed is merged: it does the real
work on real files with roombot.reporters (plan_enable / plan_disable / render_plan /
apply_plan). The digest covers every file's current bytes and the change; apply checks
every file still hashes as planned, backs each one up first, and is idempotent."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Mapping
from pathlib import Path

from roombot.node_requests import Request, Result
from roombot.reporters import (
    REPORTERS,
    Change,
    Settings,
    apply_plan,
    plan_disable,
    plan_enable,
    render_plan,
)


def _hash(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


class PlanHandler:
    def __init__(self, state_dir: Path, env: Mapping[str, str], settings: Settings) -> None:
        self.state = state_dir / "plans"
        self.env = env
        self.settings = settings
        self.calls: list[Request] = []

    def __call__(self, request: Request) -> Result:
        self.calls.append(request)
        reporter = REPORTERS[request.reporter]
        if request.op == "plan":
            if request.action == "enable":
                changes = plan_enable(reporter, self.settings, env=self.env)
            else:
                changes = plan_disable(reporter, env=self.env)
            diff = render_plan(changes)
            hashes = {str(c.path): _hash(c.path) for c in changes}
            digest = hashlib.sha256(json.dumps([hashes, diff]).encode()).hexdigest()
            self.state.mkdir(parents=True, exist_ok=True)
            record = {
                "hashes": hashes,
                "changes": [[str(c.path), c.old, c.new] for c in changes],
            }
            (self.state / f"{digest}.json").write_text(json.dumps(record))
            return Result(request.id, True, "", digest, diff, {reporter.harness: "0.70.0"})
        assert request.digest is not None
        path = self.state / f"{request.digest}.json"
        if not path.exists():
            return Result(request.id, False, f"no plan {request.digest[:12]} on this node")
        record = json.loads(path.read_text())
        changes = [Change(Path(p), old, new) for p, old, new in record["changes"]]
        if all(c.path.exists() and c.path.read_text() == c.new for c in changes):
            return Result(request.id, True, "Nothing changed: the plan was applied already.")
        for file, planned in record["hashes"].items():
            if _hash(Path(file)) != planned:
                return Result(
                    request.id, False, f"{file} changed since the plan was made; nothing written"
                )
        backups = []
        for c in changes:
            if c.path.exists():
                backup = c.path.with_name(c.path.name + ".roombot-backup")
                shutil.copy2(c.path, backup)
                backups.append(str(backup))
        written = apply_plan(changes)
        return Result(
            request.id, True, f"Wrote {', '.join(map(str, written))} (backups: {backups})."
        )
