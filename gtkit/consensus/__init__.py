"""The consensus pipeline (docs/consensus.md): ground truth for real documents from independent systems.

`run.run_consensus` writes candidate bundles, the adjudication queue and the report;
`adjudicate.adjudicate` takes a person's decisions back in with an append-only audit
trail; `audit.audit` hunts cells of an existing truth that many systems miss.
Seeded ensembles with known truth, and their measures, live in `gtkit.testing`.

One document's consensus, in the order it is computed:

    inputs     systems.toml, runs, citations, documents, the frozen schema hash
    votes      who votes with what weight; a value as a vote key; vote failures (refused by the validator)
    walk       every system's output descended against the schema together, a Cell per leaf
    align      rows of arrays of records clustered across systems
    writable   rows (or the document) `expected` cannot hold withheld, so every bundle passes `gtkit check`
    tiers      unanimous, majority, split, all_null; pending or agreed (settle)
    causes     why a cell is contested, and the field-level ambiguity pass
    bundles    field entries, evidence (evidence.py), queue and drawing items for the bundle writer
    report     report.json, report.md, the re-score
    model      `Consensus`: everything computed, before it is written
    filenames  the files beside the bundles: queue.jsonl, draw.jsonl, report.json, report.md, audit.jsonl
    run        compute and write, in that order
"""
