"""The shared format: models, generated JSON Schema, atomic writes, hashes, datasets."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle, make_gt

from gtkit.errors import GtkitError
from gtkit.files.write import write_bytes_atomic
from gtkit.format.bundle import read_bundle, read_bundles
from gtkit.format.schema_export import gt_json_schema, rendered
from gtkit.format.writer import gt_bytes, write_bundle


def _semantic(schema):  # type: ignore[no-untyped-def]
    """A JSON Schema as parsed JSON without what pydantic versions differ on and JSON Schema does not: an
    `"additionalProperties": true` (the default; pydantic 2.10 writes it for a `dict[str, Any]`, 2.7 does not)."""
    if isinstance(schema, dict):
        return {k: _semantic(v) for k, v in schema.items() if not (k == "additionalProperties" and v is True)}
    if isinstance(schema, list):
        return [_semantic(v) for v in schema]
    return schema


def test_shipped_json_schema_is_in_sync_with_models():
    for path, text in rendered().items():
        shipped, generated = json.loads(path.read_text(encoding="utf-8")), json.loads(text)
        assert _semantic(shipped) == _semantic(generated), f"{path.name} drifted: run scripts/export_format_schema.py"


def test_the_schema_comparison_ignores_only_a_default_additional_properties():
    schema = {"type": "object", "properties": {"p": {"type": "object", "additionalProperties": True}}}
    assert _semantic(schema) == {"type": "object", "properties": {"p": {"type": "object"}}}
    closed = {"type": "object", "additionalProperties": False}
    assert _semantic(closed) == closed
    assert _semantic({"additionalProperties": {"type": "string"}}) != {}


def test_generated_schema_accepts_what_models_write_and_rejects_what_they_reject():
    _, gt = make_gt(INVOICE_SCHEMA, INVOICE)
    data = json.loads(gt_bytes(gt))
    jsonschema.validate(data, gt_json_schema())
    bad = json.loads(gt_bytes(gt))
    bad["fields"][0]["readings"][0]["evidence"][0]["box"] = [0.5, 0.1, 1.5, 0.2]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, gt_json_schema())


def test_round_trip_and_hash_verification(tmp_path):
    b = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE)
    bundle = read_bundle(b)
    assert bundle.gt.expected == INVOICE
    (b / "document.pdf").write_bytes((b / "document.pdf").read_bytes() + b"\n%tampered")
    with pytest.raises(GtkitError, match="hash mismatch"):
        read_bundle(b)


def test_schema_hash_ignores_formatting_but_not_content(tmp_path):
    b = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE)
    (b / "schema.json").write_text(json.dumps(INVOICE_SCHEMA))  # reformatted, same content
    read_bundle(b)
    changed = dict(INVOICE_SCHEMA, description="changed")
    (b / "schema.json").write_text(json.dumps(changed))
    with pytest.raises(GtkitError, match=re.escape("schema.json: hash mismatch")):
        read_bundle(b)


def test_unknown_format_version_is_refused(tmp_path):
    b = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE)
    data = json.loads((b / "gt.json").read_text())
    data["format"] = "gtkit.gt/9"
    (b / "gt.json").write_text(json.dumps(data))
    with pytest.raises(GtkitError, match=re.escape("unknown format version 'gtkit.gt/9'")):
        read_bundle(b)


def test_write_refuses_to_overwrite_without_force(tmp_path):
    pdf, gt = make_gt(INVOICE_SCHEMA, INVOICE)
    write_bundle(tmp_path / "b", pdf=pdf, schema=INVOICE_SCHEMA, gt=gt)
    before = (tmp_path / "b" / "gt.json").read_bytes()
    with pytest.raises(GtkitError, match="already exists"):
        write_bundle(tmp_path / "b", pdf=pdf, schema=INVOICE_SCHEMA, gt=gt)
    write_bundle(tmp_path / "b", pdf=pdf, schema=INVOICE_SCHEMA, gt=gt, force=True)
    assert (tmp_path / "b" / "gt.json").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["b"], "no staging leftovers"


def test_failed_atomic_write_leaves_nothing(tmp_path, monkeypatch):
    import os

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)  # the rename of a replacement
    monkeypatch.setattr(os, "link", boom)  # the link of a new file
    for force in (False, True):
        with pytest.raises(OSError):
            write_bytes_atomic(tmp_path / "x.json", b"{}", force=force)
        assert list(tmp_path.iterdir()) == []


def test_dataset_path_may_not_escape(tmp_path):
    make_bundle(tmp_path / "ds" / "a", INVOICE_SCHEMA, INVOICE, doc_id="a")
    (tmp_path / "ds" / "dataset.jsonl").write_text('{"doc_id": "a", "path": "a"}\n')
    assert [b.doc_id for b in read_bundles(tmp_path / "ds")] == ["a"]
    (tmp_path / "ds" / "dataset.jsonl").write_text('{"doc_id": "a", "path": "../a"}\n')
    with pytest.raises(GtkitError, match="escapes the dataset folder"):
        read_bundles(tmp_path / "ds")


def test_null_reading_with_evidence_is_invalid():
    from pydantic import ValidationError

    from gtkit.format.models import Evidence, Reading

    with pytest.raises(ValidationError):
        Reading(value=None, evidence=[Evidence(page=1)])


def test_outputs_get_ordinary_permissions_not_private_temp_ones(tmp_path):
    import os
    import stat

    old = os.umask(0o022)
    try:
        pdf, gt = make_gt(INVOICE_SCHEMA, INVOICE)
        write_bundle(tmp_path / "b", pdf=pdf, schema=INVOICE_SCHEMA, gt=gt)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "b").stat().st_mode) == 0o755
    for name in ("document.pdf", "schema.json", "gt.json"):
        assert stat.S_IMODE((tmp_path / "b" / name).stat().st_mode) == 0o644, name


def test_a_gt_json_without_its_format_version_is_refused_by_every_reader(tmp_path):
    from gtkit.check import check_bundle
    from gtkit.pipelines import CHECKS

    b = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE)
    data = json.loads((b / "gt.json").read_text())
    del data["format"]
    (b / "gt.json").write_text(json.dumps(data))
    with pytest.raises(GtkitError, match="format"):
        read_bundle(b)
    with pytest.raises(GtkitError, match="format"):
        read_bundle(b, raw_fields=True)
    assert any("format" in p.pointer + p.message for p in check_bundle(b, CHECKS))
