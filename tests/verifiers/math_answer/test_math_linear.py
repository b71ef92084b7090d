"""Extraction runs on the caller's thread before any time limit applies, so it must be linear in the text.

Each adversarial shape is read at 256 KB and at 1 MB: a linear scan costs about 4x more on the larger text, a
quadratic one 16x. The bound is on the ratio of the two (best of two runs each), not on absolute times.
"""

from __future__ import annotations

import time

import pytest

from rewardkit.verifiers.math_answer.extract import extract_answer
from rewardkit.verifiers.math_answer.reference import reference_text
from rewardkit.verifiers.math_answer.verifier import _trivially_equal

MB = 1 << 20

# shape -> the answer lenient extraction reads from 1 MB of it followed by " So the answer is 7."
SHAPES = {
    "newlines": "\n",
    "spaces and newlines": " \n",
    "answer fragments": "\n**answer ",
    "dollar runs": "$",
    "open boxes": "\\boxed{",
    "digit-comma runs": "1,",
    "#### runs": "####",
    "Answer: runs": "Answer: ",
    "answer tags": "<answer> ",
    "quotes": '"',
    "sentence starts": ". answer",
    "root signs and pi": "2√2*π/",
    "plain-text powers": "x^2**",
    "checks": "Check: 1 = 1. ",
    "branches": "If 1, then 2; ",
    "retractions": "Wait, no: 3. ",
    "mixed numbers and units": "2 3/4 cups 1.5 hours ",
    "CJK answers": "答案是１。",
    "repeating decimals": "0.333... ",
}


def _cost(text: str) -> float:
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        extract_answer(text)
        extract_answer(text, "strict")
        reference_text(text)
        _trivially_equal(text[: MB // 4], text[: MB // 4])
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("unit", SHAPES.values(), ids=SHAPES.keys())
def test_extraction_is_linear_on_adversarial_text(unit: str) -> None:
    small = unit * (MB // 4 // len(unit))
    large = unit * (MB // len(unit))
    ratio = _cost(large) / max(_cost(small), 1e-3)
    assert ratio < 8, f"4x the text cost {ratio:.1f}x the time: a scan is superlinear"
    found = extract_answer(large + " So the answer is 7.")
    assert found is not None and found.text == "7"


@pytest.mark.parametrize("unit", ["\n", " \n", "\n answer", "\n\t*answer"])
def test_statement_pattern_does_not_cross_lines(unit: str) -> None:
    # the statement marker reads spaces and tabs only: "answer" on the next line after blank lines still counts
    assert extract_answer(unit * 50 + "\nAnswer: 12").text == "12"
    assert extract_answer("Thus.\n\n\n   Answer: 5").text == "5"


@pytest.mark.slow
@pytest.mark.parametrize("unit", [". wait,", ", no, ", "\n\t\t", " actually"])
def test_correction_scan_after_the_answer_is_linear(unit: str) -> None:
    def cost(n: int) -> float:
        text = r"\boxed{3}" + unit * (n // len(unit))
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            found = extract_answer(text)
            best = min(best, time.perf_counter() - start)
        assert found is not None and found.text == "3" and found.retracted is None
        return best

    assert cost(MB) / max(cost(MB // 4), 1e-3) < 8
