"""Typed consensus inputs: systems.toml refused in one line naming file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from gtkit.cli import main
from test_consensus import consensus_args, workspace

FAMILIES = {"a": "A", "b": "B", "c": "C"}
OUTPUTS = {"a": {"name": "Acme", "po": "PO-1"}, "b": {"name": "Apex", "po": "PO-1"}, "c": {"name": "Acne", "po": "PO-1"}}


def run_cli(args: list, capsys) -> tuple[int, str, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def assert_refused(code: int, err: str, *names: str) -> None:
    """Exit status 2 and exactly one line on stderr, no traceback, naming every one of `names`."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gtkit: error: "), err
    assert "Traceback" not in err
    for name in names:
        assert name in lines[0], (name, lines[0])


# --- systems.toml -----------------------------------------------------------------------------------------------


def _edit_system_a(ws: dict[str, Path], old: str, new: str) -> None:
    text = ws["systems"].read_text()
    head, rest = text.split("[systems.b]", 1)
    assert old in head
    ws["systems"].write_text(head.replace(old, new, 1) + "[systems.b]" + rest)


@pytest.mark.parametrize("case, old, new, pointer, message", [
    ("unknown key", 'family = "A"', 'family = "A"\ncolour = "red"', "/systems/a/colour", "unknown key"),
    ("wrong type", "cites = false", 'cites = "no"', "/systems/a/cites", "valid boolean"),
    ("missing key", 'family = "A"\n', "", "/systems/a/family", "required key is missing"),
])
def test_systems_toml_refused_by_key(tmp_path, capsys, case, old, new, pointer, message):
    ws = workspace(tmp_path, OUTPUTS, FAMILIES)
    _edit_system_a(ws, old, new)
    code, _, err = run_cli(consensus_args(ws), capsys)
    assert_refused(code, err, str(ws["systems"]), pointer, message)
    assert not ws["out"].exists()


def test_systems_toml_without_a_systems_table(tmp_path, capsys):
    ws = workspace(tmp_path, OUTPUTS, FAMILIES)
    ws["systems"].write_text(ws["systems"].read_text().replace("[systems.", "["))
    code, _, err = run_cli(consensus_args(ws), capsys)
    assert code == 0, err
    # there, a key that is not a table is no system
    ws["systems"].write_text('citng = "a"\n' + ws["systems"].read_text())
    code, _, err = run_cli(consensus_args(ws, "--force"), capsys)
    assert_refused(code, err, str(ws["systems"]), "/citng", "unknown key")
