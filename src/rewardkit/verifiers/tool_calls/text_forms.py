"""Text forms: the calls a model writes in its text, form by form (docs/tool-calls.md has the table).

Read by default, each behind a model's own marker:

* ``hermes``: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Qwen2.5/Qwen3, Hermes; one call,
  a list, or several objects one per line as ToolRL writes them), or Qwen3-Coder's
  ``<tool_call><function=name><parameter=key>value</parameter></function></tool_call>`` (a value that reads
  as JSON is read as JSON, else kept as text). One inside a code fence or inline code, or quoted in the
  middle of a sentence (words go on after it on its line), is text about a call, not a call.
* ``python_tag``: Llama 3.1/3.2's ``<|python_tag|>{"name": ..., "parameters": {...}}`` (``;`` between calls),
  or a built-in tool's ``<|python_tag|>brave_search.call(query="...")``.
* ``mistral``: ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}]`` and the newer ``[TOOL_CALLS]name[ARGS]{...}``.
* ``deepseek``: DeepSeek V3/R1's ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>name`` + a fenced JSON
  body, and V3.1's ``<｜tool▁call▁begin｜>name<｜tool▁sep｜>{...}<｜tool▁call▁end｜>``.
* ``granite``: IBM Granite's ``<|tool_call|>[{"name": ..., "arguments": {...}}]``.
* ``kimi``: Kimi K2's ``<|tool_call_begin|>functions.name:0<|tool_call_argument_begin|>{...}<|tool_call_end|>``.
* ``functioncall``: Glaive's ``<functioncall> {"name": ..., "arguments": '{...}'}`` (arguments a JSON string
  in single quotes).

Only when asked for (``formats:``), as they carry no marker: ``json`` (the whole message is one JSON call or
a list of them, Llama 3's plain JSON form), ``pythonic`` (the whole message is ``[f(a=1), g(b=2)]``,
ToolACE's and Llama 3.2's form) and ``react`` (ToolBench's ``Action: name`` / ``Action Input: {...}``
lines). A JSON object inside prose is never read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from rewardkit.verifiers.tool_calls.parsing import (
    MAX_CHARS,
    Call,
    MalformedCall,
    load_json,
    load_json_values,
    pythonic_calls,
    read_call,
)

DEFAULT_FORMATS = ("hermes", "python_tag", "mistral", "deepseek", "functioncall", "granite", "kimi")
FORMATS = (*DEFAULT_FORMATS, "json", "pythonic", "react")
MAX_TEXT = 2_000_000  # characters of one turn's text

_THINK = re.compile(r"<think>.*?(?:</think>|\Z)", re.DOTALL)
_HERMES_TOKENS = re.compile(r"```|`[^`\n]*`|<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_REST = re.compile(r"(?:[^\n<]|<(?!tool_call>))*")  # the rest of the line, up to a next block
_TAG = re.compile(r"<(\w+)>.*?</\1>|</?[\w|-]+>|<\|[\w-]+\|>")  # a tagged part (ToolRL's <response>), a tag
_FENCE = re.compile(r"\A```(?:json)?\s*(.*?)\s*```\Z", re.DOTALL)
_PYTHON_TAG = "<|python_tag|>"
_MISTRAL = "[TOOL_CALLS]"
_GRANITE = "<|tool_call|>"
_REACT = re.compile(  # the input runs on to the next Action/Thought/Observation line
    r"^Action:[ \t]*([^\n]+)\nAction Input:[ \t]*([^\n]*(?:\n(?!Action:|Thought:|Observation:)[^\n]*)*)", re.M
)
_KIMI_CALL, _KIMI_ARGS, _KIMI_END = "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"
_DS_CALL = re.compile("<｜tool▁call▁begin｜>(.*?)(?:<｜tool▁call▁end｜>|\\Z)", re.DOTALL)
_DS_SEP = "<｜tool▁sep｜>"
_FUNCTIONCALL = re.compile(r"<functioncall>(.*?)(?:<\|endoftext\|>|</functioncall>|\Z)", re.DOTALL)
_GLAIVE_HEAD = re.compile(r"""\{\s*"name"\s*:\s*"([^"\\]+)"\s*,\s*"arguments"\s*:\s*'""")


def _items(parsed: object, where: str) -> list[Call]:
    items = parsed if isinstance(parsed, list) else [parsed]
    return [read_call(item, where, checked=True) for item in items]


def _unfenced(body: str) -> str:
    fenced = _FENCE.match(body.strip())
    return fenced.group(1) if fenced else body.strip()


def _quoted(text: str, end: int) -> bool:
    """Whether the sentence goes on after a block that ends at ``end``: words after it on its line (tags,
    a part in tags such as ToolRL's ``<response>...</response>``, and a next block aside) make it a call
    quoted in prose, not a call."""
    rest = _REST.match(text, end)
    return bool(rest and _TAG.sub("", rest.group(0)[:1000]).strip())  # bounded: the tag pattern backtracks


def hermes_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    in_fence, number = False, 0
    for match in _HERMES_TOKENS.finditer(text):
        token = match.group(0)
        if token == "```":
            in_fence = not in_fence
            continue
        if not token.startswith("<tool_call>"):
            continue
        if in_fence or (token.endswith("</tool_call>") and _quoted(text, match.end())):
            continue
        number += 1
        where = f"<tool_call> block {number}"
        if not token.endswith("</tool_call>"):
            raise MalformedCall(f"{where} is not closed")
        body = _unfenced(match.group(1))
        if body.startswith("<function="):
            calls.extend(xml_calls(body, where))
            continue
        for parsed in load_json_values(body, where):
            calls.extend(_items(parsed, where))
    return calls


def _xml_value(text: str) -> object:
    """A Qwen3-Coder parameter's text: JSON when it reads as JSON (a number, ``true``, an object), else the
    text itself."""
    value = text.strip("\n")
    try:
        return load_json(value, "a parameter")
    except MalformedCall:
        return value


def _xml_parts(text: str, tag: str, where: str) -> list[tuple[str, str]]:
    """``<tag=name>body</tag>`` parts in order, found left to right (no backtracking); anything else between
    them but white space is malformed."""
    parts, at, opening, closing = [], 0, f"<{tag}=", f"</{tag}>"
    while True:
        start = text.find(opening, at)
        if start < 0:
            break
        head_end = text.find(">", start)
        end = text.find(closing, head_end)
        if text[at:start].strip() or head_end < 0 or end < 0 or "\n" in text[start:head_end]:
            raise MalformedCall(f"{where}: not a <{tag}=name>...</{tag}> part")
        parts.append((text[start + len(opening) : head_end].strip(), text[head_end + 1 : end]))
        at = end + len(closing)
    if text[at:].strip():
        raise MalformedCall(f"{where}: text outside the <{tag}=...> parts")
    return parts


def xml_calls(body: str, where: str) -> list[Call]:
    """Qwen3-Coder's ``<function=name><parameter=key>value</parameter>...</function>`` inside a block."""
    if len(body) > MAX_CHARS:
        raise MalformedCall(f"{where} is longer than {MAX_CHARS} characters")
    calls = []
    for name, inner in _xml_parts(body, "function", where):
        arguments: dict[str, object] = {}
        for key, value in _xml_parts(inner, "parameter", where):
            if key in arguments:
                raise MalformedCall(f"{where}: the parameter {key!r} is written twice")
            arguments[key] = _xml_value(value)
        calls.append(read_call({"name": name, "arguments": arguments}, where))
    if not calls:
        raise MalformedCall(f"{where}: not a <function=name>...</function> call")
    return calls


def python_tag_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, chunk in enumerate(text.split(_PYTHON_TAG)[1:], 1):
        where = f"<|python_tag|> call {number}"
        body = chunk.split("<|eom_id|>")[0].split("<|eot_id|>")[0].strip()
        if not body.startswith(("{", "[")):  # a built-in tool: brave_search.call(query="...")
            calls.extend(Call(c.name.removesuffix(".call"), c.arguments) for c in pythonic_calls(body, where))
            continue
        for parsed in load_json_values(body, where, separators=";"):
            calls.extend(_items(parsed, where))
    return calls


def mistral_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, chunk in enumerate(text.split(_MISTRAL)[1:], 1):
        where = f"[TOOL_CALLS] {number}"
        body = chunk.split("</s>")[0].strip()
        if "[ARGS]" in body and not body.startswith(("[", "{")):
            name, _, arguments = body.partition("[ARGS]")
            calls.append(read_call({"name": name.strip(), "arguments": load_json(arguments, where)}, where, True))
        else:
            for parsed in load_json_values(body, where):
                calls.extend(_items(parsed, where))
    return calls


def deepseek_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, match in enumerate(_DS_CALL.finditer(text), 1):
        where = f"DeepSeek tool call {number}"
        if not match.group(0).endswith("<｜tool▁call▁end｜>"):
            raise MalformedCall(f"{where} is not closed")
        head, sep, body = match.group(1).partition(_DS_SEP)
        if not sep:
            raise MalformedCall(f"{where} has no <｜tool▁sep｜>")
        if head.strip() == "function" and "\n" in body:  # V3/R1: function<sep>name\n```json ... ```
            name, _, body = body.partition("\n")
        else:
            name = head
        calls.append(read_call({"name": name.strip(), "arguments": load_json(_unfenced(body), where)}, where, True))
    return calls


def functioncall_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, match in enumerate(_FUNCTIONCALL.finditer(text), 1):
        where = f"<functioncall> {number}"
        body = match.group(1).strip()
        head = _GLAIVE_HEAD.match(body)
        tail = body[:-1].rstrip() if body.endswith("}") else ""
        if head and tail.endswith("'") and len(tail) > head.end():
            calls.append(read_call({"name": head.group(1), "arguments": tail[head.end() : -1]}, where))
        else:
            calls.extend(_items(load_json(body, where), where))
    return calls


def granite_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, chunk in enumerate(text.split(_GRANITE)[1:], 1):
        where = f"<|tool_call|> {number}"
        for parsed in load_json_values(chunk.split("<|end_of_text|>")[0], where):
            calls.extend(_items(parsed, where))
    return calls


def kimi_calls(text: str) -> list[Call]:
    calls: list[Call] = []
    for number, chunk in enumerate(text.split(_KIMI_CALL)[1:], 1):
        where = f"Kimi tool call {number}"
        head, sep, rest = chunk.partition(_KIMI_ARGS)
        body, end, _ = rest.partition(_KIMI_END)
        if not sep or not end:
            raise MalformedCall(f"{where} is not closed")
        name = head.strip().removeprefix("functions.").rsplit(":", 1)[0]  # functions.get_weather:0
        calls.append(read_call({"name": name, "arguments": load_json(body, where)}, where, True))
    return calls


def react_calls(text: str) -> list[Call]:
    """ToolBench's ReAct lines: ``Action: name`` then ``Action Input: {...}`` (``Finish`` ends, not a call)."""
    calls: list[Call] = []
    for number, match in enumerate(_REACT.finditer(text), 1):
        name = match.group(1).strip()
        if name.lower() == "finish":
            continue
        where = f"Action {number}"
        body = match.group(2).strip()
        calls.append(read_call({"name": name, "arguments": load_json(body, where) if body else {}}, where, True))
    return calls


def json_calls(text: str) -> list[Call]:
    body = _unfenced(text)
    if not body.startswith(("{", "[")):
        return []
    return _items(load_json(body, "the JSON message"), "the JSON message")


def whole_pythonic_calls(text: str) -> list[Call]:
    body = text.strip()
    if not (body.startswith("[") and body.endswith(")]")):
        return []
    return pythonic_calls(body, "the Python-call message")


READERS: dict[str, Callable[[str], list[Call]]] = {
    "hermes": hermes_calls,
    "python_tag": python_tag_calls,
    "mistral": mistral_calls,
    "deepseek": deepseek_calls,
    "functioncall": functioncall_calls,
    "json": json_calls,
    "pythonic": whole_pythonic_calls,
    "granite": granite_calls,
    "kimi": kimi_calls,
    "react": react_calls,
}
MARKERS = {
    "hermes": "<tool_call>",
    "python_tag": _PYTHON_TAG,
    "mistral": _MISTRAL,
    "deepseek": "<｜tool▁call▁begin｜>",
    "functioncall": "<functioncall>",
    "granite": _GRANITE,
    "kimi": _KIMI_CALL,
}


def answer_text(text: str) -> str:
    """The text outside thinking: after the last ``</think>``, any other ``<think>`` block (closed or not)
    dropped, so a call made while thinking, or in a thought never closed, is not read."""
    cut = text.rfind("</think>")
    return _THINK.sub("", text[cut + len("</think>") :] if cut >= 0 else text)


def text_calls(text: str, formats: Sequence[str] = DEFAULT_FORMATS) -> list[Call]:
    """The calls written in ``text`` outside thinking, in the given forms, form by form."""
    if len(text) > MAX_TEXT:
        raise MalformedCall(f"the completion is longer than {MAX_TEXT} characters")
    text = answer_text(text)
    calls: list[Call] = []
    for form in formats:
        marker = MARKERS.get(form)
        if marker is None or marker in text:
            calls.extend(READERS[form](text))
    return calls
