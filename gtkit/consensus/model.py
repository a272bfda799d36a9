"""`Consensus`: everything a consensus run computed, before it is written.

`run.compute` fills it from the inputs; `bundles` (each document's outputs), `report` (report.json,
report.md, the re-score) and `run.write_consensus` read it. It imports only the modules of the data it
holds, so each of those can import it and `run` imports them all, one way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gtkit.consensus.cells import PROMOTE_UNANIMOUS, DocResult
from gtkit.consensus.inputs import DocInfo, Inputs, Systems


@dataclass
class Consensus:
    """Everything a consensus run computed, before it is written."""

    schema: dict[str, Any]
    schema_sha256: str
    systems: Systems
    inputs: Inputs
    citing: str | None
    results: list[DocResult]
    infos: dict[str, DocInfo]
    citations: dict[str, dict[str, dict[str, list[dict[str, Any]]]]]   # doc -> system -> pointer -> entries
    dropped_citations: dict[str, int] = field(default_factory=dict)
    missing_runs: list[tuple[str, str]] = field(default_factory=list)   # (system, doc)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)   # doc -> system -> run (for the re-score)
    field_ambiguity: dict[str, str] = field(default_factory=dict)      # field -> fix kind
    promote: str = PROMOTE_UNANIMOUS   # the promotion rule (`cells.PROMOTE_RULES`)
