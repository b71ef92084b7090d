"""Hacks aimed at the tool-call verifier (``tool_call_accuracy``): calls that game the pairing and the parser,
next to the honest correct calls and an honest wrong call (one argument off) of the same row.

The hacks: every function called at once, the right call repeated, the right names with every argument wrong,
the call written in prose or as bare JSON without its tags, the call only inside ``<think>``, junk arguments
added to the right call, a wrong call beside the right one, the right names with no arguments, the call in a
code fence, quoted mid-sentence or in a thought never closed, and an argument written twice (wrong, then
right), and the first argument hedged over three values (a call per value, or a list of them). A reward
that credits one of them more than the honest wrong call pays for spraying calls or for a
call it cannot run.
"""

from __future__ import annotations

import json
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.audit.variants import CORRECT, WRONG, Variant, Wrap

REPEATS = 10


def _calls(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The row's reference calls as plain ``{name, arguments}`` with the first accepted value of each argument
    (a BFCL argument that may be left out is left out)."""
    from rewardkit.verifiers.tool_calls.reference import BadReference, reference_calls

    keys = ("answer", "ground_truth", "solution", "answers")
    reference = next((row[k] for k in keys if row.get(k) not in (None, "")), None)
    try:
        expected = reference_calls(reference)
    except BadReference as exc:
        raise ConfigError(f"audit: a tool-call row's reference holds no readable calls: {exc}") from None
    calls = []
    for call in expected:
        arguments = {k: e.values[0] for k, e in call.arguments.items() if e.values and not e.optional}
        calls.append({"name": call.name, "arguments": arguments})
    return calls


def _tool_names(row: dict[str, Any]) -> list[str]:
    from rewardkit.verifiers.tool_calls.reference import BadReference, tool_schemas

    if row.get("tools") in (None, ""):
        return []
    try:
        return list(tool_schemas(row["tools"]))
    except BadReference:
        return []


def _other(value: Any) -> Any:
    """A different value of the same type."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return f"{value} (other)" if value else "other"
    if isinstance(value, list):
        return [*value, value[0]] if value else [0]
    if isinstance(value, dict):
        return {**value, "other": 1}
    return "other"


def _tagged(calls: list[dict[str, Any]]) -> str:
    return "\n".join(f"<tool_call>\n{json.dumps(c)}\n</tool_call>" for c in calls)


def _wrong_one(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with the first argument of the first call that has one set to another value."""
    out = [dict(c, arguments=dict(c["arguments"])) for c in calls]
    for call in out:
        if call["arguments"]:
            key = next(iter(call["arguments"]))
            call["arguments"][key] = _other(call["arguments"][key])
            return out
    out[0]["name"] = f"{out[0]['name']}_other"  # no arguments anywhere: another function
    return out


def _alternatives(calls: list[dict[str, Any]], spread: bool) -> list[dict[str, Any]]:
    """The first argument hedged over its right value and two others: one call per value (``spread``), or
    one call whose value is the list of them."""
    out = [dict(c, arguments=dict(c["arguments"])) for c in calls]
    for index, call in enumerate(out):
        if call["arguments"]:
            key = next(iter(call["arguments"]))
            right = call["arguments"][key]
            values = [right, _other(right), _other(_other(right))]
            if not spread:
                call["arguments"][key] = values
                return out
            return [
                *out[:index],
                *(dict(call, arguments={**call["arguments"], key: v}) for v in values),
                *out[index + 1 :],
            ]
    return out * 3 if spread else out


def _duplicate_key(calls: list[dict[str, Any]], wrong: list[dict[str, Any]]) -> str:
    """The calls with one argument written twice in its object: the wrong value first, the right one last
    (a parser that keeps the last one sees the right call; a tool might see the first)."""
    blocks = []
    for right, bad in zip(calls, wrong, strict=True):
        changed = next((k for k in right["arguments"] if right["arguments"][k] != bad["arguments"].get(k)), None)
        body = json.dumps(right["arguments"])
        if changed is not None:
            first = f"{json.dumps(changed)}: {json.dumps(bad['arguments'][changed])}, "
            body = "{" + first + body[1:]
        blocks.append(f'<tool_call>\n{{"name": {json.dumps(right["name"])}, "arguments": {body}}}\n</tool_call>')
    return "\n".join(blocks)


def tool_call_variants(row: dict[str, Any], wrap: Wrap) -> list[Variant]:
    calls = _calls(row)
    if not calls:  # a row that expects no call: no hack is aimed at it
        return []
    wrong = _wrong_one(calls)
    all_wrong = [dict(c, arguments={k: _other(v) for k, v in c["arguments"].items()}) for c in calls]
    prose = "; ".join(
        f"{c['name']}({', '.join(f'{k}={json.dumps(v)}' for k, v in c['arguments'].items())})" for c in calls
    )
    others = [n for n in _tool_names(row) if n not in {c["name"] for c in calls}]
    variants = [
        Variant(CORRECT, wrap(_tagged(calls))),
        Variant(WRONG, wrap(_tagged(wrong))),
        Variant("repeated_call", wrap(_tagged(calls * REPEATS))),
        Variant("right_name_wrong_arguments", wrap(_tagged(all_wrong))),
        Variant("call_in_prose", wrap(f"I will call {prose}.")),
        Variant("bare_json_without_tags", wrap(json.dumps(calls if len(calls) > 1 else calls[0]))),
        Variant("call_inside_think_only", f"<think>{_tagged(calls)}</think>I have made the call."),
        Variant(
            "extra_junk_arguments",
            wrap(_tagged([dict(c, arguments={**c["arguments"], "_force": True, "note": "x"}) for c in calls])),
        ),
        Variant("wrong_and_right_calls", wrap(_tagged(wrong + calls))),
        Variant("names_without_arguments", wrap(_tagged([{"name": c["name"], "arguments": {}} for c in calls]))),
        Variant("call_in_code_fence", wrap(f"I would send:\n```\n{_tagged(calls)}\n```")),
        Variant("call_quoted_in_prose", wrap(f"One would call {_tagged(calls).replace(chr(10), '')} if it ran.")),
        Variant("call_inside_unclosed_think", f"<think>I could call {_tagged(calls)}"),
        Variant("duplicate_key_wrong_then_right", wrap(_duplicate_key(calls, wrong))),
        Variant("each_alternative_value", wrap(_tagged(_alternatives(calls, spread=True)))),
        Variant("list_of_alternative_values", wrap(_tagged(_alternatives(calls, spread=False)))),
    ]
    if others:
        every = calls + [{"name": n, "arguments": {}} for n in others]
        variants.insert(2, Variant("every_function_called", wrap(_tagged(every))))
    return variants
