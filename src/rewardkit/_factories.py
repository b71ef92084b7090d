"""Look up a registered factory by name and call it with checked parameters."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._param_types import check_values
from rewardkit.plugins.registry import Registry


def accepted_params(factory: Callable[..., Any]) -> list[str] | None:
    """Keyword parameters a factory takes, or None when it takes ``**kwargs``."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return [n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]


def check_params(kind: str, name: str, factory: Callable[..., Any], params: dict[str, Any]) -> None:
    """Raise ConfigError when ``params`` do not bind to ``factory`` or a value has the wrong type or range."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    try:
        sig.bind(**params)
    except TypeError as exc:
        accepted = accepted_params(factory)
        raise ConfigError(
            f"bad parameters for {kind} {name!r}: {exc}; it accepts: {', '.join(accepted or []) or '(none)'}"
        ) from None
    check_values(kind, name, factory, params)


def create(registry: Registry, name: str, params: dict[str, Any]) -> Any:
    factory = registry.get(name)
    check_params(registry.kind, name, factory, params)
    return factory(**params)
