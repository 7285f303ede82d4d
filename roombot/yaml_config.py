"""Editing a harness's YAML configuration in place: only the lines that change.

Hermes keeps its settings in $HERMES_HOME/config.yaml, a file people edit by hand, with
comments. A reporter's change touches two places: an item of a list under a top-level
mapping (`plugins.enabled`) and one top-level block of its own (`roombot_reporter`). This
module makes exactly those edits on the text, leaving every other line (comments, order,
quoting) as it was, and then reads the result back with PyYAML's safe loader: unless it
parses to exactly the tree that was asked for, the edit is refused (`YamlEditError`) and
nothing is written. A file whose shape the edits do not know (a flow mapping where a block
is expected, anchors around the edited keys, several documents) is refused that way,
never guessed at.

Pure: text in, text out. Values written are JSON scalars and flow lists (JSON is YAML).
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml  # type: ignore[import-untyped]

__all__ = ["YamlEditError", "parse", "render"]

Json = dict[str, Any]

_TOP_KEY = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*|\"[^\"]*\"|'[^']*')\s*:(?:\s|$)")
_CHILD_KEY = re.compile(r"^(?P<indent>[ ]+)(?P<key>[A-Za-z_][\w.-]*)\s*:(?P<rest>.*)$")
_ITEM = re.compile(r"^(?P<indent>[ ]*)-[ ]+(?P<value>.*?)\s*$")


class YamlEditError(ValueError):
    """The file cannot be edited safely; the message says what was found."""


def parse(text: str) -> Json:
    """The file's tree (a mapping at the top; an empty file is {})."""
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise YamlEditError(f"not valid YAML{where} ({e.problem or e.context})") from None
    except yaml.YAMLError as e:
        raise YamlEditError(f"not valid YAML ({e})") from None
    if len(docs) > 1:
        raise YamlEditError("holds several YAML documents; roombot edits a single one")
    tree = docs[0] if docs else None
    if tree is None:
        return {}
    if not isinstance(tree, dict):
        raise YamlEditError(f"expected a mapping at the top, found {type(tree).__name__}")
    return tree


def render(old: str | None, old_tree: Json, new_tree: Json, *, lists_under: str) -> str:
    """`old` edited into a text that parses to `new_tree`.

    Top-level keys whose value changed are rewritten as whole blocks, except `lists_under`
    (e.g. "plugins"), where only changed list values of its children are edited, item by
    item, so that the rest of that block is kept line for line.
    """
    text = old or ""
    for key in list(dict.fromkeys([*old_tree, *new_tree])):
        before, after = old_tree.get(key), new_tree.get(key)
        if before == after and (key in old_tree) == (key in new_tree):
            continue
        if key == lists_under and isinstance(after, dict) and isinstance(before, dict | None):
            text = _edit_lists(text, key, before or {}, after)
        elif key in new_tree:
            text = _set_block(text, key, after)
        else:
            text = _remove_block(text, key)
    try:
        same = parse(text) == new_tree
    except YamlEditError:
        same = False  # the edit broke the file: refused all the same
    if not same:
        raise YamlEditError(
            "its layout is one roombot cannot edit line by line without changing something "
            "else; make the change by hand"
        )
    return text


# --- top-level blocks ------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _block(lines: list[str], key: str) -> tuple[int, int] | None:
    """[start, end) of the top-level block of `key`, without its trailing blanks/comments."""
    start = None
    for i, line in enumerate(lines):
        m = _TOP_KEY.match(line)
        if m is None:
            continue
        if start is not None:
            return start, _trim(lines, start, i)
        if _unquote(m.group("key")) == key:
            start = i
    return None if start is None else (start, _trim(lines, start, len(lines)))


def _trim(lines: list[str], start: int, end: int) -> int:
    while end > start + 1 and _filler(lines[end - 1]):
        end -= 1
    return end


def _filler(line: str) -> bool:
    """A blank or comment-only line."""
    return not line.strip() or line.lstrip().startswith("#")


def _gap(lines: list[str], start: int, end: int) -> int:
    """Where a block removed at [start, end) begins, taking the blank line before it along."""
    alone = end == len(lines) or not lines[end].strip()
    return start - 1 if start > 0 and not lines[start - 1].strip() and alone else start


def _unquote(key: str) -> str:
    return key[1:-1] if key[:1] in "\"'" else key


def _dump_block(key: str, value: Any) -> list[str]:
    """A top-level block: a mapping of scalars and lists of scalars, else one JSON value."""
    if not isinstance(value, dict) or not value:
        return [f"{key}: {json.dumps(value, ensure_ascii=False)}\n"]
    out = [f"{key}:\n"]
    for k, v in value.items():
        if isinstance(v, list) and v:
            out.append(f"  {k}:\n")
            out += [f"    - {_scalar(item)}\n" for item in v]
        else:
            out.append(f"  {k}: {json.dumps(v, ensure_ascii=False)}\n")
    return out


def _set_block(text: str, key: str, value: Any) -> str:
    lines = _lines(text)
    span = _block(lines, key)
    new = _dump_block(key, value)
    if span is not None:
        return "".join(lines[: span[0]] + new + lines[span[1] :])
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    gap = ["\n"] if lines and lines[-1].strip() else []
    return "".join(lines + gap + new)


def _remove_block(text: str, key: str) -> str:
    lines = _lines(text)
    span = _block(lines, key)
    if span is None:
        return text
    start, end = span
    start = _gap(lines, start, end)  # the blank line _set_block put before it goes with it
    return "".join(lines[:start] + lines[end:])


# --- lists inside a top-level mapping ----------------------------------------------------


def _edit_lists(text: str, key: str, before: Json, after: Json) -> str:
    for child in list(dict.fromkeys([*before, *after])):
        old, new = before.get(child), after.get(child)
        if old == new and (child in before) == (child in after):
            continue
        if not isinstance(new, list | None) or not isinstance(old, list | None):
            raise YamlEditError(f"{key}.{child}: only lists are edited here")
        text = _edit_list(text, key, child, old or [], new)
    return text


def _edit_list(text: str, key: str, child: str, old: list[Any], new: list[Any] | None) -> str:
    lines = _lines(text)
    span = _block(lines, key)
    if span is None:  # no such block yet: write it whole
        return _set_block(text, key, {child: new}) if new else text
    start, end = span
    if lines[start].split(":", 1)[1].split("#", 1)[0].strip():
        raise YamlEditError(f"{key}: written inline on one line; roombot edits block mappings")
    indent, at = _child(lines, start, end, child)
    if at is None:
        if not new:
            return text
        new_lines = [f"{indent}{child}:\n"] + [f"{indent}  - {_scalar(v)}\n" for v in new]
        return "".join(lines[: start + 1] + new_lines + lines[start + 1 :])
    items = _items(lines, at, end, indent)
    rest = lines[at].split(":", 1)[1].split(" #", 1)[0].strip()
    if rest and not rest.startswith("["):
        raise YamlEditError(f"{key}.{child}: not a list")
    last = items[-1][0] + 1 if items else at + 1
    if not new:  # the list goes, and the block with it if nothing else is left
        return _drop(lines, at, last, start, end)
    if rest:  # a flow list on one line: written again as one
        lines[at] = f"{indent}{child}: [{', '.join(_scalar(v) for v in new)}]\n"
        return "".join(lines)
    if not items:  # `child:` with nothing under it yet
        added = [f"{indent}  - {_scalar(v)}\n" for v in new]
        return "".join(lines[: at + 1] + added + lines[at + 1 :])
    m = _ITEM.match(lines[items[0][0]])
    item_indent = m.group("indent") if m else indent
    values = [v for _, v in items]
    gone = {i for i, v in items if v not in new}
    extra = [f"{item_indent}- {_scalar(v)}\n" for v in new if v not in values]
    out: list[str] = []
    for i, line in enumerate(lines):
        if i not in gone:
            out.append(line)
        if i == items[-1][0]:
            out += extra  # new items after the last old one
    return "".join(out)


def _child(lines: list[str], start: int, end: int, child: str) -> tuple[str, int | None]:
    """The indentation of the block's children, and the line of `child:` (None: absent)."""
    indent = None
    for i in range(start + 1, end):
        m = _CHILD_KEY.match(lines[i])
        if m is None:
            continue
        if indent is None:
            indent = m.group("indent")
        if m.group("indent") == indent and m.group("key") == child:
            return indent, i
    return indent or "  ", None


def _items(lines: list[str], at: int, end: int, indent: str) -> list[tuple[int, Any]]:
    """The block sequence items under the key at line `at`: (line, value)."""
    out: list[tuple[int, Any]] = []
    for i in range(at + 1, end):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _ITEM.match(line)
        if m is None or len(m.group("indent")) < len(indent):
            break
        try:
            out.append((i, yaml.safe_load(m.group("value").split(" #", 1)[0]) if m else None))
        except yaml.YAMLError:
            raise YamlEditError(f"line {i + 1}: a list item roombot cannot read") from None
    return out


def _drop(lines: list[str], first: int, last: int, start: int, end: int) -> str:
    """Remove lines [first, last) of the block at [start, end); the block too if left empty."""
    rest = [
        line
        for i, line in enumerate(lines[start + 1 : end], start + 1)
        if not first <= i < last and not _filler(line)
    ]
    if not rest:
        start = _gap(lines, start, end)
        return "".join(lines[:start] + lines[end:])
    return "".join(lines[:first] + lines[last:])


def _scalar(value: Any) -> str:
    """A list item as YAML: plain when that reads back the same, else JSON-quoted."""
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z_][\w.-]*", value):
        try:
            if yaml.safe_load(value) == value:
                return value
        except yaml.YAMLError:
            pass
    return json.dumps(value, ensure_ascii=False)
