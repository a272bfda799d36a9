"""An output belongs to one command from start to commit: real concurrent processes, bounded in time.

A second command on the same output is refused naming the first; an output that appears while a command runs
is never replaced; what a killed run left is removed (and named) by the next run on that output; a full disk is
one line and leaves nothing."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gtkit.synth.pipeline import synth

DEADLINE_S = 120


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A bundle of some 40 pages, so that degrading it takes a few seconds."""
    out = tmp_path_factory.mktemp("claims") / "src"
    synth("unclaimed_property", out=out, seed=1, records=2000)
    return out


def _gtkit(*args: str | Path, **kw) -> subprocess.Popen[bytes]:  # type: ignore[no-untyped-def]
    return subprocess.Popen([sys.executable, "-m", "gtkit", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, **kw)


def _wait_for(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _said(err: bytes) -> list[str]:
    """What a command said on stderr, its progress bar left out."""
    return [line for line in err.decode().strip().splitlines() if line.startswith("gtkit:")]


def _staging(folder: Path, name: str) -> list[str]:
    return sorted(n for n in os.listdir(folder) if n.startswith(f".{name}.") and n.endswith(".partial"))


def _degrade(source: Path, out: Path) -> subprocess.Popen[bytes]:
    return _gtkit("degrade", source, "--recipe", "fax", "--dpi", "150", "--seed", "7", "--out", out)


def test_an_output_made_while_degrade_runs_is_left_alone(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "victim"
    p = _degrade(source, out)
    _wait_for(lambda: _staging(tmp_path, "victim"), "the staging folder")
    out.mkdir()
    (out / "notes.txt").write_text("notes\n")
    _, err = p.communicate(timeout=DEADLINE_S)
    assert p.returncode == 2, err
    assert _said(err) == [
        f"gtkit: error: {out}: appeared while this command ran; left as it is, and nothing was written"]
    assert (out / "notes.txt").read_text() == "notes\n" and os.listdir(out) == ["notes.txt"]
    assert sorted(os.listdir(tmp_path)) == ["victim"]  # no staging folder, no lock file


def test_a_second_command_on_one_output_is_refused_naming_the_first(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "both"
    first = _degrade(source, out)
    _wait_for(lambda: (tmp_path / ".both.lock").exists() and (tmp_path / ".both.lock").stat().st_size,
              "the first command's lock")
    second = _gtkit("synth", "--family", "creditor_matrix", "--records", "20", "--out", out)
    _, err2 = second.communicate(timeout=DEADLINE_S)
    _, err1 = first.communicate(timeout=DEADLINE_S)
    assert first.returncode == 0, err1
    assert second.returncode == 2, err2
    line, = _said(err2)
    assert line.startswith(f"gtkit: error: {out}: another gtkit command is writing this output (pid {first.pid}: ")
    assert "degrade" in line and "--recipe fax" in line
    assert (out / "gt.json").read_bytes().count(b'"pipeline": "degrade"') == 1  # the first command's bundle
    assert sorted(os.listdir(tmp_path)) == ["both"]


def test_two_synth_runs_into_one_output_give_one_bundle_and_one_refusal(tmp_path: Path) -> None:
    out = tmp_path / "cm"
    runs = [_gtkit("synth", "--family", "creditor_matrix", "--records", "3000", "--seed", str(k), "--out", out)
            for k in (1, 2)]
    results = [(p.wait(timeout=DEADLINE_S), p.stderr.read().decode()) for p in runs]  # type: ignore[union-attr]  # stderr=PIPE
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert "another gtkit command is writing this output" in refused or "appeared while this command ran" in refused
    winner = next(k for (code, _), k in zip(results, (1, 2)) if code == 0)
    assert f'"doc_id": "creditor_matrix-s{winner}"' in (out / "gt.json").read_text()
    assert sorted(os.listdir(tmp_path)) == ["cm"]


def test_the_next_run_removes_and_names_what_a_killed_run_left(source: Path, tmp_path: Path) -> None:
    out = tmp_path / "dg"
    p = _degrade(source, out)
    _wait_for(lambda: _staging(tmp_path, "dg") and any((tmp_path / _staging(tmp_path, "dg")[0]).iterdir()),
              "the staging folder to fill")
    os.killpg(p.pid, signal.SIGKILL)
    p.wait(timeout=DEADLINE_S)
    left = _staging(tmp_path, "dg")
    assert left and (tmp_path / ".dg.lock").exists()  # what kill -9 leaves
    again = _degrade(source, out)
    _, err = again.communicate(timeout=DEADLINE_S)
    assert again.returncode == 0, err
    text = err.decode()
    assert "took over the lock of a run that ended without releasing it" in text
    assert f"gtkit: note: {out}: removed {left[0]}, left by a run that did not finish" in text
    assert sorted(os.listdir(tmp_path)) == ["dg"]


def test_two_builds_into_one_output(tmp_path: Path) -> None:
    plan = tmp_path.parent / f"{tmp_path.name}-plan.toml"  # long enough for the second to start meanwhile
    plan.write_text('seed = 3\ndpi = 150\n[[families]]\nfamily = "unclaimed_property"\nrecords = [2000]\n'
                    '[[recipes]]\nrecipe = "fax"\napply_to = ["unclaimed_property"]\n')
    out = tmp_path / "ds"
    first = _gtkit("build", plan, "--out", out, "--workers", "1")
    _wait_for(lambda: (tmp_path / ".ds.lock").exists() and (tmp_path / ".ds.lock").stat().st_size,
              "the first build's lock")
    second = _gtkit("build", plan, "--out", out)
    _, err2 = second.communicate(timeout=DEADLINE_S)
    _, err1 = first.communicate(timeout=DEADLINE_S * 2)
    assert first.returncode == 0, err1
    assert second.returncode == 2 and "another gtkit command is writing this output" in err2.decode(), err2
    assert "Traceback" not in err2.decode()
    assert (out / "dataset.jsonl").is_file()
    assert not [p for p in out.rglob(".*") if p.name.endswith((".partial", ".tmp", ".lock"))]
    assert sorted(os.listdir(tmp_path)) == ["ds"]


def _file_size_limit(limit: int):  # type: ignore[no-untyped-def]
    def apply() -> None:  # Python ignores SIGXFSZ, so a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.parametrize("verb", ["synth", "degrade"])
def test_a_full_disk_is_one_line_and_leaves_nothing(verb: str, source: Path, tmp_path: Path) -> None:
    out = tmp_path / "full"
    args = (["synth", "--family", "creditor_matrix", "--records", "600", "--workers", "1"] if verb == "synth"
            else ["degrade", source, "--recipe", "fax", "--dpi", "100"])
    p = _gtkit(*args, "--out", out, preexec_fn=_file_size_limit(64 * 1024))
    _, err = p.communicate(timeout=DEADLINE_S)
    assert p.returncode == 2, err
    line, = _said(err)
    assert line.startswith("gtkit: error: ") and "File too large" in line and "Traceback" not in line
    assert os.listdir(tmp_path) == []


def test_a_file_output_that_appears_after_its_check_is_left_alone(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from gtkit.errors import GtkitError
    from gtkit.files import outputs

    out = tmp_path / "page.png"
    checked = outputs.check_output

    def check_then_someone_writes(*args, **kw) -> None:  # type: ignore[no-untyped-def]
        checked(*args, **kw)
        out.write_bytes(b"someone else's")

    monkeypatch.setattr(outputs, "check_output", check_then_someone_writes)
    with pytest.raises(GtkitError, match="already exists"):
        outputs.write_output_file(out, b"gtkit's", force=False, replaceable=lambda _: True)
    assert out.read_bytes() == b"someone else's"
    assert sorted(os.listdir(tmp_path)) == ["page.png"]  # no temp file, no lock


def test_a_lock_file_of_a_live_holder_refuses_in_process(tmp_path: Path) -> None:
    from gtkit.errors import GtkitError
    from gtkit.files.outputs import claim

    target = tmp_path / "out"
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from gtkit.files.outputs import claim\n"
                               f"with claim(__import__('pathlib').Path({str(target)!r})):\n"
                               "    print('held', flush=True); time.sleep(60)"], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"held\n"
        with pytest.raises(GtkitError, match=f"pid {holder.pid}: "), claim(target):
            pass
    finally:
        holder.kill()
        holder.wait()
    with claim(target):  # the holder died: its lock is taken over
        assert (tmp_path / ".out.lock").read_text().startswith(f"pid {os.getpid()}: ")
    assert os.listdir(tmp_path) == []
