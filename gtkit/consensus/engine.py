"""The consensus engine for one document: votes, row alignment, tiers, causes.

Every system's output is walked against the compiled schema. Objects descend by
property (a missing key is a null vote, never an abstention); arrays of records
are aligned across systems into row clusters (`align_clusters`) and each cluster
descends with one row per system; each leaf becomes a `Cell` holding every
system's vote normalized by the field's `x-comparator`. A value of the wrong type
for the schema is a vote failure: it counts in the pool but backs no value.

Families vote, not systems: each family weighs 1, shared equally by its systems
in the pool, so two copies of one model cannot outvote a third and a family that
splits splits its weight. Tiers: `unanimous`, `all_null`, `majority` (the top
value holds more than half the family weight), `split` (plurality only). A null
majority over a real minority value is flagged `null_over_value` and queued.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

from gtkit.normalize import canonical_string, collapse_ws, comparator_key, is_day_month_ambiguous
from gtkit.schema import Node, escape_token, guess_node

NULL = ("null",)
INVALID = ("invalid",)
EPS = 1e-9

UNANIMOUS, MAJORITY, SPLIT, ALL_NULL = "unanimous", "majority", "split", "all_null"
TIERS = (UNANIMOUS, MAJORITY, SPLIT, ALL_NULL)
SCHEMA_AMBIGUITY, MODEL_FAILURE, UNRESOLVABLE = "schema_ambiguity", "model_failure", "unresolvable"
CAUSES = (SCHEMA_AMBIGUITY, MODEL_FAILURE, UNRESOLVABLE)
ALIAS, FORMAT, LOCATION, DO_NOT_CONFUSE = "alias", "format requirement", "location hint", "do-not-confuse"
FIXES = (ALIAS, FORMAT, LOCATION, DO_NOT_CONFUSE)


@dataclass
class Pool:
    """The systems that ran on one document, their families and vote weights."""

    systems: list[str]
    family: dict[str, str]

    def __post_init__(self) -> None:
        per_family = Counter(self.family[s] for s in self.systems)
        self.weight = {s: 1.0 / per_family[self.family[s]] for s in self.systems}
        self.n_families = len(per_family)


class Cell:
    """One leaf of the consensus: every system's vote and the decision."""

    __slots__ = ("pointer", "field", "node", "keys", "votes", "forced", "tier", "top", "value",
                 "weights", "null_over_value", "cause", "fix", "pending", "candidates")

    def __init__(self, pointer: str, field_: str, node: Node, keys: dict, votes: dict, forced: bool):
        self.pointer, self.field, self.node = pointer, field_, node
        self.keys, self.votes, self.forced = keys, votes, forced
        self.tier = ""
        self.top: tuple = NULL
        self.value: Any = None
        self.weights: dict[tuple, float] = {}
        self.null_over_value = False
        self.cause: str | None = None
        self.fix: str | None = None
        self.pending = False
        self.candidates: list[tuple[tuple, Any]] = []  # (key, representative raw), best first

    @property
    def raws(self) -> dict[str, Any]:
        """Each system's raw vote."""
        return {s: v for s, (v, _) in self.votes.items()}

    @property
    def ptrs(self) -> dict[str, str | None]:
        """Each system's own JSON Pointer for this cell (None where its row is absent)."""
        return {s: own for s, (_, own) in self.votes.items()}

    def own(self, system: str) -> str | None:
        vote = self.votes.get(system)
        return vote[1] if vote else None

    @property
    def contested(self) -> bool:
        return self.tier not in (UNANIMOUS, ALL_NULL)


@dataclass
class ExtraRecord:
    """A row only a minority of the family weight has: a vote for an extra record, queued."""

    pointer: str        # "<array pointer>/+k"
    field: str
    members: dict[str, tuple[Any, str]]   # system -> (row, its own pointer)
    weight: float
    families: list[str]
    cause: str = MODEL_FAILURE
    fix: str | None = None


@dataclass
class Failure:
    system: str
    pointer: str        # the system's own pointer
    message: str


@dataclass
class DocResult:
    doc_id: str
    pool: Pool
    expected: Any
    cells: list[Cell]
    extras: list[ExtraRecord] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    rows_fallback: int = 0   # rows aligned by their other fields (key missing or misread)


# --- type checks (vote failures) ---------------------------------------------------------

_JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _scalar_ok(value: Any, schema: dict[str, Any]) -> str | None:
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a JSON number"
    if isinstance(value, (dict, list)):
        return f"expected a scalar, got {'an object' if isinstance(value, dict) else 'a list'}"
    t = schema.get("type")
    types = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    checks = [_JSON_TYPES[x] for x in types if x in _JSON_TYPES]
    if types and not any(c(value) for c in checks):
        return f"expected {' or '.join(types)}, got {type(value).__name__} {json.dumps(value)[:40]}"
    enum = schema.get("enum")
    if isinstance(enum, list) and value not in enum:
        return f"{json.dumps(value)[:40]} is not one of the enum values"
    return None


_HASHABLE = (str, int, float, bool, type(None))


_PY_TYPES = {"string": (str,), "boolean": (bool,), "number": (int, float), "integer": (int,), "null": (type(None),)}


def fast_types(node: Node) -> frozenset[type]:
    """Python types that surely pass `type_problem` for this leaf (a shortcut; others take the full check)."""
    if node.kind != "scalar" or "enum" in node.schema:
        return frozenset({type(None)})
    t = node.schema.get("type")
    names = [t] if isinstance(t, str) else t if isinstance(t, list) else []
    out = {type(None)}
    for n in names:
        out.update(_PY_TYPES.get(n, ()))
    return frozenset(out)


def type_problem(value: Any, node: Node) -> str | None:
    """Why `value` cannot be a vote for this leaf (None when it can; null always can)."""
    if value is None:
        return None
    if node.kind == "scalar_list":
        if not isinstance(value, list):
            return f"expected a list, got {type(value).__name__}"
        items = node.schema.get("items")
        for v in value:
            if v is None:
                continue
            p = _scalar_ok(v, items if isinstance(items, dict) else {})
            if p:
                return "list item: " + p
        return None
    return _scalar_ok(value, node.schema)


# --- loose keys: do two values differ only in format? -------------------------------------

_NUM = re.compile(r"^\(?\s*[-+]?\s*[$€£¥]?\s*[-+]?[\d,' ]*\.?\d+\s*\)?$")
_NUMERIC_DATE = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})")


def _iso(y: int, m: int, d: int) -> str | None:
    if y < 100:
        y += 2000 if y < 69 else 1900
    try:
        return dt.date(y, m, d).isoformat()
    except ValueError:
        return None


def loose_keys(raw: Any) -> frozenset[tuple]:
    """Every form a value could be read as, ignoring format: numbers, both day/month orders, bare text."""
    if type(raw) in _HASHABLE:
        return _loose_cached(type(raw), raw)
    return frozenset(_loose(raw))


@lru_cache(maxsize=1 << 16)
def _loose_cached(_type: type, raw: Any) -> frozenset[tuple]:
    return frozenset(_loose(raw))


def _loose(raw: Any) -> set[tuple]:
    if raw is None:
        return set()
    if isinstance(raw, bool):
        return {("b", raw)}
    if isinstance(raw, (int, float)):
        return {("n", float(raw))}
    if isinstance(raw, list):
        return {("l", json.dumps(raw, sort_keys=True))}
    s = collapse_ws(str(raw))
    out: set[tuple] = set()
    if _NUM.match(s) and any(c.isdigit() for c in s):
        digits = re.sub(r"[^\d.]", "", s)
        try:
            num = float(digits)
            out.add(("n", -num if ("-" in s or s.startswith("(")) else num))
        except ValueError:
            pass
    m = _NUMERIC_DATE.fullmatch(s)
    if m:
        a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
        for iso in (_iso(y, a, b), _iso(y, b, a)):
            if iso:
                out.add(("d", iso))
    else:
        c = canonical_string(s)
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", c):
            out.add(("d", c))
    text = re.sub(r"[\W_]+", "", s.casefold())
    if text:
        out.add(("t", text))
    return out


def key_json(key: tuple) -> Any:
    """A normalized vote as plain JSON (for the queue)."""
    tag = key[0]
    if tag == "null":
        return None
    if tag == "invalid":
        return {"invalid": True}
    if tag == "l":
        return [key_json(k) for k in key[1]]
    if tag in ("s", "n", "b"):
        return key[1]
    return repr(key)


# --- alignment of record rows across systems ----------------------------------------------


def _leaf_props(item: Node) -> list[tuple[str, Node]]:
    return [(name, sub) for name, sub in item.props.items() if sub.kind in ("scalar", "scalar_list")]


def _row_keys(row: Any, props: list[tuple[str, Node]], cache: dict[tuple, tuple]) -> tuple:
    if not isinstance(row, dict):
        return tuple(NULL for _ in props)
    out = []
    for name, sub in props:
        v = row.get(name)
        if type(v) in _HASHABLE:
            ck = (type(v), v, sub.comparator)
            k = cache.get(ck)
            if k is None:
                k = cache[ck] = comparator_key(v, sub.comparator)
            out.append(k)
            continue
        try:
            out.append(comparator_key(v, sub.comparator))
        except TypeError:
            out.append(INVALID)
    return tuple(out)


MAX_ASSIGN_PAIRS = 10_000_000   # weak clusters x candidate clusters in one assignment; larger is chunked


def align_clusters(item: Node, identity: tuple[str, ...], rows_by_system: dict[str, list[Any]],
                   order: list[str], cache: dict[tuple, tuple] | None = None,
                   family: dict[str, str] | None = None) -> tuple[list[dict[str, int]], int]:
    """Cluster rows of every system into consensus rows (system -> row index), and the fallback count.

    1. Rows join a cluster by identity key (normalized key values, never list position): each
       system's row goes to the first cluster with its key that lacks that system; a second
       row with the same key (a duplicate) or a row without a key starts its own cluster.
       Without `x-identity` the whole row is the key, so identical rows pair up first.
    2. Fallback: a cluster backed by one family only (a misread or missing key, a duplicate, a
       row the others do not have) is paired with a cluster of other families that shares none
       of its systems, by an optimal assignment over all the row's fields (a pair is kept only
       when at most half of them disagree), and merged into it. What stays unpaired is a vote
       for an extra record.
    """
    props = _leaf_props(item)
    cache = {} if cache is None else cache
    family = family or {s: s for s in order}
    names = [n for n, _ in props]
    id_idx = [names.index(k) for k in identity if k in names]
    clusters: list[dict[str, int]] = []
    cluster_keys: list[list[tuple]] = []   # member row keys, for representatives
    key_index: dict[tuple, list[int]] = {}
    nf = len(props)
    for s in order:
        rows = rows_by_system.get(s) or []
        for j, row in enumerate(rows):
            rk = _row_keys(row, props, cache)
            idk: tuple | None = tuple(rk[i] for i in id_idx) if id_idx else rk
            if id_idx and all(k == NULL for k in idk):
                idk = None
            target = None
            if idk is not None:
                for c in key_index.get(idk, ()):
                    if s not in clusters[c]:
                        target = c
                        break
            if target is None:
                clusters.append({s: j})
                cluster_keys.append([rk])
                if idk is not None:
                    key_index.setdefault(idk, []).append(len(clusters) - 1)
            else:
                clusters[target][s] = j
                cluster_keys[target].append(rk)
    fallback = 0
    if nf:
        alive = [True] * len(clusters)
        bit = {x: 1 << i for i, x in enumerate(order)}
        fams_in_order = list(dict.fromkeys(family[s] for s in order))
        for fam in fams_in_order:
            fam_sys = {s for s in order if family[s] == fam}
            weak = [c for c in range(len(clusters))
                    if alive[c] and all(family[s] == fam for s in clusters[c])]
            if not weak:
                continue
            targets = [c for c in range(len(clusters))
                       if alive[c] and any(family[s] != fam for s in clusters[c])
                       and not fam_sys <= clusters[c].keys()]
            if not targets:
                continue
            step = max(1, MAX_ASSIGN_PAIRS // len(targets))
            for lo in range(0, len(weak), step):
                chunk = [w for w in weak[lo:lo + step] if alive[w]]
                open_t = [t for t in targets if alive[t]]
                if not chunk or not open_t:
                    break
                wmask = np.array([sum(bit[x] for x in clusters[w]) for w in chunk], dtype=np.int64)
                tmask = np.array([sum(bit[x] for x in clusters[t]) for t in open_t], dtype=np.int64)
                forbid = (wmask[:, None] & tmask[None, :]) != 0   # would pair a system with itself
                pairs = _assign([_representative(cluster_keys[w]) for w in chunk],
                                [_representative(cluster_keys[t]) for t in open_t], nf, forbid)
                for a, b in pairs:
                    w, t = chunk[a], open_t[b]
                    clusters[t].update(clusters[w])
                    cluster_keys[t].extend(cluster_keys[w])
                    alive[w] = False
                    fallback += len(clusters[w])
        clusters = [c for c, ok in zip(clusters, alive) if ok]
    # order: mean relative position of the cluster's rows in their systems' lists
    lens = {s: max(1, len(rows_by_system.get(s) or [])) for s in order}
    pos = [sum(j / lens[s] for s, j in c.items()) / len(c) for c in clusters]
    ranked = sorted(range(len(clusters)), key=lambda c: (pos[c], c))
    return [clusters[c] for c in ranked], fallback


def _representative(keys: list[tuple]) -> tuple:
    if len(keys) == 1:
        return keys[0]
    return tuple(Counter(col).most_common(1)[0][0] for col in zip(*keys))


def _assign(left: list[tuple], right: list[tuple], nf: int, forbid: np.ndarray | None = None) -> list[tuple[int, int]]:
    """Optimal pairing of weak clusters with candidate clusters by mismatched fields (at most half may differ)."""
    n, m = len(left), len(right)
    cost = np.zeros((n, m), dtype=np.int16)
    for f in range(nf):
        ids: dict[tuple, int] = {}
        a = np.fromiter((ids.setdefault(r[f], len(ids)) for r in left), dtype=np.int64, count=n)
        b = np.fromiter((ids.setdefault(r[f], len(ids)) for r in right), dtype=np.int64, count=m)
        cost += a[:, None] != b[None, :]
    limit = nf // 2
    if forbid is not None:
        cost[forbid] = nf + 1
    if not (cost <= limit).any():
        return []
    big = np.where(cost <= limit, cost, nf + 1)
    rows, cols = linear_sum_assignment(big)
    return [(int(r), int(c)) for r, c in zip(rows, cols) if cost[r, c] <= limit]


# --- the walk -------------------------------------------------------------------------------


class _Walker:
    def __init__(self, doc_id: str, pool: Pool):
        self.doc_id = doc_id
        self.pool = pool
        self.cells: list[Cell] = []
        self.extras: list[ExtraRecord] = []
        self.failures: list[Failure] = []
        self.fallback = 0
        self.keys_cache: dict[tuple, tuple] = {}
        self.types_cache: dict[int, frozenset[type]] = {}
        self.plans: dict[int, list[tuple[str, str, Node, bool]]] = {}

    def walk(self, node: Node, ptr: str, fld: str, votes: dict[str, tuple[Any, str | None]], forced: bool) -> Any:
        if node.kind == "object" and node.props:
            out = {}
            for s, (v, own) in votes.items():
                if v is not None and not isinstance(v, dict) and own is not None:
                    self.failures.append(Failure(s, own, f"expected an object, got {type(v).__name__}"))
            plan = self.plans.get(id(node))
            if plan is None:
                plan = self.plans[id(node)] = [(name, escape_token(name), sub, sub.kind in ("scalar", "scalar_list"))
                                               for name, sub in node.props.items()]
            items = [(s, v if type(v) is dict else (v if isinstance(v, dict) else None), own)
                     for s, (v, own) in votes.items()]
            for name, tok, sub, is_leaf in plan:
                sub_votes = {s: ((v.get(name) if v is not None else None), (f"{own}/{tok}" if own is not None else None))
                             for s, v, own in items}
                if is_leaf:
                    out[name] = self.leaf(sub, f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
                else:
                    out[name] = self.walk(sub, f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
            return out
        if node.kind == "object" and any(isinstance(v, dict) for v, _ in votes.values()):
            return self.free_form(ptr, fld, votes, forced)
        if node.kind == "records":
            return self.records(node, ptr, fld, votes, forced)
        return self.leaf(node, ptr, fld, votes, forced)

    def free_form(self, ptr: str, fld: str, votes: dict[str, tuple[Any, str | None]], forced: bool) -> Any:
        """An object without declared properties: the union of the systems' keys, each walked by its shape."""
        names: dict[str, Any] = {}
        for v, _ in votes.values():
            if isinstance(v, dict):
                for k, x in v.items():
                    if names.get(k) is None:
                        names[k] = x
        out = {}
        for name, sample in names.items():
            tok = escape_token(name)
            sub_votes = {
                s: ((v.get(name) if isinstance(v, dict) else None), (f"{own}/{tok}" if own is not None else None))
                for s, (v, own) in votes.items()
            }
            out[name] = self.walk(guess_node(sample), f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
        return out

    def records(self, node: Node, ptr: str, fld: str, votes: dict[str, tuple[Any, str | None]], forced: bool) -> Any:
        assert node.item is not None
        lists: dict[str, list[Any]] = {}
        any_list = False
        for s, (v, own) in votes.items():
            if isinstance(v, list):
                any_list = True
                lists[s] = v
                for j, r in enumerate(v):
                    if not isinstance(r, dict):
                        self.failures.append(Failure(s, f"{own}/{j}", f"expected a record object, got {type(r).__name__}"))
            elif v is not None and own is not None:
                self.failures.append(Failure(s, own, f"expected a list of records, got {type(v).__name__}"))
        order = [s for s in self.pool.systems if s in lists]
        clusters, fb = align_clusters(node.item, node.identity, lists, order, self.keys_cache, self.pool.family)
        self.fallback += fb
        out: list[Any] = []
        total = self.pool.n_families
        n_extra = 0
        for members in clusters:
            present = sum(self.pool.weight[s] for s in members)
            if present * 2 < total - EPS:
                fams = sorted({self.pool.family[s] for s in members})
                self.extras.append(ExtraRecord(
                    pointer=f"{ptr}/+{n_extra}", field=f"{fld}/*",
                    members={s: (lists[s][j], f"{votes[s][1]}/{j}") for s, j in members.items()},
                    weight=present, families=fams,
                    cause=MODEL_FAILURE if len(fams) == 1 else SCHEMA_AMBIGUITY,
                    fix=None if len(fams) == 1 else LOCATION))
                n_extra += 1
                continue
            tie = abs(present * 2 - total) <= EPS and present < total - EPS
            k = len(out)
            sub_votes = {
                s: ((lists[s][members[s]], f"{votes[s][1]}/{members[s]}") if s in members else (None, None))
                for s in votes
            }
            out.append(self.walk(node.item, f"{ptr}/{k}", f"{fld}/*", sub_votes, forced or tie))
        if not out and not any_list:
            return None
        return out

    def leaf(self, node: Node, ptr: str, fld: str, votes: dict[str, tuple[Any, str | None]], forced: bool) -> Any:
        keys: dict[str, tuple] = {}
        comp = node.comparator
        cache = self.keys_cache
        ok_types = self.types_cache.get(id(node))
        if ok_types is None:
            ok_types = self.types_cache[id(node)] = fast_types(node)
        first: tuple | None = None
        same_key = same_raw = True
        r0: Any = None
        t0: type | None = None
        for s, (v, own) in votes.items():
            t = type(v)
            if t in ok_types and (t is not float or math.isfinite(v)):  # a scalar of an allowed type
                ck = (t, v, comp)
                k = cache.get(ck)
                if k is None:
                    k = cache[ck] = comparator_key(v, comp)
            else:
                problem = type_problem(v, node)
                if problem:
                    k = INVALID
                    self.failures.append(Failure(s, own or ptr, problem))
                elif t in _HASHABLE:
                    ck = (t, v, comp)
                    k = cache.get(ck)
                    if k is None:
                        k = cache[ck] = comparator_key(v, comp)
                else:
                    k = comparator_key(v, comp)
            keys[s] = k
            if first is None:
                first, r0, t0 = k, v, t
            else:
                if same_key and k != first:
                    same_key = False
                if same_raw and (t is not t0 or v != r0):
                    same_raw = False
        cell = Cell(ptr, fld, node, keys, votes, forced)
        if same_key and same_raw and not forced and first is not None and first != INVALID and t0 in _HASHABLE:
            # the common case: every system gave the very same value (or all null)
            cell.top = first
            cell.value = r0
            if first == NULL:
                cell.tier = ALL_NULL
            else:
                cell.tier = UNANIMOUS
            cell.weights = {first: float(self.pool.n_families)}
            cell.candidates = [(first, r0)]
        else:
            decide(cell, self.pool)
        self.cells.append(cell)
        return cell.value


def _form(raw: Any) -> Any:
    if raw is None or isinstance(raw, (str, int, float, bool)):
        return (type(raw).__name__, raw)
    return json.dumps(raw, sort_keys=True)


def _rep_raw(cell: Cell, key: tuple, order: list[str]) -> Any:
    """The most common raw form among the votes for `key` (first system in order on ties)."""
    raws = [cell.votes[s][0] for s in order if cell.keys.get(s) == key]
    if len(raws) == 1:
        return raws[0]
    first = _form(raws[0])
    forms = [first] + [_form(r) for r in raws[1:]]
    if all(f == first for f in forms):
        return raws[0]
    counts: dict[Any, int] = {}
    for f in forms:
        counts[f] = counts.get(f, 0) + 1
    best = max(counts.values())
    return next(r for r, f in zip(raws, forms) if counts[f] == best)


def decide(cell: Cell, pool: Pool) -> None:
    """Tier, top value and candidates of a cell from its family-weighted votes."""
    keys = cell.keys
    order = pool.systems
    vals = list(keys.values())
    first = vals[0]
    if all(k == first for k in vals) and first != INVALID:
        cell.top = first
        cell.tier = ALL_NULL if first == NULL else UNANIMOUS
        if first == NULL:
            cell.value = None
        else:
            raws = [v for v, _ in cell.votes.values()]
            r0 = raws[0]
            t0 = type(r0)
            same = t0 in _HASHABLE and all(type(r) is t0 and r == r0 for r in raws)
            cell.value = r0 if same else _rep_raw(cell, first, order)
        cell.weights = {first: float(pool.n_families)}
        cell.candidates = [(first, cell.value)]
        cell.pending = cell.forced
        if cell.forced:
            cell.tier = SPLIT
        return
    w: dict[tuple, float] = {}
    count: dict[tuple, int] = {}
    seen: dict[tuple, int] = {}
    for i, s in enumerate(order):
        k = keys.get(s)
        if k is None:
            continue
        w[k] = w.get(k, 0.0) + pool.weight[s]
        count[k] = count.get(k, 0) + 1
        seen.setdefault(k, i)
    cell.weights = dict(w)
    ranked = sorted((k for k in w if k != INVALID), key=lambda k: (-w[k], -count[k], k == NULL, seen[k]))
    top = ranked[0] if ranked else NULL
    cell.top = top
    cell.candidates = [(k, None if k == NULL else _rep_raw(cell, k, order)) for k in ranked] or [(NULL, None)]
    cell.value = cell.candidates[0][1]
    if all(k in (NULL, INVALID) for k in vals) and top == NULL and INVALID not in vals:
        cell.tier = ALL_NULL
    elif w.get(top, 0.0) * 2 > pool.n_families + EPS and not cell.forced:
        cell.tier = MAJORITY
        cell.null_over_value = top == NULL and any(k not in (NULL, INVALID) for k in vals)
    else:
        cell.tier = SPLIT


def walk_document(doc_id: str, root: Node, outputs: dict[str, Any], pool: Pool) -> DocResult:
    walker = _Walker(doc_id, pool)
    votes = {s: (outputs[s], "") for s in pool.systems}
    expected = walker.walk(root, "", "", votes, False)
    return DocResult(doc_id=doc_id, pool=pool, expected=expected, cells=walker.cells, extras=walker.extras,
                     failures=walker.failures, rows_fallback=walker.fallback)


# --- causes -------------------------------------------------------------------------------


def _format_only(cell: Cell, nonnull: list[tuple]) -> bool:
    loose: list[set[tuple]] = []
    for k in nonnull:
        forms: set[tuple] = set()
        for s, sk in cell.keys.items():
            if sk == k:
                forms |= loose_keys(cell.votes[s][0])
        loose.append(forms)
    return any(loose[i] & loose[j] for i in range(len(loose)) for j in range(i + 1, len(loose)))


def _iso_of(raw: Any) -> str | None:
    if not isinstance(raw, str):
        return None
    c = canonical_string(raw)
    return c if re.fullmatch(r"\d{4}-\d{2}-\d{2}", c) else None


def _day_month_swap(cell: Cell) -> bool:
    """Two candidate dates that are each other's day/month swap (or a raw vote that reads both ways)."""
    if sum(1 for k, _ in cell.candidates if k != NULL) >= 2 and any(
            is_day_month_ambiguous(r) for r, _ in cell.votes.values()):
        return True
    isos = {i for i in (_iso_of(raw) for _, raw in cell.candidates) if i}
    for i in isos:
        y, m, d = i.split("-")
        if m != d and int(d) <= 12 and f"{y}-{d}-{m}" in isos:
            return True
    return False


def _texts(cell: Cell, nonnull: list[tuple]) -> list[str]:
    out = []
    for k, raw in cell.candidates:
        if k in nonnull and isinstance(raw, str):
            out.append(collapse_ws(raw).casefold())
    return out


def _scope(texts: list[str]) -> bool:
    for i, a in enumerate(texts):
        for b in texts[i + 1:]:
            short, long_ = (a, b) if len(a) <= len(b) else (b, a)
            if len(short) >= 3 and short != long_ and short in long_:
                return True
    return False


def classify(cell: Cell, pool: Pool, siblings: set[tuple], doc_text: Callable[[], str]) -> None:
    """Cause (and fix kind) of a contested cell."""
    if not cell.contested:
        return
    fams: dict[tuple, set[str]] = defaultdict(set)
    for s, k in cell.keys.items():
        fams[k].add(pool.family[s])
    nonnull = [k for k in fams if k not in (NULL, INVALID)]
    dissent = [k for k in fams if k != cell.top]
    cause, fix = None, None
    if len(nonnull) >= 2:
        texts = _texts(cell, nonnull)
        if _format_only(cell, nonnull) or _day_month_swap(cell):  # day/month-ambiguous dates too
            cause, fix = SCHEMA_AMBIGUITY, FORMAT
        elif _scope(texts):
            cause, fix = SCHEMA_AMBIGUITY, FORMAT
        elif any(k in siblings for k in dissent if k[0] == "s" and len(str(k[1])) >= 4):
            cause, fix = SCHEMA_AMBIGUITY, DO_NOT_CONFUSE
        elif len(texts) >= 2 and all(len(t) >= 3 for t in texts) and "*" not in cell.field:
            # which occurrence: every candidate is printed somewhere (not for record fields,
            # whose values recur across rows)
            text = doc_text()
            if text and all(t in text for t in texts):
                cause, fix = SCHEMA_AMBIGUITY, LOCATION
    if cause is None:
        if any(len(fams[k]) >= 2 for k in dissent if k != INVALID):
            cause, fix = SCHEMA_AMBIGUITY, ALIAS
        elif cell.tier == MAJORITY and all(len(fams[k]) <= 1 for k in dissent):
            cause = MODEL_FAILURE
        else:
            cause = UNRESOLVABLE
    cell.cause, cell.fix = cause, fix


def classify_document(result: DocResult, doc_text: Callable[[], str]) -> None:
    contested = [c for c in result.cells if c.tier != UNANIMOUS and c.tier != ALL_NULL]
    if not contested:
        return
    parents = {c.pointer.rsplit("/", 1)[0] for c in contested}
    by_parent: dict[str, set[tuple]] = defaultdict(set)
    for c in result.cells:
        if c.top[0] == "s":
            parent = c.pointer.rsplit("/", 1)[0]
            if parent in parents:
                by_parent[parent].add(c.top)
    for c in contested:
        sib = by_parent.get(c.pointer.rsplit("/", 1)[0], set()) - {c.top}
        classify(c, result.pool, sib, doc_text)


def settle(cell: Cell) -> None:
    """Pending or agreed: split, null over a value, schema ambiguity and forced (tied rows) are queued."""
    cell.pending = (cell.tier == SPLIT or cell.null_over_value or cell.cause == SCHEMA_AMBIGUITY or cell.forced)
