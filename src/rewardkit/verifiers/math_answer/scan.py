"""Linear scans that find math in free text: delimited math (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``), plain
numbers in prose, and the value a sentence states ("The largest $n$ is 34" → ``34``).

Used by :mod:`rewardkit.verifiers.math_answer.extract` for the lenient fallback and to reduce answer statements to
their value. Every function is one pass of non-backtracking regexes plus a loop over the tokens found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MATH_TOKEN = re.compile(r"(?<!\\)\$\$|(?<!\\)\$|\\\(|\\\)|\\\[|\\\]")
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_MAX_TOKENS = 20_000
FINAL_REGION = 4_000
_BARE_FRACTION = re.compile(r"(?<![\w\\])-?\\[dtc]?frac\{\s*-?\d+(?:\.\d+)?\s*\}\{\s*-?\d+(?:\.\d+)?\s*\}")
# A number as prose writes it: sign, currency, thousands separators, a decimal point or comma, a fraction
# bar, a percent word. Each piece is a fixed alternation, so a scan is linear.
_NUMBER = re.compile(
    r"(?<![\w.\\])(?<!\d,)(?P<currency>\\\$|[$€£¥])?[ ]?(?P<sign>[-−+])?[ ]?"
    r"(?:(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?!\d)|\d+)(?P<frac>[.,]\d+(?![,.]\d))?"
    r"|(?P<point>\.\d+))"
    r"(?:[ ]?/[ ]?(?P<den>\d+)(?!\d|\.\d))?"
    r"(?P<percent>[ ]?(?:\\%|%|percent\b|pct\b))?"
)
# A tuple, interval or set of plain numbers written without math delimiters: "(1,2)", "[1, 2)", "\\{1,2\\}".
# A comma inside brackets separates elements; it is never a decimal comma.
_ELEMENT = r"[ ]*[-−+]?(?:\d+(?:\.\d+)?|\.\d+|\\infty|∞)[ ]*"
_BRACKETED = re.compile(rf"(?:\\\{{|[(\[]){_ELEMENT}(?:[,;]{_ELEMENT})+(?:\\\}}|[)\]])")
# What joins several values into one answer: "2 or 3", "$x=1$ and $x=-2$", "1, 2, and 4".
_JOIN = re.compile(
    r"^(?:[\s,;]|\\[,;!: ]|\\quad|\\qquad|\\text\{\s*(?:,?\s*(?:and|or))\s*\}|\band\b|\bor\b|\beither\b|&"
    r"|[a-zA-Z](?:_\{?\w{1,3}\}?)?\s*=|\\[()\[\]])*$",
    re.IGNORECASE,
)
_MAX_JOIN_GAP = 40
_MAX_JOINED = 8
_STOP_WORDS = re.compile(  # (?<!\s): a run of spaces is tried once, not from each of its spaces
    r"(?<!\s)\s+(?:because|since|as|which|so|for|when|where|given|if|with|from|this|that|these|we|it|the|is|are|"
    r"i\s+(?:hope|think|am|believe|guess)|was|were|hope|after|before|using|by|in|of|on|to|units?|per|but|then|"
    r"thus|hence|therefore|rather|instead|not|wait|actually)\b",
    re.IGNORECASE,
)
_COPULA = re.compile(r"\s(?:is|are|was|equals|be|becomes|gives|of)\s+|\s=\s|:\s", re.IGNORECASE)
_VALUE_START = re.compile(r"[-−+.\d\\([{$]|[a-zA-Z](?:_\{?\w{1,3}\}?)?\s*(?:=|<|>|\\in\b|\\le|\\ge|\\ne)")
_MAX_TEXT_WORDS = 6
# (?<!…): a run of closing quotes is tried from its first quote only, not from each (quadratic)
_QUOTES = re.compile(r'^(?:\\?["“]|\'\')+|(?<!["”\'\\])(?:\\?["”]|\'\')+$')


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str  # the value, delimiters removed
    kind: str = "math"  # "math" (delimited or a bare \frac) or "number" (plain prose)


def math_spans(text: str, broken: list[Span] | None = None) -> list[Span]:
    """Every delimited math span, in order. Inline ``$…$`` and ``\\(…\\)`` stay on one line; display math
    may span lines. A ``$`` right after a digit does not open math (``5$`` is a price). Inline delimiters
    that enclose a line break are malformed math: not a value, and not prose either (put in ``broken``)."""
    spans: list[Span] = []
    tokens = list(_MATH_TOKEN.finditer(text))[-_MAX_TOKENS:]
    open_token: re.Match[str] | None = None
    for token in tokens:
        kind = token.group(0)
        if open_token is None:
            if kind in _CLOSER and not (kind == "$" and token.start() > 0 and text[token.start() - 1].isdigit()):
                open_token = token
            continue
        opener = open_token.group(0)
        if kind == _CLOSER[opener]:
            inner = text[open_token.end() : token.start()]
            if opener in ("$", "\\(") and "\n" in inner:
                if broken is not None:
                    broken.append(Span(open_token.start(), token.end(), ""))
                open_token = None
                continue
            if inner.strip():
                spans.append(Span(open_token.start(), token.end(), inner.strip()))
            open_token = None
        elif kind == opener == "$$":
            open_token = token
    return spans


def number_spans(text: str) -> list[Span]:
    """Every plain number in ``text`` (``-1,234.5``, ``$12``, ``2/3``, ``28 percent``), as a clean value."""
    found = []
    for match in _NUMBER.finditer(text):
        integer, frac = match.group("int"), match.group("frac") or match.group("point")
        value = (integer or "0").replace(",", "").replace(" ", "")
        if frac:
            value += frac  # "2,74" keeps its comma: a decimal comma or a list, the comparison decides
        if match.group("den"):
            value += "/" + match.group("den")
        if match.group("sign") in ("-", "−"):
            value = "-" + value
        if match.group("percent"):
            value += "\\%"
        found.append(Span(match.start(), match.end(), value, "number"))
    return found


def _joined(text: str, spans: list[Span]) -> list[Span]:
    """The last span and the spans before it that only connectors separate from it ("2 or 3")."""
    group = [spans[-1]]
    for span in reversed(spans[-_MAX_JOINED:-1]):
        gap = text[span.end : group[0].start]
        if len(gap) > _MAX_JOIN_GAP or not _JOIN.match(gap):
            break
        group.insert(0, span)
    return group


def last_math(text: str) -> list[Span]:
    """The values the end of ``text`` commits to: the last delimited math or the last plain number, whichever
    ends later, with the values joined to it by connectors ("It could be 2 or 3." gives both).

    Only the final-answer region is read: the last ``FINAL_REGION`` characters, moved past an inline ``$``
    it would otherwise start inside (counted, not scanned, before it)."""
    offset = 0
    if len(text) > FINAL_REGION:
        offset = len(text) - FINAL_REGION
        dollars = text.count("$", 0, offset) - text.count("\\$", 0, offset)
        if dollars % 2:
            offset = text.find("$", offset) + 1 or offset
        text = text[offset:]
    broken: list[Span] = []
    maths = math_spans(text, broken) if ("$" in text or "\\(" in text or "\\[" in text) else []
    maths = sorted(maths + _bare_fractions(text, maths), key=lambda s: s.start)
    covered = sorted(maths + broken, key=lambda s: s.start)
    bracketed = _outside([Span(m.start(), m.end(), m.group(0), "number") for m in _BRACKETED.finditer(text)], covered)
    covered = sorted(covered + bracketed, key=lambda s: s.start)
    merged = sorted(maths + bracketed + _outside(number_spans(text), covered), key=lambda s: s.start)
    group = _joined(text, merged) if merged else []
    return [Span(s.start + offset, s.end + offset, s.text, s.kind) for s in group]


def _bare_fractions(text: str, maths: list[Span]) -> list[Span]:
    """``\\frac{10}{9}`` written without math delimiters."""
    if "frac" not in text:
        return []
    found = [Span(m.start(), m.end(), m.group(0)) for m in _BARE_FRACTION.finditer(text)]
    return _outside(found, maths)


def _outside(numbers: list[Span], maths: list[Span]) -> list[Span]:
    """The numbers that no math span contains (both lists are in text order: one merge pass)."""
    kept, m = [], 0
    for number in numbers:
        while m < len(maths) and maths[m].end <= number.start:
            m += 1
        if m < len(maths) and maths[m].start <= number.start:
            continue
        kept.append(number)
    return kept


def leading_value(text: str) -> str:
    """The value at the start of ``text``, up to the prose that follows it ("42 because ..." → ``42``)."""
    if text.startswith(("$", "\\(", "\\[")):
        maths = math_spans(text)
        if maths and maths[0].start == 0:
            group = [maths[0]]
            for span in maths[1:_MAX_JOINED]:
                gap = text[group[-1].end : span.start]
                if len(gap) > _MAX_JOIN_GAP or not _JOIN.match(gap):
                    break
                group.append(span)
            tail = text[group[-1].end :]
            unit = re.match(r"\s*(\\?%|percent\b|pct\b)", tail)
            return " and ".join(s.text for s in group) + ("\\%" if unit else "")
    stop = _STOP_WORDS.search(text)
    return (text[: stop.start()] if stop else text).strip().rstrip(",;:").strip()


def statement_value(content: str) -> str:
    """The value an answer statement states: the statement itself when it starts with the value or is a
    short text answer ("Monday"), else the value after its last copula or the last math in it."""
    content = content.strip().strip("*").strip()
    content = _QUOTES.sub("", content).strip()
    if not content:
        return ""
    if _VALUE_START.match(content):
        return leading_value(content)
    has_math = any(ch.isdigit() for ch in content) or "$" in content or "\\" in content
    if not has_math:
        return content if len(content.split()) <= _MAX_TEXT_WORDS else ""
    copulas = list(_COPULA.finditer(content))
    for copula in reversed(copulas):
        rest = content[copula.end() :].lstrip()
        if rest and _VALUE_START.match(rest):
            return leading_value(rest)
    group = last_math(content)
    return " and ".join(s.text for s in group)
