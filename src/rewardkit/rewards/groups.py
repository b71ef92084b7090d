"""The group contract: a reward that compares the completions of one prompt with each other (``group_length``,
``group_judge``) sets ``whole_groups = True``, and whoever splits a batch keeps each prompt's rows together.

A group is the rows of a call with an identical prompt (a string or the same chat messages) and the same
value in the reward's ``group_key`` column when it names one. TRL's ``GRPOTrainer`` places a prompt's
``num_generations`` completions next to each other in one call, so a call is already whole groups; the
places that cut or merge calls read :func:`group_columns` and :func:`group_spans`:

* the Ray executor cuts its chunks at group boundaries (one chunk when groups are not contiguous);
* the micro-batcher (the service, verl's Reward Loop) does not merge such a reward's calls, and its row
  isolation halves a failing call at group boundaries, so a group fails or scores whole;
* ``rewardkit score`` extends a ``--batch-size`` chunk to the end of the group it stops in;
* ``rewardkit score --ray`` (Ray Data blocks) refuses such a reward with a ConfigError.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from rewardkit.rewards.inputs import Batch


def group_columns(reward: Any) -> list[str | None] | None:
    """None when no part of ``reward`` needs whole groups; else the ``group_key`` column of each part that does
    (None for a part grouping by prompt alone)."""
    found: list[str | None] = []
    for leaf in _leaves(reward):
        if getattr(leaf, "whole_groups", False):
            keys = getattr(leaf, "group_keys", None)  # a reward standing for a spec (the Ray executor's)
            for key in keys if isinstance(keys, list) else [getattr(leaf, "group_key", None)]:
                if key not in found:
                    found.append(key)
    return found or None


def _leaves(reward: Any) -> Iterator[Any]:
    if getattr(reward, "whole_groups", False):  # a group reward may hold terms of its own (its correctness)
        yield reward
        return
    all_terms = getattr(reward, "all_terms", None)
    if callable(all_terms):
        for term in all_terms():
            yield from _leaves(term.reward)
        return
    inner = getattr(reward, "inner", None)
    if inner is not None and hasattr(inner, "score"):
        yield from _leaves(inner)
        return
    yield reward


def row_group_key(prompt: Any, row_values: Sequence[Any]) -> str:
    """The identity of a row's group: its prompt and its values of the grouping columns."""
    return json.dumps([prompt, list(row_values)], sort_keys=True, default=repr)


def prompt_groups(batch: Batch, keys: Iterable[str | None] = (None,)) -> list[list[int]]:
    """The rows of each group of ``batch``, in first-seen order; rows need not be adjacent."""
    names = [k for k in keys if k]
    columns = [batch.columns.get(k, [None] * len(batch)) for k in names]
    groups: dict[str, list[int]] = {}
    for i, prompt in enumerate(batch.prompts):
        groups.setdefault(row_group_key(prompt, [c[i] for c in columns]), []).append(i)
    return list(groups.values())


def group_spans(batch: Batch, size: int, keys: Iterable[str | None] = (None,)) -> list[tuple[int, int]]:
    """``(start, end)`` chunks of about ``size`` rows (at least one group each) that cut no group; the whole
    batch as one chunk when some group's rows are not adjacent."""
    groups = prompt_groups(batch, keys)
    if any(g != list(range(g[0], g[0] + len(g))) for g in groups):
        return [(0, len(batch))]
    spans: list[tuple[int, int]] = []
    start = 0
    for group in sorted(groups):
        end = group[-1] + 1
        if end - start >= size:
            spans.append((start, end))
            start = end
    if start < len(batch):
        spans.append((start, len(batch)))
    return spans


def whole_group_chunks(rows: Iterator[Any], size: int, key_of: Any) -> Iterator[list[Any]]:
    """``rows`` in chunks of ``size``, each extended to the end of the run of rows with its last row's key."""
    chunk: list[Any] = []
    for row in rows:
        if len(chunk) >= size and key_of(row) != key_of(chunk[-1]):
            yield chunk
            chunk = []
        chunk.append(row)
    if chunk:
        yield chunk
