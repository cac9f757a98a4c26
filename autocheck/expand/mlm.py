"""The masked language model: loading, device, precision, the one forward pass (with out-of-memory
halving), the whole-word beam search and its suggestion cache. Used by fill, fluency, suggest and templates.

Decoding. A template's masks are rendered as the tokenizer's mask token and filled jointly, left to right,
by a beam search over whole-word vocabulary items: at mask ``j`` every partial fill (beam) is scored by the
masked LM with masks ``< j`` filled in and masks ``> j`` still masked; each beam is extended with its best
tokens at mask ``j``, the extensions are ranked by the summed log-probabilities of their tokens, and the best
``beam_size`` are kept (``top_n`` at the last mask). A fill's score is its mean log-probability per mask.
CheckList (and so the original ALiCT code) ranked by summed raw logits; logits of different contexts are not
on a common scale, log-probabilities are, so they are used here (the model's softmax over its whole
vocabulary; non-word items are excluded from the choice, not renormalised away). Every step is batched
over all (template, beam) rows; a single-mask template costs one row of one pass. A row whose own score is
already below its template's ``beam_size``-th (last mask: ``top_n``-th) best extension found is never
scored, since its extensions score at most what it does: the result is the full search's, for fewer rows
(``_bounded_top``).

Vocabulary. Only items that are a whole word on their own are suggested: no WordPiece continuations
(``##ing``), for BPE/SentencePiece only word-initial items (``Ġgood``), no special tokens, and only ASCII
letters (the original allowed ``[A-Za-z0-9]``; a bare number is not a word insertion worth testing).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from contextlib import nullcontext
from functools import lru_cache
from itertools import groupby
from pathlib import Path
from typing import Any

import torch

from ..cache import Cache
from ..config import DEFAULT_MLM
from ..memory import blocks_reused
from ..records import MaskedTemplate
from ..resources import ResourceMissing, offline
from ..store import InputError, content_hash
from .checkpoint import bert_files
from .identity import model_identity
from .slot import SlotRule
from .vocabulary import VocabularyFilter, key_tag

log = logging.getLogger(__name__)

_WORD = re.compile(r"[A-Za-z]+")
_WORD_START = ("Ġ", "▁")  # byte-level BPE (RoBERTa, GPT-2) and SentencePiece word-initial markers
Suggestion = tuple[tuple[str, ...], float]  # one word per mask, mean log-probability per mask
# In the suggestion cache's keys: a search that batches its rows otherwise gets scores that differ in their
# last bits, and a run must not mix them with an earlier release's (same --seed, same bytes).
SEARCH_VERSION = "bounded-beam-1"


def whole_word_ids(tokens: Sequence[str], special_ids: Iterable[int]) -> dict[int, str]:
    """The vocabulary items that are a whole alphabetic word on their own, as ``{id: word}``.

    WordPiece marks continuations (``##ing``), so any other item starts a word. BPE and SentencePiece
    vocabularies mark word starts (``Ġgood``, ``▁good``); unmarked items there are continuations.
    Special tokens, punctuation and digits are never words to insert.
    """
    marked = any(token.startswith(_WORD_START) for token in tokens)
    special = set(special_ids)
    words: dict[int, str] = {}
    for token_id, token in enumerate(tokens):
        if marked:
            word = token[1:] if token.startswith(_WORD_START) else ""
        else:
            word = "" if token.startswith("##") else token
        if token_id not in special and _WORD.fullmatch(word):
            words[token_id] = word
    return words


DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}  # --precision: weights


def cpu_runs_bf16(cpuinfo: str | Path = "/proc/cpuinfo") -> bool:
    """Whether this CPU does bf16 arithmetic in hardware (AMX or AVX-512 BF16, read from the flags of
    ``/proc/cpuinfo``). torch's own ``mkldnn`` bf16 check also says yes where bf16 is only emulated
    through AVX-512, so it does not tell; where the flags cannot be read (not Linux)
    the answer is no, and ``auto`` stays fp32."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as f:
            flags = next((line.split(":", 1)[1].split() for line in f if line.startswith("flags")), [])
    except OSError:
        return False
    return bool({"amx_bf16", "avx512_bf16"} & set(flags))


def resolve_precision(precision: str, device: torch.device) -> str:
    """``auto``: bf16 where the device runs it natively (a CUDA GPU with bf16, a CPU with AMX or AVX-512
    BF16), fp32 elsewhere; an explicit choice is kept (fp16 only on CUDA)."""
    if precision not in ("auto", "fp32", "bf16", "fp16"):
        raise ValueError(f"precision must be auto, fp32, bf16 or fp16, not {precision!r}")
    if precision == "fp16" and device.type != "cuda":
        raise ValueError("precision fp16 runs on CUDA only (use bf16 or fp32 on the CPU)")
    if precision != "auto":
        return precision
    if device.type == "cuda":  # not counting emulation, which torch counts by default
        native = torch.cuda.is_bf16_supported(including_emulation=False)
    else:
        native = cpu_runs_bf16()
    return "bf16" if native else "fp32"


def resolve_device(device: str | None) -> torch.device:
    """``auto`` (or None): CUDA when there is a GPU, else the CPU; ``cuda`` without one is an error."""
    if device in (None, "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    resolved = torch.device(device)
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ResourceMissing("--device cuda: no CUDA GPU is visible to torch (use --device auto or cpu)")
    return resolved


class MaskedLM:
    """A masked language model loaded once, with its whole-word vocabulary and suggestion cache.

    ``forward_passes`` and ``forward_seconds`` count the model calls this instance made (for benchmarks
    and for telling cached from computed suggestions).
    """

    def __init__(
        self,
        tokenizer: Any,
        model: torch.nn.Module,
        identity: str,
        device: str | None = None,
        *,
        precision: str = "fp32",
        batch_tokens: int = 16384,
    ):
        self.tokenizer = tokenizer
        self.identity = identity
        self.device = resolve_device(device)
        # the precision actually used (``auto`` resolved): scores differ between precisions, so it is
        # part of every cache key of this model's outputs (``cache_identity``)
        self.precision = resolve_precision(precision, self.device)
        # "-weights": the weights are cast (an earlier release autocast them, with other scores); "-2": in
        # bf16 on the CPU the first layer runs at distinct tokens and the last layer's attention at the
        # masks, the same bits where that was checked (one CPU kind, torch 2.13), and a cache must not mix
        # their scores with the former passes' where it was not
        cast = f"@{self.precision}-weights-2"
        self.cache_identity = identity if self.precision == "fp32" else identity + cast
        # Cast once, not autocast: autocast re-casts every weight on every call, which at the batch sizes
        # generation makes (tens of rows) cost more than the bf16 matrix products saved (benchmarks/
        # bench_precision.py); the softmax over the vocabulary stays in fp32 (``_forward``).
        self.model = model.to(self.device, dtype=DTYPES[self.precision]).eval()
        # The last layer only at the masks, and the first layer's projections only at distinct tokens, where
        # that gives the same bits: bf16 on the CPU, whose packed products do not depend on how many rows
        # they multiply (fp32's do, in their last bits)
        packed = self.precision == "bf16" and self.device.type == "cpu" and _pack_linear_weights(self.model)
        self._last_layer_at_masks = packed and _last_layer_at_masks(self.model)
        self._first_layer_at_distinct_tokens = packed and _first_layer_at_distinct_tokens(self.model)
        if tokenizer.mask_token_id is None:
            raise ValueError(f"{identity}: tokenizer has no mask token; not a masked language model")
        config = getattr(self.model, "config", None)
        vocab_size = getattr(config, "vocab_size", None) or len(tokenizer)  # the logits' width
        vocabulary = tokenizer.convert_ids_to_tokens(range(len(tokenizer)))
        self.words = {
            i: word
            for i, word in whole_word_ids(vocabulary, tokenizer.all_special_ids).items()
            if i < vocab_size
        }
        if not self.words:
            raise ValueError(f"{identity}: no whole-word vocabulary items")
        # Added to the log-probabilities: -inf for every item that is not a whole word (built once).
        self._disallowed = torch.full((vocab_size,), float("-inf"), device=self.device)
        self._disallowed[list(self.words)] = 0.0
        self._head = _lm_head(self.model)
        limit = getattr(config, "max_position_embeddings", None) or 512
        self.max_length = min(int(tokenizer.model_max_length), int(limit))
        self.forward_passes = 0  # batched model calls
        self.forward_rows = 0  # masked sequences scored (a pass scores many)
        self.forward_seconds = 0.0
        self.batch_tokens = batch_tokens
        self.special_tokens = tuple(
            sorted({t for t in tokenizer.all_special_tokens if t} | {tokenizer.mask_token}, key=len)
        )

    def has_special_token(self, text: str) -> bool:
        """Whether ``text`` holds one of this model's special tokens (``[MASK]``, ``[CLS]``, ``<mask>``,
        ``</s>``...) literally: such a text cannot be filled or scored (a literal mask is a mask)."""
        return any(token in text for token in self.special_tokens)

    @classmethod
    def from_pretrained(
        cls,
        name_or_dir: str | Path = DEFAULT_MLM,
        *,
        device: str | None = None,
        precision: str = "fp32",
        batch_tokens: int = 16384,
    ) -> MaskedLM:
        """Load a masked LM (``AutoTokenizer`` + ``AutoModelForMaskedLM``) from a hub id or a directory; a
        plain BERT masked LM with safetensors weights is built by ``bert.py`` instead, with the same bits and
        without importing transformers' model classes."""
        from safetensors import SafetensorError
        from transformers import AutoTokenizer

        local_only = offline() or Path(name_or_dir).is_dir()
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(name_or_dir), local_files_only=local_only)
            model = _plain_bert(name_or_dir, local_only)
            if model is None:
                from transformers import AutoModelForMaskedLM

                model = AutoModelForMaskedLM.from_pretrained(str(name_or_dir), local_files_only=local_only)
        except InputError:  # a file found but not readable, named by the error
            raise
        except SafetensorError as e:  # found by transformers: a damaged weights file
            raise InputError(f"masked LM '{name_or_dir}': its weights cannot be read ({e})") from None
        except (OSError, ValueError) as e:
            how = "pass a local model directory" if local_only else "check the name and the network"
            raise ResourceMissing(
                f"masked LM '{name_or_dir}' not found ({how}; e.g. --mlm path/to/bert-base-uncased): "
                f"{str(e).splitlines()[0] if str(e) else type(e).__name__}"
            ) from None
        log.info("Loaded masked LM %s", name_or_dir)
        identity = model_identity(name_or_dir, model.config)
        return cls(tokenizer, model, identity, device, precision=precision, batch_tokens=batch_tokens)

    def describe(self) -> dict[str, Any]:
        return {
            "identity": self.identity,
            "device": str(self.device),
            "precision": self.precision,
            "whole_words": len(self.words),
        }

    def masked_text(self, template: MaskedTemplate) -> str:
        return template.render([self.tokenizer.mask_token] * len(template.masks))[0]

    def suggest(
        self,
        templates: Sequence[MaskedTemplate],
        beam_size: int = 100,
        top_n: int = 60,
        *,
        batch_size: int = 64,
        vocabulary: VocabularyFilter | None = None,
        slot: SlotRule | None = None,
    ) -> list[list[Suggestion] | None]:
        """For each template, up to ``top_n`` fills (one word per mask), best first, with their scores.

        With a ``vocabulary`` filter each mask is filled only from the words it admits for the mask's tag,
        and with a ``slot`` rule (``slot.py``, needs the filter) partial fills whose next mask cannot take
        its tag are given up; a template left without any fill that way comes back as None.
        Suggestions are cached on disk by (model identity and precision, masked text, beam size, top_n, and
        the filter with the tags and the slot rule when there are); each distinct masked text is computed
        once.
        """
        return self._suggest(
            [self.masked_text(t) for t in templates],
            beam_size,
            top_n,
            batch_size=batch_size,
            tags=[vocabulary.mask_keys(t.masks) for t in templates] if vocabulary is not None else None,
            vocabulary=vocabulary,
            slot=slot,
        )

    def suggest_texts(
        self,
        texts: Sequence[str],
        beam_size: int = 100,
        top_n: int = 60,
        *,
        batch_size: int = 64,
        tags: Sequence[tuple[str, ...]] | None = None,
        vocabulary: VocabularyFilter | None = None,
    ) -> list[list[Suggestion]]:
        """``suggest`` for texts holding the tokenizer's mask token (``mask_token``) where words go
        (``tags``: each text's mask tags, for the ``vocabulary`` filter)."""
        found = self._suggest(
            texts, beam_size, top_n, batch_size=batch_size, tags=tags, vocabulary=vocabulary
        )
        return [fills or [] for fills in found]  # without a slot rule nothing is given up

    def _suggest(
        self,
        texts: Sequence[str],
        beam_size: int,
        top_n: int,
        *,
        batch_size: int,
        tags: Sequence[tuple[str, ...]] | None,
        vocabulary: VocabularyFilter | None,
        slot: SlotRule | None = None,
    ) -> list[list[Suggestion] | None]:
        if beam_size < 1 or top_n < 1:
            raise ValueError("beam_size and top_n must be positive")
        if (tags is None) != (vocabulary is None):
            raise ValueError("tags and vocabulary go together")
        if slot is not None and vocabulary is None:
            raise ValueError("the slot rule needs a vocabulary filter (the words of each mask's tag)")
        queries = list(zip(texts, tags)) if tags is not None else [(text, None) for text in texts]
        constraint = (
            *(() if vocabulary is None else (vocabulary.fingerprint,)),
            *(() if slot is None else (slot.fingerprint,)),
        )
        keys = {
            query: content_hash(
                SEARCH_VERSION,
                self.cache_identity,
                query[0],
                str(beam_size),
                str(top_n),
                *constraint,
                *(query[1] or ()),
            )
            for query in queries
        }
        with Cache("suggestions") as cache:
            found = cache.get_many(keys.values())
            missing = [query for query in keys if keys[query] not in found]
            if missing:
                computed = self._beam_search(
                    [text for text, _ in missing],
                    beam_size,
                    top_n,
                    batch_size,
                    # every query has its tags when a vocabulary is given (checked above)
                    None if vocabulary is None else [t for _, t in missing if t is not None],
                    vocabulary,
                    slot,
                )
                new = {
                    keys[query]: None if fills is None else [[list(words), score] for words, score in fills]
                    for query, fills in zip(missing, computed)
                }
                cache.put_many(new)
                found.update(new)
        fills = [found[keys[query]] for query in queries]
        return [None if f is None else [(tuple(words), score) for words, score in f] for f in fills]

    def _beam_search(
        self,
        texts: list[str],
        beam_size: int,
        top_n: int,
        batch_size: int,
        tags: list[tuple[str, ...]] | None = None,
        vocabulary: VocabularyFilter | None = None,
        slot: SlotRule | None = None,
    ) -> list[list[Suggestion] | None]:
        encoded = self.tokenizer(texts, truncation=True, max_length=self.max_length)["input_ids"]
        mask_id = self.tokenizer.mask_token_id
        expected = [text.count(self.tokenizer.mask_token) for text in texts]
        results: list[list[Suggestion] | None] = [[] for _ in texts]
        fillable = []
        for i, ids in enumerate(encoded):
            if ids.count(mask_id) == expected[i] > 0 and (tags is None or len(tags[i]) == expected[i]):
                fillable.append(i)
            else:
                log.warning(
                    "masked text too long for %s or masks lost in tokenisation: %r", self.identity, texts[i]
                )
        fillable.sort(key=lambda i: len(encoded[i]))  # similar lengths per batch: less padding
        with blocks_reused():  # passes of similar shapes: each reuses the pages the previous one freed
            for start in range(0, len(fillable), batch_size):
                chunk = fillable[start : start + batch_size]
                fills = self._beam_search_chunk(
                    [encoded[i] for i in chunk],
                    beam_size,
                    top_n,
                    batch_size,
                    None if tags is None else [tags[i] for i in chunk],
                    vocabulary,
                    slot,
                )
                for i, chunk_fills in zip(chunk, fills):
                    results[i] = chunk_fills
        return results

    def _allowed_rows(self, tags: list[str], vocabulary: VocabularyFilter) -> torch.Tensor:
        """One row per tag: 0 for the ids ``vocabulary`` admits for it, -inf elsewhere (on the device)."""
        rows = torch.full((len(tags), len(self._disallowed)), float("-inf"), device=self.device)
        for n, tag in enumerate(tags):
            allowed = [i for i in vocabulary.allowed(tag) if i in self.words]
            if allowed:
                rows[n, allowed] = 0.0
        return rows

    def _beam_search_chunk(
        self,
        encoded: list[list[int]],
        beam_size: int,
        top_n: int,
        batch_size: int,
        tags: list[tuple[str, ...]] | None = None,
        vocabulary: VocabularyFilter | None = None,
        slot: SlotRule | None = None,
    ) -> list[list[Suggestion] | None]:
        """Joint left-to-right beam search over a chunk of masked texts.

        Rows are (text, partial fill) pairs, kept grouped by text, best first; each step scores the rows
        that can still reach their text's best extensions at its next mask (``_bounded_top``), in forward
        passes of at most ``batch_size`` rows and ``batch_tokens`` tokens.
        The rows' token ids stay on the model's device across steps; only each step's best few scores
        and tokens come back to the host. A row the ``slot`` rule gives up scores -inf for every word, so
        it has no extension; a text whose rows all went that way comes back as None.
        """
        pad = self.tokenizer.pad_token_id or 0
        ids = torch.full((len(encoded), max(map(len, encoded))), pad, dtype=torch.long)
        attention = torch.zeros_like(ids)
        for i, seq in enumerate(encoded):
            ids[i, : len(seq)] = torch.tensor(seq)
            attention[i, : len(seq)] = 1
        masks = [(row == self.tokenizer.mask_token_id).nonzero().flatten().tolist() for row in ids]
        ids, attention = ids.to(self.device), attention.to(self.device)
        if vocabulary is not None and tags is not None:
            names = sorted({tag for text_tags in tags for tag in text_tags})
            allowed = self._allowed_rows(names, vocabulary)
            tag_index = [[names.index(tag) for tag in text_tags] for text_tags in tags]
            # a mask key narrower than its tag ("RB:modifying", ``VocabularyFilter.mask_keys``): the slot rule
            # weighs the tag's words (does the place take an adverb?), the fill takes the key's
            bases = [key_tag(name) for name in names]
            slot_allowed = allowed
            if slot is not None and bases != names:
                slot_allowed = self._allowed_rows(bases, vocabulary)
        k = min(max(beam_size, top_n), len(self.words))  # enough per row for any text's best fills
        row_text = list(range(len(encoded)))
        row_fill: list[tuple[int, ...]] = [() for _ in encoded]
        row_score = torch.zeros(len(encoded))
        results: list[list[Suggestion]] = [[] for _ in encoded]
        given_up = [False] * len(encoded)  # a row of the text was given up by the slot rule
        per_pass = max(1, min(batch_size, self.batch_tokens // max(1, ids.shape[1])))
        for step in range(max(map(len, masks))):
            positions = torch.tensor([masks[t][step] for t in row_text], device=self.device)
            extra = narrow = None
            if vocabulary is not None and tags is not None:
                index = torch.tensor([tag_index[t][step] for t in row_text], device=self.device)
                extra = slot_allowed[index]
                narrow = None if slot_allowed is allowed else allowed[index]
            groups = []  # (text, its first row, its end row, the extensions it keeps), rows grouped by text
            first = 0
            for t, group in groupby(row_text):
                end = first + len(list(group))
                groups.append((t, first, end, top_n if step == len(masks[t]) - 1 else beam_size))
                first = end
            values, tokens = self._bounded_top(
                ids,
                attention,
                positions,
                extra,
                row_score,
                groups,
                k,
                per_pass,
                slot,
                given_up,
                row_text,
                narrow,
            )
            scores = row_score.unsqueeze(1) + values
            parents: list[int] = []
            next_fill: list[tuple[int, ...]] = []
            next_score: list[float] = []
            for t, first, end, keep in groups:
                last = step == len(masks[t]) - 1
                best = scores[first:end].flatten().topk(min(keep, (end - first) * k))
                for score, at in zip(best.values.tolist(), best.indices.tolist()):
                    if score == float("-inf"):  # fewer admissible words than asked for
                        break
                    row = first + at // k
                    fill = (*row_fill[row], int(tokens[row, at % k]))
                    if last:
                        words = tuple(self.words[token] for token in fill)
                        results[t].append((words, round(score / len(fill), 4)))
                    else:
                        parents.append(row)
                        next_fill.append(fill)
                        next_score.append(score)
            if not parents:
                break
            index = torch.tensor(parents, device=self.device)
            ids, attention, positions = ids[index], attention[index], positions[index]
            ids[torch.arange(len(parents), device=self.device), positions] = torch.tensor(
                [f[-1] for f in next_fill], dtype=torch.long, device=self.device
            )
            row_text = [row_text[p] for p in parents]
            row_fill, row_score = next_fill, torch.tensor(next_score)
        return [None if given_up[t] and not fills else fills for t, fills in enumerate(results)]

    def _bounded_top(
        self,
        ids: torch.Tensor,
        attention: torch.Tensor,
        positions: torch.Tensor,
        extra: torch.Tensor | None,
        row_score: torch.Tensor,
        groups: list[tuple[int, int, int, int]],
        k: int,
        per_pass: int,
        slot: SlotRule | None,
        given_up: list[bool],
        row_text: list[int],
        narrow: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Each row's ``k`` best scores and tokens at its next mask (on the host), -inf for the rows that
        cannot reach their text's best extensions and are never scored.

        A row's extensions score at most the row's own score (log-probabilities are at most 0), and a
        text's rows come best first. So a text's rows are scored in waves (1, 2, 4, ... rows), and once
        ``keep`` extensions of its scored rows beat the score of its next row, neither that row nor any
        after it can place an extension among the ``keep`` best: the search's result is the one scoring
        every row gives, for fewer rows (how many fewer depends on how peaked the model is: 16 % on alict60's
        LC4 at beam 100 with the stand-in, docs/speed.md). Each wave is one set of passes over the rows of
        every text, each pass cut to the longest of its rows (the texts are sorted by length)."""
        values = torch.full((len(row_text), k), float("-inf"))
        tokens = torch.zeros((len(row_text), k), dtype=torch.long)
        scored = [first for _, first, _, _ in groups]  # each text's next row to score
        wave = 1
        while True:
            rows = []
            for g, (_, first, end, keep) in enumerate(groups):
                bound = float("-inf")
                if (scored[g] - first) * k >= keep:
                    so_far = row_score[first : scored[g]].unsqueeze(1) + values[first : scored[g]]
                    bound = float(so_far.flatten().topk(keep).values[-1])
                for row in range(scored[g], min(end, scored[g] + wave)):
                    if row_score[row] < bound:  # this row and the rows after it score no more
                        scored[g] = end
                        break
                    rows.append(row)
                    scored[g] = row + 1
            if not rows:
                return values, tokens
            for b in range(0, len(rows), per_pass):
                part = torch.tensor(rows[b : b + per_pass], device=self.device)
                length = int(attention[part].sum(1).max())
                log_probs = self._mask_log_probs(
                    ids[part, :length],
                    attention[part, :length],
                    positions[part],
                    None if extra is None else extra[part],
                )
                if slot is not None:
                    keeps = slot.keeps(log_probs)
                    log_probs = log_probs.masked_fill(~keeps.unsqueeze(1), float("-inf"))
                    for row in (~keeps).nonzero().flatten().tolist():
                        given_up[row_text[rows[b + row]]] = True
                if narrow is not None:  # the words of the rows' mask keys, after the slot rule
                    log_probs = log_probs + narrow[part]
                top = log_probs.topk(k)
                values[part.cpu()], tokens[part.cpu()] = top.values.cpu(), top.indices.cpu()
            wave *= 2

    @torch.inference_mode()
    def _mask_log_probs(
        self,
        ids: torch.Tensor,
        attention: torch.Tensor,
        positions: torch.Tensor,
        extra: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The fill search's scores: ``log_probs_at`` with -inf for non-words (and, with ``extra``, -inf
        where it is: the words a vocabulary filter does not admit); counted in ``forward_*``."""
        started = time.perf_counter()
        out = self.log_probs_at(ids, attention, positions) + (self._disallowed if extra is None else extra)
        self.forward_passes += 1
        self.forward_rows += len(ids)
        self.forward_seconds += time.perf_counter() - started
        return out

    def log_probs_at(
        self, ids: torch.Tensor, attention: torch.Tensor, positions: torch.Tensor
    ) -> torch.Tensor:
        """Log-probabilities over the whole vocabulary at one position per row: the one forward pass of the
        fill search and the fluency scorer. A batch that runs out of memory (GPU or CPU) is computed in
        halves, and the log says so; rows do not depend on each other, so the result is the same."""
        try:
            return self._forward(ids, attention, positions)
        except (torch.OutOfMemoryError, RuntimeError) as e:
            if len(ids) == 1 or not _out_of_memory(e):
                raise
        log.warning("%s: out of memory on %d rows; computing them in halves", self.identity, len(ids))
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        half = len(ids) // 2
        parts = [slice(0, half), slice(half, len(ids))]
        return torch.cat([self.log_probs_at(ids[s], attention[s], positions[s]) for s in parts])

    @torch.inference_mode()
    def _forward(self, ids: torch.Tensor, attention: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        ids, attention, positions = ids.to(self.device), attention.to(self.device), positions.to(self.device)
        rows = torch.arange(len(ids), device=self.device)
        with _attention_without_cudnn(self.device):
            if self._head is not None:  # the LM head only at the given positions, not at every token
                at_masks = {"mask_positions": positions} if self._last_layer_at_masks else {}
                # torch types a submodule read as an attribute as Tensor | Module
                base = self.model.base_model(input_ids=ids, attention_mask=attention, **at_masks)  # type: ignore[operator]
                # with the last layer at the masks, its output is already one state per row
                states = base.last_hidden_state
                logits = self._head(states[:, 0] if at_masks else states[rows, positions])
            else:
                logits = self.model(input_ids=ids, attention_mask=attention).logits[rows, positions]
        scores = logits.float().log_softmax(-1)
        if self.device.type == "cuda":  # read at once by the caller: waiting here counts GPU time as forward
            torch.cuda.synchronize(self.device)
        return scores


def _plain_bert(name_or_dir: str | Path, local_only: bool) -> torch.nn.Module | None:
    found = bert_files(name_or_dir, local_only)
    if found is None:
        return None
    from .bert import load_bert_mlm

    return load_bert_mlm(*found)


def shared_masked_lm(name_or_dir: str | Path, *, device: str | None, precision: str) -> MaskedLM:
    """``MaskedLM.from_pretrained``, loaded once per process for a model (its name and files' checksum),
    device and precision: a program or notebook that generates several times loads it once. Its
    ``forward_*`` counters then add up over the calls; a user subtracts what they read at the start."""
    return _shared_masked_lm(model_identity(name_or_dir), str(name_or_dir), device, precision)


@lru_cache(maxsize=2)
def _shared_masked_lm(identity: str, name_or_dir: str, device: str | None, precision: str) -> MaskedLM:
    return MaskedLM.from_pretrained(name_or_dir, device=device, precision=precision)


def _attention_without_cudnn(device: torch.device):
    """On CUDA, attention by any kernel but cuDNN's, which torch prefers for bf16 on some GPUs (H100) but
    which builds a new graph for every new (rows, length) shape: generation's passes come in many shapes,
    and the builds made bf16 passes several times slower than fp32 ones (benchmarks/bench_gpu.py)."""
    attention = getattr(torch.nn, "attention", None)
    if device.type != "cuda" or not hasattr(attention, "sdpa_kernel"):  # torch 2.2: no cuDNN attention
        return nullcontext()
    backends = attention.SDPBackend  # type: ignore[union-attr]
    kernels = [backends.FLASH_ATTENTION, backends.EFFICIENT_ATTENTION, backends.MATH]
    return attention.sdpa_kernel(kernels)  # type: ignore[union-attr]


class _PackedLinear(torch.nn.Module):
    """A bf16 ``nn.Linear`` on the CPU with its weight reordered once into oneDNN's blocked layout.

    ``nn.Linear`` hands oneDNN the plain weight, which it reorders on every call (docs/speed.md). The
    product is oneDNN's same matmul either way, so the scores are the same bits (tests/test_precision.py)."""

    def __init__(self, linear: torch.nn.Linear):
        super().__init__()
        self.packed = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach())
        self.bias = linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.mkldnn._linear_pointwise(x, self.packed, self.bias, "none", [], "")


def _pack_linear_weights(model: torch.nn.Module) -> bool:
    """Every ``nn.Linear`` of a bf16 CPU ``model`` as a ``_PackedLinear``, where this torch build has oneDNN
    with bf16 (it is how torch's own compiler runs bf16 linear layers on the CPU); elsewhere left as is.
    Whether it packed them."""
    mkldnn = torch.ops.mkldnn
    ops = ("_reorder_linear_weight", "_linear_pointwise", "_is_mkldnn_bf16_supported")
    if not (torch.backends.mkldnn.is_available() and all(hasattr(mkldnn, op) for op in ops)):
        return False
    if not mkldnn._is_mkldnn_bf16_supported():  # bf16 not even emulated: nothing to pack for
        return False
    for name, module in list(model.named_modules()):
        if type(module) is torch.nn.Linear:
            parent, _, attribute = name.rpartition(".")
            setattr(model.get_submodule(parent), attribute, _PackedLinear(module))
    return True


# Queries per call of attention at the masks: torch's CPU attention gives a query the same bits in any call
# of at least 4 queries as in the call over all of a row's tokens, but not in calls of 1 to 3 (another
# kernel path; tried on every pass of alict60's LC4 and on lengths 20-127 with masks anywhere, docs/speed.md)
_QUERIES = 4


class _LastLayerAtMasks(torch.nn.Module):
    """A BERT-style encoder's last layer (BERT, RoBERTa: ``attention.self``, ``attention.output``,
    ``intermediate``, ``output``) only at one position per row, the mask the head reads (``mask_positions``,
    passed through the model's keyword arguments): the attention's output projection and the feed-forward
    block, most of a layer's work, for one token of each row instead of all, and with torch's attention
    (``sdpa``) on rows of at least ``_QUERIES`` tokens the query projection and the attention too (each
    mask's query asked ``_QUERIES`` times, for the same bits; keys and values still at every token).
    Without ``mask_positions`` it is the plain layer."""

    def __init__(self, layer: torch.nn.Module):
        super().__init__()
        self.layer = layer
        config = getattr(layer.get_submodule("attention.self"), "config", None)
        self.sdpa = getattr(config, "_attn_implementation", None) == "sdpa"  # the kernel of _QUERIES

    def forward(self, hidden_states, attention_mask=None, *args, mask_positions=None, **kwargs):
        if mask_positions is None:
            return self.layer(hidden_states, attention_mask, *args, **kwargs)
        rows = torch.arange(len(hidden_states), device=hidden_states.device)
        at_masks = hidden_states[rows, mask_positions].unsqueeze(1)
        attention = self.layer.attention
        if self.sdpa and hidden_states.shape[1] >= _QUERIES:
            context = self._attention_at_masks(hidden_states, attention_mask, rows, mask_positions, at_masks)
        else:
            context = attention.self(hidden_states, attention_mask=attention_mask)[0][rows, mask_positions]
        at = attention.output(context.unsqueeze(1), at_masks)
        return self.layer.output(self.layer.intermediate(at), at)  # (rows, 1, hidden)

    def _attention_at_masks(self, hidden_states, attention_mask, rows, mask_positions, at_masks):
        """The self-attention's output at each row's mask (rows, hidden), as ``attention.self`` computes it
        with torch's attention, for the mask's query only."""
        module = self.layer.attention.self
        batch, length, hidden = hidden_states.shape

        def heads(x: torch.Tensor) -> torch.Tensor:  # (rows, heads, tokens, head size)
            return x.view(batch, -1, module.num_attention_heads, module.attention_head_size).transpose(1, 2)

        query = heads(module.query(at_masks)).expand(-1, -1, _QUERIES, -1).contiguous()
        if attention_mask is not None:  # (rows, 1, length, length), maybe broadcast: each mask's line
            line = attention_mask.expand(batch, -1, length, -1)[rows, :, mask_positions]
            attention_mask = line.unsqueeze(2).expand(-1, -1, _QUERIES, -1).contiguous()
        context = torch.nn.functional.scaled_dot_product_attention(
            query,
            heads(module.key(hidden_states)),
            heads(module.value(hidden_states)),
            attn_mask=attention_mask,
            scale=module.scaling,
        )
        return context[:, :, 0].reshape(batch, hidden)


def _last_layer_at_masks(model: torch.nn.Module) -> bool:
    """Whether ``model``'s last encoder layer now runs at the masks only (``_LastLayerAtMasks``): only for
    an encoder of BERT's layers, and only where a small batch with padding gives the same bits both ways
    (else the layer is left as it was)."""
    config, base = getattr(model, "config", None), getattr(model, "base_model", model)
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    names = ("attention.self", "attention.output", "intermediate", "output")
    if (
        getattr(config, "is_decoder", True)
        or getattr(config, "chunk_size_feed_forward", 0)
        or getattr(config, "vocab_size", 0) < 5
        or not isinstance(layers, torch.nn.ModuleList)
        or not all(_has_submodule(layers[-1], name) for name in names)
    ):
        return False
    ids = torch.tensor([[1, 2, 3, 4, 2], [1, 4, 3, 2, 0]])  # any ids: a row with padding, one without
    attention, positions = (ids != 0).long(), torch.tensor([2, 1])
    with torch.inference_mode():
        full = base(input_ids=ids, attention_mask=attention).last_hidden_state[torch.arange(2), positions]
        last = layers[-1]
        layers[-1] = _LastLayerAtMasks(last)
        at_masks = base(input_ids=ids, attention_mask=attention, mask_positions=positions).last_hidden_state
    if at_masks.shape == (2, 1, full.shape[-1]) and torch.equal(at_masks[:, 0], full):
        return True
    layers[-1] = last
    return False


_OTHER_INPUTS = ("token_type_ids", "inputs_embeds")  # of BERT's embeddings, never given by the fill search


class _DistinctTokenEmbeddings(torch.nn.Module):
    """A BERT encoder's embeddings computed once per distinct (token, position) of a batch, not per row.

    A token's embedding depends on its id and position only, and so do the first layer's query, key and
    value projections of it: a template's rows in a beam step differ only at the masks filled so far, so
    most of a batch's tokens repeat. The embeddings of the distinct tokens are spread back to every row
    (the first layer's attention mixes each row's own), and the distinct ones travel with that tensor
    (``distinct_tokens``) to the projections (``_AtDistinctTokens``), which compute them only."""

    def __init__(self, embeddings: torch.nn.Module):
        super().__init__()
        self.embeddings = embeddings

    def forward(self, input_ids=None, position_ids=None, **kwargs):
        given = position_ids is not None or any(kwargs.get(name) is not None for name in _OTHER_INPUTS)
        if input_ids is None or given or kwargs.get("cache_length"):  # not a fill search's pass
            return self.embeddings(input_ids=input_ids, position_ids=position_ids, **kwargs)
        rows, length = input_ids.shape
        tokens = (input_ids * length + torch.arange(length, device=input_ids.device)).flatten()
        distinct, inverse = torch.unique(tokens, return_inverse=True)
        token_ids, token_positions = (distinct // length).unsqueeze(0), (distinct % length).unsqueeze(0)
        states = self.embeddings(input_ids=token_ids, position_ids=token_positions, **kwargs)[0]
        hidden = states.index_select(0, inverse).view(rows, length, -1)
        hidden.distinct_tokens = (states, inverse)
        return hidden


class _AtDistinctTokens(torch.nn.Module):
    """A linear layer of the first encoder layer: over the distinct tokens its input carries
    (``_DistinctTokenEmbeddings``), spread back to every row; over every row for any other input."""

    def __init__(self, linear: torch.nn.Module):
        super().__init__()
        self.linear = linear

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        distinct = getattr(x, "distinct_tokens", None)
        if distinct is None:
            return self.linear(x)
        states, inverse = distinct
        return self.linear(states).index_select(0, inverse).view(*x.shape[:-1], -1)


def _first_layer_at_distinct_tokens(model: torch.nn.Module) -> bool:
    """Whether ``model``'s embeddings and its first layer's query, key and value projections now run once
    per distinct token of a batch (``_DistinctTokenEmbeddings``): only for BERT's embeddings (positions
    counted from 0, one token type) and only where a batch with repeated tokens and padding gives the same
    bits both ways (else they are left as they were)."""
    config, base = getattr(model, "config", None), getattr(model, "base_model", model)
    embeddings = getattr(base, "embeddings", None)
    layers = getattr(getattr(base, "encoder", None), "layer", None)
    names = ("attention.self.query", "attention.self.key", "attention.self.value")
    if (
        getattr(config, "model_type", None) != "bert"
        or getattr(config, "vocab_size", 0) < 5
        or embeddings is None
        or not isinstance(layers, torch.nn.ModuleList)
        or not all(_has_submodule(layers[0], name) for name in names)
    ):
        return False
    projections = layers[0].get_submodule("attention.self")
    ids = torch.tensor([[1, 2, 3, 4, 2], [1, 2, 4, 3, 2], [1, 4, 3, 2, 0]])  # repeated tokens, one pad
    attention = (ids != 0).long()
    with torch.inference_mode():
        whole = base(input_ids=ids, attention_mask=attention).last_hidden_state
        base.embeddings = _DistinctTokenEmbeddings(embeddings)
        for name in ("query", "key", "value"):
            setattr(projections, name, _AtDistinctTokens(getattr(projections, name)))
        distinct = base(input_ids=ids, attention_mask=attention).last_hidden_state
    if torch.equal(distinct, whole):
        return True
    base.embeddings = embeddings
    for name in ("query", "key", "value"):
        setattr(projections, name, getattr(projections, name).linear)
    return False


def _has_submodule(module: torch.nn.Module, name: str) -> bool:
    try:
        module.get_submodule(name)
    except AttributeError:
        return False
    return True


def _out_of_memory(error: BaseException) -> bool:
    """CUDA's OutOfMemoryError, or the CPU allocator's "can't allocate memory"."""
    text = str(error)
    return isinstance(error, torch.OutOfMemoryError) or "out of memory" in text or "allocate memory" in text


def _lm_head(model: torch.nn.Module) -> torch.nn.Module | None:
    """The prediction head of an ``XForMaskedLM`` whose logits are ``head(encoder output)`` (BERT's ``cls``,
    RoBERTa's ``lm_head``); None for models whose head is not one module (then the full forward is used)."""
    prefix = getattr(model, "base_model_prefix", None)
    base = getattr(model, "base_model", model)
    heads = [module for name, module in model.named_children() if name != prefix]
    return heads[0] if prefix and base is not model and len(heads) == 1 else None
