"""Tags measured from the drawn document, not copied from family.toml."""

from __future__ import annotations

from gtkit.synth.tags import measured_tags

DECLARED = {"task": ["T1.c", "T1.b"], "structure": ["S5", "S3", "S4", "S2"], "domain": "D7", "grounding": ["G1", "G4"]}


def entry(path: str, value, pages=(1,)):  # type: ignore[no-untyped-def]
    return {"path": path, "readings": [{"value": value, "evidence": [{"page": p} for p in pages]}]}


def test_declared_measured_tags_the_document_does_not_show_are_dropped():
    fields = [entry("/case", "X"), entry("/rows/0/name", "A"), entry("/rows/1/name", "B")]
    tags = measured_tags(DECLARED, "rows", 2, fields, pages=1)
    assert tags == {"task": ["T1.c"], "perception": [], "structure": ["S5"], "length": "L1", "domain": "D7",
                    "grounding": ["G1"]}


def test_tags_the_document_shows_are_added():
    fields = [entry("/rows/0/name", "A", (1,)), entry("/rows/0/city", "X", (2,)),  # one record over two pages
              entry("/rows/1/ok", True, (2,)),                                    # a checkbox
              entry("/rows/1/thread/0/text", "hi", (12,))]                        # a nested record's value
    tags = measured_tags({}, "rows", 1001, fields, pages=12)
    assert tags["structure"] == ["S3", "S4"] and tags["task"] == ["T1.b"] and tags["grounding"] == ["G3", "G4"]
    assert tags["length"] == "L2"
