"""Stage one of the math verifier: find the final answer a completion commits to.

The final answer is the last one stated: the last ``\\boxed{}``/``\\fbox{}``, or a later explicit statement
("The final answer is ...", "the answer is ...", "Answer: ...", GSM8K's ``#### 72``, ``<answer>...</answer>``).
An earlier box is a draft. A statement in prose gives its value, not its sentence. When a think block is
closed, only the text after ``</think>`` counts. Boxes that follow one another joined only by connectors
(``\\boxed{-2} and \\boxed{1}``) form one answer with several values. With ``mode="lenient"`` (the default),
a completion with none of these answers with the last math it writes: the last ``$…$``/``\\(…\\)``/``\\[…\\]``
or plain number, whichever ends later (see :mod:`rewardkit.verifiers.math_answer.scan`).

Every scan here is linear in the length of the text: no regex that can backtrack catastrophically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardkit.verifiers.base import answer_region
from rewardkit.verifiers.math_answer.forms import normalize
from rewardkit.verifiers.math_answer.numeric import parse_number
from rewardkit.verifiers.math_answer.scan import last_math, statement_value

LENIENT, STRICT = "lenient", "strict"
EXTRACTION_MODES = (LENIENT, STRICT)

_BOX_RE = re.compile(r"\\(?:boxed|fbox)\b")
_ANSWER_OPEN, _ANSWER_CLOSE = "<answer>", "</answer>"
_STATEMENT_RE = re.compile(
    r"(?:final[ \t]+answer[ \t]*(?:is|:)|the[ \t]+answer[ \t]+is|"
    r"(?:^|(?<=[.!?][ \t]))[ \t]*\**answer\**[ \t]*:)[ \t:*]*",
    re.IGNORECASE | re.MULTILINE,
)
_NOT_AN_ANSWER = re.compile(
    r"(?:correct|incorrect|right|wrong|not\b|that\b|this\b|to\b|in\b|as\b|being\b|given\b|obtained\b|"
    r"indeed\b|clearly\b|therefore\b|thus\b|found\b|the\s+same\b|unchanged\b)",
    re.IGNORECASE,
)
_GSM8K_RE = re.compile(r"^[ \t]*####[ \t]*(?=\S)", re.MULTILINE)
_PERCENT_AFTER = re.compile(r"[$ \t]*(?:\\%|%|percent\b|pct\b)")
_CONNECTOR_RE = re.compile(
    r"^(?:[\s$,;.]|\\[,;!: ()\[\]]|\\quad|\\qquad|\\text\{[^{}]{0,30}\b(?:and|or)\b[^{}]{0,10}\}|and|or|&|\\\\"
    r"|[a-zA-Z](?:_\{?\w{1,3}\}?)?\s*=)*$"
)
_SHORT_JOIN = re.compile(r"^[^.\n]{0,20}(?:\band\b|\bor\b|,|;)[^.\n]{0,20}$")
_MAX_CONNECTOR = 40
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bcannot\s+be)\s+(?:equal\s+to\s+|be\s+)?[$\\(\s]*\Z", re.IGNORECASE)
# A self-correction or an offered alternative after the final answer ("The answer is 3. No wait, it is 4.",
# "\boxed{3}. Or maybe 4."): a cue word at the start of a sentence or clause, or a phrase that only a
# correction or a hedge uses wherever it stands.
_CORRECTION_RE = re.compile(
    r"(?:\A|[.!?;:,\n(])[ \t*_\"]*(?:(?:but|so|oh|um|uh|and|hmm|no)[ \t,]+)?"
    r"(?:wait|actually|oops|correction|sorry|instead(?![ \t]+of)|rather(?![ \t]+than)|hmm|hold[ \t]+on|"
    r"on[ \t]+second[ \t]+thought|no(?=[ \t]*[,.!;:])"
    r"|nope|or|maybe|perhaps|possibly|alternatively|let[ \t]+me[ \t]+(?:redo|recompute|recalculate|correct|fix))\b"
    r"|\b(?:scratch[ \t]+that|i[ \t]+mean|made[ \t]+an?[ \t]+(?:mistake|error)|my[ \t]+(?:mistake|bad|error)|"
    r"(?:that|this)(?:'s|[ \t]+is|[ \t]+was)[ \t]+(?:wrong|incorrect"
    r"|not[ \t]+right|a[ \t]+mistake)|(?:it|that|this|answer|value|result)[ \t]+should[ \t]+(?:be|have[ \t]+been)"
    r"|or[ \t]+(?:maybe|perhaps|possibly)|(?:could|might|may)[ \t]+also[ \t]+be)\b",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^[a-zA-Z](?:_\{?\w{1,3}\}?)?\s*=\s*")
_MAX_STATEMENT = 400
_MAX_CANDIDATES = 64


@dataclass(frozen=True)
class ExtractedAnswer:
    """The answer found in a completion: its text and, when several boxes form it, each value."""

    text: str
    source: str
    values: tuple[str, ...]
    position: int
    correction: str | None = None  # a different value a correction cue after the answer introduces


def _brace_pairs(text: str) -> dict[int, int]:
    """For each ``{`` that closes, the index just past its ``}`` (one linear pass; ``\\{`` is skipped)."""
    pairs: dict[int, int] = {}
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            pairs[stack.pop()] = i + 1
        i += 1
    return pairs


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    text: str
    source: str


def _boxes(text: str) -> list[_Candidate]:
    found = []
    pairs = _brace_pairs(text) if "{" in text else {}
    for match in _BOX_RE.finditer(text):
        i = match.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == "{":
            end = pairs.get(i)
            if end is None:
                continue
            found.append(_Candidate(match.start(), end, text[i + 1 : end - 1].strip(), "boxed"))
        else:
            token = re.match(r"[^\s$.,;]+", text[i : i + 64])
            if token and i > match.end():
                found.append(_Candidate(match.start(), i + token.end(), token.group(0), "boxed"))
    return found


def _statement_content(text: str, start: int) -> tuple[str, int]:
    window = text[start : start + _MAX_STATEMENT]
    line_end = min((i for i in (window.find("\n"), window.find("</")) if i >= 0), default=-1)
    segment = window if line_end < 0 else window[:line_end]
    depth_dollar = 0
    stop = len(segment)
    for i, ch in enumerate(segment):
        if ch == "$":
            depth_dollar ^= 1
        elif ch == "." and not depth_dollar and (i + 1 == len(segment) or segment[i + 1] in " \t"):
            stop = i  # a sentence ends; "3.5" keeps its point because no space follows it
            break
    content = segment[:stop].strip().strip("*").strip()
    return content, start + stop


def _statements(text: str) -> list[_Candidate]:
    """The last few answer statements, GSM8K ``####`` lines and ``<answer>`` tags, in text order."""
    found = []
    for match in reversed(list(_STATEMENT_RE.finditer(text))[-4 * _MAX_CANDIDATES :]):
        content, end = _statement_content(text, match.end())
        if content and not _NOT_AN_ANSWER.match(content):
            found.append(_Candidate(match.start(), end, statement_value(content), "statement"))
            if len(found) >= _MAX_CANDIDATES:
                break
    for match in list(_GSM8K_RE.finditer(text))[-_MAX_CANDIDATES:]:
        line_end = text.find("\n", match.end(), match.end() + _MAX_STATEMENT)
        line = text[match.end() : line_end if line_end >= 0 else match.end() + _MAX_STATEMENT]
        found.append(_Candidate(match.start(), match.end() + len(line), statement_value(line), "gsm8k"))
    lower = text.lower() if "<" in text else ""
    previous_close, tags = 0, []
    for close in re.finditer(re.escape(_ANSWER_CLOSE), lower):
        start = lower.rfind(_ANSWER_OPEN, previous_close, close.start())
        previous_close = close.end()
        if start >= 0:
            tags.append((start, close))
    for start, close in tags[-_MAX_CANDIDATES:]:
        content = text[start + len(_ANSWER_OPEN) : close.start()].strip()
        if content:
            found.append(_Candidate(start, close.end(), statement_value(content) or content, "answer_tag"))
    return sorted(found, key=lambda c: c.start)


def _strip_math_mode_once(answer: str) -> str:
    """Each math-mode delimiter pair ($$, $, \\(, \\[) stripped at most once, in that order (not
    ``forms.strip_math_mode``, which repeats until none is left)."""
    answer = answer.strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if answer.startswith(left) and answer.endswith(right) and len(answer) >= len(left) + len(right):
            answer = answer[len(left) : len(answer) - len(right)].strip()
    return answer.rstrip(".").strip()


def _fallback(text: str) -> ExtractedAnswer | None:
    """The last math the text writes, for completions with no box, statement or tag."""
    group = last_math(text)
    values = tuple(v for v in (_strip_math_mode_once(s.text) for s in group) if v)
    if not values or _NEGATED.search(text, max(0, group[0].start - 24), group[0].start):
        return None  # "the answer is not 5." commits to nothing
    source = "last_math" if group[-1].kind == "math" else "last_number"
    return ExtractedAnswer(", ".join(values), source, values, group[0].start)


def _cut_off_box(text: str) -> bool:
    """A box opened and never closed (``\\boxed{3`` of a completion cut at its token limit): the final answer
    was being written and is lost, so no earlier number stands in for it."""
    return _BOX_RE.search(text) is not None


def extract_answer(completion: str, mode: str = LENIENT) -> ExtractedAnswer | None:
    """The final answer of ``completion``, or None when it commits to none.

    ``mode="strict"`` reads only boxes, answer statements, ``####`` lines and ``<answer>`` tags;
    ``"lenient"`` also falls back to the last math or number of the answer region.
    """
    text = answer_region(completion)
    boxes = _boxes(text)[-_MAX_CANDIDATES:]
    candidates = boxes + [c for c in _statements(text)[-_MAX_CANDIDATES:] if c.text]
    if not candidates:
        return _fallback(text) if mode == LENIENT and not _cut_off_box(text) else None  # no closed box here
    # A statement or tag that wraps a box is represented by the box it wraps.
    inner = [
        c
        for c in candidates
        if not any(o is not c and c.start <= o.start and o.end <= c.end and o.source == "boxed" for o in boxes)
        or c.source == "boxed"
    ]
    final = max(inner, key=lambda c: (c.start, c.source == "boxed"))
    group = [final]
    if final.source == "boxed":
        earlier = sorted((b for b in boxes if b.end <= final.start), key=lambda b: b.start)
        cursor = final
        for box in reversed(earlier):
            gap = text[box.end : cursor.start]
            if len(gap) > _MAX_CONNECTOR or not _CONNECTOR_RE.match(gap):
                break
            group.insert(0, box)
            cursor = box
    values = tuple(_strip_math_mode_once(c.text) for c in group)
    values = tuple(v for v in values if v)
    if not values:
        return None
    if final.source == "boxed" and _PERCENT_AFTER.match(text, final.end) and not values[-1].endswith("%"):
        values = values[:-1] + (values[-1] + "\\%",)
    return ExtractedAnswer(", ".join(values), final.source, values, final.start, _correction(text, final.end, values))


def _correction(text: str, end: int, values: tuple[str, ...]) -> str | None:
    """The value a correction cue after the final answer introduces, when it differs from the answer
    ("\\boxed{3} Wait, that's wrong; it should be 4." → ``4``); None for ordinary trailing text."""
    cue = _CORRECTION_RE.search(text, end)
    if cue is None:
        return None
    later = tuple(v for v in (_strip_math_mode_once(s.text) for s in last_math(text[cue.end() :])) if v)
    if not later or _same_values(later, values):
        return None
    return ", ".join(later)


def _same_values(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two value lists state the same values as written (numbers by exact value, an equation by its
    last side: ``x = 4`` and ``6 \\cdot 7 = 42`` as ``4`` and ``42``);
    anything that needs symbolic comparison counts as different, so a correction is never missed."""

    def key(value: str) -> object:
        value = _LABEL.sub("", normalize(value)).replace(" ", "").rpartition("=")[2]
        number = parse_number(value)
        return number.value if number is not None else value

    return {key(v) for v in a} == {key(v) for v in b}


def final_boxes(text: str) -> list[str]:
    """The last box of ``text`` and the boxes before it joined by a short phrase with a connector
    (``\\boxed{1} papers and \\boxed{2} bins``): a reference's boxes that form one answer."""
    boxes = [b for b in _boxes(text) if _strip_math_mode_once(b.text)]
    if not boxes:
        return []
    group = [boxes[-1]]
    for box in reversed(boxes[-_MAX_CANDIDATES:-1]):
        gap = text[box.end : group[0].start]
        if len(gap) > _MAX_CONNECTOR or not (_CONNECTOR_RE.match(gap) or _SHORT_JOIN.search(gap)):
            break
        group.insert(0, box)
    return [_strip_math_mode_once(b.text) for b in group]
