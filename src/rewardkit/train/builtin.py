"""Built-in training rewards: ``kd_logprob`` (CoDistill-GRPO's distillation term), loaded by name as the
built-in plugin ``rewardkit.train.builtin``. Needs the train extra when used; registering it imports
nothing heavy (no torch)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


def kd_logprob(
    teacher: Any,
    tokenizer: Any = None,
    mode: str = "logprob",
    student: Any = None,
    device: str = "cpu",
    dtype: str = "float32",
) -> Any:
    """The teacher's mean per-token log-probability of each completion (``mode="neg_reverse_kl"``: minus
    the sampled reverse KL to the student). ``teacher``/``student``: a model object, or a path / hub name."""
    from rewardkit.train.codistill import TeacherLogprobReward
    from rewardkit.train.models import load_pretrained

    if isinstance(teacher, (str, Path)):
        teacher, loaded_tokenizer = load_pretrained(teacher, device, dtype)
        teacher.eval()
        tokenizer = tokenizer or loaded_tokenizer
    if isinstance(student, (str, Path)):
        student, _ = load_pretrained(student, device, dtype)
        student.eval()
    if tokenizer is None:
        raise ConfigError("kd_logprob: pass tokenizer= when teacher is a model object (the student's tokenizer)")
    if isinstance(tokenizer, (str, Path)):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(tokenizer)
    return TeacherLogprobReward(teacher, tokenizer, mode, student)  # type: ignore[arg-type]


@hookimpl
def register_rewards(register: Register) -> None:
    from rewardkit.rewards.spec import reward_factory

    register("kd_logprob", reward_factory(kd_logprob))
