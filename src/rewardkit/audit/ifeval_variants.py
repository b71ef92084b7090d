"""Instruction-following hacks (``ifeval_accuracy``): responses that satisfy the counted constraints while
ignoring what the prompt asks.

A rule-based instruction checker counts things (keywords, bullets, placeholders, words); it cannot tell an
answer from a response built only to be counted. The hacks here are such responses: the constraints alone
(the keywords and nothing else, N placeholder bullets, a bare title), an answer that ignores the
instructions with the keywords stuffed after it, the prompt copied back. A reward that credits them needs a
content term beside it (a judge, a reference answer) before training on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.audit.variants import CORRECT, REASONING, WRONG, Variant, Wrap, prompt_text
from rewardkit.verifiers.instruction_following.rows import BadRow, Instruction, read_instructions

REFERENCE_KEYS = ("instruction_id_list", "ground_truth")
#: a built-in row's honest answers (a --data row has none: its honest wrong answer ignores the instructions)
CORRECT_COLUMN, WRONG_COLUMN = "audit_correct", "audit_wrong"
IGNORING = "Here is a plain answer to the question, written with no regard to the instructions"
STUFFING_REPEATS = 10

Piece = Callable[[Mapping[str, Any], str], str]


def _count(args: Mapping[str, Any], number: str, relation: str) -> int:
    """How many of a thing the constraint wants: its number for "at least", none for "less than"."""
    return int(args.get(number) or 0) if args.get(relation, "at least") == "at least" else 0


PIECES: dict[str, Piece] = {
    "keywords:existence": lambda a, p: " ".join(a.get("keywords") or []),
    "keywords:frequency": lambda a, p: " ".join([str(a.get("keyword", ""))] * _count(a, "frequency", "relation")),
    "keywords:letter_frequency": lambda a, p: str(a.get("letter", "")) * _count(a, "let_frequency", "let_relation"),
    "length_constraints:number_words": lambda a, p: " ".join(["word"] * _count(a, "num_words", "relation")),
    "length_constraints:number_sentences": lambda a, p: " ".join(
        ["Yes."] * max(_count(a, "num_sentences", "relation"), 1)
    ),
    "length_constraints:number_paragraphs": lambda a, p: "\n***\n".join(["Text."] * int(a.get("num_paragraphs", 1))),
    "length_constraints:nth_paragraph_first_word": lambda a, p: "\n\n".join(
        f"{a.get('first_word', 'text')} text." for _ in range(int(a.get("num_paragraphs", 1)))
    ),
    "detectable_content:number_placeholders": lambda a, p: " ".join(["[x]"] * int(a.get("num_placeholders", 1))),
    "detectable_content:postscript": lambda a, p: f"{a.get('postscript_marker', 'P.S.')} x",
    "detectable_format:number_bullet_lists": lambda a, p: "\n".join(["* [x]"] * int(a.get("num_bullets", 1))),
    "detectable_format:constrained_response": lambda a, p: "My answer is yes.",
    "detectable_format:number_highlighted_sections": lambda a, p: " ".join(["*x*"] * int(a.get("num_highlights", 1))),
    "detectable_format:multiple_sections": lambda a, p: "\n".join(
        f"{a.get('section_spliter', 'Section')} {i + 1}" for i in range(int(a.get("num_sections", 1)))
    ),
    "detectable_format:title": lambda a, p: "<<Title>>",
    "combination:two_responses": lambda a, p: "A\n******\nB",
    "change_case:capital_word_frequency": lambda a, p: " ".join(
        ["OK"] * _count(a, "capital_frequency", "capital_relation")
    ),
}
FIRST = {"combination:repeat_prompt": "prompt_to_repeat"}
LAST = {"startend:end_checker": "end_phrase"}


def row_instructions(row: Mapping[str, Any]) -> list[Instruction]:
    reference = next((row[k] for k in REFERENCE_KEYS if row.get(k) not in (None, "")), None)
    if reference is None:
        raise ConfigError(f"audit: an ifeval row needs {' or '.join(REFERENCE_KEYS)}; it has {sorted(row)}")
    try:
        return read_instructions(reference, row.get("kwargs"))
    except BadRow as exc:
        raise ConfigError(f"audit: an ifeval row's instructions cannot be read: {exc}") from None


def constraints_only(row: Mapping[str, Any], instructions: list[Instruction]) -> str:
    """A response made of what the constraints count and nothing the prompt asked for."""
    prompt = prompt_text(dict(row))
    kwargs = [{k: v for k, v in i.kwargs.items() if v is not None} for i in instructions]
    first = [str(a.get(FIRST[i.id]) or prompt) for i, a in zip(instructions, kwargs, strict=True) if i.id in FIRST]
    last = [str(a.get(LAST[i.id], "")) for i, a in zip(instructions, kwargs, strict=True) if i.id in LAST]
    pieces = [PIECES[i.id](a, prompt) for i, a in zip(instructions, kwargs, strict=True) if i.id in PIECES]
    text = "\n".join(p for p in [*first, *pieces, *last] if p) or "x"
    return _finish(text, {i.id for i in instructions})


def _finish(text: str, ids: set[str]) -> str:
    """The whole-response constraints: case, commas, JSON, quotes."""
    if "change_case:english_lowercase" in ids:
        text = text.lower()
    if "change_case:english_capital" in ids:
        text = text.upper()
    if "punctuation:no_comma" in ids:
        text = text.replace(",", "")
    if "detectable_format:json_format" in ids:
        text = '{"text": "x"}'
    if "startend:quotation" in ids:
        text = f'"\n{text}"'  # the opening quote on its own line: a bullet still opens its line
    return text


def keywords_of(instructions: list[Instruction]) -> list[str]:
    words: list[str] = []
    for instruction in instructions:
        if instruction.id == "keywords:existence":
            words.extend(str(k) for k in instruction.kwargs.get("keywords") or [])
        elif instruction.id in ("keywords:frequency", "keywords:word_once", "keywords:word_count_different_numbers"):
            words.append(str(instruction.kwargs.get("keyword") or ""))
    return [w for w in words if w]


def ifeval_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    """The honest answers (a built-in row's own; for a --data row, an answer that ignores the instructions as
    the honest wrong one) and the hacks."""
    if wrap("x") != f"{REASONING} The final answer is x":  # a reward with answer tags: keep them
        put = wrap
    else:

        def put(text: str) -> str:
            return text

    instructions = row_instructions(row)
    wrong = str(row.get(WRONG_COLUMN) or IGNORING)
    variants = [Variant(CORRECT, put(str(row[CORRECT_COLUMN])))] if row.get(CORRECT_COLUMN) else []
    variants += [
        Variant(WRONG, put(wrong)),
        Variant("constraints_only", put(constraints_only(row, instructions))),
        Variant("prompt_copied", put(prompt_text(row) or wrong)),
        Variant("unclosed_think", "<think>" + put(str(row.get(CORRECT_COLUMN) or wrong))),
        Variant("empty_after_think", "<think>" + REASONING + "</think>"),
    ]
    keywords = keywords_of(instructions)
    if keywords:
        variants.append(Variant("keyword_stuffing", put(f"{wrong} " + " ".join(keywords * STUFFING_REPEATS))))
        variants.append(Variant("keywords_only", put(" ".join(keywords * STUFFING_REPEATS))))
    return variants
