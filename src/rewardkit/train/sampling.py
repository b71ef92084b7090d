"""Prompt encoding, group sampling and per-token log-probabilities of completions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch


def prompt_text(tokenizer: Any, prompt: str | list[dict[str, str]]) -> str:
    """The text a prompt is tokenised from: chat messages go through the tokenizer's chat template."""
    if isinstance(prompt, str):
        return prompt
    text: str = tokenizer.apply_chat_template(prompt, tokenize=False, add_generation_prompt=True)
    return text


def encode_prompts(
    tokenizer: Any, prompts: list[Any], device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """Left-padded prompt ids and attention mask (a chat template already carries its special tokens)."""
    texts = [prompt_text(tokenizer, p) for p in prompts]
    special = all(isinstance(p, str) for p in prompts)
    enc = tokenizer(texts, padding=True, padding_side="left", add_special_tokens=special, return_tensors="pt")
    return enc["input_ids"].to(device), enc["attention_mask"].to(device)


def completion_mask(completion_ids: torch.Tensor, eos_token_id: int | list[int] | None) -> torch.Tensor:
    """1 for every token up to and including the first end-of-sequence token, 0 after it."""
    if eos_token_id is None:
        return torch.ones_like(completion_ids)
    eos_ids = torch.tensor(
        eos_token_id if isinstance(eos_token_id, list) else [eos_token_id], device=completion_ids.device
    )
    is_eos = torch.isin(completion_ids, eos_ids)
    after_eos = (is_eos.cumsum(dim=1) - is_eos.long()) > 0
    return (~after_eos).long()


@dataclass
class Rollouts:
    """``group_size`` completions per prompt, each group's completions next to each other."""

    prompts: list[Any]  # one per completion (repeated across the group)
    rows: list[dict[str, Any]]  # the dataset row of each completion's prompt
    prompt_ids: torch.Tensor  # (N, P), left-padded
    prompt_mask: torch.Tensor
    completion_ids: torch.Tensor  # (N, C), padded after the first EOS
    completion_mask: torch.Tensor
    completions: list[Any]  # decoded text, or [{"role": "assistant", "content": text}] for chat prompts
    texts: list[str]
    behaviour_logp: torch.Tensor | None = None  # (N, C) log-probs of the sampling policy, when kept

    def lengths(self) -> torch.Tensor:
        return self.completion_mask.sum(dim=1)

    def select(self, index: slice) -> Rollouts:
        return Rollouts(
            self.prompts[index],
            self.rows[index],
            self.prompt_ids[index],
            self.prompt_mask[index],
            self.completion_ids[index],
            self.completion_mask[index],
            self.completions[index],
            self.texts[index],
            None if self.behaviour_logp is None else self.behaviour_logp[index],
        )


def eos_ids(tokenizer: Any, model: Any) -> int | list[int] | None:
    configured = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    eos: int | list[int] | None = configured if configured is not None else tokenizer.eos_token_id
    return eos


@torch.no_grad()  # type: ignore[untyped-decorator]  # torch is not followed by mypy (pyproject.toml)
def generate(
    model: Any,
    tokenizer: Any,
    rows: list[dict[str, Any]],
    *,
    group_size: int,
    max_new_tokens: int,
    temperature: float = 1.0,
    top_p: float = 1.0,
    greedy: bool = False,
) -> Rollouts:
    """Sample ``group_size`` completions for each row's ``prompt`` (one batched ``generate`` call)."""
    from transformers import GenerationConfig

    device = next(model.parameters()).device
    prompts = [row["prompt"] for row in rows for _ in range(group_size)]
    expanded_rows = [row for row in rows for _ in range(group_size)]
    prompt_ids, prompt_mask = encode_prompts(tokenizer, prompts, device)
    eos = eos_ids(tokenizer, model)
    gen_config = GenerationConfig(
        max_new_tokens=max_new_tokens,
        do_sample=not greedy,
        temperature=None if greedy else temperature,
        top_p=None if greedy else top_p,
        top_k=None,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=eos,
    )
    was_training = model.training
    model.eval()
    out = model.generate(input_ids=prompt_ids, attention_mask=prompt_mask, generation_config=gen_config)
    model.train(was_training)
    completion_ids = out[:, prompt_ids.size(1) :]
    mask = completion_mask(completion_ids, eos)
    completion_ids = completion_ids.masked_fill(mask == 0, tokenizer.pad_token_id)
    texts = [
        tokenizer.decode(ids[m.bool()], skip_special_tokens=True) for ids, m in zip(completion_ids, mask, strict=True)
    ]
    chat = not isinstance(prompts[0], str)
    completions = [[{"role": "assistant", "content": t}] for t in texts] if chat else list(texts)
    return Rollouts(prompts, expanded_rows, prompt_ids, prompt_mask, completion_ids, mask, completions, texts)


def token_logprobs(
    model: Any,
    prompt_ids: torch.Tensor,
    prompt_mask: torch.Tensor,
    completion_ids: torch.Tensor,
    completion_mask: torch.Tensor,
    *,
    temperature: float = 1.0,
    with_entropy: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Per-token log p(completion token | prompt, earlier tokens), (N, C), and optionally the entropy.

    Logits are divided by the sampling temperature, as in TRL, so the ratio compares the sampling
    distributions. Positions are counted from each row's first real token, so left padding is invisible.
    """
    input_ids = torch.cat([prompt_ids, completion_ids], dim=1)
    attention = torch.cat([prompt_mask, completion_mask], dim=1)
    positions = (attention.cumsum(dim=1) - 1).clamp(min=0)
    logits = model(input_ids=input_ids, attention_mask=attention, position_ids=positions).logits
    logits = logits[:, prompt_ids.size(1) - 1 : -1, :].float() / temperature
    logp_all = torch.log_softmax(logits, dim=-1)
    logp = logp_all.gather(-1, completion_ids.unsqueeze(-1)).squeeze(-1)
    entropy = None
    if with_entropy:
        with torch.no_grad():
            entropy = -(logp_all.exp() * logp_all).sum(-1)
    return logp, entropy
