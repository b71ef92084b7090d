"""The functions the package root exports: look up verifiers, rewards and sandboxes by name, and build a reward
from a spec, in this process or on Ray actors."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.plugins.manager import PluginHost, default_host
from rewardkit.rewards import api as rewards_api
from rewardkit.rewards.base import Reward
from rewardkit.rewards.spec import load_spec
from rewardkit.sandbox.lookup import get_language, get_sandbox
from rewardkit.verifiers.lookup import get_verifier

__all__ = ["build_reward", "get_language", "get_sandbox", "get_verifier", "plugin_host"]


def plugin_host() -> PluginHost:
    """The process-wide plugin host (plugin manager plus registries)."""
    return default_host()


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
    return rewards_api.build_reward(data)
