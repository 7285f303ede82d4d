"""The one small engine: the signals read from a failure, and the first rule that holds.

`Signals` is what a provider body is reduced to before the rules look at it;
`Case` is everything known about one failure (a body's signals where a body
was found, the provider's sentence, the whole text, codes, exception class
names, the status). `judge(case)` applies the precedence, one tier after the
other, and the first rule that holds in a tier decides:

  1. provider rule   a provider's own rule that joins a code or a status to a
                     sentence or a detail (rules.py, the tables of the body's shape)
  2. cause phrase    causes.CAUSES, searched in the provider's sentence, then in
                     the whole text
  3. provider code   the rest of the provider's tables: a code, a type, a status
                     that means something for that provider
  4. loose code      a code, type or gRPC status name found anywhere in the text,
                     read by every family's code rules
  5. exception       causes.EXCEPTIONS: the SDK's exception class name
  6. status          rules.BY_STATUS: the HTTP status alone
  7. request words   causes.WEAK: words that a request was malformed ("invalid
                     parameter", "not allowed"), and a bare "exited": they decide
                     only where nothing else does

A cause phrase beats a provider code or type, which beats an exception class,
which beats a status (docs/kinds-by-provider.md); the generic words of a bad
request come last, since a code, a class or a status is the better evidence.
Tables are built once per (shape, provider) and cached.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from roombot.normalise import rules as R
from roombot.normalise.causes import CAUSES, EXCEPTIONS, WEAK
from roombot.normalise.extract import names_in
from roombot.normalise.patterns import alternatives, group_end
from roombot.normalise.rules import Rule

__all__ = ["Case", "Signals", "canonical_provider", "decide", "explain", "judge", "tiers"]


@dataclass(frozen=True, slots=True)
class Signals:
    status: int | None  # HTTP status; 0 for a transport failure
    code: str  # lower-case; "" when absent
    type: str  # lower-case; "" when absent
    message: str  # the provider's own sentence
    detail: str  # the body's other strings (quota ids, reasons, inner codes), newline-joined
    retry_after: int | None


def decide(rules: tuple[Rule, ...], sig: Signals, *, anchored: bool = False) -> Rule | None:
    """The first rule whose every condition holds, or None.

    `anchored`: a message pattern must hold at the start of the sentence, not anywhere
    in it (for words that must be a provider's sentence, not a text about one).
    """
    for r in rules:
        if r.status and sig.status not in r.status:
            continue
        if r.code and sig.code not in r.code:
            continue
        if r.type and sig.type not in r.type:
            continue
        if r.min_retry is not None and (sig.retry_after is None or sig.retry_after < r.min_retry):
            continue
        if r.max_retry is not None and (sig.retry_after is None or sig.retry_after > r.max_retry):
            continue
        if r.message is not None:
            found = r.message.match(sig.message) if anchored else r.message.search(sig.message)
            if found is None:
                continue
        if r.detail is not None and r.detail.search(sig.detail) is None:
            continue
        return r
    return None


# Names a provider goes by -> the one name cards use.
_ALIASES: dict[str, str] = {
    "anthropic": "anthropic",
    "claude": "anthropic",
    "openai": "openai",
    "azure": "azure",
    "azure-openai": "azure",
    "azure_openai": "azure",
    "azureopenai": "azure",
    "gemini": "gemini",
    "google": "gemini",
    "google-gemini": "gemini",
    "vertex": "vertex",
    "vertex-ai": "vertex",
    "vertex_ai": "vertex",
    "vertexai": "vertex",
    "google-vertex": "vertex",
    "bedrock": "bedrock",
    "amazon-bedrock": "bedrock",
    "aws-bedrock": "bedrock",
    "aws": "bedrock",
    "openrouter": "openrouter",
    "mistral": "mistral",
    "mistralai": "mistral",
    "groq": "groq",
    "deepseek": "deepseek",
    "xai": "xai",
    "x-ai": "xai",
    "grok": "xai",
    "ollama": "ollama",
    "lmstudio": "lmstudio",
    "lm-studio": "lmstudio",
    "vllm": "vllm",
    "llamacpp": "llamacpp",
    "llama.cpp": "llamacpp",
    "llama-cpp": "llamacpp",
}


def canonical_provider(name: str | None) -> str | None:
    """The card's name for a provider; an unknown name is kept as given."""
    if name is None:
        return None
    return _ALIASES.get(name.strip().lower(), name)


_FAMILY: dict[str, tuple[Rule, ...]] = {
    "anthropic": R.ANTHROPIC,
    "openai": R.OPENAI,
    "google": R.GOOGLE,
    "bedrock": R.BEDROCK,
    "transport": R.TRANSPORT,
}
# A provider's own rules, tried before its family's.
_OWN: dict[str, tuple[Rule, ...]] = {
    "openrouter": R.OPENROUTER,
    "deepseek": R.DEEPSEEK,
    "xai": R.XAI,
    "mistral": R.MISTRAL,
    "ollama": R.OLLAMA,
}
_TIERS: dict[tuple[str, str | None], tuple[tuple[Rule, ...], tuple[Rule, ...]]] = {}


def _specific(r: Rule) -> bool:
    """A rule that reads words (a sentence, a detail) or a delay, not a code alone."""
    return (
        r.message is not None
        or r.detail is not None
        or r.min_retry is not None
        or r.max_retry is not None
    )


def tiers(shape: str, provider: str | None) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
    """A body's tables as (provider rules with words, provider codes), in the order tried."""
    key = (shape, provider)
    found = _TIERS.get(key)
    if found is not None:
        return found
    own = _OWN.get(provider or "", ()) if shape in ("openai", "plain", "xai") else ()
    if shape == "transport":
        rules = R.TRANSPORT
    elif shape in ("plain", "xai"):
        # {"error": "<sentence>"} (Ollama, xAI): every such provider's own rules may apply.
        rules = (own if own else R.OLLAMA + R.XAI) + R.OPENAI
    else:
        rules = own + _FAMILY.get(shape, R.OPENAI)
    found = (tuple(r for r in rules if _specific(r)), tuple(r for r in rules if not _specific(r)))
    _TIERS[key] = found
    return found


# Every family's code rules, for a code found loosely in words (no body to say whose).
LOOSE: tuple[Rule, ...] = tuple(
    r
    for table in (R.ANTHROPIC, R.OPENAI, R.GOOGLE, R.BEDROCK, R.HARNESS_ERRORS)
    for r in table
    if not _specific(r) and (r.code or r.type)
)


@dataclass(frozen=True)
class Case:
    """Everything known about one failure, for `judge`."""

    body: Signals | None  # a provider body's fields, when one was found
    shape: str  # the body's shape ("text" when none)
    provider: str | None
    sentence: str  # the provider's own sentence
    haystack: str  # the whole text, where cause phrases are searched after the sentence
    codes: tuple[str, ...] = ()  # codes of embedded values (and ones a caller knows)
    status: int | None = None
    retry_after: int | None = None

    @cached_property
    def names(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The gRPC names and the exception classes in the text (read when needed)."""
        return names_in(self.haystack)


def _words(text: str, status: int | None, retry_after: int | None) -> Signals:
    return Signals(status, "", "", text, "", retry_after)


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
    if after == "" or after.startswith("\\b") or after[0] in _SEPARATORS:
        return True
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
        if ch.isalnum():
            if not word:
                at_start = start_next
            word.append(ch)
            start_next = False
        elif ch in _SEPARATORS or ch == "^":
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

    def search(self, text: str, low: str) -> bool:
        """Whether the alternative holds in `text`; `low` is text.lower() (see lowered)."""
        if not self.on_lower or not low:
            return self.reference.search(text) is not None
        if not self.word_start:
            return self.pattern.search(low) is not None
        pos = 0
        while True:
            m = self.pattern.search(low, pos)
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
    if len(low) != len(text) or "\u017f" in low or "\u0131" in low:
        return ""
    return low


def _as_bytes(words: frozenset[str]) -> frozenset[bytes]:
    return frozenset(w.encode() for w in words)


def _phrase_of(r: Rule, alt: str) -> _Phrase:
    chosen = triggers(alt)
    found = _as_bytes(chosen) if chosen is not None else None
    needs = requirements(alt)
    words = _as_bytes(frozenset(w for n in needs if len(n) == 1 for w in n))
    groups = tuple(_as_bytes(n) for n in needs if len(n) > 1)
    literal = leading_literal(alt)
    reference = re.compile(alt, re.IGNORECASE)
    parts = (found, words, groups, literal)
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
    always: frozenset[int]  # alternatives with no trigger: tried on every text
    by_trigger: dict[bytes, frozenset[int]]
    words: tuple[frozenset[bytes], ...]  # each phrase's words, for a check without lookups
    groups: tuple[tuple[frozenset[bytes], ...], ...]
    literals: tuple[str, ...]
    trigger_words: frozenset[bytes]  # every trigger (the keys of by_trigger)


def _table(rules: tuple[Rule, ...]) -> _Table:
    flat = tuple(
        _phrase_of(r, alt)
        for r in rules
        for alt in alternatives(r.message.pattern if r.message is not None else "")
    )
    words = {w for p in flat if p.triggers is not None for w in p.triggers}
    return _Table(
        flat,
        frozenset(i for i, p in enumerate(flat) if p.triggers is None),
        {
            w: frozenset(
                i for i, p in enumerate(flat) if p.triggers is not None and w in p.triggers
            )
            for w in words
        },
        tuple(p.words for p in flat),
        tuple(p.groups for p in flat),
        tuple(p.literal for p in flat),
        frozenset(words),
    )


_CAUSES = _table(CAUSES)
_WEAK = _table(WEAK)
# The first four letters of each word (a lower-cased letter or digit run): the lookbehind
# keeps a match from starting inside a word, so one findall gives every word's start.
_WORD_START = re.compile(r"(?<![a-z0-9])[a-z0-9]{1,4}")
# The phrase tier reads this much of a long text: its head and its tail.
_PHRASE_HEAD = 4096
_PHRASE_TAIL = 1024


def phrases() -> tuple[_Phrase, ...]:
    """Every alternative of the phrase tables as the engine runs it (for the tests)."""
    return _CAUSES.phrases + _WEAK.phrases


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
        return set(map(_FIRST_LETTERS, low.encode().translate(_SEPARATE).split()))
    return {w.encode() for w in _WORD_START.findall(low)}


def _words_of(texts: tuple[str, ...], low_texts: tuple[str, ...]) -> tuple[str, set[bytes]]:
    """The lower-cased words of the texts to look in, and their index (see word_index).

    The words of the last (widest) text, and of the first where it is not inside it: a
    sentence read out of JSON has its escapes undone ("\\nRate" is "Rate" there).
    """
    words = [low or text.lower() for text, low in zip(texts, low_texts, strict=True)]
    if len(words) > 1 and words[0] in words[-1]:
        words = words[-1:]
    joined = " ".join(words)
    return joined, word_index(joined)


def _phrase(
    table: _Table,
    texts: tuple[str, ...],
    low_texts: tuple[str, ...],
    words: tuple[str, set[bytes]],
    sig: Signals,
) -> Rule | None:
    """The first phrase of the table that holds in the first of the texts that has one."""
    joined, index = words
    literals = table.literals
    found = {i for i in table.always if literals[i] in joined}
    by_trigger = table.by_trigger
    for t in index & table.trigger_words:
        found.update(by_trigger[t])
    order = sorted(found)
    phrases, words_of, groups = table.phrases, table.words, table.groups
    for text, low in zip(texts, low_texts, strict=True):
        for i in order:
            # Every word an alternative must contain has to be there, not only its trigger.
            if not words_of[i] <= index:
                continue
            if groups[i] and not all(not g.isdisjoint(index) for g in groups[i]):
                continue
            p = phrases[i]
            r = p.rule
            if r.min_retry is not None and (
                sig.retry_after is None or sig.retry_after < r.min_retry
            ):
                continue
            if r.max_retry is not None and (
                sig.retry_after is None or sig.retry_after > r.max_retry
            ):
                continue
            if p.literal and low and p.literal not in low:
                continue
            if p.search(text, low):
                return r
    return None


TIER_NAMES = (
    "provider rule",
    "cause phrase",
    "provider code",
    "loose code",
    "exception",
    "status",
    "request words",
)


def _tiers(case: Case, anchored: bool) -> Iterator[tuple[str, Rule | None]]:
    """Each tier's first rule that holds, lazily, in the order of precedence."""
    specific, codes = tiers(case.shape, case.provider)
    yield TIER_NAMES[0], decide(specific, case.body) if case.body is not None else None
    sig = _words(case.sentence, case.status, case.retry_after)
    # The sentence first, then the whole text (the last, so its words give the index).
    texts = tuple(_cap(t) for t in dict.fromkeys((case.sentence, case.haystack)) if t)
    if anchored:
        texts = texts[:1]
    lows = tuple(lowered(t) for t in texts)
    words: tuple[str, set[bytes]] = (
        _words_of(texts, lows) if texts and not anchored else ("", set())
    )
    if anchored:
        phrase = decide(CAUSES, sig, anchored=True)
    else:
        phrase = _phrase(_CAUSES, texts, lows, words, sig) if texts else None
    yield TIER_NAMES[1], phrase
    yield TIER_NAMES[2], decide(codes, case.body) if case.body is not None else None
    grpc, exceptions = case.names
    loose = (
        decide(LOOSE, Signals(case.status, code, code, case.sentence, "", None))
        for code in (*case.codes, *grpc)
    )
    yield TIER_NAMES[3], next((r for r in loose if r is not None), None)
    # In the table's order, not the text's: "litellm.BadRequestError:
    # litellm.ContentPolicyViolationError" is the more specific class's.
    classes = frozenset(exceptions)
    found = next((r for r in EXCEPTIONS if r.code & classes), None) if classes else None
    yield TIER_NAMES[4], found
    if anchored:
        # Confirming a provider's sentence: its words must decide, before any status.
        yield TIER_NAMES[6], decide(WEAK, sig, anchored=True)
    status = case.status
    said = _words(case.sentence or case.haystack, status, None)
    yield TIER_NAMES[5], decide(R.BY_STATUS, said) if status is not None else None
    if not anchored:
        yield TIER_NAMES[6], _phrase(_WEAK, texts, lows, words, sig) if texts else None


def judge(case: Case, *, anchored: bool = False) -> Rule | None:
    """The deciding rule for one failure, tier by tier (the module docstring), or None.

    `anchored`: cause phrases must open the sentence (see `decide`), and the rest of the
    text is not searched; used to confirm that words are a provider's own sentence.
    """
    return next((r for _, r in _tiers(case, anchored) if r is not None), None)


def explain(case: Case) -> dict[str, Rule | None]:
    """Every tier's first rule that holds, deciding or not (`roombot classify --explain`)."""
    return dict(_tiers(case, False))


def all_chains() -> dict[str, tuple[Rule, ...]]:
    """Every table by name (for the docs and the tests)."""
    return {
        **_FAMILY,
        **_OWN,
        "causes": CAUSES,
        "weak": WEAK,
        "exceptions": EXCEPTIONS,
        "status": R.BY_STATUS,
        "harness": R.HARNESS_ERRORS,
    }
