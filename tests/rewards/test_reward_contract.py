"""The TRL reward contract: signature, kwargs, None rows, names, chat vs plain, pickling, async, sharing."""

from __future__ import annotations

import asyncio
import functools
import inspect
import multiprocessing
import pickle

import pytest

import rewardkit as rk
from reward_helpers import CountingVerifier, column_value, length_reward
from rewardkit.rewards.verifier_rewards import shared_verifier_count
from rk_testing import require

PLAIN = [
    r"<think>6 * 7 = 42</think><answer>\boxed{42}</answer>",
    r"<think>hmm</think><answer>\boxed{41}</answer>",
    r"The answer is either \boxed{42} or \boxed{43}.",
    "I do not know.",
]


def as_chat(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def trl_kwargs(n: int, **columns) -> dict:
    """Everything GRPOTrainer passes besides prompts and completions."""
    metrics, extra = [], []
    return {
        "completion_ids": [[1, 2, 3]] * n,
        "trainer_state": object(),
        "log_metric": lambda name, value: metrics.append((name, value)),
        "log_extra": lambda column, values: extra.append((column, values)),
        "environments": None,
        "task": ["math"] * n,
        **columns,
    }


def test_get_reward_conventions(test_plugin):
    plain = rk.get_reward("column_value")  # plain function: wrapped
    assert isinstance(plain, rk.Reward) and plain.func is column_value and plain.__name__ == "column_value"
    assert plain(prompts=None, completions=["x"], value=[1]) == [1.0]
    bound = rk.get_reward("column_value", value_key="b")  # params: a partial, wrapped
    assert isinstance(bound, rk.Reward) and isinstance(bound.func, functools.partial)
    assert bound.func.func is column_value
    assert bound(prompts=None, completions=["x"], b=[2]) == [2.0]
    assert bound.__name__ == "column_value"  # TRL logs under __name__
    assert pickle.loads(pickle.dumps(bound))(prompts=None, completions=["x"], b=[4]) == [4.0]
    made = rk.get_reward("scaled_column", key="b")  # factory: called with params
    assert made(prompts=None, completions=["x"], b=[3]) == [3.0]
    with pytest.raises(rk.ConfigError, match="bad parameters for reward 'column_value'.*it accepts: value_key"):
        rk.get_reward("column_value", valuekey="b")
    with pytest.raises(rk.ConfigError, match="prompts cannot be bound"):
        rk.get_reward("length_reward", prompts=["x"])
    with pytest.raises(rk.ConfigError, match="unknown reward 'nope'"):
        rk.get_reward("nope")


@pytest.mark.parametrize(
    "name", ["math_accuracy", "mcq_accuracy", "tag_format", "soft_overlong", "cosine_length", "repetition_penalty"]
)
def test_builtin_names_and_signature(name):
    reward = rk.get_reward(name)
    assert reward.__name__ == name
    params = inspect.signature(reward).parameters
    assert list(params)[:2] == ["prompts", "completions"]
    assert any(p.kind is p.VAR_KEYWORD for p in params.values())
    reward.close()


def test_math_accuracy_accepts_trl_kwargs_and_returns_one_value_per_completion():
    reward = rk.get_reward("math_accuracy")
    with reward:
        got = reward(prompts=["q"] * 4, completions=PLAIN, **trl_kwargs(4, answer=["42"] * 4))
    assert got == [1.0, 0.0, 0.0, 0.0]


def test_none_where_no_reference_and_solution_fallback():
    reward = rk.get_reward("math_accuracy")
    with reward:
        assert reward(completions=PLAIN[:2], answer=[None, "41"]) == [None, 1.0]
        assert reward(completions=PLAIN[:2], solution=["42", "42"]) == [1.0, 0.0]
        assert reward(completions=PLAIN[:2], answer=[None, None], solution=["42", "41"]) == [1.0, 1.0]
        custom = rk.get_reward("math_accuracy", reference_key="gold")
        assert custom(completions=PLAIN[:1], gold=["42"]) == [1.0]
        with pytest.raises(rk.ConfigError, match="needs a dataset column named 'answer' or 'solution'.*columns: task"):
            reward(completions=PLAIN[:1], task=["math"])
        custom.close()


@pytest.mark.parametrize(
    "spec",
    [
        "math_accuracy",
        {
            "combine": "sum",
            "terms": [
                "math_accuracy",
                {"reward": "tag_format", "weight": 0.5},
                {"reward": "soft_overlong", "params": {"max_length": 60, "cache": 30, "unit": "chars"}},
            ],
        },
    ],
)
def test_chat_and_plain_score_the_same(spec):
    reward = rk.build_reward({"reward": spec} if isinstance(spec, str) else spec)
    with reward:
        plain = reward(prompts=["q"] * 4, completions=PLAIN, answer=["42"] * 4)
        chat = reward(
            prompts=[[{"role": "user", "content": "q"}]] * 4, completions=[as_chat(t) for t in PLAIN], answer=["42"] * 4
        )
        # reasoning_content is the <think> block a reasoning parser split off
        split = reward(
            completions=[
                [{"role": "assistant", "reasoning_content": "6 * 7 = 42", "content": r"<answer>\boxed{42}</answer>"}]
            ],
            answer=["42"],
        )
    assert plain == chat
    assert split == plain[:1]
    assert len(set(plain)) > 1


def test_mcq_accuracy_reads_options_column():
    reward = rk.get_reward("mcq_accuracy")
    with reward:
        got = reward(
            completions=["Answer: Paris", "<answer>A</answer>", "A or B"],
            answer=["B", "B", "B"],
            options=[["London", "Paris", "Rome"]] * 3,
        )
    assert got == [1.0, 0.0, 0.0]


def test_one_verifier_per_name_and_params_and_one_batch_call(test_plugin):
    first, second = rk.get_reward("contains"), rk.get_reward("contains")
    other = rk.get_reward("contains", partial=0.5)
    assert CountingVerifier.instances == 0  # created lazily, not at get_reward
    assert first(completions=["a4", "b", "c4"], answer=["4", "4", "4"]) == [1.0, 0.0, 1.0]
    assert CountingVerifier.batch_calls == 1  # one verify_batch for three samples
    second(completions=["x"], answer=["x"])
    assert CountingVerifier.instances == 1  # shared by (name, params)
    assert other(completions=["b"], answer=["4"]) == [0.5]  # partial credit passes through
    assert CountingVerifier.instances == 2
    first.close()
    assert CountingVerifier.closed == 0  # second still uses it
    second.close()
    other.close()
    assert CountingVerifier.closed == 2 and shared_verifier_count() == 0
    assert first(completions=["4"], answer=["4"]) == [1.0]  # usable again after close
    first.close()


def test_pickle_round_trip_recreates_verifier_lazily(test_plugin):
    reward = rk.build_reward({"combine": "sum", "terms": ["contains", {"reward": "tag_format", "weight": 0.5}]})
    reward(completions=["4"], answer=["4"])
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == reward.__name__
    assert copy(completions=["<think>a</think><answer>4</answer>"], answer=["4"]) == [1.5]
    reward.close()
    copy.close()


def _score_in_child(blob: bytes, queue) -> None:
    reward = pickle.loads(blob)
    queue.put(reward(prompts=["q"] * 4, completions=PLAIN, answer=["42"] * 4))
    reward.close()


def test_pickled_reward_runs_in_another_process():
    reward = rk.build_reward({"combine": "sum", "terms": ["math_accuracy", {"reward": "tag_format", "weight": 0.5}]})
    with reward:
        here = reward(prompts=["q"] * 4, completions=PLAIN, answer=["42"] * 4)
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        child = ctx.Process(target=_score_in_child, args=(pickle.dumps(reward), queue))
        child.start()
        there = queue.get(timeout=120)
        child.join(timeout=30)
    assert there == here == [1.5, 0.5, 0.0, 0.0]


def test_async_variant(test_plugin):
    def is_async_callable(func) -> bool:  # the check TRL 1.16's GRPOTrainer makes (trl.trainer.utils)
        return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(func.__call__)

    reward = rk.build_reward({"combine": "sum", "terms": ["contains", "length_reward"]})
    async_reward = reward.as_async()
    assert is_async_callable(async_reward) and not is_async_callable(reward)
    assert async_reward.__name__ == reward.__name__

    async def both():
        return await asyncio.gather(
            async_reward(prompts=None, completions=["ab"], answer=["a"]),
            async_reward(prompts=None, completions=["xyz"], answer=["a"]),
        )

    assert asyncio.run(both()) == [[3.0], [3.0]]
    assert pickle.loads(pickle.dumps(async_reward)).__name__ == reward.__name__
    # a registered async function works as a term too
    mixed = rk.build_reward({"combine": "sum", "terms": [{"reward": "async_column_value"}, "length_reward"]})
    assert mixed(completions=["ab"], value=[1.0]) == [3.0]
    reward.close()


def test_plain_function_terms_must_return_one_value_per_completion(test_plugin):
    reward = rk.build_reward({"combine": "sum", "terms": [{"reward": "one_value"}]})
    with pytest.raises(rk.ConfigError, match="reward 'one_value' returned 1 values for 2 completions"):
        reward(completions=["a", "b"])


def test_log_metric_reports_components():
    reward = rk.build_reward(
        {
            "name": "acc_fmt",
            "combine": "sum",
            "terms": [{"reward": "math_accuracy", "params": {"timeout": 20}}, {"reward": "tag_format", "weight": 0.5}],
        }
    )
    metrics, extra = {}, {}
    with reward:
        reward(
            prompts=["q"] * 4,
            completions=PLAIN,
            answer=["42"] * 4,
            log_metric=lambda name, value: metrics.__setitem__(name, value),
            log_extra=lambda column, values: extra.__setitem__(column, values),
        )
    assert metrics == {
        "rewards/acc_fmt/math_accuracy/mean": 0.25,
        "rewards/acc_fmt/tag_format/mean": 0.5,
        "rewards/acc_fmt/math_accuracy/status/ok": 0.5,  # the share of judged rows with each verdict status
        "rewards/acc_fmt/math_accuracy/status/hedged": 0.25,
        "rewards/acc_fmt/math_accuracy/status/no_answer": 0.25,
        "rewards/acc_fmt/math_accuracy/infrastructure_failure_rate": 0.0,
    }
    # component values and verdict statuses go to TRL's completions table, one per completion
    assert extra == {
        "acc_fmt/math_accuracy": [1.0, 0.0, 0.0, 0.0],
        "acc_fmt/tag_format": [1.0, 1.0, 0.0, 0.0],
        "acc_fmt/math_accuracy/status": ["ok", "ok", "hedged", "no_answer"],
    }


def test_length_reward_helper_is_plain(test_plugin):
    reward = rk.get_reward("length_reward")
    assert isinstance(reward, rk.Reward) and reward.func is length_reward


def test_terms_sharing_a_verifier_judge_each_sample_once(test_plugin):
    reward = rk.build_reward(
        {
            "combine": "sum",
            "terms": [
                "contains",
                {"reward": "contains", "name": "contains_again", "params": {"reference_key": "answer"}},
            ],
        }
    )
    with reward:
        assert reward(completions=["a4", "b"], answer=["4", "4"]) == [2.0, 0.0]
        assert CountingVerifier.batch_calls == 1 and CountingVerifier.instances == 1
        # remembered verdicts: a new completion is judged, the known one is not
        assert reward(completions=["a4", "c4"], answer=["4", "4"]) == [2.0, 2.0]
        assert CountingVerifier.batch_calls == 2


def test_concurrent_first_calls_acquire_one_verifier(test_plugin):
    from concurrent.futures import ThreadPoolExecutor

    reward = rk.get_reward("contains")
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda i: reward(completions=[f"x{i}"], answer=[str(i)]), range(32)))
    assert results == [[1.0]] * 32
    assert CountingVerifier.instances == 1
    reward.close()
    assert CountingVerifier.closed == 1 and shared_verifier_count() == 0


def _use_after_fork(reward, queue) -> None:
    values = reward(completions=["a7"], answer=["7"])
    queue.put((values, CountingVerifier.instances, CountingVerifier.closed))
    reward.close()


def test_forked_child_starts_its_own_verifier(test_plugin):
    require("fork" in multiprocessing.get_all_start_methods(), "no fork on this platform")
    reward = rk.get_reward("contains")
    assert reward(completions=["a7"], answer=["7"]) == [1.0]
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_use_after_fork, args=(reward, queue))
    child.start()
    values, instances_in_child, closed_in_child = queue.get(timeout=60)
    child.join(timeout=30)
    assert values == [1.0] and instances_in_child == 2 and closed_in_child == 0  # its own, parent's untouched
    assert CountingVerifier.closed == 0  # the child did not close the parent's verifier
    reward.close()
    assert CountingVerifier.closed == 1


def test_mcq_accuracy_reads_mmlu_and_arc_columns_as_trl_passes_them():
    with rk.get_reward("mcq_accuracy") as reward:  # MMLU: question, subject, choices, answer (0-based int)
        mmlu = reward(
            completions=["Answer: B", [{"role": "assistant", "content": "The answer is Paris"}], "A or B"],
            prompts=["q"] * 3,
            question=["q"] * 3,
            subject=["geo"] * 3,
            choices=[["Paris", "London", "Berlin", "Madrid"]] * 3,
            answer=[1, 0, 1],
        )
        arc_choices = [
            {"text": ["dry palms", "wet palms", "oily palms"], "label": ["1", "2", "3"]},
            {"text": ["dry palms", "wet palms", "oily palms"], "label": ["A", "B", "C"]},
        ]
        arc = reward(
            completions=["Answer: (1)", "The answer is wet palms"],
            id=["a", "b"],
            choices=arc_choices,
            answerKey=["1", "B"],
        )
    assert mmlu == [1.0, 1.0, 0.0]
    assert arc == [1.0, 1.0]


def test_mcq_accuracy_choices_and_reference_columns_can_be_renamed():
    with rk.get_reward("mcq_accuracy", choices_key="opts", reference_key="gold") as reward:
        got = reward(completions=["The answer is London", "Answer: A"], opts=[["Paris", "London"]] * 2, gold=[1, 1])
    assert got == [1.0, 0.0]
