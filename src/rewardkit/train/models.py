"""Load a policy/teacher model and its tokenizer, and the supervised warm-up."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import torch

from rewardkit._errors import ConfigError
from rewardkit.train.sampling import encode_prompts


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"model.device: {device!r} asked for, but torch sees no CUDA device")
    return torch.device(device)


def load_model(model_config: Any, workdir: Path, seed: int, name: str = "policy") -> tuple[Any, Any]:
    """(model, tokenizer) from a path / hub name, or a tiny random Llama written under ``workdir``."""
    path: str | Path
    if model_config.tiny is not None:
        from rewardkit.train.tiny_model import build_tiny_model

        target = workdir / f"{name}-tiny-init"
        try:
            path = build_tiny_model(target, seed=seed, **model_config.tiny)
        except TypeError as exc:
            raise ConfigError(
                f"model.tiny: {exc}; accepted: hidden_size, num_layers, num_heads, "
                f"intermediate_size, max_positions, seed"
            ) from None
    else:
        path = model_config.path
    model, tokenizer = load_pretrained(path, model_config.device, model_config.dtype)
    tokenizer.padding_side = "left"
    return model, tokenizer


def load_pretrained(path: str | Path, device: str, dtype: str) -> tuple[Any, Any]:
    """(model, tokenizer) saved at ``path`` (or a hub name): the tokenizer pads with EOS when it has no pad
    token, the model is in ``dtype`` (a torch dtype name) on ``device`` (``"auto"``: CUDA when there is one)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
    return model.to(resolve_device(device)), tokenizer


def supervised_warmup(model: Any, tokenizer: Any, rows: list[dict[str, Any]], warmup: Any, seed: int) -> list[float]:
    """Teacher-forced cross-entropy on ``prompt -> target_field + EOS`` (loss on the target only).

    Returns the loss of each step. Deterministic for a given seed.
    """
    if warmup.target_field not in rows[0]:
        raise ConfigError(f"warmup.target_field: rows have no {warmup.target_field!r}; fields: {', '.join(rows[0])}")
    device = next(model.parameters()).device
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=warmup.learning_rate)
    rng = random.Random(seed)
    losses = []
    model.train()
    for _ in range(warmup.steps):
        batch = [rows[rng.randrange(len(rows))] for _ in range(warmup.batch_size)]
        prompt_ids, prompt_mask = encode_prompts(tokenizer, [r["prompt"] for r in batch], device)
        targets = tokenizer(
            [str(r[warmup.target_field]) + tokenizer.eos_token for r in batch],
            padding=True,
            padding_side="right",
            add_special_tokens=False,
            return_tensors="pt",
        )
        target_ids = targets["input_ids"].to(device)
        target_mask = targets["attention_mask"].to(device)
        input_ids = torch.cat([prompt_ids, target_ids], dim=1)
        attention = torch.cat([prompt_mask, target_mask], dim=1)
        positions = (attention.cumsum(dim=1) - 1).clamp(min=0)
        logits = model(input_ids=input_ids, attention_mask=attention, position_ids=positions).logits
        logits = logits[:, prompt_ids.size(1) - 1 : -1, :].float()
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), target_ids, reduction="none")
        loss = (nll * target_mask).sum() / target_mask.sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
