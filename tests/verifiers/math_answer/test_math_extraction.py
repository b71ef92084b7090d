"""Math answer extraction: lenient by default (the last math or number when nothing marks the answer),
``extraction="strict"`` for boxes/statements/tags only, statements reduced to their value, hedges from every
source, the rule that found the answer in ``details["source"]``, linear time on adversarial text."""

from __future__ import annotations

import json
import time

import pytest

import rewardkit as rk
from rewardkit.verifiers.math_answer.extract import extract_answer


@pytest.fixture(scope="module")
def lenient():
    with rk.get_verifier("math", workers=2) as verifier:
        yield verifier


@pytest.fixture(scope="module")
def strict():
    with rk.get_verifier("math", workers=1, extraction="strict") as verifier:
        yield verifier


# (name, completion, expected values, expected source) — what the lenient extractor reads
LENIENT_READS = [
    ("inline dollars without a box", r"Solving gives $x = \frac{7}{3}$.", ("x = \\frac{7}{3}",), "last_math"),
    ("inline parentheses", r"The area is \( 12\pi \) square units", ("12\\pi",), "last_math"),
    ("display brackets over lines", "Hence\n\\[\n  \\sqrt{5} - 1\n\\]\n", ("\\sqrt{5} - 1",), "last_math"),
    ("display dollars", "so $$\\frac{9}{2}$$", ("\\frac{9}{2}",), "last_math"),
    ("an answer word then inline math", "Answer $ 14 $", ("14",), "last_math"),
    ("an unboxed inequality in a sentence", r"Hence $y \leq -3$ is the range.", ("y \\leq -3",), "last_math"),
    ("bare latex fraction", r"-\frac{4}{15}", ("-\\frac{4}{15}",), "last_math"),
    ("plain number in prose, its unit kept", "In total she walks 17 miles.", ("17 miles",), "last_number"),
    ("negative number, its unit kept", "The temperature fell to -8 degrees", ("-8 degrees",), "last_number"),
    ("thousands separators", "The population grew to 3,204,512 people", ("3204512",), "last_number"),
    ("thousands with spaces", "about 12 500 tickets", ("12500",), "last_number"),
    ("currency before", "Each share cost $1,337.25 in the end", ("1337.25",), "last_number"),
    ("currency after", "the bill came to 88.40€", ("88.40",), "last_number"),
    ("decimal comma, its unit kept", "Le total est 3,75 euros", ("3,75 euros",), "last_number"),
    ("leading point", "the probability is .35", ("0.35",), "last_number"),
    ("fraction in prose", "so the chance is 5/8.", ("5/8",), "last_number"),
    ("percent sign", "a rise of 12.5%", ("12.5\\%",), "last_number"),
    ("percent word", "a discount of 40 percent", ("40\\%",), "last_number"),
    ("a later number beats an earlier math span", "We had $x=3$ and after doubling we get 6", ("6",), "last_number"),
    ("a later math span beats an earlier number", "After 3 steps we reach $y = 2^{10}$", ("y = 2^{10}",), "last_math"),
    ("several values joined by and", "The solutions are $x=-4$ and $x=9$.", ("x=-4", "x=9"), "last_math"),
    ("a hedge in prose", "It might be 14 or 15.", ("14", "15"), "last_number"),
    ("a negation then the value", "It is not 5, it is 6.", ("6",), "last_number"),
    ("a hedge in math", "Either $a=1$ or $a=6$", ("a=1", "a=6"), "last_math"),
    ("gsm8k marker", "She earns 9 * 8 = 72 dollars.\n#### 72", ("72",), "gsm8k"),
    ("gsm8k marker with thousands", "Total: 1,500 + 250\n#### 1,750", ("1,750",), "gsm8k"),
    ("answer line", "Some work.\nAnswer: 5/6", ("5/6",), "statement"),
    ("statement in prose gives its value", "Final Answer: The smallest such $k$ is 27.", ("27",), "statement"),
    ("statement then a reason", "The answer is 81 because 3^4 = 81.", ("81",), "statement"),
    ("statement with units", "The answer is 18 cm.", ("18 cm",), "statement"),
    (
        "statement in quotes",
        'Final Answer: The final answer is "$4$ and $9$". I hope it is correct.',
        ("4 and 9",),
        "statement",
    ),
    (
        "statement: the sentence's value, not its first number",
        "Final Answer: After 3 moves, the total is 96.",
        ("96",),
        "statement",
    ),
    ("percent after a box", r"The rate is $\boxed{15}$ percent", ("15\\%",), "boxed"),
    ("boxes joined by a short text", r"$\boxed{2}$ \text{ for (a) and } $\boxed{5}$", ("2", "5"), "boxed"),
    ("boxes joined through delimiters", r"\( a = \boxed{3} \) and \( b = \boxed{4} \)", ("3", "4"), "boxed"),
]


@pytest.mark.parametrize("name, completion, values, source", LENIENT_READS, ids=[r[0] for r in LENIENT_READS])
def test_lenient_extraction_reads(name, completion, values, source):
    found = extract_answer(completion)
    assert found is not None, completion
    assert (found.values, found.source) == (values, source)


NOTHING_TO_READ = [
    ("no math at all", "I could not work this one out."),
    ("digits inside a word", "The code is AB7Q."),
    ("a box cut off at the token limit", r"Adding 12 and 30 gives \boxed{4"),
    ("inline math broken over lines", "Answer $\n 9 \n$"),
    ("an empty answer tag after the think block", "<think>maybe 12</think><answer></answer>"),
    ("a negated value", "The answer is not 5."),
    ("a negated math value", "So $x$ cannot be $-2$"),
]


@pytest.mark.parametrize("name, completion", NOTHING_TO_READ, ids=[r[0] for r in NOTHING_TO_READ])
def test_lenient_extraction_finds_nothing(name, completion):
    assert extract_answer(completion) is None


def test_closed_think_block_keeps_its_numbers_out_of_the_fallback():
    assert extract_answer("<think>it is 12</think>I am not sure.") is None
    found = extract_answer("<think>it is 12</think>So it is 13.")
    assert found is not None and found.values == ("13",)


def test_strict_extraction_reads_only_marked_answers():
    for completion in ("So $x = 3$.", "In total 3 apples.", r"\(3\)"):
        assert extract_answer(completion, "strict") is None
    for completion, value in (
        (r"so \boxed{3}", "3"),
        ("The answer is 3.", "3"),
        ("<answer>3</answer>", "3"),
        ("work\n#### 3", "3"),
        ("Final Answer: the count is 3.", "3"),
        ("We are done. Answer: 3", "3"),
    ):
        found = extract_answer(completion, "strict")
        assert found is not None and found.values == (value,), completion


# (name, reference, completion, correct, status) — end to end with default settings
LENIENT_VERDICTS = [
    ("unboxed fraction", r"\frac{7}{3}", r"Solving gives $x = \frac{7}{3}$.", True, "ok"),
    ("unboxed equal fraction", r"\frac{7}{3}", r"So $x = \frac{14}{6}$", True, "ok"),
    ("unboxed wrong value", r"\frac{7}{3}", r"So $x = \frac{7}{4}$", False, "ok"),
    ("prose number", "17", "In total she walks 17 miles.", True, "ok"),
    ("prose currency", "2500", r"The car costs \$2,500 after the discount.", True, "ok"),
    ("prose percent vs plain reference", "12", "The rate went up by 12%.", True, "ok"),
    ("prose inequality", r"x \ge 5", r"Therefore $x \geq 5$ is the solution set.", True, "ok"),
    ("prose inequality wrong way", r"x \ge 5", r"Therefore $x \leq 5$ is the solution set.", False, "ok"),
    ("hedge in prose", "15", "It might be 14 or 15.", False, "hedged"),
    ("hedge in math", "6", "Either $a=1$ or $a=6$", False, "hedged"),
    ("gsm8k completion", "72", "She earns 9 * 8 = 72 dollars.\n#### 72", True, "ok"),
    ("gsm8k completion wrong", "72", "She earns 9 * 7 = 63 dollars.\n#### 63", False, "ok"),
    ("statement sentence", "27", "Final Answer: The smallest such $k$ is 27.", True, "ok"),
    ("statement with a reason", "81", "The answer is 81 because 3^4 = 81.", True, "ok"),
    ("statement with a reason, wrong", "4", "The answer is 81 because 3^4 = 81.", False, "ok"),
    ("gsm8k value with thousands and a unit", "1080", "#### 1,080 dollars", True, "ok"),
    ("statement inside an answer tag", "6", "<answer>The answer is 6 apples</answer>", True, "ok"),
    ("bold statement", "10", "**Answer:** **10**", True, "ok"),
]


@pytest.mark.parametrize(
    "name, reference, completion, correct, status", LENIENT_VERDICTS, ids=[r[0] for r in LENIENT_VERDICTS]
)
def test_lenient_verdicts(lenient, name, reference, completion, correct, status):
    verdict = lenient.verify(completion, reference)
    assert (verdict.correct, verdict.status) == (correct, status), verdict
    assert verdict.score == (1.0 if correct else 0.0)


def test_source_names_the_rule_that_found_the_answer(lenient):
    cases = {
        r"so \boxed{5}": "boxed",
        "The answer is 5.": "statement",
        "<answer>5</answer>": "answer_tag",
        "work\n#### 5": "gsm8k",
        "so $y=5$": "last_math",
        "so 5 apples": "last_number",
    }
    for completion, source in cases.items():
        verdict = lenient.verify(completion, "5")
        assert verdict.correct and verdict.details["source"] == source, (completion, verdict)


def test_strict_extraction_is_a_parameter_and_keeps_todays_rule(strict):
    assert strict.verify("So $x = 3$.", "3").status == "no_answer"
    assert strict.verify(r"so \boxed{3}", "3").correct
    assert strict.verify("The answer is 3 because it is.", "3").correct
    assert "extraction='strict'" in repr(strict)


def test_bad_extraction_mode_is_a_clear_error():
    with pytest.raises(rk.ConfigError, match="extraction must be one of 'lenient', 'strict', got 'loose'"):
        rk.get_verifier("math", extraction="loose")


def test_extraction_mode_in_a_reward_spec():
    reward = rk.build_reward(
        {"combine": "sum", "terms": [{"reward": "math_accuracy", "params": {"extraction": "strict", "workers": 1}}]}
    )
    with reward:
        scores = reward(completions=["so $x=4$", r"so \boxed{4}"], answer=["4", "4"])
    assert list(scores) == [0.0, 1.0]


def test_cli_verify_accepts_extraction_strict():
    from click.testing import CliRunner

    from rewardkit.cli import main

    runner = CliRunner()
    lenient = runner.invoke(main, ["verify", "math", "-r", "3", "So $x = 3$."])
    strict = runner.invoke(main, ["verify", "math", "-r", "3", "-p", "extraction=strict", "So $x = 3$."])
    assert lenient.exit_code == 0 and strict.exit_code == 0, (lenient.output, strict.output)
    assert json.loads(lenient.output)["correct"] is True
    assert json.loads(strict.output)["status"] == "no_answer"


ADVERSARIAL = [
    "$" * 1_000_000,
    "\\(" * 300_000,
    "\\[ 1 " * 200_000,
    "$x$ or " * 150_000,
    "1 or " * 200_000,
    "1," * 500_000,
    "-" * 1_000_000 + "7",
    "\\frac{1}{2}" * 80_000,
    "Final Answer: " * 70_000,
    "#### " * 200_000,
    "9" * 1_000_000,
]


def test_extraction_stays_fast_on_megabyte_inputs():
    # A linear scan handles each input in well under a second; a super-linear one would take minutes.
    start = time.monotonic()
    for text in ADVERSARIAL:
        extract_answer(text)
        extract_answer(text, "strict")
    assert time.monotonic() - start < 60


# --- numbers inside brackets: a tuple, interval or set, never a decimal comma --------------------------------
@pytest.mark.parametrize(
    "completion, value",
    [
        ("(1,2)", "(1,2)"),
        ("The point is (1,2).", "(1,2)"),
        ("[1,2]", "[1,2]"),
        ("So x lies in (1,2].", "(1,2]"),
        (r"The solutions form \{1,2\}.", r"\{1,2\}"),
        ("The interval is [-3, 0.5) here", "[-3, 0.5)"),
        (r"x in (2, \infty)", r"(2, \infty)"),
        ("We get (0,1,5) as the triple", "(0,1,5)"),
    ],
)
def test_last_number_inside_brackets_takes_the_bracket_whole(completion, value):
    found = extract_answer(completion)
    assert found is not None and found.values == (value,) and found.source == "last_number"


@pytest.mark.parametrize(
    "completion, reference, correct",
    [
        ("(1,2)", "(1,2)", True),
        ("The point is (1,2).", "(1,2)", True),
        ("[1,2]", "[1,2]", True),
        ("(1,2]", "(1,2]", True),
        (r"\{1,2\}", r"\{1,2\}", True),
        ("The point is (1,2).", "1.2", False),
        ("The point is (2,1).", "(1,2)", False),
        ("So x is in [1,2).", "[1,2]", False),
    ],
)
def test_bracketed_answers_are_judged_as_wholes(completion, reference, correct):
    with rk.get_verifier("math", workers=1) as verifier:
        verdict = verifier.verify(completion, reference)
    assert verdict.correct is correct, verdict


@pytest.mark.parametrize(
    "completion, reference, correct",
    [
        ("1.5", "1,5", False),  # the reference lists two answers
        ("1.2", "1,2", False),
        ("So it is 1,5.", "1.5", True),  # one non-integer expected: a decimal comma
        ("So it is 1,5.", "15", False),
        ("So it is 1,5.", "1, 5", True),
        ("So it costs 1,500.", "1500", True),  # a thousands group
    ],
)
def test_decimal_comma_never_gives_false_credit(completion, reference, correct):
    with rk.get_verifier("math", workers=1) as verifier:
        verdict = verifier.verify(completion, reference)
    assert verdict.correct is correct, verdict


# --- a final answer followed by a self-correction earns nothing for the earlier value ------------------------
CORRECTED = [
    "The answer is 3. No wait, it is 4.",
    r"\boxed{3} Wait, that's wrong; it should be 4.",
    "The final answer is 3. Actually, it is 4.",
    "Answer: 3\nOops, I mean 4.",
    "<answer>3</answer> Sorry, scratch that: 4.",
    "#### 3\nCorrection: the total should be 4",
    r"$\boxed{3}$. Hmm, I made a mistake in step 2, so the result is $4$.",
    "The answer is 3. On second thought, 4 is right.",
    # an alternative offered after the answer is a hedge too
    r"\boxed{3}. Or maybe 4.",
    r"\boxed{3}, or perhaps 4",
    "The final answer is 3. Maybe 4.",
    "<answer>3</answer> or possibly 4",
    "#### 3\nAlternatively, 4.",
    r"$\boxed{3}$. It could also be $4$.",
]


@pytest.mark.parametrize("completion", CORRECTED)
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_a_corrected_answer_is_hedged(lenient, strict, completion, mode):
    verifier = lenient if mode == "lenient" else strict
    for reference in ("3", "4"):
        verdict = verifier.verify(completion, reference)
        assert (verdict.score, verdict.status) == (0.0, "hedged"), (reference, verdict)
    found = extract_answer(completion, mode)
    assert any("4" in p.sides for p in found.proposals) or found.retracted is not None, found


@pytest.mark.parametrize(
    "completion, reference",
    [
        ("The answer is 7. This is because 3+4=7.", "7"),
        (r"\boxed{3}. Wait, let me check: 3 times 2 is 6, and 6/2 = 3.", "3"),
        (r"\boxed{3}. Wait, is that right? Yes.", "3"),
        (r"\boxed{3}. Actually no, \boxed{4}", "4"),  # the later box is the answer by a higher rule
        ("The answer is 3. No wait, the answer is 4.", "4"),  # a later statement is the answer
        ("The answer is 12. We multiply rather than add: 3 groups of 4 make 12.", "12"),
        ("The answer is 7. No other value works, since 5 fails.", "7"),
        ("The answer is 12, rather than 15.", "12"),
        ("The answer is 12, instead of the 15 we guessed first.", "12"),
        ("#### 72\nShe sold 48 clips in April and 24 in May.", "72"),
        (r"The answer is $\frac{1}{2}$. Actually, that is $\frac12$ exactly.", r"\frac12"),
        (r"\boxed{42}. Or, put differently, $6 \cdot 7 = 42$.", "42"),  # an equation restating the answer
        (r"\boxed{42}. Maybe I should double check: 6*7 = 42.", "42"),
        (r"\boxed{42}. Note that 42 could be written as 6 times 7.", "42"),
        ("The answer is 42. It may be helpful to note that 40 + 2 = 42.", "42"),
    ],
)
@pytest.mark.parametrize("mode", ["lenient", "strict"])
def test_ordinary_trailing_text_is_not_a_correction(lenient, strict, completion, reference, mode):
    verdict = (lenient if mode == "lenient" else strict).verify(completion, reference)
    assert verdict.correct, verdict
    assert extract_answer(completion, mode).retracted is None


def test_correction_scan_is_linear():
    text = r"\boxed{3}" + " wait" * 200_000 + " it should be 3."
    found = extract_answer(text)
    assert found is not None and found.text == "3" and found.retracted is None
