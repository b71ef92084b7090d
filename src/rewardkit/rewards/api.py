"""get_reward and build_reward (the rewards issue fills these in)."""

from __future__ import annotations

from typing import Any

from rewardkit import _factories
from rewardkit._errors import ConfigError
from rewardkit.plugins.manager import default_host


def get_reward(name: str, **params: Any) -> Any:
    """A reward callable registered under ``name``."""
    return _factories.create(default_host().registries.rewards, name, params)


def build_reward(spec: Any) -> Any:
    """A reward callable composed from a spec (dict, or path to YAML/JSON)."""
    raise ConfigError("build_reward is not available yet")
