"""``rk.score_rows``: score rows in Python and get, per row, the total, each component and each verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit.rewards.base import Reward


def score_rows(
    reward: Reward | Mapping[str, Any] | str | Path,
    rows: Sequence[Mapping[str, Any]],
    *,
    batch_size: int = 64,
    workers: int = 1,
    completion_key: str = "completion",
    prompt_key: str = "prompt",
) -> list[dict[str, Any]]:
    """One dict per row, in input order: ``reward``, ``components``, ``status``, ``extracted``, ``verdicts``.

    ``reward`` is a reward (or any TRL reward function), a spec (dict, or a YAML/JSON path) or a registered
    reward name. Each row holds the completion (``completion_key``: a string or chat messages), optionally
    the prompt, and the columns the reward reads. This is the scoring ``rewardkit score`` does, in process;
    a reward this call builds from a spec or name is closed afterwards.
    """
    from rewardkit.scoring.batch_scoring import score_rows as score_batches

    built = _reward_of(reward)
    owned = isinstance(reward, (Mapping, str, Path))
    try:
        scored, _ = score_batches(
            built,
            [dict(r) for r in rows],
            batch_size=batch_size,
            workers=workers,
            completion_key=completion_key,
            prompt_key=prompt_key,
        )
    finally:
        if owned:
            built.close()
    return scored


def _reward_of(reward: Any) -> Reward:
    from rewardkit.scoring.loading import resolve_reward

    return resolve_reward(reward)
