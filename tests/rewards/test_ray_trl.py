"""Two real GRPOTrainer steps on a tiny local model: a Ray-backed reward gives the in-process results."""

from __future__ import annotations

import pytest

import rewardkit as rk
from reward_helpers import require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.slow]

SPEC = {
    "name": "rk_reward",
    "combine": "sum",
    "terms": [
        {"reward": "math_accuracy", "params": {"timeout": 20, "workers": 1}},
        {"reward": "tag_format", "weight": 0.5, "params": {"strict": False}},
        {"reward": "soft_overlong", "params": {"max_length": 8, "cache": 4}},  # tokens, from completion_ids
    ],
}
QUESTIONS = [("What is 2 + 3?", "5"), ("What is 10 - 4?", "6"), ("Compute 3 * 3.", "9"), ("Half of 8?", "4")]
TIMING = ("time", "runtime", "per_second", "flos", "epoch")


def run_grpo(tmp_path, reward) -> list[dict]:
    import datasets
    from trl import GRPOTrainer

    from rewardkit.train.tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "tiny")
    rows = [{"prompt": q, "answer": a} for q, a in QUESTIONS]
    config = tiny_grpo_config(tmp_path / "out", learning_rate=1e-4)
    trainer = GRPOTrainer(
        model=str(model_dir),
        reward_funcs=[reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(rows),
        processing_class=None,
    )
    try:
        trainer.train()
    finally:
        reward.close()
    return [entry for entry in trainer.state.log_history if "rewards/rk_reward/mean" in entry]


def test_grpo_with_a_ray_backed_reward_matches_the_in_process_run(tmp_path, ci_require, ray_cluster):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    require_module(ci_require, "datasets", "datasets (train extra)")
    ci_require(ray_cluster is not None, "ray is not installed (pip install 'rewardkit[ray]')")

    local = run_grpo(tmp_path / "local", rk.build_reward(SPEC))
    on_ray = run_grpo(tmp_path / "ray", rk.build_reward(SPEC, executor="ray", actors=2))
    assert len(local) == len(on_ray) == 2  # one log per step
    for mine, theirs in zip(local, on_ray, strict=False):
        compared = [k for k in mine if not any(word in k for word in TIMING)]
        assert {"rewards/rk_reward/math_accuracy/mean", "rewards/rk_reward/tag_format/mean", "loss"} <= set(compared)
        assert mine["rewards/rk_reward/soft_overlong/mean"] < 0  # the values compared are not all zero
        assert {k: theirs[k] for k in compared} == {k: mine[k] for k in compared}
        # The executor's own figures reach the trainer's logs through log_metric, from the driver.
        assert theirs["ray/rk_reward/actors"] >= 1 and theirs["ray/rk_reward/failed_rows"] == 0
        assert any(k.startswith("ray/rk_reward/node/") for k in theirs)
        assert not any(k.startswith("ray/") for k in mine)
