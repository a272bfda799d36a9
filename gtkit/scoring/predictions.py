"""Reading a system's predictions: `<doc_id>.json` and optional `<doc_id>.citations.json`.

A prediction that cannot be used never stops a scoring run: `load_prediction` says why (`missing`,
`not JSON`, `not an object`, `citations invalid`) and the document scores zero with that reason.
A citations file is invalid when it is not a mapping from JSON Pointers to lists of `{page, box}`
objects. Inside a valid file, a citation that names a page the document does not have, or a box
that is outside [0, 1] or inverted, is still a claim: it costs precision and grounds nothing (a bad
page matches no evidence page; a bad box gets no word-level credit, its page is judged as a page
claim). `mark_bad_citations` flags such citations, and the report counts them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import msgspec
from pydantic import AfterValidator, BeforeValidator, Field, RootModel, ValidationError

from gtkit.errors import GtkitError
from gtkit.files.read import parse_json
from gtkit.format.decode import NOT_DECODED, decode_json
from gtkit.typed import Strict, validation_message
from gtkit.workers import no_gc

CITATIONS_SUFFIX = ".citations.json"
MISSING, NOT_JSON, NOT_OBJECT, CITATIONS_INVALID = "missing", "not JSON", "not an object", "citations invalid"

def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("Input should be a valid number")
    return float(value)


Number = Annotated[float, BeforeValidator(_number)]


def _json_pointer(key: str) -> str:
    if not (key == "" or key.startswith("/")):
        raise ValueError(f"key {key!r} is not a JSON Pointer")
    return key


class Citation(Strict):
    """One place a predicted value is cited from: a 1-based page and, optionally, a box [x0, y0, x1, y1]
    normalized to the page (without a box, the citation counts at page level only)."""

    page: Annotated[int, Field(strict=True, ge=1)]
    box: tuple[Number, Number, Number, Number] | None = None


class Citations(RootModel[dict[Annotated[str, AfterValidator(_json_pointer)], list[Citation]]]):
    """`<doc_id>.citations.json`: JSON Pointers of the prediction, each to its citations. A pointer that
    names no predicted cell is not an error: it is simply never looked up."""

    def as_dicts(self) -> dict[str, list[dict[str, Any]]]:
        """The {page, box} lists the scorer reads (the form consensus hands it too)."""
        return {pointer: [c.model_dump() for c in cites] for pointer, cites in self.root.items()}


class _CitationRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """`Citation` as the fast decoder reads it: never more lenient than the model (tests/test_decode.py)."""

    page: Annotated[int, msgspec.Meta(ge=1)]
    box: tuple[float, float, float, float] | None = None


_citations_decoder = msgspec.json.Decoder(dict[str, list[_CitationRecord]])


def _fast_citations(raw: bytes) -> dict[str, list[dict[str, Any]]] | None:
    """`Citations.model_validate(json.loads(raw)).as_dicts()` where the fast decoder accepts the file, else None
    (then the models say what is wrong, or accept what this decoder is stricter about)."""
    try:
        with no_gc():  # the records are dropped before the collector could walk them
            decoded = _citations_decoder.decode(raw)
            if any(key and key[0] != "/" for key in decoded):
                return None
            return {pointer: [{"page": c.page, "box": c.box} for c in cites] for pointer, cites in decoded.items()}
    except (msgspec.MsgspecError, RecursionError, UnicodeDecodeError, ValueError):
        return None


@dataclass
class Prediction:
    """What a prediction folder holds for one document: the object and its citations, or why not."""

    doc_id: str
    predicted: Any = None
    citations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    failure: str | None = None  # MISSING, NOT_JSON, NOT_OBJECT or CITATIONS_INVALID
    detail: str | None = None   # the one-line reason, naming the file

    @property
    def usable(self) -> bool:
        return self.failure is None


def _json(path: Path, raw: bytes | None = None) -> tuple[Any, str | None]:
    raw = path.read_bytes() if raw is None else raw
    value = decode_json(raw)
    if value is not NOT_DECODED:
        return value, None
    try:
        return parse_json(raw, path), None
    except GtkitError as e:
        return None, str(e)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return None, f"{path}: {getattr(e, 'msg', None) or type(e).__name__}"


def load_prediction(pred_dir: Path, doc_id: str) -> Prediction:
    """The prediction of `doc_id` in `pred_dir`, or the reason it cannot be scored."""
    path = Path(pred_dir) / f"{doc_id}.json"
    if not path.is_file():
        return Prediction(doc_id, failure=MISSING, detail=f"{path}: no such file")
    predicted, problem = _json(path)
    if problem:
        return Prediction(doc_id, failure=NOT_JSON, detail=problem)
    if not isinstance(predicted, dict):
        return Prediction(doc_id, failure=NOT_OBJECT, detail=f"{path}: a {type(predicted).__name__}, not an object")
    cite_path = Path(pred_dir) / f"{doc_id}{CITATIONS_SUFFIX}"
    if not cite_path.is_file():
        return Prediction(doc_id, predicted)
    raw = cite_path.read_bytes()
    citations = _fast_citations(raw)
    if citations is not None:
        return Prediction(doc_id, predicted, citations)
    data, problem = _json(cite_path, raw)
    if problem:
        return Prediction(doc_id, failure=CITATIONS_INVALID, detail=problem)
    try:
        citations = Citations.model_validate(data).as_dicts()
    except ValidationError as e:
        return Prediction(doc_id, failure=CITATIONS_INVALID, detail=f"{cite_path}: {validation_message(e)}")
    return Prediction(doc_id, predicted, citations)


def bad_citation(cite: dict[str, Any], pages: int) -> bool:
    """A citation that can ground nothing: a page beyond the document, or a box outside [0, 1] or inverted
    (a NaN or an infinity fails the comparisons, so it is outside too)."""
    if cite["page"] > pages:
        return True
    box = cite.get("box")
    if box is None:
        return False
    x0, y0, x1, y1 = box
    return not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0)


def mark_bad_citations(citations: dict[str, list[dict[str, Any]]], pages: int) -> int:
    """Flag (`"bad": True`) every citation that can ground nothing; returns how many there are."""
    bad = 0
    for cites in citations.values():
        for cite in cites:
            if bad_citation(cite, pages):
                cite["bad"] = True
                bad += 1
    return bad


def unknown_predictions(pred_dir: Path, doc_ids: set[str]) -> list[str]:
    """Prediction files (`<name>.json`, citations aside) that name no document of the truth."""
    out = []
    for p in sorted(Path(pred_dir).glob("*.json")):
        name = p.name[: -len(CITATIONS_SUFFIX)] if p.name.endswith(CITATIONS_SUFFIX) else p.stem
        if name not in doc_ids:
            out.append(p.name)
    return out
