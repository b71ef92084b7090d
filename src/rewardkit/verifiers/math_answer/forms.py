"""Surface forms of an answer that never change its value: delimiters, spacing, currency, units, labels
(``x =``, ``(p,q) =``, ``2 = x``), degree signs, ``\\pm``, set braces, plain-text notation (``sqrt(3)``).

Every rewrite here is a regex without nested quantifiers or a single pass over the text.
"""

from __future__ import annotations

import re

_DELIMS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
_INNER_DELIMS = re.compile(r"(?<!\\)\$+|(?<!\\)\\[()\[\]]")
# ``\,`` and friends are spacing, but the ``\ `` of a ``\\ `` row break is not: its backslash is escaped.
_SPACING = re.compile(r"(?<!\\)\\[,;:! ]|\\(?:displaystyle|left|right|big|Big|bigl|bigr)\b|\s+")
_OVERESCAPED = re.compile(r"\\\\(?=[a-zA-Z])")  # ``\\\\frac`` written for ``\\frac``; a row break is ``\\\\ ``
_TEXT_NUMBER = re.compile(r"\\(?:text|textrm|mbox|mathrm)\s*\{\s*([-+]?\d[^{}]*)\}")  # \text{6 cm} → 6 cm
_GROUPED_NUMBER = re.compile(r"^([-+]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?)(?![\d,])(.*)$")
_DOUBLE_PARENS = re.compile(r"\(\s*\(([^()]*)\)\s*\)")
_MAX_COLLAPSE = 20_000
_DEGREES = re.compile(r"\^\s*\{?\\circ\}?|°|\\degree\b")
_DEGREE_VALUE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:\^\s*\{?\\circ\}?|°|\\degree\b)")
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)\b|\b(?:sin|cos|tan)\(")
_WORD_SEPARATORS = re.compile(
    r"\\(?:text|textrm|mbox|mathrm)\s*\{\s*,?\s*(or|and)\s*\}|\\quad|\\qquad|\s+(?:or|and)\s+|,\s*(?:or|and)\s+"
    r"|(?<=[)\]])\s*(?:or|and)\s*(?=[(\[])",
    re.IGNORECASE,
)
_GREEK = r"\\(?:alpha|beta|gamma|delta|epsilon|varepsilon|theta|lambda|mu|sigma|phi|varphi|omega|rho|tau|psi)"
_NAME = rf"(?:[A-Za-z]|{_GREEK})(?:_\{{?[\w,]+\}}?|_\w|')*"
_LABEL = re.compile(
    rf"^(?:{_NAME}(?:\s*\([^()=]*\))?|\(\s*{_NAME}(?:\s*,\s*{_NAME})*\s*\)|\|\s*[A-Za-z]+\s*\||"
    rf"\\frac\{{[A-Za-z]+\}}\{{[A-Za-z]+\}}|{_NAME}(?:\s*:\s*{_NAME})+|\\(?:text|mathrm)\{{[^{{}}]*\}}|"
    rf"m?\\angle\s*[A-Za-z]+|\\overline\{{[A-Za-z]+\}}|[A-Z]{{2,3}})$"
)
_EQUALS = re.compile(r"(?<![<>!:=\\])=(?!=)")
_PRICE = re.compile(r"^\s*\\\$\s*([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s*$")  # \$0.75: a unit a cent can convert
_APPROX = re.compile(r"\\approx|≈|\\in\b")
_UNIT_WORDS = re.compile(
    r"^(?P<value>.*?[\d}])\s*(?:\\(?:text|textnormal|mbox|mathrm|textbf|textit|rm)\s*\{\s*(?P<wrapped>[^{}]*)\}"
    r"|(?P<plain>[A-Za-z]{2,}(?:/[A-Za-z]+)?(?:\s+[A-Za-z]{2,}){0,2}))(?:\s*\^\s*\{?[23]\}?|²|³)?\.?$"
)
_MAX_UNIT_VALUE = 200  # a number with a unit is short; the lazy match would be quadratic on a long value
_ONE_LETTER_UNIT = re.compile(r"^(?P<value>.*?[\d}])\s*(?P<plain>[A-Za-z])(?:\s*\^\s*\{?[23]\}?|²|³)?\.?$")
_NOT_UNITS = frozenset(
    {"or", "and", "pi", "sqrt", "mod", "times", "cdot", "frac", "infty", "le", "ge", "percent", "percentage", "pct"}
)
_PLAIN_SQRT = re.compile(r"(?<![\\a-zA-Z])sqrt\s*\(([^()]*)\)")
_PLAIN_POWER = re.compile(r"\*\*\s*\(([^()]*)\)|\*\*")
_PLAIN_PI = re.compile(r"(?<![\\a-zA-Z])pi(?![a-zA-Z])")
_ROOT_SIGN = re.compile(r"([√∛∜])\s*(?:\(([^()]*)\)|\{([^{}]*)\}|(\d+(?:\.\d+)?|[A-Za-z]))")
_PLAIN_CBRT = re.compile(r"(?<![\\a-zA-Z])cbrt\s*\(([^()]*)\)")
_UNICODE_SIGNS = str.maketrans(
    {
        "π": "\\pi ",
        "²": "^{2}",
        "³": "^{3}",
        "⁴": "^{4}",
        "×": "\\times ",
        "·": "\\cdot ",
        "÷": "/",
        "∞": "\\infty ",
        "≤": "\\le ",
        "≥": "\\ge ",
        "≠": "\\ne ",
        "∅": "\\emptyset ",
    }
)
_IMAGINARY = re.compile(r"(?<![\\a-zA-Z_])i(?![a-zA-Z])")
_INDEX_USE = re.compile(r"_\{?i\b|\\sum|\\prod|\bi\s*=")


def strip_math_mode(text: str) -> str:
    """Math-mode delimiters ($$, $, \\(, \\[) stripped from both ends until none is left, then a final dot."""
    text = text.strip()
    changed = True
    while changed:
        changed = False
        for left, right in _DELIMS:
            if text.startswith(left) and text.endswith(right) and len(text) >= len(left) + len(right):
                text = text[len(left) : len(text) - len(right)].strip()
                changed = True
    return text.rstrip(".").strip()


def normalize(text: str) -> str:
    """Surface clean-up that never changes the value: delimiters, spacing, currency, degree signs, ``{,}``."""
    text = strip_math_mode(_OVERESCAPED.sub(r"\\", text).replace("−", "-"))
    text = re.sub(r"\\!\s*", "", _INNER_DELIMS.sub(" ", text))
    text = _PRICE.sub(r"\1 \\text{ dollars}", text).replace("\\$", "").replace("{,}", "")
    text = text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac").replace("\\cfrac", "\\frac")
    text = _TEXT_NUMBER.sub(r"\1", text.replace("\\varnothing", "\\emptyset"))
    if _TRIG.search(text):
        text = _DEGREE_VALUE.sub(r"(\1\\pi/180)", text)  # sin(90° - x) is cos x; not sin(90 - x)
    text = _DEGREES.sub("", text)
    text = _SPACING.sub(" ", text).strip()
    return _collapse_parentheses(text).rstrip(".").strip()


def _collapse_parentheses(text: str) -> str:
    """``((((1))))`` → ``(1)``: redundant nesting only costs the parser time (300 levels take seconds)."""
    if len(text) > _MAX_COLLAPSE:
        return text
    while "((" in text:
        collapsed = _DOUBLE_PARENS.sub(r"(\1)", text)
        if collapsed == text:
            break
        text = collapsed
    return text


def rows(text: str) -> tuple[str, list[str]] | None:
    """A value written as rows outside a matrix environment (``(12 \\\\ 3)``): its brackets and rows."""
    if "\\\\" not in text or "\\begin" in text:
        return None
    brackets = ""
    if text[:1] in "([" and text[-1:] in ")]":
        brackets, text = text[0] + text[-1], text[1:-1]
    return brackets, [r.strip() for r in text.split("\\\\")]


def top_level_split(text: str, separators: str = ",;") -> list[str]:
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and text.startswith(("\\{", "\\}"), i):
            depth += 1 if text[i + 1] == "{" else -1
            i += 2
            continue
        if ch == "\\" and text.startswith("\\\\", i):
            i += 2
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch in separators and depth == 0:
            parts.append(text[start:i])
            start = i + 1
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _unwrap_set(text: str) -> str:
    """``\\{1, 2\\}`` or ``{1, 2}`` → ``1, 2`` when the braces enclose the whole text."""
    for left, right in (("\\{", "\\}"), ("{", "}")):
        if text.startswith(left) and text.endswith(right) and len(top_level_split(text)) == 1:
            inner = text[len(left) : len(text) - len(right)]
            if inner.count("{") == inner.count("}") and (left == "\\{" or top_level_split(inner) != [inner]):
                return inner
    return text


def value_of(text: str) -> str:
    """The value a labelled answer states: ``x = 3`` → ``3``, ``(p,q)=(3,2)`` → ``(3,2)``, ``2 = x`` → ``2``,
    ``x = 1+2 = 3`` → ``3``, ``x \\approx 11`` → ``11``; an equation between expressions stays whole."""
    parts = [p.strip() for p in _EQUALS.split(text)]
    if len(parts) >= 2 and all(parts):
        if is_label(parts[0]) or len(parts) > 2:
            text = parts[-1]
        elif is_label(parts[1]):
            text = parts[0]
    approx = _APPROX.split(text, maxsplit=1)
    if len(approx) == 2:
        left, right = approx[0].strip(), approx[1].strip()
        text = right if is_label(left) or not left else left
    return text.strip()


def is_label(text: str) -> bool:
    return bool(_LABEL.match(text.strip()))


def is_relation(text: str) -> bool:
    """An equation or inequality between expressions (``2x+4y=3``), not a labelled value."""
    return bool(_EQUALS.search(text) or re.search(r"[<>]|\\[lg]eq?\b|\\neq?\b|\\[lg]t\b", text))


def split_units(text: str) -> tuple[str, str | None]:
    """``10 weeks``, ``15\\mbox{ cm}^2``, ``125\\text{ miles}``, ``5 m`` → the number and the unit as written
    (with its power); anything else unchanged, with no unit. One letter is a unit only when it names one."""
    if len(text) > _MAX_UNIT_VALUE:
        return text, None
    match = _UNIT_WORDS.match(text)
    one_letter = False
    if not match:
        match = _ONE_LETTER_UNIT.match(text)
        one_letter = True
    if not match:
        return text, None
    groups = match.groupdict()
    wrapped = groups.get("wrapped")
    words = (wrapped or groups.get("plain") or "").strip()
    if not words or not re.fullmatch(r"[a-zA-Z][a-zA-Z ./]*", words) or words.lower() in _NOT_UNITS:
        return text, None
    from rewardkit.verifiers.math_answer.units import unit_of

    unit = words + text[match.end("wrapped") + 1 if wrapped is not None else match.end("plain") :]
    unit = unit.strip().rstrip(".").strip()
    if one_letter and unit_of(unit) is None:
        return text, None  # "2x" is not two of anything
    return match.group("value").strip(), unit


def expand_pm(value: str) -> list[str]:
    """``1 \\pm \\sqrt{2}`` → both values; ``\\pm 3`` → ``3`` and ``-3``."""
    for sign in ("\\pm", "\\mp", "±"):
        if value.count(sign) == 1:
            head, tail = value.split(sign)
            plus, minus = ("+", "-") if sign != "\\mp" else ("-", "+")
            return [f"{head}{plus}{tail}".strip().lstrip("+").strip(), f"{head}{minus}{tail}".strip()]
    return [value]


def split_values(text: str) -> list[str]:
    """The separate values an answer or reference states, ``\\pm`` expanded. Labels stay (``x=1``): the
    comparison removes them, and an equation between expressions needs its whole. Assignments to different
    names in one of several ``;``-separated groups (``p=5,q=2; p=7,q=2``) are one tuple each."""
    text = normalize(text)
    grouped = _GROUPED_NUMBER.match(text)
    if grouped and "," not in grouped.group(2):  # 1,080 or 1,080 dollars: one number
        return [grouped.group(1).replace(",", "") + grouped.group(2)]
    text = _unwrap_set(_WORD_SEPARATORS.sub(",", text).strip(", "))
    values: list[str] = []
    groups = top_level_split(text, ";")
    for group in groups:
        parts = [strip_math_mode(p) for p in top_level_split(group)]
        names = [_EQUALS.split(p, maxsplit=1)[0].strip() for p in parts]
        if (
            len(groups) > 1
            and len(parts) > 1
            and all(_EQUALS.search(p) and is_label(n) for p, n in zip(parts, names, strict=False))
            and len(set(names)) == len(names)
        ):
            parts = ["(" + ", ".join(value_of(p) for p in parts) + ")"]
        for part in parts:
            values.extend(v for v in expand_pm(part) if v)
    return values


def assignments_tuple(values: list[str]) -> str | None:
    """``x=2``, ``y=3`` (different names) → ``(2, 3)``: an ordered pair written as assignments, else None."""
    if len(values) < 2:
        return None
    sides = [[p.strip() for p in _EQUALS.split(v)] for v in values]
    names = [side[0] for side in sides]
    if any(len(side) != 2 or not side[1] or not is_label(side[0]) for side in sides) or len(set(names)) < len(names):
        return None
    return "(" + ", ".join(side[1] for side in sides) + ")"


def is_tuple(text: str) -> bool:
    return text[:1] == "(" and text[-1:] == ")" and len(top_level_split(text[1:-1])) > 1


def decimal_comma_reading(text: str) -> str | None:
    """``1,22`` or ``0,111`` (also ``3,75 euros``) may be a decimal written with a comma: its other reading,
    else None."""
    value, unit = split_units(text.strip())
    match = re.fullmatch(r"\s*\$?\s*([-+]?\d+),(\d+)\s*\$?\s*", value)
    if not match or (len(match.group(2)) == 3 and match.group(1).lstrip("+-")[:1] not in ("0", "")):
        return None
    return f"{match.group(1)}.{match.group(2)}" + (f" {unit}" if unit else "")


def for_sympy(text: str) -> str:
    """Plain-text and Unicode notation as LaTeX: ``sqrt(3)`` and ``√3`` → ``\\sqrt{3}``, ``∛x`` → ``\\sqrt[3]{x}``,
    ``2**(1/4)`` → ``2^{1/4}``, ``pi`` and ``π`` → ``\\pi``, ``x²`` → ``x^{2}``, ``×`` → ``\\times``."""
    if "√" in text or "∛" in text or "∜" in text:
        text = _ROOT_SIGN.sub(_root, text)
    text = _PLAIN_CBRT.sub(r"\\sqrt[3]{\1}", _PLAIN_SQRT.sub(r"\\sqrt{\1}", text))
    text = _PLAIN_POWER.sub(lambda m: f"^{{{m.group(1)}}}" if m.group(1) is not None else "^", text)
    return _PLAIN_PI.sub(r"\\pi", text.translate(_UNICODE_SIGNS)).strip()


def _root(match: re.Match[str]) -> str:
    radicand = next(g for g in match.groups()[1:] if g is not None)
    index = {"√": "", "∛": "[3]", "∜": "[4]"}[match.group(1)]
    return f"\\sqrt{index}{{{radicand}}}"


def imaginary_unit(gold: str, answer: str) -> tuple[str, str]:
    """When either side writes the imaginary unit ``i`` (``1+2i``, ``i(2-i)``), write it so on both sides
    that math-verify reads it as such (it reads ``2i`` as a product with a real symbol ``i``)."""
    if not (_IMAGINARY.search(gold) or _IMAGINARY.search(answer)) or _INDEX_USE.search(gold + answer):
        return gold, answer
    return tuple(_IMAGINARY.sub("(I)", t) for t in (gold, answer))  # type: ignore[return-value]


def plain_text(text: str) -> str:
    previous = None
    wrap = re.compile(r"\\(?:text|textbf|mathrm|mathbf|textrm|mbox|operatorname|textnormal)\s*\{([^{}]*)\}")
    while previous != text:
        previous = text
        text = wrap.sub(r"\1", text)
    return re.sub(r"[\s{}\\$.]", "", text).lower()
