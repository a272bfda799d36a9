"""Votes: who votes with what weight, a system's value as a vote key, and the values that cannot be votes.

Families vote, not systems: each family weighs 1, shared equally by its systems in the pool, so two
copies of one model cannot outvote a third and a family that splits splits its weight.

A vote key is a system's raw value normalized by the field's `x-comparator`
(`gtkit.normalize.comparator_key`); null is the key `NULL`. A value of the wrong type for the
schema node is a vote failure: its key is `INVALID`, it counts in the pool but backs no value.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gtkit.normalize import comparator_key
from gtkit.schema import Node, validation_errors

NULL = ("null",)
INVALID = ("invalid",)
HASHABLE = (str, int, float, bool, type(None))   # raw values whose keys can be cached
EPS = 1e-9                                        # tolerance when comparing sums of family weights


@dataclass
class Pool:
    """The systems that ran on one document, their families and vote weights."""

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


def _scalar_problem(value: Any, schema: dict[str, Any]) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a JSON number"
    if isinstance(value, (dict, list)):
        return f"expected a scalar, got {'an object' if isinstance(value, dict) else 'a list'}"
    types = _declared_types(schema)
    if types and not any(_JSON_TYPES[x](value) for x in types if x in _JSON_TYPES):
        return f"expected {' or '.join(types)}, got {type(value).__name__} {json.dumps(value)[:40]}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"{json.dumps(value)[:40]} is not one of the enum values"
    return None


def type_problem(value: Any, node: Node) -> str | None:
    """Why `value` cannot be a vote for this leaf (None when it can; null always can). A leaf whose values
    are structures (`node.whole`) is validated as a whole by its schema."""
    if value is None:
        return None
    if node.whole is not None:
        return whole_problem(value, node.whole)
    if node.kind == "scalar_list":
        if not isinstance(value, list):
            return f"expected a list, got {type(value).__name__}"
        items = node.schema.get("items")
        for v in value:
            problem = None if v is None else _scalar_problem(v, items if isinstance(items, dict) else {})
            if problem:
                return "list item: " + problem
        return None
    return _scalar_problem(value, node.schema)


def whole_problem(value: Any, schema: dict[str, Any]) -> str | None:
    errors = validation_errors(schema, value)
    return f"{errors[0][0] or 'value'}: {errors[0][1]}" if errors else None


def surely_valid_types(node: Node) -> frozenset[type]:
    """Python types that surely pass `type_problem` for this leaf (a shortcut; others take the full check)."""
    if node.kind != "scalar" or "enum" in node.schema:
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

    def leaf(self, node: Node, votes: dict[str, tuple[Any, str | None]], pointer: str,
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
            problem = type_problem(v, node)
            if problem:
                failures.append(Failure(s, own or pointer, problem))
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
