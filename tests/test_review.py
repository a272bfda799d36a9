"""gtkit review: the token gate, the loopback socket, bad input, and end to end in a real browser (Debian's
Chromium driven by Playwright): accept by key, edit, draw a box by dragging, reload and resume, a
server killed, then gtkit adjudicate applies the file."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from review_helpers import consensus_output, start_server

from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.format.bundle import read_bundle


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return consensus_output(tmp_path_factory.mktemp("review"))


@pytest.fixture()
def fresh(dataset, tmp_path) -> Path:
    """A copy of the consensus output that a test may decide on."""
    import shutil

    out = tmp_path / "gt"
    shutil.copytree(dataset, out)
    return out


@pytest.fixture()
def server(fresh):
    proc, url = start_server(fresh)
    yield fresh, proc, url
    if proc.poll() is None:
        proc.terminate()
        proc.wait(timeout=10)


def _request(url: str, *, data: bytes | None = None, headers: dict | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, headers=headers or {}, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _base_token(url: str) -> tuple[str, str]:
    base, token = url.split("/?token=")
    return base, token


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _files(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(folder)): (p.stat().st_mtime_ns, p.read_bytes())
            for p in folder.rglob("*") if p.is_file()}


def test_token_gate_and_loopback_only(server):
    ds, _proc, url = server
    base, token = _base_token(url)
    assert _request(url)[0] == 200
    for path in ("/", "/api/state", "/api/item/0", "/static/review.js", "/page/x/1.png", f"/?token={token[:-1]}x"):
        assert _request(base + path)[0] == 403, path
    assert _request(f"{base}/api/state?token={token}")[0] == 200
    body = json.dumps({"item": 0, "action": "accept"}).encode()
    # a POST with the token in the URL only (what a form on another site could send) is refused
    headers = {"Content-Type": "application/json"}
    assert _request(f"{base}/api/decide?token={token}", data=body, headers=headers)[0] == 403
    # a host name other than the loopback address (DNS rebinding) is refused
    assert _request(url, headers={"Host": "evil.example:80"})[0] == 403
    assert not (ds / "decisions.jsonl").exists()
    # the socket listens on 127.0.0.1 only (the kernel's own table)
    port = int(base.rsplit(":", 1)[1])
    listening = [ln.split()[1] for ln in Path("/proc/net/tcp").read_text().splitlines()[1:] if ln.split()[3] == "0A"]
    assert f"0100007F:{port:04X}" in listening
    assert not any(addr.endswith(f":{port:04X}") and addr != f"0100007F:{port:04X}" for addr in listening)
    assert not any(ln.split()[1].endswith(f":{port:04X}") for ln in
                   Path("/proc/net/tcp6").read_text().splitlines()[1:] if ln.split()[3] == "0A")


def test_decisions_are_checked_and_a_concurrent_edit_is_refused(server):
    ds, _proc, url = server
    base, token = _base_token(url)
    def post(body: object) -> tuple[int, bytes]:
        return _request(f"{base}/api/decide", data=json.dumps(body).encode(),
                        headers={"Content-Type": "application/json", "X-Gtkit-Token": token})

    before_files = _files(ds)
    status, answer = post({"item": 0, "action": "accept", "candidate": 7})
    assert status == 400 and b"candidate must be" in answer
    assert post({"item": 0, "action": "accept", "who": "mallory"})[0] == 400   # who/when/id come from the server
    assert post({"item": 0, "action": "frobnicate"})[0] == 400
    assert not (ds / "decisions.jsonl").exists()
    status, answer = post({"item": 0, "action": "accept", "candidate": 1})
    assert status == 200 and json.loads(answer)["line"] == 1
    # a row of the wrong type is refused after adjudication's session took it in: the session is rebuilt
    # from the file, and the same extra record can still be accepted
    extra = next(k for k, q in enumerate(_lines(ds / "queue.jsonl")) if q["kind"] == "extra_record")
    status, answer = post({"item": extra, "action": "edit", "text": '{"quantity": "many"}'})
    assert status == 400 and b"quantity" in answer
    assert post({"item": extra, "action": "accept"})[0] == 200
    assert post({"item": 0, "action": "null"})[0] == 400                         # decided twice
    after_files = _files(ds)   # the server wrote its decisions file and nothing else in the dataset
    assert {k: v for k, v in after_files.items() if k != "decisions.jsonl"} == before_files
    with open(ds / "decisions.jsonl", "a") as f:                              # someone else writes
        f.write(json.dumps({"id": "x#/y", "action": "null", "who": "bob"}) + "\n")
    before = (ds / "decisions.jsonl").read_bytes()
    status, answer = post({"item": 1, "action": "null"})
    assert status == 409 and b"changed by someone else" in answer
    assert (ds / "decisions.jsonl").read_bytes() == before


def test_bad_input_is_one_line_exit_2(tmp_path, dataset, fresh, capsys):
    not_consensus = tmp_path / "plain"
    not_consensus.mkdir()
    with pytest.raises(SystemExit) as e:
        main(["review", str(not_consensus), "--port", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "not a consensus output" in err and len(err.splitlines()) == 1
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    try:
        with pytest.raises(SystemExit) as e:
            main(["review", str(dataset), "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "is in use" in err and len(err.splitlines()) == 1
    # a decisions file that gtkit adjudicate would refuse
    (fresh / "decisions.jsonl").write_text(json.dumps({"id": "nope#/x", "action": "null", "who": "ana"}) + "\n")
    with pytest.raises(SystemExit) as e:
        main(["review", str(fresh), "--port", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "decisions.jsonl: line 1: unknown cell nope#/x" in err and len(err.splitlines()) == 1


def _title(page) -> str:
    return page.locator("#item-title").inner_text()


def _wait_item(page, item_id: str) -> None:
    """Wait for the page to show the item (failing with the page's own message)."""
    page.wait_for_function("id => document.getElementById('item-title').textContent === id"
                           " || document.getElementById('message').className === 'error'", arg=item_id)
    assert _title(page) == item_id, page.locator("#message").inner_text()


def test_review_in_a_browser_then_adjudicate(server, browser):
    ds, proc, url = server
    queue = _lines(ds / "queue.jsonl")
    draw = _lines(ds / "draw.jsonl")
    cells = [q for q in queue if q["kind"] == "cell"]
    assert len(cells) >= 3 and draw
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    base, _ = _base_token(url)
    requested, refused = [], []
    page.on("request", lambda r: requested.append(r.url))
    page.on("console", lambda m: refused.append(m.text) if m.type == "error" else None)
    page.on("response", lambda r: refused.append(r.url) if r.status >= 400 else None)
    page.goto(url)
    _wait_item(page, queue[0]["id"])

    # 1. accept the second candidate by its key
    first = cells[0]
    page.keyboard.press("2")
    _wait_item(page, queue[1]["id"])
    # 2. edit a value: e, type, Enter
    page.keyboard.press("e")
    page.keyboard.type("PO-REVIEWED")
    page.keyboard.press("Enter")
    _wait_item(page, queue[2]["id"])
    # 3. draw a box by dragging, then accept the first candidate with it
    page.wait_for_function("() => document.getElementById('page').complete")
    box = page.locator("#overlay").bounding_box()
    x0, y0 = box["x"] + box["width"] * 0.30, box["y"] + box["height"] * 0.20
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move(x0 + box["width"] * 0.10, y0 + box["height"] * 0.02, steps=5)
    page.mouse.up()
    assert page.locator("#overlay rect.drawn").count() == 1
    page.keyboard.press("1")
    _wait_item(page, queue[3]["id"])
    # 4. a box to draw: filter on it, drag, accept the box with "a"
    page.select_option("#filter-cause", "draw")
    _wait_item(page, draw[0]["id"] if "id" in draw[0] else f"{draw[0]['doc']}#{draw[0]['path']}")
    page.wait_for_function("() => document.getElementById('page').complete")
    box = page.locator("#overlay").bounding_box()
    page.mouse.move(box["x"] + box["width"] * 0.2, box["y"] + box["height"] * 0.5)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.4, box["y"] + box["height"] * 0.53, steps=5)
    page.mouse.up()
    page.keyboard.press("a")
    page.wait_for_function("() => document.getElementById('message').className === 'ok'")
    # 5. extra records (rows only some families have): filter on their field, accept one by key, reject one
    extras = [q for q in queue if q["kind"] == "extra_record"]
    assert len(extras) >= 2
    page.select_option("#filter-cause", "")
    page.select_option("#filter-field", extras[0]["field"])
    _wait_item(page, extras[0]["id"])
    page.keyboard.press("1")
    _wait_item(page, extras[1]["id"])
    page.keyboard.press("r")
    page.wait_for_function("() => document.getElementById('decided').className === 'on'")

    lines = _lines(ds / "decisions.jsonl")
    assert [(d["id"], d["action"]) for d in lines] == [
        (first["id"], "accept"), (queue[1]["id"], "edit"), (queue[2]["id"], "accept"),
        (f"{draw[0]['doc']}#{draw[0]['path']}", "box"), (extras[0]["id"], "accept"), (extras[1]["id"], "reject")]
    row_system = next(v for v in extras[0]["votes"] if v["present"])
    assert lines[4]["system"] == row_system["system"]
    assert lines[0]["candidate"] == 1 and lines[1]["value"] == "PO-REVIEWED" and lines[0]["who"] == "ana"
    assert lines[2]["candidate"] == 0 and lines[2]["box"]["page"] >= 1
    drawn = lines[2]["box"]["box"]
    assert drawn[0] == pytest.approx(0.30, abs=0.01) and drawn[2] == pytest.approx(0.40, abs=0.01)

    # 6. reload: the page resumes at the first undecided item
    page.goto(url)
    _wait_item(page, queue[3]["id"])
    assert page.locator("#counter").inner_text().startswith(f"{len(queue) + len(draw) - 6} left of")

    # nothing was asked of another host, and the browser reported no error (a CSP violation would be one)
    assert requested and all(u.startswith(base + "/") for u in requested), requested
    assert not refused, refused

    # 7. kill the server outright: nothing acknowledged is lost; adjudicate applies the file as written
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    assert len(_lines(ds / "decisions.jsonl")) == 6
    rows_before = len(read_bundle(ds / extras[0]["doc"]).gt.expected["lines"])
    with pytest.raises(SystemExit) as e:
        main(["adjudicate", str(ds), "--decisions", str(ds / "decisions.jsonl")])
    assert e.value.code in (0, None)
    by_doc = {}
    for q in (first, queue[1], queue[2]):
        b = by_doc.setdefault(q["doc"], read_bundle(ds / q["doc"]))
        entry = next(f for f in b.gt.fields if f.path == q["path"])
        assert entry.trust in ("adjudicated", "human")
    b = read_bundle(ds / first["doc"])
    entry = {f.path: f for f in b.gt.fields}
    assert entry[first["path"]].readings[0].value == first["candidates"][1]["value"]
    b1 = read_bundle(ds / queue[1]["doc"])
    assert {f.path: f for f in b1.gt.fields}[queue[1]["path"]].readings[0].value == "PO-REVIEWED"
    b2 = read_bundle(ds / queue[2]["doc"])
    ev = {f.path: f for f in b2.gt.fields}[queue[2]["path"]].readings[0].evidence
    assert len(ev) == 1 and ev[0].verified and list(ev[0].box) == pytest.approx(drawn)
    rows = read_bundle(ds / extras[0]["doc"]).gt.expected["lines"]
    assert len(rows) == rows_before + 1 and rows[-1]["line_id"] == row_system["row"]["line_id"]
    left = {q["id"] for q in _lines(ds / "queue.jsonl")}
    assert not left & {first["id"], queue[1]["id"], queue[2]["id"], extras[0]["id"], extras[1]["id"]}
    assert queue[3]["id"] in left
    assert len(_lines(ds / "draw.jsonl")) == len(draw) - 1


def test_every_cell_and_apply_now(fresh):
    proc, url = start_server(fresh, "--all")
    try:
        base, token = _base_token(url)
        headers = {"Content-Type": "application/json", "X-Gtkit-Token": token}
        state = json.loads(_request(f"{base}/api/state?token={token}")[1])
        kinds = [it[1] for it in state["items"]]
        queued = len(_lines(fresh / "queue.jsonl"))
        assert kinds[:queued] == [q["kind"] for q in _lines(fresh / "queue.jsonl")] and "truth" in kinds
        i = next(k for k, it in enumerate(state["items"]) if it[1] == "truth" and it[3] == "/vendor")
        doc, path = state["items"][i][2], state["items"][i][0].split("#", 1)[1]
        assert _request(f"{base}/api/apply", data=b"", headers=headers)[0] == 400     # nothing to apply yet
        status, _ = _request(f"{base}/api/decide", headers=headers,
                             data=json.dumps({"item": i, "action": "edit", "text": "Corrected Vendor Ltd"}).encode())
        assert status == 200
        status, answer = _request(f"{base}/api/decide", headers=headers,
                                  data=json.dumps({"item": 0, "action": "accept", "candidate": 0}).encode())
        assert status == 200
        status, answer = _request(f"{base}/api/apply", data=b"", headers=headers)
        assert status == 200 and json.loads(answer) == {"applied": 2, "queue": queued - 1}
        assert (fresh / "decisions.jsonl").read_bytes() == b""
        assert len(_lines(fresh / "audit.jsonl")) == 2
        b = read_bundle(fresh / doc)
        entry = {f.path: f for f in b.gt.fields}[path]
        assert entry.readings[0].value == "Corrected Vendor Ltd" and entry.trust == "human"
        state = json.loads(_request(f"{base}/api/state?token={token}")[1])
        assert len(_lines(fresh / "queue.jsonl")) == queued - 1 and not any(state["decided"])
        assert [it[0] for it in state["items"][:queued - 1]] == [q["id"] for q in _lines(fresh / "queue.jsonl")]
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_typed_values_and_fields(dataset):
    from gtkit.review.items import Item, field_of
    from gtkit.review.state import Review

    r = Review(dataset, "ana")
    assert field_of(r.root, "/lines/12/quantity") == "/lines/*/quantity" and field_of(r.root, "/total") == "/total"
    def cell(path: str) -> Item:
        return Item(f"d#{path}", "cell", "d", path, field_of(r.root, path), None, {})

    assert r.typed_value(cell("/total"), "26675.42") == 26675.42
    assert r.typed_value(cell("/lines/0/quantity"), "5") == 5
    assert r.typed_value(cell("/paid_in_full"), "true") is True
    assert r.typed_value(cell("/total"), "(1,234.50)") == "(1,234.50)"   # left as text: adjudication refuses it
    assert r.typed_value(cell("/po_number"), "123") == "123"             # a string field keeps digits as text
    assert r.typed_value(Item("d#/lines/+0", "extra_record", "d", "/lines/+0", "/lines", None, {}),
                         '{"line_id": "L-9"}') == {"line_id": "L-9"}
    assert not (dataset / "decisions.jsonl").exists()


@pytest.mark.parametrize("port", ["70000", "-1"])
def test_a_port_out_of_range_is_one_line_exit_2(dataset, port, capsys):
    with pytest.raises(SystemExit) as e:
        main(["review", str(dataset), "--port", port])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert f"--port {port}: a port is 0 (any free port) to 65535" in err and len(err.splitlines()) == 1


def _asgi_post(app, path: str, chunks: list[bytes], headers: dict[str, str]) -> tuple[int, bytes]:
    """One POST through the ASGI application in this process, its body sent as `chunks` (no Content-Length
    unless `headers` give one): (status, body)."""
    import asyncio

    messages = [{"type": "http.request", "body": c, "more_body": k < len(chunks) - 1} for k, c in enumerate(chunks)]
    out: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        out.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in {"host": "127.0.0.1", **headers}.items()],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in out if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in out if m["type"] == "http.response.body")


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_a_full_disk_leaves_whole_lines_and_the_next_decision_works(fresh, monkeypatch, code):
    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    app = create_app(Review(fresh, "ana"), "t")
    def post(body: object) -> tuple[int, bytes]:
        return _asgi_post(app, "/api/decide", [json.dumps(body).encode()],
                          {"X-Gtkit-Token": "t", "Content-Type": "application/json"})

    decisions = fresh / "decisions.jsonl"
    assert post({"item": 0, "action": "accept"})[0] == 200
    before = decisions.read_bytes()
    real_write = os.write

    def full(fd: int, data: bytes) -> int:
        """The disk fills up while the decision's line is written: half of it fits, then the error."""
        if os.readlink(f"/proc/self/fd/{fd}") != str(decisions):
            return real_write(fd, data)
        if not full.tried:
            full.tried = True
            return real_write(fd, bytes(data)[:len(data) // 2])
        raise OSError(code, os.strerror(code))

    full.tried = False
    monkeypatch.setattr(os, "write", full)
    status, answer = post({"item": 1, "action": "null"})
    assert full.tried and status == 507, answer
    assert os.strerror(code).encode() in answer and b"decisions.jsonl" in answer
    assert decisions.read_bytes() == before                       # cut back to its last complete line
    monkeypatch.undo()                                             # space is back
    status, answer = post({"item": 1, "action": "null"})
    assert status == 200 and json.loads(answer)["line"] == 2
    assert [d["action"] for d in _lines(decisions)] == ["accept", "null"]


def test_a_write_error_in_the_running_server_cuts_back_and_recovers(server):
    """A real short write: the server's file size limit (RLIMIT_FSIZE, lowered from outside) stops the line part
    way, the kernel answers EFBIG; raised again, the next decision works and adjudicate reads the file."""
    ds, proc, url = server
    base, token = _base_token(url)
    def post(body: object) -> tuple[int, bytes]:
        return _request(f"{base}/api/decide", data=json.dumps(body).encode(),
                        headers={"Content-Type": "application/json", "X-Gtkit-Token": token})

    decisions = ds / "decisions.jsonl"
    assert post({"item": 0, "action": "accept"})[0] == 200
    before = decisions.read_bytes()
    resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (len(before) + 20, resource.RLIM_INFINITY))
    status, answer = post({"item": 1, "action": "null"})
    assert status == 507 and os.strerror(errno.EFBIG).encode() in answer, answer
    assert decisions.read_bytes() == before
    resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    status, answer = post({"item": 1, "action": "null"})
    assert status == 200 and json.loads(answer)["line"] == 2
    proc.terminate()
    proc.wait(timeout=10)
    with pytest.raises(SystemExit) as e:
        main(["adjudicate", str(ds), "--decisions", str(decisions)])
    assert e.value.code in (0, None)


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_decisions_file_linked_outside_the_dataset_is_refused_at_start(fresh, tmp_path, link):
    outside = tmp_path / "outside.jsonl"
    first = _lines(fresh / "queue.jsonl")[0]["id"]
    outside.write_text(json.dumps({"id": first, "action": "accept", "who": "ana"}) + "\n")
    before = outside.read_bytes()
    if link == "symlink":
        (fresh / "decisions.jsonl").symlink_to(outside)
    else:
        os.link(outside, fresh / "decisions.jsonl")
    cmd = [sys.executable, "-m", "gtkit", "review", str(fresh), "--port", "0"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("gtkit review started over a decisions.jsonl linked outside the dataset")
    err = done.stderr.strip()
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert "decisions.jsonl: " in err and ("symbolic link" in err if link == "symlink" else "hard link" in err)
    assert outside.read_bytes() == before


def test_a_decisions_file_swapped_for_a_symlink_is_not_written_through(server, tmp_path):
    """Replaced while the server runs by a link to an exact copy (same bytes, same modification time): neither a
    decision nor apply now writes (or empties) the file outside."""
    ds, _proc, url = server
    base, token = _base_token(url)
    headers = {"Content-Type": "application/json", "X-Gtkit-Token": token}
    def decide(body: object) -> tuple[int, bytes]:
        return _request(f"{base}/api/decide", data=json.dumps(body).encode(), headers=headers)

    assert decide({"item": 0, "action": "accept"})[0] == 200
    outside = tmp_path / "outside.jsonl"
    shutil.copy2(ds / "decisions.jsonl", outside)
    (ds / "decisions.jsonl").unlink()
    (ds / "decisions.jsonl").symlink_to(outside)
    before = outside.read_bytes()
    status, answer = decide({"item": 1, "action": "null"})
    assert status == 409 and b"decisions.jsonl" in answer, answer
    assert _request(f"{base}/api/apply", data=b"", headers=headers)[0] == 409
    assert outside.read_bytes() == before


def _raw_post(base: str, path: str, head: dict[str, str], body: bytes = b"") -> tuple[int, bytes]:
    """A POST whose headers are sent as given (a Content-Length that promises more than is sent, say)."""
    import http.client

    host, port = base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.putrequest("POST", path)
        for k, v in head.items():
            conn.putheader(k, v)
        conn.endheaders(body)
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def test_decision_requests_are_limited_and_strictly_typed(server):
    ds, _proc, url = server
    base, token = _base_token(url)
    headers = {"Content-Type": "application/json", "X-Gtkit-Token": token}
    def post(data: bytes) -> tuple[int, bytes]:
        return _request(f"{base}/api/decide", data=data, headers=headers)

    def refused(data: bytes, status: int, words: bytes) -> None:
        got, answer = post(data)
        assert got == status and words in answer, (got, answer[:300])
        assert len(json.loads(answer)["error"].splitlines()) == 1

    # a 50 MB note is refused from its Content-Length, before a byte of it is read
    assert _raw_post(base, "/api/decide", {**headers, "Content-Length": str(50 << 20)}) == \
        (413, b'{"error":"the request body is larger than 1048576 bytes"}')
    # JSON nested 100,000 deep (200 kB) or just past the limit: 400, not a RecursionError (500)
    refused(b"[" * 100_000 + b"]" * 100_000, 400, b"nested deeper than 64")
    refused(b'{"item": 0, "action": "edit", "value": ' + b"[" * 64 + b"]" * 64 + b"}", 400, b"nested deeper than 64")
    # brackets inside strings are not nesting: this one reaches the decision models
    refused(json.dumps({"item": 0, "action": "edit", "note": '["\\' * 100}).encode(), 400,
            b"/value: required key is missing")
    refused(json.dumps({"item": True, "action": "accept"}).encode(), 400, b"/item: Input should be a valid integer")
    refused(json.dumps({"item": "0", "action": "accept"}).encode(), 400, b"/item: Input should be a valid integer")
    refused(json.dumps({"item": 0, "action": "accept", "candidate": True}).encode(), 400, b"/candidate")
    refused(json.dumps({"item": 0, "action": "accept", "colour": "red"}).encode(), 400, b"/colour: unknown key")
    refused(json.dumps({"item": 0, "action": "null", "note": "x" * 2001}).encode(), 400,
            b"/note: String should have at most 2000 characters")
    refused(json.dumps([0, "accept"]).encode(), 400, b"top level")
    refused(b"\xff{", 400, b"not JSON")
    assert not (ds / "decisions.jsonl").exists()
    status, answer = post(json.dumps({"item": 0, "action": "null", "note": "x" * 2000}).encode())
    assert status == 200, answer


def test_a_streamed_body_is_cut_off_at_the_limit(dataset):
    """Without a Content-Length (chunked), the body is counted as it comes: past 1 MB, 413."""
    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    app = create_app(Review(dataset, "ana"), "t")
    chunks = [b'{"item": 0, "action": "null", "note": "'] + [b"x" * (256 << 10)] * 8 + [b'"}']
    status, answer = _asgi_post(app, "/api/decide", chunks, {"X-Gtkit-Token": "t", "Transfer-Encoding": "chunked"})
    assert status == 413 and b"larger than 1048576 bytes" in answer
    assert not (dataset / "decisions.jsonl").exists()


def test_a_line_that_cannot_be_cut_back_is_said_and_blocks_further_writes(fresh, monkeypatch):
    """The disk fails mid-line and the file cannot be cut back either: the answer says the file ends in part of a
    line, and nothing more is appended after it; at the next start the file is refused in one line."""
    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    app = create_app(Review(fresh, "ana"), "t")
    def post(body: object) -> tuple[int, bytes]:
        return _asgi_post(app, "/api/decide", [json.dumps(body).encode()],
                          {"X-Gtkit-Token": "t", "Content-Type": "application/json"})

    decisions = fresh / "decisions.jsonl"
    real_write = os.write

    def half_then_eio(fd: int, data: bytes) -> int:
        if os.readlink(f"/proc/self/fd/{fd}") != str(decisions):
            return real_write(fd, data)
        if not half_then_eio.tried:
            half_then_eio.tried = True
            return real_write(fd, bytes(data)[:10])
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    half_then_eio.tried = False

    def no_truncate(fd: int, size: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "write", half_then_eio)
    monkeypatch.setattr(os, "ftruncate", no_truncate)
    status, answer = post({"item": 0, "action": "accept"})
    assert status == 503 and b"ends in part of a line" in answer, answer
    monkeypatch.undo()
    partial = decisions.read_bytes()
    assert len(partial) == 10
    assert post({"item": 1, "action": "null"})[0] == 409
    assert decisions.read_bytes() == partial
    with pytest.raises(GtkitError, match="the last line has no newline"):
        Review(fresh, "ana")


def test_a_fifo_in_place_of_the_decisions_file_is_refused_at_once(tmp_path):
    """append_line opens without waiting (O_NONBLOCK): a FIFO with no reader, swapped in for the file, is refused
    in one line instead of hanging the server until something reads it."""
    from gtkit.files.write import append_line

    fifo = tmp_path / "decisions.jsonl"
    os.mkfifo(fifo)

    def hung(*_: object) -> None:
        raise RuntimeError("append_line waited for a reader of the FIFO")

    old = signal.signal(signal.SIGALRM, hung)
    signal.setitimer(signal.ITIMER_REAL, 2)
    try:
        with pytest.raises(GtkitError) as e:
            append_line(fifo, b"{}\n")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert str(e.value) == f"{fifo}: is not a regular file: refusing to append to it"


def test_nan_and_infinity_are_refused_at_the_api(fresh):
    """JSON has no NaN or Infinity, though Python reads them (and 1e999): sent as a value, typed in a number
    field or inside a record, each is one line of 400 and nothing reaches decisions.jsonl."""
    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    review = Review(fresh, "ana", every_cell=True)
    app = create_app(review, "t")
    items = review.state()["items"]
    total = next(k for k, it in enumerate(items) if it[3] == "/total")
    extra = next(k for k, it in enumerate(items) if it[1] == "extra_record")
    cases = [(b'{"item": %d, "action": "edit", "value": NaN}' % total, "/value: NaN"),
             (json.dumps({"item": total, "action": "edit", "text": "Infinity"}).encode(), "/value: Infinity"),
             (json.dumps({"item": total, "action": "edit", "text": "-1e999"}).encode(), "/value: -Infinity"),
             (b'{"item": %d, "action": "edit", "value": {"line_id": "L-9", "x": NaN}}' % extra, "/value/x: NaN"),
             (json.dumps({"item": extra, "action": "edit", "text": '{"line_id": "L-9", "x": [Infinity]}'}).encode(),
              "/value/x/0: Infinity")]
    for body, words in cases:
        status, answer = _asgi_post(app, "/api/decide", [body], {"X-Gtkit-Token": "t"})
        error = json.loads(answer)["error"]
        assert status == 400 and error == f"the decision: {words} is not a JSON number", (body, error)
    assert not (fresh / "decisions.jsonl").exists()


def test_adjudicate_refuses_nan_in_a_decisions_file_in_one_line(fresh, tmp_path, capsys):
    queue = _lines(fresh / "queue.jsonl")
    extra = next(q["id"] for q in queue if q["kind"] == "extra_record")
    cell = next(q["id"] for q in queue if q["kind"] == "cell")
    before = _files(fresh)
    for lines, said in (([f'{{"id": "{cell}", "action": "null", "who": "ana"}}',
                          f'{{"id": "{extra}", "action": "edit", "value": {{"line_id": "L-9", "x": NaN}}, '
                          '"who": "ana"}'],
                         "line 2: /value/x: NaN"),
                        ([f'{{"id": "{cell}", "action": "null", "supersedes": -Infinity, "who": "ana"}}'],
                         "line 1: /supersedes: -Infinity")):
        decisions = tmp_path / "d.jsonl"
        decisions.write_text("\n".join(lines) + "\n")
        with pytest.raises(SystemExit) as e:
            main(["adjudicate", str(fresh), "--decisions", str(decisions)])
        err = capsys.readouterr().err.strip()
        assert e.value.code == 2 and err == f"gtkit: error: {decisions}: {said} is not a JSON number", err
    assert _files(fresh) == before


def test_apply_now_on_a_full_disk_is_507_and_changes_nothing(server):
    """A real full disk for the server (its file size limit lowered from outside: EFBIG) while apply now writes the
    dataset: 507 in one line, the dataset and decisions.jsonl as they were; with space back, apply now works."""
    ds, proc, url = server
    base, token = _base_token(url)
    headers = {"Content-Type": "application/json", "X-Gtkit-Token": token}
    for body in ({"item": 0, "action": "accept"}, {"item": 1, "action": "null"}):
        assert _request(f"{base}/api/decide", data=json.dumps(body).encode(), headers=headers)[0] == 200
    before = {k: data for k, (_, data) in _files(ds).items()}
    resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (4096, resource.RLIM_INFINITY))
    status, answer = _request(f"{base}/api/apply", data=b"", headers=headers)
    error = json.loads(answer)["error"]
    assert status == 507 and os.strerror(errno.EFBIG) in error and len(error.splitlines()) == 1, answer
    assert "decisions.jsonl keeps every decision" in error
    assert {k: data for k, (_, data) in _files(ds).items()} == before
    assert sorted(p.name for p in ds.parent.iterdir()) == ["gt"]                 # no half-written copy left
    resource.prlimit(proc.pid, resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    status, answer = _request(f"{base}/api/apply", data=b"", headers=headers)
    assert status == 200 and json.loads(answer)["applied"] == 2, answer
    assert (ds / "decisions.jsonl").read_bytes() == b"" and len(_lines(ds / "audit.jsonl")) == 2


def test_apply_now_empties_the_decisions_file_with_the_dataset_or_not_at_all(fresh, monkeypatch):
    """Emptying decisions.jsonl fails (an I/O error): apply now is 503 and nothing is applied, rather than a
    dataset with the decisions in it and a file still holding them (which the next apply, and the next start,
    would refuse as decided twice); once the error is gone, every decision is applied once."""
    import gtkit.files.write
    from gtkit.review.app import create_app
    from gtkit.review.state import Review

    app = create_app(Review(fresh, "ana"), "t")

    def post(path: str, body: bytes) -> tuple[int, bytes]:
        return _asgi_post(app, path, [body], {"X-Gtkit-Token": "t"})

    for body in ({"item": 0, "action": "accept"}, {"item": 1, "action": "null"}):
        assert post("/api/decide", json.dumps(body).encode())[0] == 200
    decisions = fresh / "decisions.jsonl"
    before = {k: data for k, (_, data) in _files(fresh).items()}
    eio = OSError(errno.EIO, os.strerror(errno.EIO))
    real_ftruncate, real_temp = os.ftruncate, gtkit.files.write.new_temp_file

    def ftruncate(fd: int, size: int) -> None:   # emptied in place
        if os.readlink(f"/proc/self/fd/{fd}").endswith("/decisions.jsonl"):
            raise eio
        real_ftruncate(fd, size)

    def new_temp_file(folder: Path, name: str) -> tuple[int, str]:   # or replaced by an empty file
        if name == "decisions.jsonl":
            raise eio
        return real_temp(folder, name)

    monkeypatch.setattr(os, "ftruncate", ftruncate)
    monkeypatch.setattr(gtkit.files.write, "new_temp_file", new_temp_file)
    status, answer = post("/api/apply", b"")
    error = json.loads(answer)["error"]
    assert status == 503 and os.strerror(errno.EIO) in error and len(error.splitlines()) == 1, answer
    assert {k: data for k, (_, data) in _files(fresh).items()} == before
    monkeypatch.undo()
    status, answer = post("/api/apply", b"")
    assert status == 200 and json.loads(answer)["applied"] == 2, answer
    assert decisions.read_bytes() == b"" and len(_lines(fresh / "audit.jsonl")) == 2
    Review(fresh, "ana")   # the next start reads the emptied file
