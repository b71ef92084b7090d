"""judge_accuracy and hybrid_accuracy called as TRL calls a reward, against a real loopback server."""

from __future__ import annotations

from judge_server import block, user_message, verdict_json

import rewardkit as rk


def call(reward, **kwargs):
    metrics, extra = {}, {}
    values = reward(log_metric=metrics.__setitem__, log_extra=extra.__setitem__, trainer_state=None, **kwargs)
    return values, metrics, extra


def test_judge_accuracy_pays_one_zero_and_none_for_a_judge_error(scripted):
    def script(messages):
        candidate = block(user_message(messages), "candidate")
        return (
            "no verdict here"
            if candidate == "garbled"
            else verdict_json("correct" if candidate == "4" else "incorrect")
        )

    server = scripted(script)
    spec = {
        "reward": "judge_accuracy",
        "params": {"base_url": server.base_url, "model": "m", "price_per_prompt_token": 1e-6},
    }
    with rk.build_reward(spec) as reward:
        prompts = [[{"role": "system", "content": "be brief"}, {"role": "user", "content": "What is 2+2?"}]] * 3
        completions = [[{"role": "assistant", "content": c}] for c in ("4", "5", "garbled")]
        values, metrics, extra = call(reward, prompts=prompts, completions=completions, answer=["4"] * 3)
    assert values == [1.0, 0.0, None]
    assert extra["judge_accuracy/status"] == ["ok", "ok", "judge_error"]
    assert metrics["rewards/judge_accuracy/status/judge_error"] == 1 / 3
    assert metrics["rewards/judge_accuracy/infrastructure_failure_rate"] == 1 / 3
    assert (
        metrics["rewards/judge_accuracy/judge_prompt_tokens"] > 0
        and metrics["rewards/judge_accuracy/judge_requests"] == 3
    )
    assert metrics["rewards/judge_accuracy/judge_cost"] > 0
    assert all(block(user_message(b["messages"]), "question") == "What is 2+2?" for b in server.log.bodies)


def test_a_composite_with_a_judge_error_row_is_none_and_logs_judge_usage_under_its_term(scripted):
    server = scripted(lambda m: "nothing")
    spec = {
        "combine": "sum",
        "name": "total",
        "terms": [
            {"reward": "judge_accuracy", "params": {"base_url": server.base_url, "model": "m"}},
            {"reward": "think_format"},
        ],
    }
    with rk.build_reward(spec) as reward:
        values, metrics, _ = call(reward, prompts=["q"], completions=["<think>a</think>4"], answer=["4"])
    assert values == [None]
    assert metrics["rewards/total/judge_accuracy/judge_requests"] == 1


def test_hybrid_decides_by_rule_where_it_can_and_asks_the_judge_otherwise(scripted):
    server = scripted(
        lambda m: verdict_json("correct" if "four" in block(user_message(m), "candidate") else "incorrect")
    )
    judge = {"base_url": server.base_url, "model": "m"}
    with rk.get_verifier("hybrid", rule="math", judge=judge) as hybrid:
        verdicts = hybrid.verify_batch(
            [r"so $\boxed{4}$", r"so $\boxed{5}$", "it is four", "no idea at all"],
            ["4"] * 4,
            [{"question": "2+2?"}] * 4,
        )
    assert [v.details["decided_by"] for v in verdicts] == ["rule", "rule", "judge", "judge"]
    assert [v.score for v in verdicts] == [1.0, 0.0, 1.0, 0.0]
    assert verdicts[2].details["rule_status"] == "no_answer"
    assert server.log.requests == 2  # the plain wrong answer was decided by the rule, not sent


def test_hybrid_accuracy_from_a_spec_with_mcq_as_the_rule(scripted):
    server = scripted()
    spec = {
        "reward": "hybrid_accuracy",
        "params": {
            "rule": "mcq",
            "judge": {"base_url": server.base_url, "model": "m"},
            "context_keys": {"options": "options"},
        },
    }
    with rk.build_reward(spec) as reward:
        values, metrics, _ = call(
            reward,
            prompts=["Capital?"] * 2,
            completions=["Answer: B", "I would say paris"],
            answer=["B", "B"],
            options=[["London", "Paris"]] * 2,
        )
    assert values == [1.0, 0.0] and server.log.requests == 1
    assert metrics["rewards/hybrid_accuracy/judge_share"] == 0.5


def test_hybrid_refuses_to_hand_decided_statuses_to_the_judge():
    import pytest

    with pytest.raises(rk.ConfigError, match="judge_on must not contain ok"):
        rk.build_reward(
            {
                "reward": "hybrid_accuracy",
                "params": {"judge": {"base_url": "http://x/v1", "model": "m"}, "judge_on": ["ok"]},
            }
        )
