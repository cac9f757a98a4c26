"""Ray executor: work handed to a pool of Ray actors that each load their models once, results taken in order.

``ActorPool`` holds the pool: one actor per CPU of the cluster (or per GPU when the work asks for CUDA or
finds it), each built once from a setup sent through the object store; ``ActorPool.map`` hands items out
round-robin with at most ``2 × actors`` in flight and yields their results in submission order, so memory
stays flat and whoever writes sees results in order.

For ``generate`` and ``fuzz`` (``RayExecutor.map``) each ``_Runner`` actor builds the work's state once
(the generator's ``Expander``: its parser and masked LM load on the first unit that needs them) and
computes whole units, exactly as a local worker does, so the suite is byte-identical to the local
executor's for the same ``--seed``; the unit loop and the resume point (``state.json``) are the driver's,
as for the local executors.

For ``run`` (``RayPredictor``) each actor loads the model under test from its spec (``Model.loader``:
``load_model``'s arguments, never the loaded model) and answers the batches ``Model.predict`` cuts, as it
would in process, so the predictions are byte-identical; the driver keeps the prediction cache (only
uncached inputs are sent, and it caches the answers as they come back).

Faults: actors are created with ``max_restarts=-1`` and ``max_task_retries=-1``, so when an actor's
process dies Ray starts a new one (which loads its models again) and re-runs the work that was in flight
on it; a result is a pure function of its item, so a re-run gives the same bytes, and since results are
taken once each, in order, nothing is lost or written twice.

Why actors and tasks rather than a Ray Data dataset: the stream is already split into resumable chunks by
the driver, and Ray Data's ``map_batches`` re-batches rows (a unit or a batch must stay whole to give the
same bytes) and keeps output order only with ``preserve_order`` set; plain actors give the same
parallelism with the order and the boundaries explicit.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..models import load_model
from ..resources import ResourceMissing
from ..store import InputError

if TYPE_CHECKING:
    from .work import Work

log = logging.getLogger(__name__)


class _Actor:
    def pid(self) -> int:
        return os.getpid()


class _Runner(_Actor):
    """A ``map`` actor: the work's state built once per process, then one unit at a time."""

    def __init__(self, setup: tuple[Any, ...], threads: int):
        import torch

        torch.set_num_threads(threads)
        start, args, self.work_step = setup
        self.state = start(*args)

    def step(self, unit: Any) -> Any:
        return self.work_step(self.state, unit)


class _Predictor(_Actor):
    """A ``run`` actor: one model under test per process, loaded from its spec."""

    def __init__(self, setup: tuple[Any, ...], threads: int):
        try:
            import torch

            torch.set_num_threads(threads)
        except ImportError:  # a callable model needs no torch
            pass
        name, spec, task, options = setup
        self.error: Exception | None = None
        try:
            self.model = load_model(spec, task, **options)
            self.model.name = name  # its warnings and errors name it as the driver does
        except (InputError, ResourceMissing) as e:  # (a module missing on this node) told on the first
            self.error = e  # batch, where the driver reads it as a one-line error, not a dead actor

    def answers(self, batch: list[Any]) -> list[Any]:
        if self.error is not None:
            raise self.error
        return self.model.answer(batch)


def join(ray: Any, address: str | None) -> None:
    """``ray.init``: join the cluster at ``address`` or start a local one. A cluster that cannot be joined
    is a one-line ``InputError`` naming the cause, not Ray's traceback (whose ``ConnectionError`` the CLI
    would otherwise take for a failure of the machine mid-run and answer with "--resume").

    A cluster started with ``ray start`` uses token authentication when its user has a token (Ray writes
    ``~/.ray/auth_token`` the first time a local cluster starts, e.g. for ``--executor ray`` without an
    address), but a process joining it does not look for one unless ``RAY_AUTH_MODE=token`` is set, and
    is refused with ``InvalidAuthToken``. So, joining with ``RAY_AUTH_MODE`` unset, token mode is turned on
    where a token is found (``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH`` or ``~/.ray/auth_token``), as
    ``ray start`` itself decides; ``RAY_AUTH_MODE`` set by the user is kept."""
    if address is not None:
        _use_token_if_found()
    try:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    except Exception as e:  # ConnectionError, RuntimeError, AuthenticationError: all mean "cannot join"
        causes: list[str] = []
        cause: BaseException | None = e
        while cause is not None:
            causes.append(f"{type(cause).__name__}: {cause}")
            cause = cause.__cause__ or cause.__context__
        said = " ".join(causes)
        first = next((line.strip() for line in str(e).splitlines() if line.strip()), type(e).__name__)
        if address is None:
            raise InputError(f"could not start a local Ray cluster ({first})") from None
        if "InvalidAuthToken" in said or "AuthenticationError" in said:
            mode = os.environ.get("RAY_AUTH_MODE", "unset")
            raise InputError.hint(
                f"the Ray cluster at {{ray_address}} refused this process: it uses token authentication and "
                f"this process has no token or another one (RAY_AUTH_MODE {mode}). Give it the cluster's "
                "token: RAY_AUTH_TOKEN=TOKEN, RAY_AUTH_TOKEN_PATH=FILE, or the ~/.ray/auth_token of the user "
                "who ran `ray start` (`ray get-auth-token` prints it)",
                ray_address=(f"ray_address={address!r}", f"--ray-address {address}"),
            ) from None
        raise InputError.hint(
            f"could not join the Ray cluster at {{ray_address}} ({first}); is `ray start --head` running "
            f"there? `ray status --address {address}` checks",
            ray_address=(f"ray_address={address!r}", f"--ray-address {address}"),
        ) from None


def _use_token_if_found() -> None:
    """Token authentication on for this process (and the actors it starts) where ``RAY_AUTH_MODE`` is
    unset and a token is found, as ``ray start`` decides for the cluster."""
    try:  # Ray's own rule (Ray 2.52+); an older Ray has no token authentication
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
    except ImportError:
        return
    maybe_enable_token_auth_if_token_available(warn_if_disabled=False)


class ActorPool:
    """``actors`` Ray actors of ``worker`` (default: one per CPU of the cluster, or one GPU each when
    ``device`` asks for CUDA or finds one), each built once from ``setup``; ``address`` as for
    ``ray.init``."""

    def __init__(
        self,
        worker: type,
        setup: tuple[Any, ...],
        *,
        device: str = "auto",
        address: str | None = None,
        actors: int | None = None,
    ):
        try:
            import ray
        except ImportError:
            raise ResourceMissing(
                "--executor ray needs Ray: pip install 'autocheck[ray]' (or pip install ray)"
            ) from None
        self.ray = ray
        if not ray.is_initialized():
            join(ray, address)
        cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]  # untyped in Ray
        gpus = int(ray.cluster_resources().get("GPU", 0))  # type: ignore[no-untyped-call]  # untyped in Ray
        use_gpu = gpus > 0 and device in ("auto", "cuda")
        self.size = actors or (gpus if use_gpu else max(1, cpus))
        # Ray's overloads type neither the actor class's methods nor their .remote()
        remote: Any = ray.remote(
            num_cpus=1, num_gpus=1 if use_gpu else 0, max_restarts=-1, max_task_retries=-1
        )(worker)
        # the constructor's arguments stay referenced here, so a restarted actor can read them again
        self._setup = ray.put(setup)
        self.actors = [remote.remote(self._setup, 1) for _ in range(self.size)]

    def pids(self) -> list[int]:
        return self.ray.get([actor.pid.remote() for actor in self.actors])

    def map(self, method: str, items: Iterable[Any]) -> Iterator[Any]:
        """The actors' ``method`` over ``items``, round-robin, at most ``2 × actors`` in flight, results in
        item order. Items are drawn only as results are taken."""
        pending: deque[Any] = deque()  # Ray object refs
        for turn, item in enumerate(items):
            pending.append(getattr(self.actors[turn % self.size], method).remote(item))
            if len(pending) >= 2 * self.size:
                yield self._get(pending.popleft())
        while pending:
            yield self._get(pending.popleft())

    def _get(self, ref: Any) -> Any:
        """The result, or the actor's own error when it is a mistake in what the user gave (a one-line
        message, not a remote traceback)."""
        try:
            return self.ray.get(ref)
        except self.ray.exceptions.RayTaskError as e:
            if isinstance(e.cause, (InputError, ResourceMissing)):
                raise e.cause from None
            raise

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)


class RayPredictor:
    """A model's batches answered by ``_Predictor`` actors that load it from ``model.loader``; the pool
    starts on the first batch to compute (a fully cached run starts none). Pass as ``Model.predict``'s
    ``compute``."""

    def __init__(self, model: Any, *, address: str | None = None, actors: int | None = None):
        self.model, self.address, self.actors = model, address, actors
        self.pool: ActorPool | None = None

    def __call__(self, batches: Iterable[list[Any]]) -> Iterator[list[Any]]:
        if self.pool is None:
            spec, options = self.model.loader
            options = {**options, "batch_size": self.model.batch_size}
            self.pool = ActorPool(
                _Predictor,
                (self.model.name, spec, self.model.task, options),
                device=options.get("device", "auto"),
                address=self.address,
                actors=self.actors,
            )
        return self.pool.map("answers", batches)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


class RayExecutor:
    """The ``ray`` executor: a map's units computed by ``_Runner`` actors and ``run``'s batches by
    ``RayPredictor``s, on the cluster at ``address`` (as for ``ray.init``; None starts a local one) with
    ``actors`` actors (default one per CPU, or per GPU)."""

    def __init__(self, *, workers: int = 1, address: str | None = None, actors: int | None = None):
        self.address, self.actors = address, actors
        self._pools: list[ActorPool | RayPredictor] = []
        self._running: tuple[Work, ActorPool] | None = None  # the latest map's work and its actors

    def map(self, work: Work, units: Iterable[Any]) -> Iterator[Any]:
        """``work`` over ``units`` by ``_Runner`` actors (``work.device`` places them), results in order;
        the actors started for a map serve the next maps of the same work (``fuzz``'s depths), and stop
        before another work's start (they hold the CPUs the next ones need: a new pool beside them waited
        forever where the actors took every CPU, as ``fuzz``'s second depth did)."""
        if self._running is None or not work.same_as(self._running[0]):
            if self._running is not None:
                self._running[1].close()
                self._pools.remove(self._running[1])
            pool = ActorPool(
                _Runner,
                (work.start, work.setup, work.step),
                device=work.device,
                address=self.address,
                actors=self.actors,
            )
            self._pools.append(pool)
            self._running = (work, pool)
        return self._running[1].map("step", units)

    def predictor(self, model: Any) -> RayPredictor | None:
        """Actors that load ``model`` from its spec; None for a model given as an object (a callable, a
        pipeline), which this process answers."""
        if model.loader is None:
            log.info("%s: predicted by this process (Ray actors load models given by a spec)", model.name)
            return None
        predictor = RayPredictor(model, address=self.address, actors=self.actors)
        self._pools.append(predictor)
        return predictor

    def close(self) -> None:
        for pool in self._pools:
            pool.close()
        self._pools.clear()
        self._running = None
