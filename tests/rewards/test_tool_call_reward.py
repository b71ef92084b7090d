"""tool_call_accuracy called as TRL calls a reward: chat completions with tool_calls, a tools column, bad rows."""

from __future__ import annotations

import json

import rewardkit as rk

WEATHER = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
TOOLS = json.dumps(
    [
        {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        }
    ]
)


def chat_call(name: str, arguments: str) -> list[dict]:
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}],
        }
    ]


def test_tool_call_accuracy_reads_the_chat_messages_tool_calls_and_the_tools_column():
    completions = [
        chat_call("get_weather", '{"city": "Paris"}'),
        chat_call("get_weather", '{"city": "Lyon"}'),
        chat_call("get_weather", '{"city": '),
        chat_call("delete_everything", "{}"),
        [{"role": "assistant", "content": "It is sunny."}],
        chat_call("get_weather", '{"city": "Paris"}'),
    ]
    answers = [WEATHER] * 5 + ["{not json"]
    extra: list = []
    with rk.get_reward("tool_call_accuracy") as reward:
        values = reward(
            prompts=[[{"role": "user", "content": "Weather in Paris?"}]] * 6,
            completions=completions,
            answer=answers,
            tools=[TOOLS] * 6,
            log_extra=lambda column, vals: extra.append((column, vals)),
            log_metric=lambda *a: None,
            trainer_state=None,
            environments=None,
        )
    assert values == [1.0, 0.0, 0.0, 0.0, 0.0, None]
    statuses = dict(extra)["tool_call_accuracy/status"]
    assert statuses == ["ok", "ok", "malformed_call", "unknown_function", "no_answer", "invalid_reference"]


def test_tool_call_accuracy_partial_mode_through_verifier_params():
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "junk": 1}}</tool_call>'
    with rk.get_reward("tool_call_accuracy", mode="partial") as reward:
        assert reward(prompts=None, completions=[text], answer=[WEATHER]) == [0.5]
    with rk.get_reward("verifier_accuracy", verifier="tool_call", mode="partial") as reward:
        assert reward(prompts=None, completions=[text], answer=[WEATHER]) == [0.5]


def test_a_no_call_row_stored_as_a_json_string_is_judged_an_empty_cell_is_not():
    extra: list = []
    call = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    with rk.get_reward("tool_call_accuracy") as reward:
        values = reward(
            prompts=None,
            completions=["No tool fits.", call, call],
            answers=["[]", "[]", []],
            log_extra=lambda column, vals: extra.append((column, vals)),
        )
    assert values == [1.0, 0.0, None]
    assert dict(extra)["tool_call_accuracy/status"] == ["ok", "ok", None]
