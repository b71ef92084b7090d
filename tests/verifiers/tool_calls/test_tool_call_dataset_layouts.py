"""The tool-call verifier and reward on rows laid out as real datasets store them (our own data, their layouts):
xLAM, Hermes function-calling, Glaive, ToolACE, ToolRL, BFCL, tau-bench/APIGen-MT style messages."""

from __future__ import annotations

import json

import pytest

import rewardkit as rk
from rewardkit.verifiers.tool_calls.reference import tool_schemas

pytest.importorskip("jsonschema")


def verify(completion, reference, **context):
    return rk.get_verifier("tool_call", mode="partial").verify(completion, reference, **context)


def hermes(name, arguments):
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


# xLAM (Salesforce/xlam-function-calling-60k): query, tools and answers, each a JSON string; tools' parameters
# are {name: {type, description, default}} with Python type names, not JSON Schema.
XLAM_ROW = {
    "query": "Find the 3 tallest towers in Lisbon.",
    "tools": json.dumps(
        [
            {
                "name": "towers_by_city",
                "description": "Lists towers in a city.",
                "parameters": {
                    "city": {"description": "City name.", "type": "str", "default": ""},
                    "limit": {"description": "How many.", "type": "int, optional", "default": 10},
                    "type": {"description": "Kind of tower.", "type": "Optional[str]"},
                    "country": {"description": "Country code.", "type": "str"},
                },
            }
        ]
    ),
    "answers": json.dumps([{"name": "towers_by_city", "arguments": {"city": "Lisbon", "limit": 3, "country": "PT"}}]),
}


def test_xlam_parameter_dicts_become_a_schema_with_python_types():
    schema = tool_schemas(XLAM_ROW["tools"])["towers_by_city"]
    assert schema["properties"]["limit"]["type"] == "integer"
    assert schema["properties"]["type"]["type"] == "string"  # a parameter named "type" is not the schema's type
    assert "required" not in schema  # xLAM marks none reliably: the reference says which are needed


def test_xlam_rows_score_through_the_reward_with_the_answers_column():
    right = hermes("towers_by_city", {"city": "Lisbon", "limit": 3, "country": "PT"})
    wrong_type = hermes("towers_by_city", {"city": "Lisbon", "limit": "3", "country": "PT"})
    missing_required = hermes("towers_by_city", {"city": "Lisbon", "limit": 3})
    extra: list = []
    with rk.get_reward("tool_call_accuracy") as reward:
        values = reward(
            prompts=[XLAM_ROW["query"]] * 3,
            completions=[right, wrong_type, missing_required],
            answers=[XLAM_ROW["answers"]] * 3,
            tools=[XLAM_ROW["tools"]] * 3,
            log_extra=lambda column, vals: extra.append((column, vals)),
        )
    assert values == [1.0, 0.0, 0.0]
    assert dict(extra)["tool_call_accuracy/status"] == ["ok", "schema_violation", "ok"]


# Hermes function-calling v1: conversations of {"from", "value"}; tools in the system turn's <tools> block,
# and the gpt turn's <tool_call> bodies written as Python dicts (single quotes).
HERMES_CONVERSATION = [
    {
        "from": "system",
        "value": "You are a function calling AI model. <tools> [{'type': 'function', 'function': {'name': "
        "'book_table', 'description': 'Books a table.', 'parameters': {'type': 'object', 'properties': "
        "{'venue': {'type': 'string'}, 'seats': {'type': 'integer'}}, 'required': ['venue', 'seats']}}}] "
        "</tools> For each call return a json object within <tool_call></tool_call> tags.",
    },
    {"from": "human", "value": "A table for four at Chez Nous, please."},
    {
        "from": "gpt",
        "value": "<tool_call>\n{'arguments': {'venue': 'Chez Nous', 'seats': 4}, 'name': 'book_table'}\n</tool_call>",
    },
]


def test_hermes_conversations_give_both_the_reference_and_the_tools():
    assert verify(hermes("book_table", {"venue": "Chez Nous", "seats": 4}), HERMES_CONVERSATION).score == 1.0
    right = verify(
        hermes("book_table", {"venue": "Chez Nous", "seats": 4}), HERMES_CONVERSATION, tools=HERMES_CONVERSATION
    )
    assert (right.score, right.status) == (1.0, "ok")
    wrong = verify(
        hermes("book_table", {"venue": "Chez Nous", "seats": "four"}), HERMES_CONVERSATION, tools=HERMES_CONVERSATION
    )
    assert (wrong.score, wrong.status) == (0.0, "schema_violation")


# Glaive function-calling v2: "<functioncall> {...}" with the arguments a JSON string in single quotes.
GLAIVE_REFERENCE = (
    """<functioncall> {"name": "convert_currency", """
    """"arguments": '{"amount": 50, "from": "USD", "to": "JPY"}'} <|endoftext|>"""
)


def test_glaive_functioncall_references_and_completions():
    same = verify(GLAIVE_REFERENCE, GLAIVE_REFERENCE)
    assert same.score == 1.0
    assert verify(hermes("convert_currency", {"amount": 50, "from": "USD", "to": "JPY"}), GLAIVE_REFERENCE).score == 1.0
    off = verify(hermes("convert_currency", {"amount": 50, "from": "USD", "to": "EUR"}), GLAIVE_REFERENCE)
    assert off.score == pytest.approx(2 / 3)


# ToolACE: the tools as a JSON list inside the system prompt, calls as Python calls "[f(a=1)]".
TOOLACE_SYSTEM = (
    "You are an expert in composing functions. Here is a list of functions in JSON format that you can invoke:\n"
    '[{"name": "flight_status", "description": "Status of a flight.", "parameters": {"type": "dict", '
    '"properties": {"flight": {"type": "string"}, "day": {"type": "string"}}, "required": ["flight"]}}]\n'
    "Should you decide to invoke any of the function(s), put it in the format of [func1(params_name=params_value)]."
)


def test_toolace_pythonic_references_and_tools_in_the_system_prompt():
    reference = '[flight_status(flight="TP1234", day="2024-05-01")]'
    right = verify(hermes("flight_status", {"flight": "TP1234", "day": "2024-05-01"}), reference, tools=TOOLACE_SYSTEM)
    assert (right.score, right.status) == (1.0, "ok")
    assert verify(hermes("flight_status", {"flight": "TP9999", "day": "2024-05-01"}), reference).score == 0.5
    pythonic = rk.get_verifier("tool_call", formats=["hermes", "pythonic"])
    assert pythonic.verify('[flight_status(flight="TP1234", day="2024-05-01")]', reference).score == 1.0
    assert (
        rk.get_verifier("tool_call").verify('[flight_status(flight="TP1234", day="2024-05-01")]', reference).status
        == "no_answer"
    )


def test_toolrl_blocks_hold_several_calls_one_per_line_with_parameters():
    text = (
        '<think>Two lookups.</think>\n<tool_call>\n{"name": "stock_price", "parameters": {"ticker": "ACME"}}\n'
        '{"name": "stock_price", "parameters": {"ticker": "INIT"}}\n</tool_call>'
    )
    reference = (
        '<tool_call>\n{"name": "stock_price", "parameters": {"ticker": "INIT"}}\n'
        '{"name": "stock_price", "parameters": {"ticker": "ACME"}}\n</tool_call>'
    )
    assert verify(text, reference).score == 1.0
    half = text.replace('"INIT"', '"NOPE"')
    assert verify(half, reference).score == 0.5


def test_bfcl_rows_through_the_reward_with_the_function_column():
    function = [
        {
            "name": "area.circle",
            "description": "Area of a circle.",
            "parameters": {
                "type": "dict",
                "properties": {"radius": {"type": "float"}, "unit": {"type": "string"}},
                "required": ["radius"],
            },
        }
    ]
    ground_truth = [{"area.circle": {"radius": [2.0], "unit": ["", "cm"]}}]
    completions = [
        hermes("area.circle", {"radius": 2}),
        hermes("area.circle", {"radius": 2.0, "unit": "cm"}),
        hermes("area.circle", {"radius": "2"}),
        hermes("area.square", {"side": 2}),
    ]
    extra: list = []
    with rk.get_reward("tool_call_accuracy") as reward:
        values = reward(
            prompts=None,
            completions=completions,
            ground_truth=[ground_truth] * 4,
            function=[function] * 4,
            log_extra=lambda column, vals: extra.append((column, vals)),
        )
    assert values == [1.0, 1.0, 0.0, 0.0]
    assert dict(extra)["tool_call_accuracy/status"] == ["ok", "ok", "schema_violation", "unknown_function"]


def test_tau_bench_style_messages_with_openai_tool_calls_and_string_arguments():
    reference = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "cancel_order",
                        "arguments": '{"order_id": "#W77", "reason": "no longer needed"}',
                    },
                }
            ],
        }
    ]
    completion = [
        {"role": "user", "content": "Cancel #W77, I don't need it."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "type": "function",
                    "function": {
                        "name": "cancel_order",
                        "arguments": '{"reason": "no longer needed", "order_id": "#W77"}',
                    },
                }
            ],
        },
    ]
    assert verify(completion, reference).score == 1.0
    completion[1]["tool_calls"][0]["function"]["arguments"] = (
        '"{\\"order_id\\": \\"#W77\\", \\"reason\\": \\"no longer needed\\"}"'
    )
    assert verify(completion, reference).score == 1.0  # arguments JSON inside a JSON string


@pytest.mark.parametrize(
    ("reference", "tools"),
    [
        ("I cannot help with that.", None),
        ("<tool_call>{'name': 'f', 'arguments': {'a': </tool_call>", None),
        ('[{"name": "f", "arguments": "{not json"}]', None),
        ([{"name": "f", "arguments": {"a": 1}}], "no tools here at all"),
        (
            [{"name": "f", "arguments": {"a": 1}}],
            [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "int"}}}}],
        ),
        ([{"name": "f", "arguments": {"a": 1}}], [{"name": "f", "parameters": "{oops"}]),
        ([{"from": "human", "value": "hi"}], None),
        ('{"name": "f", "arguments": {"a": 1, "a": 2}}', None),
    ],
)
def test_unreadable_rows_are_invalid_reference_never_a_crash(reference, tools):
    context = {} if tools is None else {"tools": tools}
    verdict = verify(hermes("f", {"a": 1}), reference, **context)
    assert verdict.status == "invalid_reference", verdict


# APIGen-MT: conversations where each call is its own "function_call" turn, then an observation and a reply.
APIGEN_CONVERSATION = [
    {"from": "human", "value": "Move my 3pm meeting to 4pm and tell Ana."},
    {"from": "function_call", "value": '{"name": "move_event", "arguments": {"event": "3pm sync", "to": "16:00"}}'},
    {"from": "function_call", "value": '{"name": "send_message", "arguments": {"to": "Ana", "text": "Moved to 4pm"}}'},
    {"from": "observation", "value": '{"ok": true}'},
    {"from": "gpt", "value": "Done: the meeting is at 4pm and Ana knows."},
]


def test_apigen_mt_function_call_turns_are_the_reference():
    both = [
        {"name": "send_message", "arguments": {"to": "Ana", "text": "Moved to 4pm"}},
        {"name": "move_event", "arguments": {"event": "3pm sync", "to": "16:00"}},
    ]
    assert verify(hermes_all(both), APIGEN_CONVERSATION).score == 1.0
    assert verify(hermes_all(both[:1]), APIGEN_CONVERSATION).score == 0.5


def hermes_all(calls):
    return "\n".join(hermes(c["name"], c["arguments"]) for c in calls)


def test_glaive_system_prompt_with_one_json_object_per_function():
    system = (
        "SYSTEM: You are a helpful assistant with access to the following functions. Use them if required -\n"
        '{\n    "name": "convert_currency",\n    "description": "Convert money",\n    "parameters": {\n'
        '        "type": "object",\n        "properties": {"amount": {"type": "number"}, "from": {"type": "string"},'
        ' "to": {"type": "string"}},\n        "required": ["amount", "from", "to"]\n    }\n}\n\n'
        '{\n    "name": "get_news", "parameters": {"type": "object", "properties": {}}\n}\n'
    )
    assert set(tool_schemas(system)) == {"convert_currency", "get_news"}
    right = verify(
        hermes("convert_currency", {"amount": 50, "from": "USD", "to": "JPY"}), GLAIVE_REFERENCE, tools=system
    )
    assert (right.score, right.status) == (1.0, "ok")
    bad = verify(
        hermes("convert_currency", {"amount": "50", "from": "USD", "to": "JPY"}), GLAIVE_REFERENCE, tools=system
    )
    assert bad.status == "schema_violation"


def test_toolace_conversation_with_a_final_text_reply_gives_the_earlier_pythonic_calls():
    conversation = [
        {"from": "user", "value": "Is TP1234 on time today?"},
        {"from": "assistant", "value": '[flight_status(flight="TP1234")]'},
        {"from": "tool", "value": '[{"name": "flight_status", "results": {"status": "on time"}}]'},
        {"from": "assistant", "value": "TP1234 is on time."},
    ]
    assert verify(hermes("flight_status", {"flight": "TP1234"}), conversation, tools=TOOLACE_SYSTEM).score == 1.0
    assert verify(hermes("flight_status", {"flight": "TP4321"}), conversation).score == 0.0


def test_an_empty_reference_expects_no_call_and_bfcl_multi_turn_strings_are_calls():
    for reference in ([], "[]"):
        assert verify("No tool fits: I cannot book flights.", reference).score == 1.0
        called = verify(hermes("book_flight", {"to": "Oslo"}), reference)
        assert (called.score, called.status) == (0.0, "ok")
    turn = ["cd(folder='documents')", "mv(source='a.txt', destination='b.txt')"]
    right = hermes("cd", {"folder": "documents"}) + "\n" + hermes("mv", {"source": "a.txt", "destination": "b.txt"})
    assert verify(right, turn).score == 1.0
    assert verify(hermes("cd", {"folder": "documents"}), turn).score == 0.5
    assert verify(right, [turn, turn]).status == "invalid_reference"  # several turns at once
    assert verify(right, None).status == "invalid_reference"


def test_tau_bench_actions_with_kwargs_and_a_message_holding_tool_calls_as_a_string():
    actions = [
        {"name": "find_user_id_by_email", "kwargs": {"email": "ana@example.com"}},
        {"name": "get_order_details", "kwargs": {"order_id": "#W77"}},
    ]
    right = (
        hermes("get_order_details", {"order_id": "#W77"})
        + "\n"
        + hermes("find_user_id_by_email", {"email": "ana@example.com"})
    )
    assert verify(right, actions).score == 1.0
    stored = {
        "role": "assistant",
        "tool_calls": json.dumps([{"function": {"name": "get_order_details", "arguments": '{"order_id": "#W77"}'}}]),
    }
    assert verify(hermes("get_order_details", {"order_id": "#W77"}), stored).score == 1.0
    both = '<tool_call>{"name": "f", "arguments": {"a": 1}, "kwargs": {"a": 2}}</tool_call>'
    assert verify(both, [{"name": "f", "arguments": {"a": 1}}]).status == "malformed_call"


def test_a_dotted_bfcl_name_written_with_underscores_is_that_function_when_only_one_reads_so():
    function = [{"name": "math.factorial", "parameters": {"type": "dict", "properties": {"n": {"type": "integer"}}}}]
    truth = [{"math.factorial": {"n": [5]}}]
    assert verify(hermes("math_factorial", {"n": 5}), truth, functions=function).score == 1.0
    assert verify(hermes("math_factorial", {"n": 5}), truth).score == 1.0  # from the reference's names
    assert verify(hermes("mathfactorial", {"n": 5}), truth, functions=function).status == "unknown_function"
    both = [*function, {"name": "math_factorial", "parameters": {"type": "dict", "properties": {}}}]
    assert verify(hermes("math_factorial", {"n": 5}), truth, functions=both).score == 0.0  # a function of its own
    twins = [*function, {"name": "math_factorial.x", "parameters": {}}, {"name": "math.factorial_x", "parameters": {}}]
    assert verify(hermes("math_factorial_x", {}), truth, tools=twins).status == "unknown_function"  # two read so
