"""Fluency of an expansion against its seed: the masked LM's pseudo-log-likelihood around the insertion.

The pseudo-log-likelihood (PLL, Salazar et al. 2020) of a token is ``log P(token | the text with that
token masked)``. An inserted word the sentence cannot take makes its own token improbable, and usually its
neighbours; tokens further away hardly move. So the score of an expansion is local: the mean PLL of the
inserted tokens and the ``window`` tokens on each side of every insertion, minus the mean PLL of those same
neighbours in the seed (``window`` None: every token of both texts). An expansion is kept when that
difference is at least ``-threshold``. The default window is 0, the inserted tokens alone with nothing
subtracted: on the tuning half of the hand labels it separated grammatical expansions as well as wider
windows and the whole sentence (within the noise of 110 rows) at the fewest rows (README, Fluency filter).

Why local and not the whole sentence (this filter's first version): a sentence mean dilutes one word's
effect by the sentence's length, so one threshold meant different things for short and long seeds, and
scoring every token cost a masked-LM row per token of every candidate (most of the model time of a run).
The local score needs about ``1 + 2 × window`` rows per candidate, and the seed's tokens next to the
insertions; with window 0 only the inserted tokens, and a one-word fill's own token needs none (below).

Tokens are aligned by dropping the inserted ones: the candidate's other tokens are the seed's, in order
(compared lower-cased, so a re-cased sentence start still matches). Where they are not (a tokenizer that
splits a re-cased word differently), every token of both texts is scored instead.

The same masked LM as the fills is used (no second model), every (text, position) row is batched, and
differences are cached by (model identity, window, text, seed) like the suggestions. They are rounded to
4 decimals, so that a score computed in another batch (padding changes the last bits of a float) gives
the same decision and the same bytes in ``cases.jsonl``. A one-word fill's own token needs no row: its
PLL is the log-probability the fill search gave that word at the template's mask, from the same input
(``known``, checked token by token), so that row is never computed twice (a fifth of the rows).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest
from statistics import fmean
from typing import TYPE_CHECKING

import torch

from ..cache import Cache
from ..config import GenerateConfig
from ..memory import blocks_reused
from ..store import content_hash

if TYPE_CHECKING:
    from ..records import MaskedTemplate
    from .mlm import MaskedLM

# Chosen with benchmarks/bench_validity.py --sample-only on the tuning half of validity_labels.jsonl
# (hand-labelled expansions of the stand-ins): the window (config.py) by AUC and row cost, the threshold for
# it by Youden's J; the README quotes them with their held-out figures.
DEFAULT_WINDOW = GenerateConfig.fluency_window
DEFAULT_THRESHOLD = 5.84
# a one-mask fill's template and the fill search's log-probability of its word at the mask
Known = tuple["MaskedTemplate", float]
_SEEDS_KEPT = 1024  # seeds' token scores kept in memory (a bounded LRU: memory stays flat over a run)


class FluencyScorer:
    """Local PLL differences with one masked LM; ``forward_seconds`` counts the model time spent."""

    def __init__(
        self,
        mlm: MaskedLM,
        batch_size: int = 128,
        window: int | None = DEFAULT_WINDOW,
        floor: float | None = None,
    ):
        self.mlm = mlm
        self.batch_size = batch_size
        self.window = window  # tokens each side of an insertion; None: every token (the whole texts)
        self.floor = floor  # the filter's -threshold: see ``deltas``
        self.forward_seconds = 0.0
        self.forward_passes = 0
        self.forward_rows = 0
        self._seed_scores: OrderedDict[str, dict[int, float]] = OrderedDict()  # seed -> position -> PLL

    def deltas(
        self,
        pairs: Sequence[tuple[str, str]],
        known: Sequence[Known | None] | None = None,
    ) -> list[float]:
        """For each ``(text, seed)``, ``text`` being ``seed`` with words inserted: the mean PLL of the
        inserted tokens and their neighbours minus the neighbours' mean PLL in the seed (cached on disk).
        ``known[i]``, when given, is ``(template, log-probability)`` of a one-mask fill: its masked
        template and the log-probability the fill search gave its word there, which is the PLL of the
        inserted token when that word is one token and the texts agree on every other token.

        With the scorer's ``floor`` (the filter's ``-threshold``; None: every delta exact), a pair whose
        difference is certainly below it is given up as soon as that is certain, and an upper bound below
        the floor is returned for it instead (not cached): a PLL is a log-probability, never above 0, so
        rows not computed yet can only lower the mean. The decision ``delta >= floor`` is the same as with
        every row computed; about half the candidates the filter rejects are told so this way, from the
        fill search's own log-probability and one or two rows (README, Performance)."""
        fills = list(known) if known is not None else [None] * len(pairs)
        keys = [self._key(pair, fill) for pair, fill in zip(pairs, fills)]
        with Cache("fluency") as cache:
            found = cache.get_many(keys)
            missing = {key: (pair, fill) for key, pair, fill in zip(keys, pairs, fills) if key not in found}
            if missing:
                queries = list(missing.values())
                computed = self._compute([q[0] for q in queries], [q[1] for q in queries], self.floor)
                new = dict(zip(missing, computed))
                cache.put_many({key: value for key, (value, exact) in new.items() if exact})
                found.update({key: value for key, (value, _) in new.items()})
        return [found[key] for key in keys]

    def _key(self, pair: tuple[str, str], fill: Known | None) -> str:
        """A delta's cache key: the pair, and the known log-probability it was computed with, if any."""
        extra = () if fill is None else (self.mlm.masked_text(fill[0]), repr(fill[1]))
        return content_hash(self.mlm.cache_identity, "pll-local", str(self.window), *pair, *extra)

    def _compute(
        self, pairs: list[tuple[str, str]], known: Sequence[Known | None] = (), floor: float | None = None
    ) -> list[tuple[float, bool]]:
        """``(delta, exact)`` per pair: ``exact`` False for a pair given up below ``floor`` (``deltas``)."""
        tokenizer = self.mlm.tokenizer
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        encoded = tokenizer(texts, truncation=True, max_length=self.mlm.max_length)["input_ids"]
        special = set(tokenizer.all_special_ids) - {tokenizer.unk_token_id}  # an unknown word is scored too
        index = {text: i for i, text in enumerate(texts)}
        positions = [[p for p, tok in enumerate(ids) if tok not in special] for ids in encoded]
        lowered = [[w.lower() for w in tokenizer.convert_ids_to_tokens(ids)] for ids in encoded]

        # (candidate positions scored, seed positions compared, {position: PLL the fill search gave}) per
        # pair; the scored positions in the order they are computed: inserted tokens first (the ones an
        # implausible insertion makes improbable), then their neighbours
        plans: list[tuple[list[int], list[int], dict[int, float]]] = []
        for (text, seed), fill in zip_longest(pairs, known):
            t, s = index[text], index[seed]
            inserted, kept = _align(positions[t], positions[s], lowered[t], lowered[s])
            if inserted is None:  # not alignable: the whole texts
                plans.append((positions[t], positions[s], {}))
                continue
            if self.window is None:
                neighbours = [p for p in positions[t] if p in kept]
            else:
                near = {q for p in inserted for q in range(p - self.window, p + self.window + 1)}
                neighbours = [p for p in positions[t] if p in near and p in kept]
            own = {}
            if fill is not None and len(inserted) == 1 and self._fill_input(fill[0], encoded[t], inserted[0]):
                own[inserted[0]] = fill[1]
            plans.append((inserted + neighbours, [kept[p] for p in neighbours], own))

        # a seed's token scores are kept (bounded) and only those its candidates compare with computed
        seed_scores = {seed: self._seed_scores.setdefault(seed, {}) for _, seed in pairs}
        for seed in seed_scores:
            self._seed_scores.move_to_end(seed)
        while len(self._seed_scores) > _SEEDS_KEPT:
            self._seed_scores.popitem(last=False)
        wanted = {(index[seed], p) for (_, seed), (_, compared, _) in zip(pairs, plans) for p in compared}
        rows = sorted((s, p) for s, p in wanted if p not in seed_scores[texts[s]])
        for (s, p), value in zip(rows, self._rows(rows, encoded)):
            seed_scores[texts[s]].setdefault(p, value)
        before = [
            fmean(seed_scores[seed][p] for p in compared) if compared else 0.0
            for (_, seed), (_, compared, _) in zip(pairs, plans)
        ]

        # the candidates' rows: all at once without a floor; with one, a round at a time (one more row per
        # pair still open), a pair closed once its upper bound falls below the floor
        values: dict[tuple[int, int], float] = {}
        todo = [[p for p in scored if p not in own] for scored, _, own in plans]
        given_up: dict[int, float] = {}
        while True:
            rows = []
            for i, ((text, _), (scored, _, own)) in enumerate(zip(pairs, plans)):
                if not todo[i] or i in given_up:
                    continue
                if floor is not None:
                    done = [p for p in scored if p not in todo[i]]
                    bound = sum(own[p] if p in own else values[index[text], p] for p in done) / len(scored)
                    bound -= before[i]
                    # a margin for the rounding of the exact delta to 4 decimals and the last bits of sums
                    if bound < floor - 1e-4:
                        given_up[i] = round(bound, 4)
                        continue
                take, todo[i] = (todo[i], []) if floor is None else (todo[i][:1], todo[i][1:])
                rows += [(index[text], p) for p in take if (index[text], p) not in values]
            if not rows:
                break
            rows = list(dict.fromkeys(rows))
            values.update(zip(rows, self._rows(rows, encoded)))

        out = []
        for i, ((text, _), (scored, _, own)) in enumerate(zip(pairs, plans)):
            if i in given_up:
                out.append((given_up[i], False))
                continue
            # summed in position order, as ever: the same float to the last bit
            pll = [own[p] if p in own else values[index[text], p] for p in sorted(scored)]
            after = fmean(pll) if pll else 0.0
            out.append((round(after - before[i], 4), True))
        return out

    def _fill_input(self, template: MaskedTemplate, ids: list[int], position: int) -> bool:
        """Whether ``ids`` with ``position`` masked is ``template`` with its mask: the input the fill search
        scored the word at ``position`` with."""
        tokenizer = self.mlm.tokenizer
        masked = [*ids[:position], tokenizer.mask_token_id, *ids[position + 1 :]]
        text = self.mlm.masked_text(template)
        return tokenizer(text, truncation=True, max_length=self.mlm.max_length)["input_ids"] == masked

    def _rows(self, rows: list[tuple[int, int]], encoded: list[list[int]]) -> list[float]:
        """``log P(token | text with it masked)`` for each (text, position) row; rows of similar length
        are batched together, at most ``batch_size`` rows and the masked LM's ``batch_tokens`` tokens a
        pass (memory follows the padded tokens, not the row count)."""
        order = sorted(range(len(rows)), key=lambda r: (len(encoded[rows[r][0]]), rows[r]))
        out = [0.0] * len(rows)
        start = 0
        with blocks_reused():  # passes of similar shapes: each reuses the pages the previous one freed
            while start < len(order):
                end = min(start + self.batch_size, len(order))
                width = len(encoded[rows[order[end - 1]][0]])  # the batch's longest (sorted by length)
                end = min(end, start + max(1, self.mlm.batch_tokens // max(1, width)))
                batch = order[start:end]
                for r, value in zip(batch, self._log_probs([rows[r] for r in batch], encoded)):
                    out[r] = value
                start = end
        return out

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
        log_probs = mlm.log_probs_at(ids, attention, positions)
        out = log_probs.gather(1, targets.to(log_probs.device).unsqueeze(1)).squeeze(1)
        self.forward_passes += 1
        self.forward_rows += len(batch)
        self.forward_seconds += time.perf_counter() - started
        return out.cpu().tolist()


@dataclass(frozen=True, slots=True)
class Fluency:
    """The fluency check of validation: keep an expansion whose local PLL difference (``FluencyScorer``)
    is at least ``-threshold``."""

    scorer: FluencyScorer
    threshold: float = DEFAULT_THRESHOLD

    def keeps(self, delta: float) -> bool:
        return delta >= -self.threshold


def _align(text_positions, seed_positions, text_tokens, seed_tokens):
    """``(inserted positions, {kept position: seed position})`` of a text that is its seed with tokens
    inserted, matching tokens left to right; ``(None, None)`` when the seed's tokens are not all found."""
    inserted, kept, j = [], {}, 0
    for p in text_positions:
        if j < len(seed_positions) and text_tokens[p] == seed_tokens[seed_positions[j]]:
            kept[p] = seed_positions[j]
            j += 1
        else:
            inserted.append(p)
    return (inserted, kept) if j == len(seed_positions) else (None, None)
