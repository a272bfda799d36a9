"""The fast paths of `gtkit.schema` give the answers of the slow ones.

`fast_validation_errors` (a compiled validator, jsonschema only when it finds a problem) returns exactly what
`validation_errors` (jsonschema) returns, on valid and mutated instances of several schemas; `leaf_values`
is `iter_leaves` as a dict.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gtkit.schema import (
    _compiled_validator,
    compile_schema,
    fast_validation_errors,
    iter_leaves,
    leaf_values,
    validation_errors,
)

RECORD = {"type": "object", "additionalProperties": False, "required": ["name"],
          "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 8},
                         "amount": {"type": ["number", "null"], "minimum": 0, "exclusiveMaximum": 1000},
                         "kind": {"enum": ["a", "b", None]},
                         "count": {"type": "integer"},
                         "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "maxItems": 3},
                         "flag": {"anyOf": [{"type": "boolean"}, {"type": "null"}]}}}
SCHEMAS = {
    "2020-12": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                "$defs": {"record": RECORD},
                "properties": {"case": {"type": "string"}, "total": {"type": "number"},
                               "rows": {"type": "array", "items": {"$ref": "#/$defs/record"}, "minItems": 1}},
                "required": ["rows"]},
    "no dialect": {"type": "object", "properties": {"rows": {"type": "array", "items": RECORD},
                                                    "when": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}},
    "draft-07": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                 "definitions": {"record": RECORD},
                 "properties": {"rows": {"type": "array", "items": {"$ref": "#/definitions/record"}}}},
    "format and pattern": {"type": "object", "properties": {
        "day": {"type": "string", "format": "date"},
        "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "rows": {"type": "array", "items": RECORD}}},
}
VALID = {"case": "C-1", "total": 12.5, "day": "2024-02-29", "code": "AB", "when": 3,
         "rows": [{"name": "ann", "amount": 3, "kind": "a", "count": 2, "tags": ["x"], "flag": None},
                  {"name": "bob", "amount": None, "kind": None, "count": 1.0, "tags": [], "flag": True}]}
EDGE = [None, True, False, 0, 1, -1, 1.0, 1.5, 10**20, 2**70, 999.99, 1000, "", "A", "AB", "AB\n", "ab",
        "2024-02-30", "2024-02-29", "x" * 9, [], ["x", "x"], ["x", "y", "z", "w"], {}, {"name": "z"}]
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False)
                    | st.text(max_size=4), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3), max_leaves=5)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _paths(value, prefix=()):  # type: ignore[no-untyped-def]
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw):  # type: ignore[no-untyped-def]
    """VALID with up to three places replaced by an edge case or any JSON value, or removed."""
    value = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(0, 3))):
        paths = [p for p in _paths(value) if p]
        if not paths:
            break
        where = draw(st.sampled_from(paths))
        parent = value
        for key in where[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = copy.deepcopy(draw(st.sampled_from(EDGE) | JSON))
    return value


def test_the_compiled_validator_is_used_where_it_answers_alike():
    assert _compiled_validator(SCHEMAS["2020-12"]) is not None
    assert _compiled_validator(SCHEMAS["draft-07"]) is not None
    assert _compiled_validator(SCHEMAS["format and pattern"]) is None  # jsonschema decides
    assert _compiled_validator({"$schema": "http://json-schema.org/draft-04/schema#"}) is None


@FUZZ
@given(instance=mutated(), name=st.sampled_from(sorted(SCHEMAS)))
def test_fast_validation_answers_as_jsonschema(instance, name):  # type: ignore[no-untyped-def]
    schema = SCHEMAS[name]
    assert fast_validation_errors(schema, instance) == validation_errors(schema, instance)


@FUZZ
@given(instance=mutated(), name=st.sampled_from(sorted(SCHEMAS)))
def test_leaf_values_are_the_leaves(instance, name):  # type: ignore[no-untyped-def]
    node = compile_schema(SCHEMAS[name])
    assert leaf_values(node, instance) == {p: v for p, _, v in iter_leaves(node, instance)}
    assert list(leaf_values(node, instance)) == [p for p, _, _ in iter_leaves(node, instance)]
