"""``rk.get_reward`` (a registered reward by name) and ``build_reward`` (a reward composed from a spec, built in
this process), always as a :class:`Reward`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.plugins.manager import default_host
from rewardkit.rewards.base import Reward, as_reward
from rewardkit.rewards.spec import SpecBuilder, load_spec


def get_reward(name: str, **params: Any) -> Reward:
    """The reward registered under ``name``, ready to pass to ``GRPOTrainer(reward_funcs=[...])``.

    One registered as a factory (a class, or a function marked with ``@reward_factory``) is called with
    ``params``; one registered as a plain TRL reward function is wrapped (with ``params``, bound as a
    picklable ``functools.partial``), so every reward has ``explain``, ``as_async`` and combinators' support.
    Unknown names and bad parameters raise ConfigError.
    """
    return as_reward(default_host().registries.rewards.create(name, params), name)


def build_reward(spec: Mapping[str, Any] | str | Path) -> Reward:
    """The reward of ``spec`` (a dict or a YAML/JSON path) built in this process, every field checked: what
    ``rk.build_reward`` returns without an executor, and what each Ray actor builds from the spec it is sent."""
    return SpecBuilder(default_host().registries).build(load_spec(spec))
