"""Photometric stages: each validates its parameter ranges, draws concrete values, and applies a pure op.

A stage in a recipe gives each parameter either a fixed value or a range `[lo, hi]` (a choice parameter
gives a list of options). `Stage.sample(rng)` draws one concrete value per parameter from its own
Generator (one per seed, document, page and stage) and returns them as plain JSON; `Stage.apply(img,
drawn, dpi)` calls the pure functions of `gtkit.degrade.ops` with those values and draws nothing.
Spatial parameters are in PDF points (1/72 inch), so a recipe looks the same at every dpi. The parameter
kinds (ranges, choices, colours) and the draw are `gtkit.degrade.params`.

No stage moves pixels: the only geometric step is the page homography, configured in a recipe's
`[geometry]` table and applied before the stages. Stages that would warp the page non-rigidly are listed
in `NON_RIGID` and refused when a recipe loads.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

import numpy as np
from pydantic import StrictInt, model_validator

from gtkit.degrade import ops
from gtkit.degrade.params import (
    RGB,
    Choice,
    Finite,
    FloatPair,
    FloatRange,
    IntPair,
    IntRange,
    Options,
    draw,
    drawn_type,
    new_noise_seed,
    px,
)
from gtkit.degrade.params import Params as BaseParams  # each stage's own model is its nested class Params
from gtkit.typed import Strict, error_at


class Stage:
    """A photometric stage: `Params` validates the recipe's ranges; `sample` draws; `apply` is pure."""

    name: ClassVar[str]
    summary: ClassVar[str]
    Params: ClassVar[type[BaseParams]]
    uses_noise: ClassVar[bool] = False

    def __init__(self, params: BaseParams):
        self.params = params

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        drawn = draw(self.params, rng)
        if self.uses_noise:
            drawn["noise_seed"] = new_noise_seed(rng)
        return drawn

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        """(type, required) of every value `sample` gives: what a replay reads back from the record."""
        fields: dict[str, Any] = {name: (drawn_type(cls.Params, name), ...) for name in cls.Params.model_fields}
        return {**fields, "noise_seed": (StrictInt, ...)} if cls.uses_noise else fields

    @staticmethod
    def apply(img: np.ndarray, drawn: dict[str, Any], dpi: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @classmethod
    def run(cls, img: np.ndarray, drawn: dict[str, Any], dpi: int) -> tuple[np.ndarray, dict[str, Any] | None]:
        """`apply`, and what the stage drew while applying (None: everything was drawn by `sample`)."""
        return cls.apply(img, drawn, dpi), None


class ToneCurve(Stage):
    name = "tone_curve"
    summary = "levels and gamma: contrast, faded ink, grey paper"

    class Params(BaseParams):
        gamma: Annotated[FloatPair, FloatRange(0.2, 5.0)] = (1.0, 1.0)
        black: Annotated[FloatPair, FloatRange(0, 200)] = (0.0, 0.0)
        white: Annotated[FloatPair, FloatRange(50, 255)] = (255.0, 255.0)
        out_black: Annotated[FloatPair, FloatRange(0, 255)] = (0.0, 0.0)
        out_white: Annotated[FloatPair, FloatRange(0, 255)] = (255.0, 255.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.tone_curve(img, d["gamma"], d["black"], max(d["white"], d["black"] + 1), d["out_black"],
                              d["out_white"])


class Tint(Stage):
    name = "tint"
    summary = "colour the page: paper and ink colours (carbon blue-grey, yellowed paper)"

    class Params(BaseParams):
        paper: RGB = (255, 255, 255)
        ink: RGB = (0, 0, 0)
        amount: Annotated[FloatPair, FloatRange(0, 1)] = (1.0, 1.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.tint(img, tuple(d["paper"]), tuple(d["ink"]), d["amount"])


class Blur(Stage):
    name = "blur"
    summary = "Gaussian blur (soft strokes, defocus), sigma in points"

    class Params(BaseParams):
        sigma: Annotated[FloatPair, FloatRange(0, 5)] = (0.3, 0.3)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.blur(img, px(d["sigma"], dpi))


class Resample(Stage):
    name = "resample"
    summary = "down to an effective resolution (dpi_x, dpi_y) and back up"

    class Params(BaseParams):
        dpi_x: Annotated[FloatPair, FloatRange(20, 1200)] = (100.0, 100.0)
        dpi_y: Annotated[FloatPair, FloatRange(20, 1200)] = (100.0, 100.0)
        up: Annotated[Options, Choice("linear", "nearest", "cubic")] = ["linear"]

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.resample(img, min(1.0, d["dpi_x"] / dpi), min(1.0, d["dpi_y"] / dpi), d["up"])


class Jpeg(Stage):
    name = "jpeg"
    summary = "JPEG compression artefacts (encode and decode at a quality)"

    class Params(BaseParams):
        quality: Annotated[IntPair, IntRange(5, 100)] = (75, 75)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.jpeg_roundtrip(img, d["quality"])


class Threshold(Stage):
    name = "threshold"
    summary = "to 1 bit: Otsu, a fixed level, or Bayer ordered dithering"

    class Params(BaseParams):
        method: Annotated[Options, Choice("otsu", "fixed", "bayer")] = ["otsu"]
        level: Annotated[FloatPair, FloatRange(1, 254)] = (128.0, 128.0)
        offset: Annotated[FloatPair, FloatRange(-60, 60)] = (0.0, 0.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.threshold(img, d["method"], d["level"], d["offset"])


class GaussianNoise(Stage):
    name = "gaussian_noise"
    summary = "sensor noise: additive Gaussian noise, sigma in grey levels"
    uses_noise = True

    class Params(BaseParams):
        sigma: Annotated[FloatPair, FloatRange(0, 80)] = (8.0, 8.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.gaussian_noise(img, d["sigma"], d["noise_seed"])


class PaperGrain(Stage):
    name = "paper_grain"
    summary = "low-frequency paper texture"
    uses_noise = True

    class Params(BaseParams):
        strength: Annotated[FloatPair, FloatRange(0, 0.5)] = (0.05, 0.05)
        grain: Annotated[FloatPair, FloatRange(0.5, 100)] = (3.0, 3.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.paper_grain(img, d["strength"], px(d["grain"], dpi), d["noise_seed"])


def _per_page(count_per_page: float, img: np.ndarray, dpi: int) -> int:
    """Counts in recipes are per letter-size page area (612 x 792 pt); scale by the actual area."""
    area_pt = img.shape[0] * img.shape[1] * (72.0 / dpi) ** 2
    return round(count_per_page * area_pt / (612.0 * 792.0))


class Speckle(Stage):
    name = "speckle"
    summary = "salt-and-pepper specks, counts per letter page, radius in points"
    uses_noise = True

    class Params(BaseParams):
        dark: Annotated[IntPair, IntRange(0, 200000)] = (500, 500)
        light: Annotated[IntPair, IntRange(0, 200000)] = (0, 0)
        radius: Annotated[FloatPair, FloatRange(0, 5)] = (0.1, 0.4)
        dark_level: Annotated[IntPair, IntRange(0, 255)] = (30, 30)

    params: Params  # built from its own Params (recipe.StageEntry.build)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        drawn = draw(self.params, rng)
        drawn["radius"] = list(self.params.radius)  # each speck draws its own
        drawn["noise_seed"] = new_noise_seed(rng)
        return drawn

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        return {**super().drawn_fields(), "radius": (tuple[Finite, Finite], ...)}

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        r = (px(d["radius"][0], dpi), px(d["radius"][1], dpi))
        return ops.speckle(img, _per_page(d["dark"], img, dpi), _per_page(d["light"], img, dpi), r,
                           d["noise_seed"], dark_level=d["dark_level"])


class Dust(Stage):
    name = "dust"
    summary = "dust particles and hairs on the glass"
    uses_noise = True

    class Params(BaseParams):
        particles: Annotated[IntPair, IntRange(0, 20000)] = (100, 100)
        radius: Annotated[FloatPair, FloatRange(0.05, 5)] = (0.2, 1.0)
        hairs: Annotated[IntPair, IntRange(0, 100)] = (2, 2)
        hair_length: Annotated[FloatPair, FloatRange(1, 200)] = (20.0, 20.0)
        darkness: Annotated[FloatPair, FloatRange(0, 1)] = (0.7, 0.7)

    params: Params  # built from its own Params (recipe.StageEntry.build)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        drawn = draw(self.params, rng)
        drawn["radius"] = list(self.params.radius)  # each particle draws its own
        drawn["noise_seed"] = new_noise_seed(rng)
        return drawn

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        return {**super().drawn_fields(), "radius": (tuple[Finite, Finite], ...)}

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        r = (px(d["radius"][0], dpi), px(d["radius"][1], dpi))
        return ops.dust(img, _per_page(d["particles"], img, dpi), r, d["hairs"], px(d["hair_length"], dpi),
                        d["darkness"], d["noise_seed"])


class Band(Strict):
    """One drawn toner streak: left edge and width as fractions of the page width, signed strength."""

    x: Finite
    width: Finite
    strength: Finite


class Streaks(Stage):
    name = "streaks"
    summary = "photocopier toner streaks: vertical dark (or light) bands"

    class Params(BaseParams):
        count: Annotated[IntPair, IntRange(0, 50)] = (1, 3)
        width: Annotated[FloatPair, FloatRange(0.0005, 0.2)] = (0.002, 0.01)
        strength: Annotated[FloatPair, FloatRange(-1, 1)] = (0.1, 0.3)

    params: Params  # built from its own Params (recipe.StageEntry.build)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        p = self.params
        lo, hi = p.count
        n = int(lo) if lo == hi else int(rng.integers(lo, hi + 1))
        bands = []
        for _ in range(n):
            w = float(rng.uniform(*p.width))
            bands.append({"x": float(rng.uniform(0.0, 1.0 - w)), "width": w,
                          "strength": float(rng.uniform(*p.strength))})
        return {"bands": bands}

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        return {"bands": (list[Band], ...)}

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.streaks(img, d["bands"])


class Vignette(Stage):
    name = "vignette"
    summary = "darker corners of a camera lens"

    class Params(BaseParams):
        strength: Annotated[FloatPair, FloatRange(0, 0.9)] = (0.2, 0.2)
        falloff: Annotated[FloatPair, FloatRange(0.5, 6)] = (2.0, 2.0)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.vignette(img, d["strength"], d["falloff"])


class Illumination(Stage):
    name = "illumination"
    summary = "uneven light: a linear brightness ramp across the page"

    class Params(BaseParams):
        angle: Annotated[FloatPair, FloatRange(-360, 360)] = (0.0, 360.0)
        strength: Annotated[FloatPair, FloatRange(0, 0.9)] = (0.1, 0.1)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.illumination(img, d["angle"], d["strength"])


class Shadow(Stage):
    name = "shadow"
    summary = "shadowed copying: a dark band along one edge"

    class Params(BaseParams):
        side: Annotated[Options, Choice("left", "right", "top", "bottom")] = ["left", "right"]
        width: Annotated[FloatPair, FloatRange(0.01, 0.6)] = (0.05, 0.15)
        depth: Annotated[FloatPair, FloatRange(0, 1)] = (0.3, 0.6)
        softness: Annotated[FloatPair, FloatRange(0, 1)] = (0.5, 0.9)

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.shadow(img, d["side"], d["width"], d["depth"], d["softness"])


class BleedThrough(Stage):
    name = "bleed_through"
    summary = "ink of the back side showing through (the page mirrored, blurred, faint)"

    class Params(BaseParams):
        alpha: Annotated[FloatPair, FloatRange(0, 0.6)] = (0.1, 0.1)
        blur: Annotated[FloatPair, FloatRange(0, 10)] = (1.0, 1.0)
        offset: Annotated[FloatPair, FloatRange(-30, 30)] = (0.0, 0.0)

    params: Params  # built from its own Params (recipe.StageEntry.build)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        drawn = draw(self.params, rng)
        lo, hi = self.params.offset
        drawn["offset"] = float(drawn["offset"])
        drawn["offset_y"] = float(lo) if lo == hi else float(rng.uniform(lo, hi))
        return drawn

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        return {**super().drawn_fields(), "offset_y": (Finite, ...)}

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return ops.bleed_through(img, d["alpha"], px(d["blur"], dpi), px(d["offset"], dpi), px(d["offset_y"], dpi))


class AlbumentationsParams(BaseParams):
    """`transform` names an albumentations pixel-level transform; every other key of the `[[stages]]` table is
    one of its arguments, as albumentations takes them (checked by albumentations itself when the recipe loads)."""

    transform: str
    args: dict[str, Any]

    @model_validator(mode="before")
    @classmethod
    def _gather(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return {"transform": data.get("transform"), "args": {k: v for k, v in data.items() if k != "transform"}}

    @model_validator(mode="after")
    def _known_to_albumentations(self) -> AlbumentationsParams:
        from gtkit.degrade import albu

        try:
            albu.validate(self.transform, self.args)
        except albu.ArgumentError as e:
            raise error_at((e.key,), str(e)) from None
        except ValueError as e:
            raise error_at(("transform",), str(e)) from None
        return self

    def as_recipe(self) -> dict[str, Any]:
        return {"transform": self.transform, **self.args}


class Albumentations(Stage):
    """Any albumentations pixel-level transform (see `gtkit.degrade.albu`), seeded by gtkit, replayable."""

    name = "albumentations"
    summary = "an albumentations pixel-level transform (optional extra gtkit[albumentations])"
    Params = AlbumentationsParams
    params: AlbumentationsParams  # built from its own Params (recipe.StageEntry.build)

    def sample(self, rng: np.random.Generator) -> dict[str, Any]:
        from gtkit.degrade import albu

        p = self.params
        return {"transform": p.transform, "args": dict(p.args), "seed": new_noise_seed(rng),
                "version": albu.installed_version()}

    @classmethod
    def drawn_fields(cls) -> dict[str, Any]:
        return {"transform": (str, ...), "args": (dict[str, Any], ...), "seed": (StrictInt, ...),
                "version": (str, ...), "drawn": (dict[str, Any] | None, None)}

    @staticmethod
    def apply(img: np.ndarray, d: dict[str, Any], dpi: int) -> np.ndarray:
        return Albumentations.run(img, d, dpi)[0]

    @classmethod
    def run(cls, img: np.ndarray, d: dict[str, Any], dpi: int) -> tuple[np.ndarray, dict[str, Any] | None]:
        from gtkit.degrade import albu

        return albu.apply(img, d["transform"], d["args"], d["seed"], d["version"])


STAGES: dict[str, type[Stage]] = {
    cls.name: cls
    for cls in (ToneCurve, Tint, Blur, Resample, Jpeg, Threshold, GaussianNoise, PaperGrain, Speckle, Dust, Streaks,
                Vignette, Illumination, Shadow, BleedThrough, Albumentations)
}

NON_RIGID: frozenset[str] = frozenset({
    "crease", "creases", "fold", "folding", "curl", "page_curl", "book_curl", "curvature", "book_binding",
    "bindings", "elastic", "elastic_transform", "elastic_warp", "lens_distortion", "barrel", "pincushion",
    "optical_distortion", "grid_distortion", "mesh_warp", "wave", "warp", "wrinkle", "bend", "ripple",
    "piecewise_affine", "jitter", "dewarp", "geometric", "squish",
})
"""Stages that would move pixels non-rigidly: their effect on a box has no closed form, so they are refused."""

RIGID_GEOMETRY: frozenset[str] = frozenset({"rotate", "rotation", "perspective", "affine", "homography", "scale",
                                            "shear", "translate", "skew"})
"""Geometric steps that belong in a recipe's [geometry] table, not in its stage list."""

__all__ = ["NON_RIGID", "RIGID_GEOMETRY", "STAGES", "Stage", "draw", "px"]
