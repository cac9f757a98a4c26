"""Python callables as models under test: ``module:function`` or ``path/to/file.py:function``.

The function takes a batch and returns one answer per input:

* its inputs: the texts (a list of strings) for a one-field task, records (a list of dicts with the task's
  input fields, e.g. ``{"premise": ..., "hypothesis": ...}``) for any other;
* its answers: class probabilities (a list of lists or a 2-D array) for a classification task, answers
  (strings, or ``(answer, score)`` pairs) for a question-answering one.

Its class names are the function's ``labels`` attribute (read through the task's names and aliases);
without one, the task's ``label_order`` for that many columns, or the task's labels. The identity includes a
checksum of the function's source file, so editing it invalidates cached predictions.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Input, Model


class CallableModel(Model):
    def __init__(
        self, spec: str, fn: Callable[[list[Any]], Any], task: Task | None = None, *, batch_size: int = 32
    ):
        from . import default_task

        task = task or default_task()
        self.name, self.fn, self.task, self.batch_size = spec, fn, task, batch_size
        declared = getattr(fn, "labels", None)
        self.labels = task.model_labels(declared, f"{spec}.labels") if declared is not None else ()
        try:
            source = inspect.getsourcefile(fn)
        except TypeError:
            source = None
        checksum = file_sha256(source)[:16] if source and Path(source).is_file() else "unknown-source"
        self.identity = f"callable:{spec}#{checksum}"

    def _predict(self, batch: list[Input]) -> Any:
        if len(self.task.inputs) == 1:
            return self.fn([item[0] for item in batch])
        return self.fn([dict(zip(self.task.inputs, item)) for item in batch])


def load_callable(spec: str) -> Callable[[list[Any]], Any]:
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
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise InputError(f"model '{spec}': {target} has no function '{attr}'")
    return fn
