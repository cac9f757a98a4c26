"""Simple baseline models for trying suites without a trained model (``--model autocheck.baselines:NAME``).

``word_overlap_nli``: the share of the hypothesis's words that occur in the premise; at least 0.8 reads as
entailment, at least 0.5 as neutral, less as contradiction. It knows no negation, antonyms or word order,
so the NLI suite's negation, antonym, spatial and coreference tests fail on it, as they should, and the
conjunction ("and") tests pass.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9']+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def word_overlap_nli(records: list[dict[str, str]]) -> list[list[float]]:
    out = []
    for record in records:
        hypothesis = _words(record["hypothesis"])
        overlap = len(hypothesis & _words(record["premise"])) / max(1, len(hypothesis))
        if overlap >= 0.8:
            out.append([0.8, 0.15, 0.05])
        elif overlap >= 0.5:
            out.append([0.15, 0.7, 0.15])
        else:
            out.append([0.05, 0.15, 0.8])
    return out


# the labels the model loader reads from the function (mypy types no attribute set on a function)
setattr(word_overlap_nli, "labels", ["entailment", "neutral", "contradiction"])  # noqa: B010
