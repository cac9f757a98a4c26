"""Fault injection for generation: a SIGKILL in the middle of writing a chunk (a record half written, the
state not yet saved, the state half replaced) and a full disk (ENOSPC) during a write; after each,
``--resume`` finishes with nothing lost or duplicated: the suite is byte-identical to an uninterrupted run.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from test_pipeline import small_dataset  # noqa: F401

from autocheck import generate as generation
from autocheck import store, suite
from autocheck.cli import main

LEXICON = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"

# Runs generate in a child process and SIGKILLs it at the chosen point of the chosen chunk.
CHILD = r"""
import json, os, signal, sys
from pathlib import Path
from autocheck import generate as generation
from autocheck import store

config = generation.GenerateConfig(**json.loads(sys.argv[1]))
out, point, at = Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
seen = {"flushes": 0, "records": 0}

def die():
    os.kill(os.getpid(), signal.SIGKILL)

real_write, real_flush = store.JsonlWriter.write, store.JsonlWriter.flush

def write(self, obj):
    if point == "mid-record" and seen["flushes"] == at:
        seen["records"] += 1
        if seen["records"] == 3:  # the third record of the chunk: half of its line reaches the disk
            line = (store.dumps(obj) + "\n").encode("utf-8")
            self._file.write(line[: len(line) // 2])
            self._file.flush()
            os.fsync(self._file.fileno())
            die()
    real_write(self, obj)

def flush(self):
    offset = real_flush(self)
    seen["flushes"] += 1
    if point == "before-state" and seen["flushes"] == at + 1:
        die()  # the chunk is on disk, its resume point is not
    return offset

real_replace = os.replace

def replace(src, dst, *args, **kwargs):
    if point == "mid-state" and Path(dst).name == "state.json" and seen["flushes"] == at + 1:
        die()  # the new state is in its temporary file, not yet renamed
    return real_replace(src, dst, *args, **kwargs)

store.JsonlWriter.write, store.JsonlWriter.flush, os.replace = write, flush, replace
generation.generate(config, out)
"""


@pytest.fixture
def config(shared_data, small_dataset) -> generation.GenerateConfig:  # noqa: F811
    return generation.GenerateConfig(
        dataset=str(small_dataset), lexicon=str(LEXICON), expand=False, chunk_size=3, seed=3
    )


@pytest.fixture
def reference(config, tmp_path) -> tuple[bytes, dict]:
    summary = generation.generate(config, tmp_path / "reference")
    data = (tmp_path / "reference" / "cases.jsonl").read_bytes()
    assert data.count(b"\n") > 4 * config.chunk_size  # enough chunks to be interrupted in the middle
    return data, _counts(summary)


def _counts(summary: generation.RunSummary) -> dict:
    return {"counts": {k: asdict(v) for k, v in summary.counts.items()}, "rejected": summary.rejected}


def _assert_same_as_reference(
    out: Path, summary: generation.RunSummary, reference: tuple[bytes, dict]
) -> None:
    data = (out / "cases.jsonl").read_bytes()
    lines = data.splitlines()
    assert len(lines) == len({json.loads(line)["id"] for line in lines})  # nothing duplicated
    assert data == reference[0]  # nothing lost, same order, same bytes
    assert _counts(summary) == reference[1]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == reference[1]["counts"]
    assert not (out / "state.json").exists()
    assert not list(out.glob(".*.tmp"))  # no temporary file left behind by the killed write


@pytest.mark.parametrize("point", ["mid-record", "before-state", "mid-state"])
def test_sigkill_while_writing_a_chunk_then_resume(config, reference, tmp_path, point):
    out = tmp_path / "killed"
    child = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(asdict(config)), str(out), point, "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    written = (out / "cases.jsonl").read_bytes()
    assert 0 < len(written) < len(reference[0])
    if point == "mid-record":
        assert not written.endswith(b"\n")  # really killed inside a record
    summary = generation.generate(config, out, resume=True)
    _assert_same_as_reference(out, summary, reference)


def disk_full(real, n: int):
    """``real``, raising ENOSPC once, at its n-th call (then the disk has room again)."""
    calls = []

    def patched(*args, **kwargs):
        calls.append(1)
        if len(calls) == n:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args, **kwargs)

    return patched


@pytest.mark.parametrize("where,n", [("write", 8), ("flush", 3), ("state", 2)])
def test_full_disk_during_a_write_then_resume(config, reference, tmp_path, monkeypatch, capsys, where, n):
    out = tmp_path / "full-disk"
    if where == "state":
        monkeypatch.setattr(suite, "atomic_write_json", disk_full(store.atomic_write_json, n))
    else:
        target = "write" if where == "write" else "flush"
        monkeypatch.setattr(store.JsonlWriter, target, disk_full(getattr(store.JsonlWriter, target), n))
    with pytest.raises(OSError) as info:
        generation.generate(config, out)
    assert info.value.errno == errno.ENOSPC
    monkeypatch.undo()
    summary = generation.generate(config, out, resume=True)
    _assert_same_as_reference(out, summary, reference)


def test_full_disk_is_a_clear_cli_error_that_names_resume(config, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(store.JsonlWriter, "write", disk_full(store.JsonlWriter.write, 5))
    out = tmp_path / "suite"
    args = ["seeds", "--dataset", config.dataset, "--lexicon", str(LEXICON), "--out", str(out)]
    assert main([*args, "--chunk-size", "3", "--seed", "3"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "No space left on device" in err and "--resume" in err
    monkeypatch.undo()
    assert main([*args, "--chunk-size", "3", "--seed", "3", "--resume"]) == 0


def test_resume_after_a_committed_file_was_cut_is_an_error_not_padding(config, tmp_path, monkeypatch):
    """Resuming used to truncate the file *up* to its state's offset: NUL bytes, a lost record, exit 0."""
    out, states = tmp_path / "out", []
    real = suite.atomic_write_json

    def interrupt_after_two_chunks(path, obj):
        real(path, obj)
        if Path(path).name == "state.json":
            states.append(obj)
            if len(states) == 2:
                raise KeyboardInterrupt

    monkeypatch.setattr(suite, "atomic_write_json", interrupt_after_two_chunks)
    with pytest.raises(KeyboardInterrupt):
        generation.generate(config, out)
    monkeypatch.undo()
    data = (out / "cases.jsonl").read_bytes()
    assert len(data) == states[-1]["offset"] and data.endswith(b"\n")
    cut = data[: len(data) - 10]  # the end of a committed record is gone (a copy cut short, a bad disk)
    (out / "cases.jsonl").write_bytes(cut)
    with pytest.raises(
        store.InputError, match=r"cases\.jsonl: [\d,]+ bytes, shorter than the [\d,]+"
    ) as info:
        generation.generate(config, out, resume=True)
    assert "--overwrite to start again" in info.value.cli and "overwrite=True" in str(info.value)
    assert (out / "cases.jsonl").read_bytes() == cut  # left as it was: not padded, not truncated
    (out / "cases.jsonl").unlink()  # a committed file that vanished is the same error
    with pytest.raises(store.InputError, match=r"0 bytes, shorter than"):
        generation.generate(config, out, resume=True)
    assert generation.generate(config, out, overwrite=True).counts  # the way out the message names works
