"""The package as a user gets it: build the wheel, install it into a fresh virtual environment, and run the
command line from outside the source tree (the shipped specs and grammars must come with it).

Slow-ish (a wheel build and a venv, about 15 s); skipped with the reason when building is impossible here.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

pytestmark = pytest.mark.install

SENTENCES = [
    ("This is a bad movie.", "negative"),
    ("This is a good film.", "positive"),
    ("A lovely and charming film.", "positive"),
    ("The movie has a plot.", "neutral"),
]


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    try:
        import setuptools  # noqa: F401  (the build backend, used without build isolation: no network)
    except ImportError:
        pytest.skip("setuptools is not installed, so the wheel cannot be built offline")
    out = tmp_path_factory.mktemp("wheel")
    build = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
        ],
        cwd=out,
    )
    wheels = list(out.glob("autocheck-*.whl"))
    if build.returncode != 0 or not wheels:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip().splitlines()[-1:]}")
    return wheels[0]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv with only the wheel installed; the dependencies (torch, ...) come from this
    environment's site-packages, added after the venv's own so the wheel's autocheck wins."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    if not python.exists():
        pytest.skip("the fresh venv has no bin/python (not a POSIX layout)")
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=env_dir
        ).stdout.strip()
    )
    here = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    # a plain path line: the current packages are importable, their .pth hooks (the editable install of
    # this checkout) are not run
    (site / "zz_host_packages.pth").write_text("\n".join(sorted(here)) + "\n")
    # --force-reinstall: pip sees this checkout's editable install through that line and would call the
    # wheel "already installed" (same version), leaving the venv without autocheck
    install = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--force-reinstall",
            str(wheel),
        ],
        cwd=env_dir,
    )
    if install.returncode != 0:
        pytest.skip(f"pip cannot install into a fresh venv here: {install.stderr.strip().splitlines()[-1:]}")
    return env_dir


def test_wheel_ships_the_specs_grammars_and_data(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for folder in ("requirements", "grammars", "data"):
        shipped = sorted(p.relative_to(REPO).as_posix() for p in (REPO / folder).rglob("*") if p.is_file())
        for relative in shipped:
            assert f"autocheck/_project/{relative}" in names
    assert "autocheck/_project/requirements/sentiment.json" in names
    assert "autocheck/_project/requirements/schema.json" in names
    assert "autocheck/__main__.py" in names


def _outside_env(env_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_installed_wheel_runs_outside_the_source_tree(installed, tmp_path):
    env = _outside_env(installed)
    python = str(installed / "bin" / "python")
    where = _run(
        [
            python,
            "-c",
            "import autocheck.resources as r; print(r.__file__); "
            "print(r.project_file('requirements/sentiment.json'))",
        ],
        cwd=tmp_path,
        env=env,
    )
    assert where.returncode == 0, where.stderr
    module, spec = where.stdout.split()
    assert Path(module).is_relative_to(installed) and not Path(module).is_relative_to(REPO)
    assert Path(spec).is_relative_to(installed) and Path(spec).is_file()

    helped = _run([python, "-m", "autocheck", "--help"], cwd=tmp_path, env=env)
    assert helped.returncode == 0 and "usage: autocheck" in helped.stdout, helped.stderr

    dataset = tmp_path / "tiny.csv"
    with open(dataset, "w", newline="") as f:
        csv.writer(f).writerows([("text", "label"), *SENTENCES])
    lexicon = REPO / "tests" / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    script = installed / "bin" / "autocheck"
    assert script.exists()
    seeds = _run(
        [str(script), "seeds", "--dataset", str(dataset), "--lexicon", str(lexicon), "--out", "suite"],
        cwd=tmp_path,
        env=env,
    )
    assert seeds.returncode == 0, seeds.stderr
    assert (tmp_path / "suite" / "cases.jsonl").stat().st_size > 0
    assert (tmp_path / "suite" / "manifest.json").is_file()


def test_source_checkout_reads_the_top_level_folders():
    from autocheck import resources

    if resources.INSTALLED_DATA.is_dir():
        pytest.skip("this autocheck is an installed wheel, not the source checkout")
    assert resources.project_file("requirements/sentiment.json") == REPO / "requirements" / "sentiment.json"
