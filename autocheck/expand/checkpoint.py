"""Which code builds a masked LM checkpoint, decided from its files without importing torch: ``bert.py``
for a plain BERT masked LM with safetensors weights, transformers for any other."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from types import SimpleNamespace

log = logging.getLogger(__name__)

CONFIG, WEIGHTS = "config.json", "model.safetensors"

# What a plain BertForMaskedLM checkpoint's config may say (any other value: transformers loads it)
_PLAIN = {
    "model_type": ("bert",),
    "hidden_act": ("gelu",),
    "position_embedding_type": ("absolute",),
    "is_decoder": (False,),
    "add_cross_attention": (False,),
    "chunk_size_feed_forward": (0,),
}
_SIZES = (
    "vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size",
    "max_position_embeddings", "type_vocab_size", "layer_norm_eps",
)  # fmt: skip


def plain_bert_config(path: Path) -> SimpleNamespace | None:
    """A ``config.json``'s settings when it describes a plain BERT masked LM, which ``bert.py`` computes
    exactly as transformers does; None otherwise."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or any(data.get(k, v[0]) not in v for k, v in _PLAIN.items()):
        return None
    architectures = data.get("architectures") or ["BertForMaskedLM"]  # absent or null: BERT's config alone
    if not isinstance(architectures, list) or "BertForMaskedLM" not in architectures:
        return None
    numbers = [data.get(k) for k in _SIZES]
    if not all(isinstance(n, int | float) and not isinstance(n, bool) and n > 0 for n in numbers):
        return None
    if data["hidden_size"] % data["num_attention_heads"]:
        return None
    data.setdefault("pad_token_id", 0)
    # what mlm.py reads of a model's config (transformers' names)
    data.setdefault("is_decoder", False)
    data.setdefault("chunk_size_feed_forward", 0)
    data.setdefault("tie_word_embeddings", True)
    data["_attn_implementation"] = "sdpa"
    return SimpleNamespace(**data)


def bert_files(name_or_dir: str | Path, local_only: bool) -> tuple[Path, str | None] | None:
    """The directory holding a plain BERT masked LM's ``config.json`` and ``model.safetensors`` (a local
    directory, or the hub cache's snapshot, downloaded unless ``local_only``) and the hub commit; None when
    the model is not one (``plain_bert_config``) or its files cannot be had."""
    path = Path(name_or_dir)
    if path.is_dir():
        plain = plain_bert_config(path / CONFIG) is not None and (path / WEIGHTS).is_file()
        return (path, None) if plain else None
    try:
        from huggingface_hub import hf_hub_download

        config = Path(hf_hub_download(str(name_or_dir), CONFIG, local_files_only=local_only))
        if plain_bert_config(config) is None:
            return None
        weights = Path(hf_hub_download(str(name_or_dir), WEIGHTS, local_files_only=local_only))
    except Exception as e:  # not on the hub, not cached, no network: transformers' loading says why
        log.debug("%s: not loaded as a plain BERT (%s)", name_or_dir, e)
        return None
    if weights.parent != config.parent:
        return None
    # the commit as transformers records it (``_commit_hash``: the snapshot's folder), for the identity
    commit = re.search(r"snapshots/([^/]+)/", config.as_posix())
    return config.parent, commit.group(1) if commit else None


def preload_modules(name_or_dir: str | Path) -> tuple[str, ...]:
    """The modules a process loading this masked LM imports (``execute.local`` imports them before forking
    its workers): ``bert.py`` for a plain BERT already at hand, else transformers' model classes."""
    tokenizer = "transformers.models.auto.tokenization_auto"
    if bert_files(name_or_dir, local_only=True) is not None:
        return (tokenizer, "safetensors.torch", "autocheck.expand.bert")
    return (tokenizer, "transformers.modeling_utils", "transformers.models.auto.modeling_auto")
