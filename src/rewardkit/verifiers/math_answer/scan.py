"""Linear scans that find math in free text: delimited math (``$…$``, ``$$…$$``, ``\\(…\\)``, ``\\[…\\]``), plain
numbers in prose (also against CJK characters: ``答案是42。``), plain-text and Unicode math outside delimiters
(``2√2``, ``3π``, ``sqrt(3)/2``, ``x²``), and the value a sentence states ("The largest $n$ is 34" → ``34``).

Used by :mod:`rewardkit.verifiers.math_answer.extract` for the lenient fallback and to reduce answer statements to
their value. Every function is one pass of non-backtracking regexes plus a loop over the tokens found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardkit.verifiers.math_answer.units import prose_unit_names

_MATH_TOKEN = re.compile(r"(?<!\\)\$\$|(?<!\\)\$|\\\(|\\\)|\\\[|\\\]")
_CLOSER = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
_MAX_TOKENS = 20_000
FINAL_REGION = 4_000
_BARE_FRACTION = re.compile(r"(?<![\w\\])-?\\[dtc]?frac\{\s*-?\d+(?:\.\d+)?\s*\}\{\s*-?\d+(?:\.\d+)?\s*\}")
# A number as prose writes it: sign, currency, thousands separators, a decimal point or comma, an exponent, a
# fraction bar, a percent word. Each piece is a fixed alternation, so a scan is linear. Only ASCII letters and
# digits glue a number to a word: a CJK character next to it (``是42。``) is a boundary.
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.\\])(?<!\d,)(?P<currency>\\\$|[$€£¥])?[ ]?(?P<sign>[-−+])?[ ]?"
    r"(?:(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?: \d{3})+(?!\d)|\d+)(?P<frac>[.,]\d+(?![,.]\d))?"
    r"|(?P<point>\.\d+))"
    r"(?P<dots>(?<=\d)(?:\.\.\.|…))?"
    r"(?P<exp>[eE][-+]?\d{1,4}(?![\w.]))?"
    r"(?:[ ]?/[ ]?(?P<den>\d+)(?!\d|\.\d))?"
    r"(?P<percent>[ ]?(?:\\%|%|percent\b|pct\b))?"
)
# A unit this verifier converts, right after a number in prose ("1.5 hours", "3 kg", "75 cents"): kept with the
# number, so "120 seconds" is not read as an answer of "120 minutes". Count nouns ("12 apples") are not kept.
_PROSE_UNIT = re.compile(
    r"[ ]?((?:(?:square|sq\.?|cubic)[ ])?(?:" + "|".join(re.escape(n) for n in prose_unit_names()) + r")(?:e?s)?"
    r"(?:[ ]?\^[ ]?[23]|[²³])?)(?![A-Za-z0-9])"
)
# Math written in plain text or Unicode outside math delimiters: a coefficient, then a root sign, pi, a
# superscript or a power, then more factors (``2√2``, ``3π``, ``√3/2``, ``sqrt(3)/2``, ``pi/3``, ``x²``, ``2^10``).
_ATOM = (
    r"(?:[√∛∜][ ]?(?:\d+(?:\.\d+)?|\([^()\n]{1,40}\)|\{[^{}\n]{1,40}\})|π|pi(?![A-Za-z])|"
    r"(?:sqrt|cbrt)[ ]?\([^()\n]{1,40}\))"
)
_FACTOR = rf"(?:\d+(?:\.\d+)?|{_ATOM}|\([^()\n]{{1,40}}\))"
_POWER = r"(?:[²³⁴]|[ ]?(?:\^|\*\*)[ ]?(?:-?\d{1,4}|\([^()\n]{1,20}\)|\{[^{}\n]{1,20}\}))"
_PLAIN_EXPR = re.compile(
    rf"(?<![A-Za-z0-9_.\\^*/])(?:[-−][ ]?)?"
    rf"(?:(?:\d+(?:\.\d+)?[ ]?)?{_ATOM}{_POWER}?|\d+(?:\.\d+)?{_POWER}|[A-Za-z]{_POWER}(?![A-Za-z]))"
    rf"(?:[ ]?(?:[*/×·÷]|\*\*)[ ]?{_FACTOR}{_POWER}?)*"
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
    r"thus|hence|therefore|rather|instead|not|wait|actually|though|although|however|unless|except|assuming|"
    r"provided|whereas|yet|or\s+(?:maybe|perhaps|possibly|so))\b",
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
    """Every plain number in ``text`` (``-1,234.5``, ``$12``, ``2/3``, ``4.5e-4``, ``28 percent``), as a clean
    value; a whole number and a proper fraction one space apart are one mixed number (``2 3/4``)."""
    found: list[Span] = []
    for match in _NUMBER.finditer(text):
        integer, frac = match.group("int"), match.group("frac") or match.group("point")
        value = (integer or "0").replace(",", "").replace(" ", "")
        if frac:
            value += frac  # "2,74" keeps its comma: a decimal comma or a list, the comparison decides
            if match.group("dots"):
                value += "\\ldots"  # 0.333...: a repeating digit, read by numeric.parse_number
        if match.group("exp"):
            value += match.group("exp")
        den = match.group("den")
        if den:
            value += "/" + den
        if match.group("sign") in ("-", "−"):
            value = "-" + value
        if match.group("percent"):
            value += "\\%"
        end = match.end()
        unit = None if match.group("percent") else _PROSE_UNIT.match(text, end)
        if unit:
            value += " " + unit.group(1).strip()
            end = unit.end()
        span = Span(match.start(), end, value, "number")
        previous = found[-1] if found else None
        if (
            den
            and previous is not None
            and previous.text.isdigit()
            and text[previous.end : span.start] == " "
            and not match.group("sign")
            and integer is not None
            and integer.isdigit()
            and not frac
            and int(integer) < int(den)
        ):
            found[-1] = Span(previous.start, span.end, f"{previous.text} {value}", "number")  # 2 3/4 cups
            continue
        found.append(span)
    return found


def unit_after(text: str, position: int) -> str | None:
    """The unit written right after ``position`` ("\\boxed{5} feet" → ``feet``), or None."""
    match = _PROSE_UNIT.match(text, position)
    return match.group(1).strip() if match else None


def plain_expr_spans(text: str) -> list[Span]:
    """Math written without delimiters in plain text or Unicode: ``2√2``, ``3π``, ``sqrt(3)/2``, ``x²``."""
    if not any(mark in text for mark in ("√", "∛", "∜", "π", "pi", "sqrt", "cbrt", "^", "²", "³", "⁴", "**")):
        return []
    return [Span(m.start(), m.end(), m.group(0).strip(), "number") for m in _PLAIN_EXPR.finditer(text)]


def joined_spans(text: str, spans: list[Span]) -> list[Span]:
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
    merged = value_spans(text)
    group = joined_spans(text, merged) if merged else []
    return [Span(s.start + offset, s.end + offset, s.text, s.kind) for s in group]


def value_spans(text: str) -> list[Span]:
    """Every value ``text`` writes, in order: delimited math, bare ``\\frac``s, bracketed tuples and intervals,
    plain-text math and plain numbers, each outside the ones before it in that list."""
    broken: list[Span] = []
    maths = math_spans(text, broken) if ("$" in text or "\\(" in text or "\\[" in text) else []
    maths = sorted(maths + _bare_fractions(text, maths), key=lambda s: s.start)
    covered = sorted(maths + broken, key=lambda s: s.start)
    bracketed = _outside([Span(m.start(), m.end(), m.group(0), "number") for m in _BRACKETED.finditer(text)], covered)
    covered = sorted(covered + bracketed, key=lambda s: s.start)
    expressions = _outside(plain_expr_spans(text), covered)
    covered = sorted(covered + expressions, key=lambda s: s.start)
    return sorted(maths + bracketed + expressions + _outside(number_spans(text), covered), key=lambda s: s.start)


def _bare_fractions(text: str, maths: list[Span]) -> list[Span]:
    """``\\frac{10}{9}`` written without math delimiters."""
    if "frac" not in text:
        return []
    found = [Span(m.start(), m.end(), m.group(0)) for m in _BARE_FRACTION.finditer(text)]
    return _outside(found, maths)


def _outside(numbers: list[Span], maths: list[Span]) -> list[Span]:
    """The numbers that no math span overlaps (both lists are in text order: one merge pass)."""
    kept, m = [], 0
    for number in numbers:
        while m < len(maths) and maths[m].end <= number.start:
            m += 1
        if m < len(maths) and maths[m].start < number.end:
            continue
        kept.append(number)
    return kept


_CJK_STOP = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af，、。；：！？]")


def leading_value(text: str) -> str:
    """The value at the start of ``text``, up to the prose that follows it ("42 because ..." → ``42``; also
    "42です", "42，因为 ...")."""
    cjk = _CJK_STOP.search(text)
    if cjk is not None and cjk.start() > 0:
        text = text[: cjk.start()]
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
