"""Built-in shapers and combinators, registered like any plugin's."""

from __future__ import annotations

from rewardkit.plugins import hookimpl
from rewardkit.plugins.hookspecs import Register


@hookimpl
def register_shapers(register: Register) -> None:
    pass
