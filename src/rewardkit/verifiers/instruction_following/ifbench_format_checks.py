"""IFBench's out-of-distribution instructions on form (nesting, lists, lines, templates), repetition and its
fixed tasks (``custom:*``: CSV tables, reversed text, sorted lists, dated lists).

Where IFBench's check misses its own instruction, ours follows the instruction: ``format:sub-bullets``
needs at least one bullet, ``format:no_bullets_bullets`` skips blank lines, ``format:thesis`` reads an
``<em>`` thesis whole and ``custom:date_format_list`` wants real months and days.
"""

from __future__ import annotations

import csv
import io
import re
import string
import unicodedata
from collections.abc import Mapping
from typing import Any

from rewardkit.verifiers.instruction_following.ifbench_checks import PUNCTUATION
from rewardkit.verifiers.instruction_following.registry import INT, TEXT, check
from rewardkit.verifiers.instruction_following.text import split_sentences

Args = Mapping[str, Any]
OPENERS, CLOSERS = "([{", ")]}"
REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."
EUROPEAN_CAPITALS_BY_LATITUDE = (
    "Reykjavik Helsinki Oslo Tallinn Stockholm Riga Moscow Copenhagen Vilnius Minsk Dublin Berlin Amsterdam Warsaw "
    "London Brussels Prague Luxembourg Paris Vienna Bratislava Budapest Vaduz Chisinau Bern Ljubljana Zagreb"
).split()
MULTIPLES_OF_SEVEN = [str(n) for n in range(14, 51, 7)]


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")


# ------------------------------------------------------------------------------------------------ nesting


@check("format:parentheses")
def nested_brackets(response: str, args: Args) -> bool:
    """Brackets ``( [ {`` nested at least five deep, closed properly (a wrong closer starts over)."""
    stack: list[str] = []
    deepest = 0
    for char in response:
        if char in OPENERS:
            stack.append(char)
            deepest = max(deepest, len(stack))
        elif char in CLOSERS:
            if stack and OPENERS.index(stack[-1]) == CLOSERS.index(char):
                stack.pop()
                if deepest >= 5:
                    return True
            else:
                stack, deepest = [], 0
    return False


@check("format:quotes")
def nested_quotes(response: str, args: Args) -> bool:
    """Quotes within quotes at least three deep, double and single alternating."""
    stack: list[str] = []
    deepest = 0
    for char in response:
        if stack and char == stack[-1]:
            stack.pop()
            if deepest - len(stack) >= 3:
                return True
        elif char in "\"'":
            stack.append(char)
            deepest = max(deepest, len(stack))
    return False


@check("format:quote_unquote")
def quote_then_explanation(response: str, args: Args) -> bool:
    """No quoted phrase is followed directly by another quote or by the end of the text."""
    text = "".join(response.replace("“", '"').replace("”", '"').replace("'\"'", "").split())
    if '""' in text:
        return False
    tail = text.strip(string.digits + PUNCTUATION.replace('"', ""))
    return not tail.endswith('"')


# -------------------------------------------------------------------------------------------------- lines


@check("format:newline")
def word_per_line(response: str, args: Args) -> bool:
    text = response.translate(str.maketrans("", "", PUNCTUATION)).strip()
    lines = [line for line in text.split("\n") if line]
    return len(lines) == len(text.split())


@check("format:line_indent")
def indent_stairs(response: str, args: Args) -> bool:
    """Each non-blank line indented by more spaces than the one before."""
    indents = [len(line) - len(line.lstrip(" ")) for line in response.split("\n") if line.strip()]
    return all(b > a for a, b in zip(indents, indents[1:], strict=False))


@check("format:no_whitespace")
def no_whitespace(response: str, args: Args) -> bool:
    return not any(char.isspace() for char in response)


@check("format:title_case")
def title_case(response: str, args: Args) -> bool:
    """Every word capitalised (all-capital words such as ``NASA`` allowed; ``Japan's`` is one word)."""
    for word in re.findall(r"\w+(?:['’]\w+)*", response):
        if not word[0].isalpha():
            continue
        if word[0].islower():
            return False
    return True


# -------------------------------------------------------------------------------------- lists and layout


@check("format:list", sep=TEXT)
def special_bullets(response: str, args: Args) -> bool:
    return response.count(str(args["sep"])) >= 2


@check("format:sub-bullets")
def sub_bullets(response: str, args: Args) -> bool:
    """Bullets ``*``, each followed by at least one ``-`` sub-bullet."""
    pieces = response.split("*")
    return len(pieces) > 1 and all("-" in piece for piece in pieces[1:])


@check("format:no_bullets_bullets")
def sentences_then_bullets(response: str, args: Args) -> bool:
    """At least two sentences, then at least two ``*`` bullets and nothing after them."""
    sentences = bullets = 0
    for line in (line.strip() for line in response.split("\n")):
        if not line:
            continue
        if line.startswith("*"):
            if sentences < 2:
                return False
            bullets += 1
        elif bullets:
            return False
        else:
            sentences += len(split_sentences(line))
    return bullets >= 2


@check("format:thesis")
def italic_thesis(response: str, args: Args) -> bool:
    """A thesis in HTML italics (``<i>`` or ``<em>``) with text after it."""
    for tag in ("i", "em"):
        start = response.find(f"<{tag}>")
        end = response.find(f"</{tag}>", start)
        if start >= 0 and end >= 0:
            thesis, after = response[start + len(tag) + 2 : end], response[end + len(tag) + 3 :]
            return bool(thesis.strip()) and bool(after.strip())
    return False


@check("format:output_template")
def output_template(response: str, args: Args) -> bool:
    return all(label in response for label in ("My Answer:", "My Conclusion:", "Future Outlook:"))


@check("format:options", options=TEXT)
def options_response(response: str, args: Args) -> bool:
    """Exactly one of the options (letter options ``a), b), ...`` as written; text options ignoring case and
    punctuation). The options are split at ``/``, else ``or``, else ``,``."""
    text = str(args["options"])
    strict = re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", text) is not None
    separator = "/" if "/" in text else "or" if "or" in text else ","
    options = [o.strip() for o in text.split(separator)]
    if strict:
        return response in options
    answer = response.strip(PUNCTUATION + " ").lower()
    return any(o.strip(PUNCTUATION + " ").lower() == answer for o in options)


# ----------------------------------------------------------------------------------------------- repeating


@check("repeat:repeat_simple")
def repeat_simple(response: str, args: Args) -> bool:
    return response.strip().lower() == REPEAT_SIMPLE.lower()


@check("repeat:repeat_span", prompt_to_repeat=TEXT, n_start=INT, n_end=INT)
def repeat_span(response: str, args: Args) -> bool:
    """The prompt's characters ``n_start`` to ``n_end``, both included."""
    span = str(args["prompt_to_repeat"])[int(args["n_start"]) : int(args["n_end"]) + 1]
    return response.strip().lower() == span.strip().lower()


@check("repeat:repeat_change", prompt_to_repeat=TEXT)
def repeat_change(response: str, args: Args) -> bool:
    """The prompt repeated with its first word changed."""
    prompt = str(args["prompt_to_repeat"])
    return response != prompt and prompt.split()[1:] == response.split()[1:]


# ------------------------------------------------------------------------------------------- fixed tasks


@check("custom:multiples")
def multiples_of_seven(response: str, args: Args) -> bool:
    """From 10 to 50, the multiples of 7 and no other number."""
    return re.findall(r"\d+", response.replace(",", ", ")) == MULTIPLES_OF_SEVEN


@check("custom:mcq_count_length")
def growing_questions(response: str, args: Args) -> bool:
    """Four questions labelled "Question", five options each, each question longer than the one before."""
    if not response.startswith("Question"):
        return False
    questions = [q.strip() for q in re.split(r"\n*Question \d+[.|):;]?\s*", response) if q.strip()]
    if len(questions) != 4:
        return False
    lengths = []
    for question in questions:
        text, options = "", 0
        for line in question.split("\n"):
            if re.match(r"^[A-Ea-e][.|)]\s*\w+", line.strip()):
                options += 1
            elif not options:
                text += " " + line.strip()
        if options != 5:
            return False
        lengths.append(len(text.strip()))
    return all(a < b for a, b in zip(lengths, lengths[1:], strict=False))


@check("custom:reverse_newline")
def reverse_alphabetical_lines(response: str, args: Args) -> bool:
    """From the line naming Zimbabwe on, at least 52 lines in reverse alphabetical order."""
    lines = [_ascii(line.strip(PUNCTUATION + " ")) for line in response.split("\n")]
    lines = [line for line in lines if line]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    return lines[start:] == sorted(lines[start:], reverse=True)


@check("custom:word_reverse")
def words_reversed(response: str, args: Args) -> bool:
    words = response.lower().translate(str.maketrans("", "", PUNCTUATION)).split()
    return "bald eagle" in " ".join(reversed(words))


@check("custom:character_reverse")
def characters_reversed(response: str, args: Args) -> bool:
    return "elgae dlab" in response.lower()


@check("custom:sentence_alphabet")
def sentence_alphabet(response: str, args: Args) -> bool:
    sentences = split_sentences(response)
    firsts = [s.split()[0].lower()[:1] if s.split() else "" for s in sentences]
    return len(sentences) == 26 and firsts == list(string.ascii_lowercase)


@check("custom:european_capitals_sort")
def european_capitals(response: str, args: Args) -> bool:
    capitals = [c.strip() for c in _ascii(response).split(",") if c.strip()]
    return capitals == EUROPEAN_CAPITALS_BY_LATITUDE


def _csv(text: str, delimiter: str = ",") -> list[list[str]]:
    return list(csv.reader(io.StringIO(text.strip()), delimiter=delimiter))


@check("custom:csv_city")
def csv_city(response: str, args: Args) -> bool:
    rows = _csv(response)
    header = ["ID", "Country", "City", "Year", "Count"]
    return len(rows) == 8 and rows[0] == header and all(len(r) == 5 for r in rows[1:])


@check("custom:csv_special_character")
def csv_special_character(response: str, args: Args) -> bool:
    """14 rows under ProductID, Category, Brand, Price, Stock; one quoted field holds a special character."""
    rows = [[f.strip() for f in r] for r in _csv(response)]
    header = ["ProductID", "Category", "Brand", "Price", "Stock"]
    if len(rows) != 15 or rows[0] != header or any(len(r) != 5 for r in rows[1:]):
        return False
    return re.search(r'"[^"\n]*[^\w\s"][^"\n]*"', response.split("\n", 1)[-1]) is not None


@check("custom:csv_quotes")
def csv_quotes(response: str, args: Args) -> bool:
    """A header and 3 rows, tab-separated, every field in double quotes."""
    lines = [line for line in response.strip().split("\n") if line.strip()]
    fields = [line.split("\t") for line in lines]
    header = ["StudentID", "Subject", "Grade", "Semester", "Score"]
    if len(fields) != 4 or [f.strip().strip('"') for f in fields[0]] != header:
        return False
    return all(
        len(r) == 5 and all(len(f.strip()) > 1 and f.strip()[0] == f.strip()[-1] == '"' for f in r) for r in fields
    )


@check("custom:date_format_list")
def napoleon_dates(response: str, args: Args) -> bool:
    """Comma-separated dates YYYY-MM-DD between 1769 and 1821."""
    days = {1: 31, 2: 29, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}
    for date in response.strip().split(","):
        match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", date.strip())
        if match is None:
            return False
        year, month, day = (int(g) for g in match.groups())
        if not 1769 <= year <= 1821 or month not in days or not 1 <= day <= days[month]:
            return False
    return True
