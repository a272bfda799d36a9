"""synth: data-first synthetic long lists with exact page and word boxes by construction.

Families live under families/ (see `gtkit.synth.family`); `gtkit.synth.pipeline.synth`
makes bundles and datasets; `gtkit.synth.check` is the check `gtkit check` runs on
every bundle whose provenance says `pipeline: synth`.
"""

from __future__ import annotations

__all__ = ["all_families", "get_family", "render_only", "synth"]


def __getattr__(name: str):
    if name in ("synth", "render_only", "generate_expected", "build_document"):
        from gtkit.synth import pipeline

        return getattr(pipeline, name)
    if name in ("all_families", "get_family", "family_names"):
        from gtkit.synth import family

        return getattr(family, name)
    raise AttributeError(name)
