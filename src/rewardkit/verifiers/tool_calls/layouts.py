"""Dataset layouts: reference calls and tools as real datasets store them, brought to one form.

* A **conversation** (ShareGPT ``{"from", "value"}`` or chat ``{"role", "content"}`` turns, as Hermes
  function-calling, ToolACE, Glaive and APIGen-MT store rows) as the reference: the calls of its last assistant
  (``gpt``) turn that makes any, or of its last run of ``function_call`` turns (APIGen-MT).
  As the tools: its system turn's text.
* **Reference text** in any call form :mod:`.text_forms` reads (``<tool_call>``, Glaive's ``<functioncall>``,
  ToolACE's ``[f(a=1)]``...). A ``<tool_call>`` body written as a Python literal (single quotes, as
  Hermes function-calling v1 writes it) is read as one.
* **Tools in text**: a ``<tools>...</tools>`` block (Hermes), the first JSON list of functions in a system
  prompt (ToolACE), JSON or a Python literal, or the JSON objects with a ``name`` written one after another
  (Glaive's system prompt).
* **xLAM-style parameters** (``{"city": {"type": "str", "description": ..., "default": ...}}`` in place of a
  JSON Schema): made a JSON Schema. Python type names become JSON Schema's (``str``, ``int``, ``float``,
  ``bool``, ``List[...]``, ``Dict[...]``; ``Optional[X]``/``X, optional`` as ``X``); a type it cannot name
  is left unchecked. No parameter is made ``required``: xLAM marks none reliably, so the reference calls
  say which arguments a call needs.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.verifiers.tool_calls.parsing import Call, MalformedCall, load_json_values, python_literal, read_call
from rewardkit.verifiers.tool_calls.text_forms import FORMATS, MARKERS, text_calls

_ASSISTANT = {"assistant", "gpt", "model", "function_call"}
_TOOLS_BLOCK = re.compile(r"<tools>(.*?)</tools>", re.DOTALL)
_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_PY_TYPES = {
    "str": "string",
    "string": "string",
    "int": "integer",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "double": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "array": "array",
    "tuple": "array",
    "dict": "object",
    "object": "object",
}


def _turn(item: Any) -> tuple[str, Any] | None:
    if not isinstance(item, Mapping):
        return None
    role = item.get("from", item.get("role"))
    if not isinstance(role, str) or not ("value" in item or "content" in item or "tool_calls" in item):
        return None
    return role.lower(), item


def is_conversation(value: Any) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, (str, bytes))
        and bool(value)
        and all(_turn(v) is not None for v in value)
    )


def conversation_reference(turns: Sequence[Mapping[str, Any]]) -> Any:
    """The calls of a conversation's last assistant turn that makes any: its ``tool_calls``, a run of
    ``function_call`` turns (APIGen-MT's, one call each), or a call written in its text; else the last
    assistant turn's text (which then holds no call)."""
    read = [t for t in map(_turn, turns) if t is not None]
    last_text = None
    for index in range(len(read) - 1, -1, -1):
        role, turn = read[index]
        if role == "function_call":
            run = [turn]
            while index > 0 and read[index - 1][0] == "function_call":
                index -= 1
                run.insert(0, read[index][1])
            return [t.get("value", t.get("content")) for t in run]
        if role not in _ASSISTANT:
            continue
        if turn.get("tool_calls"):
            return list(turn["tool_calls"])
        text = turn.get("value", turn.get("content"))
        if last_text is None:
            last_text = text
        if isinstance(text, str) and _has_calls(text):
            return text
    return last_text


def _has_calls(text: str) -> bool:
    body = text.strip()
    return any(marker in body for marker in MARKERS.values()) or (body.startswith("[") and body.endswith(")]"))


def conversation_system(turns: Sequence[Mapping[str, Any]]) -> str:
    for role, turn in (t for t in map(_turn, turns) if t is not None):
        if role == "system":
            return str(turn.get("value", turn.get("content")) or "")
    return ""


def _lenient(body: str, where: str) -> list[Any]:
    try:
        return load_json_values(body, where)
    except MalformedCall:
        return [python_literal(body, where)]


def reference_text_calls(text: str) -> list[Call]:
    """The calls written in a reference text, in any form; ``<tool_call>`` bodies may be Python literals."""
    try:
        calls = text_calls(text, [f for f in FORMATS if f != "json"])  # JSON was tried first
    except MalformedCall:
        if "<tool_call>" not in text:
            raise
        calls = []
        for number, match in enumerate(_BLOCK.finditer(text), 1):
            where = f"reference <tool_call> block {number}"
            for parsed in _lenient(match.group(1).strip(), where):
                calls.extend(read_call(item, where) for item in (parsed if isinstance(parsed, list) else [parsed]))
    return calls


def tools_from_text(text: str) -> Any:
    """The tools written in a text: JSON, a ``<tools>`` block, or the first JSON list in a system prompt."""
    if len(text) > 1_000_000:
        raise MalformedCall("the tools text is longer than 1,000,000 characters")
    try:
        return json.loads(text)
    except ValueError:
        pass
    block = _TOOLS_BLOCK.search(text)
    if block:
        values = _lenient(block.group(1).strip(), "the <tools> block")
        return values[0] if len(values) == 1 else values
    decoder = json.JSONDecoder()
    for match in itertools.islice(re.finditer(r"\[\s*\{", text), 50):  # each failed try costs a scan
        try:
            return decoder.raw_decode(text, match.start())[0]
        except ValueError:
            continue
    functions: list[dict[str, Any]] = []  # Glaive: one JSON object per function, each from a line's start
    for match in itertools.islice(re.finditer(r"^[ \t]*\{", text, re.MULTILINE), 200):
        try:
            value, _ = decoder.raw_decode(text, match.end() - 1)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            functions.append(value)
    if functions:
        return functions
    raise MalformedCall("the tools are neither JSON nor a <tools> block nor a JSON list of functions in the text")


def _py_type(text: str) -> str | None:
    """A Python type name's JSON Schema type (None: unchecked); ``Optional[X]`` and ``X, optional`` are X."""
    kind = text.strip()
    if kind.lower().endswith(", optional"):
        kind = kind[: -len(", optional")].strip()
    if kind.startswith("Optional[") and kind.endswith("]"):
        kind = kind[len("Optional[") : -1].strip()
    return _PY_TYPES.get(kind.split("[", 1)[0].strip().lower())


def is_parameter_dict(parameters: Mapping[str, Any]) -> bool:
    """xLAM's ``{name: {type, description, default}}`` rather than a JSON Schema object."""
    return (
        bool(parameters)
        and "properties" not in parameters
        and not isinstance(parameters.get("type"), str)
        and all(isinstance(v, Mapping) for v in parameters.values())
    )


def parameter_dict_schema(parameters: Mapping[str, Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for name, spec in parameters.items():
        prop = {k: v for k, v in spec.items() if k in ("description", "default", "enum")}
        kind = _py_type(spec["type"]) if isinstance(spec.get("type"), str) else None
        if kind is not None:
            prop["type"] = kind
        properties[str(name)] = prop
    return {"type": "object", "properties": properties}
