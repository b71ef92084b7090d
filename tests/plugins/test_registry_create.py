"""Every lookup by name goes through Registry.create, so every kind reports bad parameters the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import rewardkit as rk

LOOKUPS: list[tuple[str, Callable[..., Any], str, str]] = [
    ("verifier", rk.get_verifier, "mcq", "letters, max_options"),
    ("reward", rk.get_reward, "tag_format", "tags, strict, prefix"),
    ("sandbox", rk.get_sandbox, "local", "isolation, limits"),
]


@pytest.mark.parametrize(("kind", "lookup", "name", "accepted"), LOOKUPS)
def test_an_unknown_parameter_names_the_kind_the_name_and_what_it_accepts(
    kind: str, lookup: Callable[..., Any], name: str, accepted: str
) -> None:
    with pytest.raises(rk.ConfigError) as info:
        lookup(name, bogus=1)
    message = str(info.value)
    assert message.startswith(f"bad parameters for {kind} {name!r}: ")
    assert "unexpected keyword argument 'bogus'" in message and f"it accepts: {accepted}" in message


@pytest.mark.parametrize(("kind", "lookup", "name", "accepted"), LOOKUPS)
def test_an_unknown_name_lists_what_is_registered(
    kind: str, lookup: Callable[..., Any], name: str, accepted: str
) -> None:
    with pytest.raises(rk.ConfigError, match=f"unknown {kind} 'nonesuch'; registered .*{name}"):
        lookup("nonesuch")


def test_a_spec_reports_the_same_message_at_its_field() -> None:
    with pytest.raises(rk.ConfigError) as info:
        rk.build_reward({"reward": "tag_format", "params": {"bogus": 1}})
    assert str(info.value).startswith("spec.params: bad parameters for reward 'tag_format': ")


def test_get_reward_always_returns_a_reward() -> None:
    assert isinstance(rk.get_reward("tag_format"), rk.Reward)
    assert isinstance(rk.get_reward("math_accuracy"), rk.Reward)
    assert isinstance(rk.get_reward(f"{__name__}:_plain"), rk.Reward)  # an importable function


def _plain(prompts: Any, completions: list[str], **kwargs: Any) -> list[float]:
    return [1.0 for _ in completions]
