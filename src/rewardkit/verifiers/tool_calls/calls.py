"""Extract: the function calls a completion makes, from chat messages or from text.

Chat messages carry OpenAI-style ``tool_calls`` (``{"function": {"name", "arguments"}}``, the arguments a JSON
string or an object); text carries a model's own call form (:mod:`.text_forms`: Hermes/Qwen ``<tool_call>``
blocks and the other marked forms). Calls inside ``<think>`` are thoughts, not calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.verifiers.tool_calls.parsing import Call, MalformedCall, read_call
from rewardkit.verifiers.tool_calls.text_forms import DEFAULT_FORMATS, text_calls

__all__ = ["Call", "MalformedCall", "assistant_turns", "completion_calls", "message_calls", "read_call", "text_calls"]


def message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return content if isinstance(content, str) else ""


def message_calls(message: Mapping[str, Any], formats: Sequence[str] = DEFAULT_FORMATS) -> list[Call]:
    """An assistant message's calls: its ``tool_calls`` (or OpenAI's older ``function_call``), then the calls
    written in its content, less those the content only repeats from ``tool_calls`` (a server that parsed
    the calls and left their text in place)."""
    calls: list[Call] = []
    raw = message.get("tool_calls") or []
    if isinstance(message.get("function_call"), Mapping):
        raw = [*raw, message["function_call"]] if isinstance(raw, list) else raw
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise MalformedCall(f"tool_calls must be a list, got {type(raw).__name__}")
    for number, item in enumerate(raw, 1):
        calls.append(read_call(item, f"tool_calls[{number - 1}]"))
    content = message_text(message)
    if content:
        echoed = list(calls)
        for call in text_calls(content, formats):
            if call in echoed:
                echoed.remove(call)
            else:
                calls.append(call)
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


def completion_calls(completion: Any, turns: str = "final", formats: Sequence[str] = DEFAULT_FORMATS) -> list[Call]:
    """The calls of the final assistant turn (``turns="final"``) or of every assistant turn in order (``"all"``).

    Raises :class:`MalformedCall` when a call in the turns read cannot be read."""
    messages = assistant_turns(completion)
    if turns == "final":
        messages = messages[-1:]
    calls: list[Call] = []
    for message in messages:
        calls.extend(text_calls(message, formats) if isinstance(message, str) else message_calls(message, formats))
    return calls
