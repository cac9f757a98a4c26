"""Perturbations of existing cases for INV and DIR tests (CheckList's ``Perturb``).

Each perturbation is one plain function over a case's input fields::

    f(inputs: Mapping[str, str], rng: numpy.random.Generator, **options) -> list[Perturbed]

returning no version (the perturbation does not apply) or some. A perturbation with a ``language``
parameter is given the task's language profile (``languages.LanguageProfile``: its tokenizer, tagger, word
rules); it is no option a spec sets. The built-in ones below are English: they read words with
``autocheck.tagging`` and the English word rules. Options common to all:

- ``fields``: the input fields to perturb (default: all of them, in their order). A perturbation that
  maps words to words (names, locations, numbers) applies one mapping to every field, so a name changed
  in ``question1`` is changed the same way in ``question2``; pass ``fields=["question2"]`` to change one.
- ``n``: how many different versions a random perturbation returns at most (default 1).

``Perturbed.change`` records what changed: ``{"perturbation": name, "edits": [{"field", "start", "end",
"from", "to"}, ...]}`` (character offsets into the original field), plus a few perturbation-specific keys.
Edits are made at token boundaries found by ``autocheck.tagging.tokenize`` (Treebank tokens with character
offsets) and spliced into the original string, so text outside an edit is byte-identical. Every function
is deterministic given the ``rng``: the same seed gives the same versions.

The registry ``PERTURBATIONS`` maps names to functions (a plug-in adds one through the entry-point group
``autocheck.perturbations``); ``perturb(name, inputs, rng, **options)`` checks the name and the options and
calls it.
"""

from __future__ import annotations

import inspect
import re
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import contractions as contractions_package  # the function contractions() below is a perturbation
import numpy as np

from ..languages import ENGLISH, LanguageProfile
from ..languages.en import words as W
from ..languages.lexicons import load_lexicon
from ..registry import Registry, check_keywords, keywords
from ..store import InputError
from ..tagging import pos_tag_sents, tokenize


@dataclass(frozen=True, slots=True)
class Perturbed:
    inputs: dict[str, str]  # all fields, with the changed ones changed
    change: dict[str, Any]  # what changed


# ---------------------------------------------------------------- helpers

Edit = tuple[str, int, int, str]  # field, start, end, replacement


def _select(inputs: Mapping[str, str], fields: Sequence[str] | str | None) -> list[str]:
    if fields is None:
        return list(inputs)
    if isinstance(fields, str):
        fields = [fields]
    missing = [f for f in fields if f not in inputs]
    if missing:
        raise InputError(f"fields {missing} are not input fields of this case (it has {sorted(inputs)})")
    return list(fields)


def _apply(inputs: Mapping[str, str], name: str, edits: Iterable[Edit], **extra: Any) -> Perturbed | None:
    """The perturbed case for ``edits`` (non-overlapping spans per field), or None when nothing changes."""
    by_field: dict[str, list[tuple[int, int, str]]] = {}
    for field, start, end, new in edits:
        if inputs[field][start:end] != new:
            by_field.setdefault(field, []).append((start, end, new))
    if not by_field:
        return None
    out = dict(inputs)
    records = []
    for field in inputs:  # fields in the case's order, spans left to right
        spans = sorted(by_field.get(field, ()))
        if not spans:
            continue
        text, pieces, pos = inputs[field], [], 0
        for start, end, new in spans:
            pieces += [text[pos:start], new]
            pos = end
            records.append({"field": field, "start": start, "end": end, "from": text[start:end], "to": new})
        out[field] = "".join(pieces) + text[pos:]
    return Perturbed(out, {"perturbation": name, "edits": records, **extra})


def _distinct(versions: Iterable[Perturbed | None]) -> list[Perturbed]:
    seen, out = set(), []
    for v in versions:
        if v is not None:
            key = tuple(sorted(v.inputs.items()))
            if key not in seen:
                seen.add(key)
                out.append(v)
    return out


def _sample_versions(make: Callable[[], Perturbed | None], n: int) -> list[Perturbed]:
    """Up to ``n`` distinct versions from a random maker (a bounded number of tries)."""
    _check_n(n)
    out: list[Perturbed] = []
    seen = set()
    for _ in range(10 * n):
        v = make()
        if v is None:
            continue
        key = tuple(sorted(v.inputs.items()))
        if key not in seen:
            seen.add(key)
            out.append(v)
            if len(out) == n:
                break
    return out


def _check_n(n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InputError(f"option n must be a positive integer, got {n!r}")


def _choice(rng: np.random.Generator, options: Sequence[Any]) -> Any:
    return options[int(rng.integers(len(options)))]


@dataclass(frozen=True, slots=True)
class _Tagged:
    words: tuple[str, ...]
    offsets: tuple[tuple[int, int], ...]
    tags: tuple[str, ...]
    sentence_starts: frozenset[int]


def _tag(text: str) -> _Tagged:
    tokens = tokenize(text)
    tags = pos_tag_sents([tokens.words[a:b] for a, b in tokens.sentences])
    flat = tuple(t for sent in tags for t in sent)
    return _Tagged(tokens.words, tokens.offsets, flat, frozenset(a for a, _ in tokens.sentences))


# ---------------------------------------------------------------- typos


def typos(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    *,
    fields: Sequence[str] | None = None,
    n: int = 1,
    n_typos: int = 1,
    keep_initials: bool = False,
) -> list[Perturbed]:
    """Swap ``n_typos`` pairs of adjacent letters inside words (different letters, so the text changes),
    in every selected field. [] when a field has no such pair. ``keep_initials``: never a word's first
    letter, so a name keeps the capital that marks it ("Ulsan" may become "Ulasn", never "lUsan")."""
    if not isinstance(n_typos, int) or n_typos < 1:
        raise InputError(f"option n_typos must be a positive integer, got {n_typos!r}")
    selected = _select(inputs, fields)
    candidates = {}
    for field in selected:
        text = inputs[field]
        pairs = [
            i
            for i in range(len(text) - 1)
            if text[i].isalpha()
            and text[i + 1].isalpha()
            and text[i] != text[i + 1]
            and not (keep_initials and (i == 0 or not text[i - 1].isalpha()))
        ]
        if len(pairs) < n_typos:
            return []
        candidates[field] = pairs

    def make() -> Perturbed | None:
        edits = []
        for field in selected:
            text = inputs[field]
            chosen: list[int] = []
            pool = list(candidates[field])
            while len(chosen) < n_typos and pool:
                i = pool[int(rng.integers(len(pool)))]
                chosen.append(i)
                pool = [j for j in pool if abs(j - i) > 1]  # swaps never overlap
            if len(chosen) < n_typos:
                return None
            edits += [(field, i, i + 2, text[i + 1] + text[i]) for i in chosen]
        return _apply(inputs, "typos", edits)

    return _sample_versions(make, n)


# ---------------------------------------------------------------- contractions

_APOS = "'’"
# Irregular negative contractions the rule below cannot derive (the stem is not the auxiliary).
_IRREGULAR = ("won't", "can't", "shan't")
# Regular-looking forms that are not standard English, left out of contracting.
_NONSTANDARD = frozenset(("amn't", "shalln't", "daren't", "this's", "which's", "so's", "he've"))
# 's/'re/'m/'ll/'d/'ve cannot contract a stranded auxiliary: "I know who he is." stays.
# Contractions written in ordinary edited English; the package also lists "mayn't", "gon't", "so've",
# "to've", "these're" and the like, which a reader would take for typos.
_WRITTEN = frozenset(
    [
        f"{a} not"
        for a in "are could did do does had has have is must should was were would might need".split()
    ]
    + ["cannot", "will not"]
    + [f"{p} am" for p in ("i",)]
    + [f"{p} are" for p in ("you", "we", "they")]
    + [f"{p} is" for p in "he she it that there here what who where how".split()]
    + [f"{p} will" for p in "i you he she it we they that".split()]
    + [f"{p} would" for p in "i you he she we they".split()]
    + [f"{p} have" for p in "i you we they could should would might must".split()]
    + ["let us"]
)
_PARTICIPLE_NEXT = re.compile(r"\s+((?:\w+ly|ever|never|already|just|always)\s+)?(\w+)")
_STRANDED = re.compile(r"\s*(?:[.!?,;:)\"”]|$)")
# An inverted negative question does not expand: "isn't it?" is not "is not it?".
_INVERTED = re.compile(r"\s+(?:I|you|he|she|it|we|they|there|that|this)\b", re.IGNORECASE)


@lru_cache(maxsize=1)
def _contraction_tables() -> tuple[dict[str, str], dict[str, str]]:
    """(contraction -> expansion, expansion -> contraction), lower case, from the ``contractions`` package.

    Kept: single contractions of a word and a suffix whose expansion starts with that word ("isn't" ->
    "is not", "what's" -> "what is", "let's" -> "let us"), and the irregular won't/can't/shan't. Left
    out: slang ("gonna"), forms with two apostrophes ("I'd've"), "ain't" (no single expansion), and words
    like "o'clock" or "y'all".
    """
    expand: dict[str, str] = {}
    for key, value in contractions_package.contractions_dict.items():
        k = key.lower().replace("’", "'")
        v = value.lower()
        m = re.fullmatch(r"([a-z]+?)(n't|'[a-z]+)", k)
        if not m or k.count("'") != 1:
            continue
        regular = " " in v and v.split()[0] == m.group(1)
        if regular or k in _IRREGULAR:
            expand[k] = v
    contract: dict[str, str] = {}
    for k, v in sorted(expand.items()):
        if k not in _NONSTANDARD and v not in contract and v in _WRITTEN:
            contract[v] = k
    return expand, contract


def _case_like(original: str, new: str) -> str:
    if original.isupper() and len(original) > 1:
        return new.upper()
    return new[:1].upper() + new[1:] if original[:1].isupper() else new


def _expansion_edits(field: str, text: str) -> list[Edit]:
    expand, _ = _contraction_tables()
    edits = []
    # "don't", and the tokenized "do n't" / "it 's" of treebank-style datasets (SST)
    apos = "[" + _APOS + "]"
    for m in re.finditer(r"(?<![\w'’])[A-Za-z]+ ?(?:n" + apos + "t|" + apos + r"[A-Za-z]+)(?![\w'’])", text):
        key = m.group().lower().replace("’", "'").replace(" ", "")
        if key in expand and not (key.endswith("n't") and _INVERTED.match(text, m.end())):
            full = expand[key]
            # "she's been" -> "she has been" ("it's done" stays "it is done": "been", "got", "had" or
            # "ever" tell the perfect from the passive); "I'd seen" -> "I had seen", "you'd better" -> "you
            # had better"
            perfect = _PARTICIPLE_NEXT.match(text, m.end())
            adverb = perfect is not None and (perfect.group(1) or "").strip().lower() in (
                "ever",
                "never",
                "already",
            )
            if (
                key.endswith("'s")
                and perfect
                and (
                    perfect.group(2).lower() in ("been", "got", "gotten", "had")
                    or (adverb and _participle_follows(text, m.end()))
                )
            ):  # "who's ever had", "that's ever gone": only a perfect takes "ever" there
                full = full.rsplit(" ", 1)[0] + " has"
            elif key.endswith("'d") and _participle_follows(text, m.end(), also=("better",)):
                full = full.rsplit(" ", 1)[0] + " had"
            edits.append((field, m.start(), m.end(), _case_like(m.group(), full)))
    return edits


def _participle_follows(text: str, end: int, also: tuple[str, ...] = ()) -> bool:
    """Whether the next word (an adverb in "-ly" skipped) is a past participle ("been", "seen", "got"), so
    that a preceding "have"/"'s"/"'d" is the perfect's auxiliary; by lemminflect's dictionary of forms."""
    from lemminflect import getInflection, getLemma

    m = _PARTICIPLE_NEXT.match(text, end)
    if not m:
        return False
    word = m.group(2).lower()
    if word in ("been", "got", "gotten") + also:
        return True
    lemmas = getLemma(word, upos="VERB")
    return any(word in getInflection(lemma, tag="VBN") for lemma in lemmas) and not any(
        word in getInflection(lemma, tag="VBD") and word not in getInflection(lemma, tag="VBN")
        for lemma in lemmas
    )


@lru_cache(maxsize=1)
def _contraction_pattern() -> re.Pattern:
    _, contract = _contraction_tables()
    alternatives = sorted((re.escape(k).replace(r"\ ", r"\s+") for k in contract), key=lambda s: (-len(s), s))
    return re.compile(r"(?<![\w'’])(?:" + "|".join(alternatives) + r")(?![\w'’])", re.IGNORECASE)


def _contraction_edits(field: str, text: str) -> list[Edit]:
    _, contract = _contraction_tables()
    edits = []
    for m in _contraction_pattern().finditer(text):
        phrase = " ".join(m.group().split()).lower()
        short = contract[phrase]
        if not short.endswith("n't") and _STRANDED.match(text, m.end()):
            continue
        if short.endswith("'ve") and not _participle_follows(text, m.end()):
            continue  # "you have to read", "I have a cat": "have" as a main verb is not contracted
        edits.append((field, m.start(), m.end(), _case_like(m.group(), short)))
    return edits


def contractions(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None
) -> list[Perturbed]:
    """Both directions, as CheckList: one version with every contractible phrase contracted ("is not" ->
    "isn't", "what is" -> "what's") and one with every contraction expanded; those that change the text."""
    selected = _select(inputs, fields)
    contracted = _apply(
        inputs,
        "contractions",
        [e for f in selected for e in _contraction_edits(f, inputs[f])],
        direction="contract",
    )
    expanded = _apply(
        inputs,
        "contractions",
        [e for f in selected for e in _expansion_edits(f, inputs[f])],
        direction="expand",
    )
    return _distinct([contracted, expanded])


def expand_contractions(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None
) -> list[Perturbed]:
    """Every contraction expanded ("isn't" -> "is not", "I'm" -> "I am"); [] when there is none."""
    selected = _select(inputs, fields)
    return _distinct(
        [_apply(inputs, "expand_contractions", [e for f in selected for e in _expansion_edits(f, inputs[f])])]
    )


# ---------------------------------------------------------------- names and locations

_PROPER = ("NNP", "NNPS")
_TITLES = frozenset("Mr Mrs Ms Miss Dr Prof Mr. Mrs. Ms. Dr. Prof.".split())


@lru_cache(maxsize=1)
def _names() -> tuple[dict[str, str], dict[str, list[str]], frozenset[str], list[str]]:
    """(first name -> gender, gender -> first names, last names, last names as a list)."""
    gender = {e.value: str(e.attrs["gender"]) for e in load_lexicon("first_name")}
    by_gender: dict[str, list[str]] = {}
    for name, g in gender.items():
        by_gender.setdefault(g, []).append(name)
    last = [e.value for e in load_lexicon("last_name")]
    return gender, by_gender, frozenset(last), last


def _find_names(text: str) -> list[tuple[int, int, str, str]]:
    """(start, end, name, kind) for person names: capitalised tokens in the first-name lexicon (kind = its
    gender) or the last-name lexicon (kind "last"), whatever the tagger calls them, except at the start of a
    sentence where the tagger reads them as a verb ("May I", "Will you"). Only after a first name or a title
    is a token a last name ("John Smith", "Mr. James"): a first name used there ("Sally Paul") and a last name
    alone ("Jordan is a great player", maybe a first name the lexicon lacks) are left alone."""
    gender, _, last, _ = _names()
    tagged = _tag(text)
    found: list[tuple[int, int, str, str]] = []
    after_first = False
    for i, (word, (start, end), tag) in enumerate(zip(tagged.words, tagged.offsets, tagged.tags)):
        follows = after_first or (i > 0 and tagged.words[i - 1] in _TITLES)
        after_first = False
        if not word[:1].isupper() or (word not in gender and word not in last):
            continue
        if i in tagged.sentence_starts and (tag == "MD" or tag.startswith("VB")):
            continue
        if follows:
            if word in last and word not in gender:
                found.append((start, end, word, "last"))
        elif word in gender:
            found.append((start, end, word, gender[word]))
            after_first = True
    return found


def change_names(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    *,
    fields: Sequence[str] | None = None,
    n: int = 1,
    part: str = "all",
) -> list[Perturbed]:
    """Replace person names: each first name by another of the same gender, each last name by another last
    name, the same name the same way in every selected field. Names are found by lexicon membership of
    capitalised tokens (``_find_names``), so lower-cased text (SST) has none. ``part``: "first" or "last"
    changes only first or only last names (CheckList's ``first_only``, ``last_only``). [] when no name of
    that part is found."""
    if part not in ("all", "first", "last"):
        raise InputError(f"option part must be 'all', 'first' or 'last', got {part!r}")
    _, by_gender, _, last_list = _names()
    pools = {**by_gender, "last": last_list}

    def find(text: str) -> list[tuple[int, int, str, str]]:
        return [f for f in _find_names(text) if part == "all" or (f[3] == "last") == (part == "last")]

    return _replace_found(inputs, rng, "change_names", find, pools, fields, n)


def _replace_found(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    perturbation: str,
    find: Callable[[str], list[tuple[int, int, str, str]]],
    pools: Mapping[str, Sequence[str]],
    fields: Sequence[str] | None,
    n: int,
) -> list[Perturbed]:
    """Replace what ``find`` finds ((start, end, name, kind) spans) by other names of the same kind drawn
    from ``pools[kind]``, the same name the same way in every selected field, never by a name already
    there. [] when nothing is found; up to ``n`` distinct versions."""
    selected = _select(inputs, fields)
    found = {f: find(inputs[f]) for f in selected}
    originals = sorted({(name, kind) for spans in found.values() for _, _, name, kind in spans})
    if not originals:
        return []
    present = {name for name, _ in originals}

    def make() -> Perturbed | None:
        mapping: dict[str, str] = {}
        for name, kind in originals:
            taken = present | set(mapping.values())
            for _ in range(20):
                new = _choice(rng, pools[kind])
                if new not in taken:
                    mapping[name] = new
                    break
            else:
                return None
        edits = [(f, s, e, mapping[name]) for f in selected for s, e, name, _ in found[f]]
        return _apply(inputs, perturbation, edits, mapping=mapping)

    return _sample_versions(make, n)


@lru_cache(maxsize=1)
def _places() -> tuple[dict[str, str], list[str], list[str], re.Pattern]:
    """(place -> "city"/"country", cities, countries, a pattern matching any of them). Places that are
    also person names in the name lexicons ("Chad", "Georgia") are left out: they are too often people."""
    people = {e.value for name in ("first_name", "last_name") for e in load_lexicon(name)}
    cities = [e.value for e in load_lexicon("city") if e.value not in people]
    countries = [e.value for e in load_lexicon("country") if e.value not in people]
    kind = {**{c: "city" for c in cities}, **{c: "country" for c in countries}}
    alternatives = sorted((re.escape(p) for p in kind), key=lambda s: (-len(s), s))
    pattern = re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])")
    return kind, cities, countries, pattern


def _find_places(text: str) -> list[tuple[int, int, str, str]]:
    kind, _, _, pattern = _places()
    matches = list(pattern.finditer(text))
    if not matches:
        return []
    tagged = _tag(text)
    proper = [span for span, tag in zip(tagged.offsets, tagged.tags) if tag in _PROPER]
    out = []
    for m in matches:  # every token of the match must be tagged as a proper noun ("Turkey" is food too)
        inside = [s for s in tagged.offsets if s[0] >= m.start() and s[1] <= m.end()]
        if inside and all(s in proper for s in inside):
            out.append((m.start(), m.end(), m.group(), kind[m.group()]))
    return out


def change_location(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Replace cities by other cities and countries by other countries (from the shipped lexicons), the
    same place the same way in every selected field. [] when no place is found."""
    _, cities, countries, _ = _places()
    pools = {"city": cities, "country": countries}
    return _replace_found(inputs, rng, "change_location", _find_places, pools, fields, n)


# ---------------------------------------------------------------- numbers

_INTEGER = re.compile(r"(?<![\w.,])\d+(?![\w]|[.,]\d)")


def _new_number(value: int, digits: int, rng: np.random.Generator) -> int:
    spread = max(1, round(0.2 * value))
    low, high = max(0, value - spread), value + spread
    if digits == 4:  # a year stays a 4-digit number
        low, high = max(low, 1000), min(high, 9999)
    choices = [v for v in range(low, high + 1) if v != value]
    return int(choices[int(rng.integers(len(choices)))])


def change_number(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Change every integer by a random amount within ±20% (at least ±1), never to the same value and
    never below 0; 4-digit numbers (years) stay 4-digit. The same number changes the same way in every
    selected field. Decimals, numbers with leading zeros and numbers glued to letters ("5pm") are kept.
    [] when there is no integer."""
    selected = _select(inputs, fields)
    found = {
        f: [m for m in _INTEGER.finditer(inputs[f]) if m.group() == "0" or not m.group().startswith("0")]
        for f in selected
    }
    originals = sorted({m.group() for ms in found.values() for m in ms}, key=lambda s: (int(s), s))
    if not originals:
        return []

    def make() -> Perturbed | None:
        mapping = {s: str(_new_number(int(s), len(s), rng)) for s in originals}
        edits = [(f, m.start(), m.end(), mapping[m.group()]) for f in selected for m in found[f]]
        return _apply(inputs, "change_number", edits, mapping=mapping)

    return _sample_versions(make, n)


# ---------------------------------------------------------------- punctuation, URLs, phrases

_FINAL_PUNCT = re.compile(r"[.!?;:,]+(?=\s*$)")


def punctuation(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None
) -> list[Perturbed]:
    """As CheckList: the text without its final punctuation, and the text ending in a single period
    ("Good movie!" -> "Good movie", "Good movie."; "Good movie" -> "Good movie."); the versions that
    differ from the original."""
    selected = _select(inputs, fields)
    strip, period = [], []
    for f in selected:
        text = inputs[f]
        m = _FINAL_PUNCT.search(text)
        if m:
            strip.append((f, m.start(), m.end(), ""))
            period.append((f, m.start(), m.end(), "."))
        else:
            end = len(text.rstrip())
            if end:
                period.append((f, end, end, "."))
    return _distinct(
        [
            _apply(inputs, "punctuation", strip, kind="remove"),
            _apply(inputs, "punctuation", period, kind="period"),
        ]
    )


_ALNUM = string.ascii_letters + string.digits


def add_url_handle(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Append a random URL (``https://t.co/`` + 10 letters/digits) or @handle (10 letters/digits) after a
    space, as CheckList's robustness tests do, to every selected field."""
    selected = _select(inputs, fields)

    def make() -> Perturbed | None:
        kind = "url" if rng.integers(2) == 0 else "handle"
        token = "".join(_ALNUM[int(i)] for i in rng.integers(len(_ALNUM), size=10))
        added = f"https://t.co/{token}" if kind == "url" else f"@{token}"
        edits = [(f, len(inputs[f]), len(inputs[f]), _joiner(inputs[f]) + added) for f in selected]
        return _apply(inputs, "add_url_handle", edits, kind=kind)

    return _sample_versions(make, n)


def _joiner(text: str) -> str:
    return "" if not text or text[-1].isspace() else " "


def append_phrase(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    *,
    phrases: Sequence[str],
    fields: Sequence[str] | None = None,
    n: int | None = None,
) -> list[Perturbed]:
    """Append a phrase after a space (DIR tests: "You are lame." must not make sentiment more positive):
    one version per phrase in order, or ``n`` phrases drawn without replacement."""
    if isinstance(phrases, str) or not phrases or not all(isinstance(p, str) and p.strip() for p in phrases):
        raise InputError("option phrases must be a non-empty list of non-empty strings")
    selected = _select(inputs, fields)
    chosen = list(phrases)
    if n is not None:
        _check_n(n)
        chosen = [chosen[int(i)] for i in rng.choice(len(chosen), size=min(n, len(chosen)), replace=False)]
    return _distinct(
        _apply(
            inputs,
            "append_phrase",
            [(f, len(inputs[f]), len(inputs[f]), _joiner(inputs[f]) + p) for f in selected],
            phrase=p,
        )
        for p in chosen
    )


def rewrite(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    *,
    rules: Mapping[str, Sequence[str]],
    fields: Sequence[str] | None = None,
    n: int | None = None,
) -> list[Perturbed]:
    """Rewrite by regular expression: per rule ``{pattern: [replacement, ...]}``, each replacement (``re``
    template syntax, ``\\1``) of the pattern's first match in each selected field is one version; ``n``
    versions drawn without replacement. How CheckList's template pairs read as a perturbation: an
    intensifier or reducer before an adjective, "I used to think" before a clause, or one identity term
    exchanged for each of the others (a version equal to the original is dropped)."""
    if not isinstance(rules, Mapping) or not rules:
        raise InputError("option rules must be a non-empty object {pattern: [replacement, ...]}")
    selected = _select(inputs, fields)
    versions = []
    for pattern, replacements in rules.items():
        if (
            isinstance(replacements, str)
            or not replacements
            or not all(isinstance(r, str) for r in replacements)
        ):
            raise InputError(f"option rules: {pattern!r} must map to a non-empty list of strings")
        try:
            compiled = re.compile(pattern)
        except re.error as err:
            raise InputError(f"option rules: {pattern!r} is not a regular expression ({err})") from None
        matches = [(f, m) for f in selected for m in [compiled.search(inputs[f])] if m]
        versions += [
            _apply(
                inputs, "rewrite", [(f, m.start(), m.end(), m.expand(r)) for f, m in matches], rule=pattern
            )
            for r in replacements
        ]
    out = _distinct(versions)
    if n is not None:
        _check_n(n)
        out = [out[int(i)] for i in sorted(rng.choice(len(out), size=min(n, len(out)), replace=False))]
    return out


def swap_fields(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] = ("question1", "question2")
) -> list[Perturbed]:
    """Exchange two fields (symmetry of pair tasks: QQP's "q1, q2" vs "q2, q1"); [] when they are equal."""
    if isinstance(fields, str) or len(fields) != 2:
        raise InputError(f"swap_fields needs exactly two fields, got {fields!r}")
    a, b = _select(inputs, fields)
    if inputs[a] == inputs[b]:
        return []
    out = dict(inputs)
    out[a], out[b] = inputs[b], inputs[a]
    return [Perturbed(out, {"perturbation": "swap_fields", "fields": [a, b], "edits": []})]


# ---------------------------------------------------------------- word swaps

# after these, a demonstrative points elsewhere: "this time" is now, "that time" then; "this one" is often
# the writer ("aging hippies (this one included)")
_DEICTIC = frozenset(
    "one time times year week month day night season summer winter spring weekend morning".split()
)
# CheckList's "change neutral words" (sentiment, Vocabulary, INV) replaces a word of its neutral list by
# what a masked LM suggests; with no LM offline, the words of that list with a replacement that keeps the
# grammar, the meaning and the sentiment where the tagger allows it get a curated one. "a" -> "one" and
# "the" before an object are left out: "one far better title", "robbed of that element of surprise".
_NEUTRAL = {
    "this": ("that",),  # a determiner or a pronoun
    "that": ("this",),  # a determiner only: not "that 's", not "a week ago that won't go away"
    "these": ("those",),  # determiners only: not "those who"
    "those": ("these",),
    "the": ("this", "that"),  # only the subject's article: "the movie is" -> "this movie is"
    "flight": ("journey",),
    "plane": ("airplane",),
}
# same-sense synonyms for QQP's "replace synonyms in real pairs" (INV): pairs of one sense that are
# interchangeable in a question, each only where that sense is sure ("the best way to learn" = "the most
# effective way to learn", but "best friend" is left alone; "living in" but not "living room")
_SYNONYMS = {
    "quickly": ("fast",),
    "easiest": ("simplest",),
    "best": ("most effective",),
    "way": ("method",),
    "ways": ("methods",),
    "living": ("residing",),
}
_WAY_ADJECTIVES = frozenset(
    "best easiest simplest good better fastest quickest cheapest only other ideal".split()
)
_SYNONYM_CONTEXT: dict[str, Callable[[str, str], bool]] = {  # word -> (previous word, next word) -> ok
    "best": lambda before, after: after in ("way", "ways"),
    "way": lambda before, after: before in _WAY_ADJECTIVES,
    "ways": lambda before, after: before in _WAY_ADJECTIVES,
    "living": lambda before, after: after == "in",
}
_TOKEN = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def _neutral_at(tagged: _Tagged, i: int) -> bool:
    """Whether the word at ``i`` can take one of its _NEUTRAL replacements here."""
    word, tag = tagged.words[i].lower(), tagged.tags[i]
    if word not in _NEUTRAL:
        return False
    if word in ("flight", "plane"):
        return tag == "NN"
    after = tagged.words[i + 1].lower() if i + 1 < len(tagged.words) else ""
    determiner = tagged.tags[i + 1 : i + 2] in (("NN",), ("NNS",), ("JJ",))
    if after in _DEICTIC or after.startswith("'"):
        return False  # "this time" is now, "that time" then; "that 's" is no "this 's"
    if word == "this":
        return tag == "DT"  # "this film", "this is", "like this"
    if word != "the":
        return tag == "DT" and determiner  # "that film"; not "that 's", "those who", "a week ago that ..."
    # "the movie is ...": a singular noun and then a word that can only be a verb ("robbed of the element
    # of surprise", "the end credits rolled", "for the david mamet enthusiast" stay)
    from lemminflect import getAllLemmas

    if i + 2 >= len(tagged.words) or tagged.tags[i + 1] != "NN" or (i and tagged.tags[i - 1] == "IN"):
        return False  # a subject's article, so not after a preposition
    lemmas = getAllLemmas(tagged.words[i + 2].lower())
    verb = tagged.tags[i + 2].startswith("VB") or tagged.tags[i + 2] == "MD"
    return verb and "NOUN" not in lemmas and bool({"VERB", "AUX"} & set(lemmas))


def _swappable(table: Mapping[str, Sequence[str]], words: list[re.Match], k: int) -> bool:
    word = words[k].group().lower()
    if word not in table:
        return False
    after = words[k + 1].group() if k + 1 < len(words) and words[k + 1].start() - words[k].end() == 1 else ""
    before = words[k - 1].group().lower() if k and words[k].start() - words[k - 1].end() == 1 else ""
    return _SYNONYM_CONTEXT.get(word, lambda *_: True)(before, after.lower())


def _swap_words(
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    name: str,
    table: Mapping[str, Sequence[str]],
    fields: Sequence[str] | None,
    n: int,
) -> list[Perturbed]:
    """Replace one word of ``table`` found in the selected fields by one of its replacements, every
    occurrence of it the same way in every field (the first letter's case kept); up to ``n`` versions, each
    a random word and replacement. [] when no word of the table is found."""
    selected = _select(inputs, fields)
    found: dict[str, list[tuple[str, int, int, str]]] = {}
    for f in selected:
        words = list(_TOKEN.finditer(inputs[f]))
        for k, m in enumerate(words):
            if _swappable(table, words, k):
                found.setdefault(m.group().lower(), []).append((f, m.start(), m.end(), m.group()))
    if not found:
        return []
    keys = sorted(found)

    def make() -> Perturbed | None:
        word = _choice(rng, keys)
        new = _choice(rng, table[word])
        edits = [(f, s, e, _case_like(old, new)) for f, s, e, old in found[word]]
        return _apply(inputs, name, edits, mapping={word: new})

    return _sample_versions(make, n)


def change_neutral(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Replace one neutral word by another (CheckList's sentiment INV test), one occurrence per version:
    "this" -> "that" as a determiner or a pronoun, "that" -> "this" and "these" <-> "those" as determiners,
    "the" -> "this"/"that" before a singular noun that a verb follows ("The flight was good." -> "That flight
    was good."), "flight" -> "journey", "plane" -> "airplane"; never before "time", "year", "one"... where
    a demonstrative points elsewhere. [] when the text has none of them where they can change."""
    selected = _select(inputs, fields)
    found = []
    for f in selected:
        tagged = _tag(inputs[f])
        found += [
            (f, *tagged.offsets[i], tagged.words[i])
            for i in range(len(tagged.words))
            if _neutral_at(tagged, i)
        ]
    if not found:
        return []

    def make() -> Perturbed | None:
        f, start, end, old = _choice(rng, found)
        new = _choice(rng, _NEUTRAL[old.lower()])
        return _apply(
            inputs, "change_neutral", [(f, start, end, _case_like(old, new))], mapping={old.lower(): new}
        )

    return _sample_versions(make, n)


def change_synonyms(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Replace a word by a same-sense synonym, the same way in every selected field (CheckList's QQP INV
    test "replace synonyms in real pairs"), each only where its sense is sure: "quickly" -> "fast",
    "easiest" -> "simplest", "best" -> "most effective" before "way(s)", "way(s)" -> "method(s)" after
    "best", "good", "easiest"..., "living" -> "residing" before "in". [] when the text has none of them."""
    return _swap_words(inputs, rng, "change_synonyms", _SYNONYMS, fields, n)


# CheckList's QQP paraphrases of "how to" questions: a question in one of the forms is rewritten in the
# others ("How can I X?" -> "What is a good way to X?", "If I want to X, what should I do?")
_PARAPHRASE_IN = re.compile(r"^(How do I|How can I|How should I|What is a good way to) (.+?)\s*\?\s*$")
_PARAPHRASE_OUT = (
    "How do I {x}?",
    "How can I {x}?",
    "What is a good way to {x}?",
    "If I want to {x}, what should I do?",
    "In order to {x}, what should I do?",
)


def paraphrase(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Rewrite a "How do I X?" / "How can I X?" / "How should I X?" / "What is a good way to X?" question
    in another of CheckList's forms, including "If I want to X, what should I do?" and "In order to X,
    what should I do?"; up to ``n`` distinct forms drawn at random, each applied to every selected field
    that has the form. [] when no selected field is such a question."""
    selected = _select(inputs, fields)
    matched = {f: m for f in selected if (m := _PARAPHRASE_IN.match(inputs[f]))}
    if not matched:
        return []
    _check_n(n)
    order = [int(i) for i in rng.permutation(len(_PARAPHRASE_OUT))]
    versions = []
    for i in order:
        form = _PARAPHRASE_OUT[i]
        edits = [(f, 0, len(inputs[f]), form.format(x=m[2])) for f, m in matched.items()]
        versions.append(_apply(inputs, "paraphrase", edits, form=form))
    return _distinct(versions)[:n]


_NAME_TOKEN = re.compile(r"[A-Z][A-Za-z]*(?:'[A-Za-z]+)*")  # "O'Brien", "Rice's"


def _entity_spans(text: str) -> list[tuple[int, int]]:
    """Where the entities are: every capitalised word of the name lexicons (a first name used as a surname,
    "Tamara Ray", is kept too), every city or country of the place lexicons whatever the tagger says, and
    every integer. Keeping one more word than needed only keeps a little less gibberish."""
    gender, _, last, _ = _names()
    words = ((m, m.group().removesuffix("'s")) for m in _NAME_TOKEN.finditer(text))  # "Ray's" is Ray's name
    names = [m.span() for m, word in words if word in gender or word in last]
    places = [m.span() for m in _places()[3].finditer(text)]
    return sorted(names + places + [m.span() for m in _INTEGER.finditer(text)])


def gibberish(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None, n: int = 1
) -> list[Perturbed]:
    """Keep the entities (person names, cities and countries, numbers) and fill the rest with gibberish:
    every other word becomes a random string of lower-case letters of its length, punctuation kept
    (CheckList's QQP test "keep entities, fill in with gibberish": such a question is no duplicate of the
    original). [] when a selected field has no entity to keep."""
    selected = _select(inputs, fields)
    spans = {f: _entity_spans(inputs[f]) for f in selected}
    if not all(spans.values()):
        return []
    words = {
        f: [
            m
            for m in _TOKEN.finditer(inputs[f])
            if not any(s < m.end() and m.start() < e for s, e in spans[f])
        ]
        for f in selected
    }

    def make() -> Perturbed | None:
        edits = []
        for f in selected:
            for m in words[f]:
                new = "".join(string.ascii_lowercase[int(i)] for i in rng.integers(26, size=len(m.group())))
                edits.append((f, m.start(), m.end(), _case_like(m.group(), new)))
        return _apply(inputs, "gibberish", edits)

    return _sample_versions(make, n)


# ---------------------------------------------------------------- negation

_BE = frozenset("is are was were am 's 're 'm".split())
_MODALS = frozenset("can could will would shall should may might must ca wo sha".split())
_HAVE = frozenset("has have had 've 'd".split())
_DO = frozenset("do does did".split())
_NEG = frozenset(("not", "n't"))
_SKIP = ("RB", "RBR", "RBS")  # adverbs between an auxiliary and its verb ("has really gone")
_FULL = {"ca": "can", "wo": "will", "sha": "shall"}
_SUBORDINATORS = frozenset(
    "if when whenever while although though because since unless until after before once whereas whether "
    "as".split()
)
_RELATIVES = frozenset("who whom whose which that what".split())
_NEGATIVE_SUBJECTS = frozenset("nobody nothing none no neither nowhere".split())
# sentence adverbs that scope over the negation, so "not" goes after them: "is also not", "perhaps did not"
_BEFORE_NOT = frozenset(
    "also still certainly probably definitely surely clearly obviously perhaps maybe apparently "
    "undoubtedly".split()
)
# verbs whose object takes a bare infinitive ("makes films seem"): that infinitive is no finite verb
_CAUSATIVES = frozenset("make let help have see watch hear feel".split())
_CLAUSE_END = frozenset((",", ".", ":"))


def _next_content(tagged: _Tagged, i: int) -> int | None:
    j = i + 1
    while j < len(tagged.words) and tagged.tags[j] in _SKIP and tagged.words[j].lower() not in _NEG:
        j += 1
    return j if j < len(tagged.words) else None


def _negated_after(tagged: _Tagged, i: int) -> bool:
    """Whether "not"/"n't"/"never" comes within the next four tokens of token ``i``, before any
    punctuation ("will most likely not find"; the tagger may call "most" a verb, so tags are not used)."""
    for j in range(i + 1, min(i + 5, len(tagged.words))):
        if tagged.words[j].lower() in _NEG | _NEGATIVE_SUBJECTS | {"never"}:
            return True  # "is not", "'s no sense", "is nothing new"
        if tagged.tags[j] in (".", ":", ","):
            return False
    return False


def _participle_form(word: str) -> bool:
    """Whether a past-tense form is also the past participle ("told", "embedded"; not "saw")."""
    from lemminflect import getInflection

    return word.lower() in getInflection(W.base_form(word).lower(), tag="VBN")


def _clause_start(tagged: _Tagged, i: int) -> int:
    j = i
    while j > 0 and j not in tagged.sentence_starts and tagged.tags[j - 1] not in _CLAUSE_END:
        j -= 1
    return j


def _participle_phrase(tagged: _Tagged, i: int) -> bool:
    """A past form that opens a participial phrase rather than a clause: right after a comma or at a
    sentence's start ("..., told fairly well and scored to perfection, I found ..."), or right after a
    noun, followed by a preposition, with a verb later in the clause ("the fascination embedded in the
    topic prove ...", a reduced relative)."""
    opens = i in tagged.sentence_starts or tagged.words[i - 1] == ","
    if tagged.tags[i] == "VBN" and opens:
        return True  # "Told in flashbacks, the film drags."
    if tagged.tags[i] != "VBD" or not _participle_form(tagged.words[i]):
        return False
    if opens:
        return True
    if not (tagged.tags[i - 1].startswith("NN") and i + 1 < len(tagged.words) and tagged.tags[i + 1] == "IN"):
        return False
    for j in range(i + 2, len(tagged.words)):
        if tagged.tags[j] in _CLAUSE_END or tagged.tags[j] == "CC" or j in tagged.sentence_starts:
            return False  # "The film opened in Paris and is ...": "opened" is the clause's verb
        if tagged.tags[j] in ("VB", "VBP", "VBZ", "MD"):
            return True
    return False


def _elided_after(tagged: _Tagged, i: int) -> bool:
    """Whether the sentence goes on with an ellipsis of the verb at ``i`` (", but not nearly enough",
    ", but never at the expense of ...", ", even like them"), which the negation would make incoherent."""
    from lemminflect import getAllLemmas

    j = i + 1
    while j < len(tagged.words) - 1 and j not in tagged.sentence_starts:
        if tagged.words[j] == ",":
            rest = [w.lower() for w in tagged.words[j + 1 : j + 3]]
            if rest[:1] == ["not"] or rest in (["but", "not"], ["but", "never"]):
                return True
            if rest[:1] == ["even"] and len(rest) == 2 and rest[1] not in _SUBORDINATORS:
                return "VERB" in getAllLemmas(rest[1])  # ", even like them"; not ", even as ..."
        j += 1
    return False


def _bare_infinitive(tagged: _Tagged, i: int) -> bool:
    """Whether the present form at ``i`` is the bare infinitive of a causative's object ("it makes
    films seem ..."): a causative verb comes earlier in the same clause."""
    return tagged.tags[i] in ("VB", "VBP") and any(
        tagged.tags[j].startswith("VB") and W.base_form(tagged.words[j]).lower() in _CAUSATIVES
        for j in range(_clause_start(tagged, i), i)
    )


def _is_aux(tagged: _Tagged, i: int) -> bool:
    word = tagged.words[i].lower()
    if word in _BE:
        return tagged.tags[i].startswith("VB")  # "'s" tagged POS is a possessive
    if word in _MODALS:
        return tagged.tags[i] == "MD"
    if word in _HAVE or word in _DO:
        j = _next_content(tagged, i)
        want = ("VBN",) if word in _HAVE else ("VB",)
        return j is not None and tagged.tags[j] in want
    return False


def add_negation(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None
) -> list[Perturbed]:
    """Negate the main-clause verb of each selected field where the grammar allows (CheckList's add_negation
    negates the parse's root; here a rule over the tagger finds it: a sentence-initial subordinate clause
    ("If you like it, ...") is skipped up to its comma, and a relative clause's verb ("The film that she
    made is ...") is skipped):

    - an auxiliary or copula (is/are/was/were/am/'s, can/will/should/..., have + participle,
      do + verb) gets "not" after it: "John is happy." -> "John is not happy.";
    - a simple present or past main verb gets do-support: "She likes it." -> "She does not like it.",
      "They went home." -> "They did not go home.", "I like it." -> "I do not like it.".

    Not applicable ([]): no verb, an already negated verb, a negative subject ("Nobody likes it." would
    become "Nobody does not like it."), or a question that starts with its auxiliary ("Is it good?"). A
    field where no rule applies is left as it is; [] when none applies.
    """
    selected = _select(inputs, fields)
    edits: list[Edit] = []
    for f in selected:
        tagged = _tag(inputs[f])
        subordinate = relative = False
        for i, tag in enumerate(tagged.tags):
            word = tagged.words[i]
            lower = word.lower()
            if i in tagged.sentence_starts and lower in _SUBORDINATORS:
                subordinate = True  # "If you like it, you will love this": its verb is not the main one
            if subordinate:
                subordinate = tag != ","
                continue
            after_noun = i > 0 and tagged.tags[i - 1].startswith("NN")
            if lower in _RELATIVES and (tag in ("WDT", "WP", "WP$") or after_noun):
                relative = True  # "The film that she made is ...": the next finite verb is the clause's
                continue
            if lower in _NEGATIVE_SUBJECTS:
                break  # "Nobody likes it": negating its verb is not negating the sentence
            if _participle_phrase(tagged, i):
                subordinate = tagged.words[i - 1] == "," or i in tagged.sentence_starts
                continue  # "..., told fairly well, I found ...": the clause's verb comes later
            if _bare_infinitive(tagged, i):
                break  # "it makes films seem ...": "makes films do not seem" is no English
            finite = _is_aux(tagged, i) or tag in ("VBZ", "VBD", "VBP")
            if relative:
                relative = not finite
                continue
            if finite and (
                any(w.lower() in _NEG | {"never"} for w in tagged.words[:i]) or _negated_after(tagged, i)
            ):
                break  # "not only are ...", "do n't settle", "there 's no sense": already negated
            if finite and _elided_after(tagged, i):
                break  # "it showcases X, but not nearly enough": the negation would contradict the ellipsis
            if _is_aux(tagged, i):
                if i in tagged.sentence_starts or _negated_after(tagged, i):
                    break  # a question ("Is it good?") or already negated ("will most likely not find")
                last = i  # "is also a ..." -> "is also not a ...", not "is not also a ..."
                while last + 1 < len(tagged.words) and tagged.words[last + 1].lower() in _BEFORE_NOT:
                    last += 1
                start, end = tagged.offsets[last]
                if last == i and lower == "can" and end - start == 3:  # "can" + "not" is written "cannot"
                    edits.append((f, end, end, "not"))
                else:
                    edits.append((f, end, end, " not"))
                break
            if tag in ("VBZ", "VBD", "VBP"):  # a main verb in the simple present or past: do-support
                # adverbs right before the verb go after "not": "really likes" -> "does not really like"
                first = i
                while (
                    first > 0
                    and tagged.tags[first - 1] in _SKIP
                    and first not in tagged.sentence_starts
                    and tagged.words[first - 1].lower() not in _BEFORE_NOT  # "perhaps did not put"
                ):
                    first -= 1
                if any(w.lower() in _NEG | {"never"} for w in tagged.words[first:i]):
                    break  # "He never lies."
                from lemminflect import getAllLemmas

                if "VERB" not in getAllLemmas(word.lower()):
                    break  # the tagger's verb is no verb ("people cinema at its finest")
                if tag in ("VBZ", "VBP"):  # by the form, not the tag: "the vitality of the actors keeps"
                    tag = "VBZ" if word.lower() == W.third_person(W.base_form(word).lower()) else "VBP"
                aux = {"VBZ": "does", "VBD": "did", "VBP": "do"}[tag]
                start, end = tagged.offsets[i]
                base = W.base_form(word)
                if first == i:
                    edits.append((f, start, end, _case_like(word, aux) + " not " + base.lower()))
                else:
                    a_start = tagged.offsets[first][0]
                    edits += [(f, a_start, a_start, aux + " not "), (f, start, end, base)]
                break
            if tag.startswith("VB") or tag == "MD":
                break  # a verb no rule covers (a participle, an infinitive): leave this field
    return _distinct([_apply(inputs, "add_negation", edits)])


def remove_negation(
    inputs: Mapping[str, str], rng: np.random.Generator, *, fields: Sequence[str] | None = None
) -> list[Perturbed]:
    """Remove the first negation of each selected field that follows an auxiliary (the reverse of
    ``add_negation``): "is not" -> "is", "isn't" -> "is", "can't" -> "can", "won't" -> "will", and
    do-support undone: "does not like" / "doesn't like" -> "likes", "did not go" -> "went", "do not
    like" -> "like". [] when no field has such a negation ("not bad" alone is not one)."""
    selected = _select(inputs, fields)
    edits: list[Edit] = []
    for f in selected:
        text = inputs[f]
        tagged = _tag(text)
        for i in range(1, len(tagged.words)):
            neg = tagged.words[i].lower()
            if neg not in _NEG:
                continue
            aux_word = tagged.words[i - 1]
            aux = aux_word.lower()
            if aux not in _BE | _MODALS | _HAVE | _DO:
                break
            a_start, a_end = tagged.offsets[i - 1]
            n_start, n_end = tagged.offsets[i]
            if aux in _DO:
                j = _next_content(tagged, i)
                if j is not None and _is_verb(tagged, j):
                    verb = tagged.words[j]
                    form = {"does": W.third_person, "did": W.past, "do": lambda v: v}[aux](verb.lower())
                    v_start, v_end = tagged.offsets[j]
                    lead = _case_like(aux_word, "")  # keep sentence-initial capitals on what comes next
                    middle = text[n_end:v_start].lstrip()  # adverbs between ("does not really like")
                    new = middle + form
                    if aux_word[:1].isupper():
                        new = new[:1].upper() + new[1:]
                    edits.append((f, a_start, v_end, lead + new))
                    break
            if neg == "n't":
                edits.append((f, a_start, n_end, _case_like(aux_word, _FULL.get(aux, aux))))
            else:
                # "is not" -> "is"; "cannot" -> "can" (one word, no space to remove)
                start = a_end if text[a_end:n_start].strip() == "" else n_start
                edits.append((f, start, n_end, ""))
            break
    return _distinct([_apply(inputs, "remove_negation", edits)])


def _is_verb(tagged: _Tagged, j: int) -> bool:
    from lemminflect import getAllLemmas

    return tagged.tags[j].startswith("VB") or "VERB" in getAllLemmas(tagged.words[j].lower())


# ---------------------------------------------------------------- registry

# A perturbation is a function (inputs, rng, **options) -> [Perturbed]; a plug-in adds one through the
# entry-point group "autocheck.perturbations".
PERTURBATIONS: Registry[Callable[..., list[Perturbed]]] = Registry("perturbations", "perturbation")
LANGUAGE = "language"  # the parameter a perturbation takes the task's language profile by
for _function in (
    typos,
    contractions,
    expand_contractions,
    change_names,
    change_location,
    change_number,
    punctuation,
    add_url_handle,
    change_neutral,
    change_synonyms,
    paraphrase,
    gibberish,
    add_negation,
    remove_negation,
    append_phrase,
    rewrite,
    swap_fields,
):
    PERTURBATIONS.register(_function.__name__, _function)


def options_of(name: str) -> list[str]:
    """The options a perturbation takes (its keyword-only parameters but ``language``)."""
    return keywords(PERTURBATIONS[name], given=(LANGUAGE,))


def check_options(
    name: str, options: Mapping[str, Any], inputs: Sequence[str] | None = None, where: str = ""
) -> None:
    """The one check of a perturbation's name and options, for a spec as it loads, the Python API and each
    call, so none accepts what another refuses: a clear error (prefixed with ``where``) for an unknown
    perturbation, an option it does not take (one taking ``**options`` takes any), a required option left
    out, or ``fields`` that are not all ``inputs``."""
    at = f"{where}: " if where else ""
    if name not in PERTURBATIONS:
        raise InputError(f"{at}unknown perturbation '{name}'; known: {', '.join(sorted(PERTURBATIONS))}")
    check_keywords(PERTURBATIONS[name], options, f"{at}perturbation '{name}'", given=(LANGUAGE,))
    fields = options.get("fields")
    if inputs is not None and fields is not None and not set(fields) <= set(inputs):
        raise InputError(
            f"{at}perturbation '{name}': fields {fields} are not all input fields of {list(inputs)}"
        )


def perturb(
    name: str,
    inputs: Mapping[str, str],
    rng: np.random.Generator,
    *,
    language: LanguageProfile = ENGLISH,
    **options: Any,
) -> list[Perturbed]:
    """Run the perturbation ``name`` on one case's inputs (in ``language``, given to a perturbation that
    takes it); InputError for an unknown name or option."""
    check_options(name, options)
    bad = [k for k, v in inputs.items() if not isinstance(k, str) or not isinstance(v, str)]
    if bad:
        raise InputError(f"perturbation '{name}': input fields must map names to strings (bad: {bad})")
    function = PERTURBATIONS[name]
    if LANGUAGE in inspect.signature(function).parameters:
        options = {**options, LANGUAGE: language}
    return function(inputs, rng, **options)
