"""Ship the project's top-level data folders inside the package.

The product fixes the layout: ``requirements/``, ``grammars/`` and ``data/`` stay at the top of the source
tree. A wheel carries them as ``autocheck/_project/<folder>/`` (package data), which
``autocheck.resources.project_file`` finds when there is no source checkout around the package.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = ("requirements", "grammars", "data")  # keep in step with autocheck.resources.SHIPPED


class BuildPyWithProjectData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the checkout itself
            return
        target = Path(self.build_lib) / "autocheck" / "_project"
        for name in SHIPPED:
            source = ROOT / name
            if source.is_dir():
                shutil.rmtree(target / name, ignore_errors=True)
                shutil.copytree(
                    source, target / name, ignore=shutil.ignore_patterns("__pycache__", ".*", "*.pyc")
                )


setup(cmdclass={"build_py": BuildPyWithProjectData})
