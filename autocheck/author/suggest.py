"""Masked-LM suggestions for writing templates, as CheckList's editor gives them: what the masked LM would put
at ``{mask}`` in a sentence, ranked, each with its part of speech in the filled sentence and its polarity in
a lexicon, so a user can pick fill-in lists; optionally only WordNet synonyms or antonyms of a word.

The fills are whole words only, batched and cached (``expand.fill.MaskedLM.suggest_texts``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import InputError
from ..tagging import coarse_pos, pos_tag_sents, tokenize

MASK = "{mask}"
WIDE = 500  # candidates looked at when suggestions are restricted to a word's synonyms or antonyms


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
) -> list[Suggestion]:
    """The ``n`` best fills of the ``{mask}`` placeholders of ``template``, best first.

    With ``synonyms_of``/``antonyms_of`` the masked LM only ranks WordNet's words: without one (``mlm=None``)
    a one-mask template is filled with each of them, in alphabetical order and unscored. Polarity needs a
    ``lexicon`` (None: unknown)."""
    masks = template.count(MASK)
    if masks == 0:
        raise InputError(f"{template!r}: no {MASK} to fill")
    related = _related(synonyms_of, antonyms_of)
    top = WIDE if related is not None else n
    fills: list[tuple[Any, float | None]]
    if mlm is None:
        if related is None or masks != 1:
            raise InputError.hint(
                "{mlm}: needed to fill the template (only a one-mask synonym or antonym list can go without)",
                mlm="mlm=NAME",
            )
        fills = [((word,), None) for word in sorted(related)]
    else:
        text = template.replace(MASK, mlm.tokenizer.mask_token)
        fills = mlm.suggest_texts([text], beam_size=max(top, 20), top_n=top)[0]
    if related is not None:
        fills = [(words, score) for words, score in fills if all(w.lower() in related for w in words)]
    fills = fills[:n]
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


def _related(synonyms_of: str | None, antonyms_of: str | None) -> set[str] | None:
    if synonyms_of and antonyms_of:
        raise InputError.hint(
            "give {synonyms} or {antonyms}, not both", synonyms="synonyms_of", antonyms="antonyms_of"
        )
    word = synonyms_of or antonyms_of
    if not word:
        return None
    from . import words as wordnet

    relate = wordnet.synonyms if synonyms_of else wordnet.antonyms
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
