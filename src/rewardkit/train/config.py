"""The trainer's configuration: frozen dataclasses read from YAML, with errors that name the bad field."""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union

from rewardkit._config_file import load_mapping
from rewardkit._errors import ConfigError


@dataclass(frozen=True)
class ModelConfig:
    """A model: a hub name / local directory (``path``), or a tiny random Llama built locally (``tiny``)."""

    path: str | None = None
    tiny: dict[str, Any] | None = None
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"
    device: str = "cpu"  # "cpu", "cuda", "cuda:1", or "auto" (cuda when available)


@dataclass(frozen=True)
class LoraSettings:
    """LoRA adapters; ``enabled: false`` means full fine-tuning of every parameter."""

    enabled: bool = True
    r: int = 8
    alpha: float = 16.0
    dropout: float = 0.0
    target_modules: str | list[str] = "all"  # "attention", "mlp", "all", or module-name suffixes
    layers: str | list[int] = "all"  # "all", "top_half", "bottom_half", or layer indices


@dataclass(frozen=True)
class DataConfig:
    """Prompts: a built-in toy task (``task``) or a JSONL file (``path``) with a ``prompt_field`` column."""

    task: str | None = None
    task_params: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    prompt_field: str = "prompt"
    chat: bool = False  # wrap string prompts as one user message (the tokenizer's chat template applies)
    eval_size: int = 0  # prompts held out for greedy evaluation (0: none)
    eval_train_prompts: bool = False  # also evaluate greedily on the training prompts ("eval_train/...")


@dataclass(frozen=True)
class WarmupConfig:
    """Optional supervised warm-up on ``target_field`` before GRPO (full-parameter, before LoRA wraps)."""

    steps: int = 0
    learning_rate: float = 1e-3
    batch_size: int = 32
    target_field: str = "answer"


@dataclass(frozen=True)
class GrpoConfig:
    steps: int = 100
    prompts_per_step: int = 8
    group_size: int = 8
    max_completion_length: int = 32
    temperature: float = 1.0
    top_p: float = 1.0
    learning_rate: float = 1e-4
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    grad_accum_steps: int = 1
    num_iterations: int = 1  # optimisation passes over each batch of rollouts (TRL's num_iterations, "mu")
    epsilon: float = 0.2
    epsilon_high: float | None = None  # None: same as epsilon
    beta: float = 0.0  # KL coefficient to the reference model (0: no reference)
    scale_rewards: Literal["group", "batch", "none"] | bool = "group"
    loss_type: Literal["grpo", "bnpo", "dr_grpo"] = "grpo"


@dataclass(frozen=True)
class RewardEntry:
    """A registered reward (``name`` + ``params``), a reward spec (``spec``: a YAML/JSON file or a mapping,
    as ``rewardkit score --reward`` takes) or an importable callable (``function: "mod:attr"``)."""

    name: str | None = None
    function: str | None = None
    spec: str | dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    weight: float = 1.0
    label: str | None = None  # the name its metrics are logged under


@dataclass(frozen=True)
class LoggingConfig:
    log_every: int = 1
    eval_every: int = 0  # greedy evaluation on the held-out prompts every N steps (0: start and end only)
    save_every: int = 0  # checkpoint every N steps (0: only at the end)
    module_norms: bool = True  # per-module update and gradient norms
    plots: bool = True
    report_to: str | list[str] = field(default_factory=list)  # "tensorboard", "wandb", a list, or "none"


@dataclass(frozen=True)
class CoDistillConfig:
    """CoDistill-GRPO: the policy is the student; the teacher learns from the student's rollouts."""

    teacher: ModelConfig = field(default_factory=ModelConfig)
    teacher_lora: LoraSettings = field(default_factory=lambda: LoraSettings(enabled=False))
    kd_weight: float = 0.5
    kd_mode: Literal["logprob", "neg_reverse_kl"] = "logprob"
    teacher_learning_rate: float = 1e-4
    iw_clip: float = 2.0  # importance weights teacher/student are clipped to [iw_clip_low, iw_clip]
    iw_clip_low: float = 0.0
    teacher_warmup: bool = True  # the supervised warm-up also trains the teacher (when warmup.steps > 0)


@dataclass(frozen=True)
class TrainConfig:
    model: ModelConfig
    data: DataConfig
    rewards: list[RewardEntry]
    output_dir: str = "out/train"
    seed: int = 0
    lora: LoraSettings = field(default_factory=LoraSettings)
    warmup: WarmupConfig = field(default_factory=WarmupConfig)
    grpo: GrpoConfig = field(default_factory=GrpoConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)
    codistill: CoDistillConfig | None = None

    def replace(self, **changes: Any) -> TrainConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(source: str | Path | dict[str, Any]) -> TrainConfig:
    """A TrainConfig from a YAML file path or a dict; raises ConfigError naming any bad field."""
    if isinstance(source, dict):
        data = source
    else:
        data = dict(load_mapping(source, "training config", "a mapping of config fields"))
    config: TrainConfig = _build(TrainConfig, data, "config")
    check_semantics(config)
    return config


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__} {data!r}")
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(unknown)}; known fields: {', '.join(fields)}")
    values = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ConfigError(f"{where}.{name}: required field is missing")
            continue
        values[name] = _convert(hints[name], data[name], f"{where}.{name}")
    return cls(**values)


def _convert(tp: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        non_null = [o for o in options if o is not type(None)]
        if len(non_null) == 1:
            return _convert(non_null[0], value, where)
        for option in options:
            if option is type(None):
                continue
            try:
                return _convert(option, value, where)
            except ConfigError:
                pass
        raise ConfigError(f"{where}: expected {_describe(tp)}, got {value!r}")
    if origin is Literal:
        if not any(value == a and type(value) is type(a) for a in typing.get_args(tp)):
            raise ConfigError(f"{where}: expected one of {list(typing.get_args(tp))}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: expected {_describe(tp)}, got {value!r}")
        (item,) = typing.get_args(tp)
        return [_convert(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        return dict(value)
    if dataclasses.is_dataclass(tp):
        return _build(typing.cast(type, tp), value, where)
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: expected an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, str):
            try:
                return float(value)  # YAML reads 1e-4 (no dot) as a string
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where}: expected a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value
    if tp is Any:
        return value
    raise ConfigError(f"{where}: unsupported field type {tp!r}")  # pragma: no cover - a bug in this module


def _describe(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        return " or ".join(_describe(a) for a in typing.get_args(tp))
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin is list:
        return f"a list of {_describe(typing.get_args(tp)[0])}"
    if tp is type(None):
        return "null"
    return getattr(tp, "__name__", str(tp))


def _positive(where: str, value: float, strict: bool = True) -> None:
    if value < 0 or (strict and value == 0):
        raise ConfigError(f"{where}: expected a {'positive' if strict else 'non-negative'} number, got {value!r}")


def _check_model(model: ModelConfig, where: str) -> None:
    if (model.path is None) == (model.tiny is None):
        raise ConfigError(f"{where}: give exactly one of 'path' (hub name or directory) or 'tiny' (sizes)")


def _check_reward_entry(entry: RewardEntry, where: str) -> None:
    from rewardkit.scoring.loading import is_spec_path

    given = [f for f in ("name", "spec", "function") if getattr(entry, f) is not None]
    if len(given) != 1:
        raise ConfigError(
            f"{where}: give exactly one of 'name' (a registered reward), 'spec' (a reward spec: a .yaml/.yml/.json "
            f"file or a mapping) or 'function' ('module:attribute'); got {', '.join(given) or 'none of them'}"
        )
    if isinstance(entry.spec, str):
        if not is_spec_path(entry.spec):
            raise ConfigError(
                f"{where}.spec: expected a reward spec file (.yaml, .yml or .json) or a spec mapping, got "
                f"{entry.spec!r}; a registered reward goes in 'name'"
            )
        if not Path(entry.spec).is_file():
            raise ConfigError(
                f"{where}.spec: reward spec file {entry.spec!r} does not exist (relative paths are read from "
                f"the working directory, {str(Path.cwd())!r})"
            )


def check_semantics(config: TrainConfig) -> None:
    _check_model(config.model, "config.model")
    if (config.data.task is None) == (config.data.path is None):
        raise ConfigError("config.data: give exactly one of 'task' (a built-in toy task) or 'path' (a JSONL file)")
    if not config.rewards:
        raise ConfigError("config.rewards: at least one reward is needed")
    for i, entry in enumerate(config.rewards):
        _check_reward_entry(entry, f"config.rewards[{i}]")
    g = config.grpo
    for name in ("steps", "prompts_per_step", "max_completion_length", "grad_accum_steps", "num_iterations"):
        _positive(f"config.grpo.{name}", getattr(g, name))
    if g.group_size < 2:
        raise ConfigError(
            f"config.grpo.group_size: expected at least 2 (advantages compare within a group), got {g.group_size}"
        )
    batch = g.prompts_per_step * g.group_size
    if batch % g.grad_accum_steps:
        raise ConfigError(
            f"config.grpo.grad_accum_steps: {g.grad_accum_steps} does not divide the "
            f"{batch} completions per step (prompts_per_step x group_size)"
        )
    _positive("config.grpo.temperature", g.temperature)
    _positive("config.grpo.learning_rate", g.learning_rate)
    _positive("config.grpo.beta", g.beta, strict=False)
    _positive("config.grpo.epsilon", g.epsilon, strict=False)
    for where, lora in (
        ("config.lora", config.lora),
        ("config.codistill.teacher_lora", config.codistill.teacher_lora if config.codistill else None),
    ):
        if lora is None or not lora.enabled:
            continue
        _positive(f"{where}.r", lora.r)
        if isinstance(lora.layers, str) and lora.layers not in ("all", "top_half", "bottom_half"):
            raise ConfigError(
                f"{where}.layers: expected 'all', 'top_half', 'bottom_half' or a list of layer "
                f"indices, got {lora.layers!r}"
            )
        if isinstance(lora.target_modules, str) and lora.target_modules not in ("attention", "mlp", "all"):
            raise ConfigError(
                f"{where}.target_modules: expected 'attention', 'mlp', 'all' or a list of module "
                f"names (q_proj, ...), got {lora.target_modules!r}"
            )
    from rewardkit.train.reporters import normalise

    normalise(config.logging.report_to)
    if config.warmup.steps < 0:
        raise ConfigError(f"config.warmup.steps: expected >= 0, got {config.warmup.steps}")
    if config.codistill is not None:
        cd = config.codistill
        _check_model(cd.teacher, "config.codistill.teacher")
        _positive("config.codistill.iw_clip", cd.iw_clip)
        if cd.iw_clip_low > cd.iw_clip:
            raise ConfigError(f"config.codistill.iw_clip_low: {cd.iw_clip_low} exceeds iw_clip {cd.iw_clip}")
