"""The MCQ verifier's extract stage: the answer candidates a completion commits to, each read as choices.

Every regex is free of nested unbounded quantifiers, every span is capped, and a completion's repeated
spans are read once, so the work is linear in the (capped) input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rewardkit.verifiers.text import answer_region, brace_pairs, completion_text

SPAN_CHARS = 240  # an answer statement is read this far at most
BOX_CHARS = 400  # a \boxed{...} longer than this is not an MCQ answer
SUFFIX_SUBJECT_CHARS = 80  # how far before "is the correct answer" its subject is looked for
SUFFIX_SUBJECT_WORDS = 8
HEDGE_GAP_WORDS = 6  # two candidates closer than this (and no revision word between) are one answer


@dataclass(frozen=True)
class Choice:
    letter: str
    attached: str | None = None  # the letter of the option text written next to the letter, if any


@dataclass(frozen=True)
class Candidate:
    start: int
    end: int
    source: str
    choices: tuple[Choice, ...]
    after: int = -1  # where the text after the answer starts (its alternatives are read there); -1: at end


# ----------------------------------------------------------------------------------------------- extract

_MARKUP = re.compile(r"\*\*|__|`|\$|\\[()\[\]]")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\s?|[{}*\"]")
_SPACES = re.compile(r"\s+")
_TAG_OPEN = re.compile(r"(?i)<answer>")
_TAG_CLOSE = re.compile(r"(?i)</answer>")
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s?\{")
_STATEMENT = re.compile(
    r"(?=(?i:[fcrbmtai]))"  # the first letters of the alternatives: sre skips every other position fast
    r"(?i:\b(?:final|correct|right|best|my|true)\s{1,3}(?:answer|option|choice|response)(?:\schoice)?"
    r"|\banswer(?:\s(?:choice|option))?\"?(?=\s{0,3}(?:is\b|would\b|should\b|must\b|will\b|[:=]))"
    r"|\bI(?:'ll|\swill|\swould|\sshould)?\s(?:choose|pick|select|go\swith)\b)"
    r"(?:\s{0,3}(?i:(?:is|would\sbe|should\sbe|must\sbe|will\sbe)\b|[:=\-]))*"
)
_SUFFIX = re.compile(  # "... B is the correct answer", "(B) London is correct", "so B is the answer"
    r"(?i)\s(?:is|would\sbe|must\sbe|seems\sto\sbe)\s(?:the\s)?"
    r"(?:(?:(?:correct|right|best|final|most\s[a-z]+)\s)?(?:answer|option|choice)|correct|right"
    r"|most\s(?:appropriate|accurate|likely|suitable|plausible|reasonable|correct))\b"
)
# The same two patterns, case-sensitive, for lower-cased ASCII text: they match at the same places, twice
# as fast (sre's case-insensitive matching folds every character it compares).
_STATEMENT_LOWER = re.compile(_STATEMENT.pattern.replace("(?i:", "(?:").replace(r"\bI(?", r"\bi(?"))
_SUFFIX_LOWER = re.compile(_SUFFIX.pattern.replace("(?i)", ""))
_SENTENCE_END = re.compile(r"[.!?;:\n](?:\s|$)|\n")
_WORD_START = re.compile(r"(?<![^\s(\[])\S")
_ITEM_LETTER = re.compile(
    r"(?i:(?:option|choice|letter)\s?)?"
    r"(?:([(\[]))?"
    r"(?!I(?:'|\s(?:think|believe|guess|would|will|am|can|chose|choose|pick|select|go|feel|need|"
    r"should|must|say|suppose)\b))"
    r"(?:([A-Z])|([a-z])(?=\s?(?:[)\].:,/]|$|(?:or|and)\b)))"
    r"(?(1)[)\]]|[)\]]?)"
    r"(?![A-Za-z0-9])"
)
_ITEM_DIGIT = re.compile(  # an ARC-style label: "2", "(2)", "Option 2", "2." but not "2.5", "25" or "2nd"
    r"(?i:(?:option|choice|number)\s?)?"
    r"(?:([(\[]))?"
    r"([1-9])(?![0-9]|[.,][0-9])"
    r"(?(1)[)\]]|[)\].]?)"
    r"(?![A-Za-z0-9])"
)
_ITEM_MULTI = re.compile(r"([A-Z]{2,26})(?![A-Za-z0-9])")
_ATTACH = re.compile(r"\s?[.:\-–—(]?\s?")
_CONNECTOR = re.compile(
    r"\s?(?:,|/|&|;|\+|(?i:or|and|vs)\b)\s?(?:(?i:and|or|either|both|maybe|possibly|perhaps|also)\s)*"
)
_FILLER = re.compile(
    r"(?:(?i:either|both|maybe|possibly|perhaps|probably|likely|clearly|definitely|obviously|so|"
    r"therefore|thus|hence|indeed|actually|then|just|simply|the|answer|correct|final|is|it's|it\sis|here|"
    r"would|should|must|will|be|seems|to|"
    r"option|choice|letter|I\s(?:think|believe|guess|choose|pick|select))\b[\s,:]*)+"
)
_REVISION = re.compile(
    r"(?i)\b(?:wait|actually|no|hmm|correction|reconsider|re-?check|re-?evaluat\w*|mistake|wrong|"
    r"incorrect|instead|however|but|rather|change|scratch|not|oops)\b"
)
# An alternative after an answer: "B. Or maybe C", "B, possibly C", "B. Wait, C", "B - it could also be C".
_ALTERNATIVE = re.compile(
    r"(?i)[\s.,;:!?\-–—…()\[\]]{0,4}(?:(?:or|maybe|possibly|perhaps|probably|alternatively|either|wait|actually|nope|no"
    r"|hmm+|oops|sorry|rather|instead|else|otherwise|unless|correction|could|might|may|hold\son|on\ssecond\sthought"
    r"|then\sagain|but|and|though|it's|it\sis|its|it|that|this|the|answer|option|choice|letter|is|be|also|even|just"
    r"|well|let\sme\ssay|i\sthink|i\sguess|i\smean|i'd\ssay|say|then|one|should|would|can|correct|right|better"
    r")\b[\s.,;:!?\-–—…]{0,4}){1,8}"
)
_ALTERNATIVE_WORD = re.compile(  # an alternative must name one of these, not only filler ("A is correct, but B")
    r"(?i)\b(?:or|maybe|possibly|perhaps|probably|alternatively|either|wait|actually|nope|no|hmm+|oops|sorry"
    r"|rather|instead|else|otherwise|unless|correction|could|might|may|hold|second|again)\b"
)
_NEG = (  # no negation later in the sentence
    r"(?![^.;!?\n]{0,60}?(?:\bnot\b|n't\b|\bnever\b|\bwrong\b|\bincorrect\b|\bfalse\b|\bimpossible\b"
    r"|\bunlikely\b|\beliminat|\bruled\b|\bexclud|\binvalid\b|\bcannot\b"
    r"|\btraps?\b|\bdistract|\btempt|\bmislead|\bred\sherring|\bdecoy))"  # "Maybe A is a trap"
)
# A choice that stands alone: the span ends, or a sentence does ("B C.", "B. Or maybe C?").
_STANDS_ALONE = re.compile(r"[\s)\]'’]{0,4}(?:$|[.!?;…](?=\s|$)|[,/:]\s{0,3}$)")
# A choice affirmed after an alternative word: "B. Wait, C is right", "B - or maybe C would fit" (not "C is wrong").
_AFFIRMED = re.compile(
    r"(?i)(?:\s{1,3}(?:is|are|could|might|may|would|seems?|looks?|also|too|works|fits|instead|as\swell)|'s)\b" + _NEG
)
# A choice offered as a second answer without an alternative word: "B. C could also work", "C is also correct".
_ALSO = re.compile(r"(?i)\s{1,3}(?:is|are|could|might|may|would|can|works?|fits?)\s(?:also|equally|too)\b" + _NEG)
_BARE = re.compile(r"[)\]]?\s?[.!?\-–—]?\s")  # letters separated by spaces or a full stop: "B C", "A B C D", "B. C."
_ARTICLES = ("the ", "a ", "an ")
_WORD = re.compile(r"[A-Za-z0-9]+")
_LINE_LEAD = re.compile(r"[#>\-\s]+")
_TRAILING_CHARS = " .!,;:)"


def answer_text(completion: Any, max_chars: int) -> str:
    """The part of a completion that may hold the answer: after a closed think block, capped at its tail."""
    text = answer_region(completion_text(completion, turns="final", reasoning=False))[-max_chars:]
    if "*" in text or "_" in text or "`" in text or "$" in text or "\\" in text:  # _MARKUP needs one of them
        return _MARKUP.sub("", text)
    return text


def clean_span(span: str) -> str:
    """A span without LaTeX commands, braces and repeated spaces: ``\\text{(B) London}`` → ``(B) London``."""
    return _SPACES.sub(" ", _LATEX_COMMAND.sub(" ", span)).strip()


def normalize_option(text: str) -> str:
    return _fold(clean_span(str(text))).rstrip(". ")


def _fold(text: str) -> str:
    """Lower-case each character whose lower case is one character, so positions stay aligned."""
    if text.isascii():
        return text.lower()
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


class ChoiceReader:
    """Reads spans of text as lists of choices for one sample's options."""

    def __init__(
        self,
        valid: str,
        options: Sequence[str],
        *,
        lowercase: bool,
        match_option_text: bool,
        digit_letters: str = "",
    ) -> None:
        self.valid = valid
        self.lowercase = lowercase
        self.digit_letters = digit_letters  # options labelled 1, 2, ...: label n reads as digit_letters[n - 1]
        texts = [(normalize_option(t), valid[i]) for i, t in enumerate(options)] if match_option_text else []
        texts += [(t[len(article) :], letter) for t, letter in texts for article in _ARTICLES if t.startswith(article)]
        self.option_texts = sorted(
            ((t, letter) for t, letter in texts if t and not (len(t) == 1 and t.isalpha())), key=lambda p: -len(p[0])
        )

    def read(self, span: str, whole: bool = False) -> tuple[tuple[Choice, ...], int]:
        """The choices a span starts with and where they end; with ``whole``, only if they fill the span."""
        if whole and len(span) > SPAN_CHARS:
            return (), 0
        span = clean_span(span[:SPAN_CHARS])
        folded = _fold(span)
        choices: list[Choice] = []
        pos = 0
        item = self._item(span, folded, pos)
        if item is None:
            filler = _FILLER.match(span, pos)
            item = self._item(span, folded, filler.end()) if filler else None
        end = 0
        while item is not None:
            choice, pos = item
            choices.append(choice)
            end = pos
            connector = _CONNECTOR.match(span, pos)
            item = self._item(span, folded, connector.end()) if connector else None
        more, pos = self._more(span, folded, pos) if choices else ((), pos)
        if whole and choices and span[pos:].strip(_TRAILING_CHARS):
            return (), 0
        return tuple(choices) + more, end

    def read_after(self, text: str) -> tuple[Choice, ...]:
        """The choices the text right after an answer adds to it: ``or C``, ``. Or maybe C.``, `` C D``."""
        text = text[:SPAN_CHARS]
        if not text.strip(_TRAILING_CHARS + "\n"):
            return ()
        span = " " + clean_span(text)
        return self._more(span, _fold(span), 0)[0]

    def _more(self, span: str, folded: str, pos: int) -> tuple[tuple[Choice, ...], int]:
        """The choices that follow an answer's own as alternatives (``B. Or maybe C``, ``B - possibly C``)
        or as a run of letters (``B C``, ``A B C D``); a letter that starts a reason (``B. A is wrong``,
        ``B. Wait, A is wrong``) is not one of them."""
        more: list[Choice] = []
        while pos < len(span):
            found = self._alternative(span, folded, pos) or self._run(span, folded, pos)
            if found is None:
                return tuple(more), pos
            choices, pos = found
            more.extend(choices)
            while (connector := _CONNECTOR.match(span, pos)) and (item := self._item(span, folded, connector.end())):
                more.append(item[0])
                pos = item[1]
        return tuple(more), pos

    def _alternative(self, span: str, folded: str, pos: int) -> tuple[list[Choice], int] | None:
        m = _ALTERNATIVE.match(span, pos)
        item = self._item(span, folded, m.end()) if m else None
        if m is None or item is None:
            return None
        if _ALTERNATIVE_WORD.search(m.group()):
            offered = self._alone(span, folded, item[1]) or _AFFIRMED.match(span, item[1])
        else:  # only filler before it ("B. I think D is also plausible")
            offered = _ALSO.match(span, item[1])
        return ([item[0]], item[1]) if offered else None

    def _run(self, span: str, folded: str, pos: int) -> tuple[list[Choice], int] | None:
        run: list[Choice] = []
        while (gap := _BARE.match(span, pos)) and (item := self._item(span, folded, gap.end())):
            run.append(item[0])
            pos = item[1]
        return (run, pos) if run and (self._alone(span, folded, pos) or _ALSO.match(span, pos)) else None

    def _alone(self, span: str, folded: str, pos: int) -> bool:
        """Whether a choice ending at ``pos`` stands alone: the span or the sentence ends, or another choice
        follows after a connective (``B C, or D``)."""
        for _ in range(SPAN_CHARS):  # a connector chain ends: "B C, or D." (not "B. C and D are wrong")
            if _STANDS_ALONE.match(span, pos):
                return True
            connector = _CONNECTOR.match(span, pos)
            item = self._item(span, folded, connector.end()) if connector else None
            if item is None:
                return False
            pos = item[1]
        return False

    def _item(self, span: str, folded: str, pos: int) -> tuple[Choice, int] | None:
        attached, end = self._option_at(folded, pos)
        if self.digit_letters:
            label = self._label(span, folded, pos, attached, end)
            if label is not None:
                return label
        if attached is not None:
            return Choice(attached, attached), end
        m = _ITEM_LETTER.match(span, pos)
        if m and (m.group(2) or self.lowercase):
            letter = (m.group(2) or m.group(3)).upper()
            attach = _ATTACH.match(span, m.end())
            attached, end = self._option_at(folded, attach.end() if attach else m.end())
            if attached is None:
                end = m.end()
            return Choice(letter, attached), end
        m = _ITEM_MULTI.match(span, pos)
        if m and all(c in self.valid for c in m.group(1)) and len(set(m.group(1))) == len(m.group(1)):
            return Choice(m.group(1)), m.end()
        return None

    def _label(
        self, span: str, folded: str, pos: int, text_letter: str | None, text_end: int
    ) -> tuple[Choice, int] | None:
        """A digit label (``2``, ``(2)``, ``Option 2``, ``2) London``) at ``pos``, unless a longer option text
        starts there (``2 apples``). A bare number that is both a label and another option's text (``4``
        labelling 22 while another option is 4) is kept as a contradiction."""
        m = _ITEM_DIGIT.match(span, pos)
        if m is None or (text_letter is not None and text_end > m.end()):
            return None
        index = int(m.group(2)) - 1
        if index >= len(self.digit_letters):
            return None
        letter = self.digit_letters[index]
        if text_letter is not None:
            return Choice(letter, text_letter), max(text_end, m.end())
        attach = _ATTACH.match(span, m.end())
        attached, end = self._option_at(folded, attach.end() if attach else m.end())
        return Choice(letter, attached), end if attached is not None else m.end()

    def _option_at(self, folded: str, pos: int) -> tuple[str | None, int]:
        for text, letter in self.option_texts:
            end = pos + len(text)
            if folded.startswith(text, pos) and (end == len(folded) or not folded[end].isalnum()):
                return letter, end
        return None, pos


def find_candidates(text: str, reader: ChoiceReader) -> list[Candidate]:
    """Every place the text commits to an answer, in order, each read as its choices."""
    read = _memo(reader)
    found: list[Candidate] = []
    boxes = list(_BOX_OPEN.finditer(text))
    pairs = brace_pairs(text) if boxes else {}
    for m in boxes:
        close = pairs.get(m.end() - 1)
        if close is not None and close < m.end() + BOX_CHARS:
            choices, _ = read(text[m.end() : close], True)
            found.append(Candidate(m.start(), close + 1, "boxed", choices, close + 1))
    found.extend(_answer_tags(text, read))
    lower = text.lower() if text.isascii() else None
    for m in _STATEMENT.finditer(text) if lower is None else _STATEMENT_LOWER.finditer(lower):
        start = m.end() + len(text[m.end() : m.end() + SPAN_CHARS]) - len(text[m.end() : m.end() + SPAN_CHARS].lstrip())
        line = text[start : start + SPAN_CHARS].split("\n", 1)[0]
        choices, used = read(line, False)
        found.append(Candidate(m.start(), start + max(used, 1), "statement", choices, start + len(line)))
    for m in _SUFFIX.finditer(text) if lower is None else _SUFFIX_LOWER.finditer(lower):
        found.append(_subject(text, m.start(), m.end(), read))
    found = [c for c in found if c.choices]
    found.sort(key=lambda c: (c.start, c.end))
    return found


Read = Callable[[str, bool], tuple[tuple[Choice, ...], int]]


def _memo(reader: ChoiceReader) -> Read:
    """``reader.read`` remembering its answers for one completion: a looping completion ("the answer is
    the answer is ...") repeats the same spans thousands of times."""
    seen: dict[tuple[str, bool], tuple[tuple[Choice, ...], int]] = {}

    def read(span: str, whole: bool) -> tuple[tuple[Choice, ...], int]:
        key = (span, whole)
        if key not in seen:
            seen[key] = reader.read(span, whole)
        return seen[key]

    return read


def _subject(text: str, phrase_start: int, phrase_end: int, read: Read) -> Candidate:
    """The choice named right before "is the correct answer": the longest tail of its clause that reads
    as nothing but choices (``Option (B) London``, ``Therefore B``, ``London``)."""
    start = max(0, phrase_start - SUFFIX_SUBJECT_CHARS)
    clause = text[start:phrase_start]
    ends = list(_SENTENCE_END.finditer(clause))
    if ends:
        start += ends[-1].end()
        clause = text[start:phrase_start]
    for word in list(_WORD_START.finditer(clause))[-SUFFIX_SUBJECT_WORDS:]:
        choices, _ = read(clause[word.start() :], True)
        if choices:
            return Candidate(start + word.start(), phrase_end, "statement", choices, phrase_end)
    return Candidate(phrase_start, phrase_end, "statement", ())


def _answer_tags(text: str, read: Read) -> list[Candidate]:
    found: list[Candidate] = []
    pos = 0
    while (opening := _TAG_OPEN.search(text, pos)) is not None:
        start = opening.start()
        closing = _TAG_CLOSE.search(text, opening.end())
        content_end = closing.start() if closing else len(text)
        content = text[opening.end() : content_end].strip()
        choices, _ = read(content, True)
        if not choices:  # "<answer>I think it is B</answer>"
            choices, _ = read(content, False)
        found.append(Candidate(start, content_end, "answer_tag", choices, closing.end() if closing else -1))
        if closing is None:
            break
        pos = closing.end()
    return found


def final_line(text: str, reader: ChoiceReader) -> Candidate | None:
    """The last non-empty line when it is nothing but an answer: ``B``, ``(B)``, ``Option B``, ``B) London``."""
    stripped = text.rstrip()
    start = stripped.rfind("\n") + 1
    line = stripped[start:]
    lead = _LINE_LEAD.match(line)
    choices, _ = reader.read(line[lead.end() if lead else 0 :], whole=True)
    return Candidate(start, len(stripped), "final_line", choices) if choices else None


def final_answer(candidates: list[Candidate], text: str) -> list[Candidate]:
    """The last candidate together with the candidates right before it that only a connective separates."""
    cluster = [candidates[-1]]
    for previous in reversed(candidates[:-1]):
        gap = text[previous.end : cluster[-1].start] if previous.end < cluster[-1].start else ""
        if len(gap) > 200 or _REVISION.search(gap) or len(_WORD.findall(gap)) > HEDGE_GAP_WORDS:
            break
        cluster.append(previous)
    return cluster[::-1]
