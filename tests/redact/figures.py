"""The redactor's figures on real text: `python -m tests.redact.figures`.

Two corpora, both copied from public sources with their addresses:

- tests/redact/corpus/credentials.json: error text as seen that carries a credential
  (the secret's characters made up, its shape and its sentence real). `secrets` lists
  what must disappear; an entry of format "masked" shows a key its printer already
  masked (it must stay as it is), a `placeholder` one a documentation stand-in and a
  "hashed" one a key's hash (both may stay or go: neither is a credential).
- the normaliser's corpus (tests/normalise/corpus/): real failure text, which must keep
  its kind once redacted, and should hardly change at all.

Printed: every secret's fate, the kept ones, and how much of the failure corpus changed.
With --compare, the same credential figures for detect-secrets when it is installed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from roombot.normalise import classify
from roombot.redact import MARKER, Redactor

HERE = Path(__file__).resolve().parent
CREDENTIALS = HERE / "corpus" / "credentials.json"
FAILURES = HERE.parent / "normalise" / "corpus"


def credentials() -> list[dict[str, Any]]:
    return list(json.loads(CREDENTIALS.read_text()))


def must_hide(entry: dict[str, Any]) -> bool:
    """An entry whose listed secrets are real-shaped credentials (not masked, not a stand-in)."""
    listed = bool(entry["secrets"]) and not entry.get("placeholder")
    return listed and entry["format"] not in ("masked", "hashed")


def failures() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every failure entry of the normaliser's corpus: (file name, entry)."""
    for path in sorted(FAILURES.glob("*.json")):
        for e in json.loads(path.read_text()):
            if "error" in e:
                yield path.name, e


@dataclass
class Figures:
    hidden: Counter[str] = field(default_factory=Counter)  # format -> entries wholly hidden
    shown: Counter[str] = field(default_factory=Counter)  # format -> entries with one left
    missed: list[tuple[str, str]] = field(default_factory=list)  # (source, secret left)
    kept: int = 0  # masked and stand-in entries left exactly as they were
    changed: list[str] = field(default_factory=list)  # sources of those that were not
    failures: int = 0
    altered: list[tuple[str, str]] = field(default_factory=list)  # (file, source)
    kind_changed: list[tuple[str, str, str]] = field(default_factory=list)  # (source, a, b)


def measure(redactor: Redactor) -> Figures:
    f = Figures()
    for e in credentials():
        out = redactor.text(e["text"])
        if must_hide(e):
            left = [s for s in e["secrets"] if s in out]
            (f.shown if left else f.hidden)[e["format"]] += 1
            f.missed += [(e["source"], s) for s in left]
        elif out == e["text"]:
            f.kept += 1
        else:
            f.changed.append(e["source"])
    for name, e in failures():
        f.failures += 1
        red = redactor.value(e["error"])
        if red == e["error"]:
            continue
        f.altered.append((name, e.get("source", "")))
        before = classify(e["error"], harness=e.get("harness")).kind
        after = classify(red, harness=e.get("harness")).kind
        if before != after:
            f.kind_changed.append((e.get("source", name), before.value, after.value))
    return f


# detect-secrets' heuristic plugins: entropy, and a public IP address (not a secret here).
_HEURISTIC = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}


def _detect_secrets_hides(text: str, heuristics: bool) -> set[str]:  # pragma: no cover
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings, get_settings

    with default_settings():
        if not heuristics:
            get_settings().disable_plugins(*_HEURISTIC)
        return {s.secret_value or "" for line in text.splitlines() for s in scan_line(line)}


def compare() -> None:  # pragma: no cover - needs detect-secrets installed
    try:
        import detect_secrets  # noqa: F401
    except ImportError:
        print("detect-secrets is not installed (pip install detect-secrets)")
        return
    for heuristics in (True, False):
        hidden = total = kept = kept_total = altered = 0
        for e in credentials():
            found = _detect_secrets_hides(e["text"], heuristics)
            if must_hide(e):
                total += 1
                hidden += all(any(s in v or v in s for v in found if v) for s in e["secrets"])
            else:
                kept_total += 1
                kept += not found
        for _, e in failures():
            altered += bool(_detect_secrets_hides(json.dumps(e["error"]), heuristics))
        name = "all plugins" if heuristics else "without entropy and IP plugins"
        print(f"detect-secrets, {name}: finds {hidden}/{total} credentials,")
        print(f"  leaves {kept}/{kept_total} masked or stand-ins alone,")
        print(f"  flags {altered} of the normaliser's failure texts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", action="store_true", help="also run detect-secrets")
    args = parser.parse_args()
    f = measure(Redactor())
    total_hidden, total_shown = sum(f.hidden.values()), sum(f.shown.values())
    entries = total_hidden + total_shown
    print(f"credentials in real error text: {total_hidden}/{entries} entries wholly hidden")
    print("| shape (as the source names it) | hidden | left |")
    print("|---|---|---|")
    for fmt in sorted(set(f.hidden) | set(f.shown)):
        print(f"| {fmt} | {f.hidden[fmt]} | {f.shown[fmt]} |")
    for source, secret in f.missed:
        print(f"  left: {secret[:40]!r} in {source}")
    kept_total = f.kept + len(f.changed)
    print(f"already masked or stand-ins left as they were: {f.kept}/{kept_total}")
    for source in f.changed:
        print(f"  changed: {source}")
    print(
        f"failure corpus: {len(f.altered)}/{f.failures} texts changed by redaction, "
        f"{len(f.kind_changed)} changed kind"
    )
    for name, source in f.altered:
        print(f"  changed: {name} {source}")
    for source, a, b in f.kind_changed:
        print(f"  kind {a} -> {b}: {source}")
    print(f"(the marker: {MARKER})")
    if args.compare:
        compare()


if __name__ == "__main__":
    main()
