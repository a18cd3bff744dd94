"""The quick argument check never lets through what jsonschema refuses."""

from __future__ import annotations

import itertools

import jsonschema
import pytest

from neuralgentics.broker.argcheck import quick_check

VALUES = ["x", "", 0, 1, -3, 1.0, 2.5, True, False, None, [], [1], {}, {"a": 1}]
PROPERTY_SCHEMAS = [
    {"type": "string"},
    {"type": "integer", "description": "n"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "array"},
    {"type": "object"},
    {"type": ["string", "null"]},
    {"type": "string", "format": "uri", "default": "x"},
]
SCHEMAS = [
    {"type": "object", "properties": {"a": p, "b": q}, "required": req, **extra}
    for p, q in itertools.product(PROPERTY_SCHEMAS, repeat=2)
    for req in ([], ["a"], ["a", "b"])
    for extra in ({}, {"additionalProperties": False})
] + [
    {"type": "object"},
    {"properties": {"a": {"type": "string"}}},
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"a": {"type": "integer"}},
    },
]
ARGS = (
    [{}]
    + [{"a": v} for v in VALUES]
    + [{"a": v, "b": w} for v, w in itertools.product(VALUES, VALUES)]
    + [{"a": "x", "c": 1}]
)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: str(s)[:60])
def test_a_quick_yes_is_always_jsonschemas_yes(schema: dict) -> None:
    check = quick_check(schema)
    assert check is not None, "a simple schema gets a quick check"
    validator = jsonschema.validators.validator_for(schema)(schema)
    said_yes = 0
    for args in ARGS:
        if check(args):
            said_yes += 1
            assert validator.is_valid(args), (schema, args)
    assert said_yes, "the quick check answers yes for some valid arguments"


def test_plain_valid_arguments_take_the_quick_path() -> None:
    schema = {
        "type": "object",
        "properties": {"message": {"type": "string"}},
        "required": ["message"],
    }
    check = quick_check(schema)
    assert check is not None and check({"message": "ping"})
    assert not check({}) and not check({"message": 3})  # left to jsonschema, which refuses


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"type": "string", "minLength": 2}}},
        {"type": "object", "properties": {"a": {"enum": ["x"]}}},
        {"type": "object", "patternProperties": {"^a": {"type": "string"}}},
        {
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"type": "string"}},
        },
        {"type": "object", "additionalProperties": {"type": "string"}},
        {
            "$schema": "http://json-schema.org/draft-03/schema#",
            "properties": {"a": {"type": "string"}},
        },
        {"type": "object", "properties": {"a": {}}},
        {"anyOf": [{"type": "object"}]},
    ],
)
def test_anything_else_is_left_to_jsonschema(schema: dict) -> None:
    assert quick_check(schema) is None
