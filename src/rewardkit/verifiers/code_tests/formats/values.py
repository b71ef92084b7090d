"""Read dataset column values without running anything: JSON, Python literals, LiveCodeBench's packed tests.

Dataset bytes are untrusted. JSON and ``ast.literal_eval`` build plain data only. LiveCodeBench stores its
private tests as base64 text of a zlib-compressed pickle (of a JSON string); a pickle can name any callable
to run while loading, so :func:`plain_unpickle` first walks the opcode stream (``pickletools.genops``, which
only parses) and refuses any opcode outside the plain-data set, then loads with an unpickler that resolves
no global at all. Sizes are capped before anything is expanded.
"""

from __future__ import annotations

import ast
import base64
import binascii
import functools
import io
import json
import pickle
import pickletools
import zlib
from typing import Any

from rewardkit.verifiers.code_tests.ast_guard import AST_LOCK

MAX_DECODED_BYTES = 512 << 20  # a decompressed test blob larger than this is refused, not expanded
MAX_LITERAL_CHARS = 64 << 20

# The opcodes that build str, bytes, int, float, bool, None, list, tuple, dict, set and frozenset, and the
# memo and stack plumbing around them. No opcode here can look up, call or build an object of any class.
PLAIN_OPCODES = frozenset(
    {
        "PROTO", "FRAME", "STOP", "MARK", "POP", "POP_MARK", "DUP",
        "NONE", "NEWTRUE", "NEWFALSE",
        "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
        "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8",
        "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
        "EMPTY_LIST", "APPEND", "APPENDS", "LIST",
        "EMPTY_TUPLE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
        "EMPTY_DICT", "DICT", "SETITEM", "SETITEMS",
        "EMPTY_SET", "ADDITEMS", "FROZENSET",
        "PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE", "GET", "BINGET", "LONG_BINGET",
    }
)  # fmt: skip


class UnsafeData(ValueError):
    """A column value that would need code to run (or too much memory) to read."""


class _NoGlobals(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise UnsafeData(f"the pickle names {module}.{name}: only plain data is read")

    def persistent_load(self, pid: Any) -> Any:
        raise UnsafeData("the pickle refers to a persistent object: only plain data is read")


def plain_unpickle(data: bytes) -> Any:
    """The plain data in a pickle, or UnsafeData when it holds anything that could run code."""
    try:
        for opcode, _arg, _pos in pickletools.genops(data):
            if opcode.name not in PLAIN_OPCODES:
                raise UnsafeData(f"the pickle uses opcode {opcode.name}: only plain data is read")
    except UnsafeData:
        raise
    except Exception as exc:  # noqa: BLE001 - any malformed stream
        raise UnsafeData(f"not a readable pickle: {type(exc).__name__}: {exc}") from None
    try:
        return _NoGlobals(io.BytesIO(data)).load()
    except UnsafeData:
        raise
    except Exception as exc:  # noqa: BLE001
        raise UnsafeData(f"not a readable pickle: {type(exc).__name__}: {exc}") from None


def bounded_decompress(data: bytes, limit: int = MAX_DECODED_BYTES) -> bytes:
    """zlib-inflate ``data``, refusing output past ``limit`` bytes (a small blob can expand without bound)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise UnsafeData(f"not zlib data: {exc}") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise UnsafeData(f"the compressed tests expand past {limit >> 20} MB")
    return out


@functools.lru_cache(maxsize=16)  # a GRPO group decodes the same row's blob once
def decode_packed_tests(text: str) -> Any:
    """LiveCodeBench's private tests: JSON text, or base64(zlib(pickle(JSON text)))."""
    stripped = text.strip()
    if stripped[:1] in ("[", "{"):
        try:
            return json.loads(stripped)
        except ValueError:
            pass
    try:
        raw = base64.b64decode(stripped.encode("ascii"), validate=False)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise UnsafeData(f"neither JSON nor base64 text: {exc}") from None
    value = plain_unpickle(bounded_decompress(raw))
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError as exc:
            raise UnsafeData(f"the unpacked tests are not JSON: {exc}") from None
    return value


def parse_column(value: Any) -> Any:
    """A column as data: a string holding a JSON (or Python literal) object or list is read as one.

    Any other string is returned as it is (test code, a packed blob)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text[:1] not in ("{", "["):
        return value
    try:
        return json.loads(text)
    except ValueError:
        pass
    if len(text) > MAX_LITERAL_CHARS:
        return value
    try:
        with AST_LOCK:
            return ast.literal_eval(text)  # PrimeIntellect rows hold Python reprs (single quotes, True/None)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return value
