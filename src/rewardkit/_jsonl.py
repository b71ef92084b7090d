"""Read JSON Lines files: one JSON object a line, streamed, every line named by ``file:line``.

The one JSONL reader of the package (scoring input, ``--resume`` output, training prompts, run logs, Ray
text lines). It imports only the error module, so any layer may use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from rewardkit._errors import ConfigError


class JsonLine(NamedTuple):
    """One non-blank line: its object (``row``) or why it is not one (``error``), at ``where`` (file:line)."""

    where: str
    row: dict[str, Any] | None
    error: str | None = None


def parse_object(line: str | bytes) -> tuple[dict[str, Any] | None, str | None]:
    """``(object, None)`` for a line holding one JSON object; ``(None, why not)`` otherwise."""
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({exc.msg})"
    if not isinstance(row, dict):
        return None, f"expected a JSON object per line, got {type(row).__name__}"
    return row, None


def iter_jsonl(path: str | Path) -> Iterator[JsonLine]:
    """Every non-blank line of ``path`` as a :class:`JsonLine`, read as it is asked for (UTF-8).

    A file's lines end at newlines only, so a U+2028 inside a JSON string does not split its row. A line that is
    not valid UTF-8 is a JsonLine with ``error`` set (naming the byte), like a line that is not JSON."""
    path = Path(path)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                bad = raw[exc.start : exc.start + 1].hex()
                yield JsonLine(f"{path}:{number}", None, f"not valid UTF-8 (byte 0x{bad} at column {exc.start + 1})")
                continue
            if not line.strip():
                continue
            row, error = parse_object(line)
            yield JsonLine(f"{path}:{number}", row, error)


def read_jsonl(path: str | Path, context: str = "") -> Iterator[dict[str, Any]]:
    """Every object of ``path``, in order; a bad line raises ConfigError ``{context}{file:line}: why``."""
    for line in iter_jsonl(path):
        if line.row is None:
            raise ConfigError(f"{context}{line.where}: {line.error}")
        yield line.row
