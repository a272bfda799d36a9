"""Every pipeline's check, by the name a bundle's `provenance.pipeline` gives: the table `gtkit check` passes to
the core check (`gtkit.check`), which imports no pipeline itself.

This module sits above the pipelines, beside `gtkit.builder`: it imports all three. A new pipeline adds its check
here; a caller that wants fewer checks (or a test, a stricter one) passes its own table instead.
"""

from __future__ import annotations

from pathlib import Path

from gtkit.check import PipelineChecks, check_path
from gtkit.consensus.checks import check_consensus_bundle
from gtkit.degrade.checks import check_degraded
from gtkit.errors import Problem
from gtkit.synth.check import check_synth_bundle

CHECKS: PipelineChecks = {
    "synth": check_synth_bundle,
    "degrade": check_degraded,
    "consensus": check_consensus_bundle,
}

CHECK_PRELOAD = ("gtkit.check", __name__)
"""What the workers of a pool made for `gtkit check` import once, in the fork server: the core check and every
pipeline's, so no worker pays for them again."""



def check_all(path: Path, *, workers: int = 1) -> tuple[int, list[Problem]]:
    """(bundles checked, problems) of a bundle or dataset with every pipeline's own check: what `gtkit check`
    finds (the library's front door, `gtkit.check_path`)."""
    return check_path(Path(path), CHECKS, workers=workers)


__all__ = ["CHECKS", "CHECK_PRELOAD", "check_all"]
