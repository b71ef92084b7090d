"""The shape of the held-out code rows: a dataset row, its programs, and the verdict each program deserves.

Crashing and hanging programs are added to every row in the style of its layout (a stdin program, a
function, a ``class Solution`` method, a module of functions), rotating through a few ways to crash and to
hang; completions are wrapped the ways models write them (a fence after some prose, prose after the fence,
bare code, a ``py`` fence, a chat turn, a first draft and then the final block).
"""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from dataclasses import dataclass
from typing import Any

STDIN_CRASHES = (
    "import sys\ndata = sys.stdin.read().split()\nprint(int(data[0]) // 0)",
    "line = input()\nraise SystemExit(3)",
    "import sys\nsys.stdin.readline()\nprint([][5])",
)
STDIN_HANGS = (
    "while True:\n    pass",
    "import time\ninput()\ntime.sleep(60)",
    "import sys\ntext = sys.stdin.read()\nwhile text:\n    text = text + ''",
)
CALL_CRASHES = ("raise RuntimeError('unsupported')", "return 1 // 0", "return [][0]")
CALL_HANGS = (
    "while True:\n        pass",
    "import time\n    time.sleep(60)",
    "n = 0\n    while n >= 0:\n        n += 1",
)


@dataclass(frozen=True)
class Program:
    name: str
    completion: Any  # text, or chat messages
    score: float
    status: str | None  # None: the status is not asserted (a dataset's rule decides only the score)


@dataclass(frozen=True)
class Row:
    dataset: str
    key: str
    row: dict[str, Any]
    programs: tuple[Program, ...]
    index: int

    @property
    def id(self) -> str:
        return f"{self.dataset}-{self.index}"


def packed(tests: list[dict[str, Any]]) -> str:
    """LiveCodeBench's private-test packing: base64 text of zlib-compressed pickled JSON text."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(tests)))).decode("ascii")


def wrap(code: str, style: int) -> Any:
    code = code.strip("\n")
    styles = (
        lambda: f"Read the input, then compute the answer.\n\n```python\n{code}\n```\n",
        lambda: f"```python\n{code}\n```\n\nThis runs in linear time because each element is visited once.",
        lambda: code + "\n",
        lambda: f"Solution:\n```py\n{code}\n```",
        lambda: [{"role": "assistant", "content": f"Here you go.\n```python\n{code}\n```"}],
        lambda: (
            f"A first draft:\n```python\nprint('draft')\n```\nOn reflection, the final answer:\n\n"
            f"```python\n{code}\n```\n"
        ),
    )
    return styles[style % len(styles)]()


def function_crash(name: str, index: int, method: bool = False) -> str:
    body = CALL_CRASHES[index % len(CALL_CRASHES)]
    if method:
        return f"class Solution:\n    def {name}(self, *args):\n        " + body.replace("\n    ", "\n        ")
    return f"def {name}(*args, **kwargs):\n    {body}"


def function_hang(name: str, index: int, method: bool = False) -> str:
    body = CALL_HANGS[index % len(CALL_HANGS)]
    if method:
        return f"class Solution:\n    def {name}(self, *args):\n        " + body.replace("\n    ", "\n        ")
    return f"def {name}(*args, **kwargs):\n    {body}"


ROWS: list[Row] = []


def add(
    dataset: str,
    key: str,
    row: dict[str, Any],
    programs: dict[str, tuple[Any, ...]],
    *,
    kind: str = "stdin",
    fn: str | tuple[str, ...] = "",
    raw: tuple[str, ...] = (),
) -> None:
    """Add a row with its programs, ``name: (code, score[, status])``; crash and hang follow ``kind``
    (``stdin``, ``call``, ``method``, ``module``: every name in ``fn`` crashes or hangs). Programs named in
    ``raw`` are passed exactly as written, never wrapped."""
    index = len(ROWS)
    names = (fn,) if isinstance(fn, str) else fn
    if kind == "stdin":
        crash, hang = STDIN_CRASHES[index % 3], STDIN_HANGS[index % 3]
    else:
        crash = "\n".join(function_crash(n, index, kind == "method") for n in names)
        hang = "\n".join(function_hang(n, index, kind == "method") for n in names)
    built = []
    for offset, (name, spec) in enumerate({**programs, "crash": (crash, 0.0, "runtime_error"),
                                           "hang": (hang, 0.0, "timeout")}.items()):  # fmt: skip
        code, score, status = (*spec, "ok")[:3] if len(spec) == 2 else spec
        completion = code if name in raw else wrap(code, index + offset)
        built.append(Program(name, completion, float(score), status))
    ROWS.append(Row(dataset, key, row, tuple(built), index))
