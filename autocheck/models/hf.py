"""Hugging Face models from a hub id or a local directory: sequence classifiers over one text or a pair of
texts (``roberta-large-mnli``, ``textattack/bert-base-uncased-QQP``, ``textattack/bert-base-uncased-SST-2``)
extractive question answering (``distilbert-base-cased-distilled-squad``) and token classification for
named-entity recognition (``dslim/bert-base-NER``).

Loaded once (the config at once, the weights on the first batch to compute), batched, truncated to the
model's maximum length, run under ``torch.inference_mode()``.
Classifier labels come from ``config.id2label`` through the task's names and aliases. A directory whose
config or weights hold no head of the kind the task needs (a masked-LM folder) is an ``InputError``.

A ``transformers.pipeline`` object, or ``pipeline:TASK:MODEL``, is a ``PipelineModel``. Identities
(``hf_identity``) pin a directory by its files' checksums and a hub id by its resolved commit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..cache import file_checksum
from ..outputs import for_output
from ..outputs.entities import decode_tags
from ..resources import ResourceMissing, offline
from ..store import InputError, content_hash
from ..tasks import Task
from .base import Input, Model

MAX_ANSWER_TOKENS = 30  # SQuAD's usual bound on an answer span


class Network(NamedTuple):
    tokenizer: Any
    model: Any  # on its device, in eval mode
    max_length: int


class _HFBase(Model):
    auto_class = "AutoModelForSequenceClassification"

    def __init__(
        self, spec: str, task: Task, *, batch_size: int = 32, device: str = "auto", version: str | None = None
    ):
        import torch
        import transformers

        self.name, self.task, self.batch_size = spec, task, batch_size
        self._local = Path(spec).expanduser()
        self._source = str(self._local) if self._local.is_dir() else spec
        self.config = self._loading(transformers.AutoConfig.from_pretrained)
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = torch.device(device)
        self.identity, self.pinned = hf_identity(spec, self.config, version)
        check_head(spec, self.config, self.auto_class, task)

    @cached_property
    def network(self) -> Network:
        """Tokenizer and weights, loaded on the first batch this process computes: a run whose answers
        all come from the prediction cache, or from Ray actors, never loads them (only the config)."""
        import transformers

        tokenizer = self._loading(transformers.AutoTokenizer.from_pretrained)
        load = getattr(transformers, self.auto_class).from_pretrained
        model, info = self._loading(lambda source: load(source, output_loading_info=True))
        _check_loaded_head(self.name, self.config, self.auto_class, info)
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

    def __init__(self, spec: str, task: Task, **options: Any):
        if len(task.inputs) > 2:
            raise InputError(
                f"model {spec}: a sequence classifier reads one text or a pair, not {task.inputs}"
            )
        super().__init__(spec, task, **options)
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

    def __init__(self, spec: str, task: Task, **options: Any):
        missing = {"context", "question"} - set(task.inputs)
        if missing:
            raise InputError(f"model {spec}: question answering needs 'context' and 'question' inputs")
        super().__init__(spec, task, **options)
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


class HFTokenClassifier(_HFBase):
    """A token-classification (NER) model: each word piece's best tag (``config.id2label``: ``B-PER``,
    ``I-ORG``, ``O`` ... in any BIO-style scheme, ``entities.decode_tags``), decoded over the pieces'
    character offsets; an entity ends where a piece of another word would continue it with ``I-`` only
    when the tags say so. Types keep the model's names; the task's aliases read them (``PER`` -> ``PERSON``).
    Texts longer than the model's window are truncated (entities past it are not found)."""

    auto_class = "AutoModelForTokenClassification"

    def __init__(self, spec: str, task: Task, **options: Any):
        super().__init__(spec, task, **options)
        id2label = self.config.id2label
        self.tags = [str(id2label[i]) for i in range(len(id2label))]
        bad = [t for t in self.tags if t != "O" and not re.fullmatch(r"[BIESLU]-\S+", t)]
        if bad:
            raise InputError(
                f"model {spec}: labels {bad[:3]} are no BIO-style tags (O, B-TYPE, I-TYPE ...); "
                "a token-classification model for the entities task needs them"
            )

    def _predict(self, batch: list[Input]) -> list[list[list[Any]]]:
        import torch

        tokenizer, model, max_length = self.network
        texts = [item[0] for item in batch]
        encoded = tokenizer(
            texts, padding=True, truncation=True, max_length=max_length, return_offsets_mapping=True,
            return_tensors="pt",
        )  # fmt: skip
        offsets = encoded.pop("offset_mapping").tolist()
        encoded = encoded.to(self.device)
        with torch.inference_mode():
            best = model(**encoded).logits.argmax(-1).cpu().tolist()
        answers = []
        for k in range(len(batch)):
            pieces = [(i, (a, b)) for i, (a, b) in enumerate(offsets[k]) if b > a]  # no special tokens
            tags = [self.tags[best[k][i]] for i, _ in pieces]
            answers.append([list(e) for e in decode_tags(tags, [span for _, span in pieces])])
        return answers


def hf_identity(spec: str, config: Any, version: str | None = None) -> tuple[str, bool]:
    """(identity, pinned) of a Hugging Face model: a local directory by the checksums of the files that
    decide its predictions (weights, config, tokenizer; ``cache.file_checksum``), a hub id by the commit
    transformers resolved. A hub id without a known commit (or an unsaved model) pins nothing unless the
    user declares a ``version``."""
    if version is not None and str(version).strip():
        identity, pinned = hf_identity(spec, config)
        return f"{identity} version:{str(version).strip()}", True
    local = Path(spec).expanduser() if spec else None
    if local is not None and local.is_dir():
        return f"hf:{_weights_identity(local)}", True
    commit = getattr(config, "_commit_hash", None)
    return (f"hf:{spec}@{commit}", True) if commit and spec else (f"hf:{spec}", False)


def _weights_identity(directory: Path) -> str:
    """Directory name + checksum of the files that decide predictions (weights, config, tokenizer)."""
    patterns = ("*.json", "*.safetensors", "*.bin", "*.txt", "*.model")
    files = sorted({f for p in patterns for f in directory.glob(p) if f.is_file()})
    files = [f for f in files if f.name not in ("training_log.json", "README.txt")]
    digest = content_hash(*(f"{f.name}={file_checksum(f)}" for f in files))
    return f"{directory.name}#{digest}"


HEADS = {
    "AutoModelForSequenceClassification": ("ForSequenceClassification", "sequence-classification"),
    "AutoModelForQuestionAnswering": ("ForQuestionAnswering", "question-answering"),
    "AutoModelForTokenClassification": ("ForTokenClassification", "token-classification"),
}


def check_head(spec: str, config: Any, auto_class: str, task: Task) -> None:
    """A model whose config names its architectures must have the head ``auto_class`` loads: a masked-LM
    folder passed as ``--model`` would otherwise get an untrained head and fail every case. ``doctor``
    asks the same of the config, so it refuses what ``run`` refuses."""
    suffix, wanted = HEADS[auto_class]
    architectures = getattr(config, "architectures", None) or []
    if architectures and not any(a.endswith(suffix) for a in architectures):
        raise InputError(
            f"model {spec}: holds {', '.join(architectures)}, not a {wanted} model for the {task.name} "
            "task (it has no trained head to test)"
        )


def _check_loaded_head(spec: str, config: Any, auto_class: str, info: dict[str, Any]) -> None:
    """The same check on the weights: the head's own weights must be in the files, not freshly made."""
    heads = ("classifier", "score", "qa_outputs", "pre_classifier", "logits_proj")
    missing = [k for k in info.get("missing_keys", []) if k.split(".")[0] in heads]
    if missing:
        holds = ", ".join(getattr(config, "architectures", None) or ["weights without that head"])
        raise InputError(
            f"model {spec}: holds {holds}, but its files have no weights for a {HEADS[auto_class][1]} "
            f"head ({', '.join(missing[:3])}): the head would be untrained"
        )


class PipelineModel(Model):
    """A Hugging Face ``pipeline`` object (``text-classification``; pairs as ``text``/``text_pair``),
    asked with ``top_k=None`` so every class gets its probability; for an NER task a
    ``token-classification`` pipeline, asked for its entity groups (``aggregation_strategy="simple"``:
    its BIO tags decoded into spans). ``pipeline:TASK:MODEL`` builds one."""

    def __init__(
        self,
        pipe: Any,
        task: Task,
        *,
        name: str | None = None,
        batch_size: int = 32,
        version: str | None = None,
    ):
        # a classifier's pipeline, or an NER task's token-classification pipeline
        self.entities = for_output(
            f"a {getattr(pipe, 'task', '?')} pipeline", task, {"label": False, "entities": True}
        )
        if len(task.inputs) > 2:
            raise InputError(
                f"a {getattr(pipe, 'task', '?')} pipeline answers one text or a pair; the {task.name} task "
                f"has inputs {list(task.inputs)}"
            )
        source = str(getattr(pipe.model, "name_or_path", "") or "")
        self.pipe, self.task, self.batch_size = pipe, task, batch_size
        self.name = name or f"pipeline:{pipe.task}:{source or type(pipe.model).__name__}"
        config = pipe.model.config
        id2label = getattr(config, "id2label", None) or {}
        if not self.entities:  # an NER model's tags are no labels of the task (its types are read later)
            self.labels = task.model_labels([id2label[i] for i in range(len(id2label))], f"model {self.name}")
        identity, self.pinned = hf_identity(source, config, version)
        self.identity = f"pipeline:{pipe.task}:{identity}"  # its own answers (function_to_apply, ...)

    def _predict(self, batch: list[Input]) -> Any:
        if self.entities:
            texts = [item[0] for item in batch]
            return self.pipe(texts, aggregation_strategy="simple", batch_size=self.batch_size)
        args: list[Any] = (
            [item[0] for item in batch]
            if len(batch[0]) == 1
            else [{"text": a, "text_pair": b} for a, b in batch]
        )
        return self.pipe(args, top_k=None, batch_size=self.batch_size, truncation=True)


def load_pipeline(
    spec: str, task: Task, *, batch_size: int = 32, device: str = "auto", **options: Any
) -> Model:
    """``pipeline:TASK:MODEL``: ``transformers.pipeline(TASK, model=MODEL)`` as a model under test."""
    import transformers

    _, pipeline_task, source = (spec.split(":", 2) + ["", ""])[:3]
    if not pipeline_task or not source:
        raise InputError(
            f"model '{spec}': expected pipeline:TASK:MODEL, e.g. pipeline:text-classification:DIR"
        )
    device_arg: Any = None if device == "auto" else device
    try:
        build: Any = transformers.pipeline  # typed per literal task name; the user names any
        pipe = build(pipeline_task, model=source, device=device_arg)
    except (OSError, ValueError, KeyError) as e:
        raise ResourceMissing(
            f"model '{spec}': cannot build the pipeline: {str(e).splitlines()[0]}"
        ) from None
    return PipelineModel(pipe, task, name=spec, batch_size=batch_size, **options)


def hf_form(spec: str, task: Task) -> type[_HFBase]:
    """The transformers model class for the output kind of ``task`` (an error names the kinds it reads)."""
    forms = {"label": HFModel, "span": HFQuestionAnswering, "entities": HFTokenClassifier}
    return for_output(f"model '{spec}'", task, forms)


def load_hf(spec: str, task: Task, **options: Any) -> Model:
    return hf_form(spec, task)(spec, task, **options)
