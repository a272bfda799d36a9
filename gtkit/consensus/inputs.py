"""Consensus inputs: systems.toml, the runs folder, the documents, and the frozen schema hash.

Layout::

    docs/<doc_id>.pdf
    runs/<system>/<doc_id>.json              the system's extracted object
    runs/<system>/<doc_id>.citations.json    optional: JSON Pointer -> [{page, box}]
    systems.toml

systems.toml names every system that has runs, its model family, whether it emits
citations, and the hash of the schema its runs were produced for::

    schema_sha256 = "9f2c…"        # default for every system (optional)
    schema_version = "1.0.0"       # optional: the schema's `version` those runs were made for
    citing = "gpt-a"               # the one system whose boxes are used (optional)

    [systems.gpt-a]
    family = "openai"
    cites = true
    schema_sha256 = "9f2c…"        # overrides the default

Top-level tables are read as systems too when there is no `[systems]` table. Unknown
keys and values of the wrong type are refused (`SystemsFile`), one line naming the key. The
hash is `canonical_sha256` of the schema JSON (sorted keys, no whitespace), the
same hash gt.json records; a prefix of at least 12 hex digits is accepted. A
system whose declared hash is missing or differs is refused, by name: its votes
answered another question and are never silently reinterpreted. When a system also
declares `schema_version` and it equals the schema's `version` while the hash differs,
the message says the schema was revised without a version bump.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pymupdf
from pydantic import BeforeValidator, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from pydantic_core import PydanticCustomError

from gtkit.errors import GtkitError
from gtkit.files.read import read_json, read_toml
from gtkit.typed import Strict, parse

DOC_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
CITATIONS_SUFFIX = ".citations.json"

# --- systems.toml -------------------------------------------------------------------------------

SchemaHash = Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{12,64}$", description="hex digits, 12 to 64")]
Version = StrictStr | StrictInt | StrictFloat


class SystemEntry(Strict):
    """One system's table: `[systems.NAME]`."""

    family: Annotated[StrictStr, Field(min_length=1)]
    cites: StrictBool = False
    schema_sha256: SchemaHash | None = None     # default: the file's
    schema_version: Version | None = None       # default: the file's


class _Defaults(Strict):
    schema_sha256: SchemaHash | None = None     # every system's, unless its table says otherwise
    schema_version: Version | None = None
    citing: StrictStr | None = None             # the one system whose boxes are used


class SystemsFile(_Defaults):
    """systems.toml with a `[systems]` table."""

    systems: dict[str, SystemEntry]


def _a_table(value: Any) -> Any:
    if not isinstance(value, dict):
        raise PydanticCustomError("unknown_key", "unknown key (a system is a table, [NAME])")
    return value


class TopLevelSystemsFile(_Defaults):
    """systems.toml without a `[systems]` table: every other top-level key is a system's table."""

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, Annotated[SystemEntry, BeforeValidator(_a_table)]]


@dataclass(frozen=True)
class System:
    """A system with the file's defaults applied."""

    name: str
    family: str
    cites: bool = False
    schema_sha256: str | None = None
    schema_version: str | None = None


@dataclass
class Systems:
    systems: dict[str, System]
    citing: str | None = None
    path: Path | None = None

    def family(self, name: str) -> str:
        return self.systems[name].family


def load_systems(path: Path) -> Systems:
    """systems.toml, parsed by `SystemsFile` (or `TopLevelSystemsFile`), defaults applied."""
    path = Path(path)
    data = read_toml(path)
    parsed = parse(SystemsFile if "systems" in data else TopLevelSystemsFile, data, path)
    tables = parsed.systems if isinstance(parsed, SystemsFile) else dict(parsed.model_extra or {})
    if not tables:
        raise GtkitError("no systems: add a [systems.NAME] table per system (family, cites, schema_sha256)", path)
    systems = {}
    for name, entry in sorted(tables.items()):
        version = entry.schema_version if entry.schema_version is not None else parsed.schema_version
        systems[name] = System(name=name, family=entry.family, cites=entry.cites,
                               schema_sha256=entry.schema_sha256 or parsed.schema_sha256,
                               schema_version=None if version is None else str(version))
    if parsed.citing is not None and parsed.citing not in systems:
        raise GtkitError(f"citing = {parsed.citing!r} names no system of this file", path)
    return Systems(systems=systems, citing=parsed.citing, path=path)


def schema_version(schema: dict[str, Any]) -> str | None:
    """The schema's `version` (or `x-version`), as text."""
    for k in ("version", "x-version"):
        v = schema.get(k)
        if isinstance(v, (str, int, float)) and not isinstance(v, bool):
            return str(v)
    return None


def check_schema_hash(systems: Systems, used: list[str], schema_hash: str, version: str | None = None) -> None:
    """Refuse, naming them, the systems whose runs were produced for another schema version."""
    bad = []
    bump = False
    for name in used:
        sysinfo = systems.systems[name]
        declared = sysinfo.schema_sha256
        if declared is None:
            bad.append(f"{name} (declares no schema_sha256)")
        elif not schema_hash.startswith(declared):
            same_version = version is not None and sysinfo.schema_version == version
            bump |= same_version
            note = f", same version {version}" if same_version else ""
            bad.append(f"{name} (declares {declared[:12]}…{note})")
    if bad:
        hint = ("the schema changed without a version bump: a revised schema needs a new version, then rerun them"
                if bump else "rerun them against this schema, or give a revised schema a new version")
        raise GtkitError(f"runs not produced for this schema (sha256 {schema_hash}): {', '.join(bad)}; {hint}",
                         systems.path)


def choose_citing(systems: Systems, used: list[str], requested: str | None) -> str | None:
    """The one system whose boxes are used: --citing, else systems.toml `citing`, else the first that cites."""
    if requested is not None:
        if requested not in systems.systems:
            raise GtkitError(f"--citing {requested!r} is not a system of systems.toml", systems.path)
        return requested
    if systems.citing is not None:
        return systems.citing
    citers = [s for s in used if systems.systems[s].cites]
    return citers[0] if citers else None


@dataclass
class Inputs:
    docs: dict[str, Path]                       # doc_id -> pdf
    runs: dict[str, dict[str, Path]]            # doc_id -> system -> run file
    citations: dict[str, dict[str, Path]] = field(default_factory=dict)  # doc_id -> system -> citations file
    systems_used: list[str] = field(default_factory=list)


def discover(docs_dir: Path, runs_dir: Path, systems: Systems) -> Inputs:
    docs_dir, runs_dir = Path(docs_dir), Path(runs_dir)
    if not docs_dir.is_dir():
        raise GtkitError("not a folder (expected docs/<doc_id>.pdf)", docs_dir)
    if not runs_dir.is_dir():
        raise GtkitError("not a folder (expected runs/<system>/<doc_id>.json)", runs_dir)
    docs = {p.stem: p for p in sorted(docs_dir.glob("*.pdf"))}
    for doc_id, p in docs.items():
        if not DOC_ID.match(doc_id):
            raise GtkitError(f"doc id {doc_id!r} must match {DOC_ID.pattern}", p)
    runs: dict[str, dict[str, Path]] = {}
    cites: dict[str, dict[str, Path]] = {}
    used = []
    for sdir in sorted(p for p in runs_dir.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if sdir.name not in systems.systems:
            raise GtkitError(f"system {sdir.name!r} has runs ({sdir}) but is missing from systems.toml", systems.path)
        used.append(sdir.name)
        for f in sorted(sdir.glob("*.json")):
            if f.name.endswith(CITATIONS_SUFFIX):
                cites.setdefault(f.name[: -len(CITATIONS_SUFFIX)], {})[sdir.name] = f
                continue
            doc_id = f.stem
            if doc_id not in docs:
                raise GtkitError(f"run for doc {doc_id!r} but there is no {docs_dir / (doc_id + '.pdf')}", f)
            runs.setdefault(doc_id, {})[sdir.name] = f
    if not used:
        raise GtkitError("no system folders (expected runs/<system>/<doc_id>.json)", runs_dir)
    absent = [s for s in systems.systems if s not in used]
    if absent:
        raise GtkitError(f"system {absent[0]!r} is listed but has no runs folder ({runs_dir / absent[0]})"
                         + (f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""), systems.path)
    families = {systems.family(s) for s in used}
    if len(families) < 2:
        raise GtkitError(f"every system is of the family {families.pop()!r}: consensus needs independent systems "
                         "from at least two model families", systems.path)
    if not docs:
        raise GtkitError("no PDFs (expected docs/<doc_id>.pdf)", docs_dir)
    for doc_id, p in docs.items():
        if doc_id not in runs:
            raise GtkitError(f"no system has a run for this document (expected runs/<system>/{doc_id}.json)", p)
    return Inputs(docs=docs, runs={d: runs[d] for d in docs}, citations=cites, systems_used=used)


def read_run(path: Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise GtkitError(f"a run must be a JSON object, got {type(data).__name__}", path)
    return data


def read_citations(path: Path) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """Well-formed citations by pointer, and how many malformed entries were dropped."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise GtkitError("citations must be a JSON object mapping JSON Pointers to lists of {page, box}", path)
    out: dict[str, list[dict[str, Any]]] = {}
    dropped = 0
    for pointer, entries in data.items():
        if not (isinstance(pointer, str) and (pointer == "" or pointer.startswith("/")) and isinstance(entries, list)):
            dropped += 1
            continue
        good = []
        for c in entries:
            page = c.get("page") if isinstance(c, dict) else None
            if not isinstance(page, int) or isinstance(page, bool) or page < 1:
                dropped += 1
                continue
            box = c.get("box")
            if box is not None and not (isinstance(box, list) and len(box) == 4
                                        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in box)):
                dropped += 1
                box = None
            good.append({"page": page, "box": box})
        out[pointer] = good
    return out, dropped


@dataclass
class DocInfo:
    """A document's page count and page sizes (points); its text once a cause needs it."""

    pages: int
    sizes: list[tuple[float, float]]
    text: str | None = None


def pdf_info(path: Path) -> DocInfo:
    try:
        with pymupdf.open(path) as doc:
            sizes = [(round(p.rect.width, 3), round(p.rect.height, 3)) for p in doc]
    except Exception as e:  # any unreadable PDF is one line
        raise GtkitError(f"cannot open PDF: {e}", path) from None
    if not sizes:
        raise GtkitError("PDF has no pages", path)
    return DocInfo(pages=len(sizes), sizes=sizes)


def pdf_text(path: Path) -> str:
    """The document's text, whitespace collapsed and casefolded."""
    with pymupdf.open(path) as doc:
        return " ".join(" ".join(p.get_text().split()) for p in doc).casefold()
