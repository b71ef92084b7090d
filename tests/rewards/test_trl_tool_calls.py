"""Real GRPOTrainer steps on the tiny local model with tool_call_accuracy: TRL's columns (the reference calls
and the tools) reach the verifier, every completion gets a status, and the logged values are the reward's own."""

from __future__ import annotations

import json
import math

import pytest

import rewardkit as rk
from reward_helpers import SPY_CALLS, require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.slow, pytest.mark.usefixtures("test_plugin")]

SPEC = {
    "name": "rk_tools",
    "combine": "sum",
    "terms": [
        {"reward": "tool_call_accuracy", "params": {"mode": "partial"}},
        {"reward": "spy", "weight": 0.0},
    ],
}
TOOLS = json.dumps([{"name": "add", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}])
ROWS = [
    {"prompt": "Call add with a=2.", "answer": json.dumps([{"name": "add", "arguments": {"a": 2}}]), "tools": TOOLS},
    {"prompt": "Call add with a=5.", "answer": json.dumps([{"name": "add", "arguments": {"a": 5}}]), "tools": TOOLS},
]
STATUSES = {"ok", "no_answer", "malformed_call", "unknown_function", "schema_violation", "too_many_calls"}


def test_grpo_steps_judge_tool_calls_with_the_rows_reference_and_tools(tmp_path, ci_require):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    datasets = require_module(ci_require, "datasets", "datasets (train extra)")
    from trl import GRPOTrainer

    from rewardkit.train.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny")
    reward = rk.build_reward(SPEC)
    config = tiny_grpo_config(tmp_path / "out", max_completion_length=16, learning_rate=1e-4)
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=[reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(ROWS),
    )
    SPY_CALLS.clear()
    try:
        trainer.train()
        logs = [entry for entry in trainer.state.log_history if "rewards/rk_tools/mean" in entry]
        calls = list(SPY_CALLS)
        assert len(logs) == 2 and len(calls) == 2
        for entry, call in zip(logs, calls, strict=True):
            kwargs = call["kwargs"]
            assert kwargs["tools"] == [TOOLS] * 4 and all(a in {r["answer"] for r in ROWS} for a in kwargs["answer"])
            again = reward.explain(
                prompts=call["prompts"], completions=call["completions"], answer=kwargs["answer"], tools=kwargs["tools"]
            )
            assert {row["status"] for row in again} <= STATUSES
            values = [row["components"]["tool_call_accuracy"] for row in again]
            assert all(v is not None and 0.0 <= v <= 1.0 for v in values)
            logged = entry["rewards/rk_tools/tool_call_accuracy/mean"]
            assert math.isclose(logged, sum(values) / len(values), abs_tol=1e-5)
            shares = [v for k, v in entry.items() if k.startswith("rewards/rk_tools/tool_call_accuracy/status/")]
            assert shares and math.isclose(sum(shares), 1.0, abs_tol=1e-5)
    finally:
        reward.close()
