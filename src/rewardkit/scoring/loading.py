"""The one way from whatever names a reward (a Reward, a spec, a spec path, a registered name, a reward function)
to a Reward, for the commands, ``rk.score_rows``, the verl adapter and the pytest fixtures alike."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.rewards.base import Reward


def is_spec_path(reward: str | Path) -> bool:
    """The one rule for what a path is: a ``Path``, or a string with a spec file's suffix (``.yaml``, ``.yml``,
    ``.json``) or naming an existing file. Any other string is a registered reward's name."""
    return (
        isinstance(reward, Path) or Path(reward).suffix.lower() in (".yaml", ".yml", ".json") or Path(reward).is_file()
    )


def resolve_reward(
    reward: Any,
    params: Mapping[str, Any] | None = None,
    reference_key: str | None = None,
    *,
    where: str = "",
) -> Reward:
    """``reward`` as a Reward: a Reward as it is; a spec (a mapping, or a path by :func:`is_spec_path`) built as
    ``rk.build_reward`` builds it (on Ray where its ``executor:`` block says so); a registered name built with
    ``params``; any other callable (a TRL reward function) wrapped. ``reference_key`` makes every
    verifier-backed term read its reference from that column; ``where`` prefixes error messages
    (``verl route 'gsm8k'``)."""
    from rewardkit.rewards.api import get_reward
    from rewardkit.rewards.base import as_reward
    from rewardkit.rewards.spec import load_spec
    from rewardkit.scoring.ray_executor import build_with_executor

    try:
        if isinstance(reward, Mapping) or (isinstance(reward, (str, Path)) and is_spec_path(reward)):
            if params:
                raise ConfigError(
                    f"-p/--param sets the parameters of a registered reward name; {str(reward)!r} is a spec, "
                    "which gives each term its own 'params'"
                    if not isinstance(reward, Mapping)
                    else "parameters go in the spec's own 'params', not beside it"
                )
            built = build_with_executor(load_spec(reward), None, {})
        elif isinstance(reward, str):
            built = as_reward(get_reward(reward, **dict(params or {})), reward)
        elif isinstance(reward, Reward) or callable(reward):
            if params:
                raise ConfigError(f"parameters are for a registered reward name, not for {reward!r}")
            built = reward if isinstance(reward, Reward) else as_reward(reward)
        else:
            raise ConfigError(
                "expected a Reward, a spec dict, a YAML/JSON spec path, a registered reward name or a reward "
                f"function, got {type(reward).__name__} {reward!r}"
            )
        if reference_key is not None:
            readers = [leaf for leaf in reward_leaves(built) if hasattr(leaf, "reference_key")]
            if not readers:
                raise ConfigError(
                    f"--reference-key: reward {built.name!r} has no term that reads a reference column "
                    f"(verifier-backed rewards such as math_accuracy do)"
                )
            for leaf in readers:
                leaf.reference_key = reference_key
    except ConfigError as exc:
        if where:
            raise ConfigError(f"{where}: {exc}") from None
        raise
    return built


def spec_data(reward: Mapping[str, Any] | str | Path, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The spec a Ray actor or replica builds ``reward`` from: a spec (a mapping, or a path by
    :func:`is_spec_path`, read here so a cluster's nodes need not see the file) as its data; a registered
    name, with ``params``, as a one-term spec."""
    from rewardkit.rewards.spec import load_spec

    if isinstance(reward, Mapping) or is_spec_path(reward):
        return dict(load_spec(reward))
    return {"reward": reward, "params": dict(params)} if params else {"reward": reward}


def reward_leaves(reward: Any) -> Iterator[Any]:
    """The leaf rewards of a composed reward (through combinators' terms and ``where`` wrappers)."""
    all_terms = getattr(reward, "all_terms", None)
    if callable(all_terms):
        for term in all_terms():
            yield from reward_leaves(term.reward)
        return
    inner = getattr(reward, "inner", None)
    if inner is not None and hasattr(inner, "score"):
        yield from reward_leaves(inner)
        return
    yield reward
