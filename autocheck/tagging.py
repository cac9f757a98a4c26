"""Tokenisation with character offsets, sentence splitting and part-of-speech tagging in context.

Tokens follow the Penn Treebank conventions (NLTK's Treebank tokenizer) so they match the parser's and the
reference grammar's; every token keeps its character span in the original text, which is what lets later
stages insert words at exact token boundaries instead of by string replacement.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from typing import Any

from .resources import TAGGER, nltk_resource
from .store import InputError, parse_json

# Penn tag prefix -> the coarse classes lexicons use.
COARSE = {"JJ": "adj", "NN": "noun", "VB": "verb", "RB": "adv"}


def coarse_pos(tag: str) -> str | None:
    """``JJR`` -> ``adj``, ``NNS`` -> ``noun``, ``VBD`` -> ``verb``, ``RB`` -> ``adv``; other tags -> None."""
    return COARSE.get(tag[:2])


@dataclass(frozen=True, slots=True)
class Tokens:
    words: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]  # character span of each word in the text
    sentences: tuple[tuple[int, int], ...]  # token index ranges [start, end) of each sentence


@lru_cache(maxsize=1)
def _sentence_splitter():
    from nltk.tokenize.punkt import PunktSentenceTokenizer, PunktTokenizer

    try:
        nltk_resource("tokenizers/punkt_tab/english", "punkt_tab")
        return PunktTokenizer("english")
    except Exception:  # an NLTK without punkt_tab support: the untrained splitter still works
        return PunktSentenceTokenizer()


def standard_re(pattern: Any) -> re.Pattern[str]:
    """One of NLTK's tokenizer patterns (on its guarded ``regex`` engine, slow per call) compiled for
    Python's ``re``, with the same case folding. The two engines read ``\\s``, ``\\w`` and ``\\b`` alike
    only on the texts ``engines_agree`` accepts."""
    return re.compile(pattern.pattern, pattern.flags & re.IGNORECASE)


# Outside ASCII the engines' classes differ (``regex``'s \w takes combining marks, so "not\u0301" has no
# word boundary there), and within it the separators \x1c-\x1f are whitespace to ``re`` only
_ENGINES_DIFFER = re.compile(r"[^\x00-\x1b\x20-\x7f]")


def engines_agree(text: str) -> bool:
    """Whether ``standard_re`` patterns match ``text`` exactly as NLTK's own do: ASCII without \\x1c-\\x1f,
    most of any English dataset; other texts go to NLTK's engine."""
    return _ENGINES_DIFFER.search(text) is None


def _word_tokenizer(text: str) -> Any:
    """The Treebank tokenizer for ``text``: NLTK's patterns on the standard ``re`` engine where the engines
    agree (NLTK's guarded engine made tokenising most of a dataset search's cost, about 3x this), NLTK's
    own elsewhere."""
    fast, nltk = _word_tokenizers()
    return fast if engines_agree(text) else nltk


# A literal each match of a Treebank tokenizer pattern holds (one of them, where several): a text without
# any is left as it is by the pattern, so the pattern is not run. A pattern that finds nothing still scans
# the text, and an SST sentence needs 2.7 of the 26 on average. The case-insensitive ones are tested on the
# lower-cased text: the fast tokenizer sees ASCII only (``engines_agree``), which ``str.lower`` folds as the
# pattern does. A pattern missing here is always run.
_TOKENIZER_NEEDLES: dict[str, tuple[str, ...]] = {
    '^\\"': ('"',),
    "(``)": ("``",),
    "([ \\(\\[{<])(\\\"|\\'{2})": ('"', "''"),
    "([:,])([^\\d])": (":", ","),
    "([:,])$": (":", ","),
    "\\.\\.\\.": ("...",),
    "[;@#$%&]": tuple(";@#$%&"),
    "([^\\.])(\\.)([\\]\\)}>\"\\']*)\\s*$": (".",),
    "[?!]": ("?", "!"),
    "([^'])' ": ("' ",),
    "[\\]\\[\\(\\)\\{\\}\\<\\>]": tuple("][(){}<>"),
    "--": ("--",),
    "''": ("''",),
    '"': ('"',),
    "([^' ])('[sS]|'[mM]|'[dD]|') ": ("'",),
    "([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": ("'",),
    "\\b(can)(?#X)(not)\\b": ("cannot",),
    "\\b(d)(?#X)('ye)\\b": ("d'ye",),
    "\\b(gim)(?#X)(me)\\b": ("gimme",),
    "\\b(gon)(?#X)(na)\\b": ("gonna",),
    "\\b(got)(?#X)(ta)\\b": ("gotta",),
    "\\b(lem)(?#X)(me)\\b": ("lemme",),
    "\\b(more)(?#X)('n)\\b": ("more'n",),
    "\\b(wan)(?#X)(na)(?=\\s)": ("wanna",),
    " ('t)(?#X)(is)\\b": (" 'tis",),
    " ('t)(?#X)(was)\\b": (" 'twas",),
}


@dataclass(frozen=True, slots=True)
class _Guarded:
    """A pattern run only on a text holding one of its ``needles`` (NLTK's tokenizer calls its ``sub``).
    For texts ``engines_agree`` accepts (ASCII), which ``str.lower`` folds as a case-insensitive pattern
    does."""

    pattern: re.Pattern[str]
    needles: tuple[str, ...]
    folded: bool  # case-insensitive: the needles are looked for in the lower-cased text

    def sub(self, replacement: str, text: str) -> str:
        held = text.lower() if self.folded else text
        for needle in self.needles:
            if needle in held:
                return self.pattern.sub(replacement, text)
        return text


def guarded(pattern: Any, needles: dict[str, tuple[str, ...]]) -> re.Pattern[str] | _Guarded:
    """One of NLTK's patterns on the standard ``re`` engine (``standard_re``), run only on text holding one
    of its ``needles`` (keyed by the pattern without a leading ``(?i)``; a pattern without is always run)."""
    compiled = standard_re(pattern)
    found = needles.get(compiled.pattern.removeprefix("(?i)"))
    return compiled if found is None else _Guarded(compiled, found, bool(compiled.flags & re.IGNORECASE))


@lru_cache(maxsize=1)
def _word_tokenizers() -> tuple[Any, Any]:
    """NLTK's Treebank tokenizer with its patterns compiled by ``standard_re``, each guarded by its
    ``_TOKENIZER_NEEDLES``, and NLTK's own."""
    from nltk.tokenize import TreebankWordTokenizer

    tokenizer = TreebankWordTokenizer()

    def plain(value: Any) -> Any:
        if isinstance(value, list | tuple):
            return type(value)(plain(v) for v in value)
        if hasattr(value, "pattern") and hasattr(value, "flags"):
            return guarded(value, _TOKENIZER_NEEDLES)
        return value

    names = ("STARTING_QUOTES", "PUNCTUATION", "PARENS_BRACKETS", "CONVERT_PARENTHESES", "DOUBLE_DASHES",
             "ENDING_QUOTES", "CONTRACTIONS2", "CONTRACTIONS3")  # fmt: skip
    for name in names:
        setattr(tokenizer, name, plain(getattr(tokenizer, name)))
    return tokenizer, TreebankWordTokenizer()


_ABBREVIATIONS = frozenset("mr mrs ms dr st jr sr vs etc inc co corp ltd no prof gen sen rep mt ft".split())


def _has_detachable_period(word: str) -> bool:
    stem = word[:-1]
    return (
        len(word) > 1
        and word.endswith(".")
        and stem.isalpha()
        and len(stem) > 1
        and stem.lower() not in _ABBREVIATIONS
    )


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Punkt sentence spans, with a split undone where the next "sentence" cannot start one.

    Punkt splits ``"Is it good?", but ...`` after the question mark; a piece starting with a closing quote,
    a comma or a lower-case word belongs to the sentence before it (templates quote whole sentences).
    """
    spans: list[list[int]] = []
    for start, end in _sentence_splitter().span_tokenize(text):
        piece = text[start:end]
        opens_sentence = piece[:1].isupper() or piece[:1].isdigit() or piece[:2].strip("\"('`")[:1].isupper()
        if spans and not opens_sentence:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return [(a, b) for a, b in spans]


def tokenize(text: str) -> Tokens:
    """Split ``text`` into sentences and PTB tokens, keeping character offsets."""
    words: list[str] = []
    offsets: list[tuple[int, int]] = []
    sentences: list[tuple[int, int]] = []
    for s_start, s_end in _sentence_spans(text):
        first = len(words)
        sentence = text[s_start:s_end]
        for w_start, w_end in _word_tokenizer(sentence).span_tokenize(sentence):
            start, end = s_start + w_start, s_start + w_end
            word = text[start:end]
            if _has_detachable_period(word):  # "quickly." before a closing quote: the Treebank tokenizer
                words.extend((word[:-1], "."))  # only detaches a sentence-final period
                offsets.extend(((start, end - 1), (end - 1, end)))
            else:
                words.append(word)
                offsets.append((start, end))
        if len(words) > first:
            sentences.append((first, len(words)))
    return Tokens(tuple(words), tuple(offsets), tuple(sentences))


def words(text: str) -> list[str]:
    return list(tokenize(text).words)


@lru_cache(maxsize=1)
def _tagger():
    """NLTK's averaged perceptron with its English model, its three JSON files parsed here: NLTK 3.10's
    own loading walks every object it parsed to reject NaN and infinities (0.3-0.5 CPU-s per process in
    all), where ``store.parse_json`` rejects them while parsing and one pass over the weights catches a
    number too large for a float (about 0.1 in all)."""
    import nltk
    from nltk.tag import PerceptronTagger

    nltk_resource(TAGGER, "averaged_perceptron_tagger_eng")

    def part(name: str) -> Any:
        path = f"{TAGGER}/averaged_perceptron_tagger_eng.{name}.json"
        with nltk.data.find(path).open() as f:
            return parse_json(f.read(), path, "POS tagger model")

    weights = part("weights")
    try:  # a number too large for a float (1e999) parses as infinity
        finite = all(map(math.isfinite, chain.from_iterable(row.values() for row in weights.values())))
    except (AttributeError, TypeError):
        finite = False
    if not finite:
        raise InputError(f"{TAGGER}: the POS tagger's weights are not a table of finite numbers")
    tagger = PerceptronTagger(load=False)
    tagger.model.weights, tagger.tagdict = weights, part("tagdict")
    tagger.classes = tagger.model.classes = set(part("classes"))
    return tagger


def pos_tag_sents(sentences: Sequence[Sequence[str]]) -> list[list[str]]:
    """Penn tags for each token of each sentence, tagged in context (NLTK averaged perceptron).

    The tagger is loaded once per process. Quote tokens are mapped to PTB quote tags by NLTK itself.
    """
    tagger = _tagger()
    return [[tag for _, tag in tagger.tag(_ptb_quotes(s))] if s else [] for s in sentences]


def pos_tag_from(words: Sequence[str], prefix_tags: Sequence[str], stop: int) -> list[str]:
    """The tags of ``words[len(prefix_tags):stop]``, exactly as ``pos_tag_sents([words])`` gives them, when
    ``prefix_tags`` are that tagging's first tags.

    The perceptron tags greedily left to right from the two previous tags and the words two either side,
    so after inserting words into a tagged sentence only the stretch from two tokens before the first
    insertion to the last one needs tagging again: the tags before it cannot change. Validation of fills
    tags thousands of candidates of the same seed this way instead of whole sentences.
    """
    tagger = _tagger()
    quoted = _ptb_quotes(words[: stop + 2])  # the last words a tag of the stretch reads
    start = len(prefix_tags)
    # a tag reads the normalised words two either side of it: only those of the retagged stretch are made
    # (the others are never read; "" stands in for them)
    window = [tagger.normalize(w) for w in quoted[max(0, start - 2) : stop + 2]]
    context = [*tagger.START, *[""] * max(0, start - 2), *window, *tagger.END]
    history = [tagger.START[1], tagger.START[0], *prefix_tags]  # (prev2, prev) as tag() starts them
    for i in range(start, stop):
        tag = tagger.tagdict.get(quoted[i]) or _predicted_tag(
            quoted[i], history[-1], history[-2], tuple(context[i : i + 5])
        )
        history.append(tag)
    return history[2 + len(prefix_tags) :]


@lru_cache(maxsize=1 << 17)
def _predicted_tag(word: str, prev: str, prev2: str, window: tuple[str, ...]) -> str:
    """The perceptron's tag for ``word`` after the tags ``prev2 prev``, with the normalised words two either
    side of it in ``window``: the whole of what its features read. Candidates of one seed repeat windows
    (the same fill at another site, the words before a site), and each is scored once."""
    tagger = _tagger()
    features = tagger._get_features(0, word, window, prev, prev2)  # window[2] is word's own position
    return tagger.model.predict(features, False)[0]


@lru_cache(maxsize=4096)
def is_single_token(word: str) -> bool:
    """Whether the tokenizer keeps ``word`` whole (it splits "cannot" and "gonna")."""
    return _word_tokenizer(word).tokenize(word) == [word]


def _ptb_quotes(sentence: Sequence[str]) -> list[str]:
    """Plain double quotes alternate as PTB opening/closing quotes, which is what the tagger knows."""
    out, opening = [], True
    for word in sentence:
        if word == '"':
            out.append("``" if opening else "''")
            opening = not opening
        else:
            out.append(word)
    return out


PROPER_TAGS = ("NNP", "NNPS")


def proper_noun(word: str) -> bool:
    """Whether lower-case ``word`` is a proper noun written in lower case ("york", "jones"): the tagger's
    dictionary of unambiguous words knows its capitalised form only as a proper noun and does not know the
    lower-case form ("new" is an adjective, "may" a modal)."""
    tagdict = _tagger().tagdict
    return word.islower() and tagdict.get(word.capitalize()) in PROPER_TAGS and word not in tagdict


def tagger_dictionary() -> dict[str, str]:
    """The tagger's dictionary of unambiguous words (word -> the one tag it always gives them)."""
    return dict(_tagger().tagdict)


def known_proper_noun(token: str) -> bool:
    """Whether the tagger's dictionary of unambiguous words knows ``token`` as a proper noun ("Paris")."""
    return _tagger().tagdict.get(token) in PROPER_TAGS
