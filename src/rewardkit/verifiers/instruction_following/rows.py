"""A dataset row's instructions, in the layouts the instruction-following datasets store them.

- google/IFEval: the reference is ``instruction_id_list`` (a list of ids) and the context ``kwargs`` is a
  list with one dict per id, where every argument of every instruction is present and the unused ones are
  None (Hugging Face's columnar layout).
- open-instruct (RLVR-IFeval, Tülu 3 / OLMo 2 IF data): the reference is ``ground_truth``, a JSON string of
  ``{"instruction_id": [...], "kwargs": [...]}``, or a list of such objects (their constraints add up).
- open-instruct's older single-constraint rows (allenai/RLVR-IFeval): ``ground_truth`` is JSON of
  ``{"func_name": "verify_keywords", "keyword_list": [...], "N": null, ...}``; the function's arguments sit
  beside its name. It reads as the instruction ``func_name:<name>``.
- a mapping with ``instruction_id_list`` or ``instruction_id`` and ``kwargs``, as a dict or as JSON text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

ID_KEYS = ("instruction_id_list", "instruction_id", "instruction_ids")
FUNC_NAME = "func_name"


class BadRow(ValueError):
    """The row's instructions cannot be read: the dataset's problem, not the model's."""


@dataclass(frozen=True)
class Instruction:
    id: str
    kwargs: Mapping[str, Any]


def read_instructions(reference: Any, kwargs: Any = None) -> list[Instruction]:
    """The instructions a row asks for; ``kwargs`` is the row's separate kwargs column (google/IFEval)."""
    reference = _plain(reference)
    if isinstance(reference, str):
        text = reference.strip()
        if text[:1] in "[{":
            try:
                return read_instructions(json.loads(text), kwargs)
            except json.JSONDecodeError as exc:
                raise BadRow(f"the reference is not valid JSON ({exc.msg} at character {exc.pos})") from None
        return _pair([text], kwargs)
    if isinstance(reference, Mapping):
        return _from_mapping(reference)
    if isinstance(reference, Sequence) and not isinstance(reference, bytes):
        items = [_plain(item) for item in reference]
        if items and all(isinstance(item, Mapping) for item in items):
            return [instruction for item in items for instruction in _from_mapping(item)]
        if all(isinstance(item, str) for item in items):
            return _pair(items, kwargs)
    raise BadRow(
        "the reference must be a list of instruction ids, a mapping with instruction_id_list (or instruction_id) "
        f"and kwargs, or that as JSON text; got {type(reference).__name__}: {str(reference)[:120]!r}"
    )


def _from_mapping(row: Mapping[str, Any]) -> list[Instruction]:
    key = next((k for k in ID_KEYS if k in row), None)
    if key is None and isinstance(row.get(FUNC_NAME), str):
        args = {k: _plain(v) for k, v in row.items() if k != FUNC_NAME}
        return [Instruction(f"{FUNC_NAME}:{row[FUNC_NAME].strip()}", args)]
    if key is None:
        keys = (*ID_KEYS, FUNC_NAME)
        raise BadRow(f"the reference mapping has no {' or '.join(keys)}; its keys: {', '.join(map(str, row))}")
    ids = _plain(row[key])
    return _pair([ids] if isinstance(ids, str) else ids, row.get("kwargs"))


def _pair(ids: Any, kwargs: Any) -> list[Instruction]:
    ids = _plain(ids)
    if not isinstance(ids, Sequence) or isinstance(ids, str) or not ids:
        raise BadRow(f"the row names no instruction ids: {ids!r}")
    if not all(isinstance(i, str) and i.strip() for i in ids):
        raise BadRow(f"instruction ids must be non-empty strings, got {list(ids)!r}")
    kwargs = _plain(kwargs)
    if isinstance(kwargs, str):
        try:
            kwargs = json.loads(kwargs)
        except json.JSONDecodeError:
            raise BadRow(f"kwargs is text that is not JSON: {kwargs[:120]!r}") from None
    if kwargs is None:
        kwargs = [{} for _ in ids]
    elif isinstance(kwargs, Mapping) and len(ids) == 1:
        kwargs = [kwargs]
    if not isinstance(kwargs, Sequence) or isinstance(kwargs, str) or len(kwargs) != len(ids):
        count = len(kwargs) if isinstance(kwargs, Sequence) and not isinstance(kwargs, str) else type(kwargs).__name__
        raise BadRow(f"kwargs must be a list with one mapping per instruction id ({len(ids)}), got {count}")
    pairs = []
    for instruction_id, args in zip(ids, kwargs, strict=True):
        args = _plain(args)
        if args is None:
            args = {}
        if not isinstance(args, Mapping):
            raise BadRow(f"the kwargs of {instruction_id} must be a mapping, got {type(args).__name__}")
        pairs.append(Instruction(instruction_id.strip(), dict(args)))
    return pairs


def _plain(value: Any) -> Any:
    """A numpy array or pyarrow value (datasets in numpy/arrow format) as plain Python."""
    if hasattr(value, "as_py"):
        return value.as_py()
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    return value
