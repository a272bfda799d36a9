"""The one worker pool (gtkit.workers): inline with one worker, processes otherwise, the same answers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import pool_workers_alive

from gtkit.cli import main
from gtkit.errors import GtkitError
from gtkit.workers import Pool, in_worker


def square_and_pid(x: int) -> tuple[int, int, bool]:
    return x * x, os.getpid(), in_worker()


def fail_on_three(x: int) -> int:
    if x == 3:
        raise GtkitError(f"value {x} is not allowed", f"/data/item-{x}.json")
    return x


def divide(x: int) -> float:
    return 1 / x


def die(_: int) -> None:
    os._exit(3)


def pid_and_gc(_: object = None) -> tuple[int, bool]:
    import gc

    return os.getpid(), gc.isenabled()


def slow(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_one_worker_runs_inline_without_a_process():
    with Pool(1) as pool:
        assert pool.inline
        results = list(pool.map(square_and_pid, range(6)))
        task = pool.submit(square_and_pid, 7)
        assert task.done() and task.result() == (49, os.getpid(), False)
        assert pool._executors == {}  # no process was ever started
    assert results == [(x * x, os.getpid(), False) for x in range(6)]


def test_workers_run_in_processes_with_the_same_results_in_order():
    with Pool(1) as pool:
        inline = [r[0] for r in pool.map(square_and_pid, range(40))]
    with Pool(2) as pool:
        got = list(pool.map(square_and_pid, range(40), ahead=3))
        task = pool.submit(square_and_pid, 7)
        assert task.result()[0] == 49
    assert [r[0] for r in got] == inline
    pids = {pid for _, pid, _ in got}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    assert all(worker for _, _, worker in got)
    assert pool_workers_alive() == []  # the normal end stops the workers too


def test_submit_gets_a_worker_of_its_own_and_map_reuses_its_workers():
    with Pool(2) as pool:
        pool.warm()
        first, second = pool.submit(pid_and_gc).result(), pool.submit(pid_and_gc).result()
        assert first[0] != second[0]  # the first worker exited after its task
        assert first[1] is False and second[1] is False  # a one-shot worker runs without the cyclic collector
        mapped = list(pool.map(pid_and_gc, range(12)))
        assert len({pid for pid, _ in mapped}) <= 2 and all(enabled for _, enabled in mapped)
    with Pool(1) as pool:
        pool.warm()  # nothing to start
        assert pool.submit(pid_and_gc).result()[0] == os.getpid() and pool._executors == {}


@pytest.mark.parametrize("workers", [1, 2])
def test_a_gtkit_error_in_a_worker_reaches_the_caller_unchanged(workers):
    with Pool(workers) as pool:
        with pytest.raises(GtkitError) as exc:
            list(pool.map(fail_on_three, range(6)))
        assert exc.value.message == "value 3 is not allowed"
        assert exc.value.path == "/data/item-3.json"
        assert str(exc.value) == "/data/item-3.json: value 3 is not allowed"
        with pytest.raises(GtkitError) as again:
            pool.submit(fail_on_three, 3).result()
        assert (again.value.message, again.value.path) == (exc.value.message, exc.value.path)
        assert list(pool.map(fail_on_three, [1, 2])) == [1, 2]  # the pool goes on serving


def test_other_failures_in_a_worker_become_one_line_gtkit_errors():
    with Pool(2) as pool:
        with pytest.raises(GtkitError) as exc:
            pool.submit(divide, 0).result()
        assert str(exc.value) == "divide failed in a worker: ZeroDivisionError: division by zero"
        assert isinstance(exc.value.__cause__, ZeroDivisionError)  # --debug shows the worker's traceback
    with Pool(2) as pool, pytest.raises(GtkitError, match="a worker process died while running die"):
        pool.submit(die, 0).result()
    assert pool_workers_alive() == []


def test_an_interrupt_kills_the_workers():
    with pytest.raises(KeyboardInterrupt), Pool(2) as pool:
        task = pool.submit(slow, 60)
        deadline = time.monotonic() + 30
        while not pool_workers_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool_workers_alive() and not task.done()
        raise KeyboardInterrupt
    assert pool_workers_alive() == []


CTRL_C_SCRIPT = """
import sys, time
from gtkit.workers import Pool

def main():
    with Pool(2) as pool:
        tasks = [pool.submit(time.sleep, 60) for _ in range(2)]
        for line in pool.map(str, range(3)):
            pass
        print("working", flush=True)
        tasks[0].result()

if __name__ == "__main__":
    main()
"""


def _tree(root: int) -> set[int]:
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents.setdefault(int(stat.read_text().rsplit(")", 1)[1].split()[1]), []).append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):
            continue
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(parents.get(pid, []))
    return tree


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_ctrl_c_leaves_no_process_behind(tmp_path):
    script = tmp_path / "work.py"
    script.write_text(CTRL_C_SCRIPT)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)  # its own process group, as a terminal's foreground job
    assert proc.stdout.readline().strip() == "working"
    seen = _tree(proc.pid)
    assert len(seen) >= 4  # the script, the fork server and its workers (and the resource tracker)
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the whole group gets SIGINT
    _, err = proc.communicate(timeout=60)
    assert "KeyboardInterrupt" in err and err.count("Traceback") == 1, err  # the script's own, none from workers
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in seen) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in seen if _alive(p)] == []


def test_workers_must_be_at_least_one():
    with pytest.raises(GtkitError, match="--workers must be at least 1, got 0"):
        Pool(0)


def _run(argv, capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    out, err = capsys.readouterr()
    return exc.value.code or 0, out, err


def test_check_with_two_workers_reports_the_same_problems_in_the_same_order(tmp_path, capsys):
    from gtkit.synth.pipeline import synth

    ds = tmp_path / "ds"
    synth("creditor_matrix", out=ds, seed=5, records=30, docs=4, workers=1)
    names = sorted(p.name for p in ds.iterdir() if p.is_dir())
    for name, change in ((names[0], "evidence"), (names[2], "expected"), (names[3], "pdf")):
        gt_file = ds / name / "gt.json"
        gt = json.loads(gt_file.read_text())
        if change == "evidence":
            gt["fields"][2]["readings"][0]["evidence"][0]["page"] = 9
            gt["fields"][5]["trust"] = "guessed"
        elif change == "expected":
            gt["expected"]["case_number"] = 12
        if change == "pdf":
            (ds / name / "document.pdf").write_bytes(b"%PDF-1.7 not really")
        else:
            gt_file.write_text(json.dumps(gt))
    code1, out1, _ = _run(["check", str(ds), "--workers", "1"], capsys)
    code2, out2, _ = _run(["check", str(ds), "--workers", "2"], capsys)
    assert code1 == code2 == 1
    assert out1 == out2
    files = [line.split("#")[0].split(": ")[0] for line in out1.splitlines()]
    order = [next(i for i, n in enumerate(names) if f"/{n}/" in f) for f in files]
    assert order == sorted(order) and set(order) == {0, 2, 3}  # dataset order, bundle 1 is clean
    assert pool_workers_alive() == []
