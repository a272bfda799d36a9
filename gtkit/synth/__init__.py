"""synth: data-first synthetic long lists with exact page and word boxes by construction.

Families live under families/ (see `gtkit.synth.family`); `gtkit.synth.pipeline.synth`
makes bundles and datasets; `gtkit.synth.check` is the check `gtkit check` runs on
every bundle whose provenance says `pipeline: synth`.

The package re-exports nothing: import a name from the module that defines it.
"""
