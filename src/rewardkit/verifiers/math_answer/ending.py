"""Does the completion stay with the answer it committed to? Read from the structure of its ending.

After its final answer a reasoning model often keeps writing: it checks the answer, restates it (also
rounded), tries a second method, names a wrong value only to reject it — or it changes its mind, offers an
alternative, or takes the answer back. Cue words cannot tell these apart ("Wait, let me verify: 42/6 = 7" is
a check; "Wait, no: 6 x 8 = 48" is a change), so the text after the answer is read sentence by sentence:

* **A retraction** — a statement (not a question, not a condition, not negated) that the answer is wrong:
  "that's wrong", "I double-counted", "on reflection", "let me redo this", "doesn't satisfy ..." — takes the
  answer back. Any value after it (its last one) is then a proposal; with none, the answer stays retracted
  unless a later sentence confirms it.
* **A proposal** is a value the text offers as the answer: after an alternative ("or 8", "could also be 8",
  "maybe 8", "in which case it is 60", "x = -3 also works"), a correction ("it should be 14", "the correct
  count is 38", "it is actually"), a restatement right after the answer ("i.e. 0.25", "or about 46.7%",
  ``\\approx 2.83``, "which is 1/4"), or a branch of a case analysis ("... and 60 if they are round").
  Proposals must agree with the answer; the worker compares them (:func:`compare.agrees`: any correct
  rounding, within 5% when marked approximate), so ``\\boxed{7/15}, or about 46.7%`` keeps its credit and
  ``\\boxed{12}, or 16 with repetition`` does not.
* Everything else is neutral: checks and their arithmetic ("Check: 42 / 6 = 7"), confirmations ("which
  matches", "so 42 is correct", "✓"), questions ("is that right?"), and values named only to be rejected
  ("not 15", "15 would be wrong", "the root -1 is extraneous", "a naive count gives 12, but ...").

Every scan is a fixed set of regexes over at most ``TAIL_CHARS`` characters, split into sentences once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rewardkit.verifiers.math_answer.scan import Span, math_spans, value_spans
from rewardkit.verifiers.math_answer.values import value_key

TAIL_CHARS = 4_000
_MAX_SENTENCES = 80


@dataclass(frozen=True)
class Proposal:
    """A value the ending offers as the answer; it agrees when any of ``sides`` restates the answer."""

    sides: tuple[str, ...]
    kind: str  # "alternative", "correction", "restatement", "branch", "after retraction", "earlier answer"
    approximate: bool = False


@dataclass(frozen=True)
class Ending:
    proposals: tuple[Proposal, ...] = ()
    retracted: str | None = None  # the sentence that took the answer back with nothing in its place


_I = re.IGNORECASE
_BOUNDARY = re.compile(r"(?<=[.!?。！？])\s+|[.!?。！？]$|\n+|[;；]\s*")
_QUESTION = re.compile(r"\?\s*\W*$|？\s*$")
CHECK = re.compile(
    r"^\W*(?:(?:wait|ok(?:ay)?|now|finally|also|hmm+|so|and|but|just|no|oh|actually|hold\s+on|first|lastly|to\s+be"
    r"\s+(?:sure|safe|thorough))\W+){0,3}"
    r"(?:let(?:'s|\s+me|\s+us)\s+(?:quickly\s+|also\s+|now\s+|just\s+|again\s+)?(?:verify|check|double[- ]?check|"
    r"re-?check|confirm|make\s+sure|ensure|sanity[- ]check|test|plug|substitute|see\s+(?:if|whether)|validate|"
    r"recount|re-?verify|re-?do|recompute|recalculate|redo)|(?:to\s+)?(?:verify|check|double[- ]?check|confirm|"
    r"cross[- ]check)\b|verification|verifying|checking|check\b|sanity\s+check|quick\s+check|double[- ]checking|"
    r"plugging|substituting|we\s+can\s+(?:verify|check|confirm)|as\s+a\s+check|proof|comprobaci[oó]n|"
    r"v[ée]rification|überprüfung|probe|验证|检验|检查|確認|проверка)",
    _I,
)
CONFIRM = re.compile(
    r"\b(?:match(?:es|ed|ing)?|agrees?|consistent|(?:is|'s|are|was|be|looks|seems|indeed|all)\s+(?:\w+\s+)?correct|"
    r"correct\W*$|checks?\s+out|confirm(?:s|ed)?|verified|holds?|works|fine|makes\s+sense|"
    r"as\s+(?:expected|required|stated|given|claimed)|same\s+(?:answer|result|value|as)|good|yes|indeed|"
    r"(?:is|'s|looks|seems|was|are)\s+right|right\b\W*$|both\s+(?:methods|ways|approaches)\s+give|stands)\b"
    r"|[✓✔☑]|正确|正確|对的|無誤",
    _I,
)
# "4 is right", "x = 5 works": a value the sentence itself calls the answer.
_CALLED_RIGHT = re.compile(
    r"\s*\$?\s*(?:is|'s|seems|looks|must\s+be|should\s+be)?\s*(?:indeed\s+|actually\s+|definitely\s+|then\s+)?"
    r"(?:right|correct|the\s+(?:right|correct|real|true|final)\s+answer|works|checks\s+out|stands)\b",
    _I,
)
_NEGATION_BEFORE = re.compile(
    r"(?:\b(?:not|never|no|without|if|whether|unless|in\s+case|make\s+sure|ensure|avoid|to\s+see|check(?:ing)?"
    r"\s+(?:that|whether|if)|whether)\b|n't)[^.;:!?]{0,60}$",
    _I,
)
# "Wait, no" and friends: a retraction, unless the sentence goes on to check ("No wait, let me re-check: ...").
_INTERJECTION = re.compile(
    r"\b(?:wait|hold\s+on|hmm+|actually|oh)[\s,—–-]+no\b(?!\s+(?:need|other|one|more|matter|doubt))"
    r"|\bno[\s,—–-]+(?:wait|actually)\b|\bactually,?\s+that(?:'s|\s+is)\s+not\b",
    _I,
)
# Statements that the answer itself is wrong: they need no subject (pronouns, "I", or nothing).
_RETRACT = re.compile(
    r"\bon\s+(?:second\s+thought|reflection|further\s+reflection|closer\s+inspection|second\s+look|re-?examination)"
    r"|\bscratch\s+that|\boops\b|\bmy\s+(?:bad|mistake|error)\b"
    r"|\b(?:i|we)\s+(?:have\s+)?(?:made|make)\s+(?:a|an|one|some)\s+(?:\w+\s+)?(?:mistake|error|slip|miscalculation|typo)"
    r"|\b(?:i|we)\s+(?:was|were)\s+wrong|\b(?:i|we)\s+(?:misread|misunderstood|misinterpreted|miscalculated|"
    r"miscounted|mis-?counted|forgot|missed|overlooked|neglected|double[- ]counted|over-?counted|under-?counted)"
    r"|\bdouble[- ]counted\b|\b(?:that|this)\s+can(?:no|')t\s+be\s+right"
    r"|\blet\s+me\s+(?:redo|re-do|recompute|recalculate|reconsider|correct|fix|start\s+over|re-?examine|rethink)"
    r"\b(?!\s+(?:this\s+|the\s+\w+\s+)?(?:to\s+(?:be\s+sure|check|verify|confirm|double)))"
    r"|\bcorrection\s*:|\bthe\s+(?:above|previous|earlier)\s+(?:answer|result|count|value)\s+(?:is|was)\s+wrong",
    _I,
)
# Verdicts that need a subject: the nearest value before them in the sentence, else the answer itself.
_JUDGED_WRONG = re.compile(
    r"\b(?:is|'s|was|are|were|would\s+be|be)\s+(?:wrong|incorrect|not\s+(?:right|correct|valid|possible)|a\s+mistake|"
    r"an\s+error|off|impossible|invalid|extraneous|too\s+(?:big|large|small|high|low|many|few))\b"
    r"|\b(?:does\s+not|doesn't|did\s+not|didn't)\s+(?:match|work|satisfy|add\s+up|check\s+out|fit|agree|hold)\b"
    r"|\bfails?\b|\bcontradict\w*|\b(?:double|over)[- ]?counts?\b|\bcounts?\s+(?:\w+\s+){0,3}twice\b|\bis\s+rejected\b"
    r"|\b(?:rejected|discarded|excluded|ruled\s+out)\b",
    _I,
)
# Values the text names to set aside: never proposals.
_REJECTED_BEFORE = re.compile(
    r"(?:\bnot|\bisn't|\bcannot\s+be|\bcan't\s+be|\brather\s+than|\binstead\s+of(?:\s+the)?|\bother\s+than|\bexcept|"
    r"\bexcluding|\brules?\s+out|\bruling\s+out|\bnaive(?:ly)?\s+\w+(?:\s+\w+)?|\bwould\s+(?:get|give|be|have)|"
    r"\bwrong\s+answer\s+(?:of|is)|\bguess(?:ed)?)\s*[:(]?\s*\$?\s*$",
    _I,
)
_COUNTERFACTUAL = re.compile(r"\bif\s+(?:i|we|you|one)\s+(?:had|were|did)\b|\bhad\s+(?:i|we)\b", _I)
_NOT_A_VALUE = (
    r"(?!\s+(?:written|expressed|seen|thought|viewed|computed|found|obtained|checked|verified|rewritten|simplified|"
    r"factored|calculated|done|helpful|useful|worth|noted|interpreted|read|derived|shown|confirmed|double[- ]checked))"
)
_ALTERNATIVE_AFTER = re.compile(
    rf"\b(?:or\s+(?:maybe|perhaps|possibly|rather|else|even|just|alternatively)?|could\s+(?:also\s+|instead\s+|even\s+)?be"
    rf"{_NOT_A_VALUE}|might\s+(?:also\s+|instead\s+)?be{_NOT_A_VALUE}|may\s+(?:also\s+)?be{_NOT_A_VALUE}|"
    rf"can\s+also\s+be{_NOT_A_VALUE}|maybe(?:\s+it(?:'s|\s+is))?|perhaps|"
    r"possibly|alternatively|alternately|in\s+which\s+case(?:\s+it(?:'s|\s+is|\s+would\s+be))?|otherwise|"
    r"if\s+instead|or\s+else|another\s+(?:possible\s+)?(?:answer|solution|value|possibility|option)\s+(?:is|would\s+be)|"
    r"unless)\b",
    _I,
)
_ALTERNATIVE_BEFORE = re.compile(
    r"\b(?:also\s+(?:works?|valid|possible|correct|satisf\w*|a\s+(?:solution|root|valid\s+\w+|possibility))|"
    r"(?:is|are)\s+also\s+(?:a\s+|an\s+)?(?:solution|root|answer|valid|possible|correct))\b",
    _I,
)
_CORRECTION = re.compile(
    r"\b(?:the\s+)?(?:final|correct|right|real|actual|true|new|corrected|proper)\s+(?:answer|result|total|count|"
    r"number|value|sum|amount|probability|area|length)\s+(?:is|should\s+be|would\s+be|must\s+be|becomes|=|:)"
    r"|\b(?:it|this|that|the\s+(?:answer|result|total|count|value))\s+(?:should|must)\s+(?:be|have\s+been)\b"
    r"|\b(?:i\s+think|so)\s+(?:it|the\s+answer)\s+(?:is|should\s+be)\b|\bis\s+actually\b|\bit(?:'s|\s+is)\s+actually\b"
    r"|\bactually(?:,)?\s+(?:it(?:'s|\s+is)|the\s+answer\s+is)\b|\binstead(?:,)?(?!\s+of)",
    _I,
)
_RESTATE = re.compile(
    r"^\W{0,4}(?:i\.\s?e\.?|that\s+is(?:\s+to\s+say)?|which\s+is|which\s+equals|or\s+equivalently|equivalently|"
    r"or|=|≈|\\approx|~|\\sim|in\s+(?:decimal|percent)\s+form|as\s+a\s+(?:decimal|fraction|percent(?:age)?)|about|"
    r"approximately|approx\.?|roughly|around|nearly)"
    r"(?:\s*,)?(?:\s+(?:about|approximately|approx\.?|roughly|around|nearly|almost|close\s+to|exactly|just))?",
    _I,
)
_APPROXIMATE = re.compile(r"≈|\\approx|~|\\sim\b|\b(?:about|approximately|approx|roughly|around|nearly|almost)\b", _I)
_BRANCH = re.compile(
    r"\b(?:if|when|otherwise|unless|in\s+case|for\s+the\s+case|provided|assuming|depending\s+on)\b|如果|若"
    r"|\bfor\s+(?:even|odd|positive|negative|non-?\w+|the\s+(?:first|second|other|latter|former))\b"
    r"|\bfor\s+[a-z]\s*(?:[<>=≤≥]|\\[lg]e|\s+(?:even|odd|positive|negative))|\bin\s+the\s+(?:first|second|other|latter|former)"
    r"\s+case\b",
    _I,
)
# Where a value in a sentence is given as a result ("there are 6", "the answer is 20", "and 60 if ..."), not as a
# label ("step 2", "case 1") or a quantity of the condition.
_RESULT_SLOT = re.compile(
    r"(?:\b(?:is|are|be|was|were|equals?|gives?|get|makes?|there\s+(?:are|is|would\s+be)|it's|has|have|yields?)|[=:,;]|"
    r"\band|\bthen|^)\s*(?:\$|\\\(|\\boxed\{|\\\[)?\s*$",
    _I,
)
_LABEL_WORD = re.compile(
    r"\b(?:step|case|part|line|figure|fig\.|problem|question|page|equation|eq\.|chapter|section|item|no\.)\s*$", _I
)
_EQUALS = re.compile(r"(?<![<>!=\\])=(?!=)|\\approx|≈")
_BECAUSE = re.compile(r",?\s+(?:since|because|as\s+(?:shown|computed))\s", _I)
_OPERATOR_GAP = re.compile(r"^[\s+\-−*/×÷·x=^()]*(?:\\cdot|\\times|\\div)?[\s+\-−*/×÷·x=^()]*$")


def sentences(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence (a ``.``/``!``/``?`` before a space, a line break or ``;``, none inside
    math), at most ``_MAX_SENTENCES``."""
    maths = math_spans(text) if "$" in text or "\\(" in text or "\\[" in text else []
    out, start, m = [], 0, 0
    for boundary in _BOUNDARY.finditer(text):
        while m < len(maths) and maths[m].end <= boundary.start():
            m += 1
        if m < len(maths) and maths[m].start < boundary.start():
            continue
        if text[start : boundary.start()].strip():
            out.append((start, boundary.start() + (1 if text[boundary.start()] in ".!?。！？" else 0)))
        start = boundary.end()
        if len(out) >= _MAX_SENTENCES:
            return out
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def _chain(text: str, spans: list[Span], first: int) -> tuple[str, ...]:
    """The expression that starts at ``spans[first]`` (values joined by operators, ``6 x 8 = 48``) as the sides of
    its equation chain: ``("6 x 8", "48")``."""
    end = first
    while end + 1 < len(spans) and len(text[spans[end].end : spans[end + 1].start]) <= 8:
        if not _OPERATOR_GAP.match(text[spans[end].end : spans[end + 1].start]):
            break
        end += 1
    whole = text[spans[first].start : spans[end].end] if end > first else spans[first].text
    if end == first:
        whole = spans[first].text
    sides = [s.strip().strip("$").strip() for s in _EQUALS.split(whole)]
    return tuple(s for s in sides if s) or (spans[first].text,)


def _kept(text: str, spans: list[Span]) -> list[int]:
    """The indexes of the values in ``text`` not named only to be rejected."""
    kept = []
    for i, span in enumerate(spans):
        before = text[max(0, span.start - 40) : span.start]
        after = text[span.end : span.end + 60]
        if _REJECTED_BEFORE.search(before) or _LABEL_WORD.search(before):
            continue  # "not 15", "rather than 15"; "step 2" names a step
        verdict = _JUDGED_WRONG.search(after)
        if verdict and not any(s.start < span.end + verdict.start() for s in spans[i + 1 :]):
            continue  # "15 would be wrong", "x = -1 is extraneous": the verdict is on this value
        kept.append(i)
    return kept


def _subject_is_answer(text: str, at: int, spans: list[Span], answer_keys: set[object]) -> bool:
    """A verdict at ``at`` judges the answer when no value stands before it in its sentence, or the nearest
    one is the answer; the nearest other value is what it rejects ("15 would be wrong")."""
    before = [s for s in spans if s.end <= at]
    return not before or same_as_written(before[-1].text, answer_keys)


def same_as_written(value: str, answer_keys: set[object]) -> bool:
    return value_key(value) in answer_keys


def read_ending(text: str, answer: tuple[str, ...]) -> Ending:
    """What the text after the committed answer does with it: the proposals it makes and whether it retracts it.
    ``text`` starts right after the answer."""
    text = text[:TAIL_CHARS]
    keys = {value_key(v) for v in answer}
    proposals: list[Proposal] = []
    doubts: list[Proposal] = []  # "Or is it 10?": an alternative, unless a later sentence confirms the answer
    retracted: str | None = None
    checking = False
    for index, (start, end) in enumerate(sentences(text)):
        sentence = text[start:end]
        spans = value_spans(sentence)
        if CHECK.search(sentence):
            checking = True
        if _QUESTION.search(sentence):
            doubts.extend(_framed(sentence, spans, _kept(sentence, spans), True, explicit_only=True))
            continue
        kept = _kept(sentence, spans)
        if index == 0 and start == 0 and (restate := _RESTATE.match(sentence)):
            first = next((i for i in kept if spans[i].start >= restate.end()), None)
            if first is not None and spans[first].start - restate.end() <= 4:
                approximate = bool(_APPROXIMATE.search(sentence, 0, spans[first].start))
                proposals.append(Proposal(_chain(sentence, spans, first), "restatement", approximate))
        retraction = _retraction(sentence, spans, keys)
        if retraction:
            retracted = sentence.strip()
            why = _BECAUSE.search(sentence, retraction)
            after = [i for i in kept if spans[i].start >= retraction and (why is None or spans[i].end <= why.start())]
            framed = [] if after else _framed(sentence, spans, kept, True, explicit_only=True)
            if after:
                proposals.append(Proposal(_chain(sentence, spans, after[-1]), "after retraction"))
                retracted = None
            elif framed:  # "Actually it's 128, I miscounted": the correction stands before the admission
                proposals.extend(framed)
                retracted = None
            continue
        framed = _framed(sentence, spans, kept, checking, explicit_only=True)
        framed += _called_right(sentence, spans, kept, keys)
        if framed:
            proposals.extend(framed)
            retracted = None
            continue
        if CONFIRM.search(sentence) and not _negated(sentence, CONFIRM):
            retracted = None
            doubts.clear()
            continue
        why = _BECAUSE.search(sentence)
        justified = [i for i in kept if why is None or spans[i].end <= why.start()]
        if retracted is not None and justified:
            proposals.append(Proposal(_chain(sentence, spans, justified[-1]), "after retraction"))
            retracted = None
            continue
        proposals.extend(_framed(sentence, spans, kept, checking or index > 1, explicit_only=False))
    return Ending(tuple(proposals + doubts), retracted)


def _called_right(sentence: str, spans: list[Span], kept: list[int], keys: set[object]) -> list[Proposal]:
    """A value other than the answer that the sentence calls right ("On second thought, 4 is right")."""
    return [
        Proposal(_chain(sentence, spans, i), "correction")
        for i in kept
        if _CALLED_RIGHT.match(sentence, spans[i].end) and not same_as_written(spans[i].text, keys)
    ]


def _negated(sentence: str, pattern: re.Pattern[str]) -> bool:
    match = pattern.search(sentence)
    return match is not None and bool(re.search(r"(?:\bnot|n't|\bno)\s+(?:\w+\s+)?$", sentence[: match.start()], _I))


def _retraction(sentence: str, spans: list[Span], keys: set[object]) -> int | None:
    """Where a declarative retraction of the answer ends in ``sentence``, or None."""
    if _COUNTERFACTUAL.search(sentence):
        return None
    interjection = _INTERJECTION.search(sentence)
    if interjection and not CHECK.search(sentence):
        return interjection.end()
    confirms = bool(CONFIRM.search(sentence)) and not _negated(sentence, CONFIRM)
    confirms = confirms and not _called_right(sentence, spans, _kept(sentence, spans), keys)
    for pattern, needs_subject in ((_RETRACT, False), (_JUDGED_WRONG, True)):
        for match in pattern.finditer(sentence):
            if _NEGATION_BEFORE.search(sentence[: match.start()]) or (confirms and not needs_subject):
                continue
            if needs_subject and not _subject_is_answer(sentence, match.start(), spans, keys):
                continue
            return match.end()
    return None


def _framed(
    sentence: str, spans: list[Span], kept: list[int], checking: bool, *, explicit_only: bool
) -> list[Proposal]:
    """Values the sentence offers as the answer: after an alternative or a correction frame, before an "also
    works", or (outside a check, ``explicit_only=False``) the results of a branch of a case analysis."""
    found: list[Proposal] = []
    for pattern, kind in ((_ALTERNATIVE_AFTER, "alternative"), (_CORRECTION, "correction")):
        for match in pattern.finditer(sentence):
            first = next((i for i in kept if spans[i].start >= match.end()), None)
            if first is not None and not _COUNTERFACTUAL.search(sentence[: match.start()]):
                found.append(Proposal(_chain(sentence, spans, first), kind))
    for match in _ALTERNATIVE_BEFORE.finditer(sentence):
        before = [i for i in kept if spans[i].end <= match.start()]
        if before:
            found.append(Proposal(_chain(sentence, spans, before[-1]), "alternative"))
    if explicit_only:
        return found
    if not found and not checking and _BRANCH.search(sentence) and not _COUNTERFACTUAL.search(sentence):
        found.extend(_branch(sentence, spans, kept))
    return found


def _branch(sentence: str, spans: list[Span], kept: list[int]) -> list[Proposal]:
    """A branch of a case analysis: its results (values in a result slot) as one proposal, which agrees when
    any of them restates the answer ("If there are 7 rows of 6, that gives 42" keeps 42)."""
    results = [
        i
        for i in kept
        if _RESULT_SLOT.search(sentence, max(0, spans[i].start - 24), spans[i].start)
        and not _LABEL_WORD.search(sentence, max(0, spans[i].start - 12), spans[i].start)
    ]
    if not results:
        return []
    return [Proposal(tuple(side for i in results for side in _chain(sentence, spans, i)), "branch")]


_CLAUSE_BREAK = re.compile(r"[,;，；]|\s(?:and|but|while|whereas)\s", _I)


def branch_proposals(text: str, start: int, end: int, answer: tuple[str, ...]) -> tuple[Proposal, ...]:
    """When the answer at ``[start, end)`` is one branch of a case analysis — its own clause is conditional
    ("...; if they are identical there are 3", "\\boxed{3} if they are identical") — the results of an earlier
    conditional clause of its sentence, or of the sentence before."""
    window_start = max(0, start - 600)
    window = text[window_start : min(len(text), end + 200)]
    spans = sentences(window)
    at = next((k for k, (s, e) in enumerate(spans) if s <= start - window_start < e), None)
    if at is None:
        return ()
    s, e = spans[at]
    head = window[s : start - window_start]
    tail = window[end - window_start : e]
    breaks = list(_CLAUSE_BREAK.finditer(head))
    own_head = head[breaks[-1].end() :] if breaks else head
    next_break = _CLAUSE_BREAK.search(tail)
    own_tail = tail[: next_break.start()] if next_break else tail
    if not (_BRANCH.search(own_head) or _BRANCH.search(own_tail)) or _COUNTERFACTUAL.search(head + own_tail):
        return ()
    clauses = []
    if breaks:
        clauses.append(head[: breaks[-1].start()])
    if at > 0:
        ps, pe = spans[at - 1]
        clauses.append(window[ps:pe])
    for clause in clauses:
        if _BRANCH.search(clause) and not _COUNTERFACTUAL.search(clause) and not CHECK.search(clause):
            clause_spans = value_spans(clause)
            found = _branch(clause, clause_spans, _kept(clause, clause_spans))
            if found:
                return tuple(found)
    return ()


_WORKS = re.compile(
    r"\W*(?:\$\s*)?(?:both\s+)?(?:works?|are\s+(?:both\s+)?(?:valid|solutions|possible|correct|roots)|satisf\w*|"
    r"(?:is|are)\s+possible)\b",
    _I,
)


def head_alternatives(text: str, start: int, answer_keys: set[object]) -> tuple[Proposal, ...]:
    """Values offered beside the answer in its own sentence: "Either $x = 2$ or $x = 5$ works, so \\boxed{2}"
    (values joined by "or" and said to work) gives the one the answer is not."""
    from rewardkit.verifiers.math_answer.scan import joined_spans

    window_start = max(0, start - 400)
    window = text[window_start:start]
    spans = sentences(window)
    if not spans:
        return ()
    s, _ = spans[-1]
    head = window[s:]
    values = value_spans(head)
    for i in range(len(values) - 1, 0, -1):
        group = joined_spans(head, values[: i + 1])
        if len(group) > 1 and _WORKS.match(head, group[-1].end) and " or " in head[group[0].end : group[-1].start]:
            others = [g.text for g in group if not same_as_written(g.text, answer_keys)]
            return tuple(Proposal((o,), "alternative") for o in others)
    return ()


def offers_alternative(gap: str) -> bool:
    """Whether the text between two answers offers the first as an alternative or a branch to the second."""
    if _COUNTERFACTUAL.search(gap):
        return False
    return bool(_ALTERNATIVE_AFTER.search(gap) or _BRANCH.search(gap) or _ALTERNATIVE_BEFORE.search(gap))


def retracts(gap: str) -> bool:
    """Whether the text between two answers takes the first back ("Wait, that's wrong — it is ...")."""
    return any(
        _retraction(gap[s:e], value_spans(gap[s:e]), set()) is not None and not _QUESTION.search(gap[s:e])
        for s, e in sentences(gap)
    )
