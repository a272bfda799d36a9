"""Seed derivation: one independent `numpy.random.Generator` per (seed, document, page, stage).

No module-level or global random state exists anywhere in gtkit: every function
that draws takes a Generator, and every Generator comes from here. Keys are
hashed into integers with SHA-256 (not Python's salted `hash`), so the same key
gives the same stream in every process.
"""

from __future__ import annotations

import hashlib

import numpy as np


def _key_words(part: str | int) -> list[int]:
    if isinstance(part, int) and part >= 0:
        return [part & 0xFFFFFFFF, part >> 32 & 0xFFFFFFFF]
    digest = hashlib.sha256(str(part).encode("utf-8")).digest()
    return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]


def seed_sequence(seed: int, *key: str | int) -> np.random.SeedSequence:
    """SeedSequence for `seed` spawned along the path `key` (e.g. doc id, page, stage name)."""
    words: list[int] = []
    for part in key:
        words.extend(_key_words(part))
    return np.random.SeedSequence(entropy=int(seed), spawn_key=tuple(words))


def generator(seed: int, *key: str | int) -> np.random.Generator:
    """A fresh PCG64 Generator for (seed, *key); different keys give independent streams."""
    return np.random.Generator(np.random.PCG64(seed_sequence(seed, *key)))


def derive_seed(seed: int, *key: str | int) -> int:
    """A 63-bit integer seed derived from (seed, *key), for child documents of a dataset.

    The first 64 bits of the key's SeedSequence state, as an exact integer, shifted down by one: every one
    of the 63 bits comes from the state (no float on the way), so the seed is in `0 .. 2**63 - 1`.
    """
    return int(seed_sequence(seed, *key).generate_state(1, np.uint64)[0]) >> 1
