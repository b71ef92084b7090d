"""The ``rewardkit_call_reward`` fixture, exercised by real pytest runs (pytester)."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

REWARDS = """
import rewardkit as rk


def shouting(prompts, completions, **kwargs):
    return [1.0 if rk.completion_text(c).isupper() else 0.0 for c in completions]


def plain_only(prompts, completions, **kwargs):
    return [1.0 if c.isupper() else 0.0 for c in completions]


def logs(prompts, completions, answer, log_metric=None, log_extra=None, trainer_state=None, **kwargs):
    hits = [float(rk.completion_text(c) == a) for c, a in zip(completions, answer)]
    if log_metric is not None:
        log_metric("hits/mean", sum(hits) / len(hits))
    if log_extra is not None:
        log_extra("gold", list(answer))
        log_extra("step", [trainer_state.global_step] * len(completions))
    return hits


def short_extra(prompts, completions, log_extra=None, **kwargs):
    log_extra("oops", [1])
    return [0.0] * len(completions)


def one_value(prompts, completions, **kwargs):
    return [1.0]


async def async_len(prompts, completions, **kwargs):
    return [float(len(rk.completion_text(c))) for c in completions]


class Plugin:
    @rk.hookimpl
    def register_rewards(self, register):
        register("shouting", shouting)
        register("logs", logs)
"""


@pytest.fixture(autouse=True)
def _plugin_env(monkeypatch):
    for var in ("REWARDKIT_BLOCK_PLUGINS", "REWARDKIT_ALLOW_PLUGINS"):
        monkeypatch.delenv(var, raising=False)


def test_call_reward_runs_plain_and_chat_with_columns_and_logging(pytester):
    pytester.makeconftest(REWARDS)
    pytester.makepyfile(
        """
        from conftest import Plugin, async_len

        def test_registered_plain_function(rewardkit_register, rewardkit_call_reward):
            rewardkit_register(Plugin())
            call = rewardkit_call_reward("shouting", ["LOUD", "quiet"], expected=[1.0, 0.0])
            assert call.values == call.chat_values == [1.0, 0.0]

        def test_columns_log_metric_and_log_extra(rewardkit_register, rewardkit_call_reward):
            rewardkit_register(Plugin())
            call = rewardkit_call_reward("logs", ["4", "5"], answer=["4", "4"], expected=[1.0, 0.0])
            assert call.metrics == {"hits/mean": [0.5, 0.5]}          # plain call, then chat call
            assert call.extra == {"gold": ["4", "4", "4", "4"], "step": [0, 0, 0, 0]}

        def test_a_spec_and_its_components(rewardkit_call_reward):
            spec = {"name": "acc_fmt", "combine": "sum", "terms": [
                {"reward": "math_accuracy"}, {"reward": "think_format", "weight": 0.5}]}
            call = rewardkit_call_reward(spec, ["<think>x</think>\\\\boxed{4}", "\\\\boxed{4} or \\\\boxed{5}"],
                                         answer=["4", "4"], expected=[1.5, 0.0])
            assert call.metrics["rewards/acc_fmt/math_accuracy/mean"] == [0.5, 0.5]
            assert call.extra["acc_fmt/math_accuracy/status"] == ["ok", "hedged"] * 2
            assert call.extra["acc_fmt/think_format"] == [1.0, 0.0] * 2

        def test_async_reward_and_chat_completions_given_as_is(rewardkit_call_reward):
            call = rewardkit_call_reward(async_len, [[{"role": "assistant", "content": "abc"}]], expected=[3.0])
            assert call.chat_values is None   # already chat: called once, as given
        """
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=4)


def test_call_reward_fails_readably(pytester):
    pytester.makeconftest(REWARDS)
    pytester.makepyfile(
        """
        from conftest import Plugin, one_value, plain_only, short_extra, shouting

        def test_wrong_expected(rewardkit_call_reward):
            rewardkit_call_reward(shouting, ["LOUD", "quiet"], expected=[1.0, 1.0])

        def test_plain_only_reward_breaks_on_chat(rewardkit_call_reward):
            rewardkit_call_reward(plain_only, ["LOUD"])

        def test_wrong_count(rewardkit_call_reward):
            rewardkit_call_reward(one_value, ["a", "b"], chat=False)

        def test_log_extra_needs_one_value_per_completion(rewardkit_call_reward):
            rewardkit_call_reward(short_extra, ["a", "b"], chat=False)
        """
    )
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines(
        [
            "*reward 'shouting' returned other values than expected:*",
            "*!= #1 expected=1.0 got=0.0  completion='quiet'",
            "*AttributeError*isupper*",
            "*reward 'one_value' returned 1 values for 2 completions*",
            "*log_extra column 'oops' got 1 values for 2 completions*",
        ]
    )


def test_call_reward_fixture_loads_through_the_entry_point(pytester):
    pytester.makepyfile(
        """
        def test_builtin(rewardkit_call_reward):
            rewardkit_call_reward("think_format", ["<think>a</think>b", "b"], expected=[1.0, 0.0])
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--fixtures")
    result.stdout.fnmatch_lines(["*rewardkit_call_reward*"])
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
