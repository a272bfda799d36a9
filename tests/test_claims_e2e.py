"""End to end, through the CLI, the claims of README.md and docs/architecture.md no test checked (issue 29):

- an existing output is refused without `--force`, and `--force` replaces only gtkit's own earlier output,
  for consensus, audit, export (both formats) and import;
- Ctrl-C (SIGINT to the process group) ends synth and score with exit 130, no traceback, nothing left
  (degrade has its own test, tests/test_interrupt.py);
- `gtkit synth --workers 1` and `--workers 2` write the same bytes;
- the default worker count: two (one on a one-core machine) for synth, score and build, one for the rest.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from gtkit.testing.simulate import simulate


def tree(folder: Path) -> dict[str, str]:
    """Every file under `folder` (or the file itself) with its content hash."""
    if folder.is_file():
        return {folder.name: hashlib.sha256(folder.read_bytes()).hexdigest()}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def refused(argv: list, capsys, *needles: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_cli(argv, capsys)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


def ok(argv: list, capsys) -> str:  # type: ignore[no-untyped-def]
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    return out


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("claims")
    simulate(root / "ws", seed=3, n_docs=1, n_rows=5)
    from gtkit.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["synth", "--family", "creditor_matrix", "--docs", "2", "--records", "5", "--seed", "3", "--workers", "1",
              "--out", str(root / "cm")])
    assert not exc.value.code
    with pytest.raises(SystemExit) as exc:
        main(["export", str(root / "cm"), "--format", "extractbench", "--out", str(root / "eb")])
    assert not exc.value.code
    return root


def _consensus(root: Path, out: Path) -> list:
    ws = root / "ws"
    return ["consensus", "--schema", ws / "schema.json", "--docs", ws / "docs", "--runs", ws / "runs",
            "--systems", ws / "systems.toml", "--out", out]


VERBS = {  # each verb's command line for an output `out`, and whether that output is a folder
    "consensus": (lambda root, out: _consensus(root, out), True),
    "audit": (lambda root, out: ["audit", "--gt", root / "gt-for-audit", "--runs", root / "ws" / "runs",
                                 "--systems", root / "ws" / "systems.toml", "--out", out], False),
    "export extractbench": (lambda root, out: ["export", root / "cm", "--format", "extractbench", "--out", out], True),
    "export parquet": (lambda root, out: ["export", root / "cm", "--format", "parquet", "--out", out], True),
    "import": (lambda root, out: ["import", root / "eb", "--format", "extractbench", "--out", out], True),
}


@pytest.mark.parametrize("verb", list(VERBS))
def test_existing_output_is_refused_and_force_replaces_only_gtkits_own(inputs, tmp_path, capsys, verb):
    argv, is_folder = VERBS[verb]
    if verb == "audit" and not (inputs / "gt-for-audit").exists():
        ok(_consensus(inputs, inputs / "gt-for-audit"), capsys)
    out = tmp_path / ("out" if is_folder else "queue.jsonl")
    ok(argv(inputs, out), capsys)
    first = tree(out)
    assert first

    # without --force: refused in one line, the earlier output untouched
    refused(argv(inputs, out), capsys, "already exists", "--force")
    assert tree(out) == first

    # with --force: gtkit's own earlier output is replaced (something changed in it is gone), the same bytes again
    if is_folder:
        (out / "stray.txt").write_text("left by an earlier run")
    else:
        out.write_bytes(out.read_bytes()[: len(out.read_bytes()) // 2].rsplit(b"\n", 1)[0] + b"\n"
                        if out.read_bytes().count(b"\n") > 1 else out.read_bytes())
    ok([*argv(inputs, out), "--force"], capsys)
    assert tree(out) == first
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging or moved-aside copy left

    # --force never replaces what gtkit did not write
    mine = tmp_path / ("mine" if is_folder else "mine.jsonl")
    if is_folder:
        mine.mkdir()
        (mine / "notes.txt").write_text("my own notes")
    else:
        mine.write_text("my own notes\n")
    before = tree(mine)
    refused([*argv(inputs, mine), "--force"], capsys, "not an output gtkit wrote")
    assert tree(mine) == before


# --- Ctrl-C -----------------------------------------------------------------------------------------------------


def _has_children(pid: int) -> bool:
    try:
        return bool(Path(f"/proc/{pid}/task/{pid}/children").read_text().split())
    except OSError:
        return False


def _interrupt(cmd: list[str], cwd: Path, started, *, after: float = 0.3,
               started_pid: bool = False) -> tuple[int, bytes]:
    """Run `cmd` in a session of its own, SIGINT its process group once `started()` (or, `started_pid`, once
    it has started its worker pool), then `after` seconds."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])})
    if started_pid:
        started = lambda: _has_children(p.pid)  # noqa: E731
    deadline = time.monotonic() + 60
    while not started() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if p.poll() is not None:  # reaped: never signal it
        pytest.fail(f"{cmd[3]} ended (exit {p.returncode}) before it could be interrupted: {p.stderr.read()!r}")
    if not started():  # the deadline passed: the process is unreaped, so its group is still ours
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        pytest.fail(f"{cmd[3]} did not start its work in 60 s")
    time.sleep(after)
    os.killpg(p.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    _, err = p.communicate(timeout=60)
    return p.returncode, err


def test_ctrl_c_during_synth_exits_130_and_leaves_nothing(tmp_path):
    cmd = [sys.executable, "-m", "gtkit", "synth", "--family", "unclaimed_property", "--docs", "3",
           "--records", "2500", "--seed", "1", "--workers", "2", "--out", str(tmp_path / "out")]
    code, err = _interrupt(cmd, tmp_path, lambda: any(n.endswith(".partial") for n in os.listdir(tmp_path)))
    assert code == 130, err
    assert b"Traceback" not in err
    assert os.listdir(tmp_path) == []


@pytest.fixture(scope="module")
def long_score(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    """A dataset of four copies of a long document and a prediction for each: seconds of scoring."""
    import json
    import shutil

    from gtkit.synth.pipeline import synth

    root = tmp_path_factory.mktemp("score")
    synth("unclaimed_property", out=root / "one", seed=2, records=2000)
    gt = json.loads((root / "one" / "gt.json").read_text())
    (root / "pred").mkdir()
    lines = []
    for i in range(4):
        shutil.copytree(root / "one", root / "many" / f"d{i}")
        (root / "many" / f"d{i}" / "gt.json").write_text(json.dumps(dict(gt, doc_id=f"d{i}")))
        (root / "pred" / f"d{i}.json").write_text(json.dumps(gt["expected"]))
        lines.append(json.dumps({"doc_id": f"d{i}", "path": f"d{i}"}) + "\n")
    (root / "many" / "dataset.jsonl").write_text("".join(lines))
    return root


def test_ctrl_c_during_score_exits_130_and_leaves_nothing(long_score, tmp_path):
    report = tmp_path / "report"
    cmd = [sys.executable, "-m", "gtkit", "score", "--gt", str(long_score / "many"), "--pred",
           str(long_score / "pred"), "--workers", "2", "--explain", str(tmp_path / "why.jsonl"), "--html", str(report)]
    # a second after its fork server exists: while the server starts, SIGINT is ignored (gtkit.workers._start_server)
    code, err = _interrupt(cmd, tmp_path, lambda: False, after=1.0, started_pid=True)
    assert code == 130, err
    assert b"Traceback" not in err
    assert os.listdir(tmp_path) == []


# --- same bytes whatever --workers says ---------------------------------------------------------------------------


def test_synth_writes_the_same_bytes_with_one_worker_or_two(tmp_path, capsys):
    for w in ("1", "2"):
        ok(["synth", "--family", "unclaimed_property", "--docs", "2", "--records", "300", "--seed", "4",
            "--workers", w, "--out", tmp_path / w], capsys)
    assert tree(tmp_path / "1") == tree(tmp_path / "2")
    assert len(tree(tmp_path / "1")) >= 7  # two bundles and the index


# --- the default worker count ---------------------------------------------------------------------------------------


def test_the_default_worker_count_is_two_or_the_cores_there_are():
    probe = "import os; from gtkit.workers import DEFAULT_WORKERS; print(DEFAULT_WORKERS)"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    one = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", probe], capture_output=True, text=True,
                         env=env, check=True)
    assert one.stdout.strip() == "1"  # a one-core machine
    cores = len(os.sched_getaffinity(0))
    every = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    assert every.stdout.strip() == str(min(2, cores))


def test_which_commands_default_to_the_pool_of_two():
    import typer.main

    from gtkit.cli import app
    from gtkit.workers import DEFAULT_WORKERS

    def default(*names: str):  # type: ignore[no-untyped-def]
        cmd = typer.main.get_command(app)
        for name in names:
            cmd = cmd.commands[name]  # type: ignore[attr-defined]
        return next(p.default for p in cmd.params if p.name == "workers")

    assert min(2, len(os.sched_getaffinity(0))) == DEFAULT_WORKERS
    assert default("synth") == default("score") == default("build") == DEFAULT_WORKERS
    assert default("degrade") == default("check") == 1
