"""Typed reading of the files users hand gtkit: one pydantic model per file kind, one error format.

Every model of a user file derives from `Strict` (unknown keys refused). `parse` turns a
pydantic `ValidationError` into one `GtkitError` line naming the file, the line (for JSON
Lines) and the JSON Pointer of the first offending key, for instance

    runs/systems.toml: /systems/gpt/family: Field required
    decisions.jsonl: line 4: /action: Input should be 'accept', 'edit' or 'null'

`read_toml_as`, `read_json_as` and `read_jsonl_as` read and parse in one call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails, InitErrorDetails, PydanticCustomError

from gtkit.errors import GtkitError
from gtkit.files.read import read_json, read_jsonl, read_toml

M = TypeVar("M", bound=BaseModel)


class Strict(BaseModel):
    """Base of every model of a user-supplied file: unknown keys are an error, not silently ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def escape_token(token: str | int) -> str:
    """One RFC 6901 reference token."""
    return str(token).replace("~", "~0").replace("/", "~1")


def pointer_of(loc: tuple[Any, ...]) -> str:
    """A pydantic error location as a JSON Pointer (validator-function names left out, and the `[key]`
    pydantic appends when a mapping's key itself is wrong: the pointer then names that key)."""
    parts = [p for p in loc if not (isinstance(p, str) and (p.startswith("function-") or p == "[key]"))]
    return "".join("/" + escape_token(p) for p in parts)


def non_finite(value: Any) -> tuple[str, str] | None:
    """Where a JSON value holds NaN or an infinity, which no JSON number is (Python's json reads `NaN`,
    `Infinity` and 1e999 as such floats): (its JSON Pointer, its spelling), or None. Iterative: a value nested
    as deep as json reads is walked without recursion."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        at, v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return at or "top level", json.dumps(v)
        if isinstance(v, dict):
            stack.extend((f"{at}/{escape_token(k)}", x) for k, x in reversed(v.items()))
        elif isinstance(v, list):
            stack.extend((f"{at}/{k}", x) for k, x in reversed(list(enumerate(v))))
    return None


def error_at(loc: tuple[str | int, ...], message: str) -> ValidationError:
    """A validation error at `loc` (relative to the value being validated): raised inside a validator that
    checks one key against another, it points at the offending key rather than at the whole value."""
    detail = InitErrorDetails(type=PydanticCustomError("value_error", message), loc=loc, input=None)
    return ValidationError.from_exception_data("gtkit", [detail])


def _message(err: ErrorDetails) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown key"
    if err["type"] == "missing":
        return "required key is missing"
    return str(err["msg"]).removeprefix("Value error, ")


def validation_message(err: ValidationError) -> str:
    """'<pointer>: <what is wrong>' for the first error, with a count of the rest."""
    first = err.errors()[0]
    where = pointer_of(tuple(first["loc"])) or "top level"
    more = f" (and {err.error_count() - 1} more)" if err.error_count() > 1 else ""
    return f"{where}: {_message(first)}{more}"


def parse(model: type[M], data: Any, path: Path | str | None, *, line: int | None = None,
          context: dict[str, Any] | None = None) -> M:
    """`data` validated as `model`; a failure is one GtkitError naming the file, line and key."""
    try:
        return model.model_validate(data, context=context)
    except ValidationError as e:
        at = f"line {line}: " if line is not None else ""
        raise GtkitError(f"{at}{validation_message(e)}", path) from None


def read_toml_as(model: type[M], path: Path, *, context: dict[str, Any] | None = None) -> M:
    return parse(model, read_toml(path), path, context=context)


def read_json_as(model: type[M], path: Path, *, context: dict[str, Any] | None = None) -> M:
    return parse(model, read_json(path), path, context=context)


def read_jsonl_as(model: type[M], path: Path, *, missing_ok: bool = False) -> Iterator[tuple[int, M]]:
    """(line number, model) for every non-blank line of a JSON Lines file."""
    for lineno, item in read_jsonl(path, missing_ok=missing_ok):
        yield lineno, parse(model, item, path, line=lineno)
