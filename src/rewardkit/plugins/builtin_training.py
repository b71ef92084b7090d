"""Built-in training rewards: ``kd_logprob`` (CoDistill-GRPO's distillation term). Needs the train extra
when used; registering it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


def kd_logprob(teacher: Any, tokenizer: Any = None, mode: str = "logprob", student: Any = None,
               device: str = "cpu", dtype: str = "float32") -> Any:
    """The teacher's mean per-token log-probability of each completion (``mode="neg_reverse_kl"``: minus
    the sampled reverse KL to the student). ``teacher``/``student``: a model object, or a path / hub name."""
    from rewardkit.train.codistill import TeacherLogprobReward

    if isinstance(teacher, (str, Path)):
        teacher, loaded_tokenizer = _load(teacher, device, dtype)
        tokenizer = tokenizer or loaded_tokenizer
    if isinstance(student, (str, Path)):
        student, _ = _load(student, device, dtype)
    if tokenizer is None:
        from rewardkit._errors import ConfigError

        raise ConfigError("kd_logprob: pass tokenizer= when teacher is a model object (the student's tokenizer)")
    if isinstance(tokenizer, (str, Path)):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer)
    return TeacherLogprobReward(teacher, tokenizer, mode, student)  # type: ignore[arg-type]


def _load(path: str | Path, device: str, dtype: str) -> tuple[Any, Any]:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
    model = model.to(device).eval()  # type: ignore[arg-type]
    return model, tokenizer


@hookimpl
def register_rewards(register: Register) -> None:
    from rewardkit.rewards.spec import reward_factory

    register("kd_logprob", reward_factory(kd_logprob))
