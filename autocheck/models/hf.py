"""Hugging Face models from a hub id or a local directory: sequence classifiers over one text or a pair of
texts (``roberta-large-mnli``, ``textattack/bert-base-uncased-QQP``, ``textattack/bert-base-uncased-SST-2``)
and extractive question answering (``distilbert-base-cased-distilled-squad``).

Loaded once, batched, truncated to the model's maximum length, run under ``torch.inference_mode()``.
Classifier labels come from ``config.id2label`` through the task's names and aliases.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..resources import ResourceMissing, offline
from ..store import InputError, content_hash, file_sha256
from ..tasks import Task
from .base import Input, Model

MAX_ANSWER_TOKENS = 30  # SQuAD's usual bound on an answer span


class _HFBase(Model):
    auto_class = "AutoModelForSequenceClassification"

    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto"):
        import torch
        import transformers

        self.name, self.task, self.batch_size = spec, task, batch_size
        local = Path(spec).expanduser()
        source = str(local) if local.is_dir() else spec
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(source)
            self.model = getattr(transformers, self.auto_class).from_pretrained(source)
        except (OSError, ValueError) as e:
            where = "directory" if local.is_dir() else "Hugging Face model"
            how = "" if local.is_dir() else " (download it once online, or pass a local directory)"
            state = "offline: " if offline() and not local.is_dir() else ""
            message = f"{state}{where} '{spec}' could not be loaded as {self.auto_class}{how}: {e}"
            raise ResourceMissing(message.split("\n")[0]) from None
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.model.to(self.device).eval()
        # Tokenizers saved without a limit report a huge model_max_length; the position table is the real one.
        positions = getattr(self.model.config, "max_position_embeddings", None) or 512
        self.max_length = min(self.tokenizer.model_max_length or positions, positions)
        self.identity = f"hf:{_weights_identity(local) if local.is_dir() else self._hub_identity(spec)}"

    def _hub_identity(self, spec: str) -> str:
        commit = getattr(self.model.config, "_commit_hash", None)
        return f"{spec}@{commit}" if commit else spec


class HFModel(_HFBase):
    """A sequence classifier over one text or a pair (``tokenizer(first, second)``)."""

    def __init__(self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto"):
        if len(task.inputs) > 2:
            raise InputError(
                f"model {spec}: a sequence classifier reads one text or a pair, not {task.inputs}"
            )
        super().__init__(spec, task, batch_size=batch_size, device=device)
        id2label = self.model.config.id2label
        self.labels = task.model_labels([id2label[i] for i in range(len(id2label))], f"model {spec}")

    def _predict(self, batch: list[Input]) -> np.ndarray:
        import torch

        columns = [list(column) for column in zip(*batch)]
        encoded = self.tokenizer(
            *columns, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.device)
        with torch.inference_mode():
            logits = self.model(**encoded).logits
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

        contexts = [item[self._context] for item in batch]
        encoded = self.tokenizer(
            [item[self._question] for item in batch],
            contexts,
            padding=True,
            truncation="only_second",
            max_length=self.max_length,
            return_offsets_mapping=True,
            return_tensors="pt",
        )
        offsets = encoded.pop("offset_mapping")
        in_context = torch.tensor([[s == 1 for s in encoded.sequence_ids(i)] for i in range(len(batch))])
        encoded = encoded.to(self.device)
        with torch.inference_mode():
            out = self.model(**encoded)
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
