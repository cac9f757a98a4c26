"""Fluency of an expansion against its seed: the masked LM's pseudo-log-likelihood per token.

The pseudo-log-likelihood (PLL, Salazar et al. 2020) of a text is the sum over its tokens of
``log P(token | the text with that token masked)``; divided by the number of tokens it is comparable across
lengths. An expansion is kept only if its PLL per token does not fall more than ``threshold`` below its
seed's: an inserted word the sentence cannot take makes its own token, and usually its neighbours,
improbable. The score uses the same masked LM as the fills (no second model), every (text, position) row is
batched, and scores are cached by (model identity, text) like the suggestions.

Scores are rounded to 4 decimals, so that a score computed in another batch (padding changes the last bits
of a float) gives the same decision and the same bytes in ``cases.jsonl``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..cache import Cache
from ..store import content_hash

if TYPE_CHECKING:
    from .fill import MaskedLM

# Chosen with benchmarks/bench_validity.py on benchmarks/fluency_labels.jsonl (130 hand-labelled
# expansions of the stand-ins): the best F1 for telling grammatical from ungrammatical expansions
# (precision 69 %, recall 85 %; 78 % of the expansions kept). A sentence-level average moves little for
# one word in a long sentence, hence a small number.
DEFAULT_THRESHOLD = 0.15


class FluencyScorer:
    """PLL per token with one masked LM; ``forward_seconds`` counts the model time spent."""

    def __init__(self, mlm: MaskedLM, batch_size: int = 128):
        self.mlm = mlm
        self.batch_size = batch_size
        self.forward_seconds = 0.0
        self.forward_passes = 0
        self.forward_rows = 0

    def scores(self, texts: Sequence[str]) -> list[float]:
        """The PLL per token of each text (cached on disk by model identity and text)."""
        keys = {text: content_hash(self.mlm.identity, "pll", text) for text in texts}
        cache = Cache("fluency")
        try:
            found = cache.get_many(keys.values())
            missing = [text for text in dict.fromkeys(texts) if keys[text] not in found]
            if missing:
                new = {keys[t]: s for t, s in zip(missing, self._compute(missing))}
                cache.put_many(new)
                found.update(new)
        finally:
            cache.close()
        return [found[keys[text]] for text in texts]

    def _compute(self, texts: list[str]) -> list[float]:
        mlm = self.mlm
        tokenizer = mlm.tokenizer
        encoded = tokenizer(texts, truncation=True, max_length=mlm.max_length)["input_ids"]
        special = set(tokenizer.all_special_ids)
        # one row per (text, scored position); rows of similar length batched together
        rows = [(t, p) for t, ids in enumerate(encoded) for p, tok in enumerate(ids) if tok not in special]
        rows.sort(key=lambda r: (len(encoded[r[0]]), r))
        totals = [0.0] * len(texts)
        counts = [0] * len(texts)
        for start in range(0, len(rows), self.batch_size):
            batch = rows[start : start + self.batch_size]
            for (t, _), value in zip(batch, self._log_probs(batch, encoded)):
                totals[t] += value
                counts[t] += 1
        return [round(total / count, 4) if count else 0.0 for total, count in zip(totals, counts)]

    @torch.inference_mode()
    def _log_probs(self, batch: list[tuple[int, int]], encoded: list[list[int]]) -> list[float]:
        mlm = self.mlm
        started = time.perf_counter()
        width = max(len(encoded[t]) for t, _ in batch)
        pad = mlm.tokenizer.pad_token_id or 0
        ids = torch.full((len(batch), width), pad, dtype=torch.long)
        attention = torch.zeros_like(ids)
        for row, (t, _) in enumerate(batch):
            ids[row, : len(encoded[t])] = torch.tensor(encoded[t])
            attention[row, : len(encoded[t])] = 1
        positions = torch.tensor([p for _, p in batch])
        rows = torch.arange(len(batch))
        targets = ids[rows, positions].clone()
        ids[rows, positions] = mlm.tokenizer.mask_token_id
        ids, attention = ids.to(mlm.device), attention.to(mlm.device)
        positions, rows = positions.to(mlm.device), rows.to(mlm.device)
        with mlm.autocast():
            if mlm._head is not None:
                hidden = mlm.model.base_model(input_ids=ids, attention_mask=attention).last_hidden_state
                logits = mlm._head(hidden[rows, positions])
            else:
                logits = mlm.model(input_ids=ids, attention_mask=attention).logits[rows, positions]
        out = logits.float().log_softmax(-1).gather(1, targets.to(mlm.device).unsqueeze(1)).squeeze(1)
        self.forward_passes += 1
        self.forward_rows += len(batch)
        self.forward_seconds += time.perf_counter() - started
        return out.cpu().tolist()


@dataclass(frozen=True, slots=True)
class Fluency:
    """The fluency check of validation: keep an expansion whose PLL per token is at least its seed's
    minus ``threshold``."""

    scorer: FluencyScorer
    threshold: float = DEFAULT_THRESHOLD

    def keeps(self, score: float, seed_score: float) -> bool:
        return round(score - seed_score, 4) >= -self.threshold
