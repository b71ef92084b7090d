"""Third-party plugins that failed to load: whether that is fatal, and what the user is told."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rewardkit._errors import PluginError
from rewardkit.plugins.naming import BLOCK_ENV, STRICT_ENV

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


def strict_from_env(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a broken third-party plugin is an error: ``REWARDKIT_STRICT_PLUGINS`` when set, else ``CI``."""
    env = os.environ if environ is None else environ
    raw = env.get(STRICT_ENV)
    if raw is not None and raw.strip():
        return raw.strip().lower() not in _FALSE
    return env.get("CI", "").strip().lower() in _TRUE


@dataclass(frozen=True)
class PluginInfo:
    """Where a plugin came from."""

    name: str
    source: str
    distribution: str | None = None
    version: str | None = None
    entry_point: str | None = None

    def label(self) -> str:
        """``plugin 'x' (entry point 'x = mod', distribution 'dist' 1.0)``, as far as it is known."""
        where = []
        if self.entry_point is not None:
            where.append(f"entry point '{self.name} = {self.entry_point}'")
        if self.distribution is not None:
            where.append(f"distribution {self.distribution!r}" + (f" {self.version}" if self.version else ""))
        return f"plugin {self.name!r}" + (f" ({', '.join(where)})" if where else "")


@dataclass(frozen=True)
class BrokenPlugin:
    """A third-party plugin that failed to load, and why."""

    info: PluginInfo
    error: PluginError

    def summary(self) -> str:
        """One line: which plugin failed and why."""
        return f"{self.info.label()} failed to load: {self.error}"

    def warning(self) -> str:
        return (
            f"{self.summary()}. It was left out and everything else works; set {STRICT_ENV}=1 (or CI=true) "
            f"to make this an error, or {BLOCK_ENV}={self.info.name} to stop loading it"
        )


def strict_error(broken: Sequence[BrokenPlugin]) -> PluginError:
    """The error a strict run raises for its broken plugins, caused by the first one's error."""
    error = PluginError(
        f"{'; '.join(b.summary() for b in broken)} ({STRICT_ENV}=1 or CI=true make a broken plugin an error: "
        f"fix or uninstall it, block it with {BLOCK_ENV}=<name>, or set {STRICT_ENV}=0 to go on without it)"
    )
    error.__cause__ = broken[0].error.__cause__ or broken[0].error
    return error
