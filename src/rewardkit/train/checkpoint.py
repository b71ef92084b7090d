"""Checkpoints: trainable weights, optimizer state, RNG state and the step, so a resumed run continues exactly."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import torch

from rewardkit._errors import ConfigError

STATE_FILE = "trainer_state.pt"


def trainable_state(model: Any) -> dict[str, torch.Tensor]:
    return {n: p.detach().cpu().clone() for n, p in model.named_parameters() if p.requires_grad}


def load_trainable_state(model: Any, state: dict[str, torch.Tensor]) -> None:
    params = dict(model.named_parameters())
    missing = sorted(set(state) - set(params))
    if missing:
        raise ConfigError(f"checkpoint does not fit this model: unknown parameters {missing[:5]}")
    with torch.no_grad():
        for name, value in state.items():
            params[name].copy_(value.to(params[name].device))


def rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def save(
    directory: Path,
    *,
    step: int,
    models: dict[str, Any],
    optimizers: dict[str, Any],
    extra: dict[str, Any] | None = None,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "step": step,
            "models": {k: trainable_state(m) for k, m in models.items()},
            "optimizers": {k: o.state_dict() for k, o in optimizers.items()},
            "rng": rng_state(),
            "extra": extra or {},
        },
        directory / STATE_FILE,
    )
    return directory


def load(directory: Path, *, models: dict[str, Any], optimizers: dict[str, Any]) -> dict[str, Any]:
    """Restore weights, optimizer and RNG state in place; return the saved record (``step``, ``extra``)."""
    path = Path(directory) / STATE_FILE
    if not path.is_file():
        raise ConfigError(f"resume: {str(directory)!r} is not a checkpoint (no {STATE_FILE})")
    record: dict[str, Any] = torch.load(path, weights_only=False)
    for key, model in models.items():
        load_trainable_state(model, record["models"][key])
    for key, optimizer in optimizers.items():
        optimizer.load_state_dict(record["optimizers"][key])
    set_rng_state(record["rng"])
    return record


def latest(output_dir: Path) -> Path | None:
    found = sorted(Path(output_dir).glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    return found[-1] if found else None
