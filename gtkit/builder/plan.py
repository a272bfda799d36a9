"""The build plan: what `gtkit build` makes, read from TOML into strict models and expanded into tasks.

    seed = 7                                   # the plan seed: every document seed derives from it
    dpi = 200                                  # raster resolution of the degrade re-captures (optional)

    [[families]]                               # synth documents
    family = "creditor_matrix"
    records = [20, 40]                         # record counts: a list, or {min = 20, max = 60, step = 20}
    docs = 2                                   # documents per record count, seeds derived (default 1)
    # seeds = [1, 2]                           # or: explicit document seeds (instead of docs)

    [[recipes]]                                # degrade re-captures of the synth bundles
    recipe = "fax"                             # a recipe name (`gtkit recipes`) or a .toml file
    apply_to = ["creditor_matrix"]             # families re-captured (default: every family of the plan)
    # seed = 3                                 # default: the plan seed

    [[consensus]]                              # optional: consensus over real documents
    name = "invoices"
    folder = "consensus/invoices"              # schema.json, docs/, runs/, systems.toml inside
    # promote = "majority"                     # the promotion rule (default "unanimous")

    [[splits]]                                 # the first split whose filters all match a bundle names it
    name = "short"
    length = ["L1"]

Every task is a pure function of its own entry: a document's seed is derived from the plan seed and
the document's identity (family, record count, index), never from its position in the plan, and its
doc id names that identity, so reordering the plan or the machine never changes a byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, StrictInt, StrictStr, TypeAdapter, WrapValidator

from gtkit.errors import GtkitError
from gtkit.rng import derive_seed
from gtkit.typed import Strict, read_toml_as

MAX_RECORDS = 2_000_000
MAX_DOCUMENTS = 100_000
CONSENSUS_DIR = "consensus"  # consensus outputs live in DATASET/consensus/<name>/

Name = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")]


class RecordRange(Strict):
    """Record counts min, min + step, ... up to max (inclusive)."""

    min: StrictInt = Field(gt=0)
    max: StrictInt = Field(gt=0)
    step: StrictInt = Field(default=1, gt=0)

    def counts(self) -> list[int]:
        return list(range(self.min, self.max + 1, self.step))


_COUNTS = TypeAdapter(list[StrictInt])


def _records(value: Any, _handler: Any) -> list[int] | RecordRange:
    """A list of record counts or a range table, each checked as itself (errors point inside it)."""
    if isinstance(value, dict):
        return RecordRange.model_validate(value)
    if isinstance(value, list):
        return _COUNTS.validate_python(value)
    raise ValueError("give a list of record counts or a range { min = ..., max = ..., step = ... }")


class FamilyEntry(Strict):
    family: StrictStr
    records: Annotated[list[StrictInt] | RecordRange, WrapValidator(_records)]
    docs: StrictInt | None = Field(default=None, gt=0)
    seeds: list[Annotated[int, Field(ge=0, strict=True)]] | None = None

    def counts(self) -> list[int]:
        return self.records.counts() if isinstance(self.records, RecordRange) else list(self.records)


class RecipeEntry(Strict):
    recipe: StrictStr
    apply_to: list[StrictStr] | None = None
    seed: StrictInt | None = Field(default=None, ge=0)


class ConsensusEntry(Strict):
    name: Name
    folder: StrictStr | None = None
    schema_: StrictStr | None = Field(default=None, alias="schema")
    docs: StrictStr | None = None
    runs: StrictStr | None = None
    systems: StrictStr | None = None
    family: StrictStr | None = None
    citing: StrictStr | None = None
    promote: Literal["unanimous", "majority"] = "unanimous"   # the promotion rule (`gtkit consensus --promote`)


class SplitEntry(Strict):
    """A split and the tags it wants: every key given must match (see `matches`)."""

    name: Name
    family: list[StrictStr] | None = None
    pipeline: list[Literal["synth", "degrade", "consensus"]] | None = None
    recipe: list[StrictStr] | None = None
    task: list[StrictStr] | None = None
    perception: list[StrictStr] | None = None
    structure: list[StrictStr] | None = None
    grounding: list[StrictStr] | None = None
    length: list[Literal["L1", "L2", "L3"]] | None = None
    domain: list[StrictStr] | None = None

    def matches(self, facts: dict[str, Any]) -> bool:
        """A single-valued fact (family, pipeline, recipe, length, domain) must be one of the listed values;
        a tag list (task, perception, structure, grounding) must share a value with the listed ones, and an
        empty list wants a bundle with none of that tag (`perception = []`: the clean documents)."""
        for key in SplitEntry.model_fields:
            wanted = getattr(self, key)
            if key == "name" or wanted is None:
                continue
            have = facts.get(key)
            if isinstance(have, list):
                ok = not have if not wanted else bool(set(have) & set(wanted))
            else:
                ok = have in wanted
            if not ok:
                return False
        return True


class BuildPlan(Strict):
    """A build plan as read from its TOML file (not a synth document's plan of what is drawn where,
    `gtkit.synth.plan.Plan`)."""

    seed: StrictInt = Field(ge=0)
    dpi: StrictInt | None = Field(default=None, ge=36, le=1200)
    families: list[FamilyEntry] = Field(default_factory=list)
    recipes: list[RecipeEntry] = Field(default_factory=list)
    consensus: list[ConsensusEntry] = Field(default_factory=list)
    splits: list[SplitEntry] = Field(default_factory=list)


# --- tasks: what the plan expands into -------------------------------------------------------------------------------


@dataclass(frozen=True)
class SynthTask:
    doc_id: str
    family: str
    records: int
    seed: int
    parameters: dict[str, Any]
    entry: str  # the plan entry's JSON Pointer, for messages

    kind: ClassVar[Literal["synth"]] = "synth"

    @property
    def rel_path(self) -> str:
        return self.doc_id


@dataclass(frozen=True)
class DegradeTask:
    doc_id: str
    parent: str  # the parent's doc id (its folder in the dataset)
    recipe: str  # a recipe name or the absolute path of a recipe file
    recipe_name: str
    seed: int
    dpi: int | None
    entry: str

    kind: ClassVar[Literal["degrade"]] = "degrade"

    @property
    def rel_path(self) -> str:
        return self.doc_id


@dataclass(frozen=True)
class ConsensusTask:
    name: str
    schema: str
    docs: str
    runs: str
    systems: str
    family: str | None
    citing: str | None
    doc_ids: tuple[str, ...]
    entry: str
    promote: str = "unanimous"

    kind: ClassVar[Literal["consensus"]] = "consensus"

    @property
    def rel_path(self) -> str:
        return f"{CONSENSUS_DIR}/{self.name}"


BuildTask = SynthTask | DegradeTask | ConsensusTask  # one piece of a build (gtkit.workers.Task is a submitted call)
KINDS = ("synth", "degrade", "consensus")


@dataclass
class Expanded:
    """A plan read, checked and expanded: its tasks in plan order (the index order) and its splits."""

    path: Path
    plan: BuildPlan
    tasks: list[BuildTask]

    def bundles(self) -> list[tuple[str, BuildTask]]:
        """(path of the bundle in the dataset, task that makes it), in the index's order."""
        out: list[tuple[str, BuildTask]] = []
        for t in self.tasks:
            if isinstance(t, ConsensusTask):
                out += [(f"{t.rel_path}/{d}", t) for d in t.doc_ids]
            else:
                out.append((t.rel_path, t))
        return out


def _fail(path: Path, pointer: str, message: str) -> GtkitError:
    return GtkitError(f"{pointer}: {message}", path)


def synth_doc_id(family: str, records: int, *, index: int | None = None, seed: int | None = None) -> str:
    """`<family>-r<records>-d<index>` (seed derived) or `<family>-r<records>-s<seed>` (seed given)."""
    return f"{family}-r{records}-d{index}" if seed is None else f"{family}-r{records}-s{seed}"


def _synth_tasks(plan: BuildPlan, path: Path) -> list[SynthTask]:
    from gtkit.synth.family import family_names, get_family

    known = family_names()
    tasks: list[SynthTask] = []
    for i, fe in enumerate(plan.families):
        at = f"/families/{i}"
        if fe.family not in known:
            raise _fail(path, f"{at}/family", f"unknown family {fe.family!r} (known: {', '.join(known)})")
        get_family(fe.family)  # a broken family folder is reported now, before anything is built
        counts = fe.counts()
        if not counts:
            what = (f"the record range {fe.records.min}..{fe.records.max} is empty"
                    if isinstance(fe.records, RecordRange) else "the record list is empty")
            raise _fail(path, f"{at}/records", what)
        for j, n in enumerate(counts):
            if not 0 < n <= MAX_RECORDS:
                where = f"{at}/records" + ("" if isinstance(fe.records, RecordRange) else f"/{j}")
                raise _fail(path, where, f"a record count must be within 1..{MAX_RECORDS}, got {n}")
        if fe.docs is not None and fe.seeds is not None:
            raise _fail(path, f"{at}/seeds", "give docs (seeds derived from the plan seed) or seeds, not both")
        if fe.seeds is not None and not fe.seeds:
            raise _fail(path, f"{at}/seeds", "the seed list is empty")
        for n in counts:
            if fe.seeds is not None:
                for s in fe.seeds:
                    tasks.append(SynthTask(synth_doc_id(fe.family, n, seed=s), fe.family, n, s, {"records": n}, at))
            else:
                for k in range(fe.docs or 1):
                    seed = derive_seed(plan.seed, "build", fe.family, n, k)
                    params = {"records": n, "plan_seed": plan.seed, "index": k}
                    tasks.append(SynthTask(synth_doc_id(fe.family, n, index=k), fe.family, n, seed, params, at))
    return tasks


def _degrade_tasks(plan: BuildPlan, path: Path, synth: list[SynthTask]) -> list[DegradeTask]:
    from gtkit.degrade.pipeline import degraded_doc_id
    from gtkit.degrade.recipe import load_recipe, recipe_names

    planned = [fe.family for fe in plan.families]
    tasks: list[DegradeTask] = []
    for i, re_ in enumerate(plan.recipes):
        at = f"/recipes/{i}"
        ref = re_.recipe
        if ref.endswith(".toml") or "/" in ref:
            file = (path.parent / ref).resolve()
            if not file.is_file():
                raise _fail(path, f"{at}/recipe", f"recipe file {ref} not found")
            ref = str(file)
        elif ref not in recipe_names():
            raise _fail(path, f"{at}/recipe", f"unknown recipe {ref!r} (known: {', '.join(recipe_names())})")
        try:
            recipe = load_recipe(ref)
        except GtkitError as e:
            raise _fail(path, f"{at}/recipe", str(e)) from None
        for j, fam in enumerate(re_.apply_to or []):
            if fam not in planned:
                raise _fail(path, f"{at}/apply_to/{j}", f"family {fam!r} is not one of the plan's families")
        wanted = set(re_.apply_to) if re_.apply_to is not None else set(planned)
        seed = plan.seed if re_.seed is None else re_.seed
        for t in synth:
            if t.family in wanted:
                tasks.append(DegradeTask(degraded_doc_id(t.doc_id, recipe.name, seed), t.doc_id, ref, recipe.name,
                                         seed, plan.dpi, at))
    return tasks


def _consensus_tasks(plan: BuildPlan, path: Path) -> list[ConsensusTask]:
    from gtkit.consensus.inputs import check_schema_hash, choose_citing, discover, load_systems, schema_version
    from gtkit.files.read import canonical_sha256
    from gtkit.schema import load_schema

    tasks: list[ConsensusTask] = []
    names: dict[str, int] = {}
    for i, ce in enumerate(plan.consensus):
        at = f"/consensus/{i}"
        if ce.name in names:
            raise _fail(path, f"{at}/name", f"consensus name {ce.name!r} is also /consensus/{names[ce.name]}")
        names[ce.name] = i
        where: dict[str, str] = {}
        defaults = (("schema", "schema.json"), ("docs", "docs"), ("runs", "runs"), ("systems", "systems.toml"))
        for key, default in defaults:
            given = getattr(ce, "schema_" if key == "schema" else key)
            if given is None and ce.folder is None:
                raise _fail(path, f"{at}/{key}", "give folder (holding schema.json, docs/, runs/, systems.toml) "
                            f"or {key}")
            rel = given if given is not None else f"{ce.folder}/{default}"
            where[key] = str((path.parent / rel).resolve())
        try:  # what `gtkit consensus` checks before it computes anything
            schema = load_schema(Path(where["schema"]))
            systems = load_systems(Path(where["systems"]))
            inputs = discover(Path(where["docs"]), Path(where["runs"]), systems)
            check_schema_hash(systems, inputs.systems_used, canonical_sha256(schema), schema_version(schema))
            choose_citing(systems, inputs.systems_used, ce.citing)
        except GtkitError as e:
            raise _fail(path, at, str(e)) from None
        if not inputs.docs:
            raise _fail(path, f"{at}/docs", f"no <doc_id>.pdf in {where['docs']}")
        tasks.append(ConsensusTask(ce.name, where["schema"], where["docs"], where["runs"], where["systems"], ce.family,
                                   ce.citing, tuple(inputs.docs), at, ce.promote))
    return tasks


def expand(plan: BuildPlan, path: Path) -> Expanded:
    """Check every entry against the registries and inputs, and list the tasks; nothing is written.

    Two entries that would make the same doc id are refused, naming both."""
    synth = _synth_tasks(plan, path)
    degrade = _degrade_tasks(plan, path, synth)
    consensus = _consensus_tasks(plan, path)
    seen: dict[str, str] = {}
    made: list[SynthTask | DegradeTask] = [*synth, *degrade]
    for t in made:
        if t.doc_id in seen:
            raise _fail(path, t.entry, f"makes doc id {t.doc_id!r}, which {seen[t.doc_id]} makes too")
        seen[t.doc_id] = t.entry
    for c in consensus:
        for d in c.doc_ids:
            if d in seen:
                raise _fail(path, c.entry, f"document {d!r} has the doc id {seen[d]} makes too")
            seen[d] = c.entry
    if not seen:
        raise GtkitError("the plan makes nothing: add [[families]] or [[consensus]] entries", path)
    if len(seen) > MAX_DOCUMENTS:
        raise GtkitError(f"the plan makes {len(seen)} documents, more than {MAX_DOCUMENTS}", path)
    split_names: dict[str, int] = {}
    for i, s in enumerate(plan.splits):
        if s.name in split_names:
            raise _fail(path, f"/splits/{i}/name", f"split {s.name!r} is also /splits/{split_names[s.name]}")
        split_names[s.name] = i
    return Expanded(path=path, plan=plan, tasks=[*synth, *degrade, *consensus])


def example_plans() -> list[str]:
    """The names of the example plans shipped with gtkit (`examples/<name>.toml`)."""
    from gtkit.paths import EXAMPLES_DIR

    return sorted(p.stem for p in EXAMPLES_DIR.glob("*.toml"))


def find_plan(path: Path) -> Path:
    """`path` itself when it exists, else the shipped example plan of that name (`small-plan`, with or
    without `.toml`), so an example runs the same from a checkout and from an installed wheel."""
    from gtkit.paths import EXAMPLES_DIR

    path = Path(path)
    if path.exists() or path.parent != Path("."):
        return path
    example = EXAMPLES_DIR / (path.name if path.suffix == ".toml" else f"{path.name}.toml")
    if example.is_file():
        return example
    raise GtkitError(f"file not found (nor a shipped example plan: {', '.join(example_plans())})", path)


def read_plan(path: Path) -> Expanded:
    """The plan file (or shipped example plan, see `find_plan`) read into `BuildPlan` (unknown keys refused)
    and expanded."""
    path = find_plan(Path(path))
    return expand(read_toml_as(BuildPlan, path), path)


def split_of(splits: list[SplitEntry], facts: dict[str, Any]) -> str | None:
    """The name of the first split whose filters all match, or None."""
    return next((s.name for s in splits if s.matches(facts)), None)
