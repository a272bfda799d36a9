"""The walk of one document: every system's output descended against the compiled schema together.

Objects descend by property (a missing key is a null vote, never an abstention); an object without
declared properties descends by the union of the systems' keys; arrays of records are aligned across
systems into row clusters (`align.align_clusters`) and each cluster descends with one row per system;
each leaf becomes a `Cell` holding every system's vote, decided at once (`tiers.decide`). A row that
only a minority of the family weight backs is an `ExtraRecord`; a row backed by exactly half is kept,
its cells forced to the queue (a row-presence tie). A row no system gave as an object (plain strings
where the schema wants records) is not a row of the truth: it is counted, and queued as a
`WithheldRecord` when a majority of the family weight reports it.

What the schema lets `expected` hold (docs/consensus.md, "Blank fields the schema does not let be
null"): a null the schema forbids at a key is left out when the key may be absent; at a required key
the cell is a schema problem (`schema_ambiguity`, fix "make nullable or not required"), written with
its best non-null candidate when a system gave one, else recorded as unwritable, for
`writable.withhold_unwritable` to withhold its record (or the document).
"""

from __future__ import annotations

from typing import Any

from gtkit.consensus.align import align_clusters
from gtkit.consensus.cells import (
    FORMAT,
    LOCATION,
    MODEL_FAILURE,
    NULLABLE,
    SCHEMA_AMBIGUITY,
    Cell,
    DocResult,
    ExtraRecord,
    Problem,
    WithheldRecord,
)
from gtkit.consensus.tiers import decide
from gtkit.consensus.votes import EPS, NULL, Failure, VoteKeys, Voters, json_type
from gtkit.schema import Node, errors_at, escape_token, guess_node, nullable, required

Votes = dict[str, tuple[Any, str | None]]   # system -> (raw value, the system's own pointer or None)


def walk_document(doc_id: str, root: Node, outputs: dict[str, Any], voters: Voters) -> DocResult:
    """Cells, extra records and vote failures of one document, and its expected object."""
    walker = _Walker(voters)
    expected = walker.walk(root, "", "", {s: (outputs[s], "") for s in voters.systems}, False)
    return DocResult(doc_id=doc_id, voters=voters, expected=expected, cells=walker.cells, extras=walker.extras,
                     failures=walker.failures, rows_fallback=walker.fallback, rows=walker.rows,
                     withheld=walker.withheld, unwritable=walker.unwritable, omitted=walker.omitted,
                     invalid_rows=walker.invalid_rows, unbacked=walker.unbacked)


class _Walker:
    def __init__(self, voters: Voters):
        self.voters = voters
        self.cells: list[Cell] = []
        self.extras: list[ExtraRecord] = []
        self.failures: list[Failure] = []
        self.fallback = 0
        self.keys = VoteKeys()
        self.plans: dict[int, list[tuple[str, str, Node, bool, bool]]] = {}
        self.rows: dict[str, dict[str, tuple[Any, str]]] = {}   # row pointer -> system -> (its row, own pointer)
        self.withheld: list[WithheldRecord] = []
        self.unwritable: list[Problem] = []     # required keys left without a value the schema allows
        self.omitted: dict[str, int] = {}       # field -> keys left out (a blank the schema does not let be null)
        self.invalid_rows: dict[str, int] = {}  # field -> row clusters no system gave as an object
        self.unbacked: dict[str, int] = {}      # field -> cells left out because every vote was a failure
        self.failed_rows: set[str] = set()      # own pointers of rows that are not objects (failures counted)

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
            if v is not None and not isinstance(v, dict) and own is not None and own not in self.failed_rows:
                self.failures.append(Failure(s, own, f"expected an object, got {json_type(v)}", fld, json_type(v)))
        plan = self.plans.get(id(node))
        if plan is None:
            required_keys = required(node)
            plan = self.plans[id(node)] = [(name, escape_token(name), sub, sub.kind in ("scalar", "scalar_list"),
                                            name in required_keys) for name, sub in node.props.items()]
        objects = [(s, v if isinstance(v, dict) else None, own) for s, (v, own) in votes.items()]
        out = {}
        for name, tok, sub, is_leaf, needed in plan:
            sub_votes = {s: ((v.get(name) if v is not None else None), (f"{own}/{tok}" if own is not None else None))
                         for s, v, own in objects}
            step = self.leaf if is_leaf else self.walk
            value = step(sub, f"{ptr}/{tok}", f"{fld}/{tok}", sub_votes, forced)
            if value is None and is_leaf and not needed and self.cells[-1].unbacked:
                self.unbacked[f"{fld}/{tok}"] = self.unbacked.get(f"{fld}/{tok}", 0) + 1
                continue    # no valid vote: nothing to write
            if value is None and not nullable(sub):
                if not needed:   # the key may be absent: a blank is left out
                    self.omitted[f"{fld}/{tok}"] = self.omitted.get(f"{fld}/{tok}", 0) + 1
                    continue
                value = self.required_blank(sub, f"{ptr}/{tok}", is_leaf)
                if value is None:   # left out: the record (or document) holding it is withheld
                    continue
            out[name] = value
        return out

    def required_blank(self, node: Node, ptr: str, is_leaf: bool) -> Any:
        """The value of a required key whose consensus is a null the schema forbids: a leaf is a schema
        problem (queued), written with its best non-null candidate if any system gave one; an array of
        records without rows is empty if the schema allows. None: nothing the schema allows."""
        if not is_leaf:
            if node.kind == "records" and not errors_at(node, []):
                return []
            self.unwritable.append(Problem(ptr, "required, not nullable, and no system gave a value",
                                           SCHEMA_AMBIGUITY, NULLABLE))
            return None
        cell = self.cells[-1]
        cell.cause, cell.fix, cell.blank_required = SCHEMA_AMBIGUITY, NULLABLE, True
        best = next((i for i, (k, _) in enumerate(cell.candidates) if k != NULL), None)
        if best is None:
            self.unwritable.append(Problem(ptr, "required, not nullable, and no system gave a valid value",
                                           SCHEMA_AMBIGUITY, NULLABLE))
            return None
        cell.candidates.insert(0, cell.candidates.pop(best))
        cell.value = cell.candidates[0][1]
        return cell.value

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
        lists = self.record_lists(votes, fld)
        order = [s for s in self.voters.systems if s in lists]
        clusters, fallback = align_clusters(node.item, node.identity, lists, order, self.keys, self.voters.family)
        self.fallback += fallback
        out: list[Any] = []
        total = self.voters.n_families
        n_extra = 0
        for members in clusters:
            present = sum(self.voters.weight[s] for s in members)
            if not any(isinstance(lists[s][j], dict) for s, j in members.items()):
                self.invalid_record(ptr, fld, members, lists, votes, present)
                continue
            if present * 2 < total - EPS:
                self.extra_record(f"{ptr}/+{n_extra}", fld, members, lists, votes, present)
                n_extra += 1
                continue
            tie = abs(present * 2 - total) <= EPS and present < total - EPS
            row_votes: Votes = {s: ((lists[s][members[s]], f"{votes[s][1]}/{members[s]}") if s in members
                                    else (None, None)) for s in votes}
            row_ptr = f"{ptr}/{len(out)}"
            self.rows[row_ptr] = {s: (lists[s][j], f"{votes[s][1]}/{j}") for s, j in members.items()}
            out.append(self.walk(node.item, row_ptr, f"{fld}/*", row_votes, forced or tie))
        return out if out or lists else None

    def invalid_record(self, ptr: str, fld: str, members: dict[str, int], lists: dict[str, list[Any]],
                       votes: Votes, weight: float) -> None:
        """A row no system gave as an object: not in `expected`; counted, and queued when a majority of the
        family weight reports it (the schema cannot hold what the systems read: a format question)."""
        self.invalid_rows[f"{fld}/*"] = self.invalid_rows.get(f"{fld}/*", 0) + 1
        if weight * 2 > self.voters.n_families + EPS:
            given = sorted({json_type(lists[s][j]) for s, j in members.items()})
            self.withheld.append(WithheldRecord(
                array=ptr, field=f"{fld}/*", weight=weight,
                members={s: (lists[s][j], f"{votes[s][1]}/{j}") for s, j in members.items()},
                reasons=[Problem(f"{fld}/*", f"no system gave the record as an object (got {', '.join(given)})",
                                 SCHEMA_AMBIGUITY, FORMAT)]))

    def record_lists(self, votes: Votes, fld: str) -> dict[str, list[Any]]:
        """The systems' lists of rows; anything else given for the array is a vote failure."""
        lists: dict[str, list[Any]] = {}
        for s, (v, own) in votes.items():
            if isinstance(v, list):
                lists[s] = v
                for j, r in enumerate(v):
                    if not isinstance(r, dict):
                        self.failed_rows.add(f"{own}/{j}")
                        self.failures.append(Failure(s, f"{own}/{j}", f"expected a record object, got {json_type(r)}",
                                                     f"{fld}/*", json_type(r)))
            elif v is not None and own is not None:
                self.failures.append(Failure(s, own, f"expected a list of records, got {json_type(v)}", fld,
                                             json_type(v)))
        return lists

    def extra_record(self, pointer: str, fld: str, members: dict[str, int], lists: dict[str, list[Any]],
                     votes: Votes, weight: float) -> None:
        """A vote for an extra record at `pointer` (`<array>/+k`): one family's failure, or several families'
        disagreement on what counts as a row."""
        one_family = len({self.voters.family[s] for s in members}) == 1
        self.extras.append(ExtraRecord(
            pointer=pointer, field=f"{fld}/*", weight=weight,
            members={s: (lists[s][j], f"{votes[s][1]}/{j}") for s, j in members.items()},
            cause=MODEL_FAILURE if one_family else SCHEMA_AMBIGUITY, fix=None if one_family else LOCATION))

    def leaf(self, node: Node, ptr: str, fld: str, votes: Votes, forced: bool) -> Any:
        keys = self.keys.leaf(node, votes, ptr, fld, self.failures)
        cell = Cell(ptr, fld, node, keys, votes, forced)
        decide(cell, self.voters)
        self.cells.append(cell)
        return cell.value
