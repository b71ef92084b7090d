"""The multiple-choice verifier ("mcq"): find the letter the completion commits to, compare it to the gold.

Two stages, both in this file:

1. **extract** — keep the text after the last closed ``</think>`` (capped to its last ``max_chars``),
   collect answer candidates (``\\boxed{}``/``\\fbox{}``, ``<answer>`` tags, statements such as
   "the answer is", "B is correct"; when there is none, the last line alone: ``B``, ``(B)``, ``B) London``),
   and read each one as a list of choices (letters, or option texts mapped to their letters). The last
   candidate is the answer; candidates right before it that only a connective separates ("or", ",", a line
   break) belong to the same answer, while one separated by reasoning or a revision ("wait, actually") is a
   draft and is ignored.
2. **compare** — several different letters are a hedge, a letter whose attached text names a different
   option is a contradiction, a letter outside the options is invalid; otherwise the letter must equal the gold.

Every regex is free of nested unbounded quantifiers, and every span is capped, so the work is linear in the
(capped) input.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardkit._errors import ConfigError, VerifierError
from rewardkit.verifiers.base import Verifier, answer_region, as_text
from rewardkit.verifiers.verdict import HEDGED, INVALID_REFERENCE, NO_ANSWER, OK, Verdict

INVALID_OPTION = "invalid_option"
OPTION_MISMATCH = "option_mismatch"

SPAN_CHARS = 240  # an answer statement is read this far at most
BOX_CHARS = 400  # a \boxed{...} longer than this is not an MCQ answer
SUFFIX_SUBJECT_CHARS = 80  # how far before "is the correct answer" its subject is looked for
SUFFIX_SUBJECT_WORDS = 8
HEDGE_GAP_WORDS = 6  # two candidates closer than this (and no revision word between) are one answer


@dataclass(frozen=True)
class MCQConfig:
    """Settings of :class:`MCQVerifier`.

    ``letters``: the option labels in order. ``max_options``: how many of them are valid when the sample
    gives no ``options`` (default: the first 10, A-J, as in MMLU-Pro). ``max_chars``: only the last this many characters of the answer text are read.
    ``lowercase``: accept ``b``/``(b)`` for ``B``. ``match_option_text``: map an option's text to its letter.
    """

    letters: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    max_options: int | None = None
    max_chars: int = 20_000
    lowercase: bool = True
    match_option_text: bool = True

    def __post_init__(self) -> None:
        if not self.letters or not self.letters.isalpha() or not self.letters.isupper():
            raise ConfigError(f"mcq: letters must be upper-case letters like 'ABCD', got {self.letters!r}")
        if len(set(self.letters)) != len(self.letters):
            raise ConfigError(f"mcq: letters must not repeat, got {self.letters!r}")
        if self.max_options is not None and not 2 <= self.max_options <= len(self.letters):
            raise ConfigError(
                f"mcq: max_options must lie in [2, {len(self.letters)}] (the number of letters), "
                f"got {self.max_options!r}"
            )
        if self.max_chars < 100:
            raise ConfigError(f"mcq: max_chars must be at least 100, got {self.max_chars!r}")

    @property
    def default_options(self) -> int:
        return self.max_options if self.max_options is not None else min(10, len(self.letters))


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


# ----------------------------------------------------------------------------------------------- extract

_MARKUP = re.compile(r"\*\*|__|`|\$|\\[()\[\]]")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\s?|[{}*\"]")
_SPACES = re.compile(r"\s+")
_TAG_OPEN = re.compile(r"(?i)<answer>")
_TAG_CLOSE = re.compile(r"(?i)</answer>")
_BOX_OPEN = re.compile(r"\\(?:boxed|fbox)\s?\{")
_STATEMENT = re.compile(
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
_ARTICLES = ("the ", "a ", "an ")
_WORD = re.compile(r"[A-Za-z0-9]+")
_LINE_LEAD = re.compile(r"[#>\-\s]+")
_TRAILING_CHARS = " .!,;:)"


def answer_text(completion: Any, max_chars: int) -> str:
    """The part of a completion that may hold the answer: after a closed think block, capped at its tail."""
    text = answer_region(as_text(completion))[-max_chars:]
    return _MARKUP.sub("", text)


def clean_span(span: str) -> str:
    """A span without LaTeX commands, braces and repeated spaces: ``\\text{(B) London}`` → ``(B) London``."""
    return _SPACES.sub(" ", _LATEX_COMMAND.sub(" ", span)).strip()


def normalize_option(text: str) -> str:
    return _fold(clean_span(str(text))).rstrip(". ")


def _fold(text: str) -> str:
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


class ChoiceReader:
    """Reads spans of text as lists of choices for one sample's options."""

    def __init__(self, valid: str, options: Sequence[str], config: MCQConfig) -> None:
        self.valid = valid
        self.lowercase = config.lowercase
        texts = [(normalize_option(t), valid[i]) for i, t in enumerate(options)] if config.match_option_text else []
        texts += [(t[len(article):], letter) for t, letter in texts for article in _ARTICLES if t.startswith(article)]
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
        while item is not None:
            choice, pos = item
            choices.append(choice)
            connector = _CONNECTOR.match(span, pos)
            item = self._item(span, folded, connector.end()) if connector else None
        if whole and choices and span[pos:].strip(_TRAILING_CHARS):
            return (), 0
        return tuple(choices), pos

    def _item(self, span: str, folded: str, pos: int) -> tuple[Choice, int] | None:
        attached, end = self._option_at(folded, pos)
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

    def _option_at(self, folded: str, pos: int) -> tuple[str | None, int]:
        for text, letter in self.option_texts:
            end = pos + len(text)
            if folded.startswith(text, pos) and (end == len(folded) or not folded[end].isalnum()):
                return letter, end
        return None, pos


def find_candidates(text: str, reader: ChoiceReader) -> list[Candidate]:
    """Every place the text commits to an answer, in order, each read as its choices."""
    found: list[Candidate] = []
    for m in _BOX_OPEN.finditer(text):
        close = _matching_brace(text, m.end())
        if close is not None:
            choices, _ = reader.read(text[m.end():close], whole=True)
            found.append(Candidate(m.start(), close + 1, "boxed", choices))
    found.extend(_answer_tags(text, reader))
    for m in _STATEMENT.finditer(text):
        start = m.end() + len(text[m.end():m.end() + SPAN_CHARS]) - len(text[m.end():m.end() + SPAN_CHARS].lstrip())
        line = text[start:start + SPAN_CHARS].split("\n", 1)[0]
        choices, used = reader.read(line)
        found.append(Candidate(m.start(), start + max(used, 1), "statement", choices))
    for m in _SUFFIX.finditer(text):
        found.append(_subject(text, m.start(), m.end(), reader))
    found = [c for c in found if c.choices]
    found.sort(key=lambda c: (c.start, c.end))
    return found


def _subject(text: str, phrase_start: int, phrase_end: int, reader: ChoiceReader) -> Candidate:
    """The choice named right before "is the correct answer": the longest tail of its clause that reads
    as nothing but choices (``Option (B) London``, ``Therefore B``, ``London``)."""
    start = max(0, phrase_start - SUFFIX_SUBJECT_CHARS)
    clause = text[start:phrase_start]
    ends = list(_SENTENCE_END.finditer(clause))
    if ends:
        start += ends[-1].end()
        clause = text[start:phrase_start]
    for word in list(_WORD_START.finditer(clause))[-SUFFIX_SUBJECT_WORDS:]:
        choices, _ = reader.read(clause[word.start():], whole=True)
        if choices:
            return Candidate(start + word.start(), phrase_end, "statement", choices)
    return Candidate(phrase_start, phrase_end, "statement", ())


def _matching_brace(text: str, pos: int) -> int | None:
    depth = 1
    for i in range(pos, min(len(text), pos + BOX_CHARS)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _answer_tags(text: str, reader: ChoiceReader) -> list[Candidate]:
    found: list[Candidate] = []
    pos = 0
    while (opening := _TAG_OPEN.search(text, pos)) is not None:
        start = opening.start()
        closing = _TAG_CLOSE.search(text, opening.end())
        content_end = closing.start() if closing else len(text)
        content = text[opening.end():content_end].strip()
        choices, _ = reader.read(content, whole=True)
        if not choices:  # "<answer>I think it is B</answer>"
            choices, _ = reader.read(content)
        found.append(Candidate(start, content_end, "answer_tag", choices))
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
    choices, _ = reader.read(line[lead.end() if lead else 0:], whole=True)
    return Candidate(start, len(stripped), "final_line", choices) if choices else None


def final_answer(candidates: list[Candidate], text: str) -> list[Candidate]:
    """The last candidate together with the candidates right before it that only a connective separates."""
    cluster = [candidates[-1]]
    for previous in reversed(candidates[:-1]):
        gap = text[previous.end:cluster[-1].start] if previous.end < cluster[-1].start else ""
        if len(gap) > 200 or _REVISION.search(gap) or len(_WORD.findall(gap)) > HEDGE_GAP_WORDS:
            break
        cluster.append(previous)
    return cluster[::-1]


# ----------------------------------------------------------------------------------------------- compare


class MCQVerifier(Verifier):
    """Multiple-choice answers: the gold is a letter (or a 0-based index, or the option's text).

    Context ``options`` (alias ``choices``): the option texts, lettered A, B, C, ... (optional).
    """

    name = "mcq"
    params_schema = MCQConfig  # checked when a spec is built (rewardkit._param_types)

    def __init__(
        self,
        *,
        letters: str = MCQConfig.letters,
        max_options: int | None = MCQConfig.max_options,
        max_chars: int = MCQConfig.max_chars,
        lowercase: bool = MCQConfig.lowercase,
        match_option_text: bool = MCQConfig.match_option_text,
    ) -> None:
        self.config = MCQConfig(letters, max_options, max_chars, lowercase, match_option_text)

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        options = self._options(context)
        valid = self.config.letters[: len(options) if options else self.config.default_options]
        reader = ChoiceReader(valid, options, self.config)
        gold = self._gold(reference, reader)
        if gold is None:
            return Verdict.fail(INVALID_REFERENCE, reference=str(reference)[:200], valid_letters=valid)
        text = answer_text(completion, self.config.max_chars)
        candidates = find_candidates(text, reader) or [c for c in [final_line(text, reader)] if c]
        if not candidates:
            return Verdict.fail(NO_ANSWER, gold=gold)
        cluster = final_answer(candidates, text)
        return self.compare([ch for cand in cluster for ch in cand.choices], gold, valid, cluster[-1].source)

    @staticmethod
    def compare(choices: Sequence[Choice], gold: str, valid: str, source: str) -> Verdict:
        letters = list(dict.fromkeys(c for choice in choices for c in choice.letter))
        details: dict[str, Any] = {"gold": gold, "letters": letters, "source": source, "valid_letters": valid}
        extracted = ",".join(letters)
        if len(letters) > 1:
            return Verdict.fail(HEDGED, extracted, **details)
        mismatched = [c for c in choices if c.attached is not None and c.attached != c.letter]
        if mismatched:
            details["attached_text_names"] = mismatched[0].attached
            return Verdict.fail(OPTION_MISMATCH, extracted, **details)
        if letters[0] not in valid:
            return Verdict.fail(INVALID_OPTION, extracted, **details)
        correct = letters[0] == gold
        return Verdict(1.0 if correct else 0.0, correct, OK, extracted, details)

    def _options(self, context: Mapping[str, Any]) -> list[str]:
        raw = context.get("options", context.get("choices"))
        if raw is None:
            return []
        if isinstance(raw, Mapping):
            raw = [raw[k] for k in sorted(raw)]
        if isinstance(raw, (str, bytes)) or not isinstance(raw, Sequence):
            raise VerifierError(f"mcq: options must be a list of option texts, got {type(raw).__name__}")
        if len(raw) > len(self.config.letters):
            raise VerifierError(
                f"mcq: {len(raw)} options but only {len(self.config.letters)} letters ({self.config.letters})"
            )
        return [str(o) for o in raw]

    def _gold(self, reference: Any, reader: ChoiceReader) -> str | None:
        """The gold letter from a letter, a 0-based index (int or numpy integer) or an option's text."""
        if hasattr(reference, "__index__") and not isinstance(reference, bool):
            index = operator.index(reference)
            return reader.valid[index] if 0 <= index < len(reader.valid) else None
        if not isinstance(reference, str):
            return None
        m = re.fullmatch(r"\s*[(\[]?([A-Za-z])[)\].]?\s*", reference)
        if m:
            letter = m.group(1).upper()
            return letter if letter in reader.valid else None
        choices, _ = reader.read(reference, whole=True)
        letters = {c.letter for c in choices}
        if len(letters) != 1:
            return None
        letter = letters.pop()
        return letter if len(letter) == 1 and letter in reader.valid else None
