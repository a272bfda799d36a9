"""How many distinct ways a document's consensus `expected` fails the task schema (`writable` asks first,
and looks for the rows at fault only when it is not zero).

A consensus value can break the schema where a check spans cells (a pattern, a range, a required
key): validating 10,000 rows one by one would report the same problem 10,000 times and take long,
so rows of a records array that validation cannot tell apart are checked once.
"""

from __future__ import annotations

import json
from typing import Any

from gtkit.schema import Node, validation_errors

# keywords that constrain nothing beyond a value's JSON type (so values of equal types validate alike)
_BENIGN = {"type", "description", "title", "$comment", "examples", "default", "items", "properties", "$schema",
           "$id", "$defs", "definitions", "version"}


def schema_problems(schema: dict[str, Any], root: Node, expected: Any) -> int:
    """How many distinct ways `expected` fails the task schema (rows that validate alike are checked once)."""
    return len(validation_errors(schema, _reduce(root, expected)))


def _benign(schema: dict[str, Any]) -> bool:
    return all(k in _BENIGN or k.startswith("x-") for k in schema)


def _signature(node: Node, value: Any) -> Any:
    """What validation can tell of `value`: the JSON types of benign leaves, everything else as is."""
    if node.kind == "object" and node.props and isinstance(value, dict):
        return tuple((k, _signature(node.props[k], v) if k in node.props else json.dumps(v, sort_keys=True))
                     for k, v in value.items())
    if node.kind == "records" and isinstance(value, list) and node.item is not None:
        return ("rows", frozenset(_signature(node.item, r) for r in value))
    if node.kind in ("scalar", "scalar_list") and _benign(node.schema) and not isinstance(value, (dict, list)):
        return type(value).__name__
    return json.dumps(value, sort_keys=True)


def _reduce(node: Node, value: Any) -> Any:
    """`value` with the rows of record arrays deduplicated by what validation can tell apart."""
    if node.kind == "object" and node.props and isinstance(value, dict):
        return {k: (_reduce(node.props[k], v) if k in node.props else v) for k, v in value.items()}
    if node.kind == "records" and isinstance(value, list) and node.item is not None and _benign(node.schema):
        seen, rows = set(), []
        for r in value:
            sig = _signature(node.item, r)
            if sig not in seen:
                seen.add(sig)
                rows.append(_reduce(node.item, r))
        return rows
    return value
