"""Program extraction: the line scanner finds what the old fence regex found, in linear time."""

from __future__ import annotations

import random
import re
import sys

import pytest

from rewardkit.verifiers.code_tests import extract as code_extract
from rewardkit.verifiers.code_tests.extract import extract_program

_OLD_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
_OLD_TAGS = frozenset({"python", "py", "python3", "py3"})


def old_extract_program(text: str) -> str:
    """The regex extraction this module replaced (quadratic on many unclosed fences): the oracle."""
    blocks = [(m.group(2).strip().lower().split(" ")[0], m.group(3)) for m in _OLD_FENCE.finditer(text)]
    python_blocks = [body for tag, body in blocks if tag in _OLD_TAGS]
    if python_blocks:
        return python_blocks[-1]
    if blocks:
        return blocks[-1][1]
    unclosed = re.search(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n", text, re.MULTILINE)
    if unclosed is not None:
        return text[unclosed.end() :]
    return text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\n```python\nx = 1\n```\nb\n```py\nx = 2\n```\nc", "x = 2\n"),
        ("```python\nx = 1\n```\n```\nplain\n```", "x = 1\n"),
        ("```js\nalert(1)\n```\n```\nprint(3)\n```", "print(3)\n"),
        ("  ```Python3 title=a.py\nx = 1\n  ```  \n", "x = 1\n"),
        ("````python\n```\ninner\n```\n````\n", "```\ninner\n```\n"),
        ("~~~python\nx = 1\n~~~\n", "x = 1\n"),
        ("~~~~python\nx = 1\n~~~\n", "x = 1\n"),  # no 4-tilde closer: it opens as '~~~' + info '~python'
        ("~~~~python\nx = 1\n~~~\n```py\ny = 2\n```\n", "y = 2\n"),  # ... whose tag is not python
        ("```python\n```\n", ""),
        ("```python `x`\nx = 1\n```\n", ""),  # a backtick in the info: no opener; the bare ``` opens, unclosed
        ("```python\r\nx = 1\r\n```\r\n", "x = 1\r\n```\r\n"),  # '```\r' does not close: as before
        ("Here:\n```python\ndef f():\n    return 1\n", "def f():\n    return 1\n"),
        ("``` \n", ""),
        ("```", "```"),
        ("", ""),
        ("no fences at all\n", "no fences at all\n"),
    ],
)
def test_extraction_table(text: str, expected: str) -> None:
    assert old_extract_program(text) == expected
    assert extract_program(text) == expected


_PIECES = [
    "```",
    "````",
    "`````",
    "``",
    "~~~",
    "~~~~",
    "~~~~~",
    "~~",
    "`",
    "~",
    " ",
    "\t",
    "\n",
    "\n",
    "\n",
    "\r\n",
    "\r",
    "python",
    "py",
    "Python3",
    "js",
    "x = 1",
    "print(2)",
    " title",
]


def test_the_scanner_agrees_with_the_old_regex_on_random_fence_soup() -> None:
    rng = random.Random(20261130)
    for _ in range(6000):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randrange(1, 40)))
        assert extract_program(text) == old_extract_program(text), repr(text)


def _junk_line(rng: random.Random) -> str:
    """A line that opens a fence (or looks like one) but that nothing in the junk ever closes."""
    kind = rng.randrange(6)
    if kind == 0:
        return "`" * rng.randrange(4, 60) + rng.choice(["python", "py", "", " js"]) + "x"
    if kind == 1:
        return "~" * rng.randrange(3, 60) + rng.choice([" py", "python", "x"])
    if kind == 2:
        return " \t" + "`" * rng.randrange(4, 30) + "\r"  # CR: not a closer, and an opener of info '\r'
    if kind == 3:
        return "`" * rng.randrange(3, 9) + "python `nested` info"  # a backtick in the info: never opens
    if kind == 4:
        return "~" * rng.randrange(4, 40) + "\r"
    return rng.choice(["def f(x):", "    return 2 * x", "``", "~~", "`inline`"])


def _adversarial(size: int, seed: int) -> str:
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        line = _junk_line(rng)
        lines.append(line)
        total += len(line) + rng.choice([1, 2])
    text = ""
    for line in lines:
        text += line + rng.choice(["\n", "\r\n"])
    return text


ANSWER = "```python\ndef f(x):\n    return 2 * x + 1\n```\n"


def test_the_adversarial_generator_agrees_with_the_old_regex_where_it_is_affordable() -> None:
    for seed in range(4):
        junk = _adversarial(3000, seed)
        assert extract_program(junk) == old_extract_program(junk)
        assert (
            extract_program(junk + ANSWER) == old_extract_program(junk + ANSWER) == "def f(x):\n    return 2 * x + 1\n"
        )


@pytest.mark.timeout(120)  # a watchdog, not a measurement: the old regex took tens of minutes here
def test_a_megabyte_of_unclosed_fences_is_extracted_correctly() -> None:
    junk = _adversarial(1 << 20, 7)
    assert len(junk) >= 1 << 20
    assert extract_program(junk + ANSWER) == "def f(x):\n    return 2 * x + 1\n"
    first_opener = next(i for i, line in enumerate(junk.split("\n")) if re.match(r"[ \t]*(`{3,}|~{3,})[^`]*$", line))
    assert extract_program(junk) == "\n".join(junk.split("\n")[first_opener + 1 :])


@pytest.mark.timeout(120)
def test_a_megabyte_of_repeated_openers_and_long_runs_is_extracted_correctly() -> None:
    openers = "```python\n" * 100_000
    assert extract_program(openers) == openers[len("```python\n") :]
    closed = openers + "x = 1\n```\n"  # the first opener pairs with the only closer
    assert extract_program(closed) == openers[len("```python\n") :] + "x = 1\n"
    long_line = "~" * 500_000 + "x" * 500_000 + "`\n" + ANSWER  # one line the old regex backtracked over
    assert extract_program(long_line) == "def f(x):\n    return 2 * x + 1\n"

    def tildes(top: int) -> str:  # ~1 MB of pure runs at top=1400: each run n pairs with the run n-1 below it
        return "".join("~" * k + "\n" for k in range(top, 2, -1)) + "~~~python\nx = 2\n~~~\n"

    assert old_extract_program(tildes(60)) == extract_program(tildes(60)) == "x = 2\n"
    assert extract_program(tildes(1400)) == "x = 2\n"
    # an odd number of runs leaves the last '~~~' unpaired: it opens a block that swallows the python one
    assert old_extract_program(tildes(61)) == extract_program(tildes(1401)) == "~~~python\nx = 2\n"


def _traced_lines(text: str) -> int:
    """Python lines executed inside code_extract for one extraction: the work, independent of CPU speed."""
    count = 0
    source = code_extract.__file__

    def tracer(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if frame.f_code.co_filename != source:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        extract_program(text)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize(
    "make",
    [
        lambda n: _adversarial(n, 3),
        lambda n: "```python\n" * (n // 10),
        lambda n: "".join("~" * k + "\n" for k in range(3, int((2 * n) ** 0.5))) + "~~~x\n" * (n // 5),
    ],
    ids=["junk", "same-opener", "tilde-runs"],
)
def test_work_grows_linearly_with_the_completion(make) -> None:  # type: ignore[no-untyped-def]
    small, large = make(20_000), make(80_000)
    ratio = _traced_lines(large) / _traced_lines(small)
    size_ratio = len(large) / len(small)
    assert ratio < 1.5 * size_ratio, (ratio, size_ratio)  # quadratic work would give ~size_ratio ** 2
