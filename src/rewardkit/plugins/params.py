"""Check parameters against what a factory declares, before anything is constructed: the one checker
behind every ``Registry.create`` (verifiers, sandboxes, rewards) and combinators' settings (``check_value``).

``check_params`` binds the names to the factory's signature, then ``check_values`` checks the values.

A factory declares its parameters' types with annotations on its signature. A factory that takes
``**kwargs`` (like the code verifier) may name a frozen dataclass in ``params_schema``: its fields' types are
checked too, and building it with the given values runs its own range checks (``__post_init__``), so a
value out of range fails when the spec is built, not at the first training step.
"""

from __future__ import annotations

import collections.abc as cabc
import dataclasses
import inspect
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from rewardkit._errors import ConfigError

_EMPTY = inspect.Parameter.empty
# A function registered as a reward with this attribute set is a factory: called with params, it returns
# the reward (see ``rewardkit.rewards.spec.reward_factory``).
FACTORY_MARK = "__rewardkit_factory__"
# A factory with this attribute set names what it makes (``verifier_accuracy`` after its verifier), so the
# registry keeps that name instead of giving it the registered one.
NAMES_ITSELF_MARK = "__rewardkit_names_itself__"


class ParamValueError(ConfigError):
    """A parameter value of the wrong type or out of range; ``param`` names it, ``detail`` says why."""

    def __init__(self, param: str, detail: str) -> None:
        super().__init__(f"{param}: {detail}")
        self.param = param
        self.detail = detail


def accepted(factory: Callable[..., Any], exclude: tuple[str, ...] = ()) -> str:
    """The keyword parameters ``factory`` takes, for an error message."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return "(unknown)"
    names = [
        n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n not in exclude
    ]
    if not exclude and any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        names.append("(verifier parameters)" if getattr(factory, FACTORY_MARK, False) else "**kwargs")
    return ", ".join(names) or "(none)"


def check_params(
    kind: str,
    name: str,
    factory: Callable[..., Any],
    params: Mapping[str, Any],
    exclude: tuple[str, ...] = (),
) -> None:
    """Raise ConfigError when ``params`` do not bind to ``factory``, ParamValueError when a value has the
    wrong type or range. ``exclude``: names the caller passes itself (TRL's ``prompts``, ``completions``);
    with it, only named parameters bind (a TRL reward's ``**kwargs`` receives dataset columns)."""
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        return
    bad = [k for k in params if k in exclude]
    named = {n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    try:
        if bad:
            raise TypeError(f"{', '.join(bad)} cannot be bound (TRL passes them)")
        if exclude:
            unnamed = [k for k in params if k not in named]
            if unnamed:
                raise TypeError(f"unexpected parameter(s) {', '.join(unnamed)}")
            sig.bind_partial(**params)
        else:
            sig.bind(**params)
    except TypeError as exc:
        raise ConfigError(
            f"bad parameters for {kind} {name!r}: {exc}; it accepts: {accepted(factory, exclude)}"
        ) from None
    check_values(kind, name, factory, params)


def declared_types(factory: Callable[..., Any]) -> dict[str, Any]:
    """Parameter name → annotation (``_EMPTY`` where none), from the signature and any ``params_schema``."""
    target = factory.__init__ if inspect.isclass(factory) else factory
    out: dict[str, Any] = {}
    try:
        sig = inspect.signature(factory)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        for name, param in sig.parameters.items():
            if param.kind in (param.KEYWORD_ONLY, param.POSITIONAL_OR_KEYWORD):
                out[name] = _resolve(param.annotation, target)
    schema = getattr(factory, "params_schema", None)
    if schema is not None and dataclasses.is_dataclass(schema):
        for f in dataclasses.fields(schema):
            out.setdefault(f.name, _resolve(f.type, schema))
    return out


def _resolve(annotation: Any, owner: Any) -> Any:
    if not isinstance(annotation, str):
        return annotation
    module = sys.modules.get(getattr(owner, "__module__", ""), None)
    namespace = dict(vars(module)) if module is not None else {}
    try:
        return eval(annotation, namespace, {"typing": typing})  # the factory's own annotation, in its own module
    except Exception:  # noqa: BLE001 - a name only imported under TYPE_CHECKING: accept any value
        return _EMPTY


def check_values(kind: str, name: str, factory: Callable[..., Any], params: Mapping[str, Any]) -> None:
    """Raise :class:`ParamValueError` for the first value that does not fit its declared type or range."""
    hints = declared_types(factory)
    for key, value in params.items():
        check_value(key, value, hints.get(key, _EMPTY), f"a parameter of {kind} {name!r}")
    _check_schema(kind, name, getattr(factory, "params_schema", None), params)


def check_value(param: str, value: Any, annotation: Any, about: str) -> None:
    """Raise :class:`ParamValueError` when ``value`` does not fit ``annotation``; ``about`` says what ``param``
    is, in the message (``expected a number (<about>), got str 'x'``)."""
    problem = mismatch(value, annotation)
    if problem is not None:
        raise ParamValueError(param, f"expected {describe(annotation)} ({about}), got {_show(value)}{problem}")


def _check_schema(kind: str, name: str, schema: Any, params: Mapping[str, Any]) -> None:
    if schema is None or not dataclasses.is_dataclass(schema) or not isinstance(schema, type):
        return
    fields = {f.name for f in dataclasses.fields(schema)}
    given = {k: v for k, v in params.items() if k in fields}
    try:
        schema(**given)
    except Exception as exc:  # noqa: BLE001 - a schema's own check, whatever it raises, rejects the values
        text = str(exc)
        param = next((k for k in given if k in text), None)
        detail = f"{text} (a parameter of {kind} {name!r})"
        if param is None:
            raise ConfigError(f"bad parameters for {kind} {name!r}: {text}") from None
        raise ParamValueError(param, detail) from None


def _is_union(origin: Any) -> bool:
    return origin is typing.Union or origin is getattr(types, "UnionType", typing.Union)


def _show(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def mismatch(value: Any, annotation: Any) -> str | None:
    """None when ``value`` fits ``annotation``; else a (possibly empty) string saying what is wrong beyond the type."""
    if annotation is _EMPTY or annotation is Any or annotation is object:
        return None
    if annotation is None or annotation is type(None):
        return None if value is None else ""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if _is_union(origin):
        results = [mismatch(value, a) for a in args]
        if any(r is None for r in results):
            return None
        return next((r for r in results if r), "")
    if origin is typing.Literal:
        return None if value in args else ""
    if annotation is bool:
        return None if isinstance(value, bool) else ""
    if annotation is int:
        return None if isinstance(value, int) and not isinstance(value, bool) else ""
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return ""
        return None if math.isfinite(value) else " (not a finite number)"
    if annotation is str:
        return None if isinstance(value, str) else ""
    base = origin or annotation
    if base in (list, tuple, set, frozenset, cabc.Sequence, cabc.Iterable, cabc.Collection):
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple, set, frozenset)):
            return ""
        fixed_tuple = base is tuple and len(args) > 1 and args[1] is not Ellipsis
        item = args[0] if args and not fixed_tuple else _EMPTY
        for element in value:
            problem = mismatch(element, item)
            if problem is not None:
                return f" (item {element!r} is not {describe(item)})"
        return None
    if base in (dict, cabc.Mapping, cabc.MutableMapping):
        if not isinstance(value, Mapping):
            return ""
        if len(args) == 2:
            for item in value.values():
                problem = mismatch(item, args[1])
                if problem is not None:
                    return f" (value {item!r} is not {describe(args[1])})"
        return None
    if base is cabc.Callable:
        return None if callable(value) else ""
    if isinstance(base, type):
        try:
            return None if isinstance(value, base) else ""
        except TypeError:
            return None
    return None


def describe(annotation: Any) -> str:
    """A type annotation in words: ``float | None`` → ``a number or null``."""
    if annotation is None or annotation is type(None):
        return "null"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if _is_union(origin):
        return " or ".join(dict.fromkeys(describe(a) for a in args))
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    simple = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    if annotation in simple:
        return simple[annotation]
    base = origin or annotation
    if base in (list, tuple, set, frozenset, cabc.Sequence, cabc.Iterable, cabc.Collection):
        return f"a list of {_plural(args[0])}" if args else "a list"
    if base in (dict, cabc.Mapping, cabc.MutableMapping):
        return "a mapping"
    if base is cabc.Callable:
        return "a callable"
    return getattr(annotation, "__name__", str(annotation))


def _plural(annotation: Any) -> str:
    text = describe(annotation)
    return {"a string": "strings", "an integer": "integers", "a number": "numbers"}.get(text, text)
