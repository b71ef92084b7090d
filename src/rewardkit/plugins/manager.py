"""Build the plugin manager (specs, built-ins, entry points, block/allow lists) and the registries.

A third-party plugin that fails (on import, in a hook, with a clashing name) is left out with a
``PluginWarning`` unless the run is strict (``REWARDKIT_STRICT_PLUGINS=1`` or ``CI=true``); a built-in or a
plugin registered at run time that fails is always an error.
"""

from __future__ import annotations

import importlib
import os
import threading
import warnings
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

import pluggy

from rewardkit._errors import PluginError, PluginWarning
from rewardkit.plugins import hookspecs
from rewardkit.plugins.broken import BrokenPlugin, PluginInfo, strict_error, strict_from_env
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


def _names_from_env(var: str) -> set[str] | None:
    raw = os.environ.get(var)
    if raw is None or not raw.strip():
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


@dataclass
class LoadedPlugins:
    """A plugin manager, where each plugin came from, and the entry-point plugins that failed to load."""

    pm: pluggy.PluginManager
    infos: dict[str, PluginInfo]
    broken: list[BrokenPlugin]


def build_plugin_manager(
    *,
    load_entry_points: bool = True,
    blocked: Iterable[str] | None = None,
    allowed: Iterable[str] | None = None,
    builtins: Sequence[str] = BUILTIN_PLUGINS,
) -> LoadedPlugins:
    """A plugin manager with the hookspecs, the built-ins and the installed entry-point plugins.

    ``blocked`` names plugins never to load (built-ins included); ``allowed``, when given, is the only
    set of outside plugins to load. Both default to the REWARDKIT_BLOCK_PLUGINS / REWARDKIT_ALLOW_PLUGINS
    environment variables (comma-separated plugin names). An entry point that fails is left out and
    returned in ``broken``; a built-in that fails raises ``PluginError``.
    """
    blocked_set = set(blocked) if blocked is not None else (_names_from_env(BLOCK_ENV) or set())
    allowed_set = set(allowed) if allowed is not None else _names_from_env(ALLOW_ENV)
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    loaded = LoadedPlugins(pm, {}, [])
    for module_name in builtins:
        if module_name in blocked_set:
            continue
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            raise PluginError(f"built-in plugin {module_name!r} failed to import: {exc!r}") from exc
        _register(pm, module, module_name)
        loaded.infos[module_name] = PluginInfo(module_name, "builtin", PROJECT_NAME, _version_of(PROJECT_NAME))
    if load_entry_points:
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in blocked_set or (allowed_set is not None and ep.name not in allowed_set):
                continue
            _load_entry_point(loaded, ep)
    _check_pending(pm, forgiving=[n for n, i in loaded.infos.items() if i.source == "entry point"], loaded=loaded)
    return loaded


def _load_entry_point(loaded: LoadedPlugins, ep: Any) -> None:
    dist = getattr(ep, "dist", None)
    info = PluginInfo(
        ep.name,
        "entry point",
        dist.metadata["Name"] if dist is not None else None,
        dist.version if dist is not None else None,
        ep.value,
    )
    if ep.name in loaded.infos:
        other = loaded.infos[ep.name]
        error = PluginError(
            f"two plugins are named {ep.name!r}: one from distribution {other.distribution!r} "
            f"({other.entry_point or other.source}) "
            f"and one from {info.distribution!r} ({ep.value}); uninstall one of them"
        )
        loaded.broken.append(BrokenPlugin(info, error))
        return
    loaded.infos[ep.name] = info
    try:
        plugin = ep.load()
    except Exception as exc:  # noqa: BLE001 - whatever a third-party import raises, the plugin is broken
        error = _caused(PluginError(f"loading {ep.value!r} raised {exc!r}"), exc)
        loaded.broken.append(BrokenPlugin(info, error))
        return
    try:
        _register(loaded.pm, plugin, ep.name)
    except PluginError as exc:
        loaded.broken.append(BrokenPlugin(info, exc))


def _caused(error: PluginError, cause: BaseException) -> PluginError:
    error.__cause__ = cause
    return error


def _register(pm: pluggy.PluginManager, plugin: Any, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except ValueError as exc:
        raise PluginError(f"plugin {name!r} cannot be registered: {exc}") from exc
    except pluggy.PluginValidationError as exc:
        if pm.get_plugin(name) is plugin:  # pluggy leaves a half-validated plugin registered
            pm.unregister(name=name)
        raise PluginError(f"plugin {name!r} is invalid: {exc}") from exc
    if not pm.get_hookcallers(plugin):
        pm.unregister(name=name)
        unmarked = sorted(n for n in dir(hookspecs) if n.startswith("register_") and callable(getattr(plugin, n, None)))
        hint = f"; {', '.join(unmarked)} must be decorated with @rewardkit.hookimpl" if unmarked else ""
        raise PluginError(f"plugin {name!r} implements no rewardkit hook{hint}")


def _check_pending(
    pm: pluggy.PluginManager, forgiving: Collection[str] = (), loaded: LoadedPlugins | None = None
) -> None:
    """``pm.check_pending()``; a plugin named in ``forgiving`` that fails it is dropped into ``loaded.broken``."""
    while True:
        try:
            pm.check_pending()
            return
        except pluggy.PluginValidationError as exc:
            known = ", ".join(sorted(n for n in dir(hookspecs) if n.startswith("register_")))
            name = pm.get_name(exc.plugin) if exc.plugin is not None else None
            where = f"plugin {name!r}: " if name else ""
            error = _caused(PluginError(f"{where}{exc} (rewardkit hooks are: {known})"), exc)
            if name is None or name not in forgiving or loaded is None:
                raise error from exc
            pm.unregister(name=name)
            loaded.broken.append(BrokenPlugin(loaded.infos[name], error))


def _version_of(dist: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return None


@dataclass
class BuiltRegistries:
    """The registries, what each plugin added, and the forgiven plugins whose hooks failed."""

    registries: Registries
    added: dict[str, dict[str, list[str]]]
    failed: dict[str, PluginError]


def build_registries(pm: pluggy.PluginManager, forgiving: Collection[str] = ()) -> BuiltRegistries:
    """Run every ``register_*`` hook once, plugins in the order they were registered (so of two plugins
    registering one name, the later one is at fault). A plugin named in ``forgiving`` whose hook fails is
    taken back out of every registry and returned in ``failed``; any other plugin's failure raises."""
    built = BuiltRegistries(Registries(), {}, {})
    order = {name: i for i, (name, _) in enumerate(pm.list_name_plugin())}
    for hook_name, registry in built.registries.by_hook().items():
        impls = sorted(getattr(pm.hook, hook_name).get_hookimpls(), key=lambda impl: order[impl.plugin_name])
        for impl in impls:
            plugin_name = impl.plugin_name
            if plugin_name in built.failed:
                continue

            def register(name: str, obj: Any, _registry: Registry = registry, _plugin: str = plugin_name) -> None:
                _registry.add(name, obj, _plugin)
                kind, entry = _registry.listed_as(name, obj)
                built.added.setdefault(_plugin, {}).setdefault(kind, []).append(entry)

            kwargs = {"register": register} if "register" in impl.argnames else {}
            try:
                impl.function(**kwargs)
            except Exception as exc:
                error = (
                    exc
                    if isinstance(exc, PluginError)
                    else PluginError(f"plugin {plugin_name!r} failed in {hook_name}: {exc!r}")
                )
                if plugin_name not in forgiving:
                    if error is exc:
                        raise
                    raise error from exc
                built.failed[plugin_name] = error if error is exc else _caused(error, exc)
                built.registries.remove_plugin(plugin_name)
                built.added.pop(plugin_name, None)
    return built


@dataclass
class PluginHost:
    """A plugin manager plus the registries it builds once, rebuilt only when plugins change.

    ``strict`` (default: ``REWARDKIT_STRICT_PLUGINS``, else ``CI=true``) makes an entry-point plugin that
    fails to load a ``PluginError``; otherwise it is left out with a ``PluginWarning``, listed by
    :meth:`describe`, and named when a lookup asks for a name nothing registered.
    """

    load_entry_points: bool = True
    blocked: Iterable[str] | None = None
    allowed: Iterable[str] | None = None
    strict: bool | None = None
    builtins: Sequence[str] = BUILTIN_PLUGINS
    _pm: pluggy.PluginManager | None = field(default=None, repr=False)
    _infos: dict[str, PluginInfo] = field(default_factory=dict, repr=False)
    _broken: list[BrokenPlugin] = field(default_factory=list, repr=False)
    _warned: bool = field(default=False, repr=False)
    _registries: Registries | None = field(default=None, repr=False)
    _added: dict[str, dict[str, list[str]]] = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @classmethod
    def from_env(cls, **settings: Any) -> PluginHost:
        """A host whose settings not given here come from the environment (REWARDKIT_LOAD_ENTRY_POINTS...)."""
        if "load_entry_points" not in settings:
            raw = os.environ.get(LOAD_ENTRY_POINTS_ENV, "1").strip().lower()
            settings["load_entry_points"] = raw not in ("0", "false", "no")
        return cls(**settings)

    @property
    def is_strict(self) -> bool:
        return strict_from_env() if self.strict is None else self.strict

    @property
    def pm(self) -> pluggy.PluginManager:
        with self._lock:
            if self._pm is None:
                loaded = build_plugin_manager(
                    load_entry_points=self.load_entry_points,
                    blocked=self.blocked,
                    allowed=self.allowed,
                    builtins=self.builtins,
                )
                self._pm, self._infos, self._broken = loaded.pm, loaded.infos, loaded.broken
            return self._pm

    @property
    def registries(self) -> Registries:
        with self._lock:
            registries = self._build()
            if self._broken and not self._warned:
                self._warned = True
                for broken in self._broken:
                    warnings.warn(broken.warning(), PluginWarning, stacklevel=3)
            return registries

    @property
    def broken(self) -> list[BrokenPlugin]:
        """The entry-point plugins that failed to load and were left out (a strict run raises instead)."""
        with self._lock:
            self._build()
            return list(self._broken)

    def _build(self) -> Registries:
        if self._registries is None:
            pm = self.pm
            forgiving = [name for name, info in self._infos.items() if info.source == "entry point"]
            built = build_registries(pm, forgiving)
            failed = [BrokenPlugin(self._infos[name], error) for name, error in built.failed.items()]
            if (self._broken or failed) and self.is_strict:
                raise strict_error([*self._broken, *failed])
            for name in built.failed:
                self.pm.unregister(name=name)
            self._broken.extend(failed)
            built.registries.note_broken([b.summary() for b in self._broken])
            self._registries, self._added = built.registries, built.added
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
                self._build()  # now, so a duplicate name fails here
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
        """One row per plugin: name, source, distribution, version, hooks, what each hook registered, and
        for a plugin that failed to load ``broken: true`` and its ``error``."""
        with self._lock:
            self._build()
            rows = []
            for name, plugin in self.pm.list_name_plugin():
                info = self._infos.get(name, PluginInfo(name, "registered at run time"))
                hooks = sorted(c.name for c in self.pm.get_hookcallers(plugin) or [])
                rows.append(_row(info, hooks, self._added.get(name, {}), None))
            rows.extend(_row(b.info, [], {}, str(b.error)) for b in self._broken)
            return rows


def _row(info: PluginInfo, hooks: list[str], registered: dict[str, list[str]], error: str | None) -> dict[str, Any]:
    return {
        "name": info.name,
        "source": info.source,
        "distribution": info.distribution,
        "version": info.version,
        "hooks": hooks,
        "registered": registered,
        "broken": error is not None,
        "error": error,
    }


_default_host: PluginHost | None = None
_default_lock = threading.Lock()


def default_host() -> PluginHost:
    """The process-wide host behind ``rk.get_verifier`` and friends, built on first use."""
    global _default_host
    with _default_lock:
        if _default_host is None:
            _default_host = PluginHost.from_env()
        return _default_host
