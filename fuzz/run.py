"""Coverage-guided fuzzing of the spec loader and the dataset readers with atheris (libFuzzer).

    python fuzz/run.py spec --seconds 60          # one target for a fixed time
    python fuzz/run.py all --seconds 30           # every target, 30 s each

New inputs that reach new code are added to ``tests/fuzz_corpus/<target>/`` (kept in git and replayed by
``tests/test_fuzz.py``); a crash is written to ``fuzz/crashes/`` and the run exits non-zero.
Needs ``pip install atheris`` (the ``fuzz`` extra).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "fuzz_corpus"
TARGET_NAMES = ("spec", "spec_edit", "csv", "tsv", "jsonl", "trees")


def fuzz_one(name: str, seconds: int, max_len: int, corpus_out: Path | None = None) -> None:
    """Run in this process (atheris takes it over and exits when the time is up)."""
    import atheris

    with atheris.instrument_imports(include=["autocheck", "targets"]):
        sys.path.insert(0, str(HERE))
        import targets
    target = targets.TARGETS[name]
    corpus = CORPUS / name
    corpus.mkdir(parents=True, exist_ok=True)
    crashes = HERE / "crashes"
    crashes.mkdir(exist_ok=True)
    dirs = (
        [str(corpus)] if corpus_out is None else [str(corpus_out), str(corpus)]
    )  # the first gets new inputs
    if corpus_out is not None:
        corpus_out.mkdir(parents=True, exist_ok=True)
    args = [
        sys.argv[0],
        *dirs,
        f"-max_total_time={seconds}",
        f"-max_len={max_len}",
        f"-artifact_prefix={crashes}/{name}-",
        "-print_final_stats=1",
    ]
    if (HERE / f"{name}.dict").is_file():  # tokens of the format (JSON keys of a spec)
        args.append(f"-dict={HERE / f'{name}.dict'}")
    atheris.Setup(args, lambda data: target(bytes(data)))
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", choices=[*TARGET_NAMES, "all"])
    parser.add_argument("--seconds", type=int, default=60, help="fuzzing time per target (default 60)")
    parser.add_argument("--max-len", type=int, default=2048, help="largest input tried, in bytes")
    parser.add_argument(
        "--corpus-out", type=Path, help="write new inputs here, not into tests/fuzz_corpus (read it still)"
    )
    args = parser.parse_args()
    os.environ.setdefault("AUTOCHECK_OFFLINE", "1")
    if args.target != "all":
        fuzz_one(args.target, args.seconds, args.max_len, args.corpus_out)
        return 0
    failed = []
    for name in TARGET_NAMES:  # one process per target: atheris exits when its time is up
        code = subprocess.call(
            [sys.executable, __file__, name, "--seconds", str(args.seconds), "--max-len", str(args.max_len)]
        )
        if code != 0:
            failed.append(name)
    if failed:
        print(f"crashes in: {', '.join(failed)} (see fuzz/crashes/)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
