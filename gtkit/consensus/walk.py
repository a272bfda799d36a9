"""The walk of one document: every system's output descended against the compiled schema together.

Objects descend by property (a missing key is a null vote, never an abstention); an object without
declared properties descends by the union of the systems' keys; arrays of records are aligned across
systems into row clusters (`align.align_clusters`) and each cluster descends with one row per system;
each leaf becomes a `Cell` holding every system's vote, decided at once (`tiers.decide`). A row that
only a minority of the family weight backs is an `ExtraRecord`; a row backed by exactly half is kept,
its cells forced to the queue (a row-presence tie).
"""

from __future__ import annotations

from typing import Any

from gtkit.consensus.align import align_clusters
from gtkit.consensus.cells import LOCATION, MODEL_FAILURE, SCHEMA_AMBIGUITY, Cell, DocResult, ExtraRecord
from gtkit.consensus.tiers import decide
from gtkit.consensus.votes import EPS, Failure, Pool, VoteKeys
from gtkit.schema import Node, escape_token, guess_node

Votes = dict[str, tuple[Any, str | None]]   # system -> (raw value, the system's own pointer or None)


def walk_document(doc_id: str, root: Node, outputs: dict[str, Any], pool: Pool) -> DocResult:
    """Cells, extra records and vote failures of one document, and its expected object."""
    walker = _Walker(pool)
    expected = walker.walk(root, "", "", {s: (outputs[s], "") for s in pool.systems}, False)
    return DocResult(doc_id=doc_id, pool=pool, expected=expected, cells=walker.cells, extras=walker.extras,
                     failures=walker.failures, rows_fallback=walker.fallback)


class _Walker:
    def __init__(self, pool: Pool):
        self.pool = pool
        self.cells: list[Cell] = []
        self.extras: list[ExtraRecord] = []
        self.failures: list[Failure] = []
        self.fallback = 0
        self.keys = VoteKeys()
        self.plans: dict[int, list[tuple[str, str, Node, bool]]] = {}

    def walk(self, node: Node, ptr: str, fld: str, votes: Votes, forced: bool) -> Any:
        """The consensus value at `ptr` (`fld` is its field: the pointer with row indexes as `*`)."""
        if node.kind == "object" and node.props:
            return self.declared_object(node, ptr, fld, votes, forced)
        if node.kind == "object" and any(isinstance(v, dict) for v, _ in votes.values()):
            return self.free_form(ptr, fld, votes, forced)
        if node.kind == "records":
            return self.records(node, ptr, fld, votes, forced)
        return self.leaf(node, ptr, fld, votes, forced)

    def declared_object(self, node: Node, ptr: str, fld: str, votes: Votes, forced: bool) -> dict[str, Any]:
        """An object with declared properties: each property walked with every system's value for it."""
        for s, (v, own) in votes.items():
            if v is not None and not isinstance(v, dict) and own is not None:
                self.failures.append(Failure(s, own, f"expected an object, got {type(v).__name__}"))
        plan = self.plans.get(id(node))
        if plan is None:
            plan = self.plans[id(node)] = [(name, escape_token(name), sub, sub.kind in ("scalar", "scalar_list"))
                                           for name, sub in node.props.items()]
        objects = [(s, v if isinstance(v, dict) else None, own) for s, (v, own) in votes.items()]
        out = {}
        for name, tok, sub, is_leaf in plan:
            sub_votes = {s: ((v.get(name) if v is not None else None), (f"{own}/{tok}" if own is not None else None))
                         for s, v, own in objects}
            step = self.leaf if is_leaf else self.walk
            out[name] = step(sub, f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
        return out

    def free_form(self, ptr: str, fld: str, votes: Votes, forced: bool) -> dict[str, Any]:
        """An object without declared properties: the union of the systems' keys, each walked by its shape."""
        samples: dict[str, Any] = {}
        for v, _ in votes.values():
            if isinstance(v, dict):
                for k, x in v.items():
                    if samples.get(k) is None:
                        samples[k] = x
        out = {}
        for name, sample in samples.items():
            tok = escape_token(name)
            sub_votes = {
                s: ((v.get(name) if isinstance(v, dict) else None), (f"{own}/{tok}" if own is not None else None))
                for s, (v, own) in votes.items()
            }
            out[name] = self.walk(guess_node(sample), f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
        return out

    def records(self, node: Node, ptr: str, fld: str, votes: Votes, forced: bool) -> list[Any] | None:
        """An array of records: rows aligned across systems; a minority row is an extra record."""
        assert node.item is not None
        lists = self.record_lists(votes)
        order = [s for s in self.pool.systems if s in lists]
        clusters, fallback = align_clusters(node.item, node.identity, lists, order, self.keys, self.pool.family)
        self.fallback += fallback
        out: list[Any] = []
        total = self.pool.n_families
        n_extra = 0
        for members in clusters:
            present = sum(self.pool.weight[s] for s in members)
            if present * 2 < total - EPS:
                self.extra_record(f"{ptr}/+{n_extra}", fld, members, lists, votes, present)
                n_extra += 1
                continue
            tie = abs(present * 2 - total) <= EPS and present < total - EPS
            row_votes = {s: ((lists[s][members[s]], f"{votes[s][1]}/{members[s]}") if s in members else (None, None))
                         for s in votes}
            out.append(self.walk(node.item, f"{ptr}/{len(out)}", f"{fld}/*", row_votes, forced or tie))
        return out if out or lists else None

    def record_lists(self, votes: Votes) -> dict[str, list[Any]]:
        """The systems' lists of rows; anything else given for the array is a vote failure."""
        lists: dict[str, list[Any]] = {}
        for s, (v, own) in votes.items():
            if isinstance(v, list):
                lists[s] = v
                for j, r in enumerate(v):
                    if not isinstance(r, dict):
                        self.failures.append(Failure(s, f"{own}/{j}", f"expected a record object, got {type(r).__name__}"))
            elif v is not None and own is not None:
                self.failures.append(Failure(s, own, f"expected a list of records, got {type(v).__name__}"))
        return lists

    def extra_record(self, pointer: str, fld: str, members: dict[str, int], lists: dict[str, list[Any]],
                     votes: Votes, weight: float) -> None:
        """A vote for an extra record at `pointer` (`<array>/+k`): one family's failure, or several families'
        disagreement on what counts as a row."""
        one_family = len({self.pool.family[s] for s in members}) == 1
        self.extras.append(ExtraRecord(
            pointer=pointer, field=f"{fld}/*", weight=weight,
            members={s: (lists[s][j], f"{votes[s][1]}/{j}") for s, j in members.items()},
            cause=MODEL_FAILURE if one_family else SCHEMA_AMBIGUITY, fix=None if one_family else LOCATION))

    def leaf(self, node: Node, ptr: str, fld: str, votes: Votes, forced: bool) -> Any:
        keys = self.keys.leaf(node, votes, ptr, self.failures)
        cell = Cell(ptr, fld, node, keys, votes, forced)
        decide(cell, self.pool)
        self.cells.append(cell)
        return cell.value
