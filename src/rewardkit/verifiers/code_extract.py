"""Take the program out of a completion: the last ```python block, else the last fenced block, else all."""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n(.*?)^[ \t]*\1[ \t]*$", re.DOTALL | re.MULTILINE)
_PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})


def extract_program(text: str) -> str:
    """The program in ``text``; a block left open at the end (a truncated completion) counts too."""
    blocks = [(m.group(2).strip().lower().split(" ")[0], m.group(3)) for m in _FENCE.finditer(text)]
    python_blocks = [body for tag, body in blocks if tag in _PYTHON_TAGS]
    if python_blocks:
        return python_blocks[-1]
    if blocks:
        return blocks[-1][1]
    unclosed = re.search(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*)\n", text, re.MULTILINE)
    if unclosed is not None:
        return text[unclosed.end():]
    return text
