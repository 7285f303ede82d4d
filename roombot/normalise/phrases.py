"""The cause phrases, compiled for speed: each alternative on its own, tried only where it can hold.

causes.py writes the phrases as regular expressions, for a reader; here each
alternative is split out (one that opens with a group of words, once per word of the
group: see _split) and given what a text must have for it to match: the
start of a literal word it contains (a trigger, looked up in an index of the
text's word starts), every other word it must contain, the letters it opens
with. A failure's texts are lower-cased once, their word starts indexed once for
every table; a table's candidates are the alternatives whose trigger is among them
(and the few with none whose letters the text has), and only those are searched,
in the table's order, case-sensitively, a leading `\\b` checked by hand (both keep
the regex engine's fast literal scan). The result is the same as searching every
phrase as written (tests/normalise/test_phrases.py holds it to that on every corpus
text and on generated ones), in a few microseconds.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import NamedTuple

from roombot.normalise.causes import CAUSES, WEAK, WORDS
from roombot.normalise.patterns import alternatives, group_end
from roombot.normalise.rules import Rule

__all__ = [
    "CAUSE_TABLE",
    "WEAK_TABLE",
    "WORDS_TABLE",
    "Prepared",
    "first_match",
    "leading_literal",
    "lowered",
    "most_held",
    "phrases",
    "prepare",
    "requirements",
    "triggers",
    "word_index",
]

_LITERAL = re.compile(r"[A-Za-z0-9_]+")
_PREFIX = 4  # a trigger is a word's first four letters (or the whole word, if shorter)


def _lead(s: str) -> frozenset[str] | None:
    """The word starts (see _PREFIX) one of which a text must have for `s` to match there."""
    if s.startswith("(?:"):
        end = group_end(s)
        if end is None:
            return None
        rest = s[end + 1 :]
        if rest[:1] in ("?", "*") or rest.startswith("{0"):
            return None  # an optional group: the word may start after it
        out: set[str] = set()
        for branch in alternatives(s[3:end]):
            found = _lead(branch + rest)
            if found is None:
                return None
            out |= found
        return frozenset(out)
    m = _LITERAL.match(s)
    if m is None:
        return None
    word, after = m.group(), s[m.end() :]
    if after[:1] in ("?", "*", "{"):
        word = word[:-1]  # a quantifier makes the last letter optional
    elif len(word) < 3 and after.startswith(" "):
        return _lead(after[1:])  # a short word: the next one, after its space, is a word too
    if len(word) >= _PREFIX:
        return frozenset({word[:_PREFIX].lower()})
    # A shorter word is a trigger only where it must end there (a separator, `\\b`, the
    # end); "rate" in `\\brate[ _-]?limit` may be the start of the one word "ratelimit".
    return frozenset({word.lower()}) if len(word) >= 2 and _word_ends(after) else None


_SEPARATORS = frozenset(" _-.,:;/=)'\"")


def _word_ends(after: str) -> bool:
    """Whether what follows a literal in a pattern must end the word (for word_index)."""
    if after == "" or after.startswith("\\b"):
        return True
    if after[0] in _SEPARATORS:
        return after[1:2] not in ("?", "*", "{")  # "log ?in" may be the one word "login"
    if after.startswith("[") and "]" in after[1:]:
        end = after.index("]", 1)
        chars = after[1:end]
        return (
            bool(chars)
            and set(chars) <= _SEPARATORS
            and after[end + 1 : end + 2]
            not in (
                "?",
                "*",
                "{",
            )
        )
    return False


# The commonest word starts of failure text (counted over the corpus, most frequent first):
# a poor trigger, since nearly every text has them. A rarer word of the same alternative
# is chosen instead where it has one.
_COMMON = [
    "erro",
    "requ",
    "mess",
    "code",
    "the",
    "to",
    "api",
    "type",
    "plea",
    "your",
    "mode",
    "exce",
    "cont",
    "http",
    "limi",
    "is",
    "or",
    "toke",
    "for",
    "open",
    "in",
    "com",
    "fail",
    "this",
    "inva",
    "you",
    "stat",
    "a",
    "with",
    "agai",
    "not",
    "at",
    "try",
    "resp",
    "id",
    "of",
    "serv",
    "para",
    "retr",
    "rate",
    "and",
    "ai",
    "deta",
    "time",
    "proc",
    "an",
    "clau",
    "null",
    "more",
    "inte",
    "prov",
    "on",
    "comp",
    "too",
    "agen",
]
_RANK = {w: i for i, w in enumerate(_COMMON)}


def _requirements(s: str) -> list[frozenset[str]]:
    """What one alternative needs in a text's words (see word_index), each a set of which
    one must be there: a literal word it must contain at a word start (a set of one), or
    the words a mandatory `(?:a|b|...)` at a word start begins with.

    A word of four letters or more gives its first four; a shorter one counts only where
    the pattern also ends it. A scan of the top level only: classes, optional letters and
    groups it cannot read end a word.
    """
    out: list[frozenset[str]] = []
    word: list[str] = []
    at_start = False  # the current word began at a word start
    start_next = s.startswith("\\b") or s.startswith("^")

    def end(clean: bool) -> None:
        if at_start and (len(word) >= _PREFIX or (len(word) >= 2 and clean)):
            out.append(frozenset({"".join(word)[:_PREFIX].lower()}))
        word.clear()

    i = 0
    while i < len(s):
        ch = s[i]
        nxt = s[i + 1 : i + 2]
        if ch == "\\":
            esc = s[i + 1 : i + 2]
            i += 2
            if esc == "b" or (esc == "s" and s[i : i + 1] not in ("?", "*", "{")):
                end(True)  # a boundary, or whitespace that must be there
                start_next = True
                if s[i : i + 1] == "+":
                    i += 1
            elif esc.isalnum():  # \\w, \\d, \\s, ...: a class, not a letter
                end(False)
                start_next = False
            else:  # an escaped punctuation mark is a literal separator
                end(True)
                start_next = s[i : i + 1] not in ("?", "*", "{")
            continue
        if ch in "([":
            close = group_end(s[i:]) if ch == "(" else (s.find("]", i + 2) - i)
            if close is None or close < 0:
                return out
            body = s[i + 1 : i + close]
            optional = s[i + close + 1 : i + close + 2] in ("?", "*", "{")
            if ch == "(" and start_next and not optional and s.startswith("(?:", i):
                end(True)
                group = _lead(s[i:])
                if group is not None:
                    out.append(group)
            elif ch == "[" and body and set(body) <= _SEPARATORS and not optional:
                end(True)
                i += close + 1
                start_next = True
                continue
            # An optional group that ends in a space leaves a word start where it was one.
            keep = start_next and optional and body.endswith(" ")
            end(False)
            i += close + 1
            if optional:
                i = _past_quantifier(s, i)
            start_next = keep
            continue
        if nxt in ("?", "*", "{", "+"):
            # This character may repeat or be left out: the word ends before it.
            end(False)
            start_next = False
            i += 1
            continue
        if ch.isascii() and ch.isalnum():
            if not word:
                at_start = start_next
            word.append(ch)
            start_next = False
        elif ch in _SEPARATORS or ch == "^" or not ch.isascii():
            # word_index knows ASCII words only: a letter such as "é" ends one and starts the next
            end(True)
            start_next = True
        else:  # ".", "$", "|" or another operator
            end(ch == "$")
            start_next = False
        i += 1
    end(False)  # a word the pattern ends with may go on in the text
    return out


def _past_quantifier(s: str, i: int) -> int:
    """The index after the quantifier (`?`, `*`, `{m,n}`, and a lazy `?`) at s[i]."""
    if s[i : i + 1] == "{":
        close = s.find("}", i)
        i = close + 1 if close >= 0 else len(s)
    elif s[i : i + 1] in ("?", "*"):
        i += 1
    if s[i : i + 1] == "?":
        i += 1
    return i


def _cost(need: frozenset[str]) -> tuple[int, int, int]:
    """How often a requirement holds by chance: its commonest word, then how many words."""
    return (max(_RANK.get(w, -1) for w in need), len(need), -min(len(w) for w in need))


def _unwrapped(alternative: str) -> str:
    """An alternative without the scoped-flag group `(?-i:...)` around all of it."""
    if alternative.startswith("(?-i:") and group_end(alternative) == len(alternative) - 1:
        return alternative[5:-1]
    return alternative


def requirements(alternative: str) -> tuple[frozenset[str], ...]:
    """What the alternative needs in a text's words (see _requirements)."""
    return tuple(_requirements(_unwrapped(alternative)))


def triggers(alternative: str) -> frozenset[str] | None:
    """The word starts, one of which a text must have for the alternative to match.

    The rarest of its requirements (see _COMMON), or None when it has none (the
    alternative is then tried on every text, after a look for its leading letters).
    """
    needs = requirements(alternative)
    return min(needs, key=_cost) if needs else None


_LEADING = re.compile(r"(?:[^\\\[\]().*+?{}|^$]|\\[^A-Za-z0-9])+")


def leading_literal(alternative: str) -> str:
    """The letters an alternative opens with, lower-cased ("" when it opens with an operator).

    A literal a text must contain for the alternative to match; the last letter is left
    off when a quantifier follows it.
    """
    s = _unwrapped(alternative)
    if s.startswith("^"):
        s = s[1:]
    if s.startswith("\\b"):
        s = s[2:]
    m = _LEADING.match(s)
    if m is None:
        return ""
    lit = m.group()
    if s[m.end() : m.end() + 1] in ("?", "*", "{"):
        lit = lit[:-1]
    return re.sub(r"\\(.)", r"\1", lit).lower()


def _lower_pattern(source: str) -> str:
    """A pattern's letters lower-cased, escapes (\\W, \\S, \\b, ...) kept as written."""
    out: list[str] = []
    i = 0
    while i < len(source):
        if source[i] == "\\":
            out.append(source[i : i + 2])
            i += 2
        else:
            out.append(source[i].lower())
            i += 1
    return "".join(out)


@dataclass(frozen=True, slots=True)
class _Phrase:
    """One alternative of a cause phrase, compiled for speed.

    Most are matched case-sensitively against the lower-cased text (a literal prefix
    lets the regex engine skip ahead); a leading `\\b` is checked by hand for the same
    reason. Alternatives with a case-sensitive part run as written on the text as it is.
    """

    rule: Rule
    source: str  # the alternative as written in causes.py
    reference: re.Pattern[str]  # the same, compiled as written (case-insensitive)
    pattern: re.Pattern[str]
    on_lower: bool
    word_start: bool
    triggers: frozenset[bytes] | None  # as word_index gives them
    words: frozenset[bytes]  # word starts it must find, every one (see requirements)
    groups: tuple[frozenset[bytes], ...]  # and of each of these, one
    literal: str  # letters it must find as they are (see leading_literal)
    origin: int = 0  # which alternative of the table as written it comes from (see _split)

    def search(self, text: str, low: str) -> bool:
        """Whether the alternative holds in `text`; `low` is text.lower() (see lowered)."""
        if not self.on_lower or not low:
            return self.reference.search(text) is not None
        if not self.word_start:
            return self.pattern.search(low) is not None
        return _at_word_start(self.pattern, text, low)


def _at_word_start(pattern: re.Pattern[str], text: str, low: str) -> bool:
    """Whether `pattern` (a phrase without its leading `\\b`) holds in `low` where a word
    starts in `text`."""
    pos = 0
    while True:
        m = pattern.search(low, pos)
        if m is None:
            return False
        i = m.start()
        if i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"):
            return True
        pos = i + 1


def lowered(text: str) -> str:
    """text.lower() where it keeps every character's place and case-insensitive matching
    agrees with it, else "" (such a text is read by the phrases as written: "İ" lowers to
    two characters, and the regex engine folds the long s with "s", the dotless i with "i")."""
    low = text.lower()
    if len(low) != len(text) or (not low.isascii() and ("\u017f" in low or "\u0131" in low)):
        return ""
    return low


def _as_bytes(words: frozenset[str]) -> frozenset[bytes]:
    return frozenset(w.encode() for w in words)


def _phrase_of(r: Rule, alt: str, origin: int) -> _Phrase:
    chosen = triggers(alt)
    found = _as_bytes(chosen) if chosen is not None else None
    needs = requirements(alt)
    words = _as_bytes(frozenset(w for n in needs if len(n) == 1 for w in n))
    groups = tuple(_as_bytes(n) for n in needs if len(n) > 1)
    literal = leading_literal(alt)
    reference = re.compile(alt, re.IGNORECASE)
    parts = (found, words, groups, literal, origin)
    if "(?-i:" in alt:
        return _Phrase(r, alt, reference, reference, False, False, *parts)
    low = _lower_pattern(alt)
    if low.startswith("\\b") and found is not None:
        return _Phrase(r, alt, reference, re.compile(low[2:]), True, True, *parts)
    return _Phrase(r, alt, reference, re.compile(low), True, False, *parts)


# The cause phrases, each alternative on its own with its triggers: a text is searched only
# with the alternatives whose trigger its words have (and the few with none), which keeps
# a classification within microseconds however many phrases the table grows to.
@dataclass(frozen=True, slots=True)
class _Table:
    """A table of phrases flattened for the fast path: the alternatives and their triggers."""

    phrases: tuple[_Phrase, ...]
    rules: tuple[Rule, ...]  # as written: the earlier decides a tie of two (see most_held)
    always: tuple[int, ...]  # alternatives with no trigger: tried on every text
    always_ascii: tuple[int, ...]  # those of them whose letters are ASCII (see first_match)
    by_trigger: dict[bytes, tuple[int, ...]]
    literals: tuple[str, ...]
    trigger_words: frozenset[bytes]  # every trigger (the keys of by_trigger)
    conditional: frozenset[int]  # alternatives with word groups or a delay (see _holds)


_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")


def _split(alternative: str) -> list[str]:
    """An alternative that opens with a group of words, as one alternative per word.

    `\\b(?:limit|quota|cap)\\b...` holds where `\\blimit\\b...`, `\\bquota\\b...` or
    `\\bcap\\b...` holds, and each of those opens with its letters: the regex engine skips
    ahead to them, and each is tried only where its own word is. A group that is optional
    or repeated stays as it is, and so does an alternative that refers back to a group.
    """
    lead, s = "", alternative
    if s.startswith("\\b") or s.startswith("^"):
        lead, s = s[: 1 if s[0] == "^" else 2], s[1 if s[0] == "^" else 2 :]
    if not s.startswith("(?:") or _BACKREFERENCE.search(alternative):
        return [alternative]
    end = group_end(s)
    if end is None:
        return [alternative]
    rest = s[end + 1 :]
    if rest[:1] in ("?", "*", "+", "{"):
        return [alternative]
    branches = alternatives(s[3:end])
    if len(branches) < 2:
        return [alternative]
    return [part for b in branches for part in _split(lead + b + rest)]


def _table(rules: tuple[Rule, ...]) -> _Table:
    written = [
        (r, alt)
        for r in rules
        for alt in alternatives(r.message.pattern if r.message is not None else "")
    ]
    flat = tuple(
        _phrase_of(r, part, origin)
        for origin, (r, alt) in enumerate(written)
        for part in _split(alt)
    )
    words = {w for p in flat if p.triggers is not None for w in p.triggers}
    always = tuple(i for i, p in enumerate(flat) if p.triggers is None)
    return _Table(
        flat,
        rules,
        always,
        tuple(i for i in always if flat[i].literal.isascii()),
        {
            w: tuple(i for i, p in enumerate(flat) if p.triggers is not None and w in p.triggers)
            for w in words
        },
        tuple(p.literal for p in flat),
        frozenset(words),
        frozenset(
            i
            for i, p in enumerate(flat)
            if p.groups or p.rule.min_retry is not None or p.rule.max_retry is not None
        ),
    )


CAUSE_TABLE = _table(CAUSES)
WEAK_TABLE = _table(WEAK)
WORDS_TABLE = _table(WORDS)
# The first four letters of each word (a lower-cased letter or digit run): the lookbehind
# keeps a match from starting inside a word, so one findall gives every word's start.
_WORD_START = re.compile(r"(?<![a-z0-9])[a-z0-9]{1,4}")
# The phrase tier reads this much of a long text: its head and its tail.
_PHRASE_HEAD = 4096
_PHRASE_TAIL = 1024


def phrases() -> tuple[_Phrase, ...]:
    """Every alternative of the phrase tables as it is run (for the tests)."""
    return CAUSE_TABLE.phrases + WEAK_TABLE.phrases + WORDS_TABLE.phrases


def _cap(text: str) -> str:
    if len(text) <= _PHRASE_HEAD + _PHRASE_TAIL:
        return text
    return text[:_PHRASE_HEAD] + "\n" + text[-_PHRASE_TAIL:]


_FIRST_LETTERS = operator.itemgetter(slice(0, _PREFIX))
# Every byte that is not a lower-case ASCII letter or digit, to a space (bytes.translate
# with a 256-byte table is many times faster than str.translate).
_SEPARATE = bytes(c if (48 <= c <= 57 or 97 <= c <= 122) else 32 for c in range(256))


def word_index(low: str) -> set[bytes]:
    """The first four letters (the whole word, if shorter) of every word of a lower-cased text,
    as ASCII bytes.

    Words split at underscores too ("rate_limit_error" gives "rate", "limi", "erro"): more
    candidates than `\\b` would allow, never fewer.
    """
    if low.isascii():
        # each word once (a failure repeats its keys and words), then its first letters
        return set(map(_FIRST_LETTERS, set(low.encode().translate(_SEPARATE).split())))
    return {w.encode() for w in _WORD_START.findall(low)}


class Prepared(NamedTuple):
    """The texts of one failure that phrases are searched in, read once for every table
    (a named tuple: one is made for every failure, and a tuple is the quickest to make)."""

    texts: tuple[str, ...]  # the provider's sentence first, then the whole text
    lows: tuple[str, ...]  # each lowered (see lowered), "" where it must be read as written
    joined: str  # their lower-cased words, for the tables' leading letters
    word_starts: set[bytes]  # their word starts (see word_index)
    ascii: bool  # joined is ASCII: no leading letters but ASCII ones can be in it


# A line break inside a sentence, where a terminal, a UI or a log wrapped it ("maximum
# context\nlength is 4097 tokens"): the next line goes on in lower case.
_WRAPPED = re.compile(r"\n(?<=[a-z,]\n)[ \t]*(?=[a-z])")  # led by "\n", for a quick scan


def _unwrap(text: str) -> str:
    return _WRAPPED.sub(" ", text) if "\n" in text else text


def prepare(sentence: str, haystack: str) -> Prepared:
    """A failure's sentence and whole text, capped to their head and tail, for first_match.

    The words of the whole text, and of the sentence where it is not inside it: a
    sentence read out of JSON has its escapes undone ("\\nRate" is "Rate" there).
    """
    if sentence == haystack or not sentence or not haystack:
        one = _unwrap(_cap(sentence or haystack))
        texts: tuple[str, ...] = (one,) if one else ()
    else:
        texts = (_unwrap(_cap(sentence)), _unwrap(_cap(haystack)))
    lows = tuple(lowered(t) for t in texts)
    words = [low or text.lower() for text, low in zip(texts, lows, strict=True)]
    if len(words) > 1 and words[0] in words[-1]:
        words = words[-1:]
    joined = " ".join(words)
    return Prepared(texts, lows, joined, word_index(joined), joined.isascii())


def _candidates(table: _Table, prepared: Prepared) -> set[int]:
    """The alternatives of the table a text's words can hold: those with a trigger among
    its word starts, and those with none whose leading letters it has (a letter that is
    not ASCII is in no ASCII text, so such a text looks only for the ASCII ones)."""
    index, by_trigger = prepared.word_starts, table.by_trigger
    found: set[int] = set()
    for t in index & table.trigger_words:
        found.update(by_trigger[t])
    joined, literals = prepared.joined, table.literals
    for i in table.always_ascii if prepared.ascii else table.always:
        if literals[i] in joined:
            found.add(i)
    return found


def first_match(table: _Table, prepared: Prepared, retry_after: int | None) -> Rule | None:
    """The first rule of the table whose phrase holds in the first of the texts that has one."""
    found = _candidates(table, prepared)
    if not found:
        return None
    # What does not depend on which text is read is checked once: every word an
    # alternative must contain has to be there, not only its trigger, and its delay.
    index, phrases_ = prepared.word_starts, table.phrases
    order = [p for i in sorted(found) if (p := phrases_[i]).words <= index]
    if not order:
        return None
    held: dict[int, bool] = {}  # the groups and the delay, checked when first needed
    for text, low in zip(prepared.texts, prepared.lows, strict=True):
        for p in order:
            if low and p.literal not in low:
                continue
            if p.groups or p.rule.min_retry is not None or p.rule.max_retry is not None:
                ok = held.get(id(p))
                if ok is None:
                    ok = held[id(p)] = _holds(p, index, retry_after)
                if not ok:
                    continue
            if not p.on_lower or not low:
                if p.reference.search(text) is not None:
                    return p.rule
            elif not p.word_start:
                if p.pattern.search(low) is not None:
                    return p.rule
            elif _at_word_start(p.pattern, text, low):
                return p.rule
    return None


# Where a class or a code joins its words in camel case ("QuotaLimit", "AgentLoopCancelled"):
# the last tier counts single words, and these are words too. (Not snake case: a variable's
# name in a trace, "connection_config", is no cause.)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def _count(table: _Table, prepared: Prepared, held: dict[Rule, set[int]]) -> None:
    """Add the alternatives of the table that hold in the whole text, per rule, to `held`."""
    text, low = prepared.texts[-1], prepared.lows[-1]
    index = prepared.word_starts
    for i in _candidates(table, prepared):
        p = table.phrases[i]
        if p.words <= index and _holds(p, index, None) and p.search(text, low):
            held.setdefault(p.rule, set()).add(p.origin)


def most_held(table: _Table, prepared: Prepared) -> Rule | None:
    """The one rule of the table with the most alternatives that hold in the whole text
    (the last of the texts), or None where none holds or three or more tie (causes.WORDS).

    Of two tied rules, the one written first decides: the table is in order of how much
    a kind's words say, a request's generic adjectives last. Where the words do not
    decide, a camel-case name is read as its words too ("QuotaLimit" holds "quota")."""
    if not prepared.texts:
        return None  # an empty failure text has no words to count
    held: dict[Rule, set[int]] = {}  # the alternatives as written that hold, per rule
    _count(table, prepared, held)
    found = _most(table, held)
    if found is None and _CAMEL.search(prepared.texts[-1]):
        spaced = _CAMEL.sub(" ", prepared.texts[-1])
        _count(table, prepare(spaced, spaced), held)
        found = _most(table, held)
    return found


def _most(table: _Table, held: dict[Rule, set[int]]) -> Rule | None:
    if not held:
        return None
    best = max(len(n) for n in held.values())
    top = [r for r, n in held.items() if len(n) == best]
    return min(top, key=table.rules.index) if len(top) <= 2 else None


def _holds(p: _Phrase, index: set[bytes], retry_after: int | None) -> bool:
    """An alternative's conditions besides its words: one of each group, and the delay."""
    for g in p.groups:
        if g.isdisjoint(index):
            return False
    r = p.rule
    if r.min_retry is not None and (retry_after is None or retry_after < r.min_retry):
        return False
    return r.max_retry is None or (retry_after is not None and retry_after <= r.max_retry)
