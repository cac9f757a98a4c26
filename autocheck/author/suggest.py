"""Masked-LM suggestions for writing templates, as CheckList's editor gives them: what the masked LM would put
at ``{mask}`` in a sentence, ranked, each with its part of speech in the filled sentence and its polarity in
a lexicon, so a user can pick fill-in lists; optionally only WordNet synonyms or antonyms of a word.

The fills are whole words only, batched and cached (``expand.mlm.MaskedLM.suggest_texts``). Other
placeholders (``{first_name} is {mask}.``) are filled from their lexicons first, as CheckList's editor does:
over ``samples`` seeded fillings, each fill's log-probability averaged over them (a fill missing from a
filling's list counts as that list's lowest score), so no placeholder reaches the masked LM as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..languages.en import words as english
from ..languages.lexicons import load_lexicon
from ..store import InputError
from ..tagging import coarse_pos, pos_tag_sents, tokenize
from .templates import BUILTIN_RANGES

MASK = "{mask}"
WIDE = 500  # candidates looked at when suggestions are restricted to a word's synonyms or antonyms
SAMPLES = 5  # fillings of the other placeholders, as CheckList's editor
_OTHER = re.compile(r"\{(?:(?P<functions>[a-z_]+(?::[a-z_]+)*):)?(?P<key>[a-z_]+?)(?P<number>[0-9]*)\}")


@dataclass(frozen=True, slots=True)
class Suggestion:
    words: tuple[str, ...]  # one per {mask}
    score: float | None  # mean log-probability per mask (None: no masked LM ranked it)
    text: str  # the filled sentence
    tags: tuple[str, ...]  # Penn tag of each word in the filled sentence
    polarity: tuple[str | None, ...]  # each word's polarity in the lexicon (None: unknown to it)


def suggest(
    template: str,
    mlm: Any,
    n: int = 30,
    *,
    lexicon: Any = None,
    synonyms_of: str | None = None,
    antonyms_of: str | None = None,
    samples: int | None = None,
    seed: int = 0,
) -> list[Suggestion]:
    """The ``n`` best fills of the ``{mask}`` placeholders of ``template``, best first; its other
    placeholders filled from their lexicons in ``samples`` seeded ways (default ``SAMPLES``).

    With ``synonyms_of``/``antonyms_of`` the masked LM only ranks WordNet's words: without one (``mlm=None``)
    a one-mask template is filled with each of them, in alphabetical order and unscored. Polarity needs a
    ``lexicon`` (None: unknown)."""
    masks = template.count(MASK)
    if masks == 0:
        raise InputError(f"{template!r}: no {MASK} to fill")
    related = _related(synonyms_of, antonyms_of)
    top = WIDE if related is not None else n
    fillings = _fill_placeholders(template, SAMPLES if samples is None else samples, seed)
    fills: Sequence[tuple[tuple[str, ...], float | None]]
    if mlm is None:
        if related is None or masks != 1:
            raise InputError.hint(
                "{mlm}: needed to fill the template (only a one-mask synonym or antonym list can go without)",
                mlm="mlm=NAME",
            )
        fills = [((word,), None) for word in sorted(related)]
    else:
        texts = [t.replace(MASK, mlm.tokenizer.mask_token) for t in fillings]
        fills = _averaged(mlm.suggest_texts(texts, beam_size=max(top, 20), top_n=top))
    if related is not None:
        fills = [(words, score) for words, score in fills if all(w.lower() in related for w in words)]
    fills = fills[:n]
    template = fillings[0]  # the suggestions are shown in the first filling
    filled = [_fill(template, words) for words, _ in fills]
    tagged = _tags_of_fills(filled)
    out = []
    for (words, score), (text, _), tags in zip(fills, filled, tagged):
        polarity = tuple(
            lexicon.polarity(w.lower(), coarse_pos(t)) if lexicon is not None else None
            for w, t in zip(words, tags)
        )
        out.append(Suggestion(tuple(words), score, text, tags, polarity))
    return out


def _fill_placeholders(template: str, samples: int, seed: int) -> list[str]:
    """``template`` with its placeholders other than ``{mask}`` filled from the shipped lexicons (numbered
    ones with distinct values, functions ``a``/``plural``/``cap`` applied), ``samples`` ways; the template
    itself when it has none."""
    found = [m for m in _OTHER.finditer(template) if m.group() != MASK]
    if not found:
        return [template]
    rng = np.random.default_rng(seed)
    apply = {"a": english.article, "plural": english.plural, "cap": lambda w: w[:1].upper() + w[1:]}
    out = []
    for _ in range(samples):
        chosen: dict[str, str] = {}
        for m in found:
            slot = m["key"] + m["number"]
            if slot in chosen:
                continue
            if m["key"] in BUILTIN_RANGES:
                low, high = BUILTIN_RANGES[m["key"]]
                pool = [str(v) for v in range(low, high + 1)]
            else:
                try:
                    pool = [e.value for e in load_lexicon(m["key"])]
                except InputError:
                    raise InputError(f"{template!r}: no lexicon {m['key']!r} for {m.group()}") from None
            taken = {v for k, v in chosen.items() if k.rstrip("0123456789") == m["key"]}
            chosen[slot] = str(rng.choice([v for v in pool if v not in taken]))
        text = template
        for m in found:
            value = chosen[m["key"] + m["number"]]
            for name in reversed((m["functions"] or "").split(":") if m["functions"] else []):
                if name not in apply:
                    raise InputError(f"{template!r}: suggest cannot apply {name!r} in {m.group()}")
                value = apply[name](value)
            text = text.replace(m.group(), value, 1)
        out.append(text)
    return out


def _averaged(per_sample: list[list[tuple[tuple[str, ...], float]]]) -> list[tuple[tuple[str, ...], float]]:
    """Each fill's mean log-probability over the samples, best first; a fill missing from a sample's list
    counts as that list's lowest score (it ranked below everything listed)."""
    if len(per_sample) == 1:
        return list(per_sample[0])
    floors = [min((score for _, score in fills), default=0.0) for fills in per_sample]
    scores: dict[tuple[str, ...], list[float]] = {tuple(w): [] for fills in per_sample for w, _ in fills}
    for i, fills in enumerate(per_sample):
        listed = {tuple(w): score for w, score in fills}
        for words_ in scores:
            scores[words_].append(listed.get(words_, floors[i]))
    mean = {w: float(np.mean(v)) for w, v in scores.items()}
    return sorted(mean.items(), key=lambda kv: (-kv[1], kv[0]))


def _related(synonyms_of: str | None, antonyms_of: str | None) -> set[str] | None:
    if synonyms_of and antonyms_of:
        raise InputError.hint(
            "give {synonyms} or {antonyms}, not both", synonyms="synonyms_of", antonyms="antonyms_of"
        )
    word = synonyms_of or antonyms_of
    if not word:
        return None
    relate = english.synonyms if synonyms_of else english.antonyms
    related = {w.lower() for pos in ("adj", "verb", "noun", "adv") for w in relate(word, pos)}
    if not related:
        raise InputError(f"WordNet has no {'synonyms' if synonyms_of else 'antonyms'} of {word!r} here")
    return related


def _fill(template: str, words: tuple[str, ...]) -> tuple[str, list[int]]:
    """The filled text and the character offset of each word."""
    pieces = template.split(MASK)
    text, starts = pieces[0], []
    for word, rest in zip(words, pieces[1:]):
        starts.append(len(text))
        text += word + rest
    return text, starts


def _tags_of_fills(filled: list[tuple[str, list[int]]]) -> list[tuple[str, ...]]:
    """The Penn tag of each filled word, tagged in its sentence (one tagger call for all)."""
    tokenized = [tokenize(text) for text, _ in filled]
    sentences = [t.words for t in tokenized]
    tags = pos_tag_sents(sentences)
    out = []
    for t, sentence_tags, (_, starts) in zip(tokenized, tags, filled):
        by_start = {start: tag for (start, _), tag in zip(t.offsets, sentence_tags)}
        out.append(tuple(by_start.get(start, "?") for start in starts))
    return out
