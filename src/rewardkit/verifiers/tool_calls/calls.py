"""Extract: the function calls a completion makes, from chat messages or from text.

Chat messages carry OpenAI-style ``tool_calls`` (``{"function": {"name", "arguments"}}``, the arguments a JSON
string or an object); text carries Hermes/Qwen blocks ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``.
Calls inside ``<think>`` are thoughts, not calls: only the text after the last ``</think>`` is read, and any
other ``<think>`` block in it is dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit.verifiers.base import answer_region

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_FENCE = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", re.DOTALL)


class MalformedCall(ValueError):
    """A call the model wrote that cannot be read: bad JSON, no function name, arguments not an object."""


@dataclass(frozen=True)
class Call:
    """One function call: its name and its arguments (a JSON object)."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}


def read_call(item: Any, where: str) -> Call:
    """One call from ``{"name", "arguments"|"parameters"}`` or OpenAI's ``{"function": {...}}``."""
    if isinstance(item, Mapping) and isinstance(item.get("function"), Mapping):
        item = item["function"]
    if not isinstance(item, Mapping):
        raise MalformedCall(f"{where}: a call must be a JSON object, got {type(item).__name__}")
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        raise MalformedCall(f"{where}: a call needs a function name, got {name!r}")
    arguments = item.get("arguments", item.get("parameters", {}))
    if arguments is None:
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            raise MalformedCall(f"{where}: the arguments of {name!r} are not valid JSON ({exc})") from None
    if not isinstance(arguments, Mapping):
        raise MalformedCall(f"{where}: the arguments of {name!r} must be an object, got {type(arguments).__name__}")
    return Call(name.strip(), dict(arguments))


def text_calls(text: str) -> list[Call]:
    """The ``<tool_call>`` blocks of ``text`` outside ``<think>``; a block may hold one call or a list."""
    text = _THINK.sub("", answer_region(text))
    calls: list[Call] = []
    for number, match in enumerate(_BLOCK.finditer(text), 1):
        where = f"<tool_call> block {number}"
        if not match.group(0).endswith("</tool_call>"):
            raise MalformedCall(f"{where} is not closed")
        body = match.group(1).strip()
        fenced = _FENCE.match(body)
        body = fenced.group(1) if fenced else body
        try:
            parsed = json.loads(body)
        except ValueError as exc:
            raise MalformedCall(f"{where} is not valid JSON ({exc})") from None
        items = parsed if isinstance(parsed, list) else [parsed]
        calls.extend(read_call(item, where) for item in items)
    return calls


def message_calls(message: Mapping[str, Any]) -> list[Call]:
    """An assistant message's calls: its ``tool_calls``, then any ``<tool_call>`` blocks in its content."""
    calls: list[Call] = []
    raw = message.get("tool_calls") or []
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise MalformedCall(f"tool_calls must be a list, got {type(raw).__name__}")
    for number, item in enumerate(raw, 1):
        calls.append(read_call(item, f"tool_calls[{number - 1}]"))
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    if isinstance(content, str) and content:
        calls.extend(text_calls(content))
    return calls


def assistant_turns(completion: Any) -> list[Any]:
    """A completion's assistant turns in order: chat messages, or one string."""
    if completion is None:
        return []
    if isinstance(completion, (str, Mapping)):
        return [completion]
    if isinstance(completion, Sequence):
        return [
            m
            for m in completion
            if isinstance(m, str) or (isinstance(m, Mapping) and m.get("role", "assistant") == "assistant")
        ]
    return [str(completion)]


def completion_calls(completion: Any, turns: str = "final") -> list[Call]:
    """The calls of the final assistant turn (``turns="final"``) or of every assistant turn in order (``"all"``).

    Raises :class:`MalformedCall` when a call in the turns read cannot be read."""
    messages = assistant_turns(completion)
    if turns == "final":
        messages = messages[-1:]
    calls: list[Call] = []
    for message in messages:
        calls.extend(text_calls(message) if isinstance(message, str) else message_calls(message))
    return calls
