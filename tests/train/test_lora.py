"""LoRA target selection: by module kind and by layer; full fine-tuning; clear errors."""

from __future__ import annotations

import pytest
from transformers import AutoModelForCausalLM

from rewardkit import ConfigError
from rewardkit.train.config import LoraSettings
from rewardkit.train.lora import apply_lora, layer_index, select_target_modules


@pytest.fixture(scope="module")
def four_layer_model(tmp_path_factory):
    from rewardkit.train.tiny_model import build_tiny_model

    path = build_tiny_model(
        tmp_path_factory.mktemp("lora") / "m", hidden_size=16, num_layers=4, num_heads=2, intermediate_size=32
    )
    return path


def _load(path):
    return AutoModelForCausalLM.from_pretrained(path)


def _adapted(model) -> set[str]:
    return {name.removeprefix("base_model.model.") for name, mod in model.named_modules() if hasattr(mod, "lora_A")}


def test_attention_only(four_layer_model):
    names = select_target_modules(_load(four_layer_model), "attention", "all")
    assert len(names) == 4 * 4
    assert {n.split(".")[-1] for n in names} == {"q_proj", "k_proj", "v_proj", "o_proj"}


def test_mlp_only(four_layer_model):
    names = select_target_modules(_load(four_layer_model), "mlp", "all")
    assert len(names) == 4 * 3
    assert {n.split(".")[-1] for n in names} == {"gate_proj", "up_proj", "down_proj"}


def test_top_half_of_the_layers(four_layer_model):
    names = select_target_modules(_load(four_layer_model), "all", "top_half")
    assert {layer_index(n) for n in names} == {2, 3}
    assert {layer_index(n) for n in select_target_modules(_load(four_layer_model), "all", "bottom_half")} == {0, 1}
    assert {layer_index(n) for n in select_target_modules(_load(four_layer_model), ["v_proj"], [0, 3])} == {0, 3}


def test_apply_lora_adapts_exactly_the_selection_and_freezes_the_base(four_layer_model):
    model = apply_lora(_load(four_layer_model), LoraSettings(r=2, alpha=4, target_modules="mlp", layers="top_half"))
    assert _adapted(model) == {
        f"model.layers.{i}.mlp.{k}" for i in (2, 3) for k in ("gate_proj", "up_proj", "down_proj")
    }
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    assert trainable and all(".lora_" in n for n in trainable)


def test_full_fine_tuning_trains_every_parameter(four_layer_model):
    model = apply_lora(_load(four_layer_model), LoraSettings(enabled=False))
    assert all(p.requires_grad for p in model.parameters())
    assert not _adapted(model)


def test_errors_name_the_field_and_what_exists(four_layer_model):
    model = _load(four_layer_model)
    with pytest.raises(ConfigError, match=r"lora.target_modules.*linear layers are named: .*q_proj"):
        select_target_modules(model, ["c_attn"], "all")
    with pytest.raises(ConfigError, match=r"lora.layers.*\[7\] out of range.*4 layers"):
        select_target_modules(model, "all", [0, 7])
    with pytest.raises(ConfigError, match="lora.target_modules: expected one of"):
        select_target_modules(model, "attn", "all")
    with pytest.raises(ConfigError, match="lora.layers: expected"):
        select_target_modules(model, "all", "middle")
