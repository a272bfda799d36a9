"""Votes: who votes with what weight, a system's value as a vote key, and the values that cannot be votes.

Families vote, not systems: each family weighs 1, shared equally by its systems among the voters, so two
copies of one model cannot outvote a third and a family that splits splits its weight.

A vote key is a system's raw value normalized by the field's `x-comparator`
(`gtkit.scoring.normalize.comparator_key`); null is the key `NULL`. A value of the wrong type for the
schema node is a vote failure: its key is `INVALID`, it counts among the voters but backs no value. A
value is of the right type when the validator `gtkit check` uses accepts it at the field's spot in
the schema (`gtkit.schema.errors_at`: `anyOf`/`oneOf` branches, `$ref`s, enums, formats, patterns);
a plain type check stands in only where the field's schema says nothing but its type.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gtkit.schema import Node, errors_at
from gtkit.scoring.normalize import comparator_key

NULL = ("null",)
INVALID = ("invalid",)
HASHABLE = (str, int, float, bool, type(None))   # raw values whose keys can be cached
EPS = 1e-9                                        # tolerance when comparing sums of family weights


@dataclass
class Voters:
    """The voters on one document: the systems that ran on it, their families and vote weights (not the worker
    pool, `gtkit.workers.Pool`)."""

    systems: list[str]
    family: dict[str, str]

    def __post_init__(self) -> None:
        per_family = Counter(self.family[s] for s in self.systems)
        self.weight = {s: 1.0 / per_family[self.family[s]] for s in self.systems}
        self.n_families = len(per_family)


@dataclass
class Failure:
    """A vote failure: a system's value of the wrong type for the schema."""

    system: str
    pointer: str        # the system's own pointer
    message: str
    field: str = ""     # the schema field: the pointer into `expected` with row indexes as `*`
    got: str = ""       # the JSON type of the value given


def json_type(value: Any) -> str:
    """The JSON type name of a Python value read from JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


# --- type checks --------------------------------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}
_PY_TYPES = {"string": (str,), "boolean": (bool,), "number": (int, float), "integer": (int,), "null": (type(None),)}


def _declared_types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    return [t] if isinstance(t, str) else t if isinstance(t, list) else []


# keywords that say nothing about a value but its JSON type: where a field's schema holds only these, a
# type check gives the validator's verdict
_TYPE_ONLY = {"type", "description", "title", "$comment", "examples", "default", "deprecated", "readOnly",
              "writeOnly", "$schema", "$id", "$defs", "definitions", "version"}


def _type_only(schema: Any) -> bool:
    return isinstance(schema, dict) and all(k in _TYPE_ONLY or k.startswith("x-") for k in schema)


def _scalar_problem(value: Any, schema: dict[str, Any]) -> str | None:
    """A type-only schema's verdict on a value, without the validator."""
    if isinstance(value, (dict, list)):
        return f"expected a scalar, got {'an object' if isinstance(value, dict) else 'a list'}"
    types = _declared_types(schema)
    if types and not any(_JSON_TYPES[x](value) for x in types if x in _JSON_TYPES):
        return f"expected {' or '.join(types)}, got {json_type(value)} {json.dumps(value)[:40]}"
    return None


def _not_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, list):
        return any(_not_finite(v) for v in value)
    if isinstance(value, dict):
        return any(_not_finite(v) for v in value.values())
    return False


def type_problem(value: Any, node: Node) -> str | None:
    """Why `value` cannot be a vote for this leaf (None when it can; null always can: it is a vote for a
    blank). The validator of `gtkit check` decides, at the leaf's spot in the schema; a type check stands
    in where the leaf's schema (and its items') only names a type."""
    if value is None:
        return None
    if _not_finite(value):
        return "NaN and infinities are not JSON numbers"
    if node.whole is None and _type_only(node.schema):
        if node.kind == "scalar":
            return _scalar_problem(value, node.schema)
        items = node.schema.get("items", {})
        if node.kind == "scalar_list" and _type_only(items):
            if not isinstance(value, list):
                return f"expected a list, got {json_type(value)}"
            for v in value:
                problem = None if v is None else _scalar_problem(v, items)
                if problem:
                    return "list item: " + problem
            return None
    errors = errors_at(node, value)
    return f"{errors[0][0] or 'value'}: {errors[0][1]}" if errors else None


def surely_valid_types(node: Node) -> frozenset[type]:
    """Python types that surely pass `type_problem` for this leaf (a shortcut; others take the full check)."""
    if node.kind != "scalar" or node.whole is not None or not _type_only(node.schema):
        return frozenset({type(None)})
    out = {type(None)}
    for name in _declared_types(node.schema):
        out.update(_PY_TYPES.get(name, ()))
    return frozenset(out)


# --- vote keys ----------------------------------------------------------------------------------


class VoteKeys:
    """Vote keys of raw values, cached by (type, value, comparator): most values recur in a document."""

    def __init__(self) -> None:
        self._keys: dict[tuple, tuple] = {}
        self._valid_types: dict[int, frozenset[type]] = {}
        self._problems: dict[tuple, str | None] = {}

    def key(self, value: Any, comparator: str) -> tuple:
        """The vote key of a value already known to be a valid vote."""
        if type(value) not in HASHABLE:
            return comparator_key(value, comparator)
        ck = (type(value), value, comparator)
        k = self._keys.get(ck)
        if k is None:
            k = self._keys[ck] = comparator_key(value, comparator)
        return k

    def row(self, row: Any, props: list[tuple[str, Node]]) -> tuple:
        """The vote keys of a record's leaf properties (null keys for a row that is not an object)."""
        if not isinstance(row, dict):
            return tuple(NULL for _ in props)
        cache = self._keys
        out = []
        for name, sub in props:
            v = row.get(name)
            if type(v) in HASHABLE:  # the common case, inlined: this runs for every cell of every row
                ck = (type(v), v, sub.comparator)
                k = cache.get(ck)
                if k is None:
                    k = cache[ck] = comparator_key(v, sub.comparator)
                out.append(k)
                continue
            try:
                out.append(comparator_key(v, sub.comparator))
            except TypeError:
                out.append(INVALID)
        return tuple(out)

    def problem(self, value: Any, node: Node) -> str | None:
        """`type_problem`, cached for hashable values (an enum's values recur in every row)."""
        if type(value) not in HASHABLE:
            return type_problem(value, node)
        ck = (id(node), type(value), value)
        if ck not in self._problems:
            self._problems[ck] = type_problem(value, node)
        return self._problems[ck]

    def leaf(self, node: Node, votes: dict[str, tuple[Any, str | None]], pointer: str, field: str,
             failures: list[Failure]) -> dict[str, tuple]:
        """Each system's vote key for one leaf; a value of the wrong type is `INVALID` and a `Failure`."""
        valid = self._valid_types.get(id(node))
        if valid is None:
            valid = self._valid_types[id(node)] = surely_valid_types(node)
        comparator = node.comparator
        cache = self._keys
        keys: dict[str, tuple] = {}
        for s, (v, own) in votes.items():
            t = type(v)
            if t in valid and (t is not float or math.isfinite(v)):  # the common case, inlined (all hashable)
                ck = (t, v, comparator)
                k = cache.get(ck)
                if k is None:
                    k = cache[ck] = comparator_key(v, comparator)
                keys[s] = k
                continue
            problem = self.problem(v, node)
            if problem:
                failures.append(Failure(s, own or pointer, problem, field, json_type(v)))
                keys[s] = INVALID
            else:
                keys[s] = self.key(v, comparator)
        return keys


def key_json(key: tuple) -> Any:
    """A vote key as plain JSON (for the queue)."""
    tag = key[0]
    if tag == "null":
        return None
    if tag == "invalid":
        return {"invalid": True}
    if tag == "l":
        return [key_json(k) for k in key[1]]
    if tag in ("s", "n", "b"):
        return key[1]
    return repr(key)
