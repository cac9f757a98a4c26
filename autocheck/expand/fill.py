"""Fill stage: masked-LM suggestions for masked templates, validation, and the expanded test cases.

Decoding. A template's masks are rendered as the tokenizer's mask token and filled jointly, left to right,
by a beam search over whole-word vocabulary items: at mask ``j`` every partial fill (beam) is scored by the
masked LM with masks ``< j`` filled in and masks ``> j`` still masked; each beam is extended with its best
tokens at mask ``j``, the extensions are ranked by the summed log-probabilities of their tokens, and the best
``beam_size`` are kept (``top_n`` at the last mask). A fill's score is its mean log-probability per mask.
CheckList (and so the original ALiCT code) ranked by summed raw logits; logits of different contexts are not
on a common scale, log-probabilities are, so they are used here (the model's softmax over its whole
vocabulary; non-word items are excluded from the choice, not renormalised away). Every step is one batched
forward pass over all (template, beam) rows; a single-mask template costs one row of one pass.

Vocabulary. Only items that are a whole word on their own are suggested: no WordPiece continuations
(``##ing``), for BPE/SentencePiece only word-initial items (``Ġgood``), no special tokens, and only ASCII
letters (the original allowed ``[A-Za-z0-9]``; a bare number is not a word insertion worth testing).

Validation (the original's checks with their bugs fixed):

1. duplicate: the filled text equals the seed's text or a text already kept for the same seed;
2. polarity: every inserted word must be neutral in the lexicon, looked up lower-cased with the coarse
   POS of its mask's tag (the original looked words up case-sensitively with spaCy's isolated-word POS),
   and never a negation ("not", "never", ...: ``lexicon.NEGATIONS``), which flips the sentiment of what it
   scopes over even where a lexicon, like the opinion lexicon, calls it neutral.
   The POS check below makes that tag the word's tag in context for every kept fill; checking polarity
   first means only neutral candidates need tagging;
4. doubled: an inserted word repeats a neighbouring word ("a kind kind of film");
5. pos: every inserted word, tagged in the filled sentence, must get its mask's tag (the original tagged
   each word in isolation); phrase-level masks can never match and are skipped before the MLM is called.
   A lower-case fill that the tagger knows only as a proper noun when capitalised ("york", "jones") is a
   proper noun: it fails any other tag, and for an ``NNP``/``NNPS`` mask it is capitalised before tagging;
   any other fill of a proper-noun mask must be capitalised to pass (a lower-case word is not a name, and
   capitalising an arbitrary word would only make the tagger call it one);
6. context (when ``context.FunctionPairs`` are given): an inserted preposition, "to", conjunction or
   determiner next to another function word must make a word pair the reference treebank has ("out of"
   yes, "in of" and "and but" no): the grammar's productions are context-free, the sentence is not;
7. requirement: the filled text must still meet the seed's capability requirement;
8. fluency (when a ``fluency.Fluency`` is given): the masked LM's pseudo-log-likelihood around the
   insertion must not fall more than its threshold below the seed's (``fluency.py``); after
   ``FLUENCY_TRIES`` fluency rejections a template is given up (the place, not the word, is at fault).

Casing (fix *casing*, for uncased masked LMs): fills are re-cased for their position before any check
(``recase``): a lone "i" is "I"; a word inserted before a capitalised sentence-initial token (the first of
a sentence, or the first inside an opening quote) is capitalised and that token lower-cased, unless it is
"I", an acronym, or tagged as a proper noun in the seed.

Seeds whose text holds one of the masked LM's special tokens (``[MASK]``, ``<mask>``, ``[CLS]``,
``</s>``, ...) are never sent to it: their templates are counted as ``special_token`` and skipped, since
a literal mask token would be filled as a mask.

The checks run in that order and a rejection is counted under the first that fails. Candidates are
examined in score order and the first ``fills_per_mask`` valid ones per template are kept (ALiCT's HEAD
kept one; its older runs kept all, ``fills_per_mask=None``).
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from itertools import groupby, islice
from pathlib import Path
from typing import Any, Protocol

import torch

from ..cache import Cache
from ..records import EXPANSION, MaskedTemplate, Parse, TestCase, opens
from ..resources import ResourceMissing, offline
from ..sources.lexicon import NEGATIONS
from ..store import content_hash
from ..tagging import (
    PROPER_TAGS,
    coarse_pos,
    is_single_token,
    known_proper_noun,
    pos_tag_from,
    pos_tag_sents,
    proper_noun,
    tokenize,
)
from .context import FunctionPairs
from .fluency import Fluency, Known
from .identity import model_identity
from .vocabulary import VocabularyFilter

log = logging.getLogger(__name__)

DEFAULT_MLM = "bert-base-uncased"
# Penn Treebank word-level tags: the only mask tags a single inserted word can satisfy.
WORD_TAGS = frozenset(
    "CC CD DT EX FW IN JJ JJR JJS LS MD NN NNS NNP NNPS PDT POS PRP PRP$ RB RBR RBS RP SYM TO UH "
    "VB VBD VBG VBN VBP VBZ WDT WP WP$ WRB".split()
)
REASONS = ("duplicate", "polarity", "doubled", "pos", "context", "requirement", "fluency")
_WORD = re.compile(r"[A-Za-z]+")
_WORD_START = ("Ġ", "▁")  # byte-level BPE (RoBERTa, GPT-2) and SentencePiece word-initial markers
_TEMPLATES_PER_CHUNK = 256
FIRST_BEAM = 4  # beam of a multi-mask template's first search (``fill``)
# Fluency rejections after which a template is given up. When a fill passes fluency it is almost always
# one of a template's first three candidates that reach it (all 73 kept of LC9 on the alict60 workload:
# 68 the first, none after the third), while a template whose position no word fits went on through all
# its suggestions, most of the fluency filter's cost.
FLUENCY_TRIES = 4

Suggestion = tuple[tuple[str, ...], float]  # one word per mask, mean log-probability per mask
Requirement = Callable[[TestCase, str], bool]


class NeutralLexicon(Protocol):
    def is_neutral(self, word: str, pos: str | None) -> bool: ...


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
        precision: str = "auto",
        batch_tokens: int = 16384,
    ):
        if precision not in ("auto", "fp32", "bf16", "fp16"):
            raise ValueError(f"precision must be auto, fp32, bf16 or fp16, not {precision!r}")
        self.tokenizer = tokenizer
        self.identity = identity
        self.device = resolve_device(device)
        self.model = model.to(self.device).eval()
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
        self.precision = precision
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
        precision: str = "auto",
        batch_tokens: int = 16384,
    ) -> MaskedLM:
        """Load a masked LM (``AutoTokenizer`` + ``AutoModelForMaskedLM``) from a hub id or a directory."""
        from transformers import AutoModelForMaskedLM, AutoTokenizer

        local_only = offline() or Path(name_or_dir).is_dir()
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(name_or_dir), local_files_only=local_only)
            model = AutoModelForMaskedLM.from_pretrained(str(name_or_dir), local_files_only=local_only)
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
        return {"identity": self.identity, "device": str(self.device), "whole_words": len(self.words)}

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
    ) -> list[list[Suggestion]]:
        """For each template, up to ``top_n`` fills (one word per mask), best first, with their scores.

        With a ``vocabulary`` filter each mask is filled only from the words it admits for the mask's tag.
        Suggestions are cached on disk by (model identity, masked text, beam size, top_n, and the filter
        with the tags when there is one); each distinct masked text is computed once.
        """
        return self.suggest_texts(
            [self.masked_text(t) for t in templates],
            beam_size,
            top_n,
            batch_size=batch_size,
            tags=[tuple(t.tags) for t in templates] if vocabulary is not None else None,
            vocabulary=vocabulary,
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
        if beam_size < 1 or top_n < 1:
            raise ValueError("beam_size and top_n must be positive")
        if (tags is None) != (vocabulary is None):
            raise ValueError("tags and vocabulary go together")
        queries = list(zip(texts, tags)) if tags is not None else [(text, None) for text in texts]
        constraint = () if vocabulary is None else (vocabulary.fingerprint,)
        keys = {
            query: content_hash(
                self.identity, query[0], str(beam_size), str(top_n), *constraint, *(query[1] or ())
            )
            for query in queries
        }
        cache = Cache("suggestions")
        try:
            found = cache.get_many(keys.values())
            missing = [query for query in keys if keys[query] not in found]
            if missing:
                computed = self._beam_search(
                    [text for text, _ in missing],
                    beam_size,
                    top_n,
                    batch_size,
                    None if vocabulary is None else [t for _, t in missing],
                    vocabulary,
                )
                new = {
                    keys[query]: [[list(words), score] for words, score in fills]
                    for query, fills in zip(missing, computed)
                }
                cache.put_many(new)
                found.update(new)
        finally:
            cache.close()
        return [[(tuple(words), score) for words, score in found[keys[query]]] for query in queries]

    def _beam_search(
        self,
        texts: list[str],
        beam_size: int,
        top_n: int,
        batch_size: int,
        tags: list[tuple[str, ...]] | None = None,
        vocabulary: VocabularyFilter | None = None,
    ) -> list[list[Suggestion]]:
        encoded = self.tokenizer(texts, truncation=True, max_length=self.max_length)["input_ids"]
        mask_id = self.tokenizer.mask_token_id
        expected = [text.count(self.tokenizer.mask_token) for text in texts]
        results: list[list[Suggestion]] = [[] for _ in texts]
        fillable = []
        for i, ids in enumerate(encoded):
            if ids.count(mask_id) == expected[i] > 0 and (tags is None or len(tags[i]) == expected[i]):
                fillable.append(i)
            else:
                log.warning(
                    "masked text too long for %s or masks lost in tokenisation: %r", self.identity, texts[i]
                )
        fillable.sort(key=lambda i: len(encoded[i]))  # similar lengths per batch: less padding
        for start in range(0, len(fillable), batch_size):
            chunk = fillable[start : start + batch_size]
            fills = self._beam_search_chunk(
                [encoded[i] for i in chunk],
                beam_size,
                top_n,
                batch_size,
                None if tags is None else [tags[i] for i in chunk],
                vocabulary,
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
    ) -> list[list[Suggestion]]:
        """Joint left-to-right beam search over a chunk of masked texts.

        Rows are (text, partial fill) pairs, kept grouped by text; each step scores every row at its
        text's next mask, in forward passes of at most ``batch_size`` rows and ``batch_tokens`` tokens.
        The rows' token ids stay on the model's device across steps; only each step's best few scores
        and tokens come back to the host.
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
        k = min(max(beam_size, top_n), len(self.words))  # enough per row for any text's best fills
        row_text = list(range(len(encoded)))
        row_fill: list[tuple[int, ...]] = [() for _ in encoded]
        row_score = torch.zeros(len(encoded))
        results: list[list[Suggestion]] = [[] for _ in encoded]
        per_pass = max(1, min(batch_size, self.batch_tokens // max(1, ids.shape[1])))
        for step in range(max(map(len, masks))):
            positions = torch.tensor([masks[t][step] for t in row_text], device=self.device)
            if vocabulary is not None and tags is not None:
                extra = allowed[torch.tensor([tag_index[t][step] for t in row_text], device=self.device)]
            else:
                extra = None
            top = [
                self._mask_log_probs(
                    ids[b : b + per_pass],
                    attention[b : b + per_pass],
                    positions[b : b + per_pass],
                    None if extra is None else extra[b : b + per_pass],
                ).topk(k)
                for b in range(0, len(row_text), per_pass)
            ]
            scores = row_score.unsqueeze(1) + torch.cat([t.values for t in top]).cpu()
            tokens = torch.cat([t.indices for t in top]).cpu()
            parents: list[int] = []
            next_fill: list[tuple[int, ...]] = []
            next_score: list[float] = []
            first = 0
            for t, group in groupby(row_text):
                end = first + len(list(group))
                last = step == len(masks[t]) - 1
                best = scores[first:end].flatten().topk(min(top_n if last else beam_size, (end - first) * k))
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
                first = end
            if not parents:
                break
            index = torch.tensor(parents, device=self.device)
            ids, attention, positions = ids[index], attention[index], positions[index]
            ids[torch.arange(len(parents), device=self.device), positions] = torch.tensor(
                [f[-1] for f in next_fill], dtype=torch.long, device=self.device
            )
            row_text = [row_text[p] for p in parents]
            row_fill, row_score = next_fill, torch.tensor(next_score)
        return results

    def autocast(self):
        """bf16 (or fp16 where bf16 is not supported) autocast on CUDA unless ``precision`` is fp32;
        nothing on the CPU, whose results stay those of fp32."""
        if self.device.type != "cuda" or self.precision == "fp32":
            return nullcontext()
        if self.precision == "auto":
            dtype = torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        else:
            dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[self.precision]
        return torch.autocast(device_type="cuda", dtype=dtype)

    def _mask_log_probs(
        self,
        ids: torch.Tensor,
        attention: torch.Tensor,
        positions: torch.Tensor,
        extra: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Log-probabilities over the vocabulary at one mask position per row; -inf for non-words (and,
        with ``extra``, -inf where it is: the words a vocabulary filter does not admit). A batch that runs
        out of memory (GPU or CPU) is computed in halves, and the log says so; rows do not depend on each
        other, so the result is the same."""
        try:
            return self._forward_log_probs(ids, attention, positions, extra)
        except (torch.OutOfMemoryError, RuntimeError) as e:
            if len(ids) == 1 or not _out_of_memory(e):
                raise
        log.warning("%s: out of memory on %d rows; computing them in halves", self.identity, len(ids))
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        half = len(ids) // 2
        parts = [slice(0, half), slice(half, len(ids))]
        return torch.cat(
            [
                self._mask_log_probs(ids[s], attention[s], positions[s], None if extra is None else extra[s])
                for s in parts
            ]
        )

    @torch.inference_mode()
    def _forward_log_probs(
        self,
        ids: torch.Tensor,
        attention: torch.Tensor,
        positions: torch.Tensor,
        extra: torch.Tensor | None = None,
    ) -> torch.Tensor:
        started = time.perf_counter()
        ids, attention, positions = ids.to(self.device), attention.to(self.device), positions.to(self.device)
        rows = torch.arange(len(ids), device=self.device)
        with self.autocast():
            if self._head is not None:  # the LM head only at the mask positions, not at every token
                hidden = self.model.base_model(input_ids=ids, attention_mask=attention).last_hidden_state
                logits = self._head(hidden[rows, positions])
            else:
                logits = self.model(input_ids=ids, attention_mask=attention).logits[rows, positions]
        out = logits.float().log_softmax(-1) + (self._disallowed if extra is None else extra)
        self.forward_passes += 1
        self.forward_rows += len(ids)
        self.forward_seconds += time.perf_counter() - started
        return out


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


@dataclass
class FillStats:
    """Counts for a run's closing table. Every proposed candidate is either kept, rejected for the first
    check it failed, or unused (ranked below the fills already kept for its template)."""

    templates: int = 0
    unfillable: int = 0  # templates never sent to the MLM: phrase-level mask, no masks, or unknown seed
    special_token: int = 0  # templates of seeds holding a special token of the MLM (also unfillable)
    proposed: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    unused: int = 0
    kept: int = 0

    def as_dict(self) -> dict[str, int]:
        rejected = {f"rejected_{reason}": self.rejected[reason] for reason in REASONS}
        return {
            "templates": self.templates,
            "unfillable": self.unfillable,
            "special_token": self.special_token,
            "proposed": self.proposed,
            **rejected,
            "unused": self.unused,
            "kept": self.kept,
        }


def fill(
    templates: Iterable[MaskedTemplate],
    cases_by_id: dict[str, TestCase],
    mlm: MaskedLM,
    lexicon: NeutralLexicon,
    requirement: Requirement,
    *,
    fills_per_mask: int | None = 1,
    beam_size: int = 100,
    top_n: int = 60,
    batch_size: int = 64,
    stats: FillStats | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
    vocabulary: VocabularyFilter | None = None,
    first_beam: int | None = FIRST_BEAM,
) -> Iterator[TestCase]:
    """Expand seed cases: fill each template's masks with the MLM and yield the valid fills as cases.

    ``requirement(seed_case, new_text)`` re-checks the seed's capability on the filled text. Counts are
    added to ``stats`` when given. Expansions come in template order, best fill first.

    ``vocabulary`` restricts each mask to the words validation could keep there (``vocabulary.py``).
    With ``fills_per_mask`` set, a multi-mask template is first searched with a beam of ``first_beam``
    (a pass per beam row per mask is what a multi-mask fill costs) and only a template still short of
    its fills after validating those is searched again with ``beam_size``, its candidates already
    examined skipped: the search stops once the fills it needs are found. ``first_beam=None`` searches
    with ``beam_size`` at once.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    stats = stats if stats is not None else FillStats()
    kept_texts: dict[str, set[str]] = {}  # across chunks, so duplicates are seen run-wide
    widths = [beam_size]
    if fills_per_mask is not None and first_beam is not None and first_beam < beam_size:
        widths = [first_beam, beam_size]
    iterator = iter(templates)
    while chunk := list(islice(iterator, _TEMPLATES_PER_CHUNK)):
        stats.templates += len(chunk)
        usable = [t for t in chunk if _fillable(t, cases_by_id)]
        special = [t for t in usable if mlm.has_special_token(t.parse.text)]
        if special:
            log.warning(
                "%d template(s) of seeds holding a special token of %s skipped", len(special), mlm.identity
            )
            usable = [t for t in usable if not mlm.has_special_token(t.parse.text)]
            stats.special_token += len(special)
        stats.unfillable += len(chunk) - len(usable)
        wanted = fills_per_mask or top_n
        kept: list[list[TestCase]] = [[] for _ in usable]
        seen: list[set[tuple[str, ...]]] = [set() for _ in usable]
        todo = list(range(len(usable)))
        for round_, width in enumerate(widths):
            if round_ > 0:  # a wider beam changes nothing for a single mask
                todo = [i for i in todo if len(kept[i]) < wanted and len(usable[i].masks) > 1]
            if not todo:
                break
            group = [usable[i] for i in todo]
            found = mlm.suggest(group, width, top_n, batch_size=batch_size, vocabulary=vocabulary)
            fresh = [[s for s in fills if s[0] not in seen[i]] for i, fills in zip(todo, found)]
            for i, fills in zip(todo, fresh):
                seen[i].update(words for words, _ in fills)
            more = _validate_grouped(
                group, fresh, cases_by_id, lexicon, requirement, [wanted - len(kept[i]) for i in todo],
                stats=stats, kept_texts=kept_texts, fluency=fluency, context=context,
            )  # fmt: skip
            for i, cases in zip(todo, more):
                kept[i].extend(cases)
        yield from (case for cases in kept for case in cases)


def _fillable(template: MaskedTemplate, cases_by_id: dict[str, TestCase]) -> bool:
    case = cases_by_id.get(template.case_id)
    if case is None:
        log.warning("template %s: seed case %s unknown; skipped", template.id, template.case_id)
        return False
    if template.parse.text != case.text:
        raise ValueError(f"template {template.id}: parsed text differs from the text of case {case.id}")
    return bool(template.masks) and set(template.tags) <= WORD_TAGS


@dataclass(frozen=True, slots=True)
class _Candidate:
    template: int  # index into the templates being validated
    words: tuple[str, ...]
    score: float
    text: str
    starts: tuple[int, ...]
    lower: tuple[int, ...] = ()  # seed tokens lower-cased by ``recase``


def validate(
    templates: Sequence[MaskedTemplate],
    suggestions: Sequence[Sequence[Suggestion]],
    cases_by_id: dict[str, TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    *,
    fills_per_mask: int | None = 1,
    stats: FillStats | None = None,
    kept_texts: dict[str, set[str]] | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
) -> list[TestCase]:
    """The valid fills of each template (``suggestions[i]`` for ``templates[i]``, best first) as cases.

    Candidates are examined best first in waves (2, 4, 8, ... times ``fills_per_mask`` per template
    still short of it), each wave tagged (and fluency-scored) in one batch, so a template that finds its
    fill early costs little. ``kept_texts`` (seed id -> texts kept) is updated in place, to drop
    duplicates across calls.
    """
    if fills_per_mask is not None and fills_per_mask < 1:
        raise ValueError("fills_per_mask must be at least 1 (or None for all valid fills)")
    wanted = fills_per_mask or max(map(len, suggestions), default=0)
    kept = _validate_grouped(
        templates, suggestions, cases_by_id, lexicon, requirement, [wanted] * len(templates),
        stats=stats, kept_texts=kept_texts, fluency=fluency, context=context,
    )  # fmt: skip
    return [case for cases in kept for case in cases]


def _validate_grouped(
    templates: Sequence[MaskedTemplate],
    suggestions: Sequence[Sequence[Suggestion]],
    cases_by_id: dict[str, TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    room: Sequence[int],
    *,
    stats: FillStats | None = None,
    kept_texts: dict[str, set[str]] | None = None,
    fluency: Fluency | None = None,
    context: FunctionPairs | None = None,
) -> list[list[TestCase]]:
    """``validate`` with the fills still wanted per template (``room``), kept fills per template."""
    stats = stats if stats is not None else FillStats()
    kept_texts = kept_texts if kept_texts is not None else {}
    wanted = max(room, default=0)
    seeds = [cases_by_id[t.case_id] for t in templates]
    kept: list[list[TestCase]] = [[] for _ in templates]
    examined = [0] * len(templates)
    pending = [i for i, fills in enumerate(suggestions) if fills and room[i] > 0]
    stats.proposed += sum(map(len, suggestions))
    window = 2 * wanted  # the tagger works sentence by sentence: small first waves waste least
    seed_tags: dict[str, list] = {}
    disfluent: Counter[int] = Counter()  # fluency rejections per template
    while pending:
        _tag_seeds([templates[i].parse for i in pending], seed_tags)
        wave = [
            _candidate(i, templates[i], words, score, seed_tags[templates[i].parse.text])
            for i in pending
            for words, score in suggestions[i][examined[i] : examined[i] + window]
        ]
        verdicts = _checks(wave, templates, seeds, lexicon, requirement, kept_texts, seed_tags, context)
        scores: dict[int, float] = {}
        if fluency is not None:
            left = {i: room[i] - len(kept[i]) for i in pending}
            _check_fluency(wave, verdicts, templates, seeds, left, fluency, scores, disfluent)
        halted: set[int] = set()  # templates that reached a candidate not scored yet: next wave
        for n, c in enumerate(wave):
            template, seed = templates[c.template], seeds[c.template]
            if len(kept[c.template]) >= room[c.template] or c.template in halted:
                continue
            # a text kept earlier in this wave is a duplicate too
            verdict = "duplicate" if c.text in kept_texts.get(seed.id, ()) else verdicts[n]
            if verdict is None and fluency is not None and n not in scores:
                halted.add(c.template)
                continue
            examined[c.template] += 1
            if verdict is not None:
                stats.rejected[verdict] += 1
                continue
            extra = {}
            if fluency is not None:
                extra["fluency"] = {
                    "pll_delta": scores[n],
                    "window": fluency.scorer.window,
                    "threshold": fluency.threshold,
                }
            kept_texts.setdefault(seed.id, set()).add(c.text)
            kept[c.template].append(_expansion(template, seed, c, extra))
            stats.kept += 1
        pending = [
            i
            for i in pending
            if len(kept[i]) < room[i] and examined[i] < len(suggestions[i]) and disfluent[i] < FLUENCY_TRIES
        ]
        window *= 2
    stats.unused += sum(len(fills) - n for fills, n in zip(suggestions, examined))
    return kept


def _check_fluency(
    wave: Sequence[_Candidate],
    verdicts: list[str | None],
    templates: Sequence[MaskedTemplate],
    seeds: Sequence[TestCase],
    room: dict[int, int],
    fluency: Fluency,
    scores: dict[int, float],
    disfluent: Counter[int],
) -> None:
    """The fluency check of the candidates that passed the others, best first and only as many per
    template as it still has ``room`` for: a candidate that fails lets the next one be scored, in batched
    rounds, so candidates ranked after a template's kept fills are never scored, nor any after its
    ``FLUENCY_TRIES``-th rejection. Sets ``scores``, marks failures in ``verdicts`` and counts them per
    template in ``disfluent``."""
    passing = [n for n, verdict in enumerate(verdicts) if verdict is None]
    while True:
        accepted: Counter[int] = Counter()
        take = []
        for n in passing:  # wave order is score order within a template
            t = wave[n].template
            if n in scores:
                accepted[t] += verdicts[n] is None
            elif accepted[t] < room[t] and disfluent[t] < FLUENCY_TRIES:
                take.append(n)
                accepted[t] += 1  # counted as if it passed, until scored
        if not take:
            return
        pairs = [(wave[n].text, seeds[wave[n].template].text) for n in take]
        deltas = fluency.scorer.deltas(pairs, [_fill_log_prob(wave[n], templates) for n in take])
        for n, delta in zip(take, deltas):
            scores[n] = delta
            if not fluency.keeps(delta):
                verdicts[n] = "fluency"
                disfluent[wave[n].template] += 1


def _fill_log_prob(candidate: _Candidate, templates: Sequence[MaskedTemplate]) -> Known | None:
    """A one-mask candidate's template and score: the fill search's log-probability of its word at the
    mask, which the fluency scorer takes for that token's PLL instead of computing it again."""
    template = templates[candidate.template]
    return (template, candidate.score) if len(template.masks) == 1 else None


def _checks(
    wave: Sequence[_Candidate],
    templates: Sequence[MaskedTemplate],
    seeds: Sequence[TestCase],
    lexicon: NeutralLexicon,
    requirement: Requirement,
    kept_texts: dict[str, set[str]],
    seed_tags: dict[str, list],
    context: FunctionPairs | None = None,
) -> list[str | None]:
    """For each candidate, the first check it fails (None: it passes all but fluency). Only candidates
    still passing are tagged, in one batch, and only those passing the tags meet the requirement check."""
    verdicts: list[str | None] = []
    for c in wave:
        template, seed = templates[c.template], seeds[c.template]
        if c.text == seed.text or c.text in kept_texts.get(seed.id, ()):
            verdicts.append("duplicate")
        elif not all(
            w.lower() not in NEGATIONS and lexicon.is_neutral(w.lower(), coarse_pos(tag))
            for w, tag in zip(c.words, template.tags)
        ):
            verdicts.append("polarity")
        elif _doubled(template, c.words):
            verdicts.append("doubled")
        else:
            verdicts.append(None)
    to_tag = [n for n, verdict in enumerate(verdicts) if verdict is None]
    for n, tags in zip(to_tag, _inserted_tags([wave[n] for n in to_tag], templates, seed_tags)):
        c = wave[n]
        template = templates[c.template]
        if tags != template.tags or any(
            (tag in PROPER_TAGS and not w[:1].isupper()) or (proper_noun(w) and tag not in PROPER_TAGS)
            for w, tag in zip(c.words, template.tags)
        ):
            verdicts[n] = "pos"
        elif context is not None and not all(
            context.allows(tag, left, word.lower(), right)
            for (left, word, right), tag in zip(_neighbours(template, c.words), template.tags)
        ):
            verdicts[n] = "context"
        elif not requirement(seeds[c.template], c.text):
            verdicts[n] = "requirement"
    return verdicts


_QUOTES = ('"', "``", "'", "`")


def recase(
    template: MaskedTemplate, words: Sequence[str], sentences: Sequence[tuple[int, int, list[str]]]
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Fix *casing*: ``words`` re-cased for where they go, and the seed tokens to lower-case.

    An uncased masked LM suggests lower-case words: a lone "i" becomes "I", a known proper noun ("york",
    ``tagging.proper_noun``) for a proper-noun mask is capitalised, and the first word inserted before a
    capitalised sentence-initial token (the first of a sentence, or the first after an opening quote) is
    capitalised while that token is lower-cased, unless it is "I", an acronym or a proper noun
    (``_keeps_capital``; ``sentences``: token range and tags per sentence of the seed). Returns the words
    and the token indices to lower-case (``MaskedTemplate.render``'s ``lower``).
    """
    parse = template.parse
    tokens = parse.tokens
    starts = {a for a, _, _ in sentences}
    proper = {a + k for a, _, tags in sentences for k, tag in enumerate(tags) if tag in PROPER_TAGS}
    out: list[str] = []
    lower: list[int] = []
    previous = None
    for (index, tag), word in zip(template.masks, words):
        if word == "i":
            word = "I"
        elif tag in PROPER_TAGS and proper_noun(word):
            word = word[:1].upper() + word[1:]
        if index != previous and index < len(tokens) and _sentence_initial(parse, index, starts):
            token = tokens[index]
            if token[:1].isupper():
                word = word[:1].upper() + word[1:]
                if not _keeps_capital(tokens, index, proper):
                    lower.append(index)
        previous = index
        out.append(word)
    return tuple(out), tuple(dict.fromkeys(lower))


def _keeps_capital(tokens: Sequence[str], index: int, proper: set[int]) -> bool:
    """Whether a capitalised sentence-initial token is written so anywhere: "I", an acronym, a word the
    tagger's dictionary knows as a proper noun ("Paris"), or a token tagged as one that starts a name
    ("Samuel Beckett", "Jacquot's"). The tagger calls most capitalised sentence-initial words proper
    nouns ("Mild, meandering ..."), so its tag alone does not decide."""
    token = tokens[index]
    if token == "I" or (len(token) > 1 and token.isupper()) or known_proper_noun(token):
        return True
    following = tokens[index + 1] if index + 1 < len(tokens) else ""
    return index in proper and (following[:1].isupper() or following in ("'s", "’s"))


def _sentence_initial(parse: Parse, index: int, starts: set[int]) -> bool:
    if index in starts:
        return True
    return parse.tokens[index - 1] in _QUOTES and opens(parse.text, parse.offsets[index - 1][1])


def _neighbours(template: MaskedTemplate, words: Sequence[str]) -> list[tuple[str | None, str, str | None]]:
    """Each inserted word, lower-cased, with the lower-cased tokens left and right of it in the filled
    text (None at an edge)."""
    filled = [token.lower() for token in template.parse.tokens]
    positions = []
    for n, ((index, _), word) in enumerate(zip(template.masks, words)):
        filled.insert(index + n, word.lower())
        positions.append(index + n)
    return [
        (filled[p - 1] if p > 0 else None, filled[p], filled[p + 1] if p + 1 < len(filled) else None)
        for p in positions
    ]


def _doubled(template: MaskedTemplate, words: Sequence[str]) -> bool:
    """Fix *doubled words*: whether an inserted word repeats the word next to it ("kind kind")."""
    return any(word in (left, right) for left, word, right in _neighbours(template, words))


def _candidate(
    i: int, template: MaskedTemplate, words: Sequence[str], score: float, sentences: list
) -> _Candidate:
    recased, lower = recase(template, words, sentences)
    return _Candidate(i, recased, score, *template.render(recased, lower), lower)


def _tag_seeds(parses: Iterable[Parse], seed_tags: dict[str, list]) -> None:
    """Tag, once and in one batch, the seed texts not in ``seed_tags`` (text -> per sentence: token range
    and tags)."""
    by_text = {parse.text: parse for parse in parses if parse.text not in seed_tags}
    new = sorted(by_text)
    sentences = {text: tokenize(text).sentences for text in new}
    tagged = iter(pos_tag_sents([by_text[text].tokens[a:b] for text in new for a, b in sentences[text]]))
    for text in new:
        seed_tags[text] = [(a, b, next(tagged)) for a, b in sentences[text]]


def _inserted_tags(
    candidates: Sequence[_Candidate], templates: Sequence[MaskedTemplate], seed_tags: dict[str, list]
) -> list[tuple[str | None, ...]]:
    """The Penn tag of each inserted word, tagged in its sentence of the filled text.

    The filled sentence is the seed's tokens with the words inserted (and the tokens ``recase`` lowered),
    so only the stretch around the insertions is tagged again (``tagging.pos_tag_from``: exactly what
    tagging the whole sentence gives); the seeds' own tags come from ``seed_tags`` (``_tag_seeds``).
    None where the tokenizer would not keep an inserted word whole ("cannot").
    """
    out: list[tuple[str | None, ...]] = []
    for c in candidates:
        template = templates[c.template]
        if not all(is_single_token(word) for word in c.words):
            out.append((None,) * len(c.words))
            continue
        first = template.masks[0][0]
        ranges = seed_tags[template.parse.text]
        a, b, tags = next((r for r in ranges if r[0] <= first < r[1]), ranges[-1])
        words = list(template.parse.tokens[a:b])
        for index in c.lower:
            if a <= index < b:
                words[index - a] = words[index - a][:1].lower() + words[index - a][1:]
        positions = []
        for (index, _), word in zip(template.masks, c.words):
            positions.append(index - a + len(positions))
            words.insert(positions[-1], word)
        start = max(0, positions[0] - 2)
        new_tags = pos_tag_from(words, tags[:start], positions[-1] + 1)
        out.append(tuple(new_tags[p - start] for p in positions))
    return out


def _expansion(
    template: MaskedTemplate, seed: TestCase, c: _Candidate, extra: dict[str, Any] | None = None
) -> TestCase:
    """The expanded case: the seed with the inserted words, its editable spans moved past them."""
    offsets = template.parse.offsets
    # Where each word went in the seed text, and how many characters it added (the word and one space).
    insertions = [
        (offsets[index][0] if index < len(offsets) else offsets[-1][1], len(word) + 1)
        for (index, _), word in zip(template.masks, c.words)
    ]
    # seed tokens lower-cased by ``recase``: their offsets in the expansion's text
    lowered = [
        offsets[index][0] + sum(size for at, size in insertions if at <= offsets[index][0])
        for index in c.lower
    ]
    editable = tuple(
        (
            start + sum(size for at, size in insertions if at < start),
            end + sum(size for at, size in insertions if at <= end),
        )
        for start, end in seed.editable
    )
    return TestCase(
        id=f"{seed.id}-x{content_hash(c.text)[:10]}",
        capability=seed.capability,
        kind=EXPANSION,
        inputs=c.text,
        expected=seed.expected,
        test_type=seed.test_type,
        label=seed.label,
        seed_id=seed.id,
        editable=editable,
        provenance={
            **seed.provenance,
            "production": {"lhs": template.lhs, "from": list(template.rhs_from), "to": list(template.rhs_to)},
            "inserted": [
                {"word": word, "tag": tag, "offset": start}
                for word, tag, start in zip(c.words, template.tags, c.starts)
            ],
            "mlm_score": c.score,
            "template_score": template.score,
            "template_id": template.id,
            **({"lowered": lowered} if lowered else {}),
            **(extra or {}),
        },
    )
