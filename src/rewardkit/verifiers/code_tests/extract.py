"""Take the program out of a completion: the last ```python block, else the last fenced block, else all.

A line scanner, linear in the completion's length (a regex with a lazy body and a back-reference costs
quadratic time on a completion of many unclosed fences, on the host, before any sandbox limit applies).
It finds exactly the blocks the regex ``^[ \\t]*(`{3,}|~{3,})[ \\t]*([^\\n`]*)\\n(.*?)^[ \\t]*\\1[ \\t]*$``
(MULTILINE, DOTALL) found with ``finditer``:

* an opener is a line of optional spaces/tabs, a run of 3 or more backticks or tildes, then an info
  string without backticks, and a newline after it;
* its block ends at the first later line made of optional spaces/tabs, the same run (same character,
  same length) and optional spaces/tabs; an opener with no such line opens no block, and the next line
  is tried as an opener;
* a run of n tildes with no closer of n tildes is retried as n-1, n-2, ... 3 tildes (the regex's
  backtracking), the rest of the run then being part of the info string;
* the search for the next block starts on the line after a block's closer.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from typing import NamedTuple

_HEAD = re.compile(r"[ \t]*(`{3,}|~{3,})")
PYTHON_TAGS = frozenset({"python", "py", "python3", "py3"})


class _Line(NamedTuple):
    """One line, parsed as a possible fence: ``char * run`` after the indent, then ``rest``."""

    start: int  # offset of the line in the text
    end: int  # offset of its newline (or of the text's end)
    char: str  # "`" or "~"; "" when the line is no fence
    run: int
    rest: str  # what follows the run, up to the newline


def _parse(text: str, start: int, end: int) -> _Line:
    head = _HEAD.match(text, start, end)  # no nested repeats: linear in the line's length
    if head is None:
        return _Line(start, end, "", 0, "")
    run = head.group(1)
    return _Line(start, end, run[0], len(run), text[head.end() : end])


def _lines(text: str) -> list[_Line]:
    found = []
    start = 0
    size = len(text)
    while True:
        end = text.find("\n", start)
        if end < 0:
            found.append(_parse(text, start, size))
            return found
        found.append(_parse(text, start, end))
        start = end + 1


def _can_open(line: _Line, text: str) -> bool:
    return bool(line.char) and "`" not in line.rest and line.end < len(text)


def _fenced_blocks(text: str, lines: list[_Line]) -> list[tuple[str, str]]:
    """(info string, body) of each block, in order."""
    closers: dict[tuple[str, int], list[int]] = {}
    for index, line in enumerate(lines):
        if line.char and not line.rest.strip(" \t"):
            closers.setdefault((line.char, line.run), []).append(index)
    tilde_runs = sorted(run for char, run in closers if char == "~")
    blocks = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not _can_open(line, text):
            index += 1
            continue
        # at most min(run, distinct closer runs) tries, so the tries of all openers sum to under len(text)
        runs = [line.run] if line.char == "`" else tilde_runs[: bisect_right(tilde_runs, line.run)][::-1]
        for run in runs:
            candidates = closers.get((line.char, run), [])
            at = bisect_right(candidates, index)
            if at < len(candidates):
                close = candidates[at]
                info = line.rest.lstrip(" \t") if run == line.run else "~" * (line.run - run) + line.rest
                blocks.append((info, text[line.end + 1 : lines[close].start]))
                index = close + 1
                break
        else:
            index += 1
    return blocks


def extract_program(text: str) -> str:
    """The program in ``text``; a block left open at the end (a truncated completion) counts too."""
    return extract_tagged(text)[1]


def extract_tagged(text: str, preferred: Sequence[frozenset[str]] = (PYTHON_TAGS,)) -> tuple[str, str]:
    """(fence tag, program): the last block tagged with one of the first set of ``preferred`` (lower-case) tags
    any block has, else the last fenced block, else a block left open at the end, else all (tag "")."""
    lines = _lines(text)
    blocks = [(_tag(info), body) for info, body in _fenced_blocks(text, lines)]
    for tags in preferred:
        chosen = [(tag, body) for tag, body in blocks if tag in tags]
        if chosen:
            return chosen[-1]
    if blocks:
        return blocks[-1]
    for line in lines:
        if _can_open(line, text):
            return _tag(line.rest), text[line.end + 1 :]
    return "", text


def _tag(info: str) -> str:
    return info.strip().lower().split(" ")[0]
