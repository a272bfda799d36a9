"""The documentation lives in the repository and keeps up with the code.

- docs/format.md names every field of the format models (so the page cannot silently fall behind
  gtkit/format/models.py), every trust level and every leniency;
- relative links in README.md and docs/*.md point at files (and headings) that exist;
- no tracked file outside tests/ points at `shared/`, a folder outside the repository that a clone
  does not have.
"""

from __future__ import annotations

import re
import subprocess
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from gtkit.format.models import (
    LENIENCIES,
    DatasetEntry,
    DocumentInfo,
    Evidence,
    FieldEntry,
    GroundTruth,
    ParentRef,
    Provenance,
    Reading,
    SchemaInfo,
    Tags,
    Trust,
)

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# the tests also run against an installed wheel, from a copy of tests/ without the repository around it
pytestmark = pytest.mark.skipif(not DOCS.is_dir(), reason="docs/ is not beside the tests (testing an installed wheel)")
FORMAT_MODELS = (GroundTruth, DocumentInfo, SchemaInfo, Provenance, ParentRef, Tags, FieldEntry, Reading, Evidence,
                 DatasetEntry)


def json_names(model: type[BaseModel]) -> list[str]:
    """The keys a model reads and writes in JSON (the alias where there is one: `schema_` is `schema`)."""
    return [f.alias or name for name, f in model.model_fields.items()]


@pytest.mark.parametrize("model", FORMAT_MODELS, ids=lambda m: m.__name__)
def test_format_doc_names_every_field_of_the_models(model):
    text = (DOCS / "format.md").read_text(encoding="utf-8")
    missing = [name for name in json_names(model) if f"`{name}`" not in text]
    assert not missing, f"docs/format.md does not document {model.__name__} field(s) {missing}"


def test_format_doc_names_every_trust_level_and_leniency():
    text = (DOCS / "format.md").read_text(encoding="utf-8")
    names = [*typing.get_args(Trust), *LENIENCIES]
    missing = [name for name in names if f"`{name}`" not in text]
    assert not missing, f"docs/format.md does not document {missing}"


LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """The anchors of a Markdown page's headings, as GitHub makes them (code blocks skipped)."""
    out, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#+\s+(.*)", line)):
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out


@pytest.mark.parametrize("page", ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in DOCS.glob("*.md"))])
def test_relative_links_point_at_existing_files_and_headings(page):
    source = ROOT / page
    broken = []
    for target in LINK.findall(source.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        path, _, anchor = target.partition("#")
        dest = source.parent.joinpath(path) if path else source
        if not dest.exists() or (anchor and dest.suffix == ".md" and anchor not in anchors(dest)):
            broken.append(target)
    assert not broken, f"{page}: broken links {broken}"


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or git is not installed)")
    return [name for name in out.decode("utf-8").split("\0") if name]


def test_no_tracked_file_outside_tests_mentions_shared_folder():
    offenders = []
    for name in tracked_files():
        if name.startswith("tests/"):
            continue
        path = ROOT / name
        if path.is_file() and b"shared/" in path.read_bytes():
            offenders.append(name)
    assert not offenders, f"these files point outside the repository (shared/): {offenders}"
