"""One way from whatever names a reward to a Reward (``scoring.loading.resolve_reward``), used by the CLI,
``rk.score_rows``, the verl adapter and the pytest fixtures: each kind of input, and what is wrong with a bad one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rewardkit as rk
from rewardkit._errors import ConfigError
from rewardkit.scoring.loading import is_spec_path, resolve_reward, spec_data

TAGGED = "<think>a</think><answer>b</answer>"
SPEC = {"combine": "sum", "terms": [{"reward": "tag_format"}]}


def _values(reward: rk.Reward) -> list:
    try:
        return reward(prompts=["q", "q"], completions=[TAGGED, "none"])
    finally:
        reward.close()


def test_every_way_to_name_a_reward_gives_the_same_reward(tmp_path: Path) -> None:
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(SPEC))
    bare = tmp_path / "spec_without_suffix"
    bare.write_text(json.dumps(SPEC))

    def tagged(prompts, completions, **kwargs):  # type: ignore[no-untyped-def]
        return [1.0 if c == TAGGED else 0.0 for c in completions]

    built = rk.build_reward(SPEC)
    for named in (SPEC, path, str(path), str(bare), "tag_format", tagged, built):
        assert _values(resolve_reward(named)) == [1.0, 0.0], named


def test_the_one_rule_for_a_path() -> None:
    assert is_spec_path("a/b.yaml") and is_spec_path("x.YML") and is_spec_path("x.json") and is_spec_path(Path("x"))
    assert not is_spec_path("math_accuracy") and not is_spec_path("package.module:function")


def test_bad_names_say_what_was_expected(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown reward 'no_such_reward'"):
        resolve_reward("no_such_reward")
    with pytest.raises(ConfigError, match="verl route 'x': unknown reward"):
        resolve_reward("no_such_reward", where="verl route 'x'")
    with pytest.raises(ConfigError, match="expected a Reward, a spec dict, a YAML/JSON spec path"):
        resolve_reward(42)
    with pytest.raises(ConfigError, match="is a spec, which gives each term its own 'params'"):
        resolve_reward(str(tmp_path / "s.yaml"), {"timeout": 1})
    with pytest.raises(ConfigError, match="has no term that reads a reference column"):
        resolve_reward("tag_format", reference_key="gold")
    reward = resolve_reward("math_accuracy", {"timeout": 5}, reference_key="gold")
    try:
        assert reward(prompts=["q"], completions=[r"\boxed{4}"], gold=["4"]) == [1.0]
    finally:
        reward.close()


def test_the_spec_a_ray_actor_is_sent_builds_the_same_reward_as_what_named_it(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(json.dumps(SPEC))  # JSON is YAML
    assert spec_data(path) == spec_data(str(path)) == spec_data(SPEC) == SPEC  # a file is read here
    assert spec_data("tag_format") == {"reward": "tag_format"}
    named = spec_data("tag_format", {"strict": True})
    assert named == {"reward": "tag_format", "params": {"strict": True}}
    assert _values(rk.build_reward(named)) == _values(resolve_reward("tag_format", {"strict": True}))
