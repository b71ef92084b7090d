"""The tool-call verifier's rules, as tables of realistic model outputs (Hermes text and OpenAI messages)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import rewardkit as rk
from rewardkit._errors import ConfigError
from rewardkit.verifiers.tool_calls.compare import Rules, best_pairs, same

WEATHER = [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]
TWO = [
    {"name": "get_weather", "arguments": {"city": "Paris"}},
    {"name": "get_time", "arguments": {"zone": "CET"}},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
                    "days": {"type": "integer"},
                },
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "get_time",
            "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]},
        },
    },
]


def hermes(*calls: dict[str, Any]) -> str:
    return "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)


def openai(*calls: dict[str, Any], content: str = "") -> list[dict[str, Any]]:
    return [
        {
            "role": "assistant",
            "content": content,
            "tool_calls": [
                {"type": "function", "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
                for c in calls
            ],
        }
    ]


W = WEATHER[0]
# (name, completion, reference, params, expected score, expected status)
CASES = [
    ("hermes_exact", hermes(W), WEATHER, {}, 1.0, "ok"),
    ("openai_json_string_arguments", openai(W), WEATHER, {}, 1.0, "ok"),
    (
        "openai_dict_arguments",
        [{"role": "assistant", "tool_calls": [{"function": {"name": "get_weather", "arguments": W["arguments"]}}]}],
        WEATHER,
        {},
        1.0,
        "ok",
    ),
    ("reference_as_json_string", hermes(W), json.dumps(WEATHER), {}, 1.0, "ok"),
    ("reference_in_openai_form", hermes(W), openai(W)[0]["tool_calls"], {}, 1.0, "ok"),
    ("reference_as_hermes_text", hermes(W), hermes(W), {}, 1.0, "ok"),
    (
        "argument_order_ignored",
        hermes({"name": "get_weather", "arguments": {"unit": "celsius", "city": "Paris"}}),
        WEATHER,
        {},
        1.0,
        "ok",
    ),
    (
        "parameters_key_read",
        '<tool_call>{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}</tool_call>',
        WEATHER,
        {},
        1.0,
        "ok",
    ),
    ("call_after_thinking", "<think>maybe get_time?</think>\n" + hermes(W), WEATHER, {}, 1.0, "ok"),
    ("call_only_inside_think", "<think>" + hermes(W) + "</think>The weather is nice.", WEATHER, {}, 0.0, "no_answer"),
    ("call_in_unclosed_think", "<think>I will call " + hermes(W), WEATHER, {}, 0.0, "no_answer"),
    ("prose_without_tags", 'I would call get_weather(city="Paris", unit="celsius").', WEATHER, {}, 0.0, "no_answer"),
    (
        "wrong_value",
        hermes({"name": "get_weather", "arguments": {"city": "Lyon", "unit": "celsius"}}),
        WEATHER,
        {},
        0.0,
        "ok",
    ),
    (
        "wrong_value_partial",
        hermes({"name": "get_weather", "arguments": {"city": "Lyon", "unit": "celsius"}}),
        WEATHER,
        {"mode": "partial"},
        0.5,
        "ok",
    ),
    (
        "wrong_function",
        hermes({"name": "get_time", "arguments": W["arguments"]}),
        WEATHER,
        {"mode": "partial"},
        0.0,
        "ok",
    ),
    (
        "case_differs_exact_strings",
        hermes({"name": "get_weather", "arguments": {"city": "paris", "unit": "celsius"}}),
        WEATHER,
        {},
        0.0,
        "ok",
    ),
    (
        "case_differs_casefold",
        hermes({"name": "get_weather", "arguments": {"city": " paris ", "unit": "Celsius"}}),
        WEATHER,
        {"strings": "casefold"},
        1.0,
        "ok",
    ),
    (
        "bfcl_strings_drop_punctuation",
        hermes({"name": "f", "arguments": {"d": "April 1,2024"}}),
        [{"name": "f", "arguments": {"d": "april 1, 2024"}}],
        {"strings": "bfcl"},
        1.0,
        "ok",
    ),
    (
        "extra_argument_partial",
        hermes({"name": "get_weather", "arguments": {**W["arguments"], "junk": 1}}),
        WEATHER,
        {"mode": "partial"},
        2 / 3,
        "ok",
    ),
    (
        "int_equals_float",
        hermes({"name": "f", "arguments": {"x": 1.0}}),
        [{"name": "f", "arguments": {"x": 1}}],
        {},
        1.0,
        "ok",
    ),
    (
        "string_is_not_number",
        hermes({"name": "f", "arguments": {"x": "1"}}),
        [{"name": "f", "arguments": {"x": 1}}],
        {},
        0.0,
        "ok",
    ),
    (
        "bool_is_not_int",
        hermes({"name": "f", "arguments": {"x": True}}),
        [{"name": "f", "arguments": {"x": 1}}],
        {},
        0.0,
        "ok",
    ),
    (
        "list_order_matters",
        hermes({"name": "f", "arguments": {"x": [2, 1]}}),
        [{"name": "f", "arguments": {"x": [1, 2]}}],
        {},
        0.0,
        "ok",
    ),
    (
        "nested_object",
        hermes({"name": "f", "arguments": {"o": {"a": 1, "b": [1.0]}}}),
        [{"name": "f", "arguments": {"o": {"b": [1], "a": 1}}}],
        {},
        1.0,
        "ok",
    ),
    ("parallel_any_order", hermes(TWO[1], TWO[0]), TWO, {}, 1.0, "ok"),
    ("parallel_strict_order", hermes(TWO[1], TWO[0]), TWO, {"order": "strict"}, 0.0, "ok"),
    ("missing_call_partial", hermes(TWO[0]), TWO, {"mode": "partial"}, 0.5, "ok"),
    ("extra_call_partial", hermes(*TWO, TWO[0]), TWO, {"mode": "partial"}, 1 / 3, "ok"),
    ("repeated_call_partial", hermes(*[W] * 10), WEATHER, {"mode": "partial"}, 0.0, "ok"),
    ("too_many_calls", hermes(*[W] * 65), WEATHER, {"mode": "partial"}, 0.0, "too_many_calls"),
    (
        "broken_json",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"</tool_call>',
        WEATHER,
        {},
        0.0,
        "malformed_call",
    ),
    ("unclosed_block", '<tool_call>{"name": "get_weather", "arguments": {}}', WEATHER, {}, 0.0, "malformed_call"),
    ("no_name", '<tool_call>{"arguments": {"city": "Paris"}}</tool_call>', WEATHER, {}, 0.0, "malformed_call"),
    (
        "arguments_not_object",
        '<tool_call>{"name": "get_weather", "arguments": [1]}</tool_call>',
        WEATHER,
        {},
        0.0,
        "malformed_call",
    ),
    (
        "openai_arguments_bad_json",
        [{"role": "assistant", "tool_calls": [{"function": {"name": "get_weather", "arguments": "{city: Paris"}}]}],
        WEATHER,
        {},
        0.0,
        "malformed_call",
    ),
    ("no_calls", "It is sunny in Paris.", WEATHER, {}, 0.0, "no_answer"),
    ("reference_unreadable", hermes(W), "{not json", {}, 0.0, "invalid_reference"),
    ("reference_not_calls", hermes(W), [42], {}, 0.0, "invalid_reference"),
]

BFCL = [{"get_weather": {"city": ["Paris", "Paris, France"], "unit": ["celsius", ""]}}]
BFCL_CASES = [
    (
        "bfcl_alternative_value",
        hermes({"name": "get_weather", "arguments": {"city": "Paris, France"}}),
        BFCL,
        {},
        1.0,
        "ok",
    ),
    ("bfcl_optional_left_out", hermes({"name": "get_weather", "arguments": {"city": "Paris"}}), BFCL, {}, 1.0, "ok"),
    ("bfcl_optional_given", hermes(W), BFCL, {}, 1.0, "ok"),
    ("bfcl_value_not_listed", hermes({"name": "get_weather", "arguments": {"city": "Lyon"}}), BFCL, {}, 0.0, "ok"),
    (
        "bfcl_nested_dict_choices",
        hermes({"name": "book", "arguments": {"room": {"type": "double"}}}),
        [{"book": {"room": [{"type": ["double", "twin"], "view": ["", "sea"]}]}}],
        {},
        1.0,
        "ok",
    ),
]


@pytest.mark.parametrize(
    ("name", "completion", "reference", "params", "score", "status"),
    CASES + BFCL_CASES,
    ids=[c[0] for c in CASES + BFCL_CASES],
)
def test_tool_call_table(name, completion, reference, params, score, status):
    verdict = rk.get_verifier("tool_call", **params).verify(completion, reference)
    assert verdict.status == status, verdict
    assert verdict.score == pytest.approx(score), verdict
    assert verdict.correct == (score == 1.0 and status == "ok")


SCHEMA_CASES = [
    ("valid_call", hermes(W), WEATHER, 1.0, "ok"),
    ("default_left_out", hermes({"name": "get_weather", "arguments": {"city": "Paris"}}), WEATHER, 1.0, "ok"),
    ("default_spelled_out", hermes(W), [{"name": "get_weather", "arguments": {"city": "Paris"}}], 1.0, "ok"),
    ("unknown_function", hermes(W, {"name": "launch_rockets", "arguments": {}}), WEATHER, 0.5, "unknown_function"),
    (
        "missing_required",
        hermes({"name": "get_weather", "arguments": {"unit": "celsius"}}),
        WEATHER,
        0.0,
        "schema_violation",
    ),
    (
        "wrong_type",
        hermes({"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius", "days": "3"}}),
        WEATHER,
        0.0,
        "schema_violation",
    ),
    (
        "value_outside_enum",
        hermes({"name": "get_weather", "arguments": {"city": "Paris", "unit": "kelvin"}}),
        WEATHER,
        0.0,
        "schema_violation",
    ),
    (
        "string_param_reads_number",
        hermes({"name": "get_time", "arguments": {"zone": "1"}}),
        [{"name": "get_time", "arguments": {"zone": 1}}],
        1.0,
        "ok",
    ),
]


@pytest.mark.parametrize(
    ("name", "completion", "reference", "score", "status"), SCHEMA_CASES, ids=[c[0] for c in SCHEMA_CASES]
)
def test_tool_schemas_judge_the_arguments(name, completion, reference, score, status):
    verdict = rk.get_verifier("tool_call", mode="partial").verify(completion, reference, tools=TOOLS)
    assert (verdict.status, verdict.score) == (status, pytest.approx(score)), verdict


def test_bfcl_style_tools_with_their_type_names_are_read_as_json_schema():
    tools = json.dumps(
        [{"name": "area", "parameters": {"type": "dict", "properties": {"r": {"type": "float"}}, "required": ["r"]}}]
    )
    verifier = rk.get_verifier("tool_call")
    assert (
        verifier.verify(hermes({"name": "area", "arguments": {"r": 2}}), [{"area": {"r": [2.0]}}], tools=tools).score
        == 1.0
    )
    assert (
        verifier.verify(hermes({"name": "area", "arguments": {"r": "2"}}), [{"area": {"r": [2.0]}}], tools=tools).status
        == "schema_violation"
    )


def test_unreadable_tools_are_the_datasets_fault():
    verdict = rk.get_verifier("tool_call").verify(hermes(W), WEATHER, tools="[{broken")
    assert verdict.status == "invalid_reference" and verdict.is_infrastructure_failure
    bad_schema = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": 5}}}}]
    verdict = rk.get_verifier("tool_call").verify(hermes(W), WEATHER, tools=bad_schema)
    assert verdict.status == "invalid_reference", verdict


def test_final_turn_is_judged_unless_all_turns_are_asked_for():
    turns = [
        *openai(TWO[0]),
        {"role": "tool", "content": '{"temp": 12}'},
        *openai(TWO[1]),
    ]
    assert rk.get_verifier("tool_call").verify(turns, [TWO[1]]).score == 1.0
    assert rk.get_verifier("tool_call").verify(turns, TWO).score == 0.0
    assert rk.get_verifier("tool_call", turns="all").verify(turns, TWO).score == 1.0


def test_bad_parameters_fail_when_the_verifier_is_built():
    with pytest.raises(ConfigError, match="mode must be one of exact, partial"):
        rk.get_verifier("tool_call", mode="fuzzy")
    with pytest.raises(ConfigError, match="max_calls"):
        rk.get_verifier("tool_call", max_calls=0)


def test_values_compare_by_type():
    exact = Rules()
    assert same(1, 1.0, {}, exact) and same(2.0, 2, {"type": "integer"}, exact)
    assert not same(2.0, 2, {"type": "integer"}, Rules(strict_integers=True))
    assert same(2, 2.0, {"type": "number"}, Rules(strict_integers=True))
    assert not same(1.5, 1, {"type": "integer"}, exact)
    assert not same("1", 1, {}, exact) and same("1", 1, {"type": "string"}, exact)
    assert not same(None, 0, {}, exact) and same(None, None, {}, exact)


def test_a_lenient_string_rule_reads_enum_members_leniently_too():
    tools = [
        {
            "name": "f",
            "parameters": {"type": "object", "properties": {"m": {"type": "string", "enum": ["Fast", "Slow"]}}},
        }
    ]
    call = hermes({"name": "f", "arguments": {"m": "FAST"}})
    assert rk.get_verifier("tool_call").verify(call, [{"f": {"m": ["Fast"]}}], tools=tools).status == "schema_violation"
    assert rk.get_verifier("tool_call", strings="bfcl").verify(call, [{"f": {"m": ["Fast"]}}], tools=tools).correct


def test_best_pairs_finds_the_optimal_assignment_not_the_greedy_one():
    # greedy on row 0 takes column 0 (0.9) and leaves row 1 with 0.0; the optimum pairs 0-1 and 1-0 (1.8)
    assert sorted(best_pairs([[0.9, 0.8], [1.0, 0.0]])) == [(0, 1), (1, 0)]
    assert sorted(best_pairs([[0.2], [0.9], [0.5]])) == [(1, 0)]
    assert best_pairs([]) == []
