"""Helpers shared by the trainer tests (importable as ``train_helpers``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def small_config(output_dir: Path, model_dir: Path, **sections: Any) -> dict[str, Any]:
    """A config dict for a few fast CPU steps on the addition task; ``sections`` update its parts."""
    config: dict[str, Any] = {
        "model": {"path": str(model_dir)},
        "data": {"task": "addition", "task_params": {"max_operand": 4}, "eval_size": 4},
        "rewards": [{"function": "toy_rewards:exact_answer"}, {"function": "toy_rewards:digits_only", "weight": 0.5}],
        "output_dir": str(output_dir),
        "seed": 3,
        "lora": {"r": 4, "alpha": 8, "target_modules": "all"},
        "grpo": {
            "steps": 2,
            "prompts_per_step": 2,
            "group_size": 4,
            "max_completion_length": 4,
            "learning_rate": 5e-3,
            "temperature": 1.0,
        },
        "logging": {"plots": False},
    }
    for key, value in sections.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config
