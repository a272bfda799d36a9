"""Schemas gtkit cannot walk (recursive, absurdly deep) are refused in one line, never a RecursionError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.files.read import json_depth
from gtkit.schema import MAX_NESTING, check_schema

NODE = {"type": "object", "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/node"}}}
RECURSIVE = {"$defs": {"node": NODE}, "type": "object", "properties": {"root": {"$ref": "#/$defs/node"}}}
SHARED = {"$defs": {"addr": {"type": "object", "properties": {"city": {"type": "string"}}}},
          "type": "object", "properties": {"home": {"$ref": "#/$defs/addr"}, "work": {"$ref": "#/$defs/addr"}}}


def nested(levels: int) -> dict:
    schema: dict = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def test_recursive_schema_is_refused_and_shared_refs_are_not():
    with pytest.raises(GtkitError, match=r"recursive schema: #/\$defs/node contains itself"):
        check_schema(RECURSIVE, "s.json")
    assert check_schema(SHARED, "s.json") is SHARED


def test_nesting_limits():
    check_schema(nested(MAX_NESTING), "s.json")
    with pytest.raises(GtkitError, match="more than 64 levels deep"):
        check_schema(nested(MAX_NESTING + 2), "s.json")
    with pytest.raises(GtkitError, match="JSON levels deep"):
        check_schema(nested(300), "s.json")


@given(st.recursive(st.integers(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                    max_leaves=30))
def test_json_depth_counts_nesting(value):
    def depth(v):  # the recursive definition, for small values
        if isinstance(v, dict | list):
            children = list(v.values()) if isinstance(v, dict) else v
            return 1 + max((depth(c) for c in children), default=0)
        return 0
    assert json_depth(value) == depth(value)


@pytest.mark.parametrize("schema", [RECURSIVE, nested(300)])
def test_consensus_on_such_a_schema_is_one_line(tmp_path, capsys, schema):
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    for d in ("docs", "runs"):
        (tmp_path / d).mkdir()
    (tmp_path / "systems.toml").write_text("")
    with pytest.raises(SystemExit) as exc:
        main(["consensus", "--schema", str(tmp_path / "schema.json"), "--docs", str(tmp_path / "docs"),
              "--runs", str(tmp_path / "runs"), "--systems", str(tmp_path / "systems.toml"),
              "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "schema.json" in err, err


# --- a schema gtkit cannot walk leaf by leaf: refused wherever a task schema is read ---------------------------

WRAPPED = {"name": "invoice", "description": "An invoice.",
           "schema_definition": {"type": "object", "properties": {"total": {"type": "number"}}}}
UNWALKABLE = [({}, "has no type, properties or items at the top level"),
              (WRAPPED, "the schema is wrapped: use its schema_definition"),
              ({"type": "array", "items": {"type": "string"}}, "describes an array"),
              ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "describes a single value")]
TASK_ROOT = 'top level must be an object schema ("type": "object" with "properties")'


def one_line(argv: list, capsys) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("schema, why", UNWALKABLE)
def test_consensus_refuses_a_schema_it_cannot_walk(tmp_path, capsys, schema, why):  # type: ignore[no-untyped-def]
    (tmp_path / "schema.json").write_text(json.dumps(schema))
    for d in ("docs", "runs"):
        (tmp_path / d).mkdir()
    (tmp_path / "systems.toml").write_text("")
    err = one_line(["consensus", "--schema", tmp_path / "schema.json", "--docs", tmp_path / "docs", "--runs",
                    tmp_path / "runs", "--systems", tmp_path / "systems.toml", "--out", tmp_path / "o"], capsys)
    assert f"{tmp_path / 'schema.json'}: " in err and TASK_ROOT in err and why in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("schema, why", UNWALKABLE)
def test_check_refuses_a_bundle_schema_it_cannot_walk(tmp_path, capsys, schema, why):  # type: ignore[no-untyped-def]
    from helpers import INVOICE, INVOICE_SCHEMA, make_bundle

    bundle = make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE)
    (bundle / "schema.json").write_text(json.dumps(schema))
    with pytest.raises(SystemExit) as exc:
        main(["check", str(bundle)])
    out = capsys.readouterr().out
    assert exc.value.code == 1 and f"{bundle / 'schema.json'}" in out and TASK_ROOT in out and why in out, out


def test_import_refuses_a_wrapped_schema_and_says_how_to_unwrap_it(tmp_path, capsys):  # type: ignore[no-untyped-def]
    import pymupdf

    src = tmp_path / "src"
    src.mkdir()
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Total 12.5")
    pdf.save(src / "a.pdf")
    case = {"tags": ["T1.a"], "data_schema": WRAPPED, "expected_output": {"total": 12.5},
            "_field_rules": {"total": {"evidence": [{"page": 1, "value": 12.5}]}}}
    (src / "a.test.json").write_text(json.dumps(case))
    err = one_line(["import", src, "--format", "extractbench", "--out", tmp_path / "eb"], capsys)
    assert "a.test.json: " in err and "the schema is wrapped: use its schema_definition" in err
    assert not (tmp_path / "eb").exists()


def test_synth_refuses_a_family_schema_it_cannot_walk(tmp_path, capsys, monkeypatch, fresh_family_cache):  # type: ignore[no-untyped-def]
    import shutil

    from gtkit.paths import FAMILIES_DIR

    shutil.copytree(FAMILIES_DIR / "creditor_matrix", tmp_path / "families" / "creditor_matrix")
    schema_file = tmp_path / "families" / "creditor_matrix" / "schema.json"
    wrapped = {"name": "creditor matrix", "schema_definition": json.loads(schema_file.read_text())}
    schema_file.write_text(json.dumps(wrapped))
    monkeypatch.setenv("GTKIT_FAMILIES_PATH", str(tmp_path / "families"))
    err = one_line(["synth", "--family", "creditor_matrix", "--records", "3", "--out", tmp_path / "o"], capsys)
    assert f"{schema_file}: " in err and "the schema is wrapped: use its schema_definition" in err
