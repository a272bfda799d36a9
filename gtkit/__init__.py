"""gtkit: ground truth for schema-guided document-extraction benchmarks.

The library's front door. Each name is loaded on first use, so `import gtkit` costs nothing:

    synthesize(family, out=..., seed=..., records=..., docs=...)   a synthetic bundle, or a dataset of them
    degrade_bundle(source, out, recipe=..., seed=...)              a bundle (or dataset) re-captured as a scan
    run_consensus(schema, docs, runs, systems, out)                candidate truth from several systems' outputs
    score_path(gt, pred_dir)                                       a prediction folder scored against the truth
    check_path(path)                                               every problem of a bundle or dataset (gtkit check)
    read_bundle(path)                                              a bundle's PDF, schema and ground truth

The verbs are not called `synth`, `degrade`, `consensus` or `check`: those are gtkit's subpackages and module,
whose names Python binds on this package once they are imported.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_FRONT_DOOR = {
    "synthesize": ("gtkit.synth.pipeline", "synth"),
    "degrade_bundle": ("gtkit.degrade.pipeline", "degrade"),
    "run_consensus": ("gtkit.consensus.run", "run_consensus"),
    "score_path": ("gtkit.scoring.run", "score_path"),
    "check_path": ("gtkit.pipelines", "check_all"),
    "read_bundle": ("gtkit.format.bundle", "read_bundle"),
}
__all__ = ["__version__", *_FRONT_DOOR]


def __getattr__(name: str) -> Any:
    if name not in _FRONT_DOOR:
        raise AttributeError(f"module 'gtkit' has no attribute {name!r}")
    module, attribute = _FRONT_DOOR[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # found once, then an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_FRONT_DOOR])
