"""Models under test, one adapter per form, one protocol (``base.Model``).

``load_model(spec, task)`` picks the adapter from the spec:

- ``file:PATH`` — predictions computed elsewhere (``files.FilePredictions``);
- ``http://HOST:PORT/PATH`` or ``https://...`` — a model behind autocheck's JSON protocol
  (``remote.HTTPModel``);
- ``openai:MODEL`` or ``openai:MODEL@BASE_URL`` — an OpenAI-compatible chat/completions endpoint, asked
  with the task's prompt (``remote.ChatModel``);
- ``pipeline:TASK:MODEL`` — a Hugging Face ``pipeline`` built for TASK and MODEL (``hf.PipelineModel``);
- ``spacy:NAME_OR_PATH`` — a spaCy pipeline's entities, for an ``entities`` (NER) task (``spacy``);
- ``module:name`` or ``path/to/file.py:name`` — a Python function, an object with ``predict_proba`` and
  ``classes_`` (scikit-learn) or a pipeline object (``callables.python_model``);
- anything else — a Hugging Face hub id or a local model directory (``hf``): a sequence classifier over
  one text or a pair, extractive question answering for a ``span`` task, token classification for an
  ``entities`` task.

A plug-in adds a form under its own prefix (``MODELS``, entry-point group ``autocheck.models``): a spec
``PREFIX:REST`` whose prefix is registered goes to it before the rules for functions and hub ids.

``as_model`` takes any of these, or the Python object itself (``run_suite`` accepts them all).

Every model's answers are read in the task's labels (``tasks.Task.read``): CheckList's neutral band for
binary sentiment models is the sentiment task's rule, declared in its spec.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..registry import Registry
from ..requirements import default_task
from ..tasks import Task
from .base import Failed, Input, Invalid, Model, Outputs, default_labels
from .callables import CallableModel, load_callable, python_model
from .files import FilePredictions
from .hf import load_hf, load_pipeline
from .remote import load_remote
from .spacy import SpacyModel

__all__ = ["CallableModel", "Failed", "Input", "Invalid", "Model", "Outputs"]
__all__ += ["MODELS", "as_model", "default_labels", "default_task", "load_model"]


# Model forms chosen by the spec's prefix (``PREFIX:REST``): autocheck's own below, a plug-in's through the
# entry-point group "autocheck.models" (a callable taking the whole spec, the task and load_model's options).
MODELS: Registry[Callable[..., Model]] = Registry("models", "model form")


def _file_predictions(spec: str, task: Task, **ignored: Any) -> Model:
    return FilePredictions(spec, Path(spec[len("file:") :]).expanduser(), task)


def _remote(spec: str, task: Task, *, device: str, **options: Any) -> Model:
    return load_remote(spec, task, **options)


def _pipeline(
    spec: str, task: Task, *, batch_size: int, device: str, version: str | None, **remote: Any
) -> Model:
    return load_pipeline(spec, task, batch_size=batch_size, device=device, version=version)


MODELS.register("file", _file_predictions)
for _prefix in ("http", "https", "openai"):
    MODELS.register(_prefix, _remote)


def _spacy(spec: str, task: Task, *, batch_size: int, version: str | None, **ignored: Any) -> Model:
    return SpacyModel(spec, task, batch_size=batch_size, version=version)


MODELS.register("pipeline", _pipeline)
MODELS.register("spacy", _spacy)
READ_HERE = frozenset({"file", "http", "https", "openai"})  # forms this process reads, whatever the executor


def load_model(
    spec: str,
    task: Task | None = None,
    *,
    batch_size: int = 32,
    device: str = "auto",
    version: str | None = None,
    **remote: Any,
) -> Model:
    """A model of ``task`` (default: sentiment) from its spec (see the module docs). ``version`` declares
    what the spec alone cannot pin (a callable's weights, an endpoint's deployment): with it, answers are
    reused across runs. ``remote`` holds the options of HTTP and chat models (``remote.RemoteOptions``). A
    model computed in this process (a callable, an HF model, a plug-in's form) records in ``loader`` how to
    load it again in another (``execute.ray``)."""
    task = task or default_task()
    options: dict[str, Any] = {"batch_size": batch_size, "device": device, "version": version}
    prefix, sep, _ = spec.partition(":")
    model: Model
    if sep and prefix in MODELS:
        model = MODELS.get(prefix)(spec, task, **options, **remote)
        if prefix in READ_HERE:
            return model
        model.loader = (spec, options)
        return model
    target, sep, attr = spec.rpartition(":")
    if sep and target and attr.isidentifier() and not Path(spec).is_dir():
        model = python_model(load_callable(spec), task, name=spec, batch_size=batch_size, version=version)
        if target.endswith(".py") or "/" in target:  # a file: found again from any working directory
            spec = f"{Path(target).expanduser().resolve()}:{attr}"
    else:
        model = load_hf(spec, task, **options)
        if Path(spec).expanduser().is_dir():
            spec = str(Path(spec).expanduser().resolve())
    model.loader = (spec, options)  # what a Ray actor loads
    return model


def as_model(obj: Any, task: Task | None = None, *, batch_size: int = 32, device: str = "auto") -> Model:
    """Any model form as a ``Model``: a ``Model`` as is, a spec (``load_model``, on ``device``), or a Python
    object (a Hugging Face pipeline, an estimator with ``predict_proba`` and ``classes_``, a function)."""
    task = task or default_task()
    if isinstance(obj, str):
        return load_model(obj, task, batch_size=batch_size, device=device)
    return python_model(obj, task, batch_size=batch_size)
