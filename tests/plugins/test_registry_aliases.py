"""``Alias``: a second name for a registered object, with parameters of its own that a caller may override."""

from __future__ import annotations

import pytest

import rewardkit as rk
from rewardkit.plugins.registry import Alias, Registry


def shout(prompts, completions, loud: float = 1.0, **kwargs):
    return [loud] * len(completions)


def _registry() -> Registry:
    registry = Registry("reward", functions=True)
    registry.add("shout", shout, "test")
    registry.add("yell", Alias("shout", {"loud": 2.0}, "elsewhere"), "test")
    registry.add("holler", Alias("shout"), "test")
    return registry


def test_an_alias_makes_its_target_with_its_params_under_the_callers_and_its_own_name():
    registry = _registry()
    yell = registry.create("yell")
    assert yell(None, ["a", "b"]) == [2.0, 2.0] and yell.__name__ == "yell"
    assert registry.create("yell", {"loud": 3.0})(None, ["a"]) == [3.0]
    holler = registry.create("holler")
    assert holler(None, ["a"]) == [1.0] and holler.__name__ == "holler"
    assert shout.__name__ == "shout"  # the registered function itself is not renamed
    assert registry.names() == ["shout"] and sorted(registry.aliases()) == ["holler", "yell"]
    assert registry.listed_as("yell", Alias("shout", {}, "elsewhere")) == ("reward alias", "yell -> shout (elsewhere)")


def test_an_alias_of_nothing_or_a_second_alias_of_a_name_is_an_error():
    registry = _registry()
    registry.add("whisper", Alias("murmur"), "test")
    with pytest.raises(rk.ConfigError, match="reward 'whisper' is an alias of 'murmur', which is not registered"):
        registry.create("whisper")
    with pytest.raises(rk.PluginError, match="duplicate reward alias 'yell'"):
        registry.add("yell", Alias("shout"), "other")
    with pytest.raises(rk.ConfigError, match=r"bad parameters for reward 'shout'|loud"):
        registry.create("yell", {"volume": 1})


def test_a_registered_name_wins_over_an_alias_of_the_same_name_in_either_order():
    registry = _registry()
    registry.add("holler", lambda prompts, completions, **kw: [9.0] * len(completions), "test")  # after its alias
    registry.add("shout", Alias("holler"), "test")  # an alias after the registered name
    assert registry.create("holler")(None, ["a"]) == [9.0]
    assert registry.create("shout")(None, ["a"]) == [1.0]
    assert sorted(registry.aliases()) == ["yell"]
