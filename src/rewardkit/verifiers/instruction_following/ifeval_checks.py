"""The 25 instructions of IFEval (Zhou et al., 2023), checked as its paper and data define them.

Each check reads the response as given; the verifier applies IFEval's loose variants around them.
Keywords and phrases from the row are matched literally (IFEval's reference reads them as regular
expressions, which only differs for a keyword holding ``*``, ``+``, ``(`` and the like).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rewardkit.verifiers.instruction_following.registry import INT, LETTER, RELATION, TEXT, WORDS, check, compare
from rewardkit.verifiers.instruction_following.text import (
    bracketed_spans,
    count_capital_words,
    count_sentences,
    count_words,
    detect_language,
)

Args = Mapping[str, Any]

CONSTRAINED_ANSWERS = ("My answer is yes.", "My answer is no.", "My answer is maybe.")


# ---------------------------------------------------------------------------------------------- keywords


@check("keywords:existence", keywords=WORDS)
def has_keywords(response: str, args: Args) -> bool:
    return all(re.search(re.escape(k), response, re.IGNORECASE) for k in args["keywords"])


@check("keywords:frequency", keyword=TEXT, frequency=INT, relation=RELATION)
def keyword_frequency(response: str, args: Args) -> bool:
    found = len(re.findall(re.escape(args["keyword"].strip()), response, re.IGNORECASE))
    return compare(found, args["relation"], args["frequency"])


@check("keywords:forbidden_words", forbidden_words=WORDS)
def no_forbidden_words(response: str, args: Args) -> bool:
    return not any(re.search(rf"\b{re.escape(w)}\b", response, re.IGNORECASE) for w in args["forbidden_words"])


@check("keywords:letter_frequency", letter=LETTER, let_frequency=INT, let_relation=RELATION)
def letter_frequency(response: str, args: Args) -> bool:
    return compare(response.lower().count(args["letter"]), args["let_relation"], args["let_frequency"])


# ------------------------------------------------------------------------------------ language and case


def _is_language(response: str, code: str) -> bool:
    found = detect_language(response)
    return found is None or found == code  # nothing to detect from (digits, symbols): IFEval counts it followed


@check("language:response_language", language=TEXT)
def response_language(response: str, args: Args) -> bool:
    return _is_language(response, args["language"].strip().lower())


@check("change_case:english_capital")
def english_capital(response: str, args: Args) -> bool:
    return response.isupper() and _is_language(response, "en")


@check("change_case:english_lowercase")
def english_lowercase(response: str, args: Args) -> bool:
    return response.islower() and _is_language(response, "en")


@check("change_case:capital_word_frequency", capital_frequency=INT, capital_relation=RELATION)
def capital_word_frequency(response: str, args: Args) -> bool:
    return compare(count_capital_words(response), args["capital_relation"], args["capital_frequency"])


@check("punctuation:no_comma")
def no_comma(response: str, args: Args) -> bool:
    return "," not in response


# ------------------------------------------------------------------------------------------------ length


@check("length_constraints:number_sentences", num_sentences=INT, relation=RELATION)
def number_sentences(response: str, args: Args) -> bool:
    return compare(count_sentences(response), args["relation"], args["num_sentences"])


@check("length_constraints:number_words", num_words=INT, relation=RELATION)
def number_words(response: str, args: Args) -> bool:
    return compare(count_words(response), args["relation"], args["num_words"])


@check("length_constraints:number_paragraphs", num_paragraphs=INT)
def number_paragraphs(response: str, args: Args) -> bool:
    """Paragraphs divided by ``***``; an empty paragraph between two dividers breaks the rule."""
    parts = [p.strip() for p in re.split(r"\s?\*\*\*\s?", response)]
    if any(not p for p in parts[1:-1]):
        return False
    return sum(1 for p in parts if p) == int(args["num_paragraphs"])


@check("length_constraints:nth_paragraph_first_word", num_paragraphs=INT, nth_paragraph=INT, first_word=TEXT)
def nth_paragraph_first_word(response: str, args: Args) -> bool:
    """Paragraphs divided by a blank line (``\\n\\n``): their count, and the first word of the nth one."""
    parts = response.split("\n\n")
    count = sum(1 for p in parts if p.strip())
    nth = args["nth_paragraph"]
    if not 1 <= nth <= count or not parts[nth - 1].strip():
        return False  # IFEval numbers the pieces between the dividers, blank ones included
    word = parts[nth - 1].split()[0].lstrip("'\"")
    first = re.split(r"[.,?!'\"]", word, maxsplit=1)[0].lower()
    return count == int(args["num_paragraphs"]) and first == args["first_word"].strip().lower()


# ----------------------------------------------------------------------------------------------- content


@check("detectable_content:number_placeholders", num_placeholders=INT)
def number_placeholders(response: str, args: Args) -> bool:
    return len(bracketed_spans(response)) >= int(args["num_placeholders"])


@check("detectable_content:postscript", postscript_marker=TEXT)
def postscript(response: str, args: Args) -> bool:
    """A line holding the marker (any case); ``P.S.`` and ``P.P.S`` also match with a space after a dot."""
    marker = args["postscript_marker"].strip()
    if marker == "P.P.S":
        pattern = r"p\.\s?p\.\s?s"
    elif marker == "P.S.":
        pattern = r"p\.\s?s\."
    else:
        pattern = re.escape(marker.lower())
    return re.search(pattern, response.lower()) is not None


# ------------------------------------------------------------------------------------------------ format


@check("detectable_format:number_bullet_lists", num_bullets=INT)
def number_bullet_lists(response: str, args: Args) -> bool:
    """Markdown bullets: lines starting with ``* `` (not ``**``) or ``-``; exactly that many."""
    bullets = 0
    for line in response.split("\n"):
        line = line.lstrip()
        if line.startswith("-") or (len(line) > 1 and line[0] == "*" and line[1] != "*"):
            bullets += 1
    return bullets == int(args["num_bullets"])


@check("detectable_format:constrained_response")
def constrained_response(response: str, args: Args) -> bool:
    return any(option in response for option in CONSTRAINED_ANSWERS)


@check("detectable_format:number_highlighted_sections", num_highlights=INT)
def number_highlighted_sections(response: str, args: Args) -> bool:
    """Highlights ``*like this*`` or ``**like this**`` on one line, not empty."""
    single = [h for h in re.findall(r"\*[^\n*]*\*", response) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n*]*\*\*", response) if h[2:-2].strip()]
    return len(single) + len(double) >= int(args["num_highlights"])


@check("detectable_format:multiple_sections", section_spliter=TEXT, num_sections=INT)
def multiple_sections(response: str, args: Args) -> bool:
    """Sections opened by the splitter word and a number (``SECTION 1``), case as given; at least that many."""
    opened = re.findall(re.escape(args["section_spliter"].strip()) + r"\s?\d+", response)
    return len(opened) >= int(args["num_sections"])


@check("detectable_format:json_format")
def json_format(response: str, args: Args) -> bool:
    body = response.strip()
    for fence in ("```json", "```Json", "```JSON", "```"):
        if body.startswith(fence):
            body = body[len(fence) :]
            break
    body = body.removesuffix("```").strip()
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


@check("detectable_format:title")
def title(response: str, args: Args) -> bool:
    """A line holding ``<<...>>`` with text inside (from its first ``<<`` to its last ``>>``)."""
    for line in response.split("\n"):
        start, end = line.find("<<"), line.rfind(">>")
        if 0 <= start and start + 2 < end and line[start : end + 2].strip("<>").strip():
            return True
    return False


# ----------------------------------------------------------------------------------------- combinations


@check("combination:two_responses")
def two_responses(response: str, args: Args) -> bool:
    """Two different answers divided by ``******`` (nothing empty between dividers)."""
    parts = response.split("******")
    if any(not p.strip() for p in parts[1:-1]):
        return False
    answers = [p.strip() for p in parts if p.strip()]
    return len(answers) == 2 and answers[0] != answers[1]


@check("combination:repeat_prompt", prompt_to_repeat=TEXT, prompt_arg="prompt_to_repeat")
def repeat_prompt(response: str, args: Args) -> bool:
    return response.strip().lower().startswith(args["prompt_to_repeat"].strip().lower())


@check("startend:end_checker", end_phrase=TEXT)
def end_checker(response: str, args: Args) -> bool:
    return response.strip().strip('"').lower().endswith(args["end_phrase"].strip().lower())


@check("startend:quotation")
def quotation(response: str, args: Args) -> bool:
    body = response.strip()
    return len(body) > 1 and body[0] == '"' and body[-1] == '"'
