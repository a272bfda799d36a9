"""Scoring: value F1 and grounding F1 of a system's predictions against the ground truth (docs/scoring.md).

- `normalize`: the comparison keys of values (dates, whitespace, leniencies; consensus's comparators too);
- `pairing`: record pairing, the optimal assignment of predicted records to expected ones;
- `truth`: a document's ground truth as the scorer holds it;
- `engine`: one document's score (the walk over the schema and its counts);
- `predictions`: reading a system's output and its citations;
- `report`: means, slices and clean/degraded pairs over many documents;
- `explain`: one line per cell, its outcome and why;
- `run`: `score_path`, a prediction folder against a bundle or a dataset (the one module that imports a view).

The package re-exports nothing: import from the module that defines a name.
"""
