"""albumentations' pixel-level transforms as a recipe stage (the optional extra `gtkit[albumentations]`).

A recipe names a transform and gives its arguments exactly as albumentations takes them:

    [[stages]]
    stage = "albumentations"
    transform = "ISONoise"
    color_shift = [0.01, 0.05]
    intensity = [0.1, 0.5]

Only transforms that change pixel values are allowed (albumentations' `ImageOnlyTransform`s that keep the
image's size and uint8 type). A spatial transform (crop, affine, elastic, perspective, flips, ...) would move
ink where gtkit's one homography per page cannot follow it, so it is refused by name. albumentations draws
its own values from its own generators; gtkit seeds them with a seed drawn from the stage's Generator
(seed, document, page, stage), records that seed, the installed albumentations version and the values the
transform drew (its replay parameters, arrays left out), so a replay redoes the page byte for byte.
"""

from __future__ import annotations

import json
import os
import warnings
from functools import cache
from typing import Any

import numpy as np

from gtkit.errors import GtkitError

INSTALL_HINT = "pip install 'gtkit[albumentations]' (albumentations 2.0.8, MIT)"


def module() -> Any:
    """albumentations, imported on first use (without its network check for a newer release)."""
    os.environ.setdefault("NO_ALBUMENTATIONS_UPDATE", "1")
    try:
        import albumentations  # type: ignore[import-untyped]  # albumentations ships no py.typed marker
    except ImportError:
        raise ValueError(f"the albumentations stage needs albumentations, which is not installed: {INSTALL_HINT}") \
            from None
    return albumentations


def transform_class(name: str) -> type:
    """The albumentations class called `name`, if it is a pixel-level transform; otherwise a ValueError
    that says why (unknown, spatial, not a transform)."""
    A = module()
    cls = getattr(A, name, None)
    if not isinstance(cls, type) or not issubclass(cls, A.BasicTransform):
        raise ValueError(f"{name!r} is not an albumentations transform")
    if not issubclass(cls, A.ImageOnlyTransform) or cls is A.ImageOnlyTransform:
        raise ValueError(f"{name!r} is a spatial transform (it moves pixels, so boxes would no longer follow "
                         "the page's one homography): refused; put rotation and perspective in [geometry]")
    return cls


def argument_names(cls: type) -> frozenset[str]:
    """The arguments `cls` takes (its pydantic InitSchema), less `p` and `strict`, which gtkit owns."""
    schema = getattr(cls, "InitSchema", None)
    names = set(schema.model_fields) if schema is not None else set()
    return frozenset(names - {"p", "strict"})


def _tupled(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _tupled(x) for k, x in v.items()}
    return tuple(_tupled(x) for x in v) if isinstance(v, list | tuple) else v


def _albu_args(args: dict[str, Any]) -> dict[str, Any]:
    """Recipe values as albumentations takes them: TOML lists become tuples (its ranges are tuples)."""
    return {k: _tupled(v) for k, v in args.items()}


def _frozen(args: dict[str, Any]) -> str:
    """The arguments as a hashable key (canonical JSON)."""
    return json.dumps(args, sort_keys=True)


@cache
def _build(name: str, frozen_args: str) -> Any:
    """A ReplayCompose (it reports what the transform drew) around the transform; built once per process."""
    A = module()
    with warnings.catch_warnings():  # its warnings about replaying data-dependent transforms: probing says more
        warnings.simplefilter("ignore")
        inner = transform_class(name)(**_albu_args(json.loads(frozen_args)), p=1.0)
        return A.ReplayCompose([inner], p=1.0)


def _probe(pipeline: Any, channels: int) -> np.ndarray:
    shape = (24, 32) if channels == 1 else (24, 32, 3)
    img = np.random.default_rng(0).integers(0, 256, shape, dtype=np.uint8)
    pipeline.set_random_seed(0)
    return pipeline(image=img)["image"]


@cache
def needs_rgb(name: str, frozen_args: str) -> bool:
    """Whether the transform must see a 3-channel page (albumentations refuses a gray one for some, such as
    ISONoise or RandomFog); a transform that fails on both, or changes the image's size or type, is refused."""
    pipeline = _build(name, frozen_args)
    for channels in (1, 3):
        try:
            out = _probe(pipeline, channels)
        except Exception as e:  # albumentations raises many kinds; any of them means "not on this image"
            last = e
            continue
        if out.dtype != np.uint8 or out.shape[:2] != (24, 32):
            raise ValueError(f"{name!r} changes the image's size or type ({out.dtype}, {out.shape}): refused")
        return channels == 3
    raise ValueError(f"{name!r} cannot run on a page image: {str(last).splitlines()[0]}")


class ArgumentError(ValueError):
    """A recipe argument albumentations refuses (or does not know): `key` names it."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


def validate(name: str, args: dict[str, Any]) -> None:
    """Refuse an unknown transform, a spatial one, an unknown argument, any argument albumentations itself
    rejects or adjusts with a warning (an `ArgumentError` naming the argument), and a transform that cannot
    run on a page."""
    from pydantic import ValidationError

    cls = transform_class(name)
    known = argument_names(cls)
    for key in args:
        if key not in known:
            raise ArgumentError(key, f"unknown argument of {name} (known: {', '.join(sorted(known)) or 'none'})")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cls(**_albu_args(args), p=1.0)
    except ValueError as e:  # albumentations raises its schema's ValidationError as the cause of a ValueError
        cause = e if isinstance(e, ValidationError) else e.__cause__
        if not isinstance(cause, ValidationError):
            raise ArgumentError("transform", f"{name}: {e}") from None
        err = cause.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else "transform"
        raise ArgumentError(key, f"{name}: {str(err['msg']).removeprefix('Value error, ')}") from None
    if caught:  # albumentations adjusts some arguments with a warning: a recipe says exactly what it means
        text = str(caught[0].message)
        key = text.split(":", 1)[0]
        raise ArgumentError(key if key in known else "transform", f"{name}: {text}")
    needs_rgb(name, _frozen(args))


def installed_version() -> str:
    return str(module().__version__)


def _plain(v: Any) -> Any:
    """A drawn value as JSON (numpy scalars unwrapped, tuples as lists), or None to leave it out."""
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, bool | int | float | str) or v is None:
        return v
    if isinstance(v, list | tuple) and len(v) <= 16:
        items = [_plain(x) for x in v]
        return None if any(x is None and y is not None for x, y in zip(items, v, strict=True)) else items
    return None


def apply(img: np.ndarray, name: str, args: dict[str, Any], seed: int,
          version: str) -> tuple[np.ndarray, dict[str, Any]]:
    """The page through the transform, seeded with `seed`; returns the image and the values it drew.

    A page recorded with another albumentations release is refused: its draws would differ."""
    if installed_version() != version:
        raise GtkitError(f"this page was made with albumentations {version}, but {installed_version()} is "
                         f"installed: the replay would not be byte-identical ({INSTALL_HINT})")
    frozen = _frozen(args)
    pipeline = _build(name, frozen)
    if img.ndim == 2 and needs_rgb(name, frozen):
        img = np.repeat(img[:, :, None], 3, axis=2)
    colour = img.ndim == 3
    pipeline.set_random_seed(seed)
    out = pipeline(image=np.ascontiguousarray(img[:, :, ::-1] if colour else img))  # gtkit's pages are BGR
    drawn = out["replay"]["transforms"][0].get("params") or {}
    recorded = {k: p for k, v in drawn.items() if k != "shape" and (p := _plain(v)) is not None}
    image = out["image"]
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    return np.ascontiguousarray(image[:, :, ::-1]) if image.ndim == 3 else image, recorded
