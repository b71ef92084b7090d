"""Schema checks: a call's arguments against its function's JSON Schema, compiled once per schema.

A row's tools are read once per distinct tools value (:func:`row_tools`, a bounded LRU keyed by the value's
JSON) and each parameters schema is compiled once (:func:`checker`, a bounded LRU keyed by its canonical JSON). A schema
made only of ``type``, ``properties``, ``required``, ``items``, ``enum``, ``additionalProperties`` and
annotations (``description``, ``title``, ``default``, ``examples``) is checked by a small checker here, with
JSON Schema's meaning and jsonschema's messages; it is valid JSON Schema by construction, so the metaschema
check is skipped. Any other schema goes to ``jsonschema`` (``rewardkit[tools]``), checked against its
metaschema on first sight.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections.abc import Callable, Mapping
from typing import Any

from rewardkit._errors import VerifierError
from rewardkit.verifiers.tool_calls.reference import BadReference, tool_schemas

Error = tuple[str, Any, Any, str]  # keyword, instance, the keyword's value, message
Check = Callable[[Any], list[Error]]

_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}
_ANNOTATIONS = {"description": str, "title": str, "default": object, "examples": list}
_SIMPLE = {"type", "properties", "required", "items", "enum", "additionalProperties", *_ANNOTATIONS}


def canonical(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=repr)


@functools.lru_cache(maxsize=512)
def _row_tools(key: str) -> dict[str, tuple[Mapping[str, Any], str]]:
    return {name: (schema, canonical(schema)) for name, schema in tool_schemas(json.loads(key)).items()}


def row_tools(tools: Any) -> dict[str, tuple[Mapping[str, Any], str]]:
    """Function name → (its parameters schema, the schema's canonical JSON), read once per distinct tools."""
    if isinstance(tools, str):
        return _row_tools(json.dumps(tools))
    if hasattr(tools, "tolist"):
        tools = tools.tolist()
    return _row_tools(json.dumps(tools, default=repr))  # key order kept: another order is only a cache miss


def _equal(one: Any, two: Any) -> bool:
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, list) and isinstance(two, list):
        return len(one) == len(two) and all(_equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return set(one) == set(two) and all(_equal(one[k], two[k]) for k in one)
    return bool(one == two)


def _simple(schema: Any) -> bool:
    """Whether the schema holds only what the small checker knows, each in a valid shape."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, Mapping) or not set(schema) <= _SIMPLE:
        return False
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind if isinstance(kind, list) else None
    if "type" in schema and (kinds is None or not kinds or any(k not in _TYPES for k in kinds)):
        return False
    if len(set(kinds or ())) != len(kinds or ()):
        return False
    for key, kind_of in _ANNOTATIONS.items():
        if key in schema and not isinstance(schema[key], kind_of):
            return False
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping) or not all(_simple(p) for p in properties.values()):
        return False
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return False
    if len(set(required)) != len(required) or ("enum" in schema and not isinstance(schema["enum"], list)):
        return False
    return all(_simple(schema[k]) for k in ("items", "additionalProperties") if k in schema)


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda value: []
    if schema is False:
        return lambda value: [("false", value, False, f"False schema does not allow {value!r}")]
    kind = schema.get("type")
    kinds = [kind] if isinstance(kind, str) else kind
    properties = {k: _compile(v) for k, v in schema.get("properties", {}).items()}
    required = schema.get("required", [])
    items = _compile(schema["items"]) if "items" in schema else None
    extra = schema.get("additionalProperties")
    extra_check = _compile(extra) if isinstance(extra, Mapping) else None
    enum = schema.get("enum")

    def check(value: Any) -> list[Error]:
        errors: list[Error] = []
        if kinds is not None and not any(_TYPES[k](value) for k in kinds):
            shown = ", ".join(repr(k) for k in kinds)
            errors.append(("type", value, kind, f"{value!r} is not of type {shown}"))
        if enum is not None and not any(_equal(value, member) for member in enum):
            errors.append(("enum", value, enum, f"{value!r} is not one of {enum!r}"))
        if isinstance(value, dict):
            for name, sub in properties.items():
                if name in value:
                    errors.extend(sub(value[name]))
            for name in required:
                if name not in value:
                    errors.append(("required", value, required, f"{name!r} is a required property"))
            extras = [k for k in value if k not in properties]
            if extras and extra is False:
                names = ", ".join(repr(k) for k in sorted(extras, key=str))
                verb = "was" if len(extras) == 1 else "were"
                message = f"Additional properties are not allowed ({names} {verb} unexpected)"
                errors.append(("additionalProperties", value, False, message))
            elif extras and extra_check is not None:
                for name in extras:
                    errors.extend(extra_check(value[name]))
        if isinstance(value, list) and items is not None:
            for item in value:
                errors.extend(items(item))
        return errors

    return check


@functools.lru_cache(maxsize=2048)
def checker(schema_json: str) -> Check:
    """The compiled check of one parameters schema (its canonical JSON); :class:`BadReference` when the
    schema is not valid JSON Schema."""
    schema = json.loads(schema_json)
    if _simple(schema):
        return _compile(schema)
    try:  # imported by name: the optional dependency ships no type stubs
        jsonschema: Any = importlib.import_module("jsonschema")
    except ImportError:
        raise VerifierError(
            "tool_call: checking arguments against the tools' schemas needs jsonschema: "
            "pip install 'rewardkit[tools]' (or set validate: false)"
        ) from None
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise BadReference(f"a tool's parameters are not a valid JSON Schema: {exc.message}") from None
    validator = cls(schema)
    return lambda value: [(e.validator, e.instance, e.validator_value, e.message) for e in validator.iter_errors(value)]
