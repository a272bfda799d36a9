"""A stage's parameters: the kinds a recipe may give them in, validated, and the draw of concrete values.

Each parameter of a stage's `Params` model is declared with its kind and allowed bounds, as `Annotated` metadata:
`Annotated[FloatPair, FloatRange(lo, hi)]` and `Annotated[IntPair, IntRange(lo, hi)]` (a number, or a range
`[lo, hi]` within the bounds), `Annotated[Options, Choice(*options)]` (one option or a list of them) or `RGB` (a
fixed colour); anything else is a fixed value. `draw` gives one concrete value per parameter from the Generator
it is handed (uniform over the range or the options); `drawn_type` is the type of that value, which a replay
reads back from the record. `px` turns a length in PDF points into pixels.
The stages themselves are in `gtkit.degrade.stages`.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal, overload

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, GetCoreSchemaHandler, StrictInt
from pydantic_core import CoreSchema

from gtkit.typed import Strict


class _Kind:
    """What `draw` does with a parameter: "float", "int", "choice" (one of `options`) or "fixed"."""

    def __init__(self, kind: str, options: tuple[str, ...] = ()):
        self.kind = kind
        self.options = options


class _Checked(_Kind):
    """A parameter's kind that also checks the recipe's value (`check`, before pydantic's own validation):
    `Annotated` metadata, pydantic calls `__get_pydantic_core_schema__` to build the field's validator."""

    def check(self, v: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return BeforeValidator(self.check).__get_pydantic_core_schema__(source, handler)


@overload
def _number(v: Any, integer: Literal[True]) -> int: ...
@overload
def _number(v: Any, integer: bool) -> float | int: ...
def _number(v: Any, integer: bool) -> float | int:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"expected a number, got {type(v).__name__} {v!r}")
    if not math.isfinite(v):
        raise ValueError(f"expected a finite number, got {v!r}")
    if integer and not float(v).is_integer():
        raise ValueError(f"expected an integer, got {v!r}")
    return int(v) if integer else float(v)


class _Range(_Checked):
    def __init__(self, kind: str, lo: float, hi: float):
        super().__init__(kind)
        self.lo, self.hi = lo, hi

    def check(self, v: Any) -> tuple[float, float]:
        integer, lo, hi = self.kind == "int", self.lo, self.hi
        if isinstance(v, list | tuple):
            if len(v) != 2:
                raise ValueError(f"a range is [lo, hi], got {len(v)} values")
            a, b = _number(v[0], integer), _number(v[1], integer)
        else:
            a = b = _number(v, integer)
        if a > b:
            raise ValueError(f"range [{a}, {b}] has lo > hi")
        if a < lo or b > hi:
            raise ValueError(f"{[a, b] if a != b else a} is outside the allowed range [{lo}, {hi}]")
        return (a, b)


class FloatRange(_Range):
    """A float parameter, `Annotated[FloatPair, FloatRange(lo, hi)]`: a number or [lo, hi], every value within the
    allowed bounds [lo, hi]."""

    def __init__(self, lo: float, hi: float):
        super().__init__("float", lo, hi)


class IntRange(_Range):
    """An integer parameter, `Annotated[IntPair, IntRange(lo, hi)]`: an integer or [lo, hi] (both ends included),
    within the allowed bounds."""

    def __init__(self, lo: int, hi: int):
        super().__init__("int", lo, hi)


class Choice(_Checked):
    """A choice parameter, `Annotated[Options, Choice(*options)]`: one option or a list of options, drawn
    uniformly."""

    def __init__(self, *options: str):
        super().__init__("choice", options)

    def check(self, v: Any) -> list[str]:
        options = self.options
        vals = v if isinstance(v, list) else [v]
        if not vals:
            raise ValueError("give at least one option")
        for x in vals:
            if not isinstance(x, str):
                raise ValueError(f"expected one of {list(options)}, got {type(x).__name__} {x!r}")
            if x not in options:
                raise ValueError(f"{x!r} is not one of {list(options)}")
        return vals


FloatPair = tuple[float, float]
"""The type of a FloatRange parameter: the range [lo, hi] a recipe gives (a single number x is [x, x])."""
IntPair = tuple[int, int]
"""The type of an IntRange parameter."""
Options = list[str]
"""The type of a Choice parameter: the options a recipe allows."""


def _rgb(v: Any) -> tuple[int, int, int]:
    if not isinstance(v, list | tuple) or len(v) != 3:
        raise ValueError(f"expected an RGB triple [r, g, b], got {v!r}")
    r, g, b = (_number(x, True) for x in v)
    if any(not 0 <= x <= 255 for x in (r, g, b)):
        raise ValueError(f"RGB values must be within [0, 255], got {[r, g, b]}")
    return (r, g, b)


RGB = Annotated[tuple[int, int, int], BeforeValidator(_rgb), _Kind("fixed")]


class Params(Strict):
    """A stage's parameters as a recipe gives them (unknown parameters refused)."""

    model_config = ConfigDict(frozen=True)

    def as_recipe(self) -> dict[str, Any]:
        """The parameters as a recipe file writes them (ranges as [lo, hi]), so a record loads back."""
        out = {}
        for k in type(self).model_fields:
            v = getattr(self, k)
            out[k] = list(v) if isinstance(v, tuple) else v
        return out


def _kind(model: type[BaseModel], name: str) -> _Kind:
    for m in model.model_fields[name].metadata:
        if isinstance(m, _Kind):
            return m
    return _Kind("fixed")


Finite = Annotated[float, Field(strict=True, allow_inf_nan=False)]


def drawn_type(model: type[BaseModel], name: str) -> Any:
    """The type of the value `draw` gives for one parameter."""
    kind = _kind(model, name)
    if kind.kind == "choice":
        return Literal[kind.options]
    field = model.model_fields[name]
    return {"float": Finite, "int": StrictInt}.get(kind.kind, Annotated[field.annotation, *field.metadata])


def draw(model: BaseModel, rng: np.random.Generator) -> dict[str, Any]:
    """One concrete value per parameter, in declaration order: uniform in [lo, hi] (floats), uniform over
    lo..hi (integers), uniform over the options (choices); a fixed range draws nothing."""
    out: dict[str, Any] = {}
    for name in type(model).model_fields:
        v = getattr(model, name)
        kind = _kind(type(model), name).kind
        if kind == "float":
            out[name] = float(v[0]) if v[0] == v[1] else float(rng.uniform(v[0], v[1]))
        elif kind == "int":
            out[name] = int(v[0]) if v[0] == v[1] else int(rng.integers(v[0], v[1] + 1))
        elif kind == "choice":
            out[name] = v[0] if len(v) == 1 else v[int(rng.integers(0, len(v)))]
        else:
            out[name] = list(v) if isinstance(v, tuple) else v
    return out


def px(points: float, dpi: int) -> float:
    """A length in PDF points as pixels at `dpi`: points * dpi / 72."""
    return float(points) * dpi / 72.0


def new_noise_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(0, 2**63 - 1))


__all__ = [
    "RGB", "Choice", "Finite", "FloatPair", "FloatRange", "IntPair", "IntRange", "Options", "Params", "draw",
    "drawn_type", "new_noise_seed", "px",
]
