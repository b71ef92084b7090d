"""Build the plugin manager (specs, built-ins, entry points, block/allow lists) and the registries."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from rewardkit._errors import PluginError
from rewardkit.plugins import hookspecs
from rewardkit.plugins.naming import (
    ALLOW_ENV,
    BLOCK_ENV,
    ENTRY_POINT_GROUP,
    LOAD_ENTRY_POINTS_ENV,
    PROJECT_NAME,
)
from rewardkit.plugins.registry import Registries, Registry

# Each layer registers its own built-ins; loaded by name, so this layer imports none of them.
BUILTIN_PLUGINS = (
    "rewardkit.verifiers.builtin",
    "rewardkit.rewards.builtin",
    "rewardkit.sandbox.builtin",
    "rewardkit.train.builtin",
)
# The built-ins' names before they moved into their layers, still accepted in REWARDKIT_BLOCK_PLUGINS.
OLD_BUILTIN_NAMES = {
    "rewardkit.plugins.builtin_verifiers": "rewardkit.verifiers.builtin",
    "rewardkit.plugins.builtin_rewards": "rewardkit.rewards.builtin",
    "rewardkit.plugins.builtin_shapers": "rewardkit.rewards.builtin",
    "rewardkit.plugins.builtin_sandboxes": "rewardkit.sandbox.builtin",
    "rewardkit.plugins.builtin_training": "rewardkit.train.builtin",
}


@dataclass(frozen=True)
class PluginInfo:
    """Where a loaded plugin came from."""

    name: str
    source: str
    distribution: str | None = None
    version: str | None = None


def _names_from_env(var: str) -> set[str] | None:
    raw = os.environ.get(var)
    if raw is None or not raw.strip():
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def build_plugin_manager(
    *,
    load_entry_points: bool = True,
    blocked: Iterable[str] | None = None,
    allowed: Iterable[str] | None = None,
) -> tuple[pluggy.PluginManager, dict[str, PluginInfo]]:
    """A plugin manager with the hookspecs, the built-ins and the installed entry-point plugins.

    ``blocked`` names plugins never to load (built-ins included); ``allowed``, when given, is the only
    set of outside plugins to load. Both default to the REWARDKIT_BLOCK_PLUGINS / REWARDKIT_ALLOW_PLUGINS
    environment variables (comma-separated plugin names).
    """
    blocked_set = set(blocked) if blocked is not None else (_names_from_env(BLOCK_ENV) or set())
    blocked_set |= {OLD_BUILTIN_NAMES[name] for name in blocked_set if name in OLD_BUILTIN_NAMES}
    allowed_set = set(allowed) if allowed is not None else _names_from_env(ALLOW_ENV)
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    infos: dict[str, PluginInfo] = {}
    for module_name in BUILTIN_PLUGINS:
        if module_name in blocked_set:
            continue
        pm.register(importlib.import_module(module_name), name=module_name)
        infos[module_name] = PluginInfo(module_name, "builtin", PROJECT_NAME, _version_of(PROJECT_NAME))
    if load_entry_points:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in blocked_set or (allowed_set is not None and ep.name not in allowed_set):
                continue
            dist = getattr(ep, "dist", None)
            dist_name = dist.metadata["Name"] if dist is not None else None
            if ep.name in infos:
                raise PluginError(
                    f"two plugins are named {ep.name!r}: one from distribution {infos[ep.name].distribution!r} "
                    f"and one from {dist_name!r} ({ep.value}); uninstall one of them"
                )
            try:
                plugin = ep.load()
            except Exception as exc:
                raise PluginError(
                    f"plugin {ep.name!r} (entry point {ep.value!r} in distribution {dist_name!r}) "
                    f"failed to load: {exc!r}"
                ) from exc
            _register(pm, plugin, ep.name)
            infos[ep.name] = PluginInfo(ep.name, "entry point", dist_name, dist.version if dist else None)
    _check_pending(pm)
    return pm, infos


def _register(pm: pluggy.PluginManager, plugin: Any, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except ValueError as exc:
        raise PluginError(f"plugin {name!r} cannot be registered: {exc}") from exc
    except pluggy.PluginValidationError as exc:
        raise PluginError(f"plugin {name!r} is invalid: {exc}") from exc
    if not pm.get_hookcallers(plugin):
        pm.unregister(name=name)
        unmarked = sorted(n for n in dir(hookspecs) if n.startswith("register_") and callable(getattr(plugin, n, None)))
        hint = f"; {', '.join(unmarked)} must be decorated with @rewardkit.hookimpl" if unmarked else ""
        raise PluginError(f"plugin {name!r} implements no rewardkit hook{hint}")


def _check_pending(pm: pluggy.PluginManager) -> None:
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        known = ", ".join(sorted(n for n in dir(hookspecs) if n.startswith("register_")))
        name = pm.get_name(exc.plugin) if exc.plugin is not None else None
        where = f"plugin {name!r}: " if name else ""
        raise PluginError(f"{where}{exc} (rewardkit hooks are: {known})") from exc


def _version_of(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


def build_registries(pm: pluggy.PluginManager) -> tuple[Registries, dict[str, dict[str, list[str]]]]:
    """Run every ``register_*`` hook once; return the registries and, per plugin, what it added."""
    registries = Registries()
    added: dict[str, dict[str, list[str]]] = {}
    for hook_name, registry in registries.by_hook().items():
        caller = getattr(pm.hook, hook_name)
        for impl in reversed(caller.get_hookimpls()):
            plugin_name = impl.plugin_name

            def register(name: str, obj: Any, _registry: Registry = registry, _plugin: str = plugin_name) -> None:
                _registry.add(name, obj, _plugin)
                added.setdefault(_plugin, {}).setdefault(_registry.kind, []).append(name)

            kwargs = {"register": register} if "register" in impl.argnames else {}
            try:
                impl.function(**kwargs)
            except PluginError:
                raise
            except Exception as exc:
                raise PluginError(f"plugin {plugin_name!r} failed in {hook_name}: {exc!r}") from exc
    return registries, added


@dataclass
class PluginHost:
    """A plugin manager plus the registries it builds once, rebuilt only when plugins change."""

    load_entry_points: bool = True
    blocked: Iterable[str] | None = None
    allowed: Iterable[str] | None = None
    _pm: pluggy.PluginManager | None = field(default=None, repr=False)
    _infos: dict[str, PluginInfo] = field(default_factory=dict, repr=False)
    _registries: Registries | None = field(default=None, repr=False)
    _added: dict[str, dict[str, list[str]]] = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @property
    def pm(self) -> pluggy.PluginManager:
        with self._lock:
            if self._pm is None:
                self._pm, self._infos = build_plugin_manager(
                    load_entry_points=self.load_entry_points, blocked=self.blocked, allowed=self.allowed
                )
            return self._pm

    @property
    def registries(self) -> Registries:
        with self._lock:
            if self._registries is None:
                self._registries, self._added = build_registries(self.pm)
            return self._registries

    def register(self, plugin: Any, name: str | None = None) -> str:
        """Add a plugin object (a module or an instance with ``@hookimpl`` methods) at run time."""
        with self._lock:
            plugin_name = name or getattr(plugin, "__name__", None) or f"plugin-{id(plugin):x}"
            _register(self.pm, plugin, plugin_name)
            try:
                _check_pending(self.pm)
                self._infos[plugin_name] = PluginInfo(plugin_name, "registered at run time")
                self._registries = None
                self.registries  # noqa: B018 - build now so a duplicate name fails here
            except PluginError:
                self.pm.unregister(name=plugin_name)
                self._infos.pop(plugin_name, None)
                self._registries = None
                raise
            return plugin_name

    def unregister(self, plugin: Any = None, name: str | None = None) -> None:
        """Remove a plugin added with :meth:`register` (by object or by name); unknown ones are ignored."""
        with self._lock:
            if name is None and plugin is not None:
                name = self.pm.get_name(plugin)
            if name is None:
                return
            self.pm.unregister(name=name)
            self._infos.pop(name, None)
            self._added.pop(name, None)
            self._registries = None

    def describe(self) -> list[dict[str, Any]]:
        """One row per plugin: name, source, distribution, version, hooks and what each hook registered."""
        self.registries  # noqa: B018
        rows = []
        for name, plugin in self.pm.list_name_plugin():
            info = self._infos.get(name, PluginInfo(name, "registered at run time"))
            hooks = sorted(c.name for c in self.pm.get_hookcallers(plugin) or [])
            rows.append(
                {
                    "name": name,
                    "source": info.source,
                    "distribution": info.distribution,
                    "version": info.version,
                    "hooks": hooks,
                    "registered": self._added.get(name, {}),
                }
            )
        return rows


_default_host: PluginHost | None = None
_default_lock = threading.Lock()


def default_host() -> PluginHost:
    """The process-wide host behind ``rk.get_verifier`` and friends, built on first use."""
    global _default_host
    with _default_lock:
        if _default_host is None:
            load = os.environ.get(LOAD_ENTRY_POINTS_ENV, "1").strip().lower() not in ("0", "false", "no")
            _default_host = PluginHost(load_entry_points=load)
        return _default_host
