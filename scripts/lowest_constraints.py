"""Print pip constraints pinning every dependency of pyproject.toml to the lowest version its range allows.

Covers [project].dependencies and the named extras (default: dev); `make test-min` installs gtkit against them in a
fresh venv, so the floor of every range is one the suite has passed on. A requirement's floor is its `==` pin or its
`>=` bound; one without either (an unbounded name) is an error: it has no floor to test.

    python scripts/lowest_constraints.py [pyproject.toml] [--extra dev ...]          # the constraints
    python scripts/lowest_constraints.py --check [pyproject.toml] [--extra dev ...]  # is this env at them?

A floor is written as pyproject writes it (`opencv-python-headless>=4.10` gives `==4.10`, while its first release is
4.10.0.82), so the install itself is left to a resolver that picks the lowest release of each direct dependency
(uv's `--resolution lowest-direct`); `--check` then asserts that every one installed in the running interpreter
is at its floor, to the floor's precision (4.10.0.82 is at 4.10; 4.11.0.86 is not).
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version


def floor(req: Requirement) -> str:
    """The lowest version `req`'s specifier allows: its `==` pin, or its `>=` bound."""
    pins = [s.version for s in req.specifier if s.operator in ("==", "===")]
    lows = [s.version for s in req.specifier if s.operator == ">="]
    if pins:
        return pins[0]
    if lows:
        return max(lows, key=Version)  # several >= bounds: the highest is the floor
    raise SystemExit(f"{req}: no floor (neither == nor >=) to pin")


def constraints(pyproject: Path, extras: list[str]) -> list[str]:
    project = tomllib.loads(pyproject.read_text("utf-8"))["project"]
    reqs = list(project.get("dependencies", []))
    for extra in extras:
        reqs += project.get("optional-dependencies", {}).get(extra, [])
    out: dict[str, str] = {}
    for text in reqs:
        req = Requirement(text)
        version = floor(req)
        if not req.specifier.contains(version, prereleases=True):
            raise SystemExit(f"{req}: its floor {version} lies outside its own range")
        if out.get(req.name, version) != version:
            raise SystemExit(f"{req.name}: two floors, {out[req.name]} and {version}")
        out[req.name] = version
    return [f"{name}=={version}" for name, version in sorted(out.items())]


def at_floor(installed: str, floor_version: str) -> bool:
    """`installed` is the floor's release, to as many parts as the floor spells (4.10.0.82 is at 4.10)."""
    want = Version(floor_version).release
    return Version(installed).release[: len(want)] == want


def check(pyproject: Path, extras: list[str]) -> int:
    """A line per dependency of this interpreter's environment, at its floor or not; the count that are not."""
    from importlib.metadata import PackageNotFoundError, version

    off = 0
    for line in constraints(pyproject, extras):
        name, floor_version = line.split("==")
        try:
            installed = version(name)
        except PackageNotFoundError:
            installed = "(not installed)"
        ok = installed != "(not installed)" and at_floor(installed, floor_version)
        off += not ok
        print(f"{'ok ' if ok else 'OFF'} {name:<24} floor {floor_version:<10} installed {installed}")
    return off


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pyproject", nargs="?", default="pyproject.toml", type=Path)
    parser.add_argument("--extra", action="append", help="an extra whose requirements are pinned too (default: dev)")
    parser.add_argument("--check", action="store_true", help="check this environment is at the floors instead")
    args = parser.parse_args(argv)
    if args.check:
        off = check(args.pyproject, args.extra or ["dev"])
        if off:
            raise SystemExit(f"{off} dependencies are not at their floor")
        return
    sys.stdout.write("".join(line + "\n" for line in constraints(args.pyproject, args.extra or ["dev"])))


if __name__ == "__main__":
    main()
