"""Executors change how chunks are scheduled, never what they compute: worker count, chunk cache and
device options leave the suite's bytes as they are."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from dataclasses import replace

import pytest
import torch
from conftest import require
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import generate as generation
from autocheck.expand.job import Expander, expand_unit, start_expander, units
from autocheck.expand.mlm import MaskedLM, resolve_device
from autocheck.resources import ResourceMissing

pytestmark = pytest.mark.shared_data


def _suite(out) -> tuple[bytes, bytes]:
    return (out / "cases.jsonl").read_bytes(), (out / "manifest.json").read_bytes()


@pytest.mark.slow
def test_two_workers_write_the_same_bytes_as_one(stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    # several units per chunk: both workers get some of each chunk
    stand_in_config = replace(stand_in_config, unit_size=1)
    one = generation.generate(stand_in_config, tmp_path / "one")
    assert sum(c.expansions for c in one.counts.values()) > 0
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "other-cache"))  # nothing reused
    generation.generate(stand_in_config, tmp_path / "two", workers=2)
    assert _suite(tmp_path / "two") == _suite(tmp_path / "one")
    timings = (tmp_path / "two" / "timings.json").read_text()
    assert '"workers": 2' in timings and '"mlm_rows"' in timings  # the workers did the model work


@pytest.mark.slow
def test_forked_workers_of_the_cli_write_the_same_cases_as_one_process(stand_in_config, tmp_path):  # noqa: F811
    """The CLI has not imported torch when its pool starts, so its workers are forked after the preload
    (the path users take; the tests' own process has torch and spawns)."""
    generation.generate(stand_in_config, tmp_path / "one")
    c = stand_in_config
    capabilities = [arg for cap in c.capabilities for arg in ("--capability", cap)]
    argv = [
        sys.executable, "-m", "autocheck", "-v", "generate", "--dataset", c.dataset, "--lexicon", c.lexicon,
        *capabilities, "--max-seeds", "3", "--parser", c.parser, "--mlm", c.mlm, "--fills-per-mask", "2",
        "--chunk-size", "2", "--seed", "1", "--workers", "2", "--out", str(tmp_path / "forked"),
    ]  # fmt: skip
    env = {**os.environ, "AUTOCHECK_CACHE": str(tmp_path / "other-cache")}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "expanding with 2 worker processes (fork)" in done.stderr
    assert (tmp_path / "forked/cases.jsonl").read_bytes() == (tmp_path / "one/cases.jsonl").read_bytes()


HEAP_PREAMBLE = """
import ctypes, sys
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
rss = lambda: int(open("/proc/self/statm").read().split()[1]) * 4096 >> 20
"""
HEAP_PROBE = (
    HEAP_PREAMBLE
    + """
from autocheck.memory import release_free_memory
blocks = [libc.malloc(64 << 10) for _ in range(3200)]  # 200 MiB of heap blocks (below the mmap threshold)
for block in blocks:
    ctypes.memset(block, 1, 64 << 10)
for block in blocks[:-1]:  # the last one pins the top of the heap: glibc keeps the freed pages
    libc.free(block)
held = rss()
if sys.argv[1] == "release":
    release_free_memory()
print(held - rss())
"""
)


def _needs_glibc() -> None:
    from autocheck.memory import libc

    if libc() is None:
        pytest.skip("not glibc")


def _probe(script: str, how: str) -> str:
    env = {
        k: v for k, v in os.environ.items() if k not in ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
    }
    return subprocess.run(
        [sys.executable, "-c", script, how], capture_output=True, text=True, check=True, env=env
    ).stdout


def test_released_free_memory_goes_back_to_the_system():
    _needs_glibc()
    returned = {how: int(_probe(HEAP_PROBE, how)) for how in ("keep", "release")}
    assert returned["keep"] < 10 and returned["release"] > 150  # MiB given back


LARGE_BLOCKS_PROBE = (
    HEAP_PREAMBLE
    + """
from autocheck.memory import bound_heap_growth
if sys.argv[1] == "bound":
    bound_heap_growth()
libc.free(libc.malloc(4 << 20))  # glibc's first free of a large block raises its threshold above it
blocks = [libc.malloc(2 << 20) for _ in range(100)]  # 200 MiB of activation-sized blocks
for block in blocks:
    ctypes.memset(block, 1, 2 << 20)
held = rss()
for block in blocks[:-1]:  # the last one pins the top of the heap
    libc.free(block)
print(held - rss())
"""
)


def test_large_blocks_go_back_to_the_system_when_freed():
    _needs_glibc()
    returned = {how: int(_probe(LARGE_BLOCKS_PROBE, how)) for how in ("default", "bound")}
    assert returned["default"] < 10 and returned["bound"] > 150  # MiB given back


REUSE_PROBE = (
    HEAP_PREAMBLE
    + """
import resource
from autocheck.memory import blocks_reused, bound_heap_growth
bound_heap_growth()
faults = lambda: resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def passes():  # a pass's activations: blocks allocated, written and freed, again and again
    before = faults()
    for _ in range(50):
        block = libc.malloc(8 << 20)
        ctypes.memset(block, 1, 8 << 20)
        libc.free(block)
    return faults() - before
if sys.argv[1] == "reused":
    with blocks_reused():
        faulted = passes()
        held = rss()
    print(faulted, held - rss())
else:
    print(passes(), 0)
"""
)


def test_blocks_reused_within_the_scope_and_given_back_at_its_end():
    _needs_glibc()
    fresh, _ = map(int, _probe(REUSE_PROBE, "bounded").split())
    reused, returned = map(int, _probe(REUSE_PROBE, "reused").split())
    assert reused * 10 < fresh  # pages faulted in: every pass's, or the first pass's only
    assert returned >= 7  # MiB: the block kept in the heap goes back when the scope ends


def test_every_process_that_expands_bounds_its_heap(monkeypatch, tmp_path):
    from autocheck.expand import job

    calls = []
    monkeypatch.setattr(job, "bound_heap_growth", lambda: calls.append("bound"))
    config = generation.GenerateConfig(dataset=None, parser=str(tmp_path))  # a directory: loaded on first use
    Expander(config, None, {})  # what workers and Ray actors build too
    assert calls == ["bound"]


GC_PROBE = """
import gc, sys, tempfile
from autocheck.execute import local
from autocheck.config import GenerateConfig
from autocheck.expand.checkpoint import preload_modules
from autocheck.expand.job import expand_unit, start_expander

def collector():
    return gc.isenabled(), gc.get_freeze_count()

config = GenerateConfig(dataset=None, parser=tempfile.gettempdir())  # a directory: loaded on first parse
args = (start_expander, (config, None, {}, {}), expand_unit, 1)
pool = local._forked_pool(1, args, preload_modules(config.mlm))
print(*pool.apply(collector), *collector(), "transformers" in sys.modules)
pool.terminate()
"""


def test_forked_workers_collect_garbage_but_never_walk_what_they_inherit():
    out = subprocess.run(
        [sys.executable, "-c", GC_PROBE], capture_output=True, text=True, check=True, timeout=900
    ).stdout
    worker_on, worker_frozen, parent_on, parent_frozen, preloaded = out.split()
    assert worker_on == "True" and int(worker_frozen) > 100_000  # the preloaded modules' objects
    assert parent_on == "True" and parent_frozen == "0" and preloaded == "True"


def test_the_workers_serve_every_map_of_the_same_work_until_closed():
    """``fuzz`` maps once per depth of each chunk: its workers (and their models) start once."""
    import operator

    from autocheck.execute.local import LocalExecutor
    from autocheck.execute.work import Work

    executor = LocalExecutor(workers=2)
    work = Work(os.getpid, (), operator.add)  # each worker's state is its pid, which each unit returns
    try:
        first = set(executor.map(work, [0] * 8))
        pool = executor._pool
        again = set(executor.map(Work(os.getpid, (), operator.add), [0] * 8))  # an equal work, built anew
        assert executor._pool is pool and again <= {process.pid for process in pool._pool}  # type: ignore[union-attr]
        assert first <= {process.pid for process in pool._pool} and os.getpid() not in first  # type: ignore[union-attr]
        other = set(executor.map(Work(os.getpid, (), operator.or_), [0] * 4))  # another work
        assert executor._pool is not pool and not other & first
    finally:
        executor.close()
    assert executor._pool is None


@pytest.mark.slow
def test_generate_stops_its_workers_when_it_fails_midway(stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    """The workers outlive a map (``fuzz`` reuses them), so ``generate`` stops them itself, on any exit."""
    from autocheck.suite import SuiteWriter

    def failing(self, state):
        raise RuntimeError("disk full")

    monkeypatch.setattr(SuiteWriter, "checkpoint", failing)  # after the first chunk's units are computed
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    with pytest.raises(RuntimeError, match="disk full"):
        generation.generate(stand_in_config, tmp_path / "out", workers=2)
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_fuzz_forks_its_workers_before_it_loads_its_target(shared_data, tmp_path):
    """A target given as a spec (the CLI's) loads after the workers fork: loading runs torch, after which
    they would be spawned, each importing and loading everything again."""
    models = shared_data / "models"
    argv = [
        sys.executable, "-m", "autocheck", "-v", "fuzz", "--model", str(require(models / "mini-bert-sst2")),
        "--dataset", str(require(shared_data.parent / "bench/alict60/LC2/SSTB_train.csv")),
        "--capability", "LC2", "--lexicon", "opinion", "--max-seeds", "4",
        "--parser", str(models / "benepar_ptbsample_charlstm"), "--mlm", str(models / "mini-bert-mlm"),
        "--max-variants", "1", "--queries", "10", "--seed", "1",
    ]  # fmt: skip
    outs = {}
    for workers in ("1", "2"):
        out = tmp_path / f"workers-{workers}"
        env = {**os.environ, "AUTOCHECK_CACHE": str(tmp_path / f"cache-{workers}")}
        command = [*argv, "--workers", workers, "--out", str(out)]
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        assert done.returncode == 0, done.stderr
        outs[workers] = (out / "cases.jsonl").read_bytes()
    assert "expanding with 2 worker processes (fork)" in done.stderr
    assert done.stderr.count("expanding with") == 1  # one pool for every depth
    assert outs["1"] == outs["2"]


def test_a_worker_that_cannot_start_fails_the_first_unit_instead_of_restarting_forever():
    from autocheck.execute import local

    config = generation.GenerateConfig(dataset=None, parser="no_such_benepar_model")
    setup = (start_expander, (config, None, {}, {}), expand_unit, 1)
    pool = multiprocessing.get_context("spawn").Pool(1, local._start, setup)
    try:
        with pytest.raises(ResourceMissing, match="no_such_benepar_model"):
            pool.apply_async(local._step, ([],)).get(timeout=900)
    finally:
        pool.terminate()


def test_the_program_leaves_what_is_alive_at_exit_to_the_system():
    """``autocheck`` (the script and ``python -m``) freezes what is alive before Python's exit, whose
    collections would walk it all; ``main``, which tests and library users call, does not."""
    probe = (
        "import atexit, gc, sys; atexit.register(lambda: print(gc.get_freeze_count()));"
        "from autocheck import cli; sys.argv = ['autocheck', '--offline', 'doctor']; cli.{}()"
    )
    counts = {
        entry: subprocess.run(
            [sys.executable, "-c", probe.format(entry)], capture_output=True, text=True
        ).stdout.split()[-1]
        for entry in ("run", "main")
    }
    assert int(counts["run"]) > 1000 and counts["main"] == "0"


def test_unit_size_does_not_change_the_suite(stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    stand_in_config = replace(stand_in_config, unit_size=1)
    generation.generate(stand_in_config, tmp_path / "small")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "other-cache"))
    stand_in_config = replace(stand_in_config, unit_size=8)
    generation.generate(stand_in_config, tmp_path / "large")
    cases = lambda out: (out / "cases.jsonl").read_bytes()  # noqa: E731 (the manifest records the setting)
    assert cases(tmp_path / "small") == cases(tmp_path / "large")


def test_a_chunk_is_cut_into_the_same_units_whatever_shares_it():
    chunk = list(range(12))
    assert [len(u) for u in units(chunk, 8)] == [3, 3, 3, 3]  # short: at least MIN_UNITS
    assert [len(u) for u in units(list(range(64)), 8)] == [8] * 8  # long: as set
    assert [len(u) for u in units(chunk[:2], 8)] == [1, 1]
    assert sum(units(chunk, 5), []) == chunk


@pytest.mark.slow
def test_two_workers_write_the_same_bytes_as_one_on_the_alict60_seeds(shared_data, tmp_path, monkeypatch):
    """On real seeds, where a unit's batches decide the last bits of the masked LM's scores: the alict60
    LC9 seeds once got another rounded score with two workers, whose units were cut finer."""
    models = shared_data / "models"
    config = generation.GenerateConfig(
        dataset=str(require(shared_data.parent / "bench/alict60/LC9/SSTB_train.csv")),
        capabilities=["LC9"],
        lexicon="opinion",
        max_variants=1,
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        seed=1,
    )
    generation.generate(config, tmp_path / "one")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "other-cache"))
    generation.generate(config, tmp_path / "two", workers=2)
    assert _suite(tmp_path / "two") == _suite(tmp_path / "one")


def test_a_fully_cached_rerun_loads_no_model(stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    generation.generate(stand_in_config, tmp_path / "cold")
    loads = []
    real = MaskedLM.from_pretrained.__func__
    monkeypatch.setattr(
        MaskedLM, "from_pretrained", classmethod(lambda cls, *a, **k: loads.append(a) or real(cls, *a, **k))
    )
    from autocheck.expand import parsing

    monkeypatch.setattr(parsing, "_load_benepar", lambda *a: loads.append(a) or pytest.fail("parser loaded"))
    generation.generate(stand_in_config, tmp_path / "warm")
    assert loads == []
    assert _suite(tmp_path / "warm") == _suite(tmp_path / "cold")


def test_another_pos_tagger_misses_the_chunk_cache(stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    """Validation tags every fill and reads lemmas, so a chunk's key holds the NLTK data's files
    (``resources.nltk_data_identity``)."""
    from autocheck.expand import job

    generation.generate(stand_in_config, tmp_path / "cold", workers=1)
    expanded = []
    real = job.Expander._expand_uncached
    monkeypatch.setattr(job.Expander, "_expand_uncached", lambda s, *a: expanded.append(a) or real(s, *a))
    generation.generate(stand_in_config, tmp_path / "warm", workers=1)
    assert expanded == []
    monkeypatch.setattr(job, "nltk_data_identity", lambda: "another tagger")
    generation.generate(stand_in_config, tmp_path / "retagged", workers=1)
    assert expanded


def test_a_changed_setting_misses_the_chunk_cache(stand_in_config, tmp_path):  # noqa: F811
    generation.generate(stand_in_config, tmp_path / "a")
    stand_in_config = replace(stand_in_config, fills_per_mask=1)
    summary = generation.generate(stand_in_config, tmp_path / "b")
    assert _suite(tmp_path / "a")[0] != _suite(tmp_path / "b")[0]
    assert sum(c.expansions for c in summary.counts.values()) > 0


def test_device_auto_is_the_cpu_here_and_cuda_without_a_gpu_is_a_clear_error():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    assert resolve_device("auto").type == "cpu" and resolve_device(None).type == "cpu"
    with pytest.raises(ResourceMissing, match="no CUDA GPU"):
        resolve_device("cuda")


def test_token_sized_batches_give_the_same_suggestions(shared_data):
    """Rows per forward pass bounded by tokens: more, smaller passes, the same fills."""
    from conftest import require

    path = require(shared_data / "models/mini-bert-mlm")
    big = MaskedLM.from_pretrained(path, device="cpu")
    small = MaskedLM.from_pretrained(path, device="cpu", batch_tokens=8)
    texts = [f"this is a {big.tokenizer.mask_token} {big.tokenizer.mask_token} film .", "a [MASK] story ."]
    import os

    os.environ["AUTOCHECK_CACHE"] = "off"
    a = big.suggest_texts(texts, beam_size=5, top_n=5)
    b = small.suggest_texts(texts, beam_size=5, top_n=5)
    assert small.forward_passes > big.forward_passes
    assert [[w for w, _ in fills] for fills in a] == [[w for w, _ in fills] for fills in b]
    assert all(abs(x[1] - y[1]) < 1e-3 for fa, fb in zip(a, b) for x, y in zip(fa, fb))


def test_the_weights_are_cast_once_to_the_precision(shared_data):
    from conftest import require

    mlm = MaskedLM.from_pretrained(require(shared_data / "models/mini-bert-mlm"), device="cpu")
    assert {p.dtype for p in mlm.model.parameters()} == {torch.float32}
    bf16 = MaskedLM(mlm.tokenizer, mlm.model, mlm.identity, "cpu", precision="bf16")
    assert {p.dtype for p in bf16.model.parameters()} == {torch.bfloat16}  # no autocast re-casting per call
    ids = mlm.tokenizer(["a [MASK] film ."], return_tensors="pt")["input_ids"]
    scores = bf16.log_probs_at(ids, torch.ones_like(ids), torch.tensor([2]))
    assert scores.dtype == torch.float32  # the softmax over the vocabulary in fp32
    with pytest.raises(ValueError, match="precision"):
        MaskedLM(mlm.tokenizer, mlm.model, mlm.identity, "cpu", precision="fp8")


THREADS_PROBE = """
import os, tempfile
import torch
from autocheck.execute import local
from autocheck.config import GenerateConfig
from autocheck.expand.job import expand_unit, start_expander

def threads():
    import torch
    return torch.get_num_threads()

torch.set_num_threads(2)
list(local.LocalExecutor(workers=1).map(None, []))  # this process computes
in_process = torch.get_num_threads()
config = GenerateConfig(dataset=None, parser=tempfile.gettempdir())  # a directory: loaded on first parse
args = (start_expander, (config, None, {}, {}), expand_unit, local.THREADS)
pool = local._forked_pool(1, args)  # no torch op has run: fork is safe
print(in_process, pool.apply(threads), os.environ["OMP_NUM_THREADS"])
pool.terminate()
"""


def test_every_expanding_process_runs_one_torch_thread():
    """Two threads of one process, or of two worker processes on two cores, fight: one each by default."""
    out = subprocess.run(
        [sys.executable, "-c", THREADS_PROBE], capture_output=True, text=True, check=True, timeout=900
    ).stdout
    assert out.split() == ["1", "1", "1"]


def test_workers_default_to_the_cores_this_process_may_use(small_dataset, tmp_path):  # noqa: F811
    from autocheck.cli import main
    from autocheck.execute.local import default_workers

    assert default_workers() == len(os.sched_getaffinity(0))
    argv = ["generate", "--dataset", str(small_dataset), "--lexicon", "opinion", "--capability", "LC4"]
    assert main([*argv, "--max-seeds", "2", "--no-expand", "--out", str(tmp_path / "out")]) == 0
    timings = (tmp_path / "out" / "timings.json").read_text()
    assert f'"workers": {default_workers()}' in timings


def test_workers_are_capped_at_the_usable_cores_unless_forced(small_dataset, tmp_path, caplog):  # noqa: F811
    from autocheck.cli import main
    from autocheck.execute.local import default_workers

    cores = default_workers()
    argv = ["generate", "--dataset", str(small_dataset), "--lexicon", "opinion", "--capability", "LC4"]
    argv += ["--max-seeds", "1", "--no-expand"]
    assert main([*argv, "--workers", "100000", "--out", str(tmp_path / "a")]) == 0
    assert f'"workers": {cores}' in (tmp_path / "a" / "timings.json").read_text()
    assert f"--workers 100000: this process may use {cores} cores; using {cores}" in caplog.text
    assert main([*argv, "--workers", str(cores + 1), "--force-workers", "--out", str(tmp_path / "b")]) == 0
    assert f'"workers": {cores + 1}' in (tmp_path / "b" / "timings.json").read_text()


def test_the_workers_inherit_transformers_table_of_checkpoint_renamings(monkeypatch):
    """transformers 5 builds its checkpoint renamings (about a thousand regular expressions) at a process's
    first model load: ``_preload`` builds them before the workers fork, so no worker builds its own."""
    from autocheck.execute import local

    conversion = pytest.importorskip("transformers.conversion_mapping")
    if not hasattr(conversion, "_checkpoint_conversion_mapping_cache"):
        pytest.skip("this transformers keeps no table of checkpoint renamings")
    monkeypatch.setattr(conversion, "_checkpoint_conversion_mapping_cache", None)
    local._preload(("transformers.modeling_utils",))  # a masked LM transformers loads (not bert.py's)
    assert conversion._checkpoint_conversion_mapping_cache is not None
