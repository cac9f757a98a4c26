"""Every command of the README and the documentation pages is run (tests/readme_commands.py says which
are skipped and why)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATA, require
from readme_commands import Command, cap_seeds, documents, extract, run_all, skip_reason

SNIPPET = """
Text.

```bash
export NLTK_DATA=../shared/data/nltk_data
pip install -e . && autocheck seeds --requirements nli --out suites/nli
autocheck run suites/nli --model autocheck.baselines:word_overlap_nli \\
    --out runs/nli   # a comment
autocheck run suites/nli --model my-org/nli-model --out runs/x
autocheck report runs/r1 --json > runs/r1/summary.json
autocheck run SUITE_DIR --model m --out runs/y
# readme-test: skip
autocheck seeds --requirements nli --out suites/again
autocheck generate --dataset data.csv --max-seeds 20 --out suites/g
```

```python
autocheck is not run from a python block
```
"""


def test_extraction_and_skip_rules(tmp_path):
    items = extract(SNIPPET)
    commands = [i for i in items if isinstance(i, Command)]
    assert [c.argv[0] for c in commands] == ["seeds", "run", "run", "report", "run", "seeds", "generate"]
    assert "pip install -e ." in items
    assert commands[1].argv == [
        "run",
        "suites/nli",
        "--model",
        "autocheck.baselines:word_overlap_nli",
        "--out",
        "runs/nli",
    ]
    assert commands[0].env == {"NLTK_DATA": "../shared/data/nltk_data"}
    assert commands[3].stdout == "runs/r1/summary.json" and commands[3].argv[-1] == "--json"
    (tmp_path / "suites" / "nli").mkdir(parents=True)
    reasons = [skip_reason(c, tmp_path, fast=True) for c in commands]
    assert reasons[0] is None and reasons[1] is None
    assert reasons[2] == "needs the Hugging Face hub (my-org/nli-model)"
    assert reasons[3] == "input not there: runs/r1"
    assert reasons[4] == "placeholder"
    assert reasons[5] == "marked in the README"
    assert reasons[6] == "input not there: data.csv"
    (tmp_path / "data.csv").write_text("text,label\n")
    assert skip_reason(commands[6], tmp_path, fast=True).startswith("slow")
    assert skip_reason(commands[6], tmp_path, fast=False) is None
    assert cap_seeds(commands[6].argv, 2) == [
        "generate",
        "--dataset",
        "data.csv",
        "--max-seeds",
        "2",
        "--out",
        "suites/g",
    ]
    assert cap_seeds(["demo", "--out", "d"], 2) == ["demo", "--out", "d", "--max-seeds", "2"]
    assert cap_seeds(["checklist", "f.json", "--out", "c"], 2)[-2:] == ["--max-per-test", "20"]


def _run(tmp_path: Path, fast: bool) -> None:
    require(SHARED_DATA / "nltk_data")
    ran, skipped = run_all(documents(), tmp_path / "work", SHARED_DATA, fast=fast)
    failed = [f"{line}\n{tail}" for line, code, tail in ran if code != 0]
    assert not failed, "\n\n".join(failed)
    assert len(ran) >= 4, f"too few documented commands ran: {ran} (skipped: {skipped})"


def test_readme_commands_fast_subset(tmp_path, request):
    if any(item.name == "test_readme_commands_all" for item in request.session.items):
        pytest.skip("test_readme_commands_all runs in this session and runs these commands too")
    _run(tmp_path, fast=True)


@pytest.mark.slow
def test_readme_commands_all(tmp_path):
    _run(tmp_path, fast=False)


def test_readme_python_first_run(tmp_path):
    """The README's Python block (the first run on your own CSV and model) runs as written, in a folder
    where the checkout's data/ is data/."""
    import os
    import re
    import subprocess
    import sys

    require(SHARED_DATA / "nltk_data")
    (block,) = re.findall(
        r"^```python\n(.*?)^```", (REPO / "README.md").read_text(encoding="utf-8"), re.S | re.M
    )
    (tmp_path / "data").symlink_to(REPO / "data", target_is_directory=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "NLTK_DATA": str(SHARED_DATA / "nltk_data")}
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LC6 Negation" in done.stdout  # the summary table was printed
    assert (tmp_path / "runs" / "mine-py" / "results.json").is_file()
