"""`--force` replaces only what gtkit itself wrote, never an input: one line, exit 2, nothing touched."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from gtkit.cli import main
from gtkit.synth.pipeline import synth
from gtkit.testing.simulate import simulate


def run(argv: list[str], capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    try:
        main([str(a) for a in argv])
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    captured = capsys.readouterr()
    return code, captured.err


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` with its content hash: what must survive a refused command."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(capsys, argv: list[str], root: Path, needle: str) -> None:  # type: ignore[no-untyped-def]
    before = tree(root)
    code, err = run(argv, capsys)
    assert code == 2, err
    assert needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert tree(root) == before  # nothing touched, no staging folder left
    assert not [p for p in root.rglob("*.partial")]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("force")
    synth("creditor_matrix", out=root / "W" / "bundle", seed=1, records=20)
    simulate(root / "ws", seed=3, n_docs=1, n_rows=5)
    return root


def test_degrade_never_replaces_the_folder_holding_its_input(work, capsys):  # type: ignore[no-untyped-def]
    w = work / "W"
    refused(capsys, ["degrade", w / "bundle", "--recipe", "fax", "--out", w, "--force"], work, "must not be, contain")
    refused(capsys, ["degrade", w / "bundle", "--recipe", "fax", "--out", w / "bundle", "--force"], work, "must not be")
    refused(capsys, ["degrade", w / "bundle", "--recipe", "fax", "--out", w / "bundle" / "x"], work, "lie inside")


@pytest.mark.parametrize("target", ["docs", "runs", "."])
def test_consensus_never_replaces_its_inputs(work, capsys, target):  # type: ignore[no-untyped-def]
    ws = work / "ws"
    argv = ["consensus", "--schema", ws / "schema.json", "--docs", ws / "docs", "--runs", ws / "runs",
            "--systems", ws / "systems.toml", "--out", ws / target if target != "." else ws, "--force"]
    refused(capsys, argv, work, "input")


def test_synth_never_replaces_the_folder_of_its_data(work, tmp_path, capsys):  # type: ignore[no-untyped-def]
    data = tmp_path / "recs.jsonl"
    data.write_text('{"owner_name": "X"}\n')
    refused(capsys, ["synth", "--family", "unclaimed_property", "--data", data, "--out", tmp_path, "--force"],
            tmp_path, "must not be, contain")


def test_show_writes_only_png_files(work, tmp_path, capsys):  # type: ignore[no-untyped-def]
    bundle = work / "W" / "bundle"
    refused(capsys, ["show", bundle, "--out", bundle / "document.pdf", "--force"], work, ".png")
    refused(capsys, ["show", bundle, "--out", tmp_path / "page.jpg"], work, ".png")
    mine = tmp_path / "mine.png"
    mine.write_text("not a picture")
    refused(capsys, ["show", bundle, "--out", mine, "--force"], tmp_path, "not an output gtkit wrote")
    folder = tmp_path / "dir.png"
    folder.mkdir()
    refused(capsys, ["show", bundle, "--out", folder, "--force"], tmp_path, "not an output gtkit wrote")
    out = tmp_path / "p.png"
    assert run(["show", bundle, "--out", out], capsys)[0] == 0
    assert run(["show", bundle, "--out", out, "--force", "--page", "1"], capsys)[0] == 0


def test_audit_never_replaces_a_run_file(work, capsys):  # type: ignore[no-untyped-def]
    ws = work / "ws"
    run_file = next((ws / "runs").rglob("*.json"))
    refused(capsys, ["audit", "--gt", work / "W" / "bundle", "--runs", ws / "runs", "--out", run_file, "--force"],
            work, "input")


def test_output_under_a_file_or_the_current_folder_is_one_line(work, tmp_path, capsys, monkeypatch):  # type: ignore[no-untyped-def]
    afile = tmp_path / "f.txt"
    afile.write_text("x")
    refused(capsys, ["synth", "--family", "creditor_matrix", "--records", "5", "--out", afile / "sub"], tmp_path,
            "cannot create the output")
    monkeypatch.chdir(tmp_path)
    for target in (".", ".."):
        refused(capsys, ["synth", "--family", "creditor_matrix", "--records", "5", "--out", target, "--force"],
                tmp_path, "current folder")
    assert os.listdir(tmp_path) == ["f.txt"]
