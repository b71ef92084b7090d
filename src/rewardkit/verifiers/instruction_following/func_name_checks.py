"""open-instruct's older single-constraint rows (allenai/RLVR-IFeval): ``ground_truth`` is JSON such as
``{"func_name": "verify_keywords", "keyword_list": ["tea"], "N": null, ...}``, one constraint a row.

Their functions count differently from IFEval's: exact counts (``verify_keyword_frequency``,
``verify_letter_frequency``), quantifiers ``at least`` / ``at most`` / ``around`` (within 10%, at least 1),
whitespace-separated words, paragraphs divided by ``* * *``. Each is registered as ``func_name:<name>`` and
checked as the function's own docstring describes it; where it lets an empty title (``<<>>``) or an empty
highlight (``**``) pass, ours does not.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rewardkit.verifiers.instruction_following.registry import INT, QUANTIFIER, TEXT, WORDS, check, quantified
from rewardkit.verifiers.instruction_following.text import bracketed_spans, detect_language, split_sentences

Args = Mapping[str, Any]
PREFIX = "func_name:"


@check(PREFIX + "verify_keywords", keyword_list=WORDS)
def keywords(response: str, args: Args) -> bool:
    text = response.lower()
    return all(k.lower() in text for k in args["keyword_list"])


@check(PREFIX + "verify_keyword_frequency", word=TEXT, N=INT)
def keyword_frequency(response: str, args: Args) -> bool:
    word = args["word"].strip().lower()
    return sum(1 for w in re.findall(r"\b\w+\b", response.lower()) if w == word) == int(args["N"])


@check(PREFIX + "validate_forbidden_words", forbidden_words=WORDS)
def forbidden_words(response: str, args: Args) -> bool:
    text = response.lower()
    return not any(w.lower() in text for w in args["forbidden_words"])


@check(PREFIX + "verify_letter_frequency", letter=TEXT, N=INT)
def letter_frequency(response: str, args: Args) -> bool:
    """Case-sensitive, exactly N times."""
    return len(args["letter"]) == 1 and response.count(args["letter"]) == int(args["N"])


@check(PREFIX + "validate_response_language", language=TEXT)
def response_language(response: str, args: Args) -> bool:
    found = detect_language(response)
    return found is None or found == args["language"].strip().lower()


@check(PREFIX + "verify_paragraph_count", N=INT)
def paragraph_count(response: str, args: Args) -> bool:
    text = "\n".join(line.strip() for line in response.splitlines()).strip()
    parts = text.split("* * *")
    return all(p.strip() for p in parts) and len(parts) == int(args["N"])


@check(PREFIX + "validate_word_constraint", N=INT, quantifier=QUANTIFIER)
def word_constraint(response: str, args: Args) -> bool:
    return quantified(len(response.split()), args["quantifier"], int(args["N"]))


@check(PREFIX + "verify_sentence_constraint", N=INT, quantifier=QUANTIFIER)
def sentence_constraint(response: str, args: Args) -> bool:
    return quantified(len(split_sentences(response)), args["quantifier"], int(args["N"]), around=1)


@check(PREFIX + "validate_paragraphs", N=INT, first_word=TEXT, i=INT)
def paragraphs(response: str, args: Args) -> bool:
    """Exactly N pieces between blank lines; the i-th (from 1) starts with the word (case as given)."""
    parts = response.strip().split("\n\n")
    i = args["i"]
    return len(parts) == int(args["N"]) and 1 <= i <= len(parts) and parts[i - 1].strip().startswith(args["first_word"])


@check(PREFIX + "verify_postscript", postscript_marker=TEXT)
def postscript(response: str, args: Args) -> bool:
    """The marker, with something after it."""
    marker = args["postscript_marker"].strip()
    at = response.find(marker)
    return at >= 0 and len(response[at:].strip()) > len(marker)


@check(PREFIX + "validate_placeholders", N=INT)
def placeholders(response: str, args: Args) -> bool:
    return len(bracketed_spans(response)) >= int(args["N"])


@check(PREFIX + "verify_bullet_points", N=INT)
def bullet_points(response: str, args: Args) -> bool:
    return sum(1 for line in response.split("\n") if line.strip().startswith(("*", "-"))) == int(args["N"])


@check(PREFIX + "validate_title")
def title(response: str, args: Args) -> bool:
    return any(t.strip() for t in bracketed_spans(response, "<<", ">>"))


@check(PREFIX + "validate_choice", options=WORDS)
def choice(response: str, args: Args) -> bool:
    return any(option in response for option in args["options"])


@check(PREFIX + "validate_highlighted_sections", N=INT)
def highlighted_sections(response: str, args: Args) -> bool:
    return sum(1 for h in re.findall(r"\*(.*?)\*", response) if h.strip()) >= int(args["N"])


@check(PREFIX + "validate_sections", N=INT, section_splitter=TEXT)
def sections(response: str, args: Args) -> bool:
    headers = re.findall(re.escape(args["section_splitter"].strip()) + r"\s?\d+", response, re.IGNORECASE)
    return len(headers) >= int(args["N"])


@check(PREFIX + "validate_json_format")
def json_format(response: str, args: Args) -> bool:
    try:
        json.loads(response)
    except ValueError:
        return False
    return True


@check(PREFIX + "validate_repeat_prompt", original_prompt=TEXT, prompt_arg="original_prompt")
def repeat_prompt(response: str, args: Args) -> bool:
    return response.strip().startswith(args["original_prompt"].strip())


@check(PREFIX + "validate_two_responses")
def two_responses(response: str, args: Args) -> bool:
    parts = response.split("******")
    return len(parts) == 2 and parts[0].strip() != parts[1].strip()


@check(PREFIX + "validate_uppercase")
def uppercase(response: str, args: Args) -> bool:
    return response == response.upper()


@check(PREFIX + "validate_lowercase")
def lowercase(response: str, args: Args) -> bool:
    return response == response.lower()


@check(PREFIX + "validate_frequency_capital_words", N=INT, quantifier=QUANTIFIER)
def frequency_capital_words(response: str, args: Args) -> bool:
    return quantified(len(re.findall(r"\b[A-Z]+\b", response)), args["quantifier"], int(args["N"]))


@check(PREFIX + "validate_end", end_phrase=TEXT)
def end(response: str, args: Args) -> bool:
    return response.strip().endswith(args["end_phrase"].strip())


@check(PREFIX + "validate_quotation")
def quotation(response: str, args: Args) -> bool:
    body = response.strip()
    return len(body) > 1 and body.startswith('"') and body.endswith('"')


@check(PREFIX + "validate_no_commas")
def no_commas(response: str, args: Args) -> bool:
    return "," not in response
