"""`gtkit import --format extractbench`: ExtractBench test cases (`<stem>.pdf` + `<stem>.test.json`) as bundles.

Each test case becomes one bundle of a dataset, written by `gtkit.format.writer` with provenance pipeline
`manual` (a truth gtkit did not make): the PDF as it is, `data_schema` as `schema.json`, `expected_output`
as `expected`, page sizes read from the PDF, and one field entry per leaf of `expected_output`, including
the keys the schema does not describe (so `gtkit check` can name them). A leaf's rule in `_field_rules`
gives its evidence: places whose value is the expected one (or null) back the first reading, places with
another value become alternate readings; `normalizers` become leniencies; the rule's `verified` flag
becomes the evidence's. A leaf without a rule gets a reading without evidence.

The gold answer is taken as published, never corrected: an answer that breaks its schema or carries
keys the schema does not describe is imported as it is, and `gtkit check` reports it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from gtkit.dataset.extractbench import dotted_path, tags_by_axis, xyxy
from gtkit.errors import GtkitError
from gtkit.files.outputs import check_output
from gtkit.format.models import Leniency, length_tag
from gtkit.format.writer import Envelope, evidence_entry, field_entry, is_gtkit_output, write_dataset
from gtkit.pdf import page_sizes
from gtkit.schema import Node, check_schema, compile_schema, guess_node, join_pointer
from gtkit.scoring.normalize import value_key
from gtkit.typed import Strict, read_json_as

SUFFIX = ".test.json"
DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class EbPlace(Strict):
    """One entry of a rule's `evidence` list."""

    page: int | None = Field(default=None, ge=1)
    bbox: list[float] | None = Field(default=None, min_length=4, max_length=4)
    quote: str | None = None
    value: Any = None
    coarse: bool = False
    layer: str | None = None


class EbBbox(Strict):
    """One entry of a legacy rule's `bboxes` list."""

    page: int = Field(ge=1)
    bbox: list[float] = Field(min_length=4, max_length=4)
    source_bbox_index: int | None = None


class EbRule(Strict):
    """An `extract_field` rule: the body of a `_field_rules` entry, or an item of the legacy `test_rules`."""

    type: Literal["extract_field"] | None = None
    id: str | None = None
    field_path: str | None = None
    expected_value: str | int | float | bool | None = None
    bboxes: list[EbBbox] = Field(default_factory=list)
    verified: bool = True
    tags: list[str] = Field(default_factory=list)
    evidence: list[EbPlace] | None = None
    comparator: str | dict[str, str] | None = None
    normalizers: list[Leniency] = Field(default_factory=list)
    structural: str | None = None
    exhaustive: bool | None = None
    expected_min: int | None = None
    evidence_required: bool = True
    source_policy: Literal["verbatim", "computed", "inferred"] = "verbatim"
    max_evidence: int | None = None
    iou_threshold: float | None = None


class EbTestCase(Strict):
    """A `<stem>.test.json` of an ExtractBench extract test case."""

    tags: list[str] = Field(default_factory=list)
    data_schema: dict[str, Any]
    expected_output: dict[str, Any]
    field_rules: dict[str, EbRule] | None = Field(default=None, alias="_field_rules")
    test_rules: list[EbRule] | None = None
    row_identity: dict[str, dict[str, Any]] | None = Field(default=None, alias="_eval_row_identity")
    schema_version: str | None = Field(default=None, alias="_schema_version")
    config: dict[str, Any] | None = None

    def rules(self) -> dict[str, EbRule]:
        """Rules by field path, whichever container holds them."""
        if self.field_rules is not None:
            return self.field_rules
        return {r.field_path: r for r in self.test_rules or () if r.field_path}


def instance_leaves(node: Node, value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """(pointer, value) of every leaf of an answer under a schema node: the leaves the schema declares (as
    `gtkit.schema.iter_leaves` walks them) and, in an object, those under keys it does not declare."""
    out: list[tuple[str, Any]] = []
    stack = [(node, value, prefix)]
    while stack:
        node, value, prefix = stack.pop()
        items: list[tuple[Node, Any, str]] = []
        if node.kind == "object" and (node.props or isinstance(value, dict)):
            obj = value if isinstance(value, dict) else {}
            items = [(sub, obj.get(name), join_pointer(prefix, name)) for name, sub in node.props.items()]
            items += [(guess_node(v), v, join_pointer(prefix, k)) for k, v in obj.items() if k not in node.props]
        elif node.kind == "records":
            if isinstance(value, list):
                assert node.item is not None
                items = [(node.item, r, join_pointer(prefix, i)) for i, r in enumerate(value)]
        else:
            out.append((prefix, value))
        stack.extend(reversed(items))
    return out


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _box(place: EbPlace | EbBbox, where: str, source: Path) -> tuple[float, ...] | None:
    if place.bbox is None:
        return None
    x0, y0, x1, y1 = (min(max(v, 0.0), 1.0) for v in xyxy(place.bbox))
    if not (x0 < x1 and y0 < y1):
        raise GtkitError(f"{where}/bbox: {place.bbox} is not a box of positive size on the page", source)
    return (x0, y0, x1, y1)


def readings(value: Any, rule: EbRule | None, where: str, source: Path) -> list[dict[str, Any]]:
    """The readings of a leaf: the expected value first, backed by the places of the rule's evidence that
    carry it (or no value), then one alternate per other value the evidence gives, with its places."""
    first: dict[str, Any] = {"value": value, "evidence": []}
    if rule is None:
        return [first]
    places: list[tuple[Any, EbPlace | EbBbox, str]] = []
    if rule.evidence is not None:
        places = [(p.value, p, f"{where}/evidence/{i}") for i, p in enumerate(rule.evidence)]
    else:
        places = [(rule.expected_value, b, f"{where}/bboxes/{i}") for i, b in enumerate(rule.bboxes)]
    out, by_value = [first], {_canon(value): first}
    key = value_key(value)
    for v, place, at in places:
        reading = first if v is None or value_key(v) == key else by_value.get(_canon(v))
        if reading is None:
            reading = by_value[_canon(v)] = {"value": v, "evidence": []}
            out.append(reading)
        if place.page is not None and reading["value"] is not None:
            reading["evidence"].append(evidence_entry(
                place.page, box=_box(place, at, source), quote=getattr(place, "quote", None),
                verified=rule.verified))
    return out


def with_row_identity(schema: dict[str, Any], identity: dict[str, dict[str, Any]] | None) -> dict[str, Any]:
    """`_eval_row_identity` carried back into the schema as `x-identity` on each array it names (through
    `properties` only), unless the array already has one."""
    if not identity:
        return schema
    schema = json.loads(json.dumps(schema))
    for path, spec in identity.items():
        keys = next((spec[k] for k in ("identity_key", "identity_keys", "match_by") if spec.get(k)), None)
        node: Any = schema
        for token in path.split("."):
            props = node.get("properties") if isinstance(node, dict) else None
            node = props.get(token) if isinstance(props, dict) else None
        if isinstance(node, dict) and keys and "x-identity" not in node:
            node["x-identity"] = [k.strip() for k in keys.split(",")] if isinstance(keys, str) else list(keys)
    return schema


def test_cases(source: Path) -> list[tuple[str, Path, Path]]:
    """(doc id, test.json, pdf) of every test case under `source`, sorted by path (a `hub/` folder of
    published rows is skipped: its documents are the ones beside the sidecars)."""
    source = Path(source)
    if not source.is_dir():
        raise GtkitError("not a folder of ExtractBench test cases", source)
    found: list[tuple[str, Path, Path]] = []
    seen: dict[str, Path] = {}
    for test in sorted(source.rglob(f"*{SUFFIX}")):
        if "hub" in test.relative_to(source).parts[:1]:
            continue
        stem = test.name[: -len(SUFFIX)]
        pdf = test.with_name(stem + ".pdf")
        if not pdf.is_file():
            raise GtkitError(f"no {pdf.name} beside it (gtkit imports PDF test cases)", test)
        doc_id = stem if DOC_ID.match(stem) else re.sub(r"[^A-Za-z0-9._-]", "-", stem).lstrip("._-") or "doc"
        if doc_id in seen:
            raise GtkitError(f"two test cases make the document id {doc_id!r} (the other: {seen[doc_id]})", test)
        seen[doc_id] = test
        found.append((doc_id, test, pdf))
    if not found:
        raise GtkitError(f"no ExtractBench test case (*{SUFFIX}) here", source)
    return found


def import_case(doc_id: str, test: Path, pdf: Path, source: Path) -> tuple[Envelope, list[dict[str, Any]]]:
    """The envelope and field entries of one test case."""
    case = read_json_as(EbTestCase, test)
    schema = check_schema(with_row_identity(case.data_schema, case.row_identity), test)
    expected = case.expected_output
    sizes = page_sizes(pdf)
    rules = case.rules()
    fields, used = [], set()
    for pointer, value in instance_leaves(compile_schema(schema), expected):
        path = dotted_path(pointer, expected)
        rule = rules.get(path)
        used.add(path)
        container = "/_field_rules/" if case.field_rules is not None else "/test_rules/"
        where = container + path.replace("~", "~0").replace("/", "~1")
        lens: list[str] = sorted(set(rule.normalizers)) if rule else []
        fields.append(field_entry(pointer, readings(value, rule, where, test), lens, "human"))
    axes, other = tags_by_axis(case.tags)
    if axes["length"] is None:
        axes["length"] = length_tag(len(sizes))
    parameters: dict[str, Any] = {"imported_from": "extractbench", "test_case": test.relative_to(source).as_posix()}
    if other:
        parameters["other_tags"] = other
    unmatched = sorted(set(rules) - used)
    if unmatched:
        parameters["rules_naming_no_leaf"] = unmatched
    provenance = {"pipeline": "manual", "family": None, "seed": None, "recipe": None, "parent": None,
                  "parameters": parameters}
    version = case.schema_version
    return Envelope(doc_id=doc_id, page_sizes=sizes, schema=schema, provenance=provenance, expected=expected,
                    tags=axes, schema_version=version), fields


def import_extractbench(source: Path, out: Path, *, force: bool = False) -> int:
    """Import every test case under `source` into a gtkit dataset at `out`; returns the number of documents."""
    source, out = Path(source), Path(out)
    check_output(out, force=force, inputs=[source], replaceable=is_gtkit_output)
    cases = test_cases(source)
    with write_dataset(out, force=force) as dataset:
        for doc_id, test, pdf in cases:
            envelope, fields = import_case(doc_id, test, pdf, source)
            bundle = dataset.bundle(doc_id, test.relative_to(source).parent.joinpath(doc_id).as_posix())
            bundle.write_pdf(pdf)
            bundle.write(envelope, fields)
    return len(cases)
