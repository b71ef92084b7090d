"""environment_reward: TRL's per-rollout environments score their own rollouts, with a fallback reward."""

from __future__ import annotations

import pytest

import rewardkit as rk


class Counter:
    """An environment as TRL's environment_factory makes them: tools as methods, state, its own reward."""

    def __init__(self) -> None:
        self.total = 0

    def reset(self) -> None:
        self.total = 0

    def add(self, n: int) -> int:
        """Add n to the total."""
        self.total += n
        return self.total

    def get_reward(self) -> float:
        return 1.0 if self.total == 3 else 0.0


class AsyncCounter(Counter):
    async def get_reward(self) -> float:  # type: ignore[override]
        return 0.25


class Broken(Counter):
    def get_reward(self) -> float:
        raise RuntimeError("the game server went away")


class Sloppy(Counter):
    def get_reward(self) -> float:
        return float("nan")


class NoReward:
    def reset(self) -> None:
        pass


def call(reward, environments, completions=None, **columns):
    extra: list = []
    n = len(environments)
    values = reward(
        prompts=None,
        completions=completions or ["done"] * n,
        environments=environments,
        log_extra=lambda column, vals: extra.append((column, vals)),
        **columns,
    )
    return values, dict(extra).get("environment_reward/status")


def test_each_environment_scores_its_own_rollout():
    done, short = Counter(), Counter()
    done.add(1), done.add(2), short.add(1)
    with rk.get_reward("environment_reward") as reward:
        values, statuses = call(reward, [done, short, AsyncCounter()])
    assert values == [1.0, 0.0, 0.25] and statuses == ["ok", "ok", "ok"]


def test_a_failing_environment_gets_none_not_zero():
    with rk.get_reward("environment_reward") as reward:
        values, statuses = call(reward, [Broken(), Sloppy(), None])
    assert values == [None, None, None]
    assert statuses == ["environment_error", "environment_error", "no_environment"]
    assert rk.is_infrastructure_failure("environment_error")


def test_rows_whose_environment_owns_no_reward_are_scored_by_the_fallback():
    call_text = '<tool_call>{"name": "add", "arguments": {"n": 3}}</tool_call>'
    owner = Counter()
    owner.add(3)
    with rk.get_reward("environment_reward", fallback="tool_call_accuracy") as reward:
        values, statuses = call(
            reward,
            [owner, NoReward(), NoReward()],
            completions=["done", call_text, "no call"],
            answer=[None, [{"name": "add", "arguments": {"n": 3}}], [{"name": "add", "arguments": {"n": 3}}]],
        )
    assert values == [1.0, 1.0, 0.0] and statuses == ["ok", "ok", "no_answer"]


def test_a_call_without_environments_is_a_configuration_error():
    with rk.get_reward("environment_reward") as reward, pytest.raises(rk.ConfigError, match="environment_factory"):
        reward(prompts=None, completions=["x"])
    with pytest.raises(rk.ConfigError, match="method must be a method name"):
        rk.get_reward("environment_reward", method="get reward")


def test_the_reward_method_can_be_renamed_and_the_reward_sits_in_a_spec():
    class Scored(NoReward):
        def score(self) -> float:
            return 0.5

    spec = {
        "combine": "sum",
        "terms": [{"reward": "environment_reward", "params": {"method": "score"}}, {"reward": "tag_format"}],
    }
    reward = rk.build_reward(spec)
    with reward:
        values = reward(prompts=None, completions=["<think>a</think><answer>b</answer>"], environments=[Scored()])
    assert values == [1.5]
