"""Name → object registries, filled once from the plugin hooks; ``Registry.create`` is the one way from
a name and parameters to an object (``rk.get_verifier``, ``rk.get_sandbox``, ``rk.get_reward``, specs)."""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from rewardkit._errors import ConfigError, PluginError
from rewardkit.plugins.params import FACTORY_MARK, NAMES_ITSELF_MARK, ParamValueError, check_params

# What TRL passes a reward function itself: a plain reward function cannot have them bound.
TRL_PARAMS = ("prompts", "completions")


def is_factory(obj: Any) -> bool:
    """A registered object is a factory (called with params): a class, or marked ``@reward_factory``."""
    return inspect.isclass(obj) or bool(getattr(obj, FACTORY_MARK, False))


def plural(kind: str) -> str:
    """``sandbox`` -> ``sandboxes``, ``verifier`` -> ``verifiers``."""
    return kind + ("es" if kind.endswith(("x", "s", "sh", "ch")) else "s")


@dataclass(frozen=True)
class Alias:
    """Another name for a registered object, made with ``params`` under the caller's own:
    ``register("accuracy", Alias("math_accuracy", {"reference_key": ["solution", "answer"]}, "open-r1"))``.

    An alias never shadows a registered name: where a plugin registers the same name, that object wins.
    """

    target: str
    params: Mapping[str, Any] = field(default_factory=dict)
    origin: str = ""  # where users know the name from, e.g. "open-r1"


@dataclass
class Registry:
    """Objects of one kind (verifier, reward, combinator, sandbox, language) by name, each with the plugin that
    added it."""

    kind: str
    # The rewards registry: a registered plain function (not a factory) is itself the reward (params are
    # bound with functools.partial), and a "package.module:attribute" name imports one.
    functions: bool = False
    _entries: dict[str, tuple[Any, str]] = field(default_factory=dict)
    _aliases: dict[str, tuple[Alias, str]] = field(default_factory=dict)
    # One line per plugin that failed to load: any of them may be the one that provides an unknown name.
    broken_plugins: list[str] = field(default_factory=list)

    def add(self, name: str, obj: Any, plugin: str) -> None:
        if not isinstance(name, str) or not name:
            raise PluginError(f"plugin {plugin!r} registered a {self.kind} with an invalid name {name!r}")
        if isinstance(obj, Alias):
            if not isinstance(obj.target, str) or not obj.target or obj.target == name:
                raise PluginError(f"plugin {plugin!r} registered {self.kind} alias {name!r} for {obj.target!r}")
            if name in self._aliases:
                raise PluginError(
                    f"duplicate {self.kind} alias {name!r}: registered by plugin {self._aliases[name][1]!r} and "
                    f"by plugin {plugin!r}"
                )
            self._aliases[name] = (obj, plugin)
            return
        if name in self._entries:
            other = self._entries[name][1]
            raise PluginError(
                f"duplicate {self.kind} name {name!r}: registered by plugin {other!r} and by plugin {plugin!r}; "
                f"block one of them with REWARDKIT_BLOCK_PLUGINS"
            )
        self._entries[name] = (obj, plugin)

    def remove_plugin(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered (names and aliases)."""
        self._entries = {name: entry for name, entry in self._entries.items() if entry[1] != plugin}
        self._aliases = {name: entry for name, entry in self._aliases.items() if entry[1] != plugin}

    def get(self, name: str) -> Any:
        try:
            return self._entries[name][0]
        except KeyError:
            raise ConfigError(self.unknown_message(name)) from None
        except TypeError:
            raise ConfigError(f"a {self.kind} name must be a string, got {type(name).__name__}") from None

    def resolve(self, name: Any, at: str = "") -> Any:
        """The object registered under ``name`` (for rewards: or the one ``"package.module:attr"`` names)."""
        if not isinstance(name, str):
            raise ConfigError(f"{at}a {self.kind} name must be a string, got {type(name).__name__} {name!r}")
        if name in self._entries:
            return self._entries[name][0]
        if not self.functions:
            raise ConfigError(f"{at}{self.unknown_message(name)}")
        if ":" not in name:
            raise ConfigError(
                f"{at}{self.unknown_message(name)} (or give an importable function as 'package.module:function')"
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

    def create(self, name: Any, params: Mapping[str, Any] | None = None, *, where: str = "") -> Any:
        """The object ``name`` stands for, made with ``params`` after they are checked against its signature
        and declared types. ``where`` (a spec path such as ``spec.terms[1].params``) prefixes every error."""
        at = f"{where}: " if where else ""
        params = dict(params or {})
        alias = self.alias(name) if isinstance(name, str) else None
        if alias is not None:
            return self._made_by_alias(name, alias, params, where)
        if not self.functions:
            factory = self.get(name)
            check_params(self.kind, name, factory, params)
            return factory(**params)
        obj = self.resolve(name, at)
        try:
            return self._made(obj, name, params, at)
        except ParamValueError as exc:
            if not where:
                raise
            field_ = f"{where}.{exc.param}" if where.endswith(".params") else f"{where}.params.{exc.param}"
            raise ConfigError(f"{field_}: {exc.detail}") from None

    def _made_by_alias(self, name: str, alias: Alias, params: dict[str, Any], where: str) -> Any:
        if alias.target not in self._entries:
            at = f"{where}: " if where else ""
            raise ConfigError(
                f"{at}{self.kind} {name!r} is an alias of {alias.target!r}, which is not registered; "
                f"registered {plural(self.kind)}: {', '.join(self.names()) or '(none)'}"
            )
        made = self.create(alias.target, {**alias.params, **params}, where=where)
        target = self._entries[alias.target][0]
        if made is target:  # a plain function with no params: rename a wrapper, not the registered function
            made = functools.update_wrapper(functools.partial(target), target)
        try:
            made.__name__ = name
        except (AttributeError, TypeError):
            pass
        return made

    def _made(self, obj: Any, name: str, params: dict[str, Any], at: str) -> Any:
        if is_factory(obj):
            try:
                check_params(self.kind, name, obj, params)
            except ParamValueError:
                raise
            except ConfigError as exc:
                raise ConfigError(f"{at}{exc}") from None
            try:
                made = obj(**params)
            except ParamValueError:
                raise
            except ConfigError as exc:
                raise ConfigError(f"{at}{exc}") from None
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{at}bad parameters for {self.kind} {name!r}: {exc}") from None
            if getattr(obj, NAMES_ITSELF_MARK, False):
                return made
            try:
                made.__name__ = name
            except (AttributeError, TypeError):
                pass
            return made
        if not callable(obj):
            raise ConfigError(
                f"{at}{self.kind} {name!r} is registered as a {type(obj).__name__}, which is not callable"
            )
        if not params:
            return obj
        try:
            check_params(self.kind, name, obj, params, exclude=TRL_PARAMS)
        except ParamValueError:
            raise
        except ConfigError as exc:
            raise ConfigError(f"{at}{exc}") from None
        # TRL logs rewards under ``reward_func.__name__``; a bare partial has none.
        bound = functools.partial(obj, **params)
        functools.update_wrapper(bound, obj)
        bound.__name__ = name  # type: ignore[attr-defined]
        return bound

    def unknown_message(self, name: object) -> str:
        known = sorted(self._entries)
        aliases = sorted(self.aliases())
        close = difflib.get_close_matches(str(name), known + aliases, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        also = f"; aliases: {', '.join(aliases)}" if aliases else ""
        registered = ", ".join(known) or "(none)"
        message = f"unknown {self.kind} {name!r}; registered {plural(self.kind)}: {registered}{also}.{hint}"
        if self.broken_plugins:
            message += (
                f" A plugin that may provide it failed to load: {'; '.join(self.broken_plugins)} "
                "(`rewardkit plugins` lists it)"
            )
        return message

    def alias(self, name: str) -> Alias | None:
        """What ``name`` is an alias of, or None (also when a registered object of that name shadows it)."""
        found = self._aliases.get(name)
        return None if found is None or name in self._entries else found[0]

    def aliases(self) -> dict[str, Alias]:
        """Every alias in effect (not shadowed by a registered name), by name."""
        return {name: alias for name, (alias, _) in sorted(self._aliases.items()) if name not in self._entries}

    def listed_as(self, name: str, obj: Any) -> tuple[str, str]:
        """How ``rewardkit plugins`` lists what a plugin registered: (kind, entry)."""
        if isinstance(obj, Alias):
            origin = f" ({obj.origin})" if obj.origin else ""
            return f"{self.kind} alias", f"{name} -> {obj.target}{origin}"
        return self.kind, name

    def owner(self, name: str) -> str:
        return self._entries[name][1]

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries or (isinstance(name, str) and self.alias(name) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Registries:
    """Every registry rewardkit keeps, one per ``register_*`` hook."""

    verifiers: Registry = field(default_factory=lambda: Registry("verifier"))
    rewards: Registry = field(default_factory=lambda: Registry("reward", functions=True))
    combinators: Registry = field(default_factory=lambda: Registry("combinator"))
    sandboxes: Registry = field(default_factory=lambda: Registry("sandbox"))
    languages: Registry = field(default_factory=lambda: Registry("language"))

    def remove_plugin(self, plugin: str) -> None:
        """Forget everything ``plugin`` registered, in every registry."""
        for registry in self.all():
            registry.remove_plugin(plugin)

    def note_broken(self, summaries: list[str]) -> None:
        """Name the plugins that failed to load in every registry's "unknown name" errors."""
        for registry in self.all():
            registry.broken_plugins = list(summaries)

    def all(self) -> list[Registry]:
        return [self.verifiers, self.rewards, self.combinators, self.sandboxes, self.languages]

    def by_hook(self) -> dict[str, Registry]:
        return {
            "register_verifiers": self.verifiers,
            "register_rewards": self.rewards,
            "register_combinators": self.combinators,
            "register_sandboxes": self.sandboxes,
            "register_languages": self.languages,
        }
