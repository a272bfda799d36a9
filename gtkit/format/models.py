"""Pydantic models of the shared format (`gtkit.gt/2`; `gtkit.gt/1` is read and upgraded) and of the dataset index.

These models are the single source of truth: the JSON Schema shipped in
`gtkit/format/gt.schema.json` is generated from them (`python scripts/export_format_schema.py`)
and a test keeps the two in sync.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator, model_validator

FORMAT_VERSION = "gtkit.gt/2"
READABLE_VERSIONS = ("gtkit.gt/1", FORMAT_VERSION)
VERIFIED_V1_TRUST = ("constructed", "human")
"""In a `gtkit.gt/1` file (which had no `verified`), evidence whose entry has one of these trust levels was
made by gtkit (synth, degrade) or drawn by a person: it reads as verified; any other (a system's citation) not."""

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Box = tuple[Unit, Unit, Unit, Unit]
"""(x0, y0, x1, y1) normalized to the page, origin top-left."""
Point = tuple[float, float]
Scalar = str | int | float | bool | None
Value = Scalar | list[Scalar] | JsonValue
"""A leaf's value: a scalar, a list of scalars, or (for a leaf the schema makes structured, such as a `oneOf`
of objects or a list of lists) any JSON value, compared as a whole."""

Trust = Literal["constructed", "agreed", "adjudicated", "human", "pending"]
Leniency = Literal[
    "null_equals_false",
    "case_insensitive",
    "optional_terminal_punctuation",
    "punctuation_spacing",
    "phone_digits",
    "lenient_date",
]
LENIENCIES: tuple[str, ...] = get_args(Leniency)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _check_box(box: Box | None) -> Box | None:
    if box is not None and not (box[0] < box[2] and box[1] < box[3]):
        raise ValueError(f"box {list(box)} must have x0 < x1 and y0 < y1")
    return box


class Evidence(_Strict):
    """One place a reading can be cited from. Only `page` is required."""

    page: int = Field(ge=1, description="1-based page number")
    box: Box | None = Field(default=None, description="union box of the value's words, normalized, top-left origin")
    words: list[Box] | None = Field(default=None, description="each word's box, normalized")
    quad: tuple[Point, Point, Point, Point] | None = Field(
        default=None, description="the box's four corners (tl, tr, br, bl) after a geometric transform, normalized"
    )
    quote: str | None = Field(default=None, description="the text under the box")
    verified: bool = Field(default=False, description=(
        "the box is known to show the value: constructed by synth, moved in closed form by degrade, or drawn or "
        "accepted by a person; grounding is scored only over verified evidence"))

    _box = field_validator("box")(classmethod(lambda cls, v: _check_box(v)))


class Reading(_Strict):
    value: Value
    evidence: list[Evidence] = Field(default_factory=list)

    @model_validator(mode="after")
    def _null_has_no_evidence(self) -> Reading:
        if self.value is None and self.evidence:
            raise ValueError("a null value has no evidence")
        return self


class FieldEntry(_Strict):
    path: str = Field(pattern=r"^(/.*)?$", description="RFC 6901 JSON Pointer into `expected`")
    readings: list[Reading] = Field(min_length=1, description="first is the expected value, the rest alternates")
    leniencies: list[Leniency] = Field(default_factory=list)
    trust: Trust


class DocumentInfo(_Strict):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    pages: int = Field(ge=1)
    page_sizes: list[tuple[float, float]] = Field(description="width, height in PDF points, one per page")

    @model_validator(mode="after")
    def _sizes(self) -> DocumentInfo:
        if len(self.page_sizes) != self.pages:
            raise ValueError(f"page_sizes has {len(self.page_sizes)} entries for {self.pages} pages")
        return self


class SchemaInfo(_Strict):
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    version: str | None = None


class ParentRef(_Strict):
    doc_id: str
    gt_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    document_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")


class Provenance(_Strict):
    pipeline: Literal["synth", "degrade", "consensus", "manual"]
    family: str | None = None
    seed: int | None = None
    recipe: str | None = None
    parent: ParentRef | None = None
    gtkit: str
    created: str | None = Field(default=None, description="stays null unless a timestamp is asked for")
    parameters: dict[str, Any] | None = Field(
        default=None, description="every drawn or chosen parameter, enough to replay the run"
    )


class Tags(_Strict):
    task: list[str] = Field(default_factory=list)
    perception: list[str] = Field(default_factory=list)
    structure: list[str] = Field(default_factory=list)
    length: Literal["L1", "L2", "L3"] | None = None
    domain: str | None = None
    grounding: list[str] = Field(default_factory=list)


def length_tag(pages: int) -> str:
    """L1 up to 10 pages, L2 11 to 50, L3 more than 50."""
    return "L1" if pages <= 10 else "L2" if pages <= 50 else "L3"


class GroundTruth(_Strict):
    """The content of `gt.json`."""

    format: Literal["gtkit.gt/1", "gtkit.gt/2"] = Field(
        description="the format version; required, so a file that lacks it is refused. Version 1 is read as version 2")
    doc_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    document: DocumentInfo
    schema_: SchemaInfo = Field(alias="schema")
    provenance: Provenance
    tags: Tags = Field(default_factory=Tags)
    expected: Any
    fields: list[FieldEntry]

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("format") == "gtkit.gt/1" and isinstance(data.get("fields"), list):
            data = {**data, "format": FORMAT_VERSION}
            upgrade_fields(data["fields"], "gtkit.gt/1")
        elif isinstance(data, dict) and data.get("format") == "gtkit.gt/1":
            data = {**data, "format": FORMAT_VERSION}
        return data

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def upgrade_fields(fields: list[Any], version: str) -> None:
    """Field entries (parsed JSON) of a file of `version` brought to the current format, in place: a
    `gtkit.gt/1` evidence entry gets `verified` from its entry's trust (`VERIFIED_V1_TRUST`)."""
    if version != "gtkit.gt/1":
        return
    for entry in fields:
        if not isinstance(entry, dict):
            continue
        verified = entry.get("trust") in VERIFIED_V1_TRUST
        for reading in entry.get("readings") or ():
            for ev in (reading.get("evidence") or ()) if isinstance(reading, dict) else ():
                if isinstance(ev, dict):
                    ev.setdefault("verified", verified)


class DatasetEntry(BaseModel):
    """One line of `dataset.jsonl`: `doc_id` and `path` are required, summaries optional."""

    model_config = ConfigDict(extra="allow")

    doc_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    path: str
    family: str | None = None
    pipeline: str | None = None
    tags: Tags | None = None
    pages: int | None = None
    cells: int | None = None
    split: str | None = Field(default=None, description="the split the bundle belongs to (`gtkit build`'s [[splits]])")
