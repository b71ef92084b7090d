"""The compiled schema checks: the small checker says what jsonschema says on the schemas it takes, the others
go to jsonschema, and each schema and each row's tools are compiled once."""

from __future__ import annotations

import json

import pytest

from rewardkit.verifiers.tool_calls.reference import BadReference
from rewardkit.verifiers.tool_calls.schemas import _simple, checker, row_tools

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City."},
        "days": {"type": "integer", "default": 1},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "where": {
            "type": "object",
            "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
            "required": ["lat", "lon"],
            "additionalProperties": False,
        },
        "flag": {"type": "boolean"},
        "level": {"enum": [1, True, "x", [1, 2], {"a": 1}]},
    },
    "required": ["city"],
    "additionalProperties": {"type": ["string", "number"]},
}
INSTANCES = [
    {"city": "Paris"},
    {"city": "Paris", "days": 2.0, "unit": "celsius", "tags": ["a", None], "flag": False},
    {"city": 5, "days": 2.5, "unit": "kelvin", "tags": ["a", 3], "flag": 0},
    {"days": True, "where": {"lat": 1, "lon": "2", "alt": 3, "x": 4}},
    {"city": "Paris", "extra": [1], "other": "fine", "n": 3},
    {"city": "Paris", "level": 1.0},
    {"city": "Paris", "level": 1, "unit": None},
    {"city": "Paris", "level": [1, 2.0]},
    {"city": "Paris", "level": {"a": True}},
    {"city": "Paris", "tags": "not a list", "where": []},
]


@pytest.mark.parametrize("instance", INSTANCES)
def test_the_small_checker_reports_what_jsonschema_reports(instance):
    assert _simple(SCHEMA)
    ours = sorted(message for _, _, _, message in checker(json.dumps(SCHEMA, sort_keys=True))(instance))
    theirs = sorted(e.message for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(instance))
    assert ours == theirs


def test_other_schemas_go_to_jsonschema_and_bad_ones_are_invalid_reference():
    ranged = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}}
    assert not _simple(ranged)
    assert [m for *_, m in checker(json.dumps(ranged))({"n": 1})] == ["1 is less than the minimum of 3"]
    for bad in ({"type": "object", "properties": {"n": {"type": "int"}}}, {"type": "object", "required": "n"}):
        assert not _simple(bad)
        with pytest.raises(BadReference, match="not a valid JSON Schema"):
            checker(json.dumps(bad))


def test_each_rows_tools_are_read_once_and_the_caches_are_bounded():
    tools = [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string"}}}}]
    first = row_tools(tools)
    again = row_tools(json.loads(json.dumps(tools)))
    assert first is again
    assert row_tools(json.dumps(tools)) is not first  # a JSON string is its own key, read the same way
    assert row_tools(json.dumps(tools)).keys() == first.keys()
    from rewardkit.verifiers.tool_calls import schemas

    assert schemas._row_tools.cache_info().maxsize == 512
    assert checker.cache_info().maxsize == 2048
