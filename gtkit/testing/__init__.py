"""Seeded simulations with known truth, and the measures against that truth, for tests and benchmarks.

Shipped in the wheel so a test suite or a benchmark outside this checkout can import them; no product
module imports `gtkit.testing` (tests/test_layers.py checks it).

    simulate          a consensus workspace of invoices from five systems in three families
    measure           a consensus output measured against `simulate`'s truth
    simulate_strict   the same on a strict schema (balance sheets: required keys, `$defs`, `anyOf`)
    measure_strict    a consensus output measured against `simulate_strict`'s truth
"""
