"""The Ray executor against a local cluster the test starts, for generate and run: same bytes as the local
executor, and a worker killed in the middle of a run costs nothing (the run finishes, nothing lost or
duplicated)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
import transformers
from conftest import tiny_bert
from test_pipeline import small_dataset, stand_in_config  # noqa: F401
from test_run import TABLE, suite  # noqa: F401

from autocheck import generate as generation
from autocheck.cli import main
from autocheck.models import load_model
from autocheck.run import run_suite
from autocheck.store import read_jsonl

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'autocheck[ray]')")


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _bytes(out):
    return (out / "cases.jsonl").read_bytes(), (out / "manifest.json").read_bytes()


@pytest.mark.shared_data
def test_ray_writes_the_same_bytes_and_survives_a_killed_worker(
    cluster,
    stand_in_config,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    stand_in_config = replace(stand_in_config, unit_size=1)
    generation.generate(stand_in_config, tmp_path / "local")

    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # every unit really computed by the actors
    from autocheck.execute import ray as ray_executor

    killed = []
    real_map = ray_executor.ActorPool.map

    def map_and_kill(self, method, units):
        pid = self.pids()[0]  # asked before any unit is queued (an actor answers in order)
        for n, result in enumerate(real_map(self, method, units)):
            if n == 0:  # after the first unit: kill one actor while units are queued on it
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            yield result

    monkeypatch.setattr(ray_executor.ActorPool, "map", map_and_kill)
    summary = generation.generate(stand_in_config, tmp_path / "ray", executor="ray")
    assert killed
    assert _bytes(tmp_path / "ray") == _bytes(tmp_path / "local")  # nothing lost, nothing twice
    assert sum(c.expansions for c in summary.counts.values()) > 0


def test_ray_actors_serve_every_map_of_the_same_work(cluster):
    """``fuzz`` maps once per depth: the actors (and their models) start once, and again only for other
    work, after the first ones stop (each holds a CPU: with every CPU taken a second pool never started)."""
    import operator

    from autocheck.execute.ray import RayExecutor
    from autocheck.execute.work import Work

    executor = RayExecutor(actors=2)
    try:
        first = set(executor.map(Work(os.getpid, (), operator.add), [0] * 6))
        again = set(executor.map(Work(os.getpid, (), operator.add), [0] * 6))  # an equal work, built anew
        assert len(executor._pools) == 1 and again == first and os.getpid() not in first
        pool, found = executor._pools[0], {}
        other = Work(os.getpid, (), operator.or_)  # 2 actors more on the 2 CPUs: in a thread, not to hang
        thread = threading.Thread(target=lambda: found.update(other=set(executor.map(other, [0] * 4))))
        thread.start()
        thread.join(timeout=180)
        assert "other" in found, "the new actors waited for the CPUs the first ones hold"
        assert executor._pools != [pool] and len(executor._pools) == 1 and not found["other"] & first
    finally:
        executor.close()


@pytest.mark.shared_data
def test_ray_run_resumes(cluster, stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    generation.generate(stand_in_config, tmp_path / "local")
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # cached units are answered by the driver, not the actors
    from autocheck.execute import ray as ray_executor

    real_map, seen = ray_executor.ActorPool.map, []

    def interrupted(self, method, units):
        for result in real_map(self, method, units):
            seen.append(result)
            if len(seen) == 2:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(ray_executor.ActorPool, "map", interrupted)
    with pytest.raises(KeyboardInterrupt):
        generation.generate(stand_in_config, tmp_path / "ray", executor="ray")
    monkeypatch.setattr(ray_executor.ActorPool, "map", real_map)
    generation.generate(stand_in_config, tmp_path / "ray", executor="ray", resume=True)
    assert _bytes(tmp_path / "ray") == _bytes(tmp_path / "local")


# ---------------------------------------------------------------------------------------------------------
# autocheck run --executor ray

TABLE_MODEL = """
import os, time

TABLE = {table!r}


def predict(texts):
    with open({log!r}, "a") as f:  # which process computed how many inputs
        f.write(f"{{os.getpid()}} {{len(texts)}}\\n")
    time.sleep({sleep})
    if "s2 e3" in texts:
        raise RuntimeError("CUDA out of memory")  # recorded as this input's error
    return [TABLE[t] for t in texts]


predict.labels = ["negative", "neutral", "positive"]
predict.version = "1"  # declared: a rerun reuses its answers from the cache
"""


def _table_model(tmp_path, sleep=0.0):
    """A callable model given as a file (``test_run``'s table), logging which process computed what."""
    log = tmp_path / "calls.log"
    (tmp_path / "table_model.py").write_text(TABLE_MODEL.format(table=TABLE, log=str(log), sleep=sleep))
    return f"{tmp_path / 'table_model.py'}:predict", log


def _computed(log):
    """{pid: inputs computed} from the model's log."""
    out: dict[int, int] = {}
    for line in log.read_text().splitlines() if log.exists() else ():
        pid, n = map(int, line.split())
        out[pid] = out.get(pid, 0) + n
    return out


def _run_bytes(out):
    return (out / "predictions.jsonl").read_bytes(), (out / "results.json").read_bytes()


def test_run_on_ray_writes_the_same_bytes_and_a_rerun_computes_nothing_again(
    cluster,
    suite,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    spec, log = _table_model(tmp_path)
    words = sorted({word for text in TABLE for word in text.split()})
    bert = tiny_bert(tmp_path / "bert", "ForSequenceClassification", words, {0: "negative", 1: "positive"})
    run = ["run", str(suite), "--model", spec, "--model", bert, "--batch-size", "3"]
    assert main([*run, "--out", str(tmp_path / "local")]) == 0
    local = _computed(log)
    assert set(local) == {os.getpid()}
    log.unlink()

    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "ray-cache"))  # nothing cached yet
    monkeypatch.setattr(transformers.AutoModelForSequenceClassification, "from_pretrained", None)
    assert main([*run, "--out", str(tmp_path / "ray"), "--executor", "ray"]) == 0  # weights in actors only
    computed = _computed(log)
    assert os.getpid() not in computed  # by the actors, each batch as in process (a failing one halved)
    assert sum(computed.values()) == sum(local.values())
    assert _run_bytes(tmp_path / "ray") == _run_bytes(tmp_path / "local")
    rows = {r["case"]: r for r in read_jsonl(tmp_path / "ray" / "predictions.jsonl") if r["model"] == spec}
    assert rows["f3"]["outcome"] == "error" and "CUDA out of memory" in rows["f3"]["error"]

    log.unlink()
    assert main([*run, "--out", str(tmp_path / "again"), "--executor", "ray"]) == 0
    assert sum(_computed(log).values()) == 1  # only the input without an answer (errors are not cached)
    assert _run_bytes(tmp_path / "again") == _run_bytes(tmp_path / "local")


def test_run_on_ray_survives_a_killed_actor(cluster, suite, tmp_path, monkeypatch):  # noqa: F811
    spec, log = _table_model(tmp_path, sleep=0.5)
    model = load_model(spec, batch_size=1)
    run_suite(suite, [model], tmp_path / "local")
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "ray-cache"))  # every input computed by actors
    log.unlink()

    from autocheck.execute import ray as ray_executor

    killed = []
    real_map = ray_executor.ActorPool.map

    def map_and_kill(self, method, items):
        pid = self.pids()[0]  # asked before any batch is in flight (an actor answers in order)
        for n, result in enumerate(real_map(self, method, items)):
            if n == 0:  # the first batch is back: kill the actor once it is inside its next one
                while log.read_text().split().count(str(pid)) < 2:
                    time.sleep(0.01)
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            yield result

    monkeypatch.setattr(ray_executor.ActorPool, "map", map_and_kill)
    run_suite(suite, [model], tmp_path / "ray", executor="ray")
    computed = _computed(log)
    assert killed and killed[0] in computed
    assert sum(computed.values()) > len(TABLE)  # the batch in flight on it was computed again elsewhere
    assert _run_bytes(tmp_path / "ray") == _run_bytes(tmp_path / "local")  # nothing lost, nothing twice


# ---------------------------------------------------------------------------------------------------------
# a cluster started with `ray start`


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.shared_data
def test_generate_joins_a_ray_start_cluster_that_uses_a_token(stand_in_config, tmp_path):  # noqa: F811
    """``ray start --head`` on 127.0.0.1 by a user who has a token (Ray writes one the first time a local
    cluster starts) uses token authentication: ``--ray-address`` joins it and writes the local bytes; a
    process without the token gets one line naming the cause (no traceback, no "--resume")."""
    ray_cli = str(Path(sys.executable).with_name("ray"))
    home, other, temp = tmp_path / "home", tmp_path / "other", tempfile.mkdtemp(prefix="acray", dir="/tmp")
    home.mkdir(), other.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_AUTH", "RAY_ADDRESS"))}
    env |= {"HOME": str(home), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    subprocess.run([ray_cli, "get-auth-token", "--generate"], env=env, check=True, capture_output=True)
    assert (home / ".ray" / "auth_token").is_file()
    port = _free_port()
    address = f"127.0.0.1:{port}"
    head = subprocess.Popen(  # --block: the cluster is this process's children, stopped with it below
        [ray_cli, "start", "--head", "--block", f"--port={port}", "--node-ip-address=127.0.0.1",
         "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    # the probe asks in token mode: without it every `ray status` is refused and the wait ran out its
    # 120 tries (minutes) before the test went on
    probe = {**env, "RAY_AUTH_MODE": "token"}
    try:
        for _ in range(120):
            status = [ray_cli, "status", "--address", address]
            if subprocess.run(status, env=probe, capture_output=True).returncode == 0:
                break
            assert head.poll() is None, "ray start --head exited"
            time.sleep(1)
        else:
            pytest.fail(f"the cluster at {address} did not answer `ray status` in 120 tries")
        c = stand_in_config
        generate = [
            sys.executable, "-m", "autocheck.cli", "generate", "--dataset", c.dataset, "--lexicon", "opinion",
            "--capability", "LC4", "--max-seeds", "2", "--parser", c.parser, "--mlm", c.mlm,
            "--fills-per-mask", "2", "--chunk-size", "2", "--seed", "1",
        ]  # fmt: skip
        local = subprocess.run([*generate, "--out", str(tmp_path / "local")], env=env, capture_output=True)
        assert local.returncode == 0, local.stderr
        joined = subprocess.run(
            [*generate, "--out", str(tmp_path / "ray"), "--executor", "ray", "--ray-address", address],
            env=env, capture_output=True, text=True,
        )  # fmt: skip
        assert joined.returncode == 0, joined.stderr
        assert (tmp_path / "ray" / "cases.jsonl").read_bytes() == (
            tmp_path / "local" / "cases.jsonl"
        ).read_bytes()

        refused = subprocess.run(
            [*generate, "--out", str(tmp_path / "refused"), "--executor", "ray", "--ray-address", address],
            env={**env, "HOME": str(other)}, capture_output=True, text=True,
        )  # fmt: skip
        assert refused.returncode == 2
        error = [line for line in refused.stderr.splitlines() if line.startswith("autocheck: error:")]
        assert len(error) == 1 and "Traceback" not in refused.stderr
        assert f"--ray-address {address}" in error[0] and "token authentication" in error[0]
        assert "RAY_AUTH_TOKEN" in error[0] and "--resume" not in error[0]
    finally:
        os.killpg(head.pid, signal.SIGINT)  # ray start --block stops the cluster's processes on Ctrl-C
        try:
            head.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        shutil.rmtree(temp, ignore_errors=True)
