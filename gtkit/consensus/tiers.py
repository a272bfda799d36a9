"""Tiers: how much of the family weight backs a cell's top value, and whether the cell waits for a person.

`decide` weighs a cell's votes (family weights, `votes.Voters`) and sets its tier, top value and
candidates (plurality first; each candidate's raw value is the most common raw form among its
votes). `unanimous`: every vote is the same non-null value; `all_null`: every vote is null;
`majority`: the top value holds more than half the family weight; `split`: plurality only. A null
majority over a real minority value is flagged `null_over_value`. `settle` makes a cell pending
(queued) or agreed once its cause is known (`causes`), under the promotion rule: `unanimous` (default)
promotes only unanimous and all-null cells, `majority` also a clear majority that is neither schema
ambiguity nor null over a value.
"""

from __future__ import annotations

import json
from typing import Any

from gtkit.consensus.cells import (
    ALL_NULL,
    MAJORITY,
    PROMOTE_UNANIMOUS,
    SCHEMA_AMBIGUITY,
    SPLIT,
    UNANIMOUS,
    Cell,
)
from gtkit.consensus.votes import EPS, HASHABLE, INVALID, NULL, Voters


def decide(cell: Cell, voters: Voters) -> None:
    """Tier, top value and candidates of a cell from its family-weighted votes."""
    keys = list(cell.keys.values())
    first = keys[0]
    if first != INVALID and keys.count(first) == len(keys):
        _unanimous(cell, voters, first)
    else:
        _weighed(cell, voters)


def _unanimous(cell: Cell, voters: Voters, key: tuple) -> None:
    """Every system gave the same vote: `unanimous` or `all_null` (queued as `split` in a tied row)."""
    cell.top = key
    cell.tier = ALL_NULL if key == NULL else UNANIMOUS
    if key != NULL:
        raws = [v for v, _ in cell.votes.values()]
        cell.value = raws[0] if _same_scalar(raws) else _representative_raw(cell, key, voters.systems)
    cell.weights = {key: float(voters.n_families)}
    cell.candidates = [(key, cell.value)]
    if cell.forced:
        cell.pending = True
        cell.tier = SPLIT


def _weighed(cell: Cell, voters: Voters) -> None:
    """Votes that differ: candidates ranked by family weight, then by votes, non-null first, then first seen."""
    weight: dict[tuple, float] = {}
    count: dict[tuple, int] = {}
    seen: dict[tuple, int] = {}
    for i, s in enumerate(voters.systems):
        k = cell.keys.get(s)
        if k is None:
            continue
        weight[k] = weight.get(k, 0.0) + voters.weight[s]
        count[k] = count.get(k, 0) + 1
        seen.setdefault(k, i)
    cell.weights = weight
    ranked = sorted((k for k in weight if k != INVALID), key=lambda k: (-weight[k], -count[k], k == NULL, seen[k]))
    top = ranked[0] if ranked else NULL
    cell.top = top
    cell.candidates = [(k, None if k == NULL else _representative_raw(cell, k, voters.systems)) for k in ranked] \
        or [(NULL, None)]
    cell.value = cell.candidates[0][1]
    if weight.get(top, 0.0) * 2 > voters.n_families + EPS and not cell.forced:
        cell.tier = MAJORITY
        cell.null_over_value = top == NULL and any(k not in (NULL, INVALID) for k in cell.keys.values())
    else:
        cell.tier = SPLIT


def _same_scalar(raws: list[Any]) -> bool:
    """Every raw value is the same scalar, of the same type."""
    r0 = raws[0]
    t0 = type(r0)
    if t0 not in HASHABLE:
        return False
    return all(type(r) is t0 and r == r0 for r in raws)


def _form(raw: Any) -> Any:
    if raw is None or isinstance(raw, (str, int, float, bool)):
        return (type(raw).__name__, raw)
    return json.dumps(raw, sort_keys=True)


def _representative_raw(cell: Cell, key: tuple, order: list[str]) -> Any:
    """The most common raw form among the votes for `key` (first system in order on ties)."""
    raws = [cell.votes[s][0] for s in order if cell.keys.get(s) == key]
    if len(raws) == 1:
        return raws[0]
    forms = [_form(r) for r in raws]
    if all(f == forms[0] for f in forms):
        return raws[0]
    counts: dict[Any, int] = {}
    for f in forms:
        counts[f] = counts.get(f, 0) + 1
    best = max(counts.values())
    return next(r for r, f in zip(raws, forms) if counts[f] == best)


def settle(cell: Cell, promote: str = PROMOTE_UNANIMOUS) -> None:
    """Pending or agreed under the promotion rule. Under both rules split, null over a value, schema ambiguity
    (a required blank included) and forced (tied rows) are queued; under `unanimous` (the default) every
    contested cell is: only a cell every voting system agrees on (tier unanimous or all_null) is promoted."""
    cell.pending = (cell.tier == SPLIT or cell.null_over_value or cell.cause == SCHEMA_AMBIGUITY or cell.forced
                    or cell.blank_required or (promote == PROMOTE_UNANIMOUS and cell.contested))
