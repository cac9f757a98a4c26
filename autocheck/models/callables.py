"""Python objects as models under test: a function (``module:function``, ``path/to/file.py:function``, or
passed to ``run_suite``), or an object with ``predict_proba`` and ``classes_`` (a scikit-learn classifier or
pipeline). A Hugging Face ``pipeline`` object is ``hf.PipelineModel``; ``python_model`` picks the adapter.

The function takes a batch and returns one answer per input:

* its inputs: the texts (a list of strings) for a one-field task, records (a list of dicts with the task's
  input fields, e.g. ``{"premise": ..., "hypothesis": ...}``) for any other;
* its answers, for a classification task: class probabilities (a list of lists or a 2-D array), labels (a
  list of strings: label-only, so tests that need probabilities do not apply), a pipeline's
  ``{"label", "score"}`` per input (the other classes share the rest when the labels are declared) or a
  list of those per input (``top_k=None``: every class's score); for a question-answering task, answers
  (strings, or ``(answer, score)`` pairs). Any other shape stops the run at the first batch
  (``base.Model._checked``).

Its class names are the function's ``labels`` attribute (read through the task's names and aliases);
without one, the task's ``label_order`` for that many columns, or the task's labels. An estimator's are its
``classes_`` (integers read as ``LABEL_i``).

A function's answers are reused across runs only when its version is declared (``--model-version``, or a
``version`` attribute on the function or object): the code alone does not pin them (it may read weights
from anywhere). The identity also holds a checksum of the function's source file.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..outputs import for_output
from ..requirements import default_task
from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Input, Model
from .hf import PipelineModel


def _pin(model: Model, base: str, obj: Any, version: str | None) -> None:
    """``identity`` and ``pinned`` of a Python model: pinned by a declared version, else one run only."""
    version = version if version is not None else getattr(obj, "version", None)
    if version is not None and str(version).strip():
        model.identity, model.pinned = f"{base} version:{str(version).strip()}", True
    else:
        model.identity, model.pinned = base, False


class CallableModel(Model):
    def __init__(
        self,
        spec: str,
        fn: Callable[[list[Any]], Any],
        task: Task | None = None,
        *,
        batch_size: int = 32,
        version: str | None = None,
    ):
        task = task or default_task()
        self.name, self.fn, self.task, self.batch_size = spec, fn, task, batch_size
        declared = getattr(fn, "labels", None)
        self.labels = task.model_labels(declared, f"{spec}.labels") if declared is not None else ()
        try:
            source = inspect.getsourcefile(fn)
        except TypeError:
            source = None
        checksum = file_sha256(source)[:16] if source and Path(source).is_file() else "unknown-source"
        _pin(self, f"callable:{spec}#{checksum}", fn, version)

    def _predict(self, batch: list[Input]) -> Any:
        return self.fn(_arguments(self.task, batch))


class EstimatorModel(Model):
    """An object with ``predict_proba(inputs)`` and ``classes_`` (scikit-learn's classifier protocol)."""

    def __init__(
        self, name: str, estimator: Any, task: Task, *, batch_size: int = 32, version: str | None = None
    ):
        self.name, self.estimator, self.task, self.batch_size = name, estimator, task, batch_size
        for_output(f"model {name}: predict_proba", task, {"label": None})  # it answers classes
        classes = [f"LABEL_{c}" if isinstance(c, int) or str(c).isdigit() else c for c in _classes(estimator)]
        self.labels = task.model_labels(classes, f"model {name}: classes_")
        kind = type(estimator)
        _pin(self, f"estimator:{kind.__module__}.{kind.__qualname__}:{name}", estimator, version)

    def _predict(self, batch: list[Input]) -> Any:
        return self.estimator.predict_proba(_arguments(self.task, batch))


def _classes(estimator: Any) -> list[Any]:
    classes = estimator.classes_
    return [c.item() if hasattr(c, "item") else c for c in classes]  # numpy scalars as Python values


def _arguments(task: Task, batch: list[Input]) -> list[Any]:
    """A batch as a Python model takes it: texts for a one-field task, records for any other."""
    if len(task.inputs) == 1:
        return [item[0] for item in batch]
    return [dict(zip(task.inputs, item)) for item in batch]


def python_model(
    obj: Any, task: Task, *, name: str | None = None, batch_size: int = 32, version: str | None = None
) -> Model:
    """The model adapter of a Python object: a Hugging Face pipeline, an estimator (``predict_proba`` and
    ``classes_``) or a function; anything else is an ``InputError`` naming what it is."""
    if isinstance(obj, Model):
        return obj
    if type(obj).__module__.startswith("transformers.") and hasattr(obj, "model") and hasattr(obj, "task"):
        return PipelineModel(obj, task, name=name, batch_size=batch_size, version=version)
    if hasattr(obj, "predict_proba") and hasattr(obj, "classes_"):
        return EstimatorModel(name or _name(obj), obj, task, batch_size=batch_size, version=version)
    if callable(obj):
        return CallableModel(name or _name(obj), obj, task, batch_size=batch_size, version=version)
    raise InputError(
        f"model {name or type(obj).__name__}: a {type(obj).__name__} is not a model; expected a function, "
        "an object with predict_proba and classes_, or a Hugging Face pipeline"
    )


def _name(obj: Any) -> str:
    kind = obj if inspect.isfunction(obj) or inspect.isclass(obj) else type(obj)
    return f"{kind.__module__}:{kind.__qualname__}"


def load_callable(spec: str) -> Any:
    """The object ``module:name`` or ``path/to/file.py:name`` names (a function, an estimator, a pipeline)."""
    target, _, attr = spec.rpartition(":")
    try:
        if target.endswith(".py") or "/" in target:
            path = Path(target).expanduser()
            if not path.is_file():
                raise InputError(f"model '{spec}': file {path} not found")
            name = f"autocheck_user_model_{content_hash(str(path.resolve()), length=8)}"
            module_spec = importlib.util.spec_from_file_location(name, path)
            assert module_spec and module_spec.loader
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except ImportError as e:
        raise InputError(f"model '{spec}': cannot import {target} ({e})") from None
    obj = getattr(module, attr, None)
    if obj is None or not (callable(obj) or hasattr(obj, "predict_proba")):
        raise InputError(f"model '{spec}': {target} has no function or model '{attr}'")
    return obj
