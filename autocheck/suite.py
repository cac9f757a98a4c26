"""The suite directory: its file names, how it is written and how it is read. Every module that writes or
reads a suite goes through here.

- ``cases.jsonl``: one test case per line (``records.TestCase``), appended chunk by chunk;
- ``manifest.json``: the task, the capabilities, the settings, the counts, and the files it consists of;
- ``state.json``: the resume point of an unfinished generation (chunks done, the committed size of
  ``cases.jsonl``), removed when it finishes;
- ``timings.json``: seconds per stage of the generation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from .expect import check_expected
from .outputs import check_output
from .records import KINDS, SEED, TestCase
from .requirements import default_task
from .schemas import check, read_records
from .store import InputError, JsonlWriter, atomic_write_json, load_json
from .tasks import Task

CASES = "cases.jsonl"
MANIFEST = "manifest.json"
STATE = "state.json"
TIMINGS = "timings.json"
# what a suite directory holds; --overwrite removes only these
SUITE_FILES = (CASES, MANIFEST, STATE, TIMINGS)


def read_manifest(suite_dir: str | Path) -> dict[str, Any]:
    """The suite's manifest, or ``{}`` for a suite without one (cases written by hand)."""
    path = Path(suite_dir) / MANIFEST
    return check("suite manifest", load_json(path, "suite manifest"), path) if path.is_file() else {}


def suite_task(suite_dir: str | Path) -> Task:
    """The task a suite was made for: from its manifest, or sentiment for a suite without one."""
    manifest = read_manifest(suite_dir)
    if isinstance(manifest.get("task"), dict):
        where = Path(suite_dir) / MANIFEST
        try:  # a damaged header is an error naming the manifest, not a crash where a label is used
            task = Task.from_spec(manifest["task"])
            task.check(f"{where}: field 'task'")
            check_output(task, f"{where}: field 'task'")
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
            raise InputError(
                f"{where}: field 'task' is not a task header ({type(e).__name__}: {e})"
            ) from None
        return task
    return default_task()


def _validate(case: TestCase, task: Task, where: str) -> None:
    if case.kind not in KINDS:
        raise InputError(f"{where}: field 'kind' must be one of {', '.join(KINDS)}, got {case.kind!r}")
    if case.kind != SEED and not case.seed_id:
        raise InputError(f"{where}: {case.kind} {case.id} has no 'seed_id'")
    if tuple(case.inputs) != task.inputs and set(case.inputs) != set(task.inputs):
        raise InputError(
            f"{where}: input fields {sorted(case.inputs)}; the {task.name} task's are {list(task.inputs)}"
        )
    why = check_expected(task, case.test_type, case.expected)
    if why is not None:
        raise InputError(f"{where}: {case.test_type} field 'expected': {why}, got {case.expected!r}")


def iter_cases(path: Path, task: Task | None = None) -> Iterator[TestCase]:
    """Stream a suite's cases (``path``: its ``cases.jsonl``), validated against ``task`` (default: the
    suite's); a malformed line is an error naming file and line, a case id given twice with other values
    an error naming both lines (an identical repeat is skipped and counted)."""
    task = task or suite_task(path.parent)

    def read(record: dict[str, Any], where: str) -> TestCase:
        try:
            case = TestCase.from_json(record)
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise InputError(f"{where}: not a test case ({type(e).__name__}: {e})") from None
        _validate(case, task, where)
        return case

    return read_records(path, "test case", read, lambda case: case.id)


def load_state(out: Path, kind: str = "resume state") -> dict[str, Any] | None:
    """The resume point of an unfinished generation (or, ``kind`` "fuzz resume state", fuzz) in ``out``,
    or None."""
    path = out / STATE
    return check(kind, load_json(path, kind), path) if path.exists() else None


class SuiteWriter:
    """Writes a suite directory: cases appended line by line, a resume point after each chunk
    (``checkpoint``), then the manifest (``finish``). ``offset``: resume after the bytes a checkpoint
    committed (what an interrupted chunk half-wrote is dropped); a ``cases.jsonl`` shorter than that lost
    committed records and cannot be resumed."""

    def __init__(self, out: Path, *, offset: int | None = None):
        self.out = out
        cases = out / CASES
        if offset is not None:
            size = cases.stat().st_size if cases.exists() else 0
            if size < offset:  # truncating "up" would pad it with NUL bytes
                raise InputError.hint(
                    f"{cases}: {size:,} bytes, shorter than the {offset:,} its resume state ({STATE}) "
                    "records as written, so committed records were lost (the file was cut or replaced); it "
                    "cannot be resumed: run the same command with {overwrite} to start again",
                    overwrite="overwrite=True",
                )
            if cases.exists():  # drop what an interrupted chunk half-wrote
                with open(cases, "r+b") as f:
                    f.truncate(offset)
        self._writer = JsonlWriter(cases, append=offset is not None)

    def __enter__(self) -> SuiteWriter:
        self._writer.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._writer.__exit__(kind, error, trace)

    def write(self, case: dict[str, Any] | str) -> None:
        self._writer.write(case)

    def write_all(self, cases: Iterable[dict[str, Any] | str]) -> None:
        self._writer.write_all(cases)

    def checkpoint(self, state: dict[str, Any]) -> None:
        """Commit the cases written so far and record ``state`` with their size as the resume point."""
        atomic_write_json(self.out / STATE, {**state, "offset": self._writer.flush()})

    def finish(self, manifest: dict[str, Any], timings: dict[str, Any] | None = None) -> None:
        """The manifest (its kind and files added), the timings, and no resume point: the suite is done
        (the cases are committed by the last ``checkpoint``, or by ``write_suite``'s close)."""
        files = {"cases": CASES, **({"timings": TIMINGS} if timings is not None else {})}
        atomic_write_json(self.out / MANIFEST, {"kind": "suite", **manifest, "files": files})
        if timings is not None:
            atomic_write_json(self.out / TIMINGS, timings)
        (self.out / STATE).unlink(missing_ok=True)


def write_suite(out: Path, cases: Iterable[TestCase], manifest: dict[str, Any]) -> int:
    """A whole suite at once (an importer, a suite built in Python): its cases, then its manifest; the
    number of cases written."""
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    with SuiteWriter(out) as writer:
        for case in cases:
            writer.write(case.to_json())
            n += 1
    writer.finish(manifest)  # once the cases are closed on disk
    return n
