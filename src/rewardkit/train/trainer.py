"""A minimal GRPO trainer: group sampling, group-normalised advantages, the clipped objective, LoRA or
full fine-tuning, optional KL to a reference, gradient accumulation, checkpoints, diagnostics."""

from __future__ import annotations

import copy
import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from rewardkit._errors import ConfigError
from rewardkit.train import checkpoint
from rewardkit.train.advantages import group_advantages
from rewardkit.train.config import TrainConfig, load_config
from rewardkit.train.data import batch_rows, load_examples
from rewardkit.train.diagnostics import ModuleNormTracker, reward_statistics
from rewardkit.train.lora import apply_lora
from rewardkit.train.loss import clipped_policy_loss, masked_mean
from rewardkit.train.models import load_model, supervised_warmup
from rewardkit.train.reporters import Reporters, normalise
from rewardkit.train.run_dir import cut_logs_to
from rewardkit.train.sampling import Rollouts, eos_ids, generate, token_logprobs
from rewardkit.train.scoring import RewardTensors, WeightedReward, resolve_rewards, score_completions

WARMED_UP_DIR = "warmed-up-model"


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:  # pragma: no cover
        pass


class MiniGRPOTrainer:
    """Train ``config.model`` with GRPO on ``config.data`` prompts, rewarded by ``config.rewards``.

    ``rewards`` (TRL-style callables) replaces the config's list when given. Writes ``metrics.jsonl``,
    ``module_norms.jsonl``, checkpoints and plots under ``config.output_dir``.
    """

    def __init__(
        self,
        config: TrainConfig | str | Path | dict[str, Any],
        *,
        rewards: list[Any] | None = None,
        resume_from: str | Path | None = None,
    ) -> None:
        self.config = config if isinstance(config, TrainConfig) else load_config(config)
        cfg = self.config
        self.output_dir = Path(cfg.output_dir)
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.reporters = Reporters(normalise(cfg.logging.report_to), self.output_dir, cfg.to_dict())
        seed_everything(cfg.seed)
        self.train_rows, self.eval_rows = load_examples(cfg.data, cfg.seed)
        if rewards is not None:
            self.reward_terms = [
                r if isinstance(r, WeightedReward) else WeightedReward.of(_label(r), r) for r in rewards
            ]
        else:
            self.reward_terms = resolve_rewards(cfg.rewards)
        self.resuming = resume_from is not None
        # a resumed run reuses the warmed-up model saved next to its checkpoint
        self._resume_root = (
            self.output_dir if resume_from is None or str(resume_from) == "latest" else Path(resume_from).parent
        )
        base, self.tokenizer = self._load_warmed_up(cfg.model, "policy", self.resuming)
        self.model = apply_lora(base, cfg.lora)
        self.model.train()
        self.reference = None
        if cfg.grpo.beta > 0 and not cfg.lora.enabled:
            self.reference = copy.deepcopy(base).eval().requires_grad_(False)
        self.optimizer = torch.optim.AdamW(
            [p for p in self.model.parameters() if p.requires_grad],
            lr=cfg.grpo.learning_rate,
            weight_decay=cfg.grpo.weight_decay,
        )
        self.tracker = ModuleNormTracker(self.model) if cfg.logging.module_norms else None
        self.step = 0
        self.history: list[dict[str, Any]] = []
        self._setup_extra()
        if resume_from is not None:
            self.resume(resume_from)

    # -- construction helpers (the CoDistill trainer extends these) ---------------------------------
    def _load_warmed_up(self, model_config: Any, name: str, resuming: bool) -> tuple[Any, Any]:
        """Load the model; run the supervised warm-up once and keep its result, so a resume reuses it."""
        cfg = self.config
        saved = self.output_dir / f"{WARMED_UP_DIR}-{name}"
        previous = self._resume_root / saved.name
        if cfg.warmup.steps and resuming and previous.is_dir():
            model_config = type(model_config)(path=str(previous), dtype=model_config.dtype, device=model_config.device)
            return load_model(model_config, self.output_dir, cfg.seed, name)
        model, tokenizer = load_model(model_config, self.output_dir, cfg.seed, name)
        if cfg.warmup.steps:
            losses = supervised_warmup(model, tokenizer, self.train_rows, cfg.warmup, cfg.seed)
            model.save_pretrained(saved)
            tokenizer.save_pretrained(saved)
            self._write_json(
                f"warmup-{name}.json", {"loss_first": losses[0], "loss_last": losses[-1], "steps": len(losses)}
            )
        return model, tokenizer

    def _setup_extra(self) -> None:
        """Hook for subclasses: build more models and rewards after the policy exists."""

    def _after_policy_update(self, rollouts: Rollouts, scores: Any, metrics: dict[str, Any]) -> None:
        """Hook for subclasses: runs after the policy's optimizer step of each training step."""

    def _extra_models(self) -> tuple[dict[str, Any], dict[str, Any]]:
        return {}, {}

    # -- one training step ---------------------------------------------------------------------------
    def train_step(self) -> dict[str, Any]:
        """One GRPO step: roll out a group per prompt, score it, update the policy, log the step's metrics."""
        cfg, g = self.config, self.config.grpo
        started = time.perf_counter()
        rows = batch_rows(self.train_rows, cfg.seed, self.step, g.prompts_per_step)
        rollouts = generate(
            self.model,
            self.tokenizer,
            rows,
            group_size=g.group_size,
            max_new_tokens=g.max_completion_length,
            temperature=g.temperature,
            top_p=g.top_p,
        )
        scores = self.score(rollouts)
        advantages = group_advantages(scores.total, g.group_size, g.scale_rewards)
        sums, grad_norm, module_norms = self._update_policy(rollouts, advantages)
        self.step += 1
        metrics = self._step_metrics(rollouts, scores, sums, grad_norm)
        self._after_policy_update(rollouts, scores, metrics)
        metrics["time/step_s"] = time.perf_counter() - started
        self._record(metrics, module_norms, rollouts)
        return metrics

    def _update_policy(
        self, rollouts: Rollouts, advantages: torch.Tensor
    ) -> tuple[dict[str, float], float, dict[str, dict[str, float]]]:
        """``num_iterations`` optimizer steps on the rollouts, in ``grad_accum_steps`` micro-batches: the
        loss statistics (means over every pass), the last gradient norm and the per-module update norms."""
        g = self.config.grpo
        old_logp = ref_logp = None
        if g.num_iterations > 1:
            old_logp = self._logprobs_no_grad(self.model, rollouts)
        if g.beta > 0:
            ref_logp = self._reference_logprobs(rollouts)
        n = len(rollouts.texts)
        micro = n // g.grad_accum_steps
        sums: dict[str, float] = {
            "loss": 0.0,
            "clip_fraction": 0.0,
            "clip_low": 0.0,
            "clip_high": 0.0,
            "kl": 0.0,
            "entropy": 0.0,
            "ratio_mean": 0.0,
        }
        module_norms: dict[str, dict[str, float]] = {}
        grad_norm = 0.0
        if self.tracker is not None:
            self.tracker.start_step()
        for _ in range(g.num_iterations):
            self.optimizer.zero_grad(set_to_none=True)
            for start in range(0, n, micro):
                part = slice(start, start + micro)
                batch = rollouts.select(part)
                logp, entropy = token_logprobs(
                    self.model,
                    batch.prompt_ids,
                    batch.prompt_mask,
                    batch.completion_ids,
                    batch.completion_mask,
                    temperature=g.temperature,
                    with_entropy=True,
                )
                out = clipped_policy_loss(
                    logp,
                    logp.detach() if old_logp is None else old_logp[part],
                    advantages[part],
                    batch.completion_mask,
                    epsilon_low=g.epsilon,
                    epsilon_high=g.epsilon_high,
                    beta=g.beta,
                    ref_logp=None if ref_logp is None else ref_logp[part],
                    loss_type=g.loss_type,
                    max_completion_length=g.max_completion_length,
                )
                (out.loss / g.grad_accum_steps).backward()
                assert entropy is not None
                share = 1.0 / (g.grad_accum_steps * g.num_iterations)
                for key, value in (
                    ("loss", out.loss.item()),
                    ("clip_fraction", out.clip_fraction),
                    ("clip_low", out.clip_low_fraction),
                    ("clip_high", out.clip_high_fraction),
                    ("kl", out.kl),
                    ("ratio_mean", out.ratio_mean),
                    ("entropy", masked_mean(entropy, batch.completion_mask).item()),
                ):
                    sums[key] += share * value
            if self.tracker is not None:
                self.tracker.record_grads()
            grad_norm = float(
                torch.nn.utils.clip_grad_norm_([p for p in self.model.parameters() if p.requires_grad], g.max_grad_norm)
            )
            self.optimizer.step()
        if self.tracker is not None:
            module_norms = self.tracker.after_step()
        return sums, grad_norm, module_norms

    def _step_metrics(
        self, rollouts: Rollouts, scores: RewardTensors, sums: dict[str, float], grad_norm: float
    ) -> dict[str, Any]:
        """The step's logged metrics: rewards and their components, the loss statistics, completion lengths."""
        lengths = rollouts.lengths().float()
        last = rollouts.completion_ids.gather(1, (rollouts.lengths() - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
        eos = eos_ids(self.tokenizer, self.model)
        eos_hit = torch.isin(last, torch.tensor(eos if isinstance(eos, list) else [eos], device=last.device))
        metrics: dict[str, Any] = {
            "step": self.step,
            **reward_statistics(scores.total, scores.components, self.config.grpo.group_size),
        }
        metrics.update({f"reward_metrics/{k}": v for k, v in scores.metrics.items()})
        metrics.update(sums)
        metrics.update(
            {
                "grad_norm": grad_norm,
                "completion_length/mean": lengths.mean().item(),
                "completion_length/min": lengths.min().item(),
                "completion_length/max": lengths.max().item(),
                "terminated_frac": eos_hit.float().mean().item(),
            }
        )
        return metrics

    def score(self, rollouts: Rollouts, **extra: Any) -> RewardTensors:
        ids = [ids[m.bool()].tolist() for ids, m in zip(rollouts.completion_ids, rollouts.completion_mask, strict=True)]
        return score_completions(
            self.reward_terms,
            rollouts.prompts,
            rollouts.completions,
            rollouts.rows,
            {"completion_ids": ids, "trainer_state": {"step": self.step}, **extra},
        )

    def _logprobs_no_grad(self, model: Any, rollouts: Rollouts) -> torch.Tensor:
        with torch.no_grad():
            logp, _ = token_logprobs(
                model,
                rollouts.prompt_ids,
                rollouts.prompt_mask,
                rollouts.completion_ids,
                rollouts.completion_mask,
                temperature=self.config.grpo.temperature,
            )
        return logp

    def _reference_logprobs(self, rollouts: Rollouts) -> torch.Tensor:
        if self.reference is not None:
            return self._logprobs_no_grad(self.reference, rollouts)
        with self.model.disable_adapter():  # LoRA: the reference is the base model under the adapters
            return self._logprobs_no_grad(self.model, rollouts)

    # -- loop, evaluation, records ------------------------------------------------------------------
    def train(
        self, steps: int | None = None, on_step: Callable[[dict[str, Any]], None] | None = None
    ) -> list[dict[str, Any]]:
        """Run until ``steps`` (default ``grpo.steps``) training steps are done in total; ``on_step`` gets
        each step's metrics (and each evaluation's row). A resumed run already at ``steps`` raises."""
        cfg = self.config
        target = cfg.grpo.steps if steps is None else steps
        if self.resuming and self.step >= target:
            raise ConfigError(
                f"resume: the checkpoint is at step {self.step} and the run is set to {target} steps in total, "
                f"so there is nothing to train; raise the step count (--steps N with N > {self.step}) to "
                f"train further"
            )
        report = on_step or (lambda row: None)
        if self._wants_eval() and self.step == 0:
            report(self._record_eval())
        while self.step < target:
            report(self.train_step())
            if cfg.logging.eval_every and self._wants_eval() and self.step % cfg.logging.eval_every == 0:
                report(self._record_eval())
            if cfg.logging.save_every and self.step % cfg.logging.save_every == 0:
                self.save_checkpoint()
        if self._wants_eval() and (not cfg.logging.eval_every or self.step % cfg.logging.eval_every):
            report(self._record_eval())
        self.save_checkpoint()
        self.finish()
        return self.history

    @torch.no_grad()  # type: ignore[untyped-decorator]  # torch is not followed by mypy (pyproject.toml)
    def evaluate(self, rows: list[dict[str, Any]] | None = None) -> dict[str, float]:
        """Greedy completions for ``rows`` (default: the held-out prompts), scored by every reward."""
        rows = self.eval_rows if rows is None else rows
        rollouts = generate(
            self.model,
            self.tokenizer,
            rows,
            group_size=1,
            max_new_tokens=self.config.grpo.max_completion_length,
            greedy=True,
        )
        scores = self.score(rollouts)
        out = {"eval/reward": torch.nanmean(scores.total).item()}
        for label, values in scores.components.items():
            valid = values[~torch.isnan(values)]
            out[f"eval/{label}"] = valid.mean().item() if valid.numel() else float("nan")
        return out

    def _wants_eval(self) -> bool:
        return bool(self.eval_rows) or self.config.data.eval_train_prompts

    def _record_eval(self) -> dict[str, Any]:
        row: dict[str, Any] = {"step": self.step}
        if self.eval_rows:
            row.update(self.evaluate())
        if self.config.data.eval_train_prompts:
            row.update({k.replace("eval/", "eval_train/"): v for k, v in self.evaluate(self.train_rows).items()})
        with open(self.output_dir / "eval.jsonl", "a") as fh:
            fh.write(json.dumps(row) + "\n")
        self.history.append(row)
        self.reporters.log(row, self.step)
        return row

    def _record(self, metrics: dict[str, Any], module_norms: dict[str, Any], rollouts: Rollouts) -> None:
        self.history.append(metrics)
        self.reporters.log(metrics, self.step)
        if self.step % self.config.logging.log_every == 0:
            with open(self.output_dir / "metrics.jsonl", "a") as fh:
                fh.write(json.dumps(metrics) + "\n")
            with open(self.output_dir / "samples.jsonl", "a") as fh:
                fh.write(
                    json.dumps(
                        {
                            "step": self.step,
                            "prompt": str(rollouts.prompts[0]),
                            "completions": rollouts.texts[: self.config.grpo.group_size],
                        }
                    )
                    + "\n"
                )
        if module_norms:
            with open(self.output_dir / "module_norms.jsonl", "a") as fh:
                fh.write(json.dumps({"step": self.step, "modules": module_norms}) + "\n")

    def _write_json(self, name: str, data: Any) -> None:
        (self.output_dir / name).write_text(json.dumps(data, indent=2))

    def finish(self) -> None:
        """Save the final adapter/model and draw the plots."""
        for term in self.reward_terms:  # verifier-backed rewards hold worker processes; they reopen on use
            close = getattr(term.fn, "close", None)
            if callable(close):
                close()
        self.reporters.close()
        final = self.output_dir / "final"
        self.model.save_pretrained(final)
        self.tokenizer.save_pretrained(final)
        if self.config.logging.plots:
            from rewardkit.train.plots import plot_run

            plot_run(self.output_dir)

    # -- checkpoints -------------------------------------------------------------------------------
    def save_checkpoint(self, directory: str | Path | None = None) -> Path:
        models, optimizers = self._extra_models()
        return checkpoint.save(
            Path(directory) if directory else self.output_dir / f"checkpoint-{self.step}",
            step=self.step,
            models={"policy": self.model, **models},
            optimizers={"policy": self.optimizer, **optimizers},
        )

    def resume(self, directory: str | Path) -> None:
        """Continue from a checkpoint directory, or from the latest under ``output_dir`` when given "latest"."""
        path = checkpoint.latest(self.output_dir) if str(directory) == "latest" else Path(directory)
        if path is None:
            raise ConfigError(
                f"resume latest: no checkpoint-* directory under {str(self.output_dir)!r} to resume "
                f"from; start without --resume"
            )
        models, optimizers = self._extra_models()
        record = checkpoint.load(
            path, models={"policy": self.model, **models}, optimizers={"policy": self.optimizer, **optimizers}
        )
        self.step = int(record["step"])
        self.history = cut_logs_to(self.output_dir, self.step)


def _label(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__
