"""Wire format between the code harness's supervisor and the candidate's process (plain stdlib).

This file is copied into the sandbox next to ``code_supervisor.py`` and ``code_runner.py`` and must
run on a bare ``python3`` (3.8+), so it imports nothing from rewardkit.

Values cross as tagged JSON, and :func:`decode` builds only exact built-in types (``int``, ``float``,
``complex``, ``str``, ``bytes``, ``bool``, ``None``, ``list``, ``tuple``, ``dict``, ``set``,
``frozenset``): an object with a rigged ``__eq__``, a ``str`` subclass or a patched builtin in the
candidate's process cannot reach the supervisor's comparisons. Anything else stays in the candidate's
process and crosses as an opaque handle ``["h", id]``. Frames are a 4-byte length and a JSON body.

One thing crosses the other way by value only: an instance of a class the test code defines (MBPP's
``test_setup_code`` classes, a pytest file's helper class) that the tests pass to the candidate, as
``["o", class name, attributes]``. The candidate rebuilds it as an instance of its own class of that name
(the setup code runs there too) or of an empty class so named; the supervisor never decodes ``"o"``.
"""

from __future__ import annotations

import json
import os
import select
import time

MAX_FRAME = 16 << 20
MAX_DEPTH = 200
TESTS_MODULE = "__rk_tests__"  # the ``__name__`` the supervisor runs the test code under


class WireError(Exception):
    """A malformed, oversized or missing message."""


class WireTimeout(WireError):
    """No complete message before the deadline."""


def test_object_class(value):  # type: ignore[no-untyped-def]
    """The class name of ``value`` when the test code defined its class (and every base but ``object``)
    and its state is its ``__dict__``; else None. Only the supervisor asks, of its own objects."""
    cls = type(value)
    mro = cls.__mro__[:-1]
    if not mro or any(c.__dict__.get("__module__") != TESTS_MODULE or "__slots__" in c.__dict__ for c in mro):
        return None
    return cls.__name__ if type(getattr(value, "__dict__", None)) is dict else None


def encode(value, handles=None, depth=0, handle_of=None, by_value=False):  # type: ignore[no-untyped-def]
    """A JSON-able tagged form of ``value``.

    Non-data objects become handles when ``handles`` is a dict (the candidate's side); on the
    supervisor's side ``handle_of(value)`` gives the handle id of a proxy it got back earlier, and with
    ``by_value`` an instance of a class the test code defined crosses as its class name and attributes.
    """
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    t = type(value)
    if handle_of is not None:
        key = handle_of(value)
        if key is not None:
            return ["h", key]
    if value is None:
        return ["N"]
    if t is bool:
        return ["b", 1 if value else 0]
    if t is int:
        return ["i", format(value, "x")]
    if t is float:
        return ["f", value.hex()]
    if t is complex:
        return ["c", value.real.hex(), value.imag.hex()]
    if t is str:
        return ["s", value]
    if t is bytes:
        return ["y", value.hex()]
    if t in (list, tuple, set, frozenset):
        tags: dict[type, str] = {list: "l", tuple: "t", set: "S", frozenset: "F"}
        tag = tags[t]
        return [tag, [encode(v, handles, depth + 1, handle_of, by_value) for v in value]]
    if t is dict:
        return [
            "d",
            [
                [encode(k, handles, depth + 1, handle_of, by_value), encode(v, handles, depth + 1, handle_of, by_value)]
                for k, v in value.items()
            ],
        ]
    name = test_object_class(value) if by_value else None
    if name is not None:
        return ["o", name, encode(dict(value.__dict__), handles, depth + 1, handle_of, by_value)]
    if handles is None:
        raise WireError(f"cannot send a {t.__name__} value")
    key = len(handles) + 1
    handles[key] = value
    return ["h", key]


def decode(node, make_handle=None, depth=0, make_object=None):  # type: ignore[no-untyped-def]
    """The value of a tagged form; strict: anything unexpected raises WireError. ``"o"`` (a test object)
    is decoded only with ``make_object(class name, attributes)``: on the candidate's side."""
    if depth > MAX_DEPTH:
        raise WireError("value nested too deeply")
    if type(node) is not list or not node or type(node[0]) is not str:
        raise WireError("malformed value")
    tag = node[0]
    try:
        if tag == "N" and len(node) == 1:
            return None
        if tag == "b" and len(node) == 2 and node[1] in (0, 1) and type(node[1]) is int:
            return node[1] == 1
        if tag == "i" and len(node) == 2 and type(node[1]) is str and len(node[1]) <= 1_000_000:
            return int(node[1], 16)
        if tag == "f" and len(node) == 2 and type(node[1]) is str:
            return float.fromhex(node[1])
        if tag == "c" and len(node) == 3 and type(node[1]) is str and type(node[2]) is str:
            return complex(float.fromhex(node[1]), float.fromhex(node[2]))
        if tag == "s" and len(node) == 2 and type(node[1]) is str:
            return node[1]
        if tag == "y" and len(node) == 2 and type(node[1]) is str:
            return bytes.fromhex(node[1])
        if tag in ("l", "t", "S", "F") and len(node) == 2 and type(node[1]) is list:
            items = [decode(v, make_handle, depth + 1, make_object) for v in node[1]]
            return {"l": list, "t": tuple, "S": set, "F": frozenset}[tag](items)
        if tag == "d" and len(node) == 2 and type(node[1]) is list:
            out = {}
            for pair in node[1]:
                if type(pair) is not list or len(pair) != 2:
                    raise WireError("malformed dict item")
                key = decode(pair[0], make_handle, depth + 1, make_object)
                out[key] = decode(pair[1], make_handle, depth + 1, make_object)
            return out
        if tag == "o" and len(node) == 3 and type(node[1]) is str and make_object is not None:
            attrs = decode(node[2], make_handle, depth + 1, make_object)
            if type(attrs) is not dict or not all(type(k) is str for k in attrs):
                raise WireError("malformed object attributes")
            return make_object(node[1], attrs)
        if tag == "h" and len(node) == 2 and type(node[1]) is int and make_handle is not None:
            return make_handle(node[1])
    except (TypeError, ValueError, OverflowError) as exc:
        raise WireError(f"bad {tag!r} value: {exc}") from None
    raise WireError(f"unknown or malformed tag {tag!r}")


def copy_back(args, after) -> None:  # type: ignore[no-untyped-def]
    """In-place changes the candidate made to list/dict/set arguments, applied to the caller's objects."""
    if type(after) is not list or len(after) != len(args):
        return
    for arg, node in zip(args, after, strict=False):
        if node is None or type(arg) not in (list, dict, set):
            continue
        new = decode(node)
        if type(new) is not type(arg):
            continue
        if type(arg) is list:
            arg[:] = new
        else:
            arg.clear()
            arg.update(new)


def send(fd: int, message) -> None:  # type: ignore[no-untyped-def]
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise WireError(f"message of {len(body)} bytes is over the {MAX_FRAME}-byte limit")
    data = memoryview(len(body).to_bytes(4, "big") + body)
    while data:
        data = data[os.write(fd, data) :]


def _read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    parts = []
    while size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WireTimeout("no reply before the deadline")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise WireTimeout("no reply before the deadline")
        block = os.read(fd, min(size, 1 << 20))
        if not block:
            raise WireError("the other side closed the channel")
        parts.append(block)
        size -= len(block)
    return b"".join(parts)


def receive(fd: int, deadline: float | None = None):  # type: ignore[no-untyped-def]
    size = int.from_bytes(_read_exact(fd, 4, deadline), "big")
    if size > MAX_FRAME:
        raise WireError(f"message of {size} bytes is over the {MAX_FRAME}-byte limit")
    body = _read_exact(fd, size, deadline)
    try:
        return json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError, MemoryError) as exc:
        raise WireError(f"unreadable message: {type(exc).__name__}") from None
