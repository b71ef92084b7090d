"""The reference side: a row's expected calls and, when given, the tools' JSON schemas.

Reference calls come as a list of ``{"name", "arguments"}`` objects (or one), a JSON string of that,
OpenAI's ``tool_calls`` form (``{"function": {"name", "arguments"}}``), Hermes ``<tool_call>`` text, or BFCL's
possible-answer form ``[{"func_name": {"arg": [allowed values...]}}]``, where each argument lists the values
accepted and ``""`` among them means the argument may be left out. :mod:`.layouts` reads the datasets' own
layouts (conversations, call text in any form, tools in a system prompt, xLAM parameter dicts). An empty list
says the row expects no call (an irrelevance row); a list item may be a Python call string (BFCL multi-turn).

Tools come as OpenAI's ``[{"type": "function", "function": {"name", "parameters"}}]``, plain
``[{"name", "parameters"}]`` (BFCL), a JSON string of either, or ``{name: parameters}``. BFCL's non-JSON-Schema
types (``dict``, ``float``, ``tuple``, ``any``) are read as ``object``, ``number``, ``array`` and any.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardkit.verifiers.tool_calls.layouts import (
    conversation_reference,
    conversation_system,
    is_conversation,
    is_parameter_dict,
    parameter_dict_schema,
    reference_text_calls,
    tools_from_text,
)
from rewardkit.verifiers.tool_calls.parsing import Call, MalformedCall, load_json, pythonic_calls, read_call

OMITTED = ""  # BFCL's mark, among an argument's allowed values, that it may be left out


class BadReference(ValueError):
    """The row's reference calls or tools cannot be read (the dataset's fault, not the model's)."""


@dataclass(frozen=True)
class Expected:
    """One reference argument: the values accepted, whether it may be left out, and whether its dict and
    list values hold per-key choices themselves (BFCL's nested possible answers)."""

    values: tuple[Any, ...]
    optional: bool = False
    choices: bool = False


@dataclass(frozen=True)
class ReferenceCall:
    name: str
    arguments: Mapping[str, Expected]


def _is_bfcl(item: Any) -> bool:
    return (
        isinstance(item, Mapping)
        and len(item) == 1
        and next(iter(item)) not in ("name", "function")
        and isinstance(next(iter(item.values())), Mapping)
    )


def _bfcl_call(item: Mapping[str, Any]) -> ReferenceCall:
    name, arguments = next(iter(item.items()))
    expected = {}
    for arg, allowed in arguments.items():
        values = list(allowed) if isinstance(allowed, list) else [allowed]
        kept = tuple(v for v in values if not (isinstance(v, str) and v == OMITTED))
        expected[str(arg)] = Expected(kept, optional=len(kept) < len(values), choices=True)
    return ReferenceCall(str(name), expected)


def _plain_call(call: Call) -> ReferenceCall:
    return ReferenceCall(call.name, {k: Expected((v,)) for k, v in call.arguments.items()})


def reference_calls(reference: Any) -> list[ReferenceCall]:
    """The reference calls of a row; raises :class:`BadReference` when they cannot be read."""
    if hasattr(reference, "tolist") and not isinstance(reference, (str, bytes)):
        reference = reference.tolist()
    if is_conversation(reference):
        reference = conversation_reference(reference)
    if isinstance(reference, str):
        text = reference.strip()
        try:
            reference = load_json(text, "reference")
        except MalformedCall:
            try:
                calls = reference_text_calls(text)
            except MalformedCall as exc:
                raise BadReference(f"reference: {exc}") from None
            if not calls:
                raise BadReference("reference is neither JSON nor a call form read (<tool_call>, ...)") from None
            return [_plain_call(c) for c in calls]
    return _reference_list(reference)


def _reference_list(reference: Any) -> list[ReferenceCall]:
    if isinstance(reference, Mapping) and "tool_calls" in reference:
        reference = reference["tool_calls"]
        if isinstance(reference, str):
            return reference_calls(reference)
    if isinstance(reference, Mapping):
        reference = [reference]
    if not isinstance(reference, Sequence) or isinstance(reference, (str, bytes)):
        raise BadReference(f"reference must be a list of calls, got {type(reference).__name__}")
    calls: list[ReferenceCall] = []
    for number, item in enumerate(reference):
        if isinstance(item, str):  # a call stored as its own JSON string, or as a Python call (BFCL multi-turn)
            where = f"reference call {number}"
            try:
                item = load_json(item, where)
            except MalformedCall:
                try:
                    calls.extend(_plain_call(c) for c in pythonic_calls(item, where))
                except MalformedCall as exc:
                    raise BadReference(str(exc)) from None
                continue
        if isinstance(item, list):
            raise BadReference(f"reference call {number} is a list: one turn's calls were expected, not several turns")
        if _is_bfcl(item):
            calls.append(_bfcl_call(item))
            continue
        try:
            calls.append(_plain_call(read_call(item, f"reference call {number}")))
        except MalformedCall as exc:
            raise BadReference(str(exc)) from None
    return calls


_BFCL_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


def json_schema(schema: Any) -> Any:
    """A parameters schema with BFCL's type names made JSON Schema's (``any`` drops the type)."""
    if isinstance(schema, list):
        return [json_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            if value == "any":
                continue
            value = _BFCL_TYPES.get(value, value)
        elif key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(value, Mapping):
            value = {k: json_schema(v) for k, v in value.items()}
        else:
            value = json_schema(value)
        out[key] = value
    return out


def tool_schemas(tools: Any) -> dict[str, Mapping[str, Any]]:
    """Function name → its parameters schema (JSON Schema); raises :class:`BadReference` when unreadable."""
    if hasattr(tools, "tolist") and not isinstance(tools, (str, bytes)):
        tools = tools.tolist()
    if is_conversation(tools):
        tools = conversation_system(tools)
    if isinstance(tools, str):
        try:
            tools = tools_from_text(tools)
        except MalformedCall as exc:
            raise BadReference(str(exc)) from None
    if isinstance(tools, Mapping) and not ("name" in tools or "function" in tools):
        return {str(k): _parameters(str(k), v) for k, v in tools.items()}
    if isinstance(tools, Mapping):
        tools = [tools]
    if not isinstance(tools, Sequence) or isinstance(tools, (str, bytes)):
        raise BadReference(f"tools must be a list of function schemas, got {type(tools).__name__}")
    schemas: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        if isinstance(tool, str):  # some datasets store each tool as its own JSON string
            try:
                tool = json.loads(tool)
            except ValueError as exc:
                raise BadReference(f"a tool is not valid JSON ({exc})") from None
        if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping):
            tool = tool["function"]
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            raise BadReference(f"each tool needs a name and parameters, got {str(tool)[:200]}")
        schemas[tool["name"]] = _parameters(tool["name"], tool.get("parameters"))
    return schemas


def _parameters(name: str, parameters: Any) -> Mapping[str, Any]:
    if parameters is None:
        return {"type": "object", "properties": {}}
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except ValueError:
            raise BadReference(f"tool {name!r}: parameters are not valid JSON") from None
    if not isinstance(parameters, Mapping):
        raise BadReference(f"tool {name!r}: parameters must be a JSON Schema object")
    if is_parameter_dict(parameters):
        parameters = parameter_dict_schema(parameters)
    schema: Mapping[str, Any] = json_schema(parameters)
    return schema
