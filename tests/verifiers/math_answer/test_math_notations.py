"""Answers in other scripts and notations, the exactness rule for rounded decimals, and units (issue 19,
items 2-4). The rows are math_notations.py; the unit table and the rounding parameter are tested here too."""

from __future__ import annotations

from fractions import Fraction

import pytest
from math_notations import ALL

import rewardkit as rk
from rewardkit.verifiers.math_answer.compare import judge
from rewardkit.verifiers.math_answer.extract import extract_answer, plain_scripts
from rewardkit.verifiers.math_answer.numeric import parse_number
from rewardkit.verifiers.math_answer.scan import last_math
from rewardkit.verifiers.math_answer.units import conversion, unit_of


@pytest.fixture(scope="module")
def lenient():
    with rk.get_verifier("math", workers=2, timeout=10) as verifier:
        yield verifier


@pytest.mark.parametrize("name, reference, completion, expected", ALL, ids=[r[0] for r in ALL])
def test_notation_rows(lenient, name, reference, completion, expected):
    verdict = lenient.verify(completion, reference)
    assert verdict.correct is expected, verdict


@pytest.mark.parametrize(
    "text, value",
    [
        ("答案是42。", "42"),
        ("一共有１２３个", "123"),
        ("合計は7500円です", "7500"),
        ("총 15개입니다", "15"),
        ("Итого 64 яблока", "64"),
        ("so it is 2√2.", "2√2"),
        ("the angle is 5π/6 radians", "5π/6"),
        ("area: 9π", "9π"),
        ("so x = 3^5 here", "3^5"),
        ("It equals 1.2e-3 m", "1.2e-3 m"),
        ("She walked 3 1/2 miles", "3 1/2 miles"),
    ],
)
def test_prose_numbers_in_any_script_and_notation(text, value):
    group = last_math(plain_scripts(text))
    assert [s.text for s in group] == [value]


def test_a_mixed_number_needs_a_proper_fraction_one_space_away():
    assert [s.text for s in last_math("between 2 and 3/4")] == ["2", "3/4"]
    assert [s.text for s in last_math("she had 12 5/4 cups")][-1] != "12 5/4"


@pytest.mark.parametrize(
    "text, value",
    [
        (r"0.\overline{3}", Fraction(1, 3)),
        (r"0.1\overline{6}", Fraction(1, 6)),
        (r"1.\overline{27}", Fraction(14, 11)),
        (r"0.\dot{6}", Fraction(2, 3)),
        ("0.333...", Fraction(1, 3)),
        (r"-0.8\overline{3}", Fraction(-5, 6)),
        (r"1\frac12", Fraction(3, 2)),
        (r"2\frac{3}{4}", Fraction(11, 4)),
        ("2 3/4", Fraction(11, 4)),
    ],
)
def test_repeating_decimals_and_mixed_numbers_are_exact(text, value):
    number = parse_number(text)
    assert number is not None and number.value == value and number.places is None


@pytest.mark.parametrize(
    "marker",
    [
        "Answer:",
        "Réponse :",
        "Antwort:",
        "Ответ:",
        "Respuesta:",
        "Resposta:",
        "Risposta:",
        "答案：",
        "答案是",
        "答えは",
        "정답:",
    ],
)
def test_answer_markers_in_other_languages_are_statements(marker):
    found = extract_answer(f"Some work: 3 + 4 = 7, then 9 more. {marker} 16")
    assert found is not None and found.values == ("16",) and found.source == "statement"


# --- exactness -------------------------------------------------------------------------------------------------
def test_rounding_places_is_a_verifier_and_spec_parameter():
    with rk.get_verifier("math", workers=1, rounding_places=2) as verifier:
        assert verifier.verify(r"\boxed{3.14}", r"\pi").correct
        assert not verifier.verify(r"\boxed{3.15}", r"\pi").correct
    reward = rk.build_reward({"reward": "math_accuracy", "params": {"rounding_places": 3, "workers": 1}})
    with reward:
        assert reward(completions=[r"\boxed{0.333}", r"\boxed{0.33}"], answer=[r"\frac13"] * 2) == [1.0, 0.0]
    with pytest.raises(rk.ConfigError, match="rounding_places must be an integer from 1 to 15"):
        rk.get_verifier("math", rounding_places=0)


def test_a_decimal_reference_is_itself_a_rounding():
    assert judge(("16386.169",), "16386.17").correct
    assert judge((r"\frac{1}{3}",), "0.333").correct
    assert not judge(("0.3",), "0.333").correct  # too few digits in the rounded one


# --- units ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "gold, answer, ratio",
    [
        ("minutes", "seconds", Fraction(1, 60)),
        ("hours", "min", Fraction(1, 60)),
        ("m", "cm", Fraction(1, 100)),
        ("km", "m", Fraction(1, 1000)),
        ("feet", "inches", Fraction(1, 12)),
        ("yards", "feet", Fraction(1, 3)),
        ("kg", "g", Fraction(1, 1000)),
        ("pounds", "ounces", Fraction(1, 16)),
        ("L", "mL", Fraction(1, 1000)),
        ("cm^3", "mL", Fraction(1)),
        ("m^2", "cm^2", Fraction(1, 10_000)),
        ("square feet", "square inches", Fraction(1, 144)),
        ("dollars", "cents", Fraction(1, 100)),
        ("years", "months", Fraction(1, 12)),
        ("km/h", "m/s", Fraction(18, 5)),
    ],
)
def test_units_of_one_dimension_convert_exactly(gold, answer, ratio):
    assert conversion(gold, answer) == ratio


@pytest.mark.parametrize(
    "gold, answer", [("cm", "seconds"), ("kg", "m"), ("days", "months"), ("cm", "cm^2"), ("dollars", "euros")]
)
def test_units_of_different_dimensions_never_match(gold, answer):
    assert conversion(gold, answer) is False


def test_words_that_are_not_units_are_ignored():
    assert unit_of("apples") is None and conversion("apples", "cm") is None
    assert judge(("12 apples",), "12 \\text{ oranges}").correct  # no unit this table knows: the numbers decide


@pytest.mark.parametrize(
    "answer, gold, correct",
    [
        (r"120 \text{ seconds}", r"2 \text{ minutes}", True),
        (r"3 \text{ hours}", r"180 \text{ min}", True),
        (r"1.5 \text{ km}", r"1500 \text{ m}", True),
        (r"5 \text{ weeks}", r"35 \text{ days}", True),
        (r"5 \text{ weeks}", r"5 \text{ days}", False),
        (r"30 \text{ mph}", r"30 \text{ km/h}", False),
        (r"2 \text{ ft}", r"24 \text{ inches}", True),
        (r"2 \text{ ft}", r"2 \text{ m}", False),
    ],
)
def test_answers_with_units_compare_within_their_dimension(answer, gold, correct):
    assert judge((answer,), gold).correct is correct
