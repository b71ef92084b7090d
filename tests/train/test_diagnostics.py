"""Diagnostics: reward statistics, zero-variance group fraction, per-module gradient and update norms."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import AutoModelForCausalLM

from rewardkit.train.config import LoraSettings
from rewardkit.train.diagnostics import (
    ModuleNormTracker,
    lora_delta_norms,
    per_kind,
    per_layer,
    reward_statistics,
)
from rewardkit.train.lora import apply_lora


def test_reward_statistics_per_component_and_zero_variance_fraction():
    total = torch.tensor([1.0, 1.0, 0.0, 1.0, 2.0, 2.0])  # groups of 2: constant, varied, constant
    comp = torch.tensor([1.0, float("nan"), 0.0, 1.0, 0.0, 0.0])
    stats = reward_statistics(total, {"acc": comp}, group_size=2)
    assert stats["zero_variance_frac"] == pytest.approx(2 / 3)
    assert stats["reward/mean"] == pytest.approx(7 / 6)
    assert stats["reward/acc/mean"] == pytest.approx(2 / 5)  # the None (NaN) is left out
    assert stats["reward/acc/zero_variance_frac"] == pytest.approx(1 / 3)


def _loss(model):
    ids = torch.tensor([[5, 9, 12, 30, 7, 8]])
    return model(input_ids=ids, labels=ids).loss


def test_update_norm_is_lr_times_grad_norm_under_sgd(student_dir):
    torch.manual_seed(0)
    model = apply_lora(
        AutoModelForCausalLM.from_pretrained(student_dir),
        LoraSettings(r=2, alpha=4, target_modules="attention", layers="top_half"),
    )
    with torch.no_grad():  # B starts at zero (so A gets no gradient); give it values so both move
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    tracker = ModuleNormTracker(model)
    assert set(tracker.groups) == {f"model.layers.1.self_attn.{k}" for k in ("q_proj", "k_proj", "v_proj", "o_proj")}
    lr = 0.01
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr)
    _loss(model).backward()
    expected_grad = {k: math.sqrt(sum(float(p.grad.pow(2).sum()) for p in ps)) for k, ps in tracker.groups.items()}
    tracker.before_step()
    opt.step()
    norms = tracker.after_step()
    for key, row in norms.items():
        assert row["grad_norm"] == pytest.approx(expected_grad[key], rel=1e-5)
        assert row["update_norm"] == pytest.approx(lr * expected_grad[key], rel=1e-4)
        assert row["grad_norm"] > 0


def test_lora_delta_norm_is_the_norm_of_scale_b_a(student_dir):
    model = apply_lora(
        AutoModelForCausalLM.from_pretrained(student_dir), LoraSettings(r=2, alpha=6, target_modules=["v_proj"])
    )
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.fill_(0.5)
    deltas = lora_delta_norms(model)
    assert set(deltas) == {"model.layers.0.self_attn.v_proj", "model.layers.1.self_attn.v_proj"}
    module = model.base_model.model.model.layers[0].self_attn.v_proj
    a, b = module.lora_A["default"].weight, module.lora_B["default"].weight
    assert deltas["model.layers.0.self_attn.v_proj"] == pytest.approx(
        float(torch.linalg.matrix_norm(3.0 * b @ a).detach()), rel=1e-5
    )


def test_full_fine_tuning_groups_by_weight_and_aggregates_by_layer_and_kind(student_dir):
    model = AutoModelForCausalLM.from_pretrained(student_dir)
    tracker = ModuleNormTracker(model)
    assert "model.layers.0.mlp.down_proj" in tracker.groups and "lm_head" in tracker.groups
    _loss(model).backward()
    tracker.before_step()
    with torch.no_grad():
        model.model.layers[1].mlp.up_proj.weight.add_(0.1)  # move one weight by hand: 0.1 on every entry
    norms = tracker.after_step()
    n = model.model.layers[1].mlp.up_proj.weight.numel()
    assert norms["model.layers.1.mlp.up_proj"]["update_norm"] == pytest.approx(0.1 * math.sqrt(n), rel=1e-4)
    assert norms["model.layers.0.mlp.up_proj"]["update_norm"] == 0.0
    layers = per_layer(norms)
    assert layers["layer1"] == pytest.approx(0.1 * math.sqrt(n), rel=1e-4) and layers["layer0"] == 0.0
    assert per_kind(norms)["up_proj"] == pytest.approx(0.1 * math.sqrt(n), rel=1e-4)


def test_several_passes_per_step_measure_the_whole_update(student_dir):
    model = apply_lora(
        AutoModelForCausalLM.from_pretrained(student_dir), LoraSettings(r=2, alpha=4, target_modules="mlp")
    )
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.normal_(0, 0.1)
    tracker = ModuleNormTracker(model)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
    _loss(model).backward()
    grad = {k: math.sqrt(sum(float(p.grad.pow(2).sum()) for p in ps)) for k, ps in tracker.groups.items()}
    tracker.start_step()
    for _ in range(2):  # two passes with the same gradient: the step moves 2 * lr * g
        tracker.record_grads()
        opt.step()
    norms = tracker.after_step()
    for key, row in norms.items():
        assert row["grad_norm"] == pytest.approx(grad[key], rel=1e-5)
        assert row["update_norm"] == pytest.approx(2 * 0.01 * grad[key], rel=1e-4)


def test_reward_statistics_leave_unscored_completions_out():
    total = torch.tensor([1.0, float("nan"), 0.0, 1.0])
    stats = reward_statistics(total, {}, group_size=2)
    assert stats["reward/mean"] == pytest.approx(2 / 3)
    assert stats["reward/unscored_frac"] == pytest.approx(0.25)
    assert not math.isnan(stats["reward/std"])
