"""Ray executor: units of seed cases expanded by a pool of Ray actors holding the models, merged in order.

Each actor builds the generator's ``_Expander`` once (its parser and masked LM load on the first unit
that needs them, on a GPU when the actor was given one) and expands whole units, exactly as a local worker
does, so the suite is byte-identical to the local executor's for the same ``--seed``. Units are handed out
round-robin with at most ``2 × actors`` in flight and their results are taken in submission order, so
memory stays flat and the writer sees chunks in order; the resume point (``state.json``) is written by the
driver after each chunk as for the local executors.

Faults: actors are created with ``max_restarts=-1`` and ``max_task_retries=-1``, so when an actor's
process dies Ray starts a new one (which loads its models again) and re-runs the units that were in
flight on it; a unit's result is a pure function of the unit, so a re-run gives the same bytes, and
since results are taken once each, in order, nothing is lost or written twice.

Why actors and tasks rather than a Ray Data dataset: the stream is already split into resumable chunks by
the driver, and Ray Data's ``map_batches`` re-batches rows (a unit must stay whole to give the same
bytes) and keeps output order only with ``preserve_order`` set; plain actors give the same parallelism
with the order and the unit boundaries explicit.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any


class _Worker:
    """The body of a Ray actor: one ``_Expander`` per process."""

    def __init__(self, setup: tuple, threads: int):
        import torch

        torch.set_num_threads(threads)
        from ..pipeline import _Expander, _Timer

        config, lexicon, capabilities, options = setup
        self.expander = _Expander(config, lexicon, capabilities, _Timer())
        for name, value in options.items():
            setattr(self.expander, name, value)

    def pid(self) -> int:
        return os.getpid()

    def expand(self, unit: list) -> Any:
        from ..pipeline import _model_calls

        result = self.expander.expand_chunk(unit)
        result.calls = {
            f"ray-{os.getpid()}": {
                **_model_calls(self.expander, {}),
                "timings": dict(self.expander.timer.seconds),
            }
        }
        return result


class RayExecutor:
    """A pool of ``actors`` Ray actors (default: one per CPU of the cluster, GPUs requested per actor
    when ``options['device']`` asks for CUDA or finds one); ``address`` as for ``ray.init``."""

    def __init__(
        self,
        config: Any,
        lexicon: Any,
        capabilities: dict,
        options: dict | None = None,
        *,
        address: str | None = None,
        actors: int | None = None,
    ):
        try:
            import ray
        except ImportError:
            from ..resources import ResourceMissing

            raise ResourceMissing(
                "--executor ray needs Ray: pip install 'autocheck[ray]' (or pip install ray)"
            ) from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        gpus = int(ray.cluster_resources().get("GPU", 0))
        options = dict(options or {})
        use_gpu = gpus > 0 and options.get("device", "auto") in ("auto", "cuda")
        self.size = actors or (gpus if use_gpu else max(1, cpus))
        remote = ray.remote(num_cpus=1, num_gpus=1 if use_gpu else 0, max_restarts=-1, max_task_retries=-1)(
            _Worker
        )
        # the constructor's arguments stay referenced here, so a restarted actor can read them again
        self._setup = ray.put((config, lexicon, capabilities, options))
        self.actors = [remote.remote(self._setup, 1) for _ in range(self.size)]
        self.config = config

    def pids(self) -> list[int]:
        return self.ray.get([actor.pid.remote() for actor in self.actors])

    def map(self, chunks: Iterable[list]) -> Iterator[tuple[list, Any]]:
        """``(chunk, ChunkResult)`` pairs in chunk order."""
        from ..pipeline import ChunkResult, _units

        pending: deque = deque()
        in_flight = 0
        turn = 0
        iterator = iter(chunks)
        exhausted = False
        while True:
            while not exhausted and in_flight < 2 * self.size:
                chunk = next(iterator, None)
                if chunk is None:
                    exhausted = True
                    break
                refs = []
                for unit in _units(chunk, self.config.unit_size, self.size):
                    refs.append(self.actors[turn % self.size].expand.remote(unit))
                    turn += 1
                pending.append((chunk, refs))
                in_flight += len(refs)
            if not pending:
                return
            chunk, refs = pending.popleft()
            in_flight -= len(refs)
            yield chunk, ChunkResult.merge(self.ray.get(refs))

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
