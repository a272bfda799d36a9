"""Record alignment: pair expected and predicted records to maximize matching cells.

Each record is a row of cells; each cell is a set of integer codes (the normalized
keys it can match: one for a plain value, several for alternate readings or a
two-digit year read both ways). Two cells match when their code sets intersect,
and the weight of a pair of rows is its number of matching cells. The optimal
one-to-one assignment maximizes total weight (equivalently, minimizes mismatched
cells), found by `scipy.optimize.linear_sum_assignment`, in three exact steps:

1. **Peel.** Rows whose cells are all single codes and agree in every column are
   paired by a hash join. This cannot change the optimum: for such a pair (t, p)
   and any other rows t', p', mismatch counts obey the triangle inequality
   d(t', p') <= d(t', p) + d(t, p') column by column (if t' matches p's single
   code a and a is in p', then a is in both t' and p'), so swapping any optimal
   assignment to use (t, p) never loses. Duplicates pair at most once.
2. **Blocks.** The rest is split into connected components of the graph linking
   rows that share a code in some column. Rows in different components share no
   cell, so pairing across components gains nothing: the optimum is the union of
   per-component optima.
3. **Assignment.** Each component is solved densely. Where a component's dense
   matrix would exceed the memory budget, it is solved approximately and the
   result is flagged `approximate`: rows equal in all columns but one are paired
   by hash joins (this catches a shifted column), the rest is sorted by its codes,
   cut into chunks that fit, and each chunk solved exactly.

Pairs with no matching cell are dropped: pairing them or not gives the same cell
counts (their cells miss on both sides either way).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment  # type: ignore[import-untyped]  # scipy-stubs is not a dependency
from scipy.sparse import coo_matrix  # type: ignore[import-untyped]  # scipy-stubs is not a dependency
from scipy.sparse.csgraph import connected_components  # type: ignore[import-untyped]  # scipy-stubs is not a dependency

DEFAULT_MEMORY_BUDGET = 1 << 30  # bytes for one dense block
_BYTES_PER_PAIR = 20  # uint8 weights, bool temporaries, our float64 costs and SciPy's working copy

CellKeys = Hashable  # one key (a tuple), or a frozenset of the keys a cell can match


@dataclass
class Alignment:
    pairs: list[tuple[int, int]]
    approximate: bool = False
    peeled: int = 0
    blocks: list[tuple[int, int]] = field(default_factory=list)  # (truth rows, predicted rows) per solved block


@dataclass
class _Encoded:
    """Per column: single codes (-1 where a row has several) and the several-code rows."""

    t_code: np.ndarray  # (n, C) int64
    p_code: np.ndarray  # (m, C) int64
    t_multi: list[dict[int, frozenset[int]]]
    p_multi: list[dict[int, frozenset[int]]]


def _encode(truth_cols: Sequence[Sequence[CellKeys]], pred_cols: Sequence[Sequence[CellKeys]], n: int,
            m: int) -> _Encoded:
    ncols = len(truth_cols)
    t_code = np.full((n, ncols), -1, dtype=np.int64)
    p_code = np.full((m, ncols), -1, dtype=np.int64)
    t_multi: list[dict[int, frozenset[int]]] = []
    p_multi: list[dict[int, frozenset[int]]] = []
    for c in range(ncols):
        table: dict[Hashable, int] = {}
        for cells, codes, multi in ((truth_cols[c], t_code, {}), (pred_cols[c], p_code, {})):
            for i, keys in enumerate(cells):
                if isinstance(keys, frozenset):
                    if len(keys) != 1:
                        multi[i] = frozenset(table.setdefault(k, len(table)) for k in keys)
                        continue
                    (keys,) = keys
                code = table.get(keys)
                if code is None:
                    code = table[keys] = len(table)
                codes[i, c] = code
            (t_multi if codes is t_code else p_multi).append(multi)
    return _Encoded(t_code, p_code, t_multi, p_multi)


def _peel(enc: _Encoded) -> tuple[list[tuple[int, int]], np.ndarray, np.ndarray]:
    """Hash-join rows with identical single codes; return pairs and the remaining row indices."""
    t_simple = ~np.isin(np.arange(len(enc.t_code)), [i for d in enc.t_multi for i in d])
    p_simple = ~np.isin(np.arange(len(enc.p_code)), [i for d in enc.p_multi for i in d])
    buckets: dict[bytes, deque[int]] = defaultdict(deque)
    for k in np.flatnonzero(p_simple):
        buckets[enc.p_code[k].tobytes()].append(int(k))
    pairs: list[tuple[int, int]] = []
    t_used = np.zeros(len(enc.t_code), dtype=bool)
    p_used = np.zeros(len(enc.p_code), dtype=bool)
    for i in np.flatnonzero(t_simple):
        bucket = buckets.get(enc.t_code[i].tobytes())
        if bucket:
            j = bucket.popleft()  # duplicates pair in reading order
            pairs.append((int(i), j))
            t_used[i] = True
            p_used[j] = True
    return pairs, np.flatnonzero(~t_used), np.flatnonzero(~p_used)


def _components(enc: _Encoded, t_rows: np.ndarray, p_rows: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Connected components of rows linked through a code both sides hold in the same column."""
    n, m = len(t_rows), len(p_rows)
    if n == 0 or m == 0:
        return [(t_rows, p_rows)] if n + m else []
    row_ids, value_ids = [], []
    offset = 0
    for c in range(enc.t_code.shape[1]):
        t_pairs = [(r, code) for r, code in enumerate(enc.t_code[t_rows, c]) if code >= 0]
        t_pairs += [(r, code) for r, i in enumerate(t_rows) for code in enc.t_multi[c].get(int(i), ())]
        p_pairs = [(n + r, code) for r, code in enumerate(enc.p_code[p_rows, c]) if code >= 0]
        p_pairs += [(n + r, code) for r, j in enumerate(p_rows) for code in enc.p_multi[c].get(int(j), ())]
        shared = {code for _, code in t_pairs} & {code for _, code in p_pairs}
        local = {code: k for k, code in enumerate(sorted(shared))}
        for r, code in (*t_pairs, *p_pairs):
            k = local.get(code)
            if k is not None:
                row_ids.append(r)
                value_ids.append(n + m + offset + k)
        offset += len(local)
    size = n + m + offset
    graph = coo_matrix((np.ones(len(row_ids), dtype=np.int8), (row_ids, value_ids)), shape=(size, size))
    count, labels = connected_components(graph, directed=False)
    t_labels, p_labels = labels[:n], labels[n : n + m]
    order_t, order_p = np.argsort(t_labels, kind="stable"), np.argsort(p_labels, kind="stable")
    out = []
    t_split = np.searchsorted(t_labels[order_t], np.arange(count + 1))
    p_split = np.searchsorted(p_labels[order_p], np.arange(count + 1))
    for lab in range(count):
        ti = t_rows[order_t[t_split[lab] : t_split[lab + 1]]]
        pj = p_rows[order_p[p_split[lab] : p_split[lab + 1]]]
        if len(ti) and len(pj):
            out.append((ti, pj))
    return out


def match_counts(enc: _Encoded, ti: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """Matching cells between each truth row in `ti` and each predicted row in `pj` (uint8 matrix)."""
    weights = np.zeros((len(ti), len(pj)), dtype=np.uint8)
    p_pos = {int(j): k for k, j in enumerate(pj)}
    t_pos = {int(i): k for k, i in enumerate(ti)}
    n = len(ti)
    for c in range(enc.t_code.shape[1]):
        tc, pc = enc.t_code[ti, c], enc.p_code[pj, c]
        # rows without a single code get distinct negative codes, so plain equality never pairs them
        tc = np.where(tc >= 0, tc, -1 - np.arange(n))
        pc = np.where(pc >= 0, pc, -1 - n - np.arange(len(pc)))
        hit = np.empty((n, len(pj)), dtype=bool)
        for start in range(0, n, 256):  # row bands: the temporaries stay in cache
            np.equal(tc[start : start + 256, None], pc[None, :], out=hit[start : start + 256])
        t_multi = {t_pos[i]: s for i, s in enc.t_multi[c].items() if i in t_pos}
        p_multi = {p_pos[j]: s for j, s in enc.p_multi[c].items() if j in p_pos}
        if t_multi or p_multi:
            p_having: dict[int, list[int]] = defaultdict(list)
            t_having: dict[int, list[int]] = defaultdict(list)
            for k, code in enumerate(pc):
                if code >= 0:
                    p_having[int(code)].append(k)
            for k, s in p_multi.items():
                for code in s:
                    p_having[code].append(k)
            for k, code in enumerate(tc):
                if code >= 0:
                    t_having[int(code)].append(k)
            for k, s in t_multi.items():
                for code in s:
                    t_having[code].append(k)
            for k, s in t_multi.items():
                for code in s:
                    hit[k, p_having.get(code, [])] = True
            for k, s in p_multi.items():
                for code in s:
                    hit[t_having.get(code, []), k] = True
        weights += hit
    return weights


def _solve_dense(enc: _Encoded, ti: np.ndarray, pj: np.ndarray) -> list[tuple[int, int]]:
    """Exact assignment on one block; the float64 cost matrix is built once, wide side as columns,
    so SciPy neither copies nor transposes it."""
    weights = match_counts(enc, ti, pj)
    ncols = enc.t_code.shape[1]
    if len(ti) <= len(pj):
        cost = np.subtract(ncols, weights, dtype=np.float64)
        rows, cols = linear_sum_assignment(cost)
        t_idx, p_idx = rows, cols
    else:
        cost = np.subtract(ncols, weights.T, dtype=np.float64, order="C")  # C order: SciPy copies any other
        rows, cols = linear_sum_assignment(cost)
        t_idx, p_idx = cols, rows
    del cost
    return [(int(ti[r]), int(pj[c])) for r, c in zip(t_idx, p_idx) if weights[r, c] > 0]


def _greedy_near_duplicates(enc: _Encoded, ti: np.ndarray, pj: np.ndarray) -> list[tuple[int, int]]:
    """Pair rows equal in every column but one (hash join per left-out column), in reading order.

    Catches single wrong cells and a shifted column without a dense matrix; not provably optimal.
    """
    ncols = enc.t_code.shape[1]
    pairs: list[tuple[int, int]] = []
    t_free, p_free = set(map(int, ti)), set(map(int, pj))
    for left_out in range(ncols if ncols > 1 else 0):
        keep = [c for c in range(ncols) if c != left_out]
        buckets: dict[bytes, deque[int]] = defaultdict(deque)
        for j in sorted(p_free):
            row = enc.p_code[j, keep]
            if (row >= 0).all():
                buckets[row.tobytes()].append(j)
        for i in sorted(t_free):
            row = enc.t_code[i, keep]
            bucket = buckets.get(row.tobytes()) if (row >= 0).all() else None
            if bucket:
                j = bucket.popleft()
                pairs.append((i, j))
                t_free.discard(i)
                p_free.discard(j)
    return pairs


def _solve_chunked(enc: _Encoded, ti: np.ndarray, pj: np.ndarray, max_pairs: int) -> list[tuple[int, int]]:
    """Approximate: near-duplicate hash joins first; the rest sorted by codes and solved in chunks that fit."""
    pairs = _greedy_near_duplicates(enc, ti, pj)
    ti = np.setdiff1d(ti, [i for i, _ in pairs])
    pj = np.setdiff1d(pj, [j for _, j in pairs])
    if not len(ti) or not len(pj):
        return pairs
    if len(ti) * len(pj) <= max_pairs:
        return pairs + _solve_dense(enc, ti, pj)
    distinct = [len(np.unique(enc.t_code[ti, c])) for c in range(enc.t_code.shape[1])]
    keys = list(np.argsort(distinct)[::-1])
    order_t = ti[np.lexsort([enc.t_code[ti, c] for c in reversed(keys)])]
    order_p = pj[np.lexsort([enc.p_code[pj, c] for c in reversed(keys)])]
    chunk = max(1, int(np.sqrt(max_pairs)))
    pieces = max(1, -(-max(len(ti), len(pj)) // chunk))
    for a, b in zip(np.array_split(order_t, pieces), np.array_split(order_p, pieces)):
        if len(a) and len(b):
            pairs.extend(_solve_dense(enc, a, b))
    t_left = np.setdiff1d(ti, [i for i, _ in pairs])
    p_left = np.setdiff1d(pj, [j for _, j in pairs])
    if len(t_left) and len(p_left) and len(t_left) * len(p_left) <= max_pairs:
        pairs.extend(_solve_dense(enc, t_left, p_left))
    return pairs


def align_rows(
    truth_cols: Sequence[Sequence[CellKeys]],
    pred_cols: Sequence[Sequence[CellKeys]],
    n_truth: int,
    n_pred: int,
    *,
    memory_budget: int = DEFAULT_MEMORY_BUDGET,
) -> Alignment:
    """Optimal one-to-one pairing of truth rows and predicted rows (see the module docstring).

    `truth_cols[c][i]` is the key of truth row i in column c, or a frozenset of keys where the cell can
    match several (likewise `pred_cols`); cells match when their keys intersect.
    """
    if n_truth == 0 or n_pred == 0:
        return Alignment(pairs=[])
    if not truth_cols:  # records with no scalar cells: any pairing is as good as any other
        return Alignment(pairs=[(i, i) for i in range(min(n_truth, n_pred))])
    enc = _encode(truth_cols, pred_cols, n_truth, n_pred)
    pairs, t_rows, p_rows = _peel(enc)
    result = Alignment(pairs=pairs, peeled=len(pairs))
    max_pairs = max(1, memory_budget // _BYTES_PER_PAIR)
    for ti, pj in _components(enc, t_rows, p_rows):
        result.blocks.append((len(ti), len(pj)))
        if len(ti) * len(pj) <= max_pairs:
            result.pairs.extend(_solve_dense(enc, ti, pj))
        else:
            result.approximate = True
            result.pairs.extend(_solve_chunked(enc, ti, pj, max_pairs))
    result.pairs.sort()
    return result
