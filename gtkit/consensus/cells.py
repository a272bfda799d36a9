"""What consensus decides for one document: a `Cell` per leaf, `ExtraRecord`s, and their vocabulary.

Tiers: `unanimous`, `all_null`, `majority` (the top value holds more than half the family weight),
`split` (plurality only). Causes of a contested cell: `schema_ambiguity` (the schema lets systems
read the field differently; fixed by an alias, a format requirement, a location hint or a
do-not-confuse note), `model_failure` (one family against the other systems, which agree) and
`unresolvable`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gtkit.consensus.votes import INVALID, NULL, Failure, Voters
from gtkit.schema import Node

UNANIMOUS, MAJORITY, SPLIT, ALL_NULL = "unanimous", "majority", "split", "all_null"
TIERS = (UNANIMOUS, MAJORITY, SPLIT, ALL_NULL)
SCHEMA_AMBIGUITY, MODEL_FAILURE, UNRESOLVABLE = "schema_ambiguity", "model_failure", "unresolvable"
CAUSES = (SCHEMA_AMBIGUITY, MODEL_FAILURE, UNRESOLVABLE)
ALIAS, FORMAT, LOCATION, DO_NOT_CONFUSE = "alias", "format requirement", "location hint", "do-not-confuse"
NULLABLE = "make nullable or not required"   # a required key the schema does not let be null, left blank
# Promotion rules: which cells become truth without review. `unanimous` (the default, the paper's rule for
# real documents): only cells every voting system agrees on (tier unanimous or all_null); `majority` (the
# rule the paper uses for forms): a clear majority too, unless it is schema ambiguity or null over a value.
PROMOTE_UNANIMOUS, PROMOTE_MAJORITY = "unanimous", "majority"
PROMOTE_RULES = (PROMOTE_UNANIMOUS, PROMOTE_MAJORITY)


class Cell:
    """One leaf of the consensus: every system's vote and the decision."""

    __slots__ = (
        "blank_required",
        "candidates",
        "cause",
        "field",
        "fix",
        "forced",
        "keys",
        "node",
        "null_over_value",
        "pending",
        "pointer",
        "tier",
        "top",
        "value",
        "votes",
        "weights",
    )

    def __init__(self, pointer: str, field_: str, node: Node, keys: dict[str, tuple],
                 votes: dict[str, tuple[Any, str | None]], forced: bool):
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
        self.blank_required = False   # a required key, not nullable, whose votes make it blank (a schema problem)

    @property
    def raws(self) -> dict[str, Any]:
        """Each system's raw vote."""
        return {s: v for s, (v, _) in self.votes.items()}

    def own(self, system: str) -> str | None:
        """The system's own JSON Pointer for this cell (None where its row is absent)."""
        vote = self.votes.get(system)
        return vote[1] if vote else None

    @property
    def unbacked(self) -> bool:
        """Every vote is a vote failure: no valid vote backs any value."""
        return all(k == INVALID for k in self.keys.values())

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
    cause: str = MODEL_FAILURE
    fix: str | None = None


@dataclass
class Problem:
    """Why something the systems reported cannot be written into `expected`."""

    path: str           # the JSON Pointer into `expected` (a field, row indexes as `*`, once in a withheld record)
    problem: str
    cause: str = UNRESOLVABLE
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "problem": self.problem}


@dataclass
class WithheldRecord:
    """A row of the consensus that `expected` cannot hold: left out, and queued for a person."""

    array: str          # the pointer of its array in `expected`
    field: str
    members: dict[str, tuple[Any, str]]   # system -> (row, its own pointer)
    weight: float
    reasons: list[Problem]
    pointer: str = ""   # "<array pointer>/-k", given once every withheld row is known

    @property
    def cause(self) -> str:
        return next((p.cause for p in self.reasons if p.cause == SCHEMA_AMBIGUITY), self.reasons[0].cause)

    @property
    def fix(self) -> str | None:
        return next((p.fix for p in self.reasons if p.fix), None)


@dataclass
class DocResult:
    """One document's consensus: the expected object, its cells, extra records and vote failures."""

    doc_id: str
    voters: Voters
    expected: Any
    cells: list[Cell]
    extras: list[ExtraRecord] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    rows_fallback: int = 0   # rows aligned by their other fields (key missing or misread)
    rows: dict[str, dict[str, tuple[Any, str]]] = field(default_factory=dict)   # row pointer -> its members
    withheld: list[WithheldRecord] = field(default_factory=list)
    unwritable: list[Problem] = field(default_factory=list)   # required blanks, for `writable`
    omitted: dict[str, int] = field(default_factory=dict)     # field -> keys left out (blank, not nullable)
    invalid_rows: dict[str, int] = field(default_factory=dict)   # field -> rows no system gave as an object
    unbacked: dict[str, int] = field(default_factory=dict)    # field -> cells left out (every vote a failure)
    withheld_cells: int = 0    # cells inside withheld records
    withheld_document: list[Problem] = field(default_factory=list)   # why the whole document is not written
