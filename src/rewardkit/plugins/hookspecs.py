"""The hooks a rewardkit plugin may implement; each runs once, to fill a registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

from rewardkit.plugins.naming import PROJECT_NAME

hookspec = pluggy.HookspecMarker(PROJECT_NAME)

Register = Callable[[str, Any], None]


@hookspec
def register_verifiers(register: Register) -> None:
    """Add verifier factories: ``register(name, factory)`` where ``factory(**params)`` returns a Verifier."""


@hookspec
def register_rewards(register: Register) -> None:
    """Add reward callables or factories with TRL's ``(prompts, completions, **kwargs)`` signature."""


@hookspec
def register_combinators(register: Register) -> None:
    """Add combinators: ``register(name, cls)`` where ``cls`` subclasses ``rk.Combinator`` (a spec's ``combine:``)."""


@hookspec
def register_sandboxes(register: Register) -> None:
    """Add sandbox backends: ``register(name, factory)`` where ``factory(**options)`` returns a Sandbox."""


@hookspec
def register_languages(register: Register) -> None:
    """Add programming languages: ``register(name, language)`` where ``language`` is an ``rk.Language``."""
