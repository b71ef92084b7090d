"""Counting in a response: words, sentences, capitalised words, paragraphs, and its language.

Words are runs of word characters (``\\w+``, as IFEval counts them). Sentences follow our own rule (IFEval
uses NLTK's Punkt model, whose data we do not ship): a sentence ends at ``.``, ``!`` or ``?`` (a run of them
counts once, closing quotes and brackets may follow) when whitespace or the end of the text comes next,
except after a known abbreviation (``Mr.``, ``e.g.``, ``etc.``, ...), a capital initial (``J.``, ``U.S.``) or
a list number at the start of a line (``1.``). Line breaks alone do not end a sentence; words after the last
end mark are a sentence of their own, symbols alone (an emoji) join the last sentence.
"""

from __future__ import annotations

import re
import threading
from typing import Any

WORD = re.compile(r"\w+")
# A word as a tokenizer of English prose keeps it for counting capitals: hyphenated words are one word,
# a contraction ("DON'T") splits at its apostrophe.
CASED_WORD = re.compile(r"\w+(?:-\w+)*")

ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st vs etc e.g i.e eg ie a.m p.m inc ltd co corp fig approx dept est no vol ca cf al "
    "jan feb mar apr jun jul aug sep sept oct nov dec mt ave blvd gen col lt sgt capt rev".split()
)
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s|$)")


def count_words(text: str) -> int:
    return len(WORD.findall(text))


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` by the rule in this module's docstring (blank pieces dropped)."""
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(text):
        if match.group().startswith(".") and not match.group().startswith("..") and _not_an_end(text, match.start()):
            continue
        piece = text[start : match.end()].strip()
        if piece:
            sentences.append(piece)
        start = match.end()
    tail = text[start:].strip()
    if WORD.search(tail):
        sentences.append(tail)
    elif tail and sentences:  # symbols after the last sentence (an emoji, a closing mark) belong to it
        sentences[-1] = f"{sentences[-1]} {tail}"
    return sentences


def _not_an_end(text: str, dot: int) -> bool:
    """Whether the period at ``dot`` closes an abbreviation, an initial or a list number."""
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in "(\"'[":
        word_start -= 1
    word = text[word_start:dot]
    if not word:
        return False
    if word.lower() in ABBREVIATIONS:
        return True
    letters = word.replace(".", "")
    if letters.isalpha() and letters.isupper() and len(letters) <= 3 and all(len(p) == 1 for p in word.split(".")):
        return True  # "J." or "U.S."
    if word.isdigit() and len(word) <= 3:  # "1." opening a line is a list number
        line_start = text.rfind("\n", 0, word_start) + 1
        return not text[line_start:word_start].strip(" \t")
    return False


def bracketed_spans(text: str, opener: str = "[", closer: str = "]") -> list[str]:
    """The ``[...]`` spans of each line, in one pass: an opener starts a span, the next closer on its line
    ends it (what the regex ``\\[.*?\\]`` finds, without its quadratic retries on a line of unclosed ``[``)."""
    spans = []
    for line in text.split("\n"):
        at = line.find(opener)
        while at >= 0:
            end = line.find(closer, at + len(opener))
            if end < 0:
                break
            spans.append(line[at + len(opener) : end])
            at = line.find(opener, end + len(closer))
    return spans


def count_sentences(text: str) -> int:
    return len(split_sentences(text))


def count_capital_words(text: str) -> int:
    """Words written all in capitals (``NASA``, ``COVID-19``, the ``I`` of "I am")."""
    return sum(1 for word in CASED_WORD.findall(text) if word.isupper())


# ------------------------------------------------------------------------------------------- language

LANGDETECT_MISSING = "language checks need langdetect: pip install 'rewardkit[ifeval]'"
_factory: Any = None
_factory_lock = threading.Lock()


class LanguageUnavailable(RuntimeError):
    """A library a check needs (langdetect, emoji, syllapy: the ``ifeval`` extra) is not installed: a row
    with that check cannot be judged."""


def needs(module: str) -> Any:
    """The module, imported; :class:`LanguageUnavailable` with the install hint when it is absent."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise LanguageUnavailable(f"this check needs {module}: pip install 'rewardkit[ifeval]'") from None


def _detector_factory() -> Any:
    global _factory
    with _factory_lock:
        if _factory is None:
            try:
                from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
            except ImportError:
                raise LanguageUnavailable(LANGDETECT_MISSING) from None
            factory = DetectorFactory()
            factory.load_profile(PROFILES_DIRECTORY)
            factory.seed = 0  # langdetect samples at random: a fixed seed gives one answer per text
            _factory = factory
    return _factory


def detect_language(text: str) -> str | None:
    """The ISO 639-1 code langdetect gives ``text``; None when the text has nothing to detect from."""
    detector = _detector_factory().create()  # first: a missing langdetect says how to install it
    from langdetect.lang_detect_exception import LangDetectException

    try:
        detector.append(text)
        return str(detector.detect())
    except LangDetectException:
        return None
