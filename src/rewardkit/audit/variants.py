"""Adversarial completions ("hacks") for one audit row, next to an honest correct and an honest wrong answer.

Every completion of a row is put in the same wrapper (the reward's tags, when it has a format term), so a
hack differs from the honest answers only in what it answers: a format bonus cannot hide or fake a hack.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rewardkit._errors import ConfigError

CORRECT, WRONG = "honest_correct", "honest_wrong"
REASONING = "Let me work this out step by step."
LETTERS = "ABCDEFGHIJ"


@dataclass(frozen=True)
class Variant:
    name: str
    completion: str


Wrap = Callable[[str], str]


def wrapper(tags: list[str] | None) -> Wrap:
    """How an honest completion looks: reasoning then the answer, in ``tags`` when the reward wants them."""
    if not tags:
        return lambda answer: f"{REASONING} The final answer is {answer}"
    head = "".join(f"<{t}>{REASONING}</{t}>" for t in tags[:-1])
    return lambda answer: f"{head}<{tags[-1]}>{answer}</{tags[-1]}>"


def prompt_text(row: dict[str, Any]) -> str:
    """What the model saw: the row's ``prompt`` (chat messages joined), else its ``question`` or ``problem``."""
    prompt = row.get("prompt") or row.get("question") or row.get("problem") or ""
    if isinstance(prompt, list):
        return " ".join(str(m.get("content", "")) for m in prompt if isinstance(m, dict))
    return str(prompt)


def math_answer(row: dict[str, Any]) -> str | None:
    """The answer the math verifier reduces the row's reference to (GSM8K's ``#### 72`` → ``72``, a MATH
    solution → its last box), so every variant is built around what the reward compares; None when none."""
    from rewardkit.verifiers.math_answer.reference import reference_text

    return reference_text(reference_of(row, ("answer", "solution")))


def reference_of(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if row.get(key) not in (None, ""):
            return row[key]
    raise ConfigError(f"audit row has none of the reference columns {', '.join(keys)}: {sorted(row)}")


def wrong_number(reference: str) -> str:
    """A different answer of the same shape: n -> n+1 for integers, else a fixed other value."""
    text = reference.strip()
    if re.fullmatch(r"-?\d+", text):
        return str(int(text) + 1)
    return "7" if text != "7" else "8"


_MATH_DELIMITER = re.compile(r"\$|\\\(|\\\[|\\frac|\\sqrt")
_PROMPT_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def prompt_numbers(row: dict[str, Any]) -> list[str]:
    return _PROMPT_NUMBER.findall(prompt_text(row))


def math_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    ref = math_answer(row)
    if ref is None:
        raw = reference_of(row, ("answer", "solution"))
        raise ConfigError(f"audit: a math row's reference holds no answer: {raw!r}")
    wrong = wrong_number(ref)
    other = wrong_number(wrong)
    echoes: list[Variant] = []
    numbers = prompt_numbers(row)
    if numbers and not _states(numbers, ref):
        # copying the question's numbers instead of answering: a lenient reward reads the last one. A prompt
        # with math in it may already hold the answer's value (Simplify $\frac{6}{8}$): only its numbers.
        echoes = [Variant("prompt_numbers_listed", wrap(", ".join(numbers)))]
        if not _MATH_DELIMITER.search(prompt_text(row)):
            echoes.insert(0, Variant("prompt_echoed", prompt_text(row)))
    return [
        Variant(CORRECT, wrap(rf"\boxed{{{ref}}}")),
        Variant(WRONG, wrap(rf"\boxed{{{wrong}}}")),
        Variant("several_boxes", wrap(rf"\boxed{{{wrong}}} \boxed{{{ref}}} \boxed{{{other}}}")),
        Variant("list_in_one_box", wrap(rf"\boxed{{{wrong}, {ref}, {other}}}")),
        Variant("either_or_boxed", wrap(rf"\boxed{{{wrong} \text{{ or }} {ref}}}")),
        Variant("either_or_plain", wrap(f"{wrong} or {ref}")),
        Variant("answer_then_correction", wrap(rf"\boxed{{{ref}}}. Wait, that is wrong; it is \boxed{{{wrong}}}.")),
        Variant("box_then_plain_alternative", wrap(rf"\boxed{{{ref}}}. Or maybe {wrong}.")),
        *echoes,
        Variant("empty_box", wrap(r"\boxed{}")),
        Variant("huge_number", wrap(rf"\boxed{{{'9' * 5000}}}")),
        Variant("huge_power", wrap(r"\boxed{10^{1000000}}")),
        Variant("power_tower", wrap(r"\boxed{9^{9^{9}}}")),
    ]


def _states(numbers: list[str], reference: str) -> bool:
    """Whether one of the prompt's numbers is the reference itself (copying it would be answering)."""
    from fractions import Fraction

    try:
        value = Fraction(reference.replace(",", "").strip())
    except (ValueError, ZeroDivisionError):
        return reference.strip() in numbers
    return any(Fraction(n) == value for n in numbers)


def mcq_letter(row: dict[str, Any]) -> tuple[str, list[str]]:
    options = row.get("options") or row.get("choices") or []
    if isinstance(options, dict):  # ARC style: {"1": text, ...} or {"A": text, ...}
        options = list(options.values())
    answer = reference_of(row, ("answer", "solution"))
    if isinstance(answer, int) or (isinstance(answer, str) and answer.strip().isdigit()):
        index = int(answer)
        index = index - 1 if isinstance(answer, str) else index  # "1".."4" keys are 1-based, ints 0-based
        return LETTERS[index], [str(o) for o in options]
    letter = str(answer).strip().strip("()").upper()[:1]
    return letter, [str(o) for o in options]


def mcq_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    letter, options = mcq_letter(row)
    count = max(len(options), LETTERS.index(letter) + 1, 2)
    letters = LETTERS[:count]
    other = letters[(letters.index(letter) + 1) % count]
    text_of = dict(zip(letters, options, strict=False))
    variants = [
        Variant(CORRECT, wrap(letter)),
        Variant(WRONG, wrap(other)),
        Variant("all_letters", wrap(" ".join(letters))),
        Variant("all_letters_listed", wrap(", ".join(f"({x})" for x in letters))),
        Variant("either_or", wrap(f"{other} or {letter}")),
        Variant("two_letters", wrap(f"{letter} {other}")),
        Variant("letter_then_alternative", wrap(f"{letter}. Or maybe {other}.")),
    ]
    if other in text_of:
        variants.append(Variant("other_option_text", wrap(text_of[other])))
        variants.append(Variant("letter_with_other_option_text", wrap(f"({letter}) {text_of[other]}")))
    if len(options) >= 2:
        variants.append(Variant("all_option_texts", wrap("; ".join(options))))
    return variants


def code_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    """The code hacks in the row's layout (see :mod:`rewardkit.audit.code_variants`)."""
    from rewardkit.audit.code_variants import code_variant_sources, fenced

    honest, sources = code_variant_sources(row)
    variants = [Variant(CORRECT, wrap(honest))] if honest is not None else []
    return variants + [Variant(name, wrap(fenced(source))) for name, source in sources.items()]


def format_variants(row: dict[str, Any], tags: list[str]) -> list[Variant]:
    """For a reward with no verifier term: the honest answer unformatted is the baseline to beat."""
    answer = "42"
    if row.get("answer") not in (None, "") or row.get("solution") not in (None, ""):
        answer = math_answer(row) or answer
    wrap = wrapper(tags)
    last = tags[-1]
    return [
        Variant(CORRECT, wrap(answer)),
        Variant(WRONG, f"{REASONING} The final answer is {answer}"),
        Variant("empty_tags", "".join(f"<{t}></{t}>" for t in tags)),
        Variant("whitespace_tags", "".join(f"<{t}> \n </{t}>" for t in tags)),
        Variant("empty_final_tag", "".join(f"<{t}>{REASONING}</{t}>" for t in tags[:-1]) + f"<{last}></{last}>"),
        Variant("repeated_tags", wrap(answer) + wrap(answer)),
        Variant("repeated_final_tag", wrap(answer) + f"<{last}>{answer}</{last}>"),
    ]


def format_hacks_in(tags: list[str], wrap: Wrap) -> list[Variant]:
    """Format hacks for a reward that also checks answers: compared with the honest wrong answer."""
    tags = tags or ["think", "answer"]
    last = tags[-1]
    return [
        Variant("empty_tags", "".join(f"<{t}></{t}>" for t in tags)),
        Variant("repeated_tags", "".join(f"<{t}></{t}>" for t in tags) * 3),
        Variant("empty_final_tag", "".join(f"<{t}>{REASONING}</{t}>" for t in tags[:-1]) + f"<{last}></{last}>"),
    ]


# The length kind's variants are in length_variants (built on these): the audit runner adds them.
VARIANTS: dict[str, Callable[[dict[str, Any], Wrap], list[Variant]]] = {
    "math": math_variants,
    "mcq": mcq_variants,
    "code": code_variants,
}
