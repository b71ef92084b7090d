"""CoDistill-GRPO pieces on two tiny models sharing a tokenizer: the KD reward and the importance weights
against hand computations (one unpadded sequence at a time, plain softmax), and the teacher's update."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

import rewardkit as rk
from rewardkit.train.codistill import TeacherLogprobReward, importance_weights, teacher_policy_loss
from rewardkit.train.sampling import token_logprobs

PROMPTS = ["3+4=", "12+30="]  # different lengths: the batched code pads, the hand computation does not
COMPLETIONS = ["7</s>", "42"]


@pytest.fixture(scope="module")
def models(student_dir, teacher_dir):
    tokenizer = AutoTokenizer.from_pretrained(student_dir)
    student = AutoModelForCausalLM.from_pretrained(student_dir).eval()
    teacher = AutoModelForCausalLM.from_pretrained(teacher_dir).eval()
    assert teacher.config.num_hidden_layers > student.config.num_hidden_layers
    return tokenizer, student, teacher


def _ids(tokenizer, text):
    return tokenizer(text, add_special_tokens=False)["input_ids"]


def _hand_token_probs(model, tokenizer, prompt, completion) -> list[float]:
    """p(token_t | prompt, tokens < t) for each completion token: one unpadded forward, softmax by hand."""
    p_ids, c_ids = _ids(tokenizer, prompt), _ids(tokenizer, completion)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([p_ids + c_ids])).logits[0]
    probs = []
    for t, token in enumerate(c_ids):
        row = logits[len(p_ids) + t - 1].double()
        probs.append(float(torch.exp(row[token]) / torch.exp(row).sum()))
    return probs


def test_kd_logprob_is_the_teachers_mean_token_logprob(models):
    tokenizer, _, teacher = models
    reward = TeacherLogprobReward(teacher, tokenizer)
    got = reward(prompts=PROMPTS, completions=COMPLETIONS)
    for value, prompt, completion in zip(got, PROMPTS, COMPLETIONS, strict=False):
        probs = _hand_token_probs(teacher, tokenizer, prompt, completion)
        assert value == pytest.approx(sum(math.log(p) for p in probs) / len(probs), abs=1e-5)
    # the trainer passes token ids (TRL's completion_ids); the result is the same
    ids = [_ids(tokenizer, c) for c in COMPLETIONS]
    assert reward(prompts=PROMPTS, completions=COMPLETIONS, completion_ids=ids) == pytest.approx(got, abs=1e-6)


def test_kd_neg_reverse_kl_is_teacher_minus_student_logprob(models):
    tokenizer, student, teacher = models
    got = TeacherLogprobReward(teacher, tokenizer, "neg_reverse_kl", student=student)(PROMPTS, COMPLETIONS)
    for value, prompt, completion in zip(got, PROMPTS, COMPLETIONS, strict=False):
        t = _hand_token_probs(teacher, tokenizer, prompt, completion)
        s = _hand_token_probs(student, tokenizer, prompt, completion)
        assert value == pytest.approx(
            sum(math.log(a) - math.log(b) for a, b in zip(t, s, strict=False)) / len(t), abs=1e-5
        )
    with pytest.raises(rk.ConfigError, match="student"):
        TeacherLogprobReward(teacher, tokenizer, "neg_reverse_kl")(PROMPTS, COMPLETIONS)


def test_kd_logprob_is_a_registered_reward_loading_the_teacher_by_path(models, teacher_dir):
    tokenizer, _, teacher = models
    by_name = rk.get_reward("kd_logprob", teacher=str(teacher_dir))
    by_object = TeacherLogprobReward(teacher, tokenizer)
    assert by_name(PROMPTS, COMPLETIONS) == pytest.approx(by_object(PROMPTS, COMPLETIONS), abs=1e-6)
    assert by_name(PROMPTS, ["", "5"])[0] is None  # nothing to score: not applicable, not a crash


def _batched_logps(models):
    tokenizer, student, teacher = models
    from rewardkit.train.codistill import _pad_right
    from rewardkit.train.sampling import encode_prompts

    prompt_ids, prompt_mask = encode_prompts(tokenizer, PROMPTS)
    ids, mask = _pad_right([_ids(tokenizer, c) for c in COMPLETIONS], tokenizer.pad_token_id, "cpu")
    t_logp, _ = token_logprobs(teacher, prompt_ids, prompt_mask, ids, mask)
    with torch.no_grad():
        s_logp, _ = token_logprobs(student, prompt_ids, prompt_mask, ids, mask)
    return prompt_ids, prompt_mask, ids, mask, t_logp, s_logp


def test_importance_weights_are_clipped_teacher_over_student_token_probs(models):
    tokenizer, student, teacher = models
    *_, mask, t_logp, s_logp = _batched_logps(models)
    hand = []
    for prompt, completion in zip(PROMPTS, COMPLETIONS, strict=False):
        t = _hand_token_probs(teacher, tokenizer, prompt, completion)
        s = _hand_token_probs(student, tokenizer, prompt, completion)
        hand.append([a / b for a, b in zip(t, s, strict=False)])
    flat = sorted(r for row in hand for r in row)
    clip_high, clip_low = flat[len(flat) // 2], flat[0] * 1.01  # some tokens above, one below
    weights = importance_weights(t_logp, s_logp, mask, clip_high=clip_high, clip_low=clip_low)
    for i, row in enumerate(hand):
        for t, ratio in enumerate(row):
            assert weights[i, t].item() == pytest.approx(min(max(ratio, clip_low), clip_high), rel=1e-4)
        assert weights[i, len(row) :].abs().sum().item() == 0.0  # padding
    assert not weights.requires_grad


def test_teacher_step_raises_logprob_of_positive_advantage_rollouts(models):
    _, _, trained_teacher = models
    teacher = AutoModelForCausalLM.from_pretrained(trained_teacher.name_or_path)  # a fresh copy to update
    prompt_ids, prompt_mask, ids, mask, _, s_logp = _batched_logps(models)
    advantages = torch.tensor([1.0, -1.0])
    opt = torch.optim.SGD(teacher.parameters(), lr=0.5)
    before, _ = token_logprobs(teacher, prompt_ids, prompt_mask, ids, mask)
    loss = teacher_policy_loss(before, s_logp, advantages, mask, clip_high=5.0)
    loss.backward()
    opt.step()
    with torch.no_grad():
        after, _ = token_logprobs(teacher, prompt_ids, prompt_mask, ids, mask)

    def seq(logp, i):
        return (logp[i] * mask[i]).sum().item()

    assert seq(after, 0) > seq(before.detach(), 0)  # A > 0: more likely
    assert seq(after, 1) < seq(before.detach(), 1)  # A < 0: less likely
