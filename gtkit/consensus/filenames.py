"""The names of the files a consensus dataset holds beside its bundles (queue, drawing list, report, audit trail),
and `jsonl`, the bytes of the JSON Lines ones."""

from __future__ import annotations

import json
from typing import Any

QUEUE_NAME, DRAW_NAME, AUDIT_NAME = "queue.jsonl", "draw.jsonl", "audit.jsonl"
REPORT_JSON, REPORT_MD = "report.json", "report.md"


def jsonl(items: list[dict[str, Any]]) -> bytes:
    """JSON Lines bytes, one object a line, UTF-8 as is."""
    return "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items).encode("utf-8")
