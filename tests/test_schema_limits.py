"""Schemas gtkit cannot walk (recursive, absurdly deep) are refused in one line, never a RecursionError."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.schema import MAX_NESTING, check_schema, json_depth

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


@given(st.recursive(st.integers(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3), max_leaves=30))
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
              "--runs", str(tmp_path / "runs"), "--systems", str(tmp_path / "systems.toml"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and len(err.strip().splitlines()) == 1 and "schema.json" in err, err
