"""synth: data-first synthetic long lists with exact page and word boxes by construction.

Families live under families/ (see `gtkit.synth.family`); `gtkit.synth.pipeline.synth`
makes bundles and datasets. Importing this package registers the synth check that
`gtkit check` runs on every bundle whose provenance says `pipeline: synth`.
"""

from __future__ import annotations

from gtkit.check import register_pipeline_check


def _check(bundle):  # imported lazily so `import gtkit.synth` stays cheap
    from gtkit.synth.check import check_synth_bundle

    return check_synth_bundle(bundle)


register_pipeline_check("synth", _check)

__all__ = ["synth", "render_only", "all_families", "get_family"]


def __getattr__(name: str):
    if name in ("synth", "render_only", "generate_expected", "build_document"):
        from gtkit.synth import pipeline

        return getattr(pipeline, name)
    if name in ("all_families", "get_family", "family_names"):
        from gtkit.synth import family

        return getattr(family, name)
    raise AttributeError(name)
