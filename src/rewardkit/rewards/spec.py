"""Build a reward from a composition spec (a dict, or a YAML/JSON file), checking every field up front."""

from __future__ import annotations

import functools
import importlib
import inspect
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit._config_file import load_mapping
from rewardkit._errors import ConfigError
from rewardkit._param_types import ParamValueError, check_values
from rewardkit.plugins.registry import Registries
from rewardkit.rewards.base import Reward, as_reward
from rewardkit.rewards.combinators import Combinator, Term, Where

REWARD_FIELDS = ("reward", "params", "verifier", "weight", "name", "where")
COMBINE_FIELDS = ("combine", "name", "weight", "where")
TRL_PARAMS = ("prompts", "completions")


def is_factory(obj: Any) -> bool:
    """A registered object is a factory (called with params) if it is a class or marked ``@reward_factory``."""
    return inspect.isclass(obj) or bool(getattr(obj, "__rewardkit_factory__", False))


def reward_factory(func: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a function registered as a reward as a factory: ``func(**params)`` returns the reward."""
    func.__rewardkit_factory__ = True  # type: ignore[attr-defined]
    return func


def _accepted(func: Callable[..., Any], exclude: tuple[str, ...] = ()) -> str:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return "(unknown)"
    names = [
        n for n, p in sig.parameters.items()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in exclude
    ]
    if not exclude and any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        names.append("(verifier parameters)" if getattr(func, "__rewardkit_factory__", False) else "**kwargs")
    return ", ".join(names) or "(none)"


def resolve_reward(registries: Registries, name: Any, at: str = "") -> Any:
    """The object registered under ``name``, or the one a ``"package.module:attribute"`` name imports."""
    if not isinstance(name, str):
        raise ConfigError(f"{at}a reward name must be a string, got {type(name).__name__} {name!r}")
    if name in registries.rewards:
        return registries.rewards.get(name)
    if ":" not in name:
        raise ConfigError(
            f"{at}{registries.rewards.unknown_message(name)} "
            f"(or give an importable function as 'package.module:function')"
        )
    module_name, _, attr = name.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except ImportError as exc:
        raise ConfigError(f"{at}cannot import module {module_name!r} for reward {name!r}: {exc}") from None
    except AttributeError:
        raise ConfigError(f"{at}module {module_name!r} has no attribute {attr!r} (reward {name!r})") from None
    if not callable(obj):
        raise ConfigError(f"{at}{name!r} is a {type(obj).__name__}, not a reward function or factory")
    return obj


def make_reward(registries: Registries, name: str, params: Mapping[str, Any], where: str = "") -> Any:
    """The reward registered under ``name`` made with ``params`` (see docs/rewards.md, "Registering").

    ``name`` may also be ``"package.module:function"``: that object is imported and treated as a
    registered one (a plain TRL reward function, or a factory).
    """
    at = f"{where}: " if where else ""
    obj = resolve_reward(registries, name, at)
    params = dict(params)
    try:
        return _made(obj, name, params, at)
    except ParamValueError as exc:
        field = f"{where}.{exc.param}" if where.endswith(".params") else f"{where}.params.{exc.param}" if where else exc.param
        raise ConfigError(f"{field}: {exc.detail}") from None


def _made(obj: Any, name: str, params: dict[str, Any], at: str) -> Any:
    if is_factory(obj):
        _bind(obj, params, name, at, ())
        check_values("reward", name, obj, params)
        try:
            reward = obj(**params)
        except ParamValueError:
            raise
        except ConfigError as exc:
            raise ConfigError(f"{at}{exc}") from None
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{at}bad parameters for reward {name!r}: {exc}") from None
        try:
            reward.__name__ = name
        except (AttributeError, TypeError):
            pass
        return reward
    if not callable(obj):
        raise ConfigError(f"{at}reward {name!r} is registered as a {type(obj).__name__}, which is not callable")
    if not params:
        return obj
    _bind(obj, params, name, at, TRL_PARAMS)
    check_values("reward", name, obj, params)
    # TRL logs rewards under ``reward_func.__name__``; a bare partial has none.
    bound = functools.partial(obj, **params)
    functools.update_wrapper(bound, obj)
    bound.__name__ = name  # type: ignore[attr-defined]
    return bound


def _bind(func: Callable[..., Any], params: dict[str, Any], name: str, at: str, exclude: tuple[str, ...]) -> None:
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return
    bad = [k for k in params if k in exclude]
    named = {n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    try:
        if bad:
            raise TypeError(f"{', '.join(bad)} cannot be bound (TRL passes them)")
        if exclude:
            # A TRL reward's **kwargs receives dataset columns, so only named parameters can be bound.
            unnamed = [k for k in params if k not in named]
            if unnamed:
                raise TypeError(f"unexpected parameter(s) {', '.join(unnamed)}")
            sig.bind_partial(**params)
        else:
            sig.bind(**params)
    except TypeError as exc:
        raise ConfigError(
            f"{at}bad parameters for reward {name!r}: {exc}; it accepts: {_accepted(func, exclude)}"
        ) from None


def load_spec(source: Any) -> Mapping[str, Any]:
    """A spec mapping from a mapping, or from a ``.yaml``/``.yml``/``.json`` file path."""
    if isinstance(source, Mapping):
        return source
    if isinstance(source, (str, Path)):
        return load_mapping(source, "reward spec file")
    raise ConfigError(f"a reward spec must be a dict or a path to a YAML/JSON file, got {type(source).__name__}")


class SpecBuilder:
    """Turns spec nodes into rewards; every error names the node's path (``spec.terms[1].params``)."""

    def __init__(self, registries: Registries) -> None:
        self.registries = registries

    def build(self, spec: Mapping[str, Any]) -> Reward:
        reward, _, _ = self.node(spec, "spec")
        return reward

    def node(self, node: Any, path: str) -> tuple[Reward, str, float]:
        if isinstance(node, str):
            node = {"reward": node}
        if not isinstance(node, Mapping):
            raise ConfigError(
                f"{path}: expected a mapping with 'reward' or 'combine' (or a reward name), "
                f"got {type(node).__name__} {node!r}"
            )
        has_reward, has_combine = "reward" in node, "combine" in node
        if has_reward == has_combine:
            raise ConfigError(
                f"{path}: needs exactly one of 'reward' (a registered reward: "
                f"{', '.join(self.registries.rewards.names())}) or 'combine' (a combinator: "
                f"{', '.join(self.registries.shapers.names())}); got fields: {', '.join(map(str, node)) or '(none)'}"
            )
        weight = node.get("weight", 1.0)
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ConfigError(f"{path}.weight: expected a number, got {type(weight).__name__} {weight!r}")
        if not math.isfinite(weight):
            raise ConfigError(f"{path}.weight: expected a finite number, got {weight!r}")
        label = node.get("name")
        if label is not None and (not isinstance(label, str) or not label):
            raise ConfigError(f"{path}.name: expected a non-empty string, got {label!r}")
        reward = self.leaf(node, path) if has_reward else self.combinator(node, path)
        if label:
            reward.__name__ = label
        where = node.get("where")
        if where is not None:
            if not isinstance(where, Mapping) or not where or not all(isinstance(k, str) for k in where):
                raise ConfigError(
                    f"{path}.where: expected a mapping of column name to value(s), e.g. {{task: math}}, got {where!r}"
                )
            _check_where_values(where, f"{path}.where")
            reward = Where(reward, where)
        return reward, reward.name, float(weight)

    def leaf(self, node: Mapping[str, Any], path: str) -> Reward:
        _check_fields(node, REWARD_FIELDS, path)
        params = node.get("params") or {}
        if not isinstance(params, Mapping):
            raise ConfigError(f"{path}.params: expected a mapping of parameter names to values, got {params!r}")
        if "verifier" in node:
            if "verifier" in params:
                raise ConfigError(f"{path}: give 'verifier' once, as a field or in params, not both")
            params = {"verifier": node["verifier"], **params}
        name = node["reward"]
        made = make_reward(self.registries, name, params, f"{path}.params" if params else f"{path}.reward")
        return as_reward(made, name)

    def combinator(self, node: Mapping[str, Any], path: str) -> Reward:
        kind = node["combine"]
        shapers = self.registries.shapers
        if not isinstance(kind, str) or kind not in shapers:
            raise ConfigError(f"{path}.combine: {shapers.unknown_message(kind)}")
        cls = shapers.get(kind)
        if not (inspect.isclass(cls) and issubclass(cls, Combinator)):
            raise ConfigError(f"{path}.combine: shaper {kind!r} is not a Combinator subclass")
        _check_fields(node, COMBINE_FIELDS + tuple(cls.term_fields) + tuple(cls.options), path)
        terms: dict[str, list[Term]] = {}
        used: set[str] = set()
        for field, arity in cls.term_fields.items():
            if field not in node:
                raise ConfigError(
                    f"{path}: combine: {kind} needs field {field!r} "
                    f"({'a list of terms' if arity == 'many' else 'one term'})"
                )
            given = node[field]
            if arity == "many":
                if not isinstance(given, list) or not given:
                    raise ConfigError(f"{path}.{field}: expected a non-empty list of terms, got {given!r}")
                items = [(f"{path}.{field}[{i}]", item) for i, item in enumerate(given)]
            else:
                items = [(f"{path}.{field}", given)]
            terms[field] = []
            for item_path, item in items:
                reward, label, weight = self.node(item, item_path)
                label = _unique(label, used)
                terms[field].append(Term(label, reward, weight))
        settings = {}
        for option, spec in cls.options.items():
            if option in node:
                value = node[option]
                if isinstance(value, bool) or not isinstance(value, spec.types):
                    expected = " or ".join("null" if t is type(None) else t.__name__ for t in spec.types)
                    raise ConfigError(f"{path}.{option}: expected {expected} ({spec.help}), got {value!r}")
                if isinstance(value, float) and not math.isfinite(value):
                    raise ConfigError(f"{path}.{option}: expected a finite number ({spec.help}), got {value!r}")
                settings[option] = value
        label_list = [t.label for field in cls.term_fields for t in terms[field]]
        name = f"{kind}_{'_'.join(label_list)}"
        try:
            return cls(name, terms, **settings)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from None


SCALARS = (str, int, float, bool, type(None))


def _check_where_values(where: Mapping[str, Any], path: str) -> None:
    for column, accepted in where.items():
        values = accepted if isinstance(accepted, (list, tuple)) else [accepted]
        if not values:
            raise ConfigError(f"{path}.{column}: expected a value or a non-empty list of values, got {accepted!r}")
        for value in values:
            if not isinstance(value, SCALARS) or (isinstance(value, float) and math.isnan(value)):
                raise ConfigError(
                    f"{path}.{column}: expected a column value (string, number, true/false or null) or a list of "
                    f"them, got {type(value).__name__} {value!r}"
                )


def _unique(label: str, used: set[str]) -> str:
    candidate, n = label, 2
    while candidate in used:
        candidate, n = f"{label}_{n}", n + 1
    used.add(candidate)
    return candidate


def _check_fields(node: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
    unknown = [str(k) for k in node if k not in allowed]
    if unknown:
        raise ConfigError(f"{path}: unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")
