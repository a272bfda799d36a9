"""Build hook: ship families/, recipes/, templates/ and examples/ inside the package as gtkit/_data/ (see gtkit/paths.py).

Everything else about the package is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_FOLDERS = ("families", "recipes", "templates", "examples")


class build_py_with_data(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout's folders
            return
        for name in DATA_FOLDERS:
            target = Path(self.build_lib) / "gtkit" / "_data" / name
            shutil.rmtree(target, ignore_errors=True)
            shutil.copytree(name, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


setup(cmdclass={"build_py": build_py_with_data})
