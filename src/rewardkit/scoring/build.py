"""``rk.build_reward``: a reward composed from a spec, run in this process or on Ray actors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.rewards.base import Reward
from rewardkit.rewards.spec import build_in_process, load_spec


def build_reward(
    spec: Mapping[str, Any] | str | Path, *, executor: str | None = None, **executor_options: Any
) -> Reward:
    """A reward composed from a spec: a dict, or the path of a YAML or JSON file (see docs/rewards.md).

    Every field is checked now: an unknown reward or combinator, a bad parameter or a wrong type raises
    ConfigError naming the field (``spec.terms[1].params``), what was expected and what exists.
    ``executor="ray"`` (with ``address=``, ``actors=``, ...) or an ``executor:`` block in the spec runs the
    reward's verification on Ray actors (see docs/scale-out.md).
    """
    data = load_spec(spec)
    if executor is not None or executor_options or "executor" in data:
        from rewardkit.scoring.ray_executor import build_with_executor

        return build_with_executor(data, executor, executor_options)
    return build_in_process(data)
