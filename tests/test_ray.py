"""The Ray executor against a local cluster the test starts: same bytes as the local executor, and a
worker killed in the middle of a run costs nothing (the run finishes, nothing lost or duplicated)."""

from __future__ import annotations

import os
import signal

import pytest
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import pipeline

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'autocheck[ray]')")
pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _bytes(out):
    return (out / "cases.jsonl").read_bytes(), (out / "manifest.json").read_bytes()


def test_ray_writes_the_same_bytes_and_survives_a_killed_worker(
    cluster,
    stand_in_config,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    stand_in_config.unit_size = 1
    pipeline.generate(stand_in_config, tmp_path / "local")

    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # every unit really computed by the actors
    from autocheck.execute import ray as ray_executor

    killed = []
    real_map = ray_executor.RayExecutor.map

    def map_and_kill(self, chunks):
        for n, pair in enumerate(real_map(self, chunks)):
            if n == 0:  # after the first chunk: kill one actor while units are in flight on it
                pid = self.pids()[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            yield pair

    monkeypatch.setattr(ray_executor.RayExecutor, "map", map_and_kill)
    summary = pipeline.generate(stand_in_config, tmp_path / "ray", executor="ray")
    assert killed
    assert _bytes(tmp_path / "ray") == _bytes(tmp_path / "local")  # nothing lost, nothing twice
    assert sum(c.expansions for c in summary.counts.values()) > 0


def test_ray_run_resumes(cluster, stand_in_config, tmp_path, monkeypatch):  # noqa: F811
    pipeline.generate(stand_in_config, tmp_path / "local")
    from autocheck.execute import ray as ray_executor

    real_map, seen = ray_executor.RayExecutor.map, []

    def interrupted(self, chunks):
        for pair in real_map(self, chunks):
            seen.append(pair)
            if len(seen) == 2:
                raise KeyboardInterrupt
            yield pair

    monkeypatch.setattr(ray_executor.RayExecutor, "map", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pipeline.generate(stand_in_config, tmp_path / "ray", executor="ray")
    monkeypatch.setattr(ray_executor.RayExecutor, "map", real_map)
    pipeline.generate(stand_in_config, tmp_path / "ray", executor="ray", resume=True)
    assert _bytes(tmp_path / "ray") == _bytes(tmp_path / "local")
