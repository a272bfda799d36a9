"""Fast reading of a gt.json for scoring: decoded straight into typed records (msgspec), validated while built.

The pydantic models in `gtkit.format.models` stay the definition of the format. The records here mirror
`Evidence`, `Reading` and `FieldEntry` and are never more lenient than they are: whatever `decode_ground_truth`
accepts, the models accept with the same values (`tests/test_decode.py` checks this on mutated entries). They
are stricter in a few ways the models forgive (a page written `2.0`, a `verified` written `1`, a `NaN`, a
string with a lone surrogate, a `gtkit.gt/1` file): then `decode_ground_truth` answers None, and the caller
reads the file the careful way, which accepts it or names the file and the JSON Pointer of the first problem.

Decoding into records rather than into dicts and lists costs about a third of the time and memory: the cost of
reading a 50 MB gt.json is building its Python objects, and a record holds its fields without a dict. The cyclic
collector is paused meanwhile (`gtkit.workers.no_gc`): those objects hold no cycles, and each collection on the
way would walk everything built so far (half the decoding time).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from msgspec import Meta, Struct

from gtkit.files.read import MAX_JSON_DEPTH, json_depth
from gtkit.format.models import FORMAT_VERSION, Leniency, Trust
from gtkit.workers import no_gc

MAX_VALUE_DEPTH = 255
"""The deepest reading value the models accept (pydantic's recursion guard): a scalar or an empty list is depth 1,
`[[1]]` depth 3."""

_Unit = Annotated[float, Meta(ge=0.0, le=1.0)]
_Box = tuple[_Unit, _Unit, _Unit, _Unit]
_Point = tuple[float, float]


class EvidenceRecord(Struct, forbid_unknown_fields=True, gc=False):
    """`models.Evidence` as decoded for scoring."""

    page: Annotated[int, Meta(ge=1)]
    box: _Box | None = None
    words: list[_Box] | None = None
    quad: tuple[_Point, _Point, _Point, _Point] | None = None
    quote: str | None = None
    verified: bool = False

    def __post_init__(self) -> None:
        box = self.box
        if box is not None and not (box[0] < box[2] and box[1] < box[3]):
            raise ValueError("box must have x0 < x1 and y0 < y1")


class ReadingRecord(Struct, forbid_unknown_fields=True, gc=False):
    """`models.Reading` as decoded for scoring (a null value with evidence and a too deep value are refused)."""

    value: Any
    evidence: list[EvidenceRecord] = []

    def __post_init__(self) -> None:
        value = self.value
        if value is None:
            if self.evidence:
                raise ValueError("a null value has no evidence")
        elif (value.__class__ is list or value.__class__ is dict) and _deeper(value, MAX_VALUE_DEPTH):
            raise ValueError("value nested too deep")


class FieldRecord(Struct, forbid_unknown_fields=True, gc=False):
    """`models.FieldEntry` as decoded for scoring."""

    path: str
    readings: Annotated[list[ReadingRecord], Meta(min_length=1)]
    trust: Trust
    leniencies: list[Leniency] = []

    def __post_init__(self) -> None:
        path = self.path  # the models' pattern ^(/.*)?$: empty, or a slash and no line feed
        if path and (path[0] != "/" or "\n" in path):
            raise ValueError("path is not a JSON Pointer")


class _GroundTruthFile(Struct, forbid_unknown_fields=True, gc=False):
    """A gt.json: the field entries as records, the rest as plain JSON for the models to validate."""

    format: Any
    doc_id: Any
    document: Any
    schema: Any
    provenance: Any
    expected: Any
    fields: list[FieldRecord]
    tags: Any = msgspec.UNSET


_ENVELOPE_KEYS = ("format", "doc_id", "document", "schema", "provenance", "tags", "expected")
_decoder = msgspec.json.Decoder(_GroundTruthFile)
_any_decoder = msgspec.json.Decoder()


def _deeper(value: Any, depth: int) -> bool:
    """Whether a JSON value nests deeper than `depth` (a scalar or an empty container is depth 1); it looks no
    further down than that."""
    items = value if value.__class__ is list else value.values() if value.__class__ is dict else None
    if items is None:
        return depth < 1
    if depth <= 1:
        return depth < 1 or len(items) > 0
    return any(_deeper(v, depth - 1) for v in items)


def decode_ground_truth(raw: bytes) -> tuple[dict[str, Any], list[FieldRecord]] | None:
    """(the envelope as plain JSON, with `fields` empty, and the field entries as records) of a current-version
    gt.json, or None when this decoder does not accept the file (read it with the models instead)."""
    try:
        with no_gc():
            data = _decoder.decode(raw)
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError, ValueError):
        return None
    if data.format != FORMAT_VERSION:
        return None
    envelope = {k: getattr(data, k) for k in _ENVELOPE_KEYS if getattr(data, k) is not msgspec.UNSET}
    if json_depth(list(envelope.values()), MAX_JSON_DEPTH) > MAX_JSON_DEPTH:  # the careful reader names the file
        return None
    envelope["fields"] = []
    return envelope, data.fields


def records_of(fields: list[Any]) -> list[FieldRecord] | None:
    """Field entries given as parsed JSON (already validated by the format models) as records, or None where
    these records are stricter than the models (see the module docstring): then keep the models."""
    try:
        with no_gc():
            return msgspec.convert(fields, list[FieldRecord])
    except (msgspec.MsgspecError, RecursionError, ValueError):
        return None


NOT_DECODED = object()
"""What `decode_json` answers for a document it leaves to `json.loads`."""


def decode_json(raw: bytes) -> Any:
    """A JSON document decoded as `json.loads` decodes it, or `NOT_DECODED` where this faster decoder is stricter
    (a non-UTF-8 encoding, NaN, a number out of range, a lone surrogate, bad JSON) or the document nests deeper
    than `gtkit.files.read.MAX_JSON_DEPTH`: then use `gtkit.files.read.parse_json`, which accepts it or says why not."""
    try:
        with no_gc():
            value = _any_decoder.decode(raw)
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError, ValueError):
        return NOT_DECODED
    return value if json_depth(value, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH else NOT_DECODED
