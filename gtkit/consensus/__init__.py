"""The consensus pipeline (docs/consensus.md): ground truth for real documents from independent systems.

`build.run_consensus` writes candidate bundles, the adjudication queue and the report;
`adjudicate.adjudicate` takes a person's decisions back in with an append-only audit
trail; `audit.audit` hunts cells of an existing truth that many systems miss;
`simulate` builds a seeded ensemble with known truth for tests and measurements.
"""
