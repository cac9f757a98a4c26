"""The slot rule: a mask is given up when the masked LM puts little probability on words of its tag there.

A context-free production inserts a word of some tag wherever the rule's right-hand side allows it, and
the sentence often cannot take such a word at that point ("but [MASK:IN] it is unwavering"). The fill
search already has the masked LM's distribution over the whole vocabulary at each mask, and the vocabulary
filter (``vocabulary.py``) the words admitted for the mask's tag; the probability mass on those words,
the *slot mass*, says whether the position takes a word of the tag at all: "it is [MASK:JJ] unwavering"
puts much of it on adjectives, a preposition before "it is" little on prepositions. It costs no forward
pass: it is a log-sum-exp of the row the search scores anyway.

Inside the beam search (``MaskedLM.suggest(..., slot=SlotRule(p))``) a row whose slot mass at its next mask
is below ``p`` is given up with every fill it would have led to, before the later masks are scored: a
template whose first mask cannot take its tag costs one row instead of a beam of rows per mask. A
template left without any fill this way is counted as rejected for ``slot`` (``fill: slot`` in the
manifest). On the held-out half of ``benchmarks/validity_labels.jsonl`` the lowest slot mass along a
fill tells grammatical expansions from the others better than any other check there
(``bench_validity.py --sample-only``); the threshold was chosen on the tuning half.
"""

from __future__ import annotations

import math

import torch

# Chosen on the tuning half of benchmarks/validity_labels.jsonl (the best F1 for grammatical expansions over
# a grid of masses, bench_validity.py --sample-only); the held-out half only reports it.
DEFAULT_THRESHOLD = 0.08


class SlotRule:
    """Give up a mask where the masked LM's probability of any admitted word is below ``threshold``."""

    def __init__(self, threshold: float):
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"slot threshold must be a probability in (0, 1], not {threshold!r}")
        self.threshold = threshold
        self.log_threshold = math.log(threshold)
        self.fingerprint = f"slot-rule-1:{threshold!r}"  # in the suggestion cache key

    @staticmethod
    def log_mass(log_probs: torch.Tensor) -> torch.Tensor:
        """Each row's slot mass (log): ``log_probs`` are the masked LM's log-probabilities over its whole
        vocabulary (normalised over all of it), -inf where the vocabulary filter does not admit a word."""
        return log_probs.logsumexp(-1)

    def keeps(self, log_probs: torch.Tensor) -> torch.Tensor:
        """Which rows' masks can take their tag (a bool per row of ``log_probs``)."""
        return self.log_mass(log_probs) >= self.log_threshold
