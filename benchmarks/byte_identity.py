"""Byte-identity fence for moves: the same commands on another commit (default 9b0ddbd, before the parts
refactor) and on this working tree, every output file compared byte for byte.

The commands: ``seeds`` of every shipped template suite (NLI, QQP, SQuAD, CheckList's sentiment tests),
``run`` of each with a rule model of its task (``identity_models.py``: label and span answers), ``export``
of each (JSON Lines and CSV, ``--inputs`` too), and the alict60 workload (``bench_alict60.py``'s one-process
form: ``generate`` over LC2/LC4/LC9 with the stand-in parser and masked LM) then ``run`` with the stand-in
SST-2 model and ``export``. Caches off. Prints CPU-seconds of each side (interleaved: base, head, per
command) and every file that differs; exits 1 when one does.

    python benchmarks/byte_identity.py [--base REV] [--keep DIR]
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
from bench_alict60 import CAPABILITIES, SHARED, combined, machine  # noqa: E402

SUITES = {"nli": "nli", "qqp": "qqp", "squad": "squad", "sentiment_checklist": "sentiment"}
VOLATILE = {"timings.json"}  # seconds: differ between any two runs
VOLATILE_KEYS = {"environment"}  # a JSON file's fields that name the code, not what it computed


def commands(out: Path, alict: tuple[Path, Path]) -> list[tuple[str, list[str]]]:
    dataset, spec = alict
    steps: list[tuple[str, list[str]]] = []
    for suite, model in SUITES.items():
        s, r = out / f"suite-{suite}", out / f"run-{suite}"
        steps += [
            (f"seeds {suite}", ["seeds", "--requirements", suite, "--seed", "0", "--out", str(s)]),
            (f"run {suite}", ["run", str(s), "--model", f"identity_models:{model}", "--out", str(r)]),
            (f"export {suite}", ["export", str(s), "--out", str(out / f"export-{suite}"),
                                 "--inputs", str(out / f"inputs-{suite}.jsonl")]),
            (f"export csv {suite}", ["export", str(s), "--format", "csv",
                                     "--out", str(out / f"csv-{suite}")]),
        ]  # fmt: skip
    a = out / "suite-alict60"
    generate = ["generate", "--dataset", str(dataset), "--text-column", "text", "--label-column", "label"]
    generate += ["--requirements", str(spec), *(x for lc in CAPABILITIES for x in ("--capability", lc))]
    generate += ["--lexicon", "opinion", "--parser", str(SHARED / "models/benepar_ptbsample_charlstm")]
    generate += ["--mlm", str(SHARED / "models/mini-bert-mlm"), "--max-variants", "1", "--seed", "1"]
    generate += ["--workers", "1", "--out", str(a)]
    steps += [
        ("generate alict60", generate),
        ("run alict60", ["run", str(a), "--model", str(SHARED / "models/mini-bert-sst2"),
                         "--out", str(out / "run-alict60")]),
        ("export alict60", ["export", str(a), "--set-labels", "soft", "--out", str(out / "export-alict60")]),
    ]  # fmt: skip
    return steps


def checkout(rev: str, into: Path) -> Path:
    """The files of ``rev`` (``git archive``: no worktree is registered)."""
    archive = subprocess.run(["git", "archive", rev], cwd=REPO, check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def cli(src: Path, argv: list[str]) -> float:
    """CPU-seconds of one ``autocheck`` command run on the code in ``src``."""
    env = {
        **os.environ,
        "AUTOCHECK_CACHE": "off",
        # each side's own rule models first (they import autocheck's modules, which a move renames), this
        # tree's for a base that has none
        "PYTHONPATH": os.pathsep.join(
            str(p) for p in (src, src / "tests", src / "benchmarks", REPO / "tests", REPO / "benchmarks")
        ),
    }
    env.setdefault("NLTK_DATA", str(SHARED / "nltk_data"))
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "autocheck", *argv], cwd=src, env=env, capture_output=True, text=True
    )
    if done.returncode:
        raise SystemExit(f"{src}: autocheck {' '.join(argv)} failed:\n{done.stderr[-3000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def differences(a: Path, b: Path) -> list[str]:
    """Files that differ between two output trees (``VOLATILE`` files skipped; JSON files compared without
    their ``VOLATILE_KEYS``)."""
    found = []
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    names |= {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    for name in sorted(names):
        x, y = a / name, b / name
        if name.name in VOLATILE:
            continue
        if not (x.is_file() and y.is_file()):
            found.append(f"{name}: only in {'base' if x.is_file() else 'head'}")
        elif not filecmp.cmp(x, y, shallow=False):
            if name.suffix == ".json" and _content(x) == _content(y):
                continue
            found.append(str(name))
    return found


def _content(path: Path) -> object:
    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
        return [strip(v) for v in value] if isinstance(value, list) else value

    return strip(json.loads(path.read_text()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", default="9b0ddbd")
    parser.add_argument("--keep", type=Path, help="write the outputs here (default: a temporary folder)")
    args = parser.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        base = checkout(args.base, work / "base-src")
        alict = combined(Path(tempfile.mkdtemp(dir=work)), CAPABILITIES)
        # each side's outputs are moved to ``out`` for its commands, so both write the same paths
        out = work / "out"
        outs = {"base": work / "base-out", "head": work / "head-out"}
        for folder in outs.values():
            folder.mkdir()
        cpu = {"base": 0.0, "head": 0.0}
        for name, argv in commands(out, alict):
            figures = []
            for side, src in (("base", base), ("head", REPO)):
                outs[side].rename(out)
                try:
                    seconds = cli(src, argv)
                finally:
                    out.rename(outs[side])
                cpu[side] += seconds
                figures.append(f"{side} {seconds:6.2f}")
            print(f"{name:<26} CPU-s: {'  '.join(figures)}", flush=True)
        print(f"{'all':<26} CPU-s: base {cpu['base']:6.2f}  head {cpu['head']:6.2f}")
        found = differences(outs["base"], outs["head"])
        print("\n".join(found) if found else f"byte-identical: every output of {args.base} and this tree")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
