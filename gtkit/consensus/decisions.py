"""decisions.jsonl: a person's decisions on a consensus dataset (or corrections of any other), one model per action.

Every line names a cell by `id` (`<doc>#<JSON Pointer>`, as in queue.jsonl) or by `doc` and `path`,
and carries `action`; the other keys depend on the action:

    accept   system | candidate            take a system's vote or a candidate (default: the proposal)
    edit     value (required)              set the value (or, for an extra record, the row)
    null                                   clear the value
    box      box | evidence | accept_box   redraw the evidence of a settled value, or confirm the proposed box
    reject                                 drop an extra record

`accept`, `edit` and `null` may carry `box` or `evidence` (one `{"page", "box"}` object or a list);
every line may carry `who`, `when`, `note` and `trust`, and a cell's decision `supersedes`: the value it
replaces, which must be the cell's current value. A decision that would change a cell a person already
decided (trust `human`) must carry it (or adjudication be run with --force), so that nobody's word is
replaced unseen. Unknown keys, values of the wrong type and a NaN or an infinity anywhere (no JSON number is
one) are refused, one line naming the file, the line and the key (`gtkit.typed`), before any decision is
applied.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, StrictBool, StrictInt, StrictStr, model_validator
from pydantic_core import PydanticCustomError

from gtkit.errors import GtkitError
from gtkit.files.read import read_jsonl
from gtkit.typed import Strict, non_finite, parse

Action = Literal["accept", "edit", "null", "box", "reject"]
ACTIONS: tuple[str, ...] = get_args(Action)
Trust = Literal["agreed", "adjudicated", "human", "pending"]   # the trust levels of a consensus dataset
Unit = Annotated[float, Field(strict=True, ge=0.0, le=1.0)]


class BoxRef(Strict):
    """A page, and optionally a box on it normalized to the page (x0, y0, x1, y1, origin top-left)."""

    page: Annotated[StrictInt, Field(ge=1)]
    box: tuple[Unit, Unit, Unit, Unit] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> BoxRef:
        if self.box is not None and not (self.box[0] < self.box[2] and self.box[1] < self.box[3]):
            raise PydanticCustomError("box_order", "box must have x0 < x1 and y0 < y1")
        return self

    def as_evidence(self) -> dict[str, Any]:
        return {"page": self.page, **({"box": list(self.box)} if self.box is not None else {})}


Boxes = BoxRef | list[BoxRef]


class Decision(Strict):
    """The keys every decision may carry."""

    action: Action
    id: StrictStr | None = None
    doc: StrictStr | None = None
    path: StrictStr | None = None
    who: Annotated[StrictStr, Field(min_length=1)] | None = None
    when: StrictStr | None = None
    note: StrictStr | None = None
    trust: Trust | None = None
    supersedes: Any = None   # the value the decision replaces (null included: see `names_earlier`)

    @model_validator(mode="after")
    def _names_a_cell(self) -> Decision:
        if not (self.id is not None and "#" in self.id) and (self.doc is None or self.path is None):
            raise PydanticCustomError("cell", 'name the cell by "id" (<doc>#<path>) or by "doc" and "path"')
        return self

    @property
    def cell_id(self) -> str:
        return self.id if self.id is not None else f"{self.doc}#{self.path}"

    @property
    def names_earlier(self) -> bool:
        """Whether the line gives `supersedes` (a null one too)."""
        return "supersedes" in self.model_fields_set


class WithEvidence(Decision):
    """A decision that may give evidence: `box` or `evidence`."""

    box: Boxes | None = None
    evidence: Boxes | None = None

    @model_validator(mode="after")
    def _one_of_box_and_evidence(self) -> WithEvidence:
        if self.box is not None and self.evidence is not None:
            raise PydanticCustomError("box_twice", 'give "box" or "evidence", not both')
        return self

    def given_evidence(self) -> list[BoxRef] | None:
        """The evidence the line gives (None when it gives none)."""
        given = self.evidence if self.evidence is not None else self.box
        return None if given is None else given if isinstance(given, list) else [given]


class Accept(WithEvidence):
    action: Literal["accept"]
    system: StrictStr | None = None
    candidate: Annotated[StrictInt, Field(ge=0)] | None = None


class Edit(WithEvidence):
    action: Literal["edit"]
    value: Any


class Null(WithEvidence):
    action: Literal["null"]


class BoxDecision(WithEvidence):
    """A `box` decision: the evidence for a cell drawn, or the proposed box kept (not a box itself:
    `gtkit.format.models.Box`)."""

    action: Literal["box"]
    accept_box: StrictBool = False

    @model_validator(mode="after")
    def _a_box_or_accept_box(self) -> BoxDecision:
        given = self.given_evidence() is not None
        if not given and not self.accept_box:
            raise PydanticCustomError("box_decision",
                                      'a box decision needs "box" (or "evidence") or "accept_box": true')
        if given and self.accept_box:
            raise PydanticCustomError("box_decision",
                                      '"accept_box": true keeps the proposed box: give no other with it')
        return self


class Reject(Decision):
    action: Literal["reject"]


MODELS: dict[str, type[Decision]] = {"accept": Accept, "edit": Edit, "null": Null, "box": BoxDecision,
                                     "reject": Reject}


class _Action(Strict):
    """Only the action, so that a missing or unknown one is named before anything else."""

    model_config = ConfigDict(extra="ignore")
    action: Action


def read_decisions(path: Path) -> list[tuple[int, Decision]]:
    """(line number, decision) for every line of decisions.jsonl, each parsed by its action's model."""
    return [(lineno, parse_decision(item, path, lineno)) for lineno, item in read_jsonl(path)]


def parse_decision(item: Any, path: Path, lineno: int) -> Decision:
    """One line of decisions.jsonl (a JSON object) parsed by its action's model; errors name the file and line.
    A NaN or an infinity anywhere in it (even under a key adjudication would drop) is refused: it is no JSON."""
    if (bad := non_finite(item)) is not None:
        raise GtkitError(f"line {lineno}: {bad[0]}: {bad[1]} is not a JSON number", path)
    action = parse(_Action, item, path, line=lineno).action
    return parse(MODELS[action], item, path, line=lineno)
