"""BERT's masked LM (``BertForMaskedLM``) in plain torch, loaded from a checkpoint's ``config.json`` and
``model.safetensors``: the masked LM of a default run without importing transformers' model classes.

Why by hand: transformers' model classes import, unconditionally, ``torch._dynamo`` (``masking_utils``),
``torch.distributed.tensor`` with sympy (``core_model_loading``), scipy (the losses) and its quantisation
integrations: ``python -X importtime`` of a default alict60 run sums 3.9 s of imports with them and 2.4
without (docs/speed.md), for a model whose inference is a handful of torch operations. The modules mirror
transformers' (names, attributes, keyword arguments, the same torch operations in the same order): the
state dict loads as is, ``mlm.py``'s per-layer speed-ups apply to it unchanged, and every output has
transformers' bits (tests/test_bert.py checks hidden states and logits, fp32 and bf16, with and without
padding).

Only what a plain BERT masked-LM checkpoint is (``checkpoint.plain_bert_config``): absolute positions,
exact GELU, an encoder, no pooler used. Any other checkpoint (RoBERTa, DistilBERT, a BERT variant, a
``pytorch_model.bin`` only) goes through transformers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from ..store import InputError
from .checkpoint import CONFIG, WEIGHTS, plain_bert_config

log = logging.getLogger(__name__)


class BertEmbeddings(nn.Module):
    position_ids: torch.Tensor

    def __init__(self, config: Any):
        super().__init__()
        self.word_embeddings = nn.Embedding(
            config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id
        )
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.register_buffer(
            "position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)), persistent=False
        )

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
    ) -> torch.Tensor:
        if inputs_embeds is None:
            if input_ids is None:
                raise ValueError("give input_ids or inputs_embeds")
            inputs_embeds = self.word_embeddings(input_ids)
        batch, length = inputs_embeds.shape[:2]
        if position_ids is None:
            position_ids = self.position_ids[:, :length]
        if token_type_ids is None:  # every token of type 0, as transformers' buffer of zeros gives it
            token_type_ids = torch.zeros((batch, length), dtype=torch.long, device=inputs_embeds.device)
        embeddings = inputs_embeds + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.LayerNorm(embeddings)


class BertSelfAttention(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.config = config
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.scaling = self.attention_head_size**-0.5
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(config.hidden_size, config.hidden_size)
        self.value = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None, **_: Any
    ) -> tuple[torch.Tensor, None]:
        shape = hidden_states.shape[:-1]
        heads = (*shape, -1, self.attention_head_size)
        query = self.query(hidden_states).view(*heads).transpose(1, 2)
        key = self.key(hidden_states).view(*heads).transpose(1, 2)
        value = self.value(hidden_states).view(*heads).transpose(1, 2)
        context = nn.functional.scaled_dot_product_attention(
            query, key, value, attn_mask=attention_mask, scale=self.scaling
        )
        context = context.reshape(context.shape[0], -1, query.shape[2], value.shape[-1])
        return context.transpose(1, 2).contiguous().reshape(*shape, -1).contiguous(), None


class BertAttention(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.self = BertSelfAttention(config)
        self.output = BertOutput(config, config.hidden_size)

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None, **_: Any
    ) -> tuple[torch.Tensor, None]:
        context, _weights = self.self(hidden_states, attention_mask)
        return self.output(context, hidden_states), None


class BertIntermediate(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.intermediate_size)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return nn.functional.gelu(self.dense(hidden_states))


class BertOutput(nn.Module):
    """A projection back to the hidden size, added to the block's input and normalised: after the
    attention (``attention.output``, transformers' ``BertSelfOutput``) and after the feed-forward."""

    def __init__(self, config: Any, width: int):
        super().__init__()
        self.dense = nn.Linear(width, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states: torch.Tensor, input_tensor: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.attention = BertAttention(config)
        self.intermediate = BertIntermediate(config)
        self.output = BertOutput(config, config.intermediate_size)

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None, *_: Any, **__: Any
    ) -> torch.Tensor:
        attended, _weights = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attended), attended)


class BertEncoder(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])

    def forward(
        self, hidden_states: torch.Tensor, attention_mask: torch.Tensor | None = None, **kwargs: Any
    ) -> torch.Tensor:
        for layer in self.layer:  # keyword arguments reach every layer (``mask_positions``, mlm.py)
            hidden_states = layer(hidden_states, attention_mask, None, **kwargs)
        return hidden_states


class BertModel(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.encoder = BertEncoder(config)

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        position_ids: torch.Tensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        **kwargs: Any,
    ) -> SimpleNamespace:
        states = self.embeddings(
            input_ids=input_ids,
            position_ids=position_ids,
            token_type_ids=token_type_ids,
            inputs_embeds=inputs_embeds,
        )
        mask = _attention_mask(attention_mask, states.shape[1])
        return SimpleNamespace(last_hidden_state=self.encoder(states, attention_mask=mask, **kwargs))


def _attention_mask(attention_mask: torch.Tensor | None, length: int) -> torch.Tensor | None:
    """transformers' bidirectional mask for torch's attention: None when no token is padding, else a
    boolean (rows, 1, length, length), True where a query may look at a key."""
    if attention_mask is None or bool(attention_mask.all()):
        return None
    keys = attention_mask.bool()[:, None, None, :]
    return keys.expand(-1, 1, length, -1).contiguous()


class BertPredictionHeadTransform(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(nn.functional.gelu(self.dense(hidden_states)))


class BertLMPredictionHead(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.transform = BertPredictionHeadTransform(config)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        return self.decoder(self.transform(hidden_states))


class BertOnlyMLMHead(nn.Module):
    def __init__(self, config: Any):
        super().__init__()
        self.predictions = BertLMPredictionHead(config)

    def forward(self, sequence_output: torch.Tensor) -> torch.Tensor:
        return self.predictions(sequence_output)


class BertForMaskedLM(nn.Module):
    base_model_prefix = "bert"

    def __init__(self, config: Any):
        super().__init__()
        self.config = config
        self.bert = BertModel(config)
        self.cls = BertOnlyMLMHead(config)

    @property
    def base_model(self) -> BertModel:
        return self.bert

    def forward(
        self, input_ids: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None, **kwargs: Any
    ) -> SimpleNamespace:
        states = self.bert(input_ids=input_ids, attention_mask=attention_mask, **kwargs).last_hidden_state
        return SimpleNamespace(logits=self.cls(states))


# TensorFlow-era names some BERT checkpoints still use, as transformers renames them
_OLD_NAMES = (
    (re.compile(r"LayerNorm\.gamma$"), "LayerNorm.weight"),
    (re.compile(r"LayerNorm\.beta$"), "LayerNorm.bias"),
)
_UNUSED = re.compile(
    r"^(bert\.pooler\.|cls\.seq_relationship\.|bert\.embeddings\.(position_ids|token_type_ids)$)"
)


def load_bert_mlm(directory: Path, commit: str | None = None) -> BertForMaskedLM | None:
    """The masked LM in ``directory`` (its ``config.json`` and ``model.safetensors``) built here, in fp32;
    None when it is not a plain BERT masked LM or its weights do not fit one (transformers then loads it);
    an ``InputError`` naming the file when the weights cannot be read.
    ``commit``: the hub commit of the files (the config's ``_commit_hash``, as transformers sets it)."""
    config = plain_bert_config(directory / CONFIG)
    if config is None or not (directory / WEIGHTS).is_file():
        return None
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        weights = load_file(str(directory / WEIGHTS))
    except (OSError, SafetensorError) as e:  # a damaged or truncated file
        raise InputError(f"{directory / WEIGHTS}: the masked LM's weights cannot be read ({e})") from None
    state = {}
    for name, tensor in weights.items():
        for old, new in _OLD_NAMES:
            name = old.sub(new, name)
        if not _UNUSED.match(name):
            state[name] = tensor
    if "cls.predictions.bias" in state:  # transformers ties the decoder's bias to the head's
        state.setdefault("cls.predictions.decoder.bias", state.pop("cls.predictions.bias"))
    if config.tie_word_embeddings:  # the decoder is the word embeddings (a saved copy is not read)
        state.pop("cls.predictions.decoder.weight", None)
    config._commit_hash = commit
    with _without_init():
        model = BertForMaskedLM(config)
    expected = model.state_dict()
    if config.tie_word_embeddings:
        del expected["cls.predictions.decoder.weight"]
    if set(state) != set(expected) or any(state[k].shape != expected[k].shape for k in expected):
        log.debug("%s: not the weights of a plain BERT masked LM; loading it with transformers", directory)
        return None
    model.load_state_dict({k: v.float() for k, v in state.items()}, strict=False, assign=True)
    if config.tie_word_embeddings:
        model.cls.predictions.decoder.weight = model.bert.embeddings.word_embeddings.weight
    return model.eval()


@contextmanager
def _without_init() -> Iterator[None]:
    """Modules built with their parameters left uninitialised: the checkpoint's replace every one (the keys
    are checked first). Random initialisation of a BERT base costs about 1 CPU-s, and building on torch's
    meta device instead imports ``torch._dynamo`` (its reference kernels): what this module avoids. As
    transformers' ``no_init_weights`` does, the initialisers are no-ops meanwhile."""
    names = ("kaiming_uniform_", "uniform_", "normal_", "ones_", "zeros_")
    saved = {name: getattr(nn.init, name) for name in names}
    for name in names:
        setattr(nn.init, name, lambda tensor, *args, **kwargs: tensor)
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(nn.init, name, function)
