"""The GRPO trainer end to end on a tiny local model: real steps, diagnostics files, reproducibility,
checkpoint resume, gradient accumulation, KL to a reference, CoDistill, the CLI and the sweep."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
import yaml
from click.testing import CliRunner
from train_helpers import small_config

import rewardkit as rk
from rewardkit.train.codistill import CoDistillTrainer
from rewardkit.train.config import load_config
from rewardkit.train.scoring import WeightedReward, score_completions
from rewardkit.train.trainer import MiniGRPOTrainer


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _params(trainer) -> dict[str, torch.Tensor]:
    return {n: p.detach().clone() for n, p in trainer.model.named_parameters() if p.requires_grad}


def _no_time(rows):
    """The training-step records without their timings (evaluation records left out)."""
    return [{k: v for k, v in r.items() if not k.startswith("time/")} for r in rows if "reward/mean" in r]


def test_config_errors_name_the_field(tmp_path, student_dir):
    good = small_config(tmp_path, student_dir)
    cases = [
        ({"grpo": {"group_sise": 4}}, r"config.grpo: unknown field\(s\) group_sise; known fields: steps"),
        ({"grpo": {"group_size": "four"}}, r"config.grpo.group_size: expected an integer, got 'four'"),
        ({"grpo": {"group_size": 1}}, r"config.grpo.group_size: expected at least 2"),
        ({"grpo": {"loss_type": "ppo"}}, r"config.grpo.loss_type: expected one of \['grpo', 'bnpo', 'dr_grpo'\]"),
        ({"grpo": {"grad_accum_steps": 3}}, r"grad_accum_steps: 3 does not divide the 8 completions"),
        ({"rewards": []}, r"config.rewards: at least one reward"),
        ({"rewards": [{"name": "math_accuracy", "function": "x:y"}]}, r"config.rewards\[0\]: give exactly one"),
        ({"model": {"path": "x", "tiny": {}}}, r"config.model: give exactly one of 'path'"),
        ({"lora": {"layers": "middle"}}, r"config.lora.layers: expected"),
    ]
    for change, message in cases:
        with pytest.raises(rk.ConfigError, match=message):
            load_config(
                {**good, **{k: {**good.get(k, {}), **v} if isinstance(v, dict) else v for k, v in change.items()}}
            )
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump({**good, "grpo": {**good["grpo"], "learning_rate": "1e-4"}}))
    assert load_config(path).grpo.learning_rate == 1e-4  # YAML reads 1e-4 as a string; accepted as a number
    with pytest.raises(rk.ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")


def test_rewards_are_called_like_trl_and_logged_per_component():
    from toy_rewards import digits_only, exact_answer, strict_signature

    terms = [
        WeightedReward.of("exact", exact_answer),
        WeightedReward.of("digits", digits_only, 0.5),
        WeightedReward.of("strict", strict_signature, 0.0),
    ]
    rows = [{"prompt": "1+1=", "answer": "2"}] * 3
    scores = score_completions(terms, ["1+1="] * 3, ["2", "x2", ""], rows, {"completion_ids": [[1], [2], []]})
    assert scores.components["exact"].tolist() == [1.0, 0.0, 0.0]
    assert torch.isnan(scores.components["digits"][2])  # None: not applicable
    assert scores.total.tolist() == pytest.approx([1.5, 0.25, 0.0])
    assert scores.metrics == {"exact_answer/seen": 3.0}
    with pytest.raises(rk.ConfigError, match="returned 1 values for 3 completions"):
        score_completions([WeightedReward.of("bad", lambda completions, **kw: [1.0])], ["p"] * 3, ["a"] * 3, rows)


def test_rewardkit_math_accuracy_scores_inside_the_trainer():
    term = WeightedReward.of("math_accuracy", rk.get_reward("math_accuracy"))
    rows = [{"prompt": "3+4=", "answer": "7"}] * 3
    scores = score_completions([term], ["3+4="] * 3, ["answer:7", "answer:8", "no idea"], rows)
    assert scores.components["math_accuracy"].tolist() == [1.0, 0.0, 0.0]


def test_a_few_real_steps_write_metrics_diagnostics_checkpoint_and_plots(tmp_path, student_dir):
    config = small_config(
        tmp_path / "run",
        student_dir,
        grpo={"steps": 3},
        logging={"plots": True},
        rewards=[
            {"function": "toy_rewards:exact_answer"},
            {"name": "math_accuracy", "weight": 0.5},
            {"function": "toy_rewards:digits_only", "weight": 0.5},
        ],
    )
    trainer = MiniGRPOTrainer(config)
    before = _params(trainer)
    trainer.train()
    run = tmp_path / "run"
    metrics = _lines(run / "metrics.jsonl")
    assert [m["step"] for m in metrics] == [1, 2, 3]
    for key in (
        "reward/mean",
        "reward/std",
        "reward/exact_answer/mean",
        "reward/math_accuracy/mean",
        "reward/digits_only/std",
        "zero_variance_frac",
        "completion_length/mean",
        "entropy",
        "clip_fraction",
        "kl",
        "grad_norm",
        "reward_metrics/exact_answer/seen",
    ):
        assert all(key in m for m in metrics), key
    assert all(0.0 <= m["zero_variance_frac"] <= 1.0 and m["entropy"] > 0 for m in metrics)
    assert metrics[0]["reward_metrics/exact_answer/seen"] == 8.0  # 2 prompts x group of 4
    norms = _lines(run / "module_norms.jsonl")
    assert len(norms) == 3 and len(norms[0]["modules"]) == 2 * 7  # every LoRA module of 2 layers
    assert any(row["update_norm"] > 0 for row in norms[-1]["modules"].values())
    after = _params(trainer)
    assert any(not torch.equal(before[n], after[n]) for n in before)
    evals = _lines(run / "eval.jsonl")
    assert [e["step"] for e in evals] == [0, 3] and "eval/exact_answer" in evals[0]
    assert (run / "checkpoint-3" / "trainer_state.pt").is_file()
    assert (run / "final" / "adapter_config.json").is_file()
    for name in ("reward.png", "zero_variance.png", "module_updates.png", "summary.png"):
        assert (run / "plots" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seeded_runs_repeat_and_a_resumed_run_continues_exactly(tmp_path, student_dir):
    sections = {
        "grpo": {"steps": 4},
        "warmup": {"steps": 3, "target_field": "target"},
        "logging": {"save_every": 2, "plots": False},
        "data": {"task": "addition", "task_params": {"max_operand": 4}},
    }
    straight = MiniGRPOTrainer(small_config(tmp_path / "a", student_dir, **sections))
    straight.train()
    again = MiniGRPOTrainer(small_config(tmp_path / "b", student_dir, **sections))
    again.train(steps=2)
    assert _no_time(again.history) == _no_time(straight.history)[:2]
    resumed = MiniGRPOTrainer(
        small_config(tmp_path / "c", student_dir, **sections), resume_from=tmp_path / "a" / "checkpoint-2"
    )
    assert resumed.step == 2
    resumed.train()
    assert _no_time(resumed.history) == _no_time(straight.history)[2:]
    final_a, final_c = _params(straight), _params(resumed)
    for name in final_a:
        assert torch.allclose(final_a[name], final_c[name], atol=1e-7), name


def test_gradient_accumulation_gives_the_gradient_of_the_whole_batch(tmp_path, student_dir):
    grads = {}
    for accum in (1, 4):
        trainer = MiniGRPOTrainer(
            small_config(
                tmp_path / f"acc{accum}",
                student_dir,
                grpo={"steps": 1, "grad_accum_steps": accum, "max_grad_norm": 1e9},
                lora={"enabled": False},
                logging={"plots": False, "module_norms": False},
            )
        )
        step = trainer.optimizer.step

        def capture(*args, _t=trainer, _a=accum, _step=step, **kwargs):
            grads[_a] = {n: p.grad.clone() for n, p in _t.model.named_parameters() if p.grad is not None}
            return _step(*args, **kwargs)

        trainer.optimizer.step = capture
        trainer.train_step()
    assert grads[1].keys() == grads[4].keys()
    assert any(g.abs().sum() > 0 for g in grads[1].values())
    for name in grads[1]:
        assert torch.allclose(grads[1][name], grads[4][name], rtol=1e-4, atol=1e-7), name


@pytest.mark.parametrize("lora", [True, False], ids=["lora-reference-is-base", "full-ft-reference-copy"])
def test_kl_to_the_reference_grows_once_the_policy_moves(tmp_path, student_dir, lora):
    trainer = MiniGRPOTrainer(
        small_config(
            tmp_path,
            student_dir,
            grpo={"steps": 2, "beta": 0.1, "learning_rate": 0.05},
            lora={"enabled": lora},
            logging={"plots": False},
        )
    )
    first, second = trainer.train_step(), trainer.train_step()
    assert first["kl"] == pytest.approx(0.0, abs=1e-7)  # the policy is still the reference
    assert second["kl"] > 1e-6


def test_codistill_trains_student_and_teacher_with_the_kd_reward(tmp_path, student_dir, teacher_dir):
    config = small_config(
        tmp_path,
        student_dir,
        grpo={"steps": 2},
        codistill={
            "teacher": {"path": str(teacher_dir)},
            "kd_weight": 0.5,
            "iw_clip": 2.0,
            "teacher_learning_rate": 0.01,
        },
    )
    trainer = CoDistillTrainer(config)
    teacher_before = {n: p.detach().clone() for n, p in trainer.teacher.named_parameters()}
    history = trainer.train()
    steps = [h for h in history if "reward/mean" in h]
    for m in steps:
        assert m["reward/kd_logprob/mean"] < 0  # a mean log-probability
        assert 0 < m["teacher/iw_mean"] <= 2.0
        assert 0 <= m["teacher/iw_clipped_frac"] <= 1
        # the total adds the weighted KD term to the task rewards
        task = m["reward/exact_answer/mean"] + 0.5 * m["reward/digits_only/mean"]
        assert m["reward/mean"] == pytest.approx(task + 0.5 * m["reward/kd_logprob/mean"], abs=0.05)
    moved = [n for n, p in trainer.teacher.named_parameters() if not torch.equal(p, teacher_before[n])]
    assert moved
    state = torch.load(tmp_path / "checkpoint-2" / "trainer_state.pt", weights_only=False)
    assert set(state["models"]) == {"policy", "teacher"}


def test_cli_train_and_group_size_sweep(tmp_path, student_dir):
    from rewardkit.cli import main

    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(small_config(tmp_path / "out", student_dir, data={"eval_size": 0})))
    result = CliRunner().invoke(main, ["train", "--config", str(path), "--steps", "2"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["steps"] == 2 and 0.0 <= summary["reward_last"] <= 1.5
    result = CliRunner().invoke(
        main,
        [
            "group-size-sweep",
            "--config",
            str(path),
            "--group-sizes",
            "2,4",
            "--steps",
            "2",
            "--same-budget",
            "--output-dir",
            str(tmp_path / "sweep"),
        ],
    )
    assert result.exit_code == 0, result.output
    table = (tmp_path / "sweep" / "comparison.md").read_text().splitlines()
    assert table[2].startswith("| 2 | 4 |") and table[3].startswith("| 4 | 2 |")  # same 8 completions per step
    assert (tmp_path / "sweep" / "comparison.png").read_bytes()[:4] == b"\x89PNG"
    bad = CliRunner().invoke(main, ["train", "--config", str(path), "--resume", str(tmp_path)])
    assert bad.exit_code != 0 and "is not a checkpoint" in bad.output


def test_a_completion_no_reward_scored_is_nan_and_gets_no_advantage():
    from rewardkit.train.advantages import group_advantages

    def sometimes_none(completions, **kwargs):
        return [None if c == "?" else float(c == "7") for c in completions]

    def always_none(completions, **kwargs):
        return [None] * len(completions)

    terms = [WeightedReward.of("acc", sometimes_none), WeightedReward.of("other", always_none, 0.5)]
    rows = [{"prompt": "3+4=", "answer": "7"}] * 4
    scores = score_completions(terms, ["3+4="] * 4, ["7", "8", "?", "8"], rows)
    assert scores.total[:2].tolist() == [1.0, 0.0] and math.isnan(scores.total[2].item())
    advantages = group_advantages(scores.total, 4, "group")
    assert advantages[2].item() == 0.0
    assert advantages[[0, 1, 3]].tolist() == pytest.approx(group_advantages(torch.tensor([1.0, 0.0, 0.0]), 3).tolist())
