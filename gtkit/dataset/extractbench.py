"""The mapping between gtkit's format and ExtractBench's test cases (`<stem>.test.json`), both ways.

An ExtractBench test case (`llama-extract-bench` 1.0.0, its sidecar layout) is a PDF plus a JSON file
with `tags` (a list of strings), `data_schema` (the task's JSON Schema), `expected_output` (the answer),
`_field_rules` (one rule per leaf, keyed by a dotted path such as `claims[3].city`: an `evidence` list of
`{page, bbox, quote, value}` places, `bbox` a normalized COCO `[x, y, w, h]`, and `normalizers`, the
leniencies) and optionally `_eval_row_identity` (identity keys of arrays of records, for scoring only).
"""

from __future__ import annotations

import re
from typing import Any

from gtkit.schema import split_pointer

TAG_AXES = (("task", "T"), ("perception", "P"), ("structure", "S"), ("length", "L"), ("domain", "D"),
            ("grounding", "G"))
"""gtkit's tag axes in the order their tags are listed, and the letter each axis's tags start with."""

def dotted_path(pointer: str, doc: Any) -> str:
    """`/claims/3/city` -> `claims[3].city`, walking `doc` to tell list indexes from keys."""
    out, cur = "", doc
    for tok in split_pointer(pointer):
        if isinstance(cur, list) or (not isinstance(cur, dict) and tok.isdigit()):
            out += f"[{int(tok)}]"
            cur = cur[int(tok)] if isinstance(cur, list) and int(tok) < len(cur) else None
        else:
            out += f".{tok}" if out else tok
            cur = cur.get(tok) if isinstance(cur, dict) else None
    return out


def xywh(box: Any) -> list[float]:
    """[x0, y0, x1, y1] -> COCO [x, y, w, h], rounded to 9 decimals (exact for gtkit's 6-decimal boxes)."""
    x0, y0, x1, y1 = box
    return [round(x0, 9), round(y0, 9), round(x1 - x0, 9), round(y1 - y0, 9)]


def xyxy(bbox: Any) -> tuple[float, float, float, float]:
    """COCO [x, y, w, h] -> [x0, y0, x1, y1], rounded to 9 decimals."""
    x, y, w, h = bbox
    return (round(x, 9), round(y, 9), round(x + w, 9), round(y + h, 9))


def flat_tags(tags: Any) -> list[str]:
    """gtkit's tags (a `Tags` model) as ExtractBench's flat list, axis by axis."""
    out: list[str] = []
    for axis, _ in TAG_AXES:
        value = getattr(tags, axis)
        out.extend([value] if isinstance(value, str) else value or [])
    return out


def tags_by_axis(flat: list[str]) -> tuple[dict[str, Any], list[str]]:
    """ExtractBench's flat tags back on gtkit's axes by their first letter (`T1.c` task, `S3` structure, ...),
    and the tags that fit no axis. `length` takes an `L1`-`L3` tag, `domain` the first `D` tag."""
    axes: dict[str, Any] = {axis: [] for axis, _ in TAG_AXES}
    axes["length"], axes["domain"] = None, None
    other: list[str] = []
    for tag in flat:
        axis = next((a for a, letter in TAG_AXES if re.fullmatch(rf"{letter}\d+(\.\w+)?", tag)), None)
        if axis == "length" and tag in ("L1", "L2", "L3") and axes["length"] is None:
            axes["length"] = tag
        elif axis == "domain" and axes["domain"] is None:
            axes["domain"] = tag
        elif axis in ("task", "perception", "structure", "grounding") and tag not in axes[axis]:
            axes[axis].append(tag)
        else:
            other.append(tag)
    return axes, other


def with_null_defaults(schema: Any) -> Any:
    """Every property schema gets `"default": null` unless it declares a default: ExtractBench then reads a
    key the output omits as null, gtkit's (and the paper's) rule, instead of as absent."""
    if isinstance(schema, list):
        return [with_null_defaults(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: with_null_defaults(v) for k, v in schema.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {k: ({"default": None, **v} if isinstance(v, dict) and "default" not in v else v)
                             for k, v in props.items()}
    return out
