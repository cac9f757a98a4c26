"""Models under test: Hugging Face classifiers, Python callables, and predictions read from a file.

``load_model(spec)`` picks the adapter from the spec:

- ``file:PATH`` — predictions computed elsewhere (see ``FilePredictions`` for the line format and order);
- ``module:function`` or ``path/to/file.py:function`` — a Python callable (see ``CallableModel``);
- anything else — a Hugging Face hub id or a local model directory (see ``HFModel``).

Every model reports class probabilities in the order of its ``labels``; ``three_way`` turns them into
(negative, neutral, positive) probabilities the way CheckList reads sentiment models. ``predict_proba``
goes through a persistent prediction cache keyed by (model identity, text), so the same model never runs
twice on the same text, across runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import logging
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..cache import Cache
from ..resources import ResourceMissing, offline
from ..store import InputError, content_hash, file_sha256

log = logging.getLogger(__name__)

NEGATIVE, NEUTRAL, POSITIVE = "negative", "neutral", "positive"
SENTIMENT = (NEGATIVE, NEUTRAL, POSITIVE)
BINARY = (NEGATIVE, POSITIVE)


class Model:
    """A text classifier. Subclasses implement ``_predict`` (probabilities for a batch of texts)."""

    name: str
    identity: str  # everything the predictions depend on; the prediction cache key includes it
    labels: tuple[str, ...]
    batch_size: int = 32
    cacheable = True

    def _predict(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def predict_proba(self, texts: list[str]) -> np.ndarray:
        """Probabilities (len(texts) x len(labels)); only texts not in the prediction cache reach the model,
        each distinct text once, in batches of ``batch_size``."""
        if not texts:
            return np.zeros((0, len(self.labels)))
        cache = Cache("predictions") if self.cacheable else None
        keys = [content_hash(self.identity, text) for text in texts]
        found = cache.get_many(keys) if cache else {}
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        todo.sort(key=len)  # batches of similar length waste less padding
        if todo:
            log.info("%s: predicting %d texts (%d cached)", self.name, len(todo), len(texts) - len(todo))
            fresh: dict[str, list[float]] = {}
            for start in range(0, len(todo), self.batch_size):
                batch = todo[start : start + self.batch_size]
                probs = self._checked(batch, self._predict(batch))
                fresh.update((content_hash(self.identity, t), p.tolist()) for t, p in zip(batch, probs))
            if cache:
                cache.put_many(fresh)
            found.update(fresh)
        if cache:
            cache.close()
        out = np.asarray([found[key] for key in keys], dtype=float)
        return self._checked(texts, out)

    def _checked(self, texts: list[str], probs: Any) -> np.ndarray:
        array = np.asarray(probs, dtype=float)
        if not self.labels and array.ndim == 2:
            self.labels = default_labels(array.shape[1], f"model {self.name}")
        if array.shape != (len(texts), len(self.labels)):
            raise InputError(
                f"model {self.name}: returned shape {array.shape} for {len(texts)} texts and "
                f"{len(self.labels)} labels {self.labels}"
            )
        return array

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, labels={self.labels})"


# ---------------------------------------------------------------------------------------------------------
# Reading sentiment models three-way


def three_way(p_positive: np.ndarray) -> np.ndarray:
    """CheckList's reading of a binary sentiment model as (negative, neutral, positive) probabilities.

    With p = P(positive): p <= 1/3 gives (1 - p, 0, p) and p >= 2/3 gives (1 - p, 0, p); strictly in between,
    P(neutral) = 1 - 3|p - 0.5| and the remainder goes to the nearer pole (negative below 0.5, positive
    from 0.5 up). So the prediction is neutral exactly when 1/3 < p < 2/3, where P(neutral) > 0.5.

    This is CheckList's ``pred_and_conf`` except at p = 2/3 exactly, where CheckList's two strict
    comparisons leave an all-zero row whose argmax reads as *negative*; here it is positive.
    """
    p = np.asarray(p_positive, dtype=float)
    out = np.stack([1.0 - p, np.zeros_like(p), p], axis=-1)
    inside = (p > 1 / 3) & (p < 2 / 3)
    neutral = 1.0 - 3.0 * np.abs(p - 0.5)
    out[inside] = 0.0
    out[inside, 1] = neutral[inside]
    lower = inside & (p < 0.5)
    out[lower, 0] = 1.0 - neutral[lower]
    upper = inside & (p >= 0.5)
    out[upper, 2] = 1.0 - neutral[upper]
    return out


def three_way_labels(p_positive: np.ndarray) -> list[str]:
    """The band rule itself (not an argmax, so the edges do not depend on float ties)."""
    p = np.asarray(p_positive, dtype=float)
    return [NEGATIVE if x <= 1 / 3 else POSITIVE if x >= 2 / 3 else NEUTRAL for x in p]


def sentiment_probs(labels: Sequence[str], probs: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(negative, neutral, positive) probabilities and predicted labels from a model's output.

    Binary models (labels negative/positive) are read three-way; three-class models are reordered and
    predict their argmax.
    """
    labels = tuple(labels)
    if set(labels) == set(BINARY) and len(labels) == 2:
        p_pos = probs[:, labels.index(POSITIVE)]
        return three_way(p_pos), three_way_labels(p_pos)
    if set(labels) == set(SENTIMENT) and len(labels) == 3:
        ordered = probs[:, [labels.index(label) for label in SENTIMENT]]
        return ordered, [SENTIMENT[i] for i in ordered.argmax(axis=1)]
    raise InputError(f"labels {labels} are not negative/positive or negative/neutral/positive")


def sentiment_labels(names: Sequence[str], where: str) -> tuple[str, ...]:
    """Map a model's class names to sentiment labels.

    Rule: names are compared case-insensitively. ``negative``/``neg``, ``neutral``/``neu`` and
    ``positive``/``pos`` map to themselves in any order. Generic names ``LABEL_0``, ``LABEL_1`` (two classes)
    follow the SST-2/GLUE convention 0 = negative, 1 = positive; ``LABEL_0..LABEL_2`` (three classes) follow
    the common 0 = negative, 1 = neutral, 2 = positive convention. Anything else is an error.
    """
    aliases = {"negative": NEGATIVE, "neg": NEGATIVE, "neutral": NEUTRAL, "neu": NEUTRAL}
    aliases |= {"positive": POSITIVE, "pos": POSITIVE}
    lowered = [str(n).strip().lower() for n in names]
    if all(n in aliases for n in lowered):
        mapped = tuple(aliases[n] for n in lowered)
        if len(set(mapped)) == len(mapped) and set(mapped) in (set(BINARY), set(SENTIMENT)):
            return mapped
    generic = [re.fullmatch(r"label_(\d+)", n) for n in lowered]
    if all(generic):
        indices = [int(m.group(1)) for m in generic if m]
        if sorted(indices) == list(range(len(indices))) and len(indices) in (2, 3):
            order = BINARY if len(indices) == 2 else SENTIMENT
            return tuple(order[i] for i in indices)
    raise InputError(
        f"{where}: cannot read labels {list(names)} as sentiment; expected negative/positive, "
        "negative/neutral/positive (any case, also neg/neu/pos), LABEL_0..1 or LABEL_0..2"
    )


def default_labels(width: int, where: str) -> tuple[str, ...]:
    """Labels of a model that declares none: 2 columns = (negative, positive), 3 = (negative, neutral,
    positive)."""
    if width == 2:
        return BINARY
    if width == 3:
        return SENTIMENT
    raise InputError(f"{where}: {width} probability columns; expected 2 or 3 (or declare labels)")


# ---------------------------------------------------------------------------------------------------------
# Hugging Face


class HFModel(Model):
    """A Hugging Face sequence classifier from a hub id or a local directory.

    Batched, truncated to the model's maximum length, run under ``torch.inference_mode()``. Labels come from
    ``config.id2label`` through ``sentiment_labels``.
    """

    def __init__(self, spec: str, *, batch_size: int = 32, device: str = "auto"):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        self.name = spec
        self.batch_size = batch_size
        local = Path(spec).expanduser()
        source = str(local) if local.is_dir() else spec
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source)
            self.model = AutoModelForSequenceClassification.from_pretrained(source)
        except OSError as e:
            where = "directory" if local.is_dir() else "Hugging Face model"
            how = "" if local.is_dir() else " (download it once online, or pass a local directory)"
            state = "offline: " if offline() and not local.is_dir() else ""
            message = f"{state}{where} '{spec}' could not be loaded{how}: {e}"
            raise ResourceMissing(message.split("\n")[0]) from None
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.model.to(self.device).eval()
        id2label = self.model.config.id2label
        self.labels = sentiment_labels([id2label[i] for i in range(len(id2label))], f"model {spec}")
        # Tokenizers saved without a limit report a huge model_max_length; the position table is the real one.
        positions = getattr(self.model.config, "max_position_embeddings", None) or 512
        self.max_length = min(self.tokenizer.model_max_length or positions, positions)
        self.identity = f"hf:{_weights_identity(local) if local.is_dir() else self._hub_identity(spec)}"

    def _hub_identity(self, spec: str) -> str:
        commit = getattr(self.model.config, "_commit_hash", None)
        return f"{spec}@{commit}" if commit else spec

    def _predict(self, texts: list[str]) -> np.ndarray:
        import torch

        encoded = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.device)
        with torch.inference_mode():
            logits = self.model(**encoded).logits
        return torch.softmax(logits.float(), dim=-1).cpu().numpy()


def _weights_identity(directory: Path) -> str:
    """Directory name + checksum of the files that decide predictions (weights, config, tokenizer)."""
    patterns = ("*.json", "*.safetensors", "*.bin", "*.txt", "*.model")
    files = sorted({f for p in patterns for f in directory.glob(p) if f.is_file()})
    files = [f for f in files if f.name not in ("training_log.json", "README.txt")]
    digest = content_hash(*(f"{f.name}={file_sha256(f)}" for f in files))
    return f"{directory.name}#{digest}"


# ---------------------------------------------------------------------------------------------------------
# Python callables


class CallableModel(Model):
    """A Python function taking a list of texts and returning class probabilities (list of lists or array).

    Its labels are the function's ``labels`` attribute (class names, read with ``sentiment_labels``);
    without one, 2 columns mean (negative, positive) and 3 columns (negative, neutral, positive), decided on
    the first call. The identity includes a checksum of the function's source file, so editing it
    invalidates cached predictions.
    """

    def __init__(self, spec: str, fn: Callable[[list[str]], Any], *, batch_size: int = 32):
        self.name = spec
        self.fn = fn
        self.batch_size = batch_size
        declared = getattr(fn, "labels", None)
        self.labels = sentiment_labels(declared, f"{spec}.labels") if declared is not None else ()
        try:
            source = inspect.getsourcefile(fn)
        except TypeError:
            source = None
        checksum = file_sha256(source)[:16] if source and Path(source).is_file() else "unknown-source"
        self.identity = f"callable:{spec}#{checksum}"

    def _predict(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.fn(texts), dtype=float)


def _load_callable(spec: str) -> Callable[[list[str]], Any]:
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


# ---------------------------------------------------------------------------------------------------------
# Predictions from a file


class FilePredictions(Model):
    """Predictions computed elsewhere, one line per text, in CheckList's file formats.

    Each line is either ``label p0 p1 [p2]`` (CheckList ``pred_and_softmax``) or ``p0 p1 [p2]``
    (``softmax``), whitespace separated; probabilities are in (negative, positive) or
    (negative, neutral, positive) order. A file is read as ``label + probabilities`` when on every line the
    first field is an integer (written without a decimal point) and the other fields sum to 1.

    Order: the lines follow the suite's ``cases.jsonl``, either one line per case (in file order) or one line
    per distinct text (in order of first occurrence); the runner calls ``align`` with the suite's texts,
    which checks the line count against both.
    """

    cacheable = False  # the file is the cache

    def __init__(self, spec: str, path: Path):
        self.name = spec
        self.path = path
        if not path.is_file():
            raise InputError(f"model '{spec}': predictions file {path} not found")
        self.identity = f"file:{path.name}#{file_sha256(path)[:16]}"
        self.rows = self._read(path)
        self.labels = default_labels(self.rows.shape[1], str(path))
        self.by_text: dict[str, np.ndarray] = {}

    @staticmethod
    def _read(path: Path) -> np.ndarray:
        lines: list[list[str]] = []
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    raise InputError(f"{path}:{lineno}: empty line; expected one prediction per line")
                lines.append(fields)
        if not lines:
            raise InputError(f"{path}: no predictions")
        widths = {len(f) for f in lines}
        if len(widths) != 1:
            raise InputError(f"{path}: lines have different numbers of fields {sorted(widths)}")
        with_label = all(f[0].isdigit() and len(f) in (3, 4) and _sums_to_one(f[1:]) for f in lines)
        rows = []
        for lineno, fields in enumerate(lines, 1):
            numbers = fields[1:] if with_label else fields
            try:
                probs = [float(x) for x in numbers]
            except ValueError:
                raise InputError(f"{path}:{lineno}: not numbers: {' '.join(fields)!r}") from None
            if len(probs) not in (2, 3) or not _sums_to_one(numbers):
                raise InputError(
                    f"{path}:{lineno}: expected 'label p0 p1 [p2]' or 'p0 p1 [p2]' with probabilities "
                    f"summing to 1, got {' '.join(fields)!r}"
                )
            rows.append(probs)
        return np.asarray(rows)

    def align(self, texts: Sequence[str], case_text_index: Sequence[int]) -> None:
        """Attach the lines to texts: ``texts`` are the suite's distinct texts in first-occurrence order,
        ``case_text_index`` the text index of each case in file order."""
        n = len(self.rows)
        if n == len(case_text_index):
            order = case_text_index
        elif n == len(texts):
            order = range(n)
        else:
            raise InputError(
                f"{self.path}: {n} predictions, but the suite has {len(case_text_index)} cases and "
                f"{len(texts)} distinct texts; write one line per case or per distinct text"
            )
        self.by_text = {}
        for row, index in zip(self.rows, order):
            self.by_text.setdefault(texts[index], row)

    def _predict(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.by_text]
        if missing:
            raise InputError(f"{self.path}: no prediction aligned to text {missing[0]!r} (call align first)")
        return np.stack([self.by_text[t] for t in texts])


def _sums_to_one(fields: Sequence[str]) -> bool:
    try:
        return abs(sum(float(x) for x in fields) - 1.0) < 1e-3
    except ValueError:
        return False


# ---------------------------------------------------------------------------------------------------------


def load_model(spec: str, *, batch_size: int = 32, device: str = "auto") -> Model:
    """A model from ``file:PATH``, ``module:function``, ``path/to/file.py:function`` or an HF id/directory."""
    if spec.startswith("file:"):
        return FilePredictions(spec, Path(spec[len("file:") :]).expanduser())
    target, sep, attr = spec.rpartition(":")
    if sep and target and attr.isidentifier() and not Path(spec).is_dir():
        return CallableModel(spec, _load_callable(spec), batch_size=batch_size)
    return HFModel(spec, batch_size=batch_size, device=device)
