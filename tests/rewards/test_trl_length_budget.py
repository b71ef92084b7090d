"""Real GRPOTrainer steps on the tiny local model with length_budget and group_length: TRL's completion_ids
are what they count, each prompt's group arrives whole, and the logged values are the rewards' own."""

from __future__ import annotations

import math

import pytest

import rewardkit as rk
from reward_helpers import SPY_CALLS, require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.usefixtures("test_plugin")]

BUDGET = 8
SPEC = {
    "name": "rk_length",
    "combine": "sum",
    "terms": [
        {"reward": "length_budget", "params": {"mode": "exact", "alpha": 0.05}},  # budget from the prompt
        {"reward": "group_length", "weight": 0.5, "params": {"num_generations": 4}},
        {"reward": "spy", "weight": 0.0},
    ],
}
QUESTIONS = [("What is 2 + 3?", "5"), ("What is 10 - 4?", "6")]


def test_grpo_steps_score_token_lengths_against_the_prompts_budget(tmp_path, ci_require):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    datasets = require_module(ci_require, "datasets", "datasets (train extra)")
    from trl import GRPOTrainer

    from rewardkit.train.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny")
    rows = [{"prompt": f"{q} Think for {BUDGET} tokens.", "answer": a} for q, a in QUESTIONS]
    reward = rk.build_reward(SPEC)
    config = tiny_grpo_config(tmp_path / "out", learning_rate=1e-4)
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=[reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(rows),
    )
    SPY_CALLS.clear()
    try:
        trainer.train()
        logs = [entry for entry in trainer.state.log_history if "rewards/rk_length/mean" in entry]
        calls = list(SPY_CALLS)  # re-scoring below calls the spy again
        assert len(logs) == 2 and len(calls) == 2
        for entry, call in zip(logs, calls, strict=True):
            ids = call["kwargs"]["completion_ids"]
            assert len(call["prompts"]) == 4 and len(set(call["prompts"])) == 1  # one prompt's whole group
            again = reward.explain(
                prompts=call["prompts"],
                completions=call["completions"],
                answer=call["kwargs"]["answer"],
                completion_ids=ids,
            )
            budget_values = [row["components"]["length_budget"] for row in again]
            with rk.get_reward("math_accuracy") as accuracy:  # judged apart from the reward under test
                correct = accuracy(completions=call["completions"], answer=call["kwargs"]["answer"])
            want = [c - 0.05 * abs(BUDGET - len(i)) for c, i in zip(correct, ids, strict=True)]
            assert budget_values == pytest.approx(want)
            mean = sum(budget_values) / len(budget_values)
            assert math.isclose(entry["rewards/rk_length/length_budget/mean"], mean, abs_tol=1e-5)
            group = entry["rewards/rk_length/group_length/mean"]
            assert -0.5 <= group <= 0.5
    finally:
        reward.close()
