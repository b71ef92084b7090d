"""The reward a command scores with: a spec file, or a registered reward's name with parameters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward


def is_spec_path(reward: str) -> bool:
    return Path(reward).suffix.lower() in (".yaml", ".yml", ".json") or Path(reward).is_file()


def load_reward(reward: str, params: dict[str, Any] | None = None, reference_key: str | None = None) -> Reward:
    """A spec file path, or the name of a registered reward built with ``params``; ``reference_key``
    makes every verifier-backed term read its reference from that column."""
    from rewardkit.rewards.api import get_reward
    from rewardkit.scoring.build import build_reward

    if is_spec_path(reward):
        if params:
            raise ConfigError(
                f"-p/--param sets the parameters of a registered reward name; {reward!r} is a spec, which "
                f"gives each term its own 'params'"
            )
        built = build_reward(reward)
    else:
        built = get_reward(reward, **(params or {}))
    if reference_key is not None:
        readers = [leaf for leaf in reward_leaves(built) if hasattr(leaf, "reference_key")]
        if not readers:
            raise ConfigError(
                f"--reference-key: reward {built.name!r} has no term that reads a reference column "
                f"(verifier-backed rewards such as math_accuracy do)"
            )
        for leaf in readers:
            leaf.reference_key = reference_key
    return built


def reward_leaves(reward: Any) -> Iterator[Any]:
    """The leaf rewards of a composed reward (through combinators' terms and ``where`` wrappers)."""
    all_terms = getattr(reward, "all_terms", None)
    if callable(all_terms):
        for term in all_terms():
            yield from reward_leaves(term.reward)
        return
    inner = getattr(reward, "inner", None)
    if inner is not None and hasattr(inner, "score"):
        yield from reward_leaves(inner)
        return
    yield reward
