"""The call forms real models write (Qwen/Hermes, Llama 3.x, Mistral, DeepSeek, Glaive), the opt-in forms
without a marker, and hacks aimed at the parser and the pairing: none earns credit it should not."""

from __future__ import annotations

import json
import time

import pytest

import rewardkit as rk
from rewardkit._errors import ConfigError

REFERENCE = [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]
CALL = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
BODY = json.dumps(CALL)
LLAMA_BODY = json.dumps({"name": "get_weather", "parameters": CALL["arguments"]})
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string"},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
        },
    }
]


def verify(completion, reference=REFERENCE, **params):
    tools = params.pop("tools", None)
    context = {} if tools is None else {"tools": tools}
    return rk.get_verifier("tool_call", **params).verify(completion, reference, **context)


DS_V3 = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
    + json.dumps(CALL["arguments"])
    + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
)
DS_V31 = (
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
    + json.dumps(CALL["arguments"])
    + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
)
GLAIVE = "<functioncall> " + json.dumps({"name": "get_weather", "arguments": "X"}).replace(
    '"X"', "'" + json.dumps(CALL["arguments"]) + "'"
)

ACCEPTED = [
    ("qwen_newlines", f"<tool_call>\n{BODY}\n</tool_call>"),
    ("qwen_no_newlines", f"<tool_call>{BODY}</tool_call>"),
    ("qwen3_after_thinking", f"<think>\nThe user wants Paris.\n</think>\n\n<tool_call>\n{BODY}\n</tool_call>"),
    ("text_before_the_call", f"I'll look that up.\n<tool_call>\n{BODY}\n</tool_call>"),
    ("final_answer_after_the_call", f"<tool_call>\n{BODY}\n</tool_call>\nI have asked for the weather."),
    ("im_end_after_the_call", f"<tool_call>\n{BODY}\n</tool_call><|im_end|>"),
    ("llama_python_tag", f"<|python_tag|>{LLAMA_BODY}<|eom_id|>"),
    ("mistral_list", f"[TOOL_CALLS] [{BODY}]</s>"),
    ("mistral_v11", f"[TOOL_CALLS]get_weather[ARGS]{json.dumps(CALL['arguments'])}"),
    ("deepseek_v3", DS_V3),
    ("deepseek_v31", DS_V31),
    ("glaive_functioncall", GLAIVE + " <|endoftext|>"),
    ("granite", f"<|tool_call|>[{BODY}]<|end_of_text|>"),
    (
        "kimi_k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
        + json.dumps(CALL["arguments"])
        + "<|tool_call_end|><|tool_calls_section_end|>",
    ),
    (
        "qwen3_coder_xml",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=unit>\ncelsius\n</parameter>\n</function>\n</tool_call>",
    ),
]


@pytest.mark.parametrize(("name", "completion"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_model_call_forms_with_their_own_marker_are_read_by_default(name, completion):
    verdict = verify(completion, tools=TOOLS)
    assert (verdict.score, verdict.status) == (1.0, "ok"), verdict
    wrong = verify(completion.replace("Paris", "Lyon"), tools=TOOLS)
    assert (wrong.correct, wrong.status) == (False, "ok")


def test_several_qwen_blocks_in_one_message_with_and_without_newlines():
    two = [CALL, {"name": "get_time", "arguments": {"zone": "CET"}}]
    body = "".join(f"<tool_call>{json.dumps(c)}</tool_call>" for c in two)
    assert verify(body, two).score == 1.0
    assert verify(body.replace("</tool_call><tool_call>", "</tool_call>\n<tool_call>"), two).score == 1.0


def test_forms_without_a_marker_only_when_asked_for():
    llama_json = LLAMA_BODY
    pythonic = '[get_weather(city="Paris", unit="celsius")]'
    for text in (llama_json, pythonic, f"The call is {BODY}."):
        assert verify(text).status == "no_answer"
    assert verify(llama_json, formats=["hermes", "json"]).score == 1.0
    assert verify(f"```json\n{llama_json}\n```", formats=["json"]).score == 1.0
    assert verify(pythonic, formats=["pythonic"]).score == 1.0
    assert verify(f"The call is {BODY}.", formats=["json"]).status == "no_answer"  # JSON in prose never
    assert verify(f"<tool_call>{BODY}</tool_call>", formats=["json"]).status == "no_answer"


def test_bad_formats_are_a_clear_config_error():
    with pytest.raises(ConfigError, match="formats must be"):
        rk.get_verifier("tool_call", formats=["xml"])


HACKS = [
    ("call_in_a_code_fence", f"Here is what I would send:\n```\n<tool_call>\n{BODY}\n</tool_call>\n```", "no_answer"),
    ("call_in_a_xml_fence", f"```xml\n<tool_call>{BODY}</tool_call>\n```\nThat is the format.", "no_answer"),
    ("call_in_inline_code", f"The form is `<tool_call>{BODY}</tool_call>` in general.", "no_answer"),
    ("call_quoted_mid_sentence", f"I would call <tool_call>{BODY}</tool_call> if I could, but I won't.", "no_answer"),
    ("call_in_an_unclosed_think", f"<think>Let me call it: <tool_call>{BODY}</tool_call> and see", "no_answer"),
    ("call_in_a_think_then_prose", f"<think><tool_call>{BODY}</tool_call></think>Done.", "no_answer"),
    (
        "duplicate_key_last_wins",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Lyon", "city": "Paris"}}</tool_call>',
        "malformed_call",
    ),
    (
        "duplicate_name_key",
        '<tool_call>{"name": "delete_all", "name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        "malformed_call",
    ),
    (
        "nan_argument",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "unit": NaN}}</tool_call>',
        "malformed_call",
    ),
    (
        "infinity_argument",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "temp": Infinity}}</tool_call>',
        "malformed_call",
    ),
    (
        "overflowing_number",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "temp": 1e999}}</tool_call>',
        "malformed_call",
    ),
    (
        "both_arguments_and_parameters",
        '<tool_call>{"name": "get_weather", "arguments": {}, "parameters": {"city": "Paris"}}</tool_call>',
        "malformed_call",
    ),
    (
        "two_names_inside_and_out",
        '<tool_call>{"name": "delete_all", "function": {"name": "get_weather", "arguments": {}}}</tool_call>',
        "malformed_call",
    ),
    (
        "name_with_white_space",
        '<tool_call>{"name": " get_weather ", "arguments": {"city": "Paris", "unit": "celsius"}}</tool_call>',
        "malformed_call",
    ),
]


@pytest.mark.parametrize(("name", "completion", "status"), HACKS, ids=[h[0] for h in HACKS])
def test_parser_hacks_earn_nothing(name, completion, status):
    for params in ({}, {"mode": "partial"}):
        verdict = verify(completion, **params)
        assert (verdict.score, verdict.status) == (0.0, status), verdict


def hermes(*calls):
    return "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)


def with_args(arguments=None, **more):
    return {"name": "get_weather", "arguments": {**(arguments or {}), **more}}


PAIRING_HACKS = [
    ("each_alternative_value", hermes(*(with_args(city=c, unit="celsius") for c in ("Paris", "Lyon", "Nice")))),
    ("right_call_duplicated", hermes(CALL, CALL)),
    ("list_covering_every_value", hermes(with_args(city=["Paris", "Lyon"], unit="celsius"))),
    ("key_in_other_case", hermes(with_args(City="Paris", Unit="celsius"))),
    ("key_with_white_space", hermes(with_args({"city ": "Paris", " unit": "celsius"}))),
    ("key_with_a_cyrillic_letter", hermes(with_args({"\u0441ity": "Paris", "unit": "celsius"}))),
    ("name_by_prefix", hermes({"name": "get_weather_now", "arguments": CALL["arguments"]})),
    ("name_with_a_lookalike", hermes({"name": "get_w\u0435ather", "arguments": CALL["arguments"]})),
]


@pytest.mark.parametrize(("name", "completion"), PAIRING_HACKS, ids=[h[0] for h in PAIRING_HACKS])
def test_pairing_hacks_earn_no_more_than_an_honest_wrong_call(name, completion):
    honest_wrong = verify(hermes(with_args(city="Lyon", unit="celsius")), mode="partial").score
    assert honest_wrong == 0.5
    for tools in (None, TOOLS):
        assert not verify(completion, tools=tools).correct
        partial = verify(completion, mode="partial", tools=tools)
        assert partial.score <= honest_wrong, partial


def test_calls_to_a_function_the_reference_calls_twice_are_not_a_hedge():
    two = [with_args(city="Paris", unit="celsius"), with_args(city="Lyon", unit="celsius")]
    assert verify(hermes(*two[::-1]), two).score == 1.0
    assert verify(hermes(*two, two[0]), two, mode="partial").score == 0.0


@pytest.mark.parametrize(
    "completion",
    [
        "<tool_call>"
        + '{"name": "get_weather", "arguments": {"a": '
        + "[" * 100_000
        + "]" * 100_000
        + "}}</tool_call>",
        "<tool_call>" + '{"name": "get_weather", "arguments": {"a": ' + "[" * 40 + "]" * 40 + "}}</tool_call>",
        "<tool_call>" + '{"name": "get_weather", "arguments": {"a": "' + "x" * 3_000_000 + '"}}</tool_call>',
        "<tool_call>" * 200_000,
        ("<tool_call>" + BODY + "</tool_call> ") * 20_000,
        "[TOOL_CALLS] " + "[" * 100_000,
        "<|python_tag|>" + "{" * 100_000,
    ],
    ids=[
        "deep_json",
        "deeper_than_the_bound",
        "huge_string",
        "many_openings",
        "many_blocks_on_one_line",
        "mistral_deep",
        "python_tag_deep",
    ],
)
def test_huge_or_deep_calls_get_a_status_quickly(completion):
    started = time.perf_counter()
    verdict = verify(completion, mode="partial")
    assert time.perf_counter() - started < 5.0
    assert verdict.score == 0.0
    assert verdict.status in {"malformed_call", "too_many_calls"}, verdict


def test_deep_arguments_given_as_objects_are_bounded_too():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    message = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": {"name": "get_weather", "arguments": {"a": deep}}}],
        }
    ]
    assert verify(message).status == "malformed_call"


def test_qwen3_coder_values_read_as_json_when_they_are_and_llama_built_in_tools():
    xml = (
        "<tool_call>\n<function=f>\n<parameter=n>\n5\n</parameter>\n"
        "<parameter=zip>\n02134\n</parameter>\n</function>\n</tool_call>"
    )
    assert verify(xml, [{"name": "f", "arguments": {"n": 5, "zip": "02134"}}]).score == 1.0
    twice = xml.replace("<parameter=zip>\n02134", "<parameter=n>\n6")
    assert verify(twice, [{"name": "f", "arguments": {"n": 5}}]).status == "malformed_call"
    assert (
        verify("<tool_call><function=f>oops</tool_call>", [{"name": "f", "arguments": {}}]).status == "malformed_call"
    )
    search = '<|python_tag|>brave_search.call(query="weather in Paris")<|eom_id|>'
    assert verify(search, [{"name": "brave_search", "arguments": {"query": "weather in Paris"}}]).score == 1.0


def test_a_message_whose_content_echoes_its_parsed_tool_calls_counts_each_call_once():
    parsed = {"type": "function", "function": {"name": "get_weather", "arguments": json.dumps(CALL["arguments"])}}
    echoed = [{"role": "assistant", "content": f"<tool_call>\n{BODY}\n</tool_call>", "tool_calls": [parsed]}]
    assert verify(echoed).score == 1.0
    other = json.dumps({"name": "get_weather", "arguments": {"city": "Lyon", "unit": "celsius"}})
    hedged = [{"role": "assistant", "content": f"<tool_call>\n{other}\n</tool_call>", "tool_calls": [parsed]}]
    assert verify(hedged, mode="partial").score == 0.0
    legacy = [{"role": "assistant", "content": None, "function_call": parsed["function"]}]
    assert verify(legacy).score == 1.0


def test_toolrl_output_with_a_response_after_the_call_on_the_same_line():
    text = f"<think>Paris, in celsius.</think>\n<tool_call>\n{BODY}\n</tool_call><response>Checking now.</response>"
    assert verify(text).score == 1.0
    assert verify(f"<tool_call>{BODY}</tool_call> is what I'd send, <b>if</b> asked.").status == "no_answer"


def test_a_long_line_of_open_tags_after_a_block_is_judged_quickly():
    started = time.perf_counter()
    verify(f"<tool_call>{BODY}</tool_call>" + "<a> x" * 300_000)
    verify(f"<tool_call>{BODY}</tool_call>" + "<a>" * 600_000)
    verify("<tool_call><function=f>" + "<function=a>" * 150_000 + "</tool_call>")
    verify("<tool_call><function=f><parameter=a>" * 100_000 + "</tool_call>")
    verify('<functioncall> {"name": "f", "arguments": \'{}\'' + " " * 50_000 + "x}")
    verify(REFERENCE, "<tool_call>" * 100_000)  # a reference that cannot be read, quickly
    verify(f"<tool_call>{BODY}</tool_call>", tools="tools: " + "{" * 200_000)
    assert time.perf_counter() - started < 5.0


def test_toolbench_react_lines_only_when_asked_for():
    text = (
        'Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris",\n'
        ' "unit": "celsius"}\nObservation: sunny\nAction: Finish\nAction Input: {"final_answer": "sunny"}'
    )
    assert verify(text).status == "no_answer"
    assert verify(text, formats=["react"]).score == 1.0
    assert verify(text.replace("Paris", "Lyon"), formats=["react"]).score == 0.0
    conversation = [{"from": "user", "value": "Weather in Paris?"}, {"from": "assistant", "value": text}]
    assert verify(f"<tool_call>{BODY}</tool_call>", conversation).score == 1.0  # a ToolBench reference
