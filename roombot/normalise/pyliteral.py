"""Python literals (a dict or list repr, as SDKs print their error bodies), read quickly.

`openai.BadRequestError: Error code: 400 - {'error': {'message': ..., 'code': None}}`
carries its body as a Python repr. `ast.literal_eval` reads one exactly but compiles
it first, which costs tens of microseconds per body; most reprs are plain JSON once
their quotes and `None`/`True`/`False` are rewritten. `read(source)` does that
rewrite and lets `json.loads` parse it, and hands anything the rewrite cannot be
sure of (a tuple, a bytes or unicode prefix, an escape the two languages read
differently, a number only Python writes) to `ast.literal_eval`: the value is
always the one `ast.literal_eval` gives, or MISSING where it refuses.
"""

from __future__ import annotations

import ast
import json
import re
import warnings

__all__ = ["MISSING", "read"]

MISSING = object()


class _Unsure(Exception):
    """The rewrite cannot vouch for this source: ast.literal_eval decides."""


# A string in either quote (no raw newline: Python refuses one, as JSON does), its loop
# unrolled (runs of plain characters between escapes) so that re does not step per
# character. What lies between strings must be what JSON and Python read alike, or one
# of the three names.
_STRING = re.compile(r"""('[^'\\\n]*(?:\\.[^'\\\n]*)*'|"[^"\\\n]*(?:\\.[^"\\\n]*)*")""")
# One character or one name per step, never a run inside a repeat: a nested quantifier
# would backtrack exponentially on a long run of digits that ends in a stray character.
# Only spaces and tabs: a repr has no line breaks, and Python reads some ("0\n ") as an
# indent where JSON reads blank space.
_BETWEEN = re.compile(r"(?:[ \t0-9.eE+\-:,\[\]{}\0]|None|True|False)*")  # \0: see _as_json
# Escapes that mean the same in both languages, passed on as written.
_SAME = frozenset('\\"bfnrtu')
_ESCAPE = re.compile(r'\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|"', re.DOTALL)


def _escape(m: re.Match[str]) -> str:
    esc = m.group(1)
    if esc is None:
        return '\\"'  # a double quote inside a single-quoted string
    if esc == "'":
        return "'"
    if esc in _SAME:
        return "\\" + esc
    if esc[0] == "x" and len(esc) == 3:
        return "\\u00" + esc[1:]
    if esc[0] == "u" and len(esc) == 5 and not 0xD800 <= int(esc[1:], 16) <= 0xDFFF:
        return "\\" + esc  # a surrogate is left to Python: JSON would join a pair into one
    raise _Unsure  # \a, \v, \0, \N{...}, \U..., \/, a line continuation: read differently


def _string(literal: str) -> str:
    """One quoted Python string as a JSON string."""
    body = literal[1:-1]
    if "\\" not in body and (literal[0] == '"' or '"' not in body):
        return '"' + body + '"'
    return '"' + _ESCAPE.sub(_escape, body) + '"'


class _Refused(Exception):
    """Python would refuse this source too: it holds a name no literal has."""


# A name standing alone ("[error]", "[SSL: CERTIFICATE_VERIFY_FAILED]", a log's "[INFO]"):
# ast.literal_eval reads no name but None, True and False (and the call `set()`), so a text
# with one is refused without compiling it. Where a quote, a `#` or a backslash is left
# outside the strings found, Python may read them otherwise (a triple-quoted string over
# lines, a comment), and it decides.
_NAME = re.compile(r"(?<![\w.])[^\W\d]\w*")
_CONSTANTS = frozenset(("None", "True", "False"))


def _check_names(parts: list[str], between: str) -> None:
    if "'" in between or '"' in between or "#" in between or "\\" in between:
        raise _Unsure
    last = len(parts) - 1
    for k, part in enumerate(parts):
        for m in _NAME.finditer(part):
            name = m.group()
            if name in _CONSTANTS:
                continue
            if name == "set" or (m.end() == len(part) and k < last):
                raise _Unsure  # `set()`, or a string's prefix (b'', u'', r'', f'')
            raise _Refused
    raise _Unsure


def _as_json(source: str) -> str:
    # Split at the strings: the parts between them (even places) are checked at once, and
    # the names rewritten at once, with a separator no checked part can hold.
    parts = _STRING.split(source)
    between = "\0".join(parts[0::2])
    if _BETWEEN.fullmatch(between) is None:
        _check_names(parts[0::2], between)  # a character neither reads alike
    if "None" in between or "True" in between or "False" in between:
        between = between.replace("None", "null").replace("True", "true")
        parts[0::2] = between.replace("False", "false").split("\0")
    parts[1::2] = [_string(p) for p in parts[1::2]]
    return "".join(parts)


def read(source: str) -> object:
    """The value of a Python literal, as ast.literal_eval reads it, or MISSING."""
    try:
        return json.loads(_as_json(source))
    except _Refused:
        return MISSING
    except (_Unsure, ValueError, RecursionError):
        pass
    try:
        with warnings.catch_warnings():
            # An invalid escape ("\\d" in a quoted regex) warns on stderr; the text is
            # a provider's, not code, and is read all the same.
            warnings.simplefilter("ignore")
            return ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return MISSING
