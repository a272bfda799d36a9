"""`gtkit.rng.derive_seed`: the 63-bit seeds of a dataset's child documents, computed exactly in integers."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gtkit.rng import derive_seed

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)
# a key part is an integer of at most 64 bits (a count, an index) or a name
PARTS = st.one_of(st.integers(min_value=0, max_value=2**64 - 1), st.text(max_size=12))
KEYS = st.lists(PARTS, max_size=4).map(tuple)


@given(SEEDS, KEYS)
def test_a_derived_seed_is_a_63_bit_integer_and_always_the_same(seed, key):
    value = derive_seed(seed, *key)
    assert type(value) is int
    assert 0 <= value < 2**63
    assert derive_seed(seed, *key) == value


@given(st.lists(st.tuples(SEEDS, KEYS), min_size=2, max_size=50, unique=True))
def test_distinct_inputs_give_distinct_seeds(inputs):
    values = [derive_seed(seed, *key) for seed, key in inputs]
    assert len(set(values)) == len(values)


def test_all_63_bits_are_used():
    """A float64 on the way would leave the low bits of every large seed zero."""
    values = [derive_seed(7, "synth", "creditor_matrix", k) for k in range(256)]
    assert any(v > 2**53 for v in values)
    combined = 0
    for v in values:
        combined |= v
    assert combined == 2**63 - 1, "some bit of the 63 is never set"


def test_the_derivation_is_pinned():
    """Dataset bytes depend on these values: a change here is a format-visible change (docs/format.md)."""
    assert derive_seed(7, "synth", "creditor_matrix", 0) == 633905564156439665
    assert derive_seed(7, "build", "creditor_matrix", 12, 1) == 2462116639921884703
