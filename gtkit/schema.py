"""Walking a task schema: its leaves, their JSON Pointers, and the gtkit `x-` keywords.

A task schema is compiled once into a tree of `Node`s (`$ref`/`$defs` resolved,
nullable unions unwrapped); walking an instance against that tree yields every
leaf with its RFC 6901 pointer. A leaf is a scalar, a null, or a list of scalars;
objects and arrays of objects are not leaves, and an empty array of objects has
no leaves. Object properties come from the schema, so a key missing from the
instance is a null leaf (a missing key equals an explicit null).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import jsonschema  # type: ignore[import-untyped]  # its stubs (types-jsonschema) are not a dependency
from jsonschema.validators import validator_for  # type: ignore[import-untyped]  # types-jsonschema is not a dependency

from gtkit.errors import GtkitError
from gtkit.files.read import json_depth, read_json
from gtkit.typed import escape_token

Kind = Literal["scalar", "scalar_list", "object", "records"]
COMPARATORS = ("string", "case", "date", "boolean", "number", "phone")


def unescape_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(prefix: str, token: str | int) -> str:
    return f"{prefix}/{escape_token(token)}"


def split_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer")
    return [unescape_token(t) for t in pointer[1:].split("/")]


_MISSING = object()


def resolve_pointer(doc: Any, pointer: str, default: Any = _MISSING) -> Any:
    """The value at `pointer`; a missing key or a null parent gives `default` (or KeyError)."""
    cur = doc
    for token in split_pointer(pointer):
        if isinstance(cur, dict) and token in cur:
            cur = cur[token]
        elif isinstance(cur, list) and token.isdigit() and int(token) < len(cur):
            cur = cur[int(token)]
        else:
            if default is _MISSING:
                raise KeyError(pointer)
            return default
    return cur


@dataclass(eq=False)
class Node:
    """One compiled schema node."""

    kind: Kind
    schema: dict[str, Any]
    comparator: str = "string"
    leniencies: tuple[str, ...] = ()
    identity: tuple[str, ...] = ()
    props: dict[str, Node] = field(default_factory=dict)
    item: Node | None = None  # the record node of a `records` array
    whole: dict[str, Any] | None = None  # a leaf whose values are structures (oneOf objects, arrays of arrays):
    # its schema made self-contained, to validate a value as a whole
    source: dict[str, Any] | None = None  # the schema at this spot as written (nullable unions kept), self-contained
    _validator: Any = field(default=None, repr=False)  # compiled from `source` on first use, by `errors`
    _nullable: bool | None = field(default=None, repr=False)  # answered on first use, by `accepts_null`

    @property
    def description(self) -> str | None:
        return self.schema.get("description")

    def errors(self, instance: Any) -> list[tuple[str, str]]:
        """How `instance` fails the schema at this spot (`errors_at`); its validator is compiled once."""
        if self._validator is None and self.source is not None:
            self._validator = compile_validator(self.source)
        return self._validator(instance) if self.source is not None else []

    def accepts_null(self) -> bool:
        """Whether null may stand at this spot (`nullable`); answered once."""
        self._nullable = not self.errors(None) if self._nullable is None else self._nullable
        return self._nullable


def _types(s: dict[str, Any]) -> set[str]:
    t = s.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    return set()


MAX_NESTING = 64  # objects and arrays inside one another: deeper is no extraction task
MAX_SCHEMA_DEPTH = 4 * MAX_NESTING  # JSON levels: room for a $ref, anyOf and items around each of them


class _Compiler:
    """Compiles a schema into `Node`s. `trail` holds the `$ref`s followed on the way to the node being
    compiled: meeting one again means the schema contains itself (a recursive schema has no finite
    set of leaves, so it is refused)."""

    def __init__(self, root: dict[str, Any]):
        self.root = root
        self.trail: list[str] = []

    def deref(self, s: dict[str, Any], seen: tuple[str, ...] = ()) -> dict[str, Any]:
        while isinstance(s, dict) and "$ref" in s:
            ref = s["$ref"]
            if not isinstance(ref, str) or not ref.startswith("#"):
                raise GtkitError(f"only local $ref is supported, got {ref!r}")
            if ref in seen:
                raise GtkitError(f"$ref cycle through {ref!r}")
            seen = (*seen, ref)
            self.trail.append(ref)
            target: Any = self.root
            for token in split_pointer(ref[1:]):
                if not isinstance(target, dict) or token not in target:
                    raise GtkitError(f"$ref {ref!r} points nowhere")
                target = target[token]
            extra = {k: v for k, v in s.items() if k != "$ref"}
            s = {**target, **extra}
        return s

    def unwrap_nullable(self, s: dict[str, Any]) -> dict[str, Any]:
        """`anyOf`/`oneOf` of one real schema and `{"type": "null"}` is that schema, nullable."""
        for key in ("anyOf", "oneOf"):
            options = s.get(key)
            if isinstance(options, list):
                real = [o for o in (self.deref(x) for x in options) if _types(o) != {"null"}]
                if len(real) == 1:
                    rest = {k: v for k, v in s.items() if k != key}
                    return {**self.deref(real[0]), **rest}
        return s

    def compile(self, s: Any, depth: int = 0) -> Node:
        if s is True or s is None or s == {}:
            return Node("scalar", {})
        if not isinstance(s, dict):
            raise GtkitError(f"schema node must be an object, got {type(s).__name__}")
        if depth > MAX_NESTING:
            raise GtkitError(f"the schema nests objects and arrays more than {MAX_NESTING} levels deep")
        mark = len(self.trail)
        try:
            return self._compile(s, depth, mark)
        finally:
            del self.trail[mark:]

    def _compile(self, s: dict[str, Any], depth: int, mark: int) -> Node:
        node = self._compile_unwrapped(s, depth, mark)
        node.source = self.whole(self.deref(s))
        return node

    def _compile_unwrapped(self, s: dict[str, Any], depth: int, mark: int) -> Node:
        s = self.unwrap_nullable(self.deref(s))
        again = next((r for r in self.trail[mark:] if r in self.trail[:mark]), None)
        if again is not None:
            raise GtkitError(f"recursive schema: {again} contains itself (gtkit needs a schema of finite depth)")
        types = _types(s) - {"null"}
        comparator = s.get("x-comparator", "string")
        if comparator not in COMPARATORS:
            raise GtkitError(f"unknown x-comparator {comparator!r} (known: {', '.join(COMPARATORS)})")
        leniencies = s.get("x-leniency", [])
        if isinstance(leniencies, str):
            leniencies = [leniencies]
        if "object" in types or ("properties" in s and not types):
            props = {name: self.compile(sub, depth + 1) for name, sub in (s.get("properties") or {}).items()}
            return Node("object", s, props=props)
        if "array" in types or ("items" in s and not types):
            items = s.get("items", {})
            item_schema = self.unwrap_nullable(self.deref(items)) if isinstance(items, dict) else {}
            if "object" in _types(item_schema) or "properties" in item_schema:
                item = self.compile(item_schema, depth + 1)
                identity = s.get("x-identity", [])
                if isinstance(identity, str):
                    identity = [identity]
                unknown = [k for k in identity if k not in item.props]
                if unknown:
                    raise GtkitError(f"x-identity names unknown sub-fields: {', '.join(unknown)}")
                return Node("records", s, item=item, identity=tuple(identity))
            whole = self.whole(s) if _structured(item_schema) else None
            return Node("scalar_list", s, comparator=comparator, leniencies=tuple(leniencies), whole=whole)
        whole = self.whole(s) if _structured(s) else None
        return Node("scalar", s, comparator=comparator, leniencies=tuple(leniencies), whole=whole)

    def whole(self, s: dict[str, Any]) -> dict[str, Any]:
        """`s` with the root's definitions (and dialect), so a value can be validated against it alone."""
        shared: dict[str, Any] = {k: self.root[k] for k in ("$schema", "$defs", "definitions") if k in self.root}
        return {**shared, **s}


def _structured(s: dict[str, Any]) -> bool:
    """A leaf schema whose values may be objects or arrays: a combinator of several real options, or
    array/object types (a list of lists, an object without declared properties inside a list)."""
    return any(k in s for k in ("oneOf", "anyOf", "allOf")) or bool(_types(s) & {"array", "object"})


def compile_schema(schema: dict[str, Any]) -> Node:
    """Compile a task schema into a `Node` tree (raises GtkitError on unsupported constructs)."""
    return _Compiler(schema).compile(schema)


def iter_leaves(node: Node, value: Any, prefix: str = "") -> Iterator[tuple[str, Node, Any]]:
    """Yield (pointer, node, value) for every leaf of `value` under `node`."""
    if node.kind == "object":
        if node.props:
            obj = value if isinstance(value, dict) else {}
            for name, sub in node.props.items():
                yield from iter_leaves(sub, obj.get(name), join_pointer(prefix, name))
        elif isinstance(value, dict):  # free-form object: walk what is there
            for name, sub_value in value.items():
                yield from iter_leaves(guess_node(sub_value), sub_value, join_pointer(prefix, name))
        else:
            yield prefix, node, value
    elif node.kind == "records":
        if isinstance(value, list):
            assert node.item is not None
            for i, record in enumerate(value):
                yield from iter_leaves(node.item, record, join_pointer(prefix, i))
    else:
        yield prefix, node, value


def leaf_values(node: Node, value: Any) -> dict[str, Any]:
    """{pointer: value} of every leaf `iter_leaves` yields, built faster: an array of records whose sub-fields
    are all leaves (the long part of a long document) is walked in one loop."""
    out: dict[str, Any] = {}
    _collect_leaves(node, value, "", out)
    return out


def _collect_leaves(node: Node, value: Any, prefix: str, out: dict[str, Any]) -> None:
    if node.kind == "object" and node.props:
        obj = value if isinstance(value, dict) else {}
        for name, sub in node.props.items():
            _collect_leaves(sub, obj.get(name), join_pointer(prefix, name), out)
    elif node.kind == "records" and isinstance(value, list) and node.item is not None \
            and node.item.kind == "object" and node.item.props \
            and all(sub.kind in ("scalar", "scalar_list") for sub in node.item.props.values()):
        tokens = [(name, escape_token(name)) for name in node.item.props]
        for i, record in enumerate(value):
            base = f"{prefix}/{i}/"
            get = record.get if isinstance(record, dict) else {}.get
            for name, token in tokens:
                out[base + token] = get(name)
    elif node.kind == "records" and isinstance(value, list) and node.item is not None:
        for i, record in enumerate(value):
            _collect_leaves(node.item, record, join_pointer(prefix, i), out)
    else:
        for pointer, _, v in iter_leaves(node, value, prefix):
            out[pointer] = v


def guess_node(value: Any) -> Node:
    """A node for a value the schema does not describe, by its shape."""
    if isinstance(value, dict):
        return Node("object", {})
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return Node("records", {}, item=Node("object", {}))
    if isinstance(value, list):
        return Node("scalar_list", {})
    return Node("scalar", {})


def undescribed_key(node: Node, pointer: str) -> str | None:
    """The pointer of the first key on the way to `pointer` that the schema does not declare (a key of an
    object whose properties it lists), or None."""
    prefix = ""
    for token in split_pointer(pointer):
        prefix = join_pointer(prefix, token)
        if node.kind == "object" and node.props:
            if token not in node.props:
                return prefix
            node = node.props[token]
        elif node.kind == "records" and node.item is not None:
            node = node.item
        else:
            return None
    return None


def record_arrays(node: Node, prefix: str = "") -> Iterator[tuple[str, Node]]:
    """Every array of records reachable through objects (pointer pattern, node); nested arrays use '*'."""
    if node.kind == "object":
        for name, sub in node.props.items():
            yield from record_arrays(sub, join_pointer(prefix, name))
    elif node.kind == "records":
        yield prefix, node
        assert node.item is not None
        yield from record_arrays(node.item, prefix + "/*")


def check_schema(schema: Any, path: Path | str | None = None) -> dict[str, Any]:
    """Refuse anything that is not a valid JSON Schema (by its own `$schema`, default 2020-12), or not a task
    schema: its top level must be an object schema (after `$ref` and a nullable union), so an answer is walked
    leaf by leaf. Every place a task schema is read (a bundle's schema.json, `consensus --schema`, a plan's
    consensus schema, a synth family, an ExtractBench import) reads it through here."""
    if not isinstance(schema, dict):
        raise GtkitError("a JSON Schema must be an object", path)
    if json_depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
        raise GtkitError(f"the schema nests more than {MAX_SCHEMA_DEPTH} JSON levels deep", path)
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        where = "/" + "/".join(escape_token(p) for p in e.absolute_path) if e.absolute_path else "top level"
        raise GtkitError(f"not a valid JSON Schema at {where}: {e.message}", path) from None
    try:
        root = compile_schema(schema)
    except GtkitError as e:
        raise GtkitError(e.message, path) from None
    if root.kind != "object":
        raise GtkitError(_not_an_object_schema(schema, root), path)
    return schema


TASK_ROOT = ('a task schema\'s top level must be an object schema ("type": "object" with "properties") '
             "that gtkit walks leaf by leaf")


def _not_an_object_schema(schema: dict[str, Any], root: Node) -> str:
    """Why a schema whose top level is no object schema is refused, and, for a known wrapper, how to unwrap it."""
    if "schema_definition" in schema and not {"type", "properties", "items", "$ref"} & set(schema):
        return f"{TASK_ROOT}: the schema is wrapped: use its schema_definition"
    if not {"type", "properties", "items", "$ref", "anyOf", "oneOf", "allOf"} & set(schema):
        return f"{TASK_ROOT}; this one has no type, properties or items at the top level"
    shape = "an array" if root.kind in ("records", "scalar_list") else "a single value"
    return f"{TASK_ROOT}; this one describes {shape}"


def load_schema(path: Path) -> dict[str, Any]:
    return check_schema(read_json(path), path)


Validator = Callable[[Any], list[tuple[str, str]]]


def compile_validator(schema: dict[str, Any], *, compiled: bool = False) -> Validator:
    """The one validator of gtkit (`gtkit check`, consensus votes, adjudication): a function giving
    (JSON Pointer, message) for every way an instance fails `schema`, sorted by pointer. The dialect is
    the schema's `$schema` (default Draft 2020-12), formats checked. With `compiled`, a compiled validator
    (jsonschema-rs) answers first where it may (see `fast_validation_errors`): same answers, same messages."""
    cls = validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)

    def errors(instance: Any) -> list[tuple[str, str]]:
        out = []
        for err in sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
            pointer = "".join("/" + escape_token(p) for p in err.absolute_path)
            out.append((pointer, err.message))
        return out

    fast = _compiled_validator(schema) if compiled else None
    if fast is None:
        return errors

    def fast_errors(instance: Any) -> list[tuple[str, str]]:
        try:
            if fast.is_valid(instance):
                return []
        except Exception:  # a value it cannot take (an integer beyond 64 bits, say): jsonschema decides
            pass
        return errors(instance)

    return fast_errors


def validation_errors(schema: dict[str, Any], instance: Any) -> list[tuple[str, str]]:
    """(JSON Pointer, message) for every way `instance` fails `schema`."""
    return compile_validator(schema)(instance)


def errors_at(node: Node, instance: Any) -> list[tuple[str, str]]:
    """How `instance` fails the task schema at `node`'s spot (its schema as written, with the root's
    `$defs`), by the validator `gtkit check` uses; pointers relative to the spot. A node the schema does
    not describe (a free-form object's member) accepts anything."""
    return node.errors(instance)


def nullable(node: Node) -> bool:
    """Whether the schema lets null stand at `node`'s spot (by the validator, so `anyOf`/`oneOf`, `$ref`,
    `enum` and `const` count)."""
    return node.accepts_null()


def required(node: Node) -> frozenset[str]:
    """The keys an object node requires."""
    req = node.schema.get("required") if node.kind == "object" else None
    return frozenset(k for k in req if isinstance(k, str)) if isinstance(req, list) else frozenset()


COMPILED_DIALECTS = {
    "https://json-schema.org/draft/2020-12/schema": "Draft202012Validator",
    "https://json-schema.org/draft/2019-09/schema": "Draft201909Validator",
    "http://json-schema.org/draft-07/schema": "Draft7Validator",
}
"""The dialects (`$schema`, without a trailing `#`) the compiled validator answers for; a schema without `$schema`
is 2020-12, as for jsonschema. Older drafts differ on what an integer is: jsonschema alone reads them."""

DIFFERING_KEYWORDS = frozenset({"format", "pattern", "patternProperties", "multipleOf"})
"""Keywords whose answers the compiled validator may give differently from jsonschema (its format checkers, a
regular expression dialect, remainders of floats): a schema that uses one anywhere is validated by jsonschema."""


def fast_validation_errors(schema: dict[str, Any], instance: Any) -> list[tuple[str, str]]:
    """`validation_errors`, at the cost of a compiled validator (jsonschema-rs, a hundred times faster on a long
    document) when the instance is valid: jsonschema runs only when the compiled validator finds a problem, to
    give its messages, or when the schema is one the compiled validator could answer differently
    (`COMPILED_DIALECTS`, `DIFFERING_KEYWORDS`). So the answer is never laxer than `validation_errors`, and its
    messages are the same."""
    return compile_validator(schema, compiled=True)(instance)


def _compiled_validator(schema: dict[str, Any]) -> Any:
    """The schema compiled by jsonschema-rs, or None where only jsonschema is to answer."""
    dialect = schema.get("$schema", "https://json-schema.org/draft/2020-12/schema")
    name = COMPILED_DIALECTS.get(dialect.rstrip("#") if isinstance(dialect, str) else "")
    if name is None or _uses(schema, DIFFERING_KEYWORDS):
        return None
    import jsonschema_rs

    try:
        return getattr(jsonschema_rs, name)(schema, validate_formats=False)
    except Exception:  # a schema it does not compile: jsonschema reads it
        return None


def _uses(schema: Any, keywords: frozenset[str]) -> bool:
    """Whether any object inside `schema` has one of `keywords` as a key (a property so named counts too)."""
    stack = [schema]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if not keywords.isdisjoint(v):
                return True
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False
