"""Real GRPOTrainer steps with TRL's environment_factory on the tiny local model: environment_reward receives
TRL's per-rollout environments and pays what each one's get_reward says, as TRL's own environment column does."""

from __future__ import annotations

import math

import pytest

import rewardkit as rk
from reward_helpers import require_module, tiny_grpo_config

pytestmark = [pytest.mark.train, pytest.mark.slow]


class Counter:
    """A tool environment: the row's start value, an `add` tool, and a reward read from its state."""

    def __init__(self) -> None:
        self.total = 0

    def reset(self, start: int = 0, **row: object) -> None:
        self.total = start

    def add(self, n: int) -> int:
        """Add n to the running total.

        Args:
            n: The number to add.
        """
        self.total += n
        return self.total

    def get_reward(self) -> float:
        return 0.25 + self.total


def test_environment_reward_pays_each_rollouts_environment_reward_in_grpo(tmp_path, ci_require, monkeypatch):
    require_module(ci_require, "trl", "trl (train extra) for GRPOTrainer")
    datasets = require_module(ci_require, "datasets", "datasets (train extra)")
    transformers = require_module(ci_require, "transformers", "transformers (train extra)")
    from packaging.version import Version

    if Version(transformers.__version__) < Version("5.2.0"):
        pytest.skip("TRL's environment_factory needs transformers >= 5.2")
    from trl import GRPOTrainer
    from trl.chat_template_utils import qwen3_chat_template

    from rewardkit.train.tiny_model import build_tiny_model

    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    model_dir = build_tiny_model(tmp_path / "tiny")
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    tokenizer.chat_template = qwen3_chat_template  # a template TRL can render and parse tool calls with
    rows = [{"prompt": [{"role": "user", "content": f"Add to {s}."}], "start": s} for s in (1, 2)]
    config = tiny_grpo_config(tmp_path / "out")
    reward = rk.get_reward("environment_reward")
    trainer = GRPOTrainer(
        model=str(model_dir),
        processing_class=tokenizer,
        reward_funcs=[reward],
        args=config,
        train_dataset=datasets.Dataset.from_list(rows),
        environment_factory=Counter,
    )
    trainer.train()
    logs = [entry for entry in trainer.state.log_history if "rewards/environment_reward/mean" in entry]
    assert len(logs) == 2
    for entry in logs:
        ours, theirs = entry["rewards/environment_reward/mean"], entry["rewards/Counter/mean"]
        assert math.isclose(ours, theirs, abs_tol=1e-6)  # TRL's own column for the environment's reward
        assert ours >= 1.25  # the rows' start values reached the environments (1 or 2, plus 0.25)
        assert entry["rewards/environment_reward/status/ok"] == 1.0
        assert entry["rewards/environment_reward/environment_share"] == 1.0
