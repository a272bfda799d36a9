"""A document's `expected` read and changed by JSON Pointer, and the schema node a pointer reaches: what an
adjudication does to a cell or an extra record."""

from __future__ import annotations

from typing import Any

from gtkit.schema import Node, required, split_pointer


def node_at(root: Node, pointer: str) -> Node | None:
    """The schema node of a pointer into `expected` (row indexes pass into the record node)."""
    node: Node | None = root
    for tok in split_pointer(pointer):
        if node is None:
            return None
        if node.kind == "object":
            node = node.props.get(tok)
        elif node.kind == "records":
            node = node.item
        else:
            return None
    return node


def set_at(doc: Any, pointer: str, value: Any) -> None:
    """Set the value `pointer` names (its parent exists)."""
    tokens = split_pointer(pointer)
    cur = doc
    for t in tokens[:-1]:
        cur = cur[int(t)] if isinstance(cur, list) else cur[t]
    last = tokens[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value


def optional_key(root: Node, pointer: str) -> bool:
    """Whether the key `pointer` ends with may be absent from its object."""
    parent, _, key = pointer.rpartition("/")
    node = node_at(root, parent)
    return node is not None and node.kind == "object" and split_pointer("/" + key)[0] not in required(node)


def delete_at(doc: Any, pointer: str) -> None:
    """Remove the key `pointer` names from its object, if there."""
    parent, _, key = pointer.rpartition("/")
    obj = get_at(doc, parent)
    if isinstance(obj, dict):
        obj.pop(split_pointer("/" + key)[0], None)


def get_at(doc: Any, pointer: str) -> Any:
    """The value `pointer` names (None for a key its object lacks)."""
    cur = doc
    for t in split_pointer(pointer):
        cur = cur[int(t)] if isinstance(cur, list) else cur.get(t)
    return cur
