"""Real GRPOTrainer steps on the tiny local model with ifeval_accuracy: google/IFEval's columns
(``instruction_id_list`` and the None-filled ``kwargs`` Arrow makes of them) and open-instruct's
``ground_truth`` reach the verifier, every completion gets a status, and the logged values are the reward's."""

from __future__ import annotations

import json
import math

import pytest

import rewardkit as rk
from reward_helpers import SPY_CALLS, require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.usefixtures("test_plugin")]

SPEC = {
    "name": "rk_ifeval",
    "combine": "sum",
    "terms": [
        {"reward": "ifeval_accuracy", "params": {"aggregate": "fraction", "mode": "loose"}},
        {"reward": "spy", "weight": 0.0},
    ],
}
ROWS = [
    {
        "prompt": "Write a line about tea without commas.",
        "instruction_id_list": ["punctuation:no_comma", "keywords:existence"],
        "kwargs": [{"keywords": None}, {"keywords": ["tea"]}],
        "ground_truth": None,
    },
    {
        "prompt": "Say anything in at least 3 words.",
        "instruction_id_list": None,
        "kwargs": None,
        "ground_truth": json.dumps(
            {
                "instruction_id": ["length_constraints:number_words"],
                "kwargs": [{"num_words": 3, "relation": "at least"}],
            }
        ),
    },
]


def test_grpo_steps_judge_instructions_from_both_row_layouts(tmp_path, ci_require):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    datasets = require_module(ci_require, "datasets", "datasets (train extra)")
    require_module(ci_require, "langdetect", "langdetect (ifeval extra)")
    from trl import GRPOTrainer

    from rewardkit.train.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny")
    reward = rk.build_reward(SPEC)
    config = tiny_grpo_config(  # both prompts, four completions each, every step
        tmp_path / "out", per_device_train_batch_size=8, max_completion_length=16, learning_rate=1e-4
    )
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=[reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(ROWS),
    )
    SPY_CALLS.clear()
    try:
        trainer.train()
        logs = [entry for entry in trainer.state.log_history if "rewards/rk_ifeval/mean" in entry]
        calls = list(SPY_CALLS)
        assert len(logs) == 2 and len(calls) == 2
        for entry, call in zip(logs, calls, strict=True):
            kwargs = call["kwargs"]
            columns = {k: kwargs[k] for k in ("instruction_id_list", "kwargs", "ground_truth")}
            assert sorted(g is None for g in columns["ground_truth"]) == [False] * 4 + [True] * 4  # both layouts
            kwargs_rows = [k for k in columns["kwargs"] if k is not None]
            assert kwargs_rows and all(k[0] == {"keywords": None} for k in kwargs_rows)  # Arrow's None filling
            again = reward.explain(prompts=call["prompts"], completions=call["completions"], **columns)
            assert {row["verdicts"]["ifeval_accuracy"]["status"] for row in again} <= {"ok", "no_answer"}
            values = [row["components"]["ifeval_accuracy"] for row in again]
            assert all(v is not None and 0.0 <= v <= 1.0 for v in values)
            logged = entry["rewards/rk_ifeval/ifeval_accuracy/mean"]
            assert math.isclose(logged, sum(values) / len(values), abs_tol=1e-5)
            shares = [v for k, v in entry.items() if k.startswith("rewards/rk_ifeval/ifeval_accuracy/status/")]
            assert shares and math.isclose(sum(shares), 1.0, abs_tol=1e-5)
    finally:
        reward.close()
