"""``suggest`` fills a template's other placeholders from their lexicons before asking the masked LM, as
CheckList's editor does."""

from __future__ import annotations

import pytest
import torch
from conftest import tiny_bert

from autocheck.author.suggest import suggest
from autocheck.expand.mlm import MaskedLM
from autocheck.store import InputError

torch.set_num_threads(1)
VOCAB = ["the", "flight", "food", "was", "i", "really", "like", "love", "hate", "good", "bad", "great", "."]


def test_suggest_fills_the_other_placeholders_and_averages_over_samples(tmp_path):
    """CheckList's editor: "I {mask} {number} flights." is asked with numbers, never with the placeholder,
    and each fill scored by its mean over the fillings (a masked LM that knows the numbers, so they count)."""
    numbers = [str(i) for i in range(2, 101)]
    mlm = MaskedLM.from_pretrained(tiny_bert(tmp_path / "mlm", "ForMaskedLM", VOCAB + numbers), device="cpu")
    asked = []

    class Recording:
        tokenizer = mlm.tokenizer

        def suggest_texts(self, texts, **kwargs):
            asked.extend(texts)
            return mlm.suggest_texts(texts, **kwargs)

    rows = suggest("I {mask} {number1} or {number2} flights.", Recording(), 4, samples=3, seed=1)
    assert len(asked) == 3 and not any("{" in t for t in asked)
    pairs = [tuple(t.split()[2:5:2]) for t in asked]
    assert len(set(pairs)) == 3 and all(a != b for a, b in pairs)  # numbered placeholders: distinct values
    per_sample = mlm.suggest_texts(asked, beam_size=20, top_n=4)
    assert len({tuple(s for _, s in fills) for fills in per_sample}) > 1  # the fillings matter to the LM
    floors = [min(score for _, score in fills) for fills in per_sample]
    for row in rows:  # each fill's score is its mean over the three fillings
        scores = [dict(fills).get(row.words, floor) for fills, floor in zip(per_sample, floors)]
        assert row.score == pytest.approx(sum(scores) / 3)
    assert [r.score for r in rows] == sorted((r.score for r in rows), reverse=True)
    assert rows[0].text.startswith("I ") and "{" not in rows[0].text
    with pytest.raises(InputError, match="no lexicon 'colour'"):
        suggest("The {colour} car is {mask}.", mlm)
