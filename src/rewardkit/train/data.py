"""Training prompts: built-in toy tasks for CPU runs, or a JSONL file."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._jsonl import iter_jsonl


def addition_task(max_operand: int = 9, chat: bool = False) -> list[dict[str, Any]]:
    """Every ``a+b=`` with ``0 <= a, b <= max_operand``; ``answer`` is the sum (the verifiers' reference),
    ``target`` the completion a supervised warm-up teaches (``answer:7``, a form the math verifier reads)."""
    rows = []
    for a in range(max_operand + 1):
        for b in range(max_operand + 1):
            text = f"{a}+{b}="
            prompt: Any = [{"role": "user", "content": text}] if chat else text
            rows.append({"prompt": prompt, "answer": str(a + b), "target": f"answer:{a + b}"})
    return rows


def copy_task(length: int = 3, count: int = 200, alphabet: str = "abcdef", seed: int = 0) -> list[dict[str, Any]]:
    """``copy:xyz>`` → ``xyz``: the model must repeat the letters."""
    rng = random.Random(seed)
    rows = []
    for _ in range(count):
        word = "".join(rng.choice(alphabet) for _ in range(length))
        rows.append({"prompt": f"copy:{word}>", "answer": word})
    return rows


TASKS: dict[str, Callable[..., list[dict[str, Any]]]] = {"addition": addition_task, "copy": copy_task}


def load_examples(data: Any, seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(train rows, held-out eval rows); every row has a ``prompt`` plus the columns rewards receive."""
    if data.task is not None:
        if data.task not in TASKS:
            raise ConfigError(f"data.task: unknown task {data.task!r}; built-in tasks: {', '.join(sorted(TASKS))}")
        try:
            rows = TASKS[data.task](**data.task_params)
        except TypeError as exc:
            raise ConfigError(f"data.task_params for task {data.task!r}: {exc}") from None
    else:
        rows = _read_jsonl(Path(data.path), data.prompt_field)
    if data.chat:
        rows = [
            {**r, "prompt": [{"role": "user", "content": r["prompt"]}]} if isinstance(r["prompt"], str) else r
            for r in rows
        ]
    if data.eval_size >= len(rows):
        raise ConfigError(f"data.eval_size: {data.eval_size} leaves no training prompts out of {len(rows)}")
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    held = set(order[: data.eval_size])
    return [r for i, r in enumerate(rows) if i not in held], [rows[i] for i in sorted(held)]


def _read_jsonl(path: Path, prompt_field: str) -> list[dict[str, Any]]:
    if not path.is_file():
        raise ConfigError(f"data.path: {str(path)!r} does not exist")
    rows = []
    for line in iter_jsonl(path):
        row = line.row
        if row is None:
            raise ConfigError(f"data.path: {line.where}: {line.error}")
        if prompt_field not in row:
            raise ConfigError(f"data.prompt_field: {line.where} has no {prompt_field!r}; its fields: {', '.join(row)}")
        row["prompt"] = row.pop(prompt_field)
        rows.append(row)
    if not rows:
        raise ConfigError(f"data.path: {path} holds no rows")
    return rows


def epoch_order(n: int, seed: int, epoch: int) -> list[int]:
    """The prompt order of one pass over the data: a function of (seed, epoch) only, so resuming needs no state."""
    order = list(range(n))
    random.Random(seed * 1_000_003 + epoch).shuffle(order)
    return order


def batch_rows(rows: list[dict[str, Any]], seed: int, step: int, size: int) -> list[dict[str, Any]]:
    """The ``size`` prompts of training step ``step`` (0-based), walking through shuffled epochs."""
    start = step * size
    out = []
    for k in range(start, start + size):
        epoch, pos = divmod(k, len(rows))
        out.append(rows[epoch_order(len(rows), seed, epoch)[pos]])
    return out
