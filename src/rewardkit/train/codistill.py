"""CoDistill-GRPO: a small student and a large teacher trained together.

The student is the GRPO policy; its reward adds ``kd_logprob``: the teacher's per-token log-probability of
the student's sampled completion (or the negative reverse KL, teacher minus student log-probability).
The teacher learns with a policy gradient on the student's rollouts, each token weighted by the clipped
importance weight ``p_teacher / p_student``, so it needs no rollouts of its own.
"""

from __future__ import annotations

from typing import Any, Literal

import torch

from rewardkit._errors import ConfigError
from rewardkit.train.advantages import group_advantages
from rewardkit.train.config import CoDistillConfig
from rewardkit.train.lora import apply_lora
from rewardkit.train.loss import aggregate, masked_mean
from rewardkit.train.sampling import Rollouts, encode_prompts, token_logprobs
from rewardkit.train.scoring import RewardTensors, WeightedReward
from rewardkit.train.trainer import MiniGRPOTrainer

KD_LABEL = "kd_logprob"


class TeacherLogprobReward:
    """A TRL-style reward: the teacher's mean per-token log-probability of each completion.

    ``mode="neg_reverse_kl"`` returns the mean over tokens of ``log p_teacher - log p_student`` (a
    single-sample estimate of ``-KL(student || teacher)``); the student log-probabilities come from the
    ``completion_logprobs`` keyword (the trainer passes them) or from ``student`` when given.
    Token ids come from ``completion_ids`` when the caller passes them (TRL does), else from the text.
    """

    __name__ = KD_LABEL

    def __init__(
        self, teacher: Any, tokenizer: Any, mode: Literal["logprob", "neg_reverse_kl"] = "logprob", student: Any = None
    ) -> None:
        if mode not in ("logprob", "neg_reverse_kl"):
            raise ConfigError(f"kd_logprob: mode must be 'logprob' or 'neg_reverse_kl', got {mode!r}")
        self.teacher, self.tokenizer, self.mode, self.student = teacher, tokenizer, mode, student

    def __call__(
        self,
        prompts: list[Any],
        completions: list[Any],
        completion_ids: list[list[int]] | None = None,
        completion_logprobs: list[list[float]] | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        device = next(self.teacher.parameters()).device
        if completion_ids is None:
            texts = [c if isinstance(c, str) else c[-1]["content"] for c in completions]
            completion_ids = [self.tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
        ids, mask = _pad_right(completion_ids, self.tokenizer.pad_token_id, device)
        prompt_ids, prompt_mask = encode_prompts(self.tokenizer, list(prompts), device)
        with torch.no_grad():
            teacher_logp, _ = token_logprobs(self.teacher, prompt_ids, prompt_mask, ids, mask)
            per_token = teacher_logp
            if self.mode == "neg_reverse_kl":
                if completion_logprobs is not None:
                    student_logp, _ = _pad_right(completion_logprobs, 0.0, device, dtype=torch.float32)
                elif self.student is not None:
                    student_logp, _ = token_logprobs(self.student, prompt_ids, prompt_mask, ids, mask)
                else:
                    raise ConfigError(
                        "kd_logprob mode 'neg_reverse_kl' needs the student's log-probabilities: "
                        "pass student= or call it with completion_logprobs="
                    )
                per_token = teacher_logp - student_logp
        counts = mask.sum(1)
        sums = (per_token * mask).sum(1)
        return [None if n == 0 else float(s / n) for s, n in zip(sums.tolist(), counts.tolist(), strict=True)]


def _pad_right(seqs: list[list[Any]], pad: Any, device: Any, dtype: torch.dtype = torch.long) -> torch.Tensor:
    width = max(1, max((len(s) for s in seqs), default=1))
    values = torch.full((len(seqs), width), pad, dtype=dtype, device=device)
    mask = torch.zeros((len(seqs), width), dtype=torch.long, device=device)
    for i, s in enumerate(seqs):
        if s:
            values[i, : len(s)] = torch.tensor(s, dtype=dtype, device=device)
            mask[i, : len(s)] = 1
    return values, mask


def importance_weights(
    teacher_logp: torch.Tensor,
    student_logp: torch.Tensor,
    mask: torch.Tensor,
    clip_high: float = 2.0,
    clip_low: float = 0.0,
) -> torch.Tensor:
    """Per-token ``clip(p_teacher / p_student, clip_low, clip_high)``, 0 on padding; no gradient."""
    ratio = torch.exp(teacher_logp.detach() - student_logp.detach())
    return torch.clamp(ratio, clip_low, clip_high) * mask


def teacher_policy_loss(
    teacher_logp: torch.Tensor,
    student_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    clip_high: float = 2.0,
    clip_low: float = 0.0,
    loss_type: str = "grpo",
    max_completion_length: int | None = None,
) -> torch.Tensor:
    """Off-policy policy gradient for the teacher: ``-w A log p_teacher`` per token, ``w`` the clipped
    importance weight (constant), so the gradient is ``w A grad log p_teacher``."""
    weights = importance_weights(teacher_logp, student_logp, mask, clip_high, clip_low)
    per_token = -weights * advantages.unsqueeze(1) * teacher_logp
    return aggregate(per_token, mask, loss_type, max_completion_length or teacher_logp.size(1))  # type: ignore[arg-type]


class CoDistillTrainer(MiniGRPOTrainer):
    """GRPO on the student (the policy) with the ``kd_logprob`` reward term, plus the teacher's update."""

    def _setup_extra(self) -> None:
        if self.config.codistill is None:
            raise ConfigError("CoDistillTrainer needs a 'codistill' section in the config")
        self.cd: CoDistillConfig = self.config.codistill
        cd = self.cd
        teacher_base, teacher_tokenizer = (
            self._load_warmed_up(cd.teacher, "teacher", self.resuming)
            if cd.teacher_warmup
            else self._load_plain(cd.teacher)
        )
        if teacher_tokenizer.get_vocab() != self.tokenizer.get_vocab():
            raise ConfigError(
                "codistill.teacher: the teacher's tokenizer differs from the student's; "
                "CoDistill compares per-token probabilities, so they must share one"
            )
        self.teacher = apply_lora(teacher_base, cd.teacher_lora)
        self.teacher.train()
        self.teacher_optimizer = torch.optim.AdamW(
            [p for p in self.teacher.parameters() if p.requires_grad], lr=cd.teacher_learning_rate
        )
        self.task_terms = list(self.reward_terms)
        kd = TeacherLogprobReward(self.teacher, self.tokenizer, cd.kd_mode)
        self.reward_terms = self.task_terms + [WeightedReward.of(KD_LABEL, kd, cd.kd_weight)]

    def _load_plain(self, model_config: Any) -> tuple[Any, Any]:
        from rewardkit.train.models import load_model

        return load_model(model_config, self.output_dir, self.config.seed, "teacher")

    def score(self, rollouts: Rollouts, **extra: Any) -> RewardTensors:
        """Before the policy moves: keep the student's sampling log-probabilities (the behaviour policy)."""
        rollouts.behaviour_logp = self._logprobs_no_grad(self.model, rollouts)
        if self.cd.kd_mode == "neg_reverse_kl":
            extra.setdefault(
                "completion_logprobs",
                [
                    row[m.bool()].tolist()
                    for row, m in zip(rollouts.behaviour_logp, rollouts.completion_mask, strict=True)
                ],
            )
        return super().score(rollouts, **extra)

    def _after_policy_update(self, rollouts: Rollouts, scores: Any, metrics: dict[str, Any]) -> None:
        """One teacher step on the student's rollouts, advantages from the task rewards only."""
        cd, g = self.cd, self.config.grpo
        task_total = torch.zeros_like(scores.total)
        scored = torch.zeros_like(scores.total, dtype=torch.bool)
        for term in self.task_terms:
            task_total += term.weight * torch.nan_to_num(scores.components[term.label], nan=0.0)
            scored |= ~torch.isnan(scores.components[term.label])
        task_total[~scored] = float("nan")  # no task reward scored it: no advantage (advantages.py)
        advantages = group_advantages(task_total, g.group_size, g.scale_rewards)
        student_logp = rollouts.behaviour_logp
        assert student_logp is not None, "score() keeps the behaviour log-probabilities"
        self.teacher_optimizer.zero_grad(set_to_none=True)
        teacher_logp, _ = token_logprobs(
            self.teacher, rollouts.prompt_ids, rollouts.prompt_mask, rollouts.completion_ids, rollouts.completion_mask
        )
        loss = teacher_policy_loss(
            teacher_logp,
            student_logp,
            advantages,
            rollouts.completion_mask,
            clip_high=cd.iw_clip,
            clip_low=cd.iw_clip_low,
            loss_type=g.loss_type,
            max_completion_length=g.max_completion_length,
        )
        loss.backward()
        torch.nn.utils.clip_grad_norm_([p for p in self.teacher.parameters() if p.requires_grad], g.max_grad_norm)
        self.teacher_optimizer.step()
        weights = importance_weights(teacher_logp, student_logp, rollouts.completion_mask, cd.iw_clip, cd.iw_clip_low)
        raw = torch.exp(teacher_logp.detach() - student_logp)
        mask = rollouts.completion_mask
        metrics.update(
            {
                "teacher/loss": loss.item(),
                "teacher/iw_mean": masked_mean(weights, mask).item(),
                "teacher/iw_clipped_frac": masked_mean(
                    ((raw > cd.iw_clip) | (raw < cd.iw_clip_low)).float(), mask
                ).item(),
                "teacher/logprob_mean": masked_mean(teacher_logp.detach(), mask).item(),
                "task_reward/mean": task_total.mean().item(),
            }
        )

    def _extra_models(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {"teacher": self.teacher}, {"teacher": self.teacher_optimizer}

    def finish(self) -> None:
        super().finish()
        self.teacher.save_pretrained(self.output_dir / "final-teacher")
