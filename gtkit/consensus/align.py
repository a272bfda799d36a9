"""Row alignment: the rows of every system's array of records clustered into consensus rows.

A cluster maps each system to at most one of its rows (by index); each cluster becomes one row of
`expected`, or a vote for an extra record when only a minority of the family weight backs it.

1. Rows join a cluster by identity key (the vote keys of the `x-identity` fields, never the list
   position): each system's row goes to the first cluster with its key that lacks that system; a
   second row with the same key (a duplicate) or a row without a key starts its own cluster.
   Without `x-identity` the whole row is the key, so identical rows pair up first.
2. Fallback: a cluster backed by one family only (a misread or missing key, a duplicate, a row the
   others do not have) is paired with a cluster of other families that shares none of its systems,
   by an optimal assignment over all the row's fields (a pair is kept only when at most half of them
   disagree), and merged into it. What stays unpaired is a vote for an extra record.
3. Clusters are ordered by the mean relative position of their rows in their systems' lists.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]  # scipy has no type hints; scipy-stubs is no dependency

from gtkit.consensus.votes import NULL, VoteKeys
from gtkit.schema import Node

MAX_ASSIGN_PAIRS = 10_000_000   # weak clusters x candidate clusters in one assignment; larger is chunked


@dataclass
class _Clusters:
    members: list[dict[str, int]] = field(default_factory=list)    # system -> row index
    row_keys: list[list[tuple]] = field(default_factory=list)      # the members' vote keys, for representatives
    alive: list[bool] = field(default_factory=list)

    def add(self, system: str, row: int, keys: tuple) -> int:
        self.members.append({system: row})
        self.row_keys.append([keys])
        self.alive.append(True)
        return len(self.members) - 1

    def merge(self, source: int, target: int) -> None:
        self.members[target].update(self.members[source])
        self.row_keys[target].extend(self.row_keys[source])
        self.alive[source] = False


def align_clusters(item: Node, identity: tuple[str, ...], rows_by_system: dict[str, list], order: list[str],
                   keys: VoteKeys, family: dict[str, str]) -> tuple[list[dict[str, int]], int]:
    """Consensus rows (system -> row index), in list order, and how many rows were aligned by fallback."""
    props = [(name, sub) for name, sub in item.props.items() if sub.kind in ("scalar", "scalar_list")]
    names = [n for n, _ in props]
    id_idx = [names.index(k) for k in identity if k in names]
    clusters = _by_identity(props, id_idx, rows_by_system, order, keys)
    fallback = _merge_single_family(clusters, order, family, len(props)) if props else 0
    alive = [c for c, ok in zip(clusters.members, clusters.alive) if ok]
    lens = {s: max(1, len(rows_by_system.get(s) or [])) for s in order}
    pos = [sum(j / lens[s] for s, j in c.items()) / len(c) for c in alive]
    return [alive[c] for c in sorted(range(len(alive)), key=lambda c: (pos[c], c))], fallback


def _by_identity(props: list[tuple[str, Node]], id_idx: list[int], rows_by_system: dict[str, list],
                 order: list[str], keys: VoteKeys) -> _Clusters:
    """Step 1: rows clustered by identity key."""
    clusters = _Clusters()
    by_key: dict[tuple, list[int]] = {}
    for s in order:
        for j, row in enumerate(rows_by_system.get(s) or []):
            rk = keys.row(row, props)
            ids = tuple(rk[i] for i in id_idx) if id_idx else rk
            idk: tuple | None = None if id_idx and all(k == NULL for k in ids) else ids
            target = None
            if idk is not None:
                target = next((c for c in by_key.get(idk, ()) if s not in clusters.members[c]), None)
            if target is None:
                c = clusters.add(s, j, rk)
                if idk is not None:
                    by_key.setdefault(idk, []).append(c)
            else:
                clusters.members[target][s] = j
                clusters.row_keys[target].append(rk)
    return clusters


def _merge_single_family(clusters: _Clusters, order: list[str], family: dict[str, str], nf: int) -> int:
    """Step 2: each family's clusters merged into clusters of other families by optimal assignment;
    returns how many rows were merged."""
    fallback = 0
    bit = {x: 1 << i for i, x in enumerate(order)}
    members, alive = clusters.members, clusters.alive
    for fam in dict.fromkeys(family[s] for s in order):
        fam_sys = {s for s in order if family[s] == fam}
        weak = [c for c in range(len(members)) if alive[c] and all(family[s] == fam for s in members[c])]
        targets = [c for c in range(len(members)) if alive[c] and any(family[s] != fam for s in members[c])
                   and not fam_sys <= members[c].keys()]
        if not weak or not targets:
            continue
        step = max(1, MAX_ASSIGN_PAIRS // len(targets))
        for lo in range(0, len(weak), step):
            chunk = [w for w in weak[lo:lo + step] if alive[w]]
            open_t = [t for t in targets if alive[t]]
            if not chunk or not open_t:
                break
            wmask = np.array([sum(bit[x] for x in members[w]) for w in chunk], dtype=np.int64)
            tmask = np.array([sum(bit[x] for x in members[t]) for t in open_t], dtype=np.int64)
            forbid = (wmask[:, None] & tmask[None, :]) != 0   # would pair a system with itself
            pairs = _assign([_representative(clusters.row_keys[w]) for w in chunk],
                            [_representative(clusters.row_keys[t]) for t in open_t], nf, forbid)
            for a, b in pairs:
                clusters.merge(chunk[a], open_t[b])
                fallback += len(members[chunk[a]])
    return fallback


def _representative(keys: list[tuple]) -> tuple:
    """The most common key of each field among a cluster's rows."""
    if len(keys) == 1:
        return keys[0]
    return tuple(Counter(col).most_common(1)[0][0] for col in zip(*keys))


def _assign(left: list[tuple], right: list[tuple], nf: int, forbid: np.ndarray) -> list[tuple[int, int]]:
    """Optimal pairing of weak clusters with candidate clusters by mismatched fields (at most half may differ)."""
    n, m = len(left), len(right)
    cost = np.zeros((n, m), dtype=np.int16)
    for f in range(nf):
        ids: dict[tuple, int] = {}
        a = np.fromiter((ids.setdefault(r[f], len(ids)) for r in left), dtype=np.int64, count=n)
        b = np.fromiter((ids.setdefault(r[f], len(ids)) for r in right), dtype=np.int64, count=m)
        cost += a[:, None] != b[None, :]
    limit = nf // 2
    cost[forbid] = nf + 1
    if not (cost <= limit).any():
        return []
    big = np.where(cost <= limit, cost, nf + 1)
    rows, cols = linear_sum_assignment(big)
    return [(int(r), int(c)) for r, c in zip(rows, cols) if cost[r, c] <= limit]
