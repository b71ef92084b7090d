"""Build a reward from a composition spec (a dict, or a YAML/JSON file), checking every field up front."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rewardkit._config_file import load_mapping
from rewardkit._errors import ConfigError
from rewardkit.plugins.params import FACTORY_MARK, ParamValueError
from rewardkit.plugins.registry import Registries
from rewardkit.rewards.base import Reward, as_reward
from rewardkit.rewards.combinators import Combinator, Term, Where

REWARD_FIELDS = ("reward", "params", "verifier", "weight", "name", "where")
COMBINE_FIELDS = ("combine", "name", "weight", "where")


def reward_factory(func: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a function registered as a reward as a factory: ``func(**params)`` returns the reward."""
    setattr(func, FACTORY_MARK, True)
    return func


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
                f"{', '.join(self.registries.combinators.names())}); "
                f"got fields: {', '.join(map(str, node)) or '(none)'}"
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
        made = self.registries.rewards.create(name, params, where=f"{path}.params" if params else f"{path}.reward")
        return as_reward(made, name)

    def combinator(self, node: Mapping[str, Any], path: str) -> Reward:
        kind = node["combine"]
        combinators = self.registries.combinators
        if not isinstance(kind, str) or kind not in combinators:
            raise ConfigError(f"{path}.combine: {combinators.unknown_message(kind)}")
        cls = combinators.get(kind)
        if not (inspect.isclass(cls) and issubclass(cls, Combinator)):
            raise ConfigError(f"{path}.combine: combinator {kind!r} is not a Combinator subclass")
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
                label = unique_label(label, used)
                terms[field].append(Term(label, reward, weight))
        settings = {option: node[option] for option in cls.options if option in node}
        label_list = [t.label for field in cls.term_fields for t in terms[field]]
        name = f"{kind}_{'_'.join(label_list)}"
        try:
            return cls(name, terms, **settings)  # checks the settings (plugins/params.py)
        except ParamValueError as exc:
            raise ParamValueError(f"{path}.{exc.param}", exc.detail) from None
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


def unique_label(label: str, used: set[str]) -> str:
    """``label``, or ``label_2``, ``label_3``, ... when taken; the result is added to ``used``."""
    candidate, n = label, 2
    while candidate in used:
        candidate, n = f"{label}_{n}", n + 1
    used.add(candidate)
    return candidate


def _check_fields(node: Mapping[str, Any], allowed: tuple[str, ...], path: str) -> None:
    unknown = [str(k) for k in node if k not in allowed]
    if unknown:
        raise ConfigError(f"{path}: unknown field(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(allowed)}")
