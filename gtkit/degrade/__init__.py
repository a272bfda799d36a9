"""degrade: seeded scan re-captures of any bundle, with boxes moved in closed form.

Layout: `ops` holds the pure image functions, `gtkit.geometry` the homography and box math, `boxes` the
pure move of a ground truth's evidence, `params` the kinds of a stage's parameters (ranges, choices,
colours) and the draw of concrete values, `stages` the stages themselves, `recipe` the TOML recipe model,
`pdfwrite` the deterministic image-only PDF writer, `pipeline` the run (plan, render, write) and its
replay, and `checks` the checks `gtkit check` runs on degraded bundles. Importing this package is cheap
(OpenCV loads on first use).

The package re-exports nothing: import a name from the module that defines it.
"""
