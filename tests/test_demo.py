"""The README's main job, end to end on a small document."""

from __future__ import annotations

import json

import pytest

from gtkit.cli import main


def test_demo_synthesizes_degrades_checks_draws_and_scores(tmp_path, capsys):
    out = tmp_path / "demo"
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(out), "--records", "120"])
    assert exc.value.code in (0, None), capsys.readouterr().err
    assert (out / "clean-page1.png").read_bytes()[:4] == b"\x89PNG"
    scores = json.loads((out / "scores.json").read_text())
    assert scores["self"]["overall"]["value_f1"] == 1.0
    assert scores["self"]["overall"]["word_f1"] == 1.0
    system = scores["simulated_system"]["overall"]
    assert 0.8 < system["value_f1"] < 1.0
    assert [d["doc_id"] for d in scores["self"]["documents"]] == ["creditor_matrix-s7", "creditor_matrix-s7-fax-s7"]
    with pytest.raises(SystemExit) as exc:
        main(["demo", "--out", str(out), "--records", "120"])
    assert exc.value.code == 2 and "already exists" in capsys.readouterr().err
