"""Hugging Face models from a hub id or a local directory: sequence classifiers over one text or a pair of
texts (``roberta-large-mnli``, ``textattack/bert-base-uncased-QQP``, ``textattack/bert-base-uncased-SST-2``)
and extractive question answering (``distilbert-base-cased-distilled-squad``).

Loaded once (the config at once, the weights on the first batch to compute), batched, truncated to the
model's maximum length, run under ``torch.inference_mode()``.
Classifier labels come from ``config.id2label`` through the task's names and aliases.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..resources import ResourceMissing, offline
from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Input, Model

MAX_ANSWER_TOKENS = 30  # SQuAD's usual bound on an answer span


class Network(NamedTuple):
    tokenizer: Any
    model: Any  # on its device, in eval mode
    max_length: int


class _HFBase(Model):
    auto_class = "AutoModelForSequenceClassification"

    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto"):
        import torch
        import transformers

        self.name, self.task, self.batch_size = spec, task, batch_size
        self._local = Path(spec).expanduser()
        self._source = str(self._local) if self._local.is_dir() else spec
        self.config = self._loading(transformers.AutoConfig.from_pretrained)
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        if self._local.is_dir():
            self.identity = f"hf:{_weights_identity(self._local)}"
        else:
            commit = getattr(self.config, "_commit_hash", None)
            self.identity = f"hf:{spec}@{commit}" if commit else f"hf:{spec}"

    @cached_property
    def network(self) -> Network:
        """Tokenizer and weights, loaded on the first batch this process computes: a run whose answers
        all come from the prediction cache, or from Ray actors, never loads them (only the config)."""
        import transformers

        tokenizer = self._loading(transformers.AutoTokenizer.from_pretrained)
        model = self._loading(getattr(transformers, self.auto_class).from_pretrained)
        model.to(self.device).eval()
        # Tokenizers saved without a limit report a huge model_max_length; the position table is the real one.
        positions = getattr(self.config, "max_position_embeddings", None) or 512
        return Network(tokenizer, model, min(tokenizer.model_max_length or positions, positions))

    def _loading(self, from_pretrained: Callable[[str], Any]) -> Any:
        """``from_pretrained(source)``; what cannot be loaded is a ``ResourceMissing`` naming the model."""
        try:
            return from_pretrained(self._source)
        except Exception as e:  # OSError, ValueError, safetensors' own error on a damaged file, ...
            where = "directory" if self._local.is_dir() else "Hugging Face model"
            how = "" if self._local.is_dir() else " (download it once online, or pass a local directory)"
            state = "offline: " if offline() and not self._local.is_dir() else ""
            message = f"{state}{where} '{self.name}' could not be loaded as {self.auto_class}{how}: {e}"
            raise ResourceMissing(message.split("\n")[0]) from None


class HFModel(_HFBase):
    """A sequence classifier over one text or a pair (``tokenizer(first, second)``)."""

    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto"):
        if len(task.inputs) > 2:
            raise InputError(
                f"model {spec}: a sequence classifier reads one text or a pair, not {task.inputs}"
            )
        super().__init__(spec, task, batch_size=batch_size, device=device)
        id2label = self.config.id2label
        self.labels = task.model_labels([id2label[i] for i in range(len(id2label))], f"model {spec}")

    def _predict(self, batch: list[Input]) -> np.ndarray:
        import torch

        tokenizer, model, max_length = self.network
        columns = [list(column) for column in zip(*batch)]
        encoded = tokenizer(
            *columns, padding=True, truncation=True, max_length=max_length, return_tensors="pt"
        ).to(self.device)
        with torch.inference_mode():
            logits = model(**encoded).logits
        return torch.softmax(logits.float(), dim=-1).cpu().numpy()


class HFQuestionAnswering(_HFBase):
    """An extractive question-answering model: the best span of the context (start <= end, at most
    ``MAX_ANSWER_TOKENS`` tokens, inside the context) by start + end logit; its score is the softmax
    probability of that start times that end. Contexts longer than the model's window are truncated."""

    auto_class = "AutoModelForQuestionAnswering"

    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto"):
        missing = {"context", "question"} - set(task.inputs)
        if missing:
            raise InputError(f"model {spec}: question answering needs 'context' and 'question' inputs")
        super().__init__(spec, task, batch_size=batch_size, device=device)
        self._context, self._question = task.inputs.index("context"), task.inputs.index("question")

    def _predict(self, batch: list[Input]) -> list[tuple[str, float]]:
        import torch

        tokenizer, model, max_length = self.network
        contexts = [item[self._context] for item in batch]
        encoded = tokenizer(
            [item[self._question] for item in batch],
            contexts,
            padding=True,
            truncation="only_second",
            max_length=max_length,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping")
        in_context = torch.tensor([[s == 1 for s in encoded.sequence_ids(i)] for i in range(len(batch))])
        encoded = encoded.to(self.device)
        with torch.inference_mode():
            out = model(**encoded)
        start = out.start_logits.float().cpu().masked_fill(~in_context, -1e9)
        end = out.end_logits.float().cpu().masked_fill(~in_context, -1e9)
        # span (i, j) scores start[i] + end[j] for i <= j < i + MAX_ANSWER_TOKENS
        pair = start[:, :, None] + end[:, None, :]
        n = pair.shape[1]
        allowed = torch.triu(torch.ones(n, n, dtype=torch.bool)) & ~torch.triu(
            torch.ones(n, n, dtype=torch.bool), diagonal=MAX_ANSWER_TOKENS
        )
        pair = pair.masked_fill(~allowed, -1e9)
        best = pair.flatten(1).argmax(dim=1)
        p_start, p_end = start.softmax(-1), end.softmax(-1)
        answers = []
        for k, flat in enumerate(best.tolist()):
            i, j = divmod(flat, n)
            begin, stop = int(offsets[k, i, 0]), int(offsets[k, j, 1])
            answers.append((contexts[k][begin:stop], float(p_start[k, i] * p_end[k, j])))
        return answers


def _weights_identity(directory: Path) -> str:
    """Directory name + checksum of the files that decide predictions (weights, config, tokenizer)."""
    patterns = ("*.json", "*.safetensors", "*.bin", "*.txt", "*.model")
    files = sorted({f for p in patterns for f in directory.glob(p) if f.is_file()})
    files = [f for f in files if f.name not in ("training_log.json", "README.txt")]
    digest = content_hash(*(f"{f.name}={file_sha256(f)}" for f in files))
    return f"{directory.name}#{digest}"


def load_hf(spec: str, task: Task, **options: Any) -> Model:
    return (HFQuestionAnswering if task.is_span else HFModel)(spec, task, **options)
