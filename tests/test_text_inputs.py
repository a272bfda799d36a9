"""What every reader of a text file shares (`gtkit.files.read`): JSON (and TOML) nested past `MAX_JSON_DEPTH` is
refused in one line naming the file, at any depth, never a RecursionError."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import INVOICE, INVOICE_SCHEMA, make_bundle
from helpers import run_cli as run
from hypothesis import given
from hypothesis import strategies as st

from gtkit.errors import GtkitError
from gtkit.files.read import MAX_JSON_DEPTH, json_depth, parse_json

DEPTHS = [3_000, 100_000]


def nested_text(levels: int, leaf: str = "1") -> str:
    """`levels` arrays and objects inside one another, alternating, as JSON text."""
    opening = "".join('{"a": ' if k % 2 else "[" for k in range(levels))
    closing = "".join("}" if k % 2 else "]" for k in reversed(range(levels)))
    return opening + leaf + closing


@given(st.integers(0, 2 * MAX_JSON_DEPTH), st.sampled_from(["1", "[]", "{}", '"x"']))
def test_json_is_read_to_the_limit_and_refused_past_it(levels, leaf):  # type: ignore[no-untyped-def]
    text = nested_text(levels, leaf)
    depth = levels + (leaf in ("[]", "{}"))
    if depth <= MAX_JSON_DEPTH:
        assert parse_json(text, "f.json") == json.loads(text)
        assert json_depth(json.loads(text)) == depth
    else:
        with pytest.raises(GtkitError, match=f"f.json: nests objects and arrays more than {MAX_JSON_DEPTH} levels"):
            parse_json(text, "f.json")


@pytest.fixture()
def bundle(tmp_path: Path) -> Path:
    return make_bundle(tmp_path / "b", INVOICE_SCHEMA, INVOICE, doc_id="inv")


@pytest.mark.parametrize("levels", DEPTHS)
def test_check_names_a_schema_json_nested_too_deep(bundle, capsys, levels):  # type: ignore[no-untyped-def]
    (bundle / "schema.json").write_text(nested_text(levels))
    code, out, err = run(["check", bundle], capsys)
    assert code == 1 and "Traceback" not in err and "Recursion" not in out + err, err
    assert f"{bundle / 'schema.json'}: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep" in out


@pytest.mark.parametrize("levels", DEPTHS)
def test_check_names_a_gt_json_nested_too_deep(bundle, capsys, levels):  # type: ignore[no-untyped-def]
    gt = json.loads((bundle / "gt.json").read_text())
    gt["provenance"]["parameters"] = "@DEEP@"
    (bundle / "gt.json").write_text(json.dumps(gt).replace('"@DEEP@"', nested_text(levels)))
    code, out, err = run(["check", bundle], capsys)
    assert code == 1 and "Traceback" not in err and "Recursion" not in out + err, err
    assert f"{bundle / 'gt.json'}: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep" in out


@pytest.mark.parametrize("levels", DEPTHS)
def test_check_names_the_line_of_a_dataset_jsonl_nested_too_deep(bundle, capsys, levels):  # type: ignore[no-untyped-def]
    (bundle.parent / "dataset.jsonl").write_text('{"doc_id": "inv", "path": "b"}\n' + nested_text(levels) + "\n")
    code, out, err = run(["check", bundle.parent], capsys)
    assert code == 1 and "Traceback" not in err and "Recursion" not in out + err, err
    assert f"{bundle.parent / 'dataset.jsonl'}: line 2: nests objects and arrays more than" in out


@pytest.mark.parametrize("levels", DEPTHS)
def test_a_prediction_nested_too_deep_scores_zero_with_the_reason(bundle, tmp_path, capsys, levels):  # type: ignore[no-untyped-def]
    pred = tmp_path / "pred"
    pred.mkdir()
    (pred / "inv.json").write_text(nested_text(levels))
    code, out, err = run(["score", "--gt", bundle, "--pred", pred, "--json"], capsys)
    assert code == 0, err
    reason = json.loads(out)["documents"][0]
    assert "nests objects and arrays more than" in json.dumps(reason) and "Recursion" not in out


@pytest.mark.parametrize("levels", DEPTHS)
def test_a_toml_file_nested_too_deep_is_one_line(tmp_path, capsys, levels):  # type: ignore[no-untyped-def]
    plan = tmp_path / "plan.toml"
    plan.write_text("x = " + "[" * levels + "]" * levels + "\n")
    code, _, err = run(["build", plan, "--out", tmp_path / "o"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Recursion" not in err, err
    assert f"{plan}: nests objects and arrays more than {MAX_JSON_DEPTH} levels deep" in err


# --- a byte-order mark is accepted wherever gtkit reads text --------------------------------------------------

BOM = "\ufeff"


def test_check_reads_json_and_json_lines_with_a_byte_order_mark(bundle, capsys):  # type: ignore[no-untyped-def]
    for name in ("gt.json", "schema.json"):
        (bundle / name).write_text(BOM + (bundle / name).read_text(encoding="utf-8"), encoding="utf-8")
    (bundle.parent / "dataset.jsonl").write_text(BOM + '{"doc_id": "inv", "path": "b"}\n', encoding="utf-8")
    code, out, err = run(["check", bundle.parent], capsys)
    assert code == 0 and "ok: 1 bundle(s) checked" in out, out + err


def test_adjudicate_reads_decisions_with_a_byte_order_mark(tmp_path, capsys):  # type: ignore[no-untyped-def]
    from test_consensus import consensus_args, workspace

    outputs = {"a": {"name": "Acme", "po": "PO-1", "date": None, "items": [{"id": "I1", "qty": 1}]},
               "b": {"name": "Acme", "po": "PO-1", "date": "2021-01-02", "items": [{"id": "I1", "qty": 1}]},
               "c": {"name": "Acme", "po": "PO-1", "items": [{"id": "I1", "qty": 1}]}}
    ws = workspace(tmp_path, outputs, {"a": "A", "b": "B", "c": "C"})
    assert run(consensus_args(ws), capsys)[0] == 0
    decisions = tmp_path / "decisions.jsonl"
    decisions.write_text(BOM + json.dumps({"id": "doc1#/date", "action": "null", "who": "ana"}) + "\n",
                         encoding="utf-8")
    code, out, err = run(["adjudicate", ws["out"], "--decisions", decisions], capsys)
    assert code == 0, out + err


def test_build_reads_a_plan_with_a_byte_order_mark(tmp_path, capsys):  # type: ignore[no-untyped-def]
    plan = tmp_path / "plan.toml"
    plan.write_text(BOM + 'seed = 1\n\n[[families]]\nfamily = "creditor_matrix"\nrecords = [3]\n', encoding="utf-8")
    code, out, err = run(["build", plan, "--out", tmp_path / "ds", "--workers", "1"], capsys)
    assert code == 0 and (tmp_path / "ds" / "dataset.jsonl").is_file(), out + err


OBJECTS = st.dictionaries(st.text(min_size=1, max_size=5), st.none() | st.integers() | st.text(max_size=5), max_size=4)


@given(st.lists(OBJECTS, min_size=1, max_size=4))
def test_every_reader_gives_the_same_with_and_without_a_byte_order_mark(tmp_path_factory, objects):  # type: ignore[no-untyped-def]
    import tomli_w

    from gtkit.files.read import read_json, read_jsonl, read_toml

    folder = tmp_path_factory.mktemp("bom")
    texts = {"a.json": json.dumps(objects, ensure_ascii=False),
             "a.jsonl": "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects),
             "a.toml": tomli_w.dumps({"rows": [{k: v for k, v in o.items() if v is not None} for o in objects]})}
    readers = {"a.json": read_json, "a.jsonl": read_jsonl, "a.toml": read_toml}
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
        (folder / f"bom-{name}").write_text(BOM + text, encoding="utf-8")
        assert readers[name](folder / f"bom-{name}") == readers[name](folder / name)


SEPARATORS = st.sampled_from(["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c", "\r"])


@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=3), st.text(max_size=3).flatmap(
    lambda t: SEPARATORS.map(lambda sep: t + sep + t)), min_size=1, max_size=3), min_size=1, max_size=4))
def test_json_lines_keep_values_holding_unicode_line_separators(tmp_path_factory, objects):  # type: ignore[no-untyped-def]
    """gtkit writes JSON Lines with ensure_ascii=False, so U+2028 and its kin appear raw inside values: only \\n
    ends a line."""
    from gtkit.files.read import read_jsonl
    from gtkit.synth.data import _rows
    from gtkit.synth.family import get_family

    path = tmp_path_factory.mktemp("sep") / "a.jsonl"
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects), encoding="utf-8")
    assert [o for _, o in read_jsonl(path)] == objects
    assert [o for _, o in _rows(path, get_family("creditor_matrix"))] == objects  # synth --data's reader
