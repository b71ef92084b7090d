"""``register_combinators`` adds combinators; a plugin implementing a hook rewardkit lacks (``register_shapers``)
is refused with an error that names the hooks there are."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.plugins.hookspecs import Register
from rewardkit.plugins.manager import PluginHost
from rewardkit.rewards.combinators import Combinator
from rewardkit.rewards.spec import SpecBuilder


class Halve(Combinator):
    """Half the sum of the weighted terms (a combinator of the tests' own)."""

    def combine(self, row: dict[str, list[float | None]]) -> float | None:
        return sum(v or 0.0 for v in row["terms"]) / 2


class NewStylePlugin:
    @rk.hookimpl
    def register_combinators(self, register: Register) -> None:
        register("halve", Halve)


class OldStylePlugin:
    @rk.hookimpl
    def register_shapers(self, register: Register) -> None:
        register("halve", Halve)


def _halve_spec() -> dict[str, Any]:
    return {"combine": "halve", "terms": [{"reward": "tag_format"}]}


def _host() -> PluginHost:
    return PluginHost(load_entry_points=False)


def test_register_combinators_adds_a_combinator_without_a_warning() -> None:
    host = _host()
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        name = host.register(NewStylePlugin(), name="new-style")
    assert host.registries.combinators.owner("halve") == name
    reward = SpecBuilder(host.registries).build(_halve_spec())
    assert reward(prompts=None, completions=["<think>a</think><answer>b</answer>", "no tags"]) == [0.5, 0.0]


def test_an_unknown_hook_register_shapers_is_refused_naming_the_hooks_there_are() -> None:
    host = _host()
    with pytest.raises(rk.PluginError, match=r"register_shapers.*rewardkit hooks are: .*register_combinators"):
        host.register(OldStylePlugin(), name="old-style")
    assert "halve" not in host.registries.combinators.names()
