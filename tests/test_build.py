"""gtkit build: a dataset from a plan, byte-identical whatever the workers, the executor or the interruptions."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import run_cli

from gtkit.builder.plan import read_plan
from gtkit.builder.run import build

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "small-plan.toml"

# The shipped example when the tests run beside the checkout, else (the wheel's tests) a plan of the same
# shape: 2 families, 2 recipes.
EMBEDDED = """
seed = 7
dpi = 100

[[families]]
family = "creditor_matrix"
records = [12, 24]
docs = 2

[[families]]
family = "unclaimed_property"
records = { min = 10, max = 30, step = 20 }

[[recipes]]
recipe = "fax"
apply_to = ["creditor_matrix"]

[[recipes]]
recipe = "phone_camera"
apply_to = ["unclaimed_property"]

[[splits]]
name = "clean"
perception = []

[[splits]]
name = "scanned"
perception = ["P1"]
"""


def tree_hash(folder: Path) -> str:
    """One hash of every file's relative path and bytes under `folder`."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(str(p.relative_to(folder)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def cli(args: list, capsys) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run the CLI in this process: (exit status, stdout and stderr together)."""
    code, out, err = run_cli(args, capsys)
    return code, out + err


@pytest.fixture(scope="module")
def plan(tmp_path_factory) -> Path:
    if EXAMPLE.is_file():
        return EXAMPLE
    path = tmp_path_factory.mktemp("plan") / "small-plan.toml"
    path.write_text(EMBEDDED)
    return path


@pytest.fixture(scope="module")
def reference(plan, tmp_path_factory) -> tuple[Path, str]:
    """The plan built once, on two workers: (dataset folder, tree hash)."""
    out = tmp_path_factory.mktemp("ref") / "ds"
    build(plan, out, workers=2)
    return out, tree_hash(out)


def test_example_builds_checks_and_indexes_every_document_with_its_split(reference, capsys):
    out, _ = reference
    lines = [json.loads(x) for x in (out / "dataset.jsonl").read_text().splitlines()]
    assert len(lines) == 12
    assert [x["pipeline"] for x in lines] == ["synth"] * 6 + ["degrade"] * 6  # plan order
    assert {x["split"] for x in lines if x["pipeline"] == "synth"} == {"clean"}
    assert {x["split"] for x in lines if x["pipeline"] == "degrade"} == {"scanned"}
    assert lines[0]["doc_id"] == "creditor_matrix-r12-d0" and lines[6]["doc_id"] == "creditor_matrix-r12-d0-fax-s7"
    gt = json.loads((out / "unclaimed_property-r30-d0-phone_camera-s7" / "gt.json").read_text())
    assert gt["provenance"]["parent"]["doc_id"] == "unclaimed_property-r30-d0"
    assert gt["provenance"]["recipe"] == "phone_camera"
    assert cli(["check", out], capsys)[0] == 0


def test_one_worker_and_a_rerun_give_the_same_bytes(plan, reference, tmp_path, capsys):
    out = tmp_path / "ds"
    code, text = cli(["build", plan, "--out", out, "--workers", "1"], capsys)
    assert code == 0, text
    assert "made 6 synth, 6 degrade; 12 document(s)" in text
    assert tree_hash(out) == reference[1]
    code, text = cli(["build", plan, "--out", out], capsys)  # nothing missing: nothing made, same bytes
    assert code == 0 and "made nothing (12 task(s) already done)" in text
    assert tree_hash(out) == reference[1]


def test_seeds_and_ids_do_not_depend_on_the_order_of_the_plan(tmp_path):
    forward = tmp_path / "a.toml"
    forward.write_text(EMBEDDED)
    blocks = EMBEDDED.split("\n\n")  # seed, the two families, the two recipes, the two splits
    backward = tmp_path / "b.toml"
    backward.write_text("\n\n".join([blocks[0], blocks[2], blocks[1], blocks[4], blocks[3], *blocks[5:]]))
    a, b = ([repr(dataclasses.replace(t, entry="")) for t in read_plan(p).tasks] for p in (forward, backward))
    assert a != b and sorted(a) == sorted(b)  # the same tasks (ids, seeds, parameters) in another order
    assert len({t.seed for t in read_plan(forward).tasks if t.kind == "synth"}) == 6


def _bundles(out: Path) -> int:
    return sum(1 for p in out.iterdir() if p.is_dir() and not p.name.startswith(".")) if out.is_dir() else 0


def _live_descendants(pid: int) -> set[int]:
    """Pids of the live (not zombie) processes descending from `pid`."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, ppid = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError, ValueError):
            continue
        if state != "Z":
            parents[int(stat.parent.name)] = int(ppid)
    found, grew = {pid}, True
    while grew:
        new = {c for c, pp in parents.items() if pp in found} - found
        found |= new
        grew = bool(new)
    return (found - {pid}) & set(parents)


def _alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                out.add(pid)
        except OSError:
            pass
    return out


def _kill_when(cmd: list[str], out: Path, bundles: int, *, group: bool) -> None:
    """Start the build and SIGKILL it once `bundles` bundles are done: its whole process group, or (`group`
    False) the command's own process alone, whose workers must then end by themselves."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while _bundles(out) < bundles and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if p.poll() is not None:  # reaped: never signal its pid, which may be another process's by now
        pytest.fail(f"the build ended (exit {p.returncode}) before {bundles} bundles were done: nothing to kill")
    if _bundles(out) < bundles:  # the deadline passed: the process is unreaped, so its group is still ours
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        pytest.fail(f"{bundles} bundles not done in 120 s")
    helpers = _live_descendants(p.pid)
    if group:
        os.killpg(p.pid, signal.SIGKILL)
    else:
        assert helpers  # the fork server and the workers
        os.kill(p.pid, signal.SIGKILL)
    p.wait()
    deadline = time.monotonic() + 20
    while _alive(helpers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(helpers), "worker processes outlived the killed build"


def test_kill_9_twice_then_resume_is_byte_identical_to_a_clean_build(plan, reference, tmp_path):
    out = tmp_path / "ds"
    cmd = [sys.executable, "-m", "gtkit", "build", str(plan), "--out", str(out), "--workers", "2"]
    _kill_when(cmd, out, 2, group=False)
    first = _bundles(out)
    assert 2 <= first < 12 and not (out / "dataset.jsonl").exists()
    _kill_when(cmd, out, first + 3, group=True)
    assert not (out / "dataset.jsonl").exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "already done" in done.stdout
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]  # no staging folder left
    assert tree_hash(out) == reference[1]


def test_dask_local_cluster_builds_the_same_bytes(plan, reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        report = build(plan, tmp_path / "ds", executor="dask", scheduler=cluster.scheduler_address)
    assert report.made == {"synth": 6, "degrade": 6, "consensus": 0}
    assert tree_hash(tmp_path / "ds") == reference[1]


def test_consensus_inputs_are_built_into_the_dataset(tmp_path, capsys):
    from gtkit.testing.simulate import simulate

    simulate(tmp_path / "inv", seed=3, n_docs=2, n_rows=6)
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[consensus]]\nname = "invoices"\nfolder = "inv"\n'
                    '[[splits]]\nname = "real"\npipeline = ["consensus"]\n')
    code, text = cli(["build", plan, "--out", tmp_path / "ds", "--workers", "1"], capsys)
    assert code == 0, text
    lines = [json.loads(x) for x in (tmp_path / "ds" / "dataset.jsonl").read_text().splitlines()]
    assert [x["path"].rsplit("/", 1)[0] for x in lines] == ["consensus/invoices"] * 2
    assert {x["split"] for x in lines} == {"real"}
    assert (tmp_path / "ds" / "consensus" / "invoices" / "queue.jsonl").is_file()
    assert cli(["check", tmp_path / "ds"], capsys)[0] == 0


BAD = {
    "unknown_family": ('[[families]]\nfamily = "nope"\nrecords = [5]\n', "/families/0/family: unknown family 'nope'"),
    "unknown_recipe": ('[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n[[recipes]]\nrecipe = "nope"\n',
                       "/recipes/0/recipe: unknown recipe 'nope'"),
    "empty_range": ('[[families]]\nfamily = "creditor_matrix"\nrecords = { min = 9, max = 5 }\n',
                    "/families/0/records: the record range 9..5 is empty"),
    "empty_list": ('[[families]]\nfamily = "creditor_matrix"\nrecords = []\n',
                   "/families/0/records: the record list is empty"),
    "same_doc_id": ('[[families]]\nfamily = "creditor_matrix"\nrecords = [5, 8]\n'
                    '[[families]]\nfamily = "creditor_matrix"\nrecords = [8]\n',
                    "/families/1: makes doc id 'creditor_matrix-r8-d0', which /families/0 makes too"),
    "apply_to": ('[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n[[recipes]]\nrecipe = "fax"\n'
                 'apply_to = ["unclaimed_property"]\n',
                 "/recipes/0/apply_to/0: family 'unclaimed_property' is not one of the plan's families"),
    "range_bound": ('[[families]]\nfamily = "creditor_matrix"\nrecords = { min = 0, max = 5 }\n',
                    "/families/0/records/min: Input should be greater than 0"),
    "records_type": ('[[families]]\nfamily = "creditor_matrix"\nrecords = 5\n',
                     "/families/0/records: give a list of record counts or a range"),
    "unknown_key": ('[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\ncount = 2\n',
                    "/families/0/count: unknown key"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_plan_is_one_line_naming_file_and_entry_and_builds_nothing(case, tmp_path, capsys):
    body, message = BAD[case]
    plan = tmp_path / "plan.toml"
    plan.write_text("seed = 1\n" + body)
    code, text = cli(["build", plan, "--out", tmp_path / "ds"], capsys)
    assert code == 2
    assert text == f"gtkit: error: {plan}: {message}\n" or text.startswith(f"gtkit: error: {plan}: {message}")
    assert len(text.strip().splitlines()) == 1
    assert not (tmp_path / "ds").exists()


def test_unreachable_scheduler_is_one_line_exit_2_nothing_built(tmp_path, capsys):
    pytest.importorskip("distributed")
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n')
    t0 = time.monotonic()
    code, text = cli(["build", plan, "--out", tmp_path / "ds", "--executor", "dask", "--scheduler",
                      "tcp://127.0.0.1:9"], capsys)
    assert time.monotonic() - t0 < 30
    assert code == 2 and len(text.strip().splitlines()) == 1, text
    assert text.startswith("gtkit: error: --scheduler tcp://127.0.0.1:9: cannot reach a Dask scheduler")
    assert not (tmp_path / "ds").exists()


def test_consensus_inputs_are_checked_before_anything_is_built(tmp_path, capsys):
    from gtkit.testing.simulate import simulate

    simulate(tmp_path / "inv", seed=3, n_docs=1, n_rows=3, render=False)
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n'
                    '[[consensus]]\nname = "inv"\nfolder = "inv"\nciting = "nobody"\n')
    code, text = cli(["build", plan, "--out", tmp_path / "ds"], capsys)
    assert code == 2 and text.startswith(f"gtkit: error: {plan}: /consensus/0: ") and "nobody" in text, text
    assert not (tmp_path / "ds").exists()


def test_dask_missing_is_one_line_naming_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n')
    code, text = cli(["build", plan, "--out", tmp_path / "ds", "--executor", "dask", "--scheduler", "tcp://x:1"],
                     capsys)
    assert code == 2 and text == "gtkit: error: --executor dask needs the packages dask and distributed: " \
        "pip install 'gtkit[dask]'\n"
    assert not (tmp_path / "ds").exists()


def test_another_plans_build_is_refused_without_force(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n')
    assert cli(["build", plan, "--out", tmp_path / "ds", "--workers", "1"], capsys)[0] == 0
    plan.write_text('seed = 2\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n')
    code, text = cli(["build", plan, "--out", tmp_path / "ds"], capsys)
    assert code == 2 and "was built from another plan" in text
    code, text = cli(["build", plan, "--out", tmp_path / "ds", "--workers", "1", "--force"], capsys)
    assert code == 0, text
    gt = json.loads((tmp_path / "ds" / "creditor_matrix-r5-d0" / "gt.json").read_text())
    assert gt["provenance"]["parameters"]["plan_seed"] == 2
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    code, text = cli(["build", plan, "--out", tmp_path / "mine", "--force"], capsys)
    assert code == 2 and (tmp_path / "mine" / "notes.txt").read_text() == "keep"


def test_changing_only_the_splits_rewrites_the_index_and_nothing_else(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    body = 'seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5, 6]\n'
    plan.write_text(body)
    out = tmp_path / "ds"
    assert cli(["build", plan, "--out", out, "--workers", "1"], capsys)[0] == 0
    pdf = (out / "creditor_matrix-r5-d0" / "document.pdf").stat().st_mtime_ns
    assert "split" not in (out / "dataset.jsonl").read_text()
    plan.write_text(body + '[[splits]]\nname = "small"\nfamily = ["nope"]\n[[splits]]\nname = "rest"\n')
    code, text = cli(["build", plan, "--out", out], capsys)
    assert code == 0 and "made nothing" in text and "rest 2" in text, text
    assert [json.loads(x)["split"] for x in (out / "dataset.jsonl").read_text().splitlines()] == ["rest", "rest"]
    assert json.loads((out / "build-plan.json").read_text())["splits"][1]["name"] == "rest"
    assert (out / "creditor_matrix-r5-d0" / "document.pdf").stat().st_mtime_ns == pdf


def test_split_filters():
    from gtkit.builder.plan import SplitEntry, split_of

    clean = {"family": "cm", "pipeline": "synth", "recipe": None, "perception": [], "task": ["T1.a"], "length": "L1"}
    scan = {**clean, "pipeline": "degrade", "recipe": "fax", "perception": ["P1"]}
    splits = [SplitEntry(name="long", length=["L2", "L3"]), SplitEntry(name="clean", perception=[]),
              SplitEntry(name="fax", recipe=["fax"], task=["T1.b", "T1.a"])]
    assert split_of(splits, clean) == "clean"
    assert split_of(splits, scan) == "fax"
    assert split_of(splits, {**scan, "recipe": "aging"}) is None
    assert split_of(splits, {**scan, "length": "L3"}) == "long"
    assert split_of(splits, {**scan, "task": ["T2"]}) is None  # a tag list must share a listed value


def test_an_empty_folder_is_used_as_is(tmp_path, capsys):
    plan = tmp_path / "plan.toml"
    plan.write_text('seed = 1\n[[families]]\nfamily = "creditor_matrix"\nrecords = [5]\n')
    (tmp_path / "ds").mkdir()
    inode = (tmp_path / "ds").stat().st_ino
    assert cli(["build", plan, "--out", tmp_path / "ds", "--workers", "1"], capsys)[0] == 0
    assert (tmp_path / "ds").stat().st_ino == inode
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == ["build-plan.json", "creditor_matrix-r5-d0",
                                                                   "dataset.jsonl"]


def test_the_dataset_tools_read_the_splits_of_a_build(reference):
    from gtkit.dataset.inventory import bundle_folders

    assert [split for _, split, _ in bundle_folders(reference[0])] == ["clean"] * 6 + ["scanned"] * 6
