"""Small registered rewards and a counting verifier for testing combinators and the reward contract.

Module-level (not closures) so that rewards built from them pickle.
"""

from __future__ import annotations

import threading
from typing import Any

import rewardkit as rk
from rewardkit.rewards.spec import reward_factory
from rewardkit.verifiers.base import Verifier
from rewardkit.verifiers.verdict import Status, Verdict


def column_value(prompts, completions, value_key: str = "value", **kwargs) -> list[float | None]:
    """A plain TRL reward function: each row's value from a dataset column (None stays None)."""
    return [None if v is None else float(v) for v in kwargs[value_key]]


def length_reward(prompts, completions, **kwargs) -> list[float]:
    """A plain TRL reward: the completion's length in characters (plain strings only)."""
    return [float(len(c)) for c in completions]


def one_value(prompts, completions, **kwargs) -> list[float]:
    """A broken TRL reward: always one value, whatever the batch size."""
    return [1.0]


SPY_CALLS: list[dict[str, Any]] = []


def spy(prompts, completions, **kwargs) -> list[float]:
    """Records what the trainer passed; scores each completion by its number of distinct characters / 100."""
    SPY_CALLS.append({"prompts": prompts, "completions": completions, "kwargs": dict(kwargs)})
    from rewardkit.rewards.inputs import completion_text

    return [len(set(completion_text(c))) / 100 for c in completions]


async def async_column_value(prompts, completions, **kwargs) -> list[float | None]:
    return column_value(prompts, completions, **kwargs)


@reward_factory
def scaled_column(factor: float = 1.0, key: str = "value"):
    """A factory registered as a reward: returns a plain function bound to its parameters."""
    import functools

    return functools.partial(column_value, value_key=key)


class CountingVerifier(Verifier):
    """Correct when the completion text contains the reference; counts calls and instances."""

    instances = 0
    batch_calls = 0
    closed = 0
    _lock = threading.Lock()

    def __init__(self, *, partial: float = 0.0) -> None:
        with CountingVerifier._lock:
            CountingVerifier.instances += 1
        self.partial = partial

    def _verify(self, completion: Any, reference: Any, **context: Any) -> Verdict:
        hit = str(reference) in str(completion)
        return Verdict(1.0 if hit else self.partial, hit, Status.OK, str(reference) if hit else None, dict(context))

    def verify_batch(self, completions, references, contexts=None):
        with CountingVerifier._lock:
            CountingVerifier.batch_calls += 1
        return super().verify_batch(completions, references, contexts)

    def close(self) -> None:
        with CountingVerifier._lock:
            CountingVerifier.closed += 1

    @classmethod
    def reset(cls) -> None:
        cls.instances = cls.batch_calls = cls.closed = 0


@reward_factory
def contains_reward(*, reference_key: str = "answer", **verifier_params: Any):
    from rewardkit.rewards.verifier_rewards import VerifierReward

    return VerifierReward("contains", "counting", verifier_params=verifier_params, reference_key=reference_key)


class RewardTestPlugin:
    @rk.hookimpl
    def register_verifiers(self, register):
        register("counting", CountingVerifier)

    @rk.hookimpl
    def register_rewards(self, register):
        register("column_value", column_value)
        register("length_reward", length_reward)
        register("one_value", one_value)
        register("spy", spy)
        register("async_column_value", async_column_value)
        register("scaled_column", scaled_column)
        register("contains", contains_reward)


def require_module(require: Any, name: str, reason: str) -> Any:
    """Import ``name``, or skip (fail when CI=true) via the suite's ``ci_require`` fixture."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as exc:
        require(False, f"{reason}: {exc}")
        raise


def tiny_grpo_config(output_dir: Any, **settings: Any) -> Any:
    """TRL's GRPOConfig for a few CPU steps on the tiny local model: two steps, four completions per prompt,
    every step logged, nothing saved or reported; ``settings`` override or add to these."""
    from trl import GRPOConfig

    base: dict[str, Any] = {
        "output_dir": str(output_dir),
        "use_cpu": True,
        "bf16": False,
        "fp16": False,
        "max_steps": 2,
        "per_device_train_batch_size": 4,
        "num_generations": 4,
        "max_completion_length": 12,
        "logging_steps": 1,
        "report_to": "none",
        "save_strategy": "no",
        "seed": 0,
        "dataloader_num_workers": 0,
    }
    return GRPOConfig(**{**base, **settings})
