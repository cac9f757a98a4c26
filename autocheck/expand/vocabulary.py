"""Constrained fill vocabulary: at each mask, only the whole words validation could keep there.

Validation rejects an inserted word that the lexicon does not call neutral, a negation, a word the
tokenizer splits, and a word whose tag in the filled sentence is not its mask's tag. The first three depend
on the word and the mask's tag alone, so they can be decided before the masked LM scores anything; the
tag in context cannot, but a word the tagger's dictionary knows unambiguously (``the`` is ``DT``) always
gets that tag, and a word the reference treebank has seen only with other tags is unlikely to get the
mask's. So for each mask tag the vocabulary is restricted to whole words

- that are neutral for the tag's coarse part of speech and not a negation (exactly validation's check),
  but for the words a mode lets validation judge in context (``polar``: the intensifiers of
  ``insertions.INTENSIFIERS``, which keep a label before an adjective that carries it);
- that the tokenizer keeps whole;
- whose possible tags include the mask's tag: the tagger dictionary's one tag when it has the word,
  otherwise the tags the treebank lexicon has seen it with; a word neither knows is kept (its tag in
  context is for validation to decide), unless ``known_only``;
- that a word check of the ``--insertions`` mode would not reject whatever the context (``closed``:
  the only words of a tag, such as "and" for a coordinator; ``excluded``: a tag's words never kept, such
  as determinatives for an adjective; ``insertions.vocabulary_limits``). A limit may name a mask that
  another inserted word follows at the same place (``TAG:modifying``): the checks keep only a degree
  adverb there ("a [very] [old] film") or a noun modifier ("this [horror] [film]"), so that mask is
  filled from those words alone;
- that are a lower-case proper noun ("york") exactly when the mask's tag is a proper-noun tag (validation
  rejects the others away from the start of a sentence).

The beam search then spends its rows only on words that can pass, and its candidates are nearly all
examined by validation instead of being rejected for their part of speech or polarity.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cache import Cache
from ..resources import nltk_data_identity
from ..sources.lexicon import NEGATIONS
from ..store import content_hash, dumps
from ..tagging import PROPER_TAGS, coarse_pos


class TagDictionary:
    """Possible Penn tags of a lower-case word: the tagger's unambiguous dictionary first, then the
    treebank's lexical rules (``Grammar.lexical_counts``: tag -> {word: count})."""

    def __init__(self, lexical_counts: Mapping[str, Mapping[str, int]], tagger_dict: Mapping[str, str]):
        tags: dict[str, set[str]] = {}
        for tag, row in lexical_counts.items():
            for word in row:
                tags.setdefault(word.lower(), set()).add(tag)
        self._treebank = {word: frozenset(t) for word, t in tags.items()}
        self._tagger = {word: tag for word, tag in tagger_dict.items() if word.islower()}
        self.fingerprint = content_hash(
            dumps({w: sorted(t) for w, t in sorted(self._treebank.items())}),
            dumps(sorted(self._tagger.items())),
        )

    def tags(self, word: str) -> frozenset[str] | None:
        """The tags ``word`` can get (None: unknown to both)."""
        if word in self._tagger:
            return frozenset((self._tagger[word],))
        return self._treebank.get(word)


MODIFYING = ":modifying"  # the key suffix of a mask another inserted word follows at the same place
# the key of an adverb mask filled from the intensifiers alone (``insertions.intensifier_sites``)
INTENSIFIER = "RB:intensifier"


def key_tag(key: str) -> str:
    """The Penn tag of a mask key (``VocabularyFilter.mask_keys``): "RB:modifying" -> "RB"."""
    return key.partition(":")[0]


class VocabularyFilter:
    """For each mask tag, the ids of the masked LM's whole words (``words``: id -> word) a fill may use."""

    def __init__(
        self,
        words: Mapping[int, str],
        tag_dictionary: TagDictionary,
        lexicon: Any,
        *,
        proper_noun: Callable[[str], bool],
        single_token: Callable[[str], bool],
        known_only: bool = False,
        identity: str = "",
        closed: Mapping[str, frozenset[str]] | None = None,
        excluded: Mapping[str, frozenset[str]] | None = None,
        polar: Mapping[str, frozenset[str]] | None = None,
    ):
        self.words = dict(words)
        self.tag_dictionary = tag_dictionary
        self.lexicon = lexicon
        self._proper_noun = proper_noun
        self._single_token = single_token
        self.known_only = known_only
        self.closed = dict(closed or {})  # tag -> the only words a mask of that tag may take
        self.excluded = dict(excluded or {})  # tag -> words a mask of that tag never takes
        self.polar = dict(polar or {})  # tag -> polar words validation judges in context
        describe = getattr(lexicon, "describe", None)
        self.fingerprint = content_hash(
            "vocabulary-filter-1",
            identity,
            nltk_data_identity(),  # the lexicon's lemmas come from WordNet
            dumps(sorted(self.words.items())),
            tag_dictionary.fingerprint,
            dumps(describe() if describe else type(lexicon).__name__),
            str(known_only),
            *(
                [dumps({t: sorted(w) for t, w in sorted(self.closed.items())}),
                 dumps({t: sorted(w) for t, w in sorted(self.excluded.items())})]
                if closed or excluded else []
            ),
            *([dumps({t: sorted(w) for t, w in sorted(self.polar.items())})] if polar else []),
        )  # fmt: skip
        self._cacheable = describe is not None  # a lexicon that cannot say what it holds is not cached
        self._allowed: dict[str, list[int]] = {}
        self._neutral: dict[tuple[str, str | None], bool] = {}
        self._whole: dict[str, bool] = {}

    def admits(self, word: str, tag: str) -> bool:
        """Whether a fill of a ``tag`` mask may be ``word`` (lower case). The cheap dictionary checks come
        first; a word's lexicon and tokenizer verdicts are computed once. ``tag`` may be a mask key
        (``mask_keys``): its own limits and its tag's apply."""
        key, tag = tag, key_tag(tag)
        for limited in (key, tag):
            if word not in self.closed.get(limited, (word,)) or word in self.excluded.get(limited, ()):
                return False
        tags = self.tag_dictionary.tags(word)
        if tags is None and self.known_only or tags is not None and tag not in tags:
            return False
        if word in NEGATIONS or self._proper_noun(word) != (tag in PROPER_TAGS):
            return False
        pos = coarse_pos(tag)
        if (word, pos) not in self._neutral:
            self._neutral[word, pos] = bool(self.lexicon.is_neutral(word, pos))
        if not self._neutral[word, pos] and word not in self.polar.get(tag, ()):
            return False
        if word not in self._whole:
            self._whole[word] = bool(self._single_token(word))
        return self._whole[word]

    def mask_keys(self, masks: Sequence[tuple[int, str]]) -> tuple[str, ...]:
        """The key each mask's words are looked up by: its tag, or ``TAG:modifying`` when another inserted
        word follows it at the same place and the mode limits such a mask (``closed``)."""
        followed = [n + 1 < len(masks) and masks[n + 1][0] == index for n, (index, _) in enumerate(masks)]
        return tuple(
            tag + MODIFYING if then and tag + MODIFYING in self.closed else tag
            for (_, tag), then in zip(masks, followed)
        )

    def allowed(self, tag: str) -> list[int]:
        """The vocabulary ids a ``tag`` mask may be filled with, ascending (computed once per tag, and
        cached on disk by the filter's fingerprint: the lexicon lookups take about a CPU-second)."""
        if tag not in self._allowed:
            key = content_hash(self.fingerprint, tag)
            cache = Cache("vocabulary") if self._cacheable else None
            try:
                found = cache.get_many([key]).get(key) if cache else None
                if found is None:
                    found = sorted(i for i, w in self.words.items() if self.admits(w, tag))
                    if cache:
                        cache.put_many({key: found})
            finally:
                if cache:
                    cache.close()
            self._allowed[tag] = found
        return self._allowed[tag]
