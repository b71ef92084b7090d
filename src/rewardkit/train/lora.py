"""Which linear layers get LoRA adapters: by kind (attention / MLP) and by layer (e.g. the top half)."""

from __future__ import annotations

import re
from typing import Any

from rewardkit._errors import ConfigError

ATTENTION_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj")
MLP_MODULES = ("gate_proj", "up_proj", "down_proj")
PRESETS = {"attention": ATTENTION_MODULES, "mlp": MLP_MODULES, "all": ATTENTION_MODULES + MLP_MODULES}
_LAYER_RE = re.compile(r"\.layers\.(\d+)\.")


def layer_index(module_name: str) -> int | None:
    """The transformer block a module belongs to (``model.layers.3.mlp.up_proj`` → 3), or None."""
    match = _LAYER_RE.search(f".{module_name}.")
    return int(match.group(1)) if match else None


def resolve_layers(layers: str | list[int], num_layers: int) -> list[int]:
    if layers == "all":
        return list(range(num_layers))
    if layers == "top_half":
        return list(range(num_layers // 2, num_layers))
    if layers == "bottom_half":
        return list(range(num_layers // 2))
    if isinstance(layers, list):
        bad = [i for i in layers if not 0 <= i < num_layers]
        if bad:
            raise ConfigError(
                f"lora.layers: indices {bad} out of range; the model has {num_layers} layers (0..{num_layers - 1})"
            )
        return sorted(set(layers))
    raise ConfigError(f"lora.layers: expected 'all', 'top_half', 'bottom_half' or a list of indices, got {layers!r}")


def select_target_modules(model: Any, target_modules: str | list[str], layers: str | list[int]) -> list[str]:
    """Full names of the ``nn.Linear`` modules to adapt; raises ConfigError when nothing matches."""
    import torch

    suffixes = PRESETS.get(target_modules) if isinstance(target_modules, str) else tuple(target_modules)
    if suffixes is None:
        raise ConfigError(
            f"lora.target_modules: expected one of {sorted(PRESETS)} or a list of module names, got {target_modules!r}"
        )
    linears = [name for name, mod in model.named_modules() if isinstance(mod, torch.nn.Linear)]
    layer_ids = {i for i in map(layer_index, linears) if i is not None}
    wanted = set(resolve_layers(layers, max(layer_ids) + 1 if layer_ids else 0))
    chosen = [n for n in linears if n.split(".")[-1] in suffixes and layer_index(n) in wanted]
    if not chosen:
        kinds = sorted({n.split(".")[-1] for n in linears})
        raise ConfigError(
            f"lora.target_modules: {list(suffixes)} in layers {sorted(wanted)} matched no linear "
            f"layer; this model's linear layers are named: {', '.join(kinds)}"
        )
    return chosen


def apply_lora(model: Any, settings: Any) -> Any:
    """Wrap ``model`` with LoRA adapters on the selected modules, or make all of it trainable."""
    if not settings.enabled:
        for p in model.parameters():
            p.requires_grad_(True)
        return model
    from peft import LoraConfig, get_peft_model

    targets = select_target_modules(model, settings.target_modules, settings.layers)
    config = LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        bias="none",
        task_type="CAUSAL_LM",
    )
    return get_peft_model(model, config)


def module_key(param_name: str) -> str:
    """The module a trainable parameter belongs to, in the base model's naming (LoRA A and B together)."""
    name = param_name.removeprefix("base_model.model.")
    if ".lora_" in name:
        return name.split(".lora_")[0]
    return name.rsplit(".", 1)[0]
