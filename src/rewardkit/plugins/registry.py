"""Name → object registries, filled once from the plugin hooks."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError, PluginError


def plural(kind: str) -> str:
    """``sandbox`` -> ``sandboxes``, ``verifier`` -> ``verifiers``."""
    return kind + ("es" if kind.endswith(("x", "s", "sh", "ch")) else "s")


@dataclass
class Registry:
    """Objects of one kind (verifier, reward, shaper, sandbox) by name, each with the plugin that added it."""

    kind: str
    _entries: dict[str, tuple[Any, str]] = field(default_factory=dict)

    def add(self, name: str, obj: Any, plugin: str) -> None:
        if not isinstance(name, str) or not name:
            raise PluginError(f"plugin {plugin!r} registered a {self.kind} with an invalid name {name!r}")
        if name in self._entries:
            other = self._entries[name][1]
            raise PluginError(
                f"duplicate {self.kind} name {name!r}: registered by plugin {other!r} and by plugin {plugin!r}; "
                f"block one of them with REWARDKIT_BLOCK_PLUGINS"
            )
        self._entries[name] = (obj, plugin)

    def get(self, name: str) -> Any:
        try:
            return self._entries[name][0]
        except KeyError:
            raise ConfigError(self.unknown_message(name)) from None
        except TypeError:
            raise ConfigError(f"a {self.kind} name must be a string, got {type(name).__name__}") from None

    def unknown_message(self, name: object) -> str:
        known = sorted(self._entries)
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        return f"unknown {self.kind} {name!r}; registered {plural(self.kind)}: {', '.join(known) or '(none)'}.{hint}"

    def owner(self, name: str) -> str:
        return self._entries[name][1]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Registries:
    """Every registry rewardkit keeps, one per ``register_*`` hook."""

    verifiers: Registry = field(default_factory=lambda: Registry("verifier"))
    rewards: Registry = field(default_factory=lambda: Registry("reward"))
    shapers: Registry = field(default_factory=lambda: Registry("shaper"))
    sandboxes: Registry = field(default_factory=lambda: Registry("sandbox"))

    def by_hook(self) -> dict[str, Registry]:
        return {
            "register_verifiers": self.verifiers,
            "register_rewards": self.rewards,
            "register_shapers": self.shapers,
            "register_sandboxes": self.sandboxes,
        }
