"""Stage one of the math verifier: find the final answer a completion commits to.

The final answer is the last one stated: the last ``\\boxed{}``/``\\fbox{}``, or a later explicit statement
("The final answer is ...", "the answer is ...", "Answer: ...", "Réponse :", "答案是", GSM8K's ``#### 72``,
``<answer>...</answer>``). An earlier box is a draft, unless the text between offers it as an alternative
or as a second final answer. A statement in prose gives its value, not its sentence. When a think block is
closed, only the text after ``</think>`` counts; a think block never closed means the completion ended
before answering. Boxes that follow one another joined only by connectors (``\\boxed{-2} and \\boxed{1}``)
form one answer with several values. With ``mode="lenient"`` (the default), a completion with none of these
answers with the last math it writes before any trailing check: the last ``$…$``/``\\(…\\)``/``\\[…\\]``,
plain-text math or plain number, whichever ends later (see :mod:`rewardkit.verifiers.math_answer.scan`).
What the text after the answer does with it — checks, restatements, changes, alternatives — is read by
:mod:`rewardkit.verifiers.math_answer.ending`.

Every scan here is linear in the length of the text: no regex that can backtrack catastrophically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardkit.verifiers.math_answer.ending import (
    CHECK,
    CONFIRM,
    Proposal,
    branch_proposals,
    head_alternatives,
    read_ending,
    sentences,
)
from rewardkit.verifiers.math_answer.scan import last_math, math_spans, statement_value, unit_after
from rewardkit.verifiers.math_answer.values import value_key
from rewardkit.verifiers.text import THINK_CLOSE, answer_region, brace_pairs

LENIENT, STRICT = "lenient", "strict"
EXTRACTION_MODES = (LENIENT, STRICT)

_BOX_RE = re.compile(r"\\(?:boxed|fbox)\b")
_ANSWER_OPEN, _ANSWER_CLOSE = "<answer>", "</answer>"
_STATEMENT_RE = re.compile(
    r"(?:final[ \t]+answer[ \t]*(?:is|:)|the[ \t]+answer[ \t]+is|"
    r"(?:^|(?<=[.!?][ \t]))[ \t]*\**(?:answer|r[ée]ponse(?:[ \t]+finale)?|antwort|ответ|respuesta(?:[ \t]+final)?|"
    r"resposta(?:[ \t]+final)?|risposta(?:[ \t]+finale)?|odpowied[źz]|antwoord|svar|jawaban|cevap|đáp[ \t]+án|"
    r"정답|답)\**[ \t]*[:：]|"
    r"la[ \t]+r[ée]ponse(?:[ \t]+finale)?[ \t]+est|die[ \t]+antwort[ \t]+(?:ist|lautet)|"
    r"la[ \t]+respuesta(?:[ \t]+final)?[ \t]+es|a[ \t]+resposta(?:[ \t]+final)?[ \t]+[ée]|"
    r"la[ \t]+risposta(?:[ \t]+finale)?[ \t]+[èe]|"
    r"ответ[ \t]*[-—:]|(?:最终|最終)?答案(?:是|为|為|[:：])|答え(?:は|[:：]))[ \t:*：]*",
    re.IGNORECASE | re.MULTILINE,
)
# Full-width digits and signs (２４, ：, 。 stays) as ASCII, so every scan reads them; the same length.
_FULL_WIDTH = str.maketrans({chr(0xFF10 + d): str(d) for d in range(10)} | {"．": ".", "－": "-", "＋": "+", "／": "/"})
_VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8"}
_VULGAR_RE = re.compile(r"(\d?)(\s?)([½⅓⅔¼¾⅕⅛⅜⅝])")
_THINK_OPEN = "<think>"
_CHECKISH = re.compile(
    r"^\W*(?:(?:wait|ok(?:ay)?|now|finally|also|hmm+|so|and|but|just|oh|actually)\W+){0,2}(?:let(?:'s|\s+me|\s+us)\s+"
    r"(?:quickly\s+|also\s+|now\s+|just\s+)?(?:verify|check|double[- ]?check|confirm|make\s+sure|sanity[- ]check)|"
    r"(?:to\s+)?(?:verify|check|double[- ]?check|confirm)\b|verification|checking|sanity\s+check|indeed|"
    r"as\s+a\s+check)|[✓✔☑]\s*$|\b(?:which\s+matches|as\s+(?:expected|required|stated|given))\b",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"^\W*(?:so|thus|therefore|hence|in\s+total|altogether|overall|finally|in\s+conclusion|the\s+(?:final\s+)?answer|"
    r"this\s+means|that\s+means|we\s+(?:get|have|find|conclude))\b",
    re.IGNORECASE,
)
_JUSTIFICATION = re.compile(r",?\s+(?:since|because|as\s+(?:shown|computed)|given\s+that)\s", re.IGNORECASE)
_NO_SOLUTION = re.compile(
    r"\b(?:there\s+(?:is|are)\s+no\s+(?:real\s+|integer\s+|such\s+)?(?:solutions?|roots?|values?)|has\s+no\s+"
    r"(?:real\s+|integer\s+)?(?:solutions?|roots?)|no\s+(?:real\s+)?solutions?\s+exist|(?:the\s+)?solution\s+set\s+is"
    r"\s+empty|无解|無解)",
    re.IGNORECASE,
)
_NOT_AN_ANSWER = re.compile(
    r"(?:correct|incorrect|right|wrong|not\b|that\b|this\b|to\b|in\b|as\b|being\b|given\b|obtained\b|"
    r"indeed\b|clearly\b|therefore\b|thus\b|found\b|the\s+same\b|unchanged\b)",
    re.IGNORECASE,
)
# "One might think the answer is 90", "to check whether the answer is 7": not the completion's statement.
_HYPOTHETICAL = re.compile(
    r"(?:\b(?:might|may|would|could|one|you|someone|people|naively|i\s+first)\s+(?:\w+\s+)?(?:think|say|guess|assume|"
    r"expect|believe|conclude|claim)\s+(?:that\s+)?|\b(?:if|whether|suppose|supposing|assuming|unless|see\s+if)\s+)$",
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
_MAX_STATEMENT = 400
_MAX_CANDIDATES = 64


@dataclass(frozen=True)
class ExtractedAnswer:
    """The answer found in a completion: its text and, when several boxes form it, each value; the values the
    rest of the completion offers as the answer (each must agree with it), and a retraction of it."""

    text: str
    source: str
    values: tuple[str, ...]
    position: int
    proposals: tuple[Proposal, ...] = ()
    retracted: str | None = None
    unit: str | None = None  # a unit written right after the answer ("\\boxed{5} feet"), for its restatements

    @property
    def meant(self) -> tuple[str, ...]:
        """The values with the unit written after them, as restatements are compared with them."""
        return tuple(f"{v} {self.unit}" for v in self.values) if self.unit else self.values


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    text: str
    source: str


def _boxes(text: str) -> list[_Candidate]:
    found = []
    pairs = brace_pairs(text) if "{" in text else {}
    for match in _BOX_RE.finditer(text):
        i = match.end()
        while i < len(text) and text[i] in " \t":
            i += 1
        if i < len(text) and text[i] == "{":
            close = pairs.get(i)
            if close is None:
                continue
            end = close + 1
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
        elif not depth_dollar and (
            (ch == "." and (i + 1 == len(segment) or segment[i + 1] in " \t")) or ch in "。！？"
        ):
            stop = i  # a sentence ends; "3.5" keeps its point because no space follows it
            break
    content = segment[:stop].strip().strip("*").strip()
    return content, start + stop


def _statements(text: str) -> list[_Candidate]:
    """The last few answer statements, GSM8K ``####`` lines and ``<answer>`` tags, in text order."""
    found = []
    for match in reversed(list(_STATEMENT_RE.finditer(text))[-4 * _MAX_CANDIDATES :]):
        content, end = _statement_content(text, match.end())
        hypothetical = _HYPOTHETICAL.search(text, max(0, match.start() - 48), match.start())
        if content and not _NOT_AN_ANSWER.match(content) and not hypothetical:
            value = statement_value(content)
            found.append(_Candidate(match.start(), _value_end(text, match.end(), end, value), value, "statement"))
            if len(found) >= _MAX_CANDIDATES:
                break
    for match in list(_GSM8K_RE.finditer(text))[-_MAX_CANDIDATES:]:
        line_end = text.find("\n", match.end(), match.end() + _MAX_STATEMENT)
        line = text[match.end() : line_end if line_end >= 0 else match.end() + _MAX_STATEMENT]
        value = statement_value(line)
        found.append(
            _Candidate(match.start(), _value_end(text, match.end(), match.end() + len(line), value), value, "gsm8k")
        )
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


def _value_end(text: str, start: int, end: int, value: str) -> int:
    """Where a statement's value ends in ``text`` (so "The answer is $2$ (or $3$ ...)." leaves the parenthesis
    for the ending to read); the statement's end when the value is not written as such in it."""
    if not value:
        return end
    found = text.find(value, start, end)
    if found < 0:
        return end
    close = found + len(value)
    while close < end and text[close] in "$}*\"'”":
        close += 1
    return close


def _strip_math_mode_once(answer: str) -> str:
    """Each math-mode delimiter pair ($$, $, \\(, \\[) stripped at most once, in that order (not
    ``forms.strip_math_mode``, which repeats until none is left)."""
    answer = answer.strip()
    for left, right in (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]")):
        if answer.startswith(left) and answer.endswith(right) and len(answer) >= len(left) + len(right):
            answer = answer[len(left) : len(answer) - len(right)].strip()
    return answer.rstrip(".").strip()


def _fallback(text: str) -> ExtractedAnswer | None:
    """The last math the text writes before a trailing check, for completions with no box, statement or tag;
    what follows it is read as the ending. With no answer marked anywhere, a value the ending puts in place of
    a retracted one ("Check: 3(20) = 60. So I made an error; x = 21") is the answer."""
    cut = _trailing_check(text)
    group = last_math(text[:cut]) if cut is not None else []
    if not group:
        group = last_math(text)
    values = tuple(v for v in (_strip_math_mode_once(s.text) for s in group) if v)
    if not values:
        return _no_solution(text)
    if _NEGATED.search(text, max(0, group[0].start - 24), group[0].start):
        return None  # "the answer is not 5." commits to nothing
    source = "last_math" if group[-1].kind == "math" else "last_number"
    ending = read_ending(text[group[-1].end :], values)
    if ending.proposals and ending.proposals[-1].kind in ("after retraction", "correction"):
        value = ending.proposals[-1].sides[-1]
        return ExtractedAnswer(value, source, (value,), group[0].start)
    branches = branch_proposals(text, group[0].start, group[-1].end, values)
    return ExtractedAnswer(
        ", ".join(values), source, values, group[0].start, branches + ending.proposals, ending.retracted
    )


def _trailing_check(text: str) -> int | None:
    """Where the check after the answer starts: the last sentence that opens a check ("Check: ...", "Let me
    verify ..."), else the trailing run of confirming sentences ("7 x 6 = 42 ✓"), else a justification clause of
    the last sentence ("7 rows, since 7 x 6 = 42"); None when there is none after some value."""
    region = max(0, len(text) - 4_000)
    spans = sentences(text[region:])
    for k in range(len(spans) - 1, -1, -1):
        start, end = spans[k]
        sentence = text[region + start : region + end]
        if CHECK.search(sentence):
            if last_math(text[region : region + start]) and _check_runs_to_the_end(text, region, spans, k):
                return region + start
            break
        if _CONCLUSION.search(sentence):
            break  # "So she has 18 dollars left." after an early check: the conclusion is the answer
    cut = None
    for start, end in reversed(spans):
        sentence = text[region + start : region + end]
        if not (_CHECKISH.search(sentence) or CONFIRM.search(sentence)):
            break
        cut = region + start
    if cut is not None:
        return cut
    if spans:
        start, end = spans[-1]
        justification = _JUSTIFICATION.search(text, region + start, region + end)
        if justification and last_math(text[region + start : justification.start()]):
            return justification.start()
    return None


def _check_runs_to_the_end(text: str, region: int, spans: list[tuple[int, int]], k: int) -> bool:
    """Whether the check that sentence ``k`` opens goes on to the end: no later sentence brings a value written
    neither before the check nor in it ("Let me verify: 28 / 4 = 7. Then doubling gives 56" goes on)."""
    from rewardkit.verifiers.math_answer.scan import value_spans

    known = {value_key(v.text) for v in value_spans(text[region : region + spans[k][1]])}
    for start, end in spans[k + 1 :]:
        values = {value_key(v.text) for v in value_spans(text[region + start : region + end])}
        if values - known:
            return False
        known |= values
    return True


def _no_solution(text: str) -> ExtractedAnswer | None:
    """ "There is no solution." as the empty set, when the end of the text says so and writes no value."""
    tail = text[-400:]
    match = _NO_SOLUTION.search(tail)
    if match is None:
        return None
    return ExtractedAnswer("\\emptyset", "no_solution", ("\\emptyset",), len(text) - len(tail) + match.start())


def _cut_off_box(text: str) -> bool:
    """A box opened and never closed (``\\boxed{3`` of a completion cut at its token limit): the final answer
    was being written and is lost, so no earlier number stands in for it."""
    return _BOX_RE.search(text) is not None


def unfinished_thought(completion: str) -> bool:
    """A ``<think>`` block never closed: the completion ended (at its token limit) before it answered."""
    opened = completion.rfind(_THINK_OPEN)
    return opened >= 0 and completion.find(THINK_CLOSE, opened) < 0


def plain_scripts(text: str) -> str:
    """Full-width digits and signs as ASCII, vulgar fractions as ``a/b`` (``2½`` → ``2 1/2``)."""
    text = text.translate(_FULL_WIDTH)
    if any(ch in text for ch in _VULGAR):
        text = _VULGAR_RE.sub(lambda m: (m.group(1) + " " if m.group(1) else m.group(2)) + _VULGAR[m.group(3)], text)
    return text


def extract_answer(completion: str, mode: str = LENIENT) -> ExtractedAnswer | None:
    """The final answer of ``completion``, or None when it commits to none.

    ``mode="strict"`` reads only boxes, answer statements, ``####`` lines and ``<answer>`` tags;
    ``"lenient"`` also falls back to the last math or number of the answer region.
    """
    if unfinished_thought(completion):
        return None
    text = plain_scripts(answer_region(completion))
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
    end = _after_math(text, final) if final.source == "boxed" else final.end
    if final.source == "boxed" and (percent := _PERCENT_AFTER.match(text, end)) and not values[-1].endswith("%"):
        values = values[:-1] + (values[-1] + "\\%",)
        end = percent.end()
    ending = read_ending(text[end:], values)
    beside = _earlier_answers(text, group[0], inner, values) + branch_proposals(text, group[0].start, end, values)
    beside += head_alternatives(text, group[0].start, {value_key(v) for v in values})
    unit = unit_after(text, end) if len(values) == 1 else None
    return ExtractedAnswer(
        ", ".join(values), final.source, values, final.start, beside + ending.proposals, ending.retracted, unit
    )


def _after_math(text: str, box: _Candidate) -> int:
    """Where the math a box sits in ends (``$\\boxed{3}$.`` → after the second ``$``), so the ending starts in
    prose; the box's own end when it sits in none."""
    window_start = max(0, box.start - 400)
    window = text[window_start : min(len(text), box.end + 200)]
    for span in math_spans(window):
        if span.start <= box.start - window_start < span.end:
            return max(box.end, window_start + span.end)
    return box.end


_FINAL_MARK = re.compile(r"final[ \t]+answer|the[ \t]+answer[ \t]+is|answer\**[ \t]*:", re.IGNORECASE)


def _earlier_answers(
    text: str, first: _Candidate, candidates: list[_Candidate], values: tuple[str, ...]
) -> tuple[Proposal, ...]:
    """The answer before the final one, when the text offers both: joined by an alternative or a branch
    ("\\boxed{2} (or \\boxed{3} if ...)", "20; otherwise \\boxed{10}"), or both marked final. An earlier answer
    the text between takes back, or one that is only a draft, stays a draft."""
    from rewardkit.verifiers.math_answer.ending import offers_alternative, retracts

    before = [c for c in candidates if c.end <= first.start]
    if not before:
        return ()
    previous = max(before, key=lambda c: c.start)
    gap = text[previous.end : first.start]
    if retracts(gap):
        return ()
    marked_final = previous.source != "boxed" or bool(
        _FINAL_MARK.search(text, max(0, previous.start - 40), previous.start)
    )
    final_marked = bool(_FINAL_MARK.search(text, max(0, first.start - 40), first.start + 20))
    if offers_alternative(gap) or (marked_final and final_marked and len(gap) < 600):
        return (Proposal((_strip_math_mode_once(previous.text),), "earlier answer"),)
    return ()


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
