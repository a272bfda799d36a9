"""Every pipeline's check, by the name a bundle's `provenance.pipeline` gives: the table `gtkit check` passes to
the core check (`gtkit.check`), which imports no pipeline itself.

This module sits above the pipelines, beside `gtkit.build`: it imports all three. A new pipeline adds its check
here; a caller that wants fewer checks (or a test, a stricter one) passes its own table instead.
"""

from __future__ import annotations

from gtkit.check import PipelineChecks
from gtkit.consensus.checks import check_consensus_bundle
from gtkit.degrade.checks import check_degraded
from gtkit.synth.check import check_synth_bundle

CHECKS: PipelineChecks = {
    "synth": check_synth_bundle,
    "degrade": check_degraded,
    "consensus": check_consensus_bundle,
}

CHECK_PRELOAD = ("gtkit.check", __name__)
"""What the workers of a pool made for `gtkit check` import once, in the fork server: the core check and every
pipeline's, so no worker pays for them again."""

__all__ = ["CHECKS", "CHECK_PRELOAD"]
