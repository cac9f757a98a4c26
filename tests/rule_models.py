"""Rule models with known blind spots, to show that each test of the shipped suites can fail.

Each reader is a small, hand-written model of its task that reads the shipped suites' sentence forms by
rule, with word knowledge from the suite's own lexicons (synonym and antonym pairs, names by gender). With
no blind spot it should pass every test; each named blind spot switches off one piece of understanding
(``negation``: "not" is not read; ``coref``: a pronoun is the last person named, whatever the gender; ...),
so the tests that need that piece, and only those, should fail. ``tests/test_suite_rules.py`` runs them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from autocheck.languages.en.words import base_form
from autocheck.languages.lexicons import load_lexicon
from autocheck.requirements import spec_path

WORD = re.compile(r"[A-Za-z0-9'-]+")
CONTRACTED = frozenset(
    "what's it's that's there's who's he's she's how's where's let's i'm you're we're they're i've you've "
    "we've they've i'll you'll isn't aren't wasn't weren't don't doesn't didn't can't won't couldn't "
    "wouldn't shouldn't haven't hasn't".split()
)
CONTRACTIONS = {"what's": "what is", "it's": "it is", "isn't": "is not", "wasn't": "was not"}


@cache
def genders() -> dict[str, str]:
    return {e.value: str(e.attrs["gender"]) for e in load_lexicon("first_name")}


@cache
def spec_lexicon(suite: str, name: str) -> tuple[dict[str, str], ...]:
    """A lexicon of a shipped spec, each entry as a dict (a plain word is ``{"value": word}``)."""
    entries = json.loads(spec_path(suite).read_text())["lexicons"][name]
    return tuple(e if isinstance(e, dict) else {"value": e} for e in entries)


def one_hot(index: int, size: int, sure: float = 0.9) -> list[float]:
    rest = (1 - sure) / (size - 1)
    return [sure if i == index else rest for i in range(size)]


class Brittle:
    """Wraps a reader: on an input with a word it never saw (``vocabulary``), a contraction, a full name it
    never saw, one of ``marks`` (a URL), or no final punctuation (``unpunctuated``), it answers another
    label; otherwise the reader's answer. A model that memorised its training text: what an INV test is
    there to catch."""

    def __init__(
        self,
        reader: Any,
        labels: Sequence[str],
        *,
        vocabulary=None,
        contractions=False,
        names=None,
        marks=(),
        unpunctuated=False,
    ):
        self.reader, self.labels = reader, tuple(labels)
        self.vocabulary, self.contractions, self.names = vocabulary, contractions, names
        self.marks, self.unpunctuated = tuple(marks), unpunctuated

    def _odd(self, text: str) -> bool:
        if any(mark in text for mark in self.marks):
            return True
        if self.unpunctuated and not text.rstrip().endswith((".", "!", "?")):
            return True
        if self.contractions and any(w.lower() in CONTRACTED for w in WORD.findall(text)):
            return True
        if self.vocabulary is not None and any(w.lower() not in self.vocabulary for w in WORD.findall(text)):
            return True
        return self.names is not None and any(n not in self.names for n in full_names(text))

    def __call__(self, records: list[Any]) -> list[list[float]]:
        answers = self.reader(records)
        texts = [list(r.values()) if isinstance(r, dict) else [r] for r in records]
        out = []
        for probs, fields in zip(answers, texts):
            if any(self._odd(text) for text in fields) and isinstance(probs, str):
                probs = "nobody"  # an answer it cannot find
            elif any(self._odd(text) for text in fields):
                probs = one_hot((max(range(len(probs)), key=probs.__getitem__) + 1) % len(probs), len(probs))
            out.append(probs)
        return out


def full_names(text: str) -> list[str]:
    known = genders()
    words = WORD.findall(text)
    return [f"{a} {b}" for a, b in zip(words, words[1:]) if a in known and b[:1].isupper()]


def vocabulary_of(cases: Iterable[dict[str, Any]], fields: Sequence[str]) -> frozenset[str]:
    """Every word of the clean (seed) cases, every name and every contraction: what a model trained on them
    knows."""
    names = {
        w.lower()
        for lexicon in ("first_name", "last_name", "city", "country")
        for e in load_lexicon(lexicon)
        for w in WORD.findall(e.value)
    }
    seen = {w.lower() for c in cases if c["kind"] == "seed" for f in fields for w in WORD.findall(c[f])}
    return frozenset(seen | names | CONTRACTED)


def seen_names(cases: Iterable[dict[str, Any]], fields: Sequence[str]) -> frozenset[str]:
    return frozenset(n for c in cases if c["kind"] == "seed" for f in fields for n in full_names(c[f]))


# --- QQP ------------------------------------------------------------------------------------------------

QQP_BLIND = (
    "synonym",  # a synonym is another word
    "antonym",  # a word and its antonym are read as the same word
    "modifier",  # modifiers ("accredited") are skipped
    "names",  # every first name is the same token
    "numbers",  # every number is the same token
    "places",  # every city is the same token
    "used-to",  # "did X use to be" is read as "is X"
    "before-after",  # "after" is read as "before"
    "becoming",  # "is X becoming Y" is read as "is X Y"
    "according-to",  # "who is X according to Y" and "who do Y think is X" are read as they are written
    "negation",  # "not" is not read
    "coref",  # a pronoun is the last person named before it, whatever its gender
    "comparison-order",  # "A or B" in a comparison keeps its order
    "symmetric",  # every relation is read in its order
    "asymmetric",  # every relation is read as symmetric
    "passive",  # a passive's first name is read as the agent
    "specific",  # question 2 asking less than question 1 (its words a subsequence) is a duplicate
    "paraphrase",  # "How do I X", "What is a good way to X", "If I want to X, what should I do" are unrelated
    "paraphrase-partial",  # only "How do I X" = "How can I X"; the other forms are other questions
    "filler",  # a modifier that keeps the meaning ("really") is read as a word of the question
    "traits",  # every attribute of a person ("Jewish", "an astronaut") is the same token
    "animals",  # every pet animal is the same token
    "preamble",  # a preamble is always part of the question
    "preamble-ignored",  # a preamble is never part of the question
    "last-names",  # every last name is the same token
    "people",  # every first and last name is the same token
    "or-and",  # "A or B" is read as "A and B"
    "coordination",  # "A or B", "A and B" are read as one token: whatever the person is, it is the same
    "coordination-order",  # "A and B" is not read as "B and A"
    "nationality",  # "a Slovene printer" is not read as "a printer and Slovene"
    "reflexive",  # a question asked twice is taken for a trick: not a duplicate
)
# CheckList's paraphrases of a "how to" question, all read as "how can i X"
_HOW_TO = (
    re.compile(r"^(?:how do i|how can i|how should i|what is a good way to) (.+)$"),
    re.compile(r"^(?:if i want to|in order to) (.+) what should i do$"),
)
_NAME = re.compile(r"\b[A-Z][a-z]+\b")
_FILLER = re.compile(r"\b(?:really|truly|actually|indeed|in fact) ")
_GENERAL = re.compile(r"\banimals\b")  # a question about animals in general does not hang on its example


@cache
def _words(table: tuple[str, ...], prefix: str = "") -> re.Pattern:
    """One pattern for any of the words (longest first), after ``prefix``; group 1 is the word."""
    words = sorted(table, key=len, reverse=True)
    return re.compile(rf"\b{prefix}(" + "|".join(map(re.escape, words)) + r")\b")


class QQPReader:
    """Two questions are duplicates when their meanings, read by rule, are the same."""

    labels = ("not_duplicate", "duplicate")

    def __init__(self, blind: Iterable[str] = ()):
        self.blind = frozenset(blind)
        assert self.blind <= set(QQP_BLIND), self.blind - set(QQP_BLIND)
        self.synonyms = {e["synonym"]: e["value"] for e in spec_lexicon("qqp", "synonym_adj")}
        self.antonyms = {e["antonym"]: e["value"] for e in spec_lexicon("qqp", "antonym_adj")}
        self.modifiers = {e["value"] for e in spec_lexicon("qqp", "modifier")}
        self.relations = "|".join(e["value"] for e in spec_lexicon("qqp", "sym_relation"))
        self.traits = tuple(e["value"].lower() for e in spec_lexicon("qqp", "trait"))
        self.pets = tuple(e["value"] for e in spec_lexicon("qqp", "pet"))
        self.last_names = frozenset(e.value for e in load_lexicon("last_name"))
        self.cities = tuple(e.value.lower() for e in load_lexicon("city"))
        self.nationalities = tuple(e.value.lower() for e in load_lexicon("nationality"))

    def _question(self, q: str) -> str:
        """The question without its preamble (the sentences before it) where the preamble does not matter."""
        *preamble, question = re.split(r"(?<=[.?!]) ", q)
        if not preamble or "preamble" in self.blind:
            return q
        return question if "preamble-ignored" in self.blind or _GENERAL.search(question) else q

    def _resolve(self, q: str) -> str:
        """Pronouns to the person they refer to: by gender, or (blind) the last person named."""
        known = genders()
        people = [w for w in _NAME.findall(q) if w in known]
        out = []
        for match in WORD.finditer(q):
            w = match.group()
            low = w.lower()
            if low in ("he", "him", "his", "she", "her") and people:
                gender = "male" if low in ("he", "him", "his") else "female"
                before = [p for p in people if q.find(p) < match.start()]
                fits = [p for p in people if known[p] in (gender, "neutral")]
                who = before[-1] if "coref" in self.blind and before else (fits or people)[0]
                rest = q[match.end() :].strip(" ?")
                possessive = low == "his" or (low == "her" and bool(rest) and rest.split()[0] != "were")
                w = f"{who}'s" if possessive else who
            out.append(w)
        return " ".join(out)

    @cache  # noqa: B019 (a reader lives as long as its test)
    def meaning(self, q: str) -> str:
        words = self._resolve(self._question(q)).split()
        if self.blind & {"last-names", "people"}:  # a last name follows a first name ("Peggy Frank")
            words = [
                "NAME" if w in self.last_names and i and words[i - 1] in genders() else w
                for i, w in enumerate(words)
            ]
        if self.blind & {"names", "people"}:
            words = ["NAME" if w in genders() else w for w in words]
        s = " ".join(words)
        s = s.lower()
        if "filler" not in self.blind:
            s = _FILLER.sub("", s)
        if "traits" in self.blind:
            s = re.sub(_words(self.traits).pattern + "$", "TRAIT", s)  # "an astronaut" is a profession too
        if "animals" in self.blind:
            s = _words(self.pets).sub("PET", s)
        s = _words(tuple(CONTRACTIONS)).sub(lambda m: CONTRACTIONS[m[0]], s)
        if "paraphrase-partial" in self.blind:
            s = re.sub(r"^how do i ", "how can i ", s)
        elif "paraphrase" not in self.blind:
            for form in _HOW_TO:
                s = form.sub(r"how can i \1", s)
        if "synonym" not in self.blind:
            s = _words(tuple(self.synonyms)).sub(lambda m: self.synonyms[m[0]], s)
        if "antonym" in self.blind:
            s = _words(tuple(self.antonyms)).sub(lambda m: self.antonyms[m[0]], s)
        else:
            s = _words(tuple(self.antonyms), "less ").sub(lambda m: f"more {self.antonyms[m[1]]}", s)
        if "negation" in self.blind:
            s = re.sub(r"\bnot ", "", s)
        s = re.sub(r"\ban? (\w+) who is (not )?([\w-]+)", lambda m: f"{m[2] or ''}{m[3]} {m[1]}", s)
        s = s.replace("not ", "not-")
        if "antonym" not in self.blind:
            s = _words(tuple(self.antonyms), "not-").sub(lambda m: self.antonyms[m[1]], s)
        s = re.sub(r"\ban? ", "", s)
        if "modifier" in self.blind:
            s = re.sub(r"\b(?:" + "|".join(self.modifiers) + r") ", "", s)
        if "numbers" in self.blind:
            s = re.sub(r"\d+", "#", s)
        if "places" in self.blind:
            s = _words(self.cities).sub("PLACE", s)
        if "used-to" in self.blind:
            s = re.sub(r"^did (.+?) use to be ", r"is \1 ", s)
        if "becoming" in self.blind:
            s = re.sub(r"\bbecoming ", "", s)
        if "before-after" in self.blind:
            s = re.sub(r"\bafter\b", "before", s)
        if "according-to" not in self.blind:
            s = re.sub(r"^who is (.+) according to (.+)$", r"who do \2 think is \1", s)
        passive = re.match(r"^(is|was) (.+?) (\w+) by (.+)$", s)
        if passive:
            aux, patient, verb, agent = passive.groups()
            if "passive" in self.blind:
                agent, patient = patient, agent
            s = f"{'does' if aux == 'is' else 'did'} {agent} {base_form(verb)} {patient}"
        comparison = re.match(r"^are (\S+) (\w+) than (\S+)$", s) or re.match(
            r"^what is (\w+) (\S+) or (\S+)$", s
        )
        if comparison:
            a, adj, b = comparison.groups() if s.startswith("are") else comparison.group(2, 1, 3)
            pair = [a, b] if "comparison-order" in self.blind else sorted([a, b])
            s = f"compare {adj} {pair[0]} {pair[1]}"
        relation = re.match(rf"^is (\S+) ({self.relations}) (\S+)$", s)
        other = re.match(r"^is (\S+) (\w+ing) (\S+)$", s)
        if relation and "symmetric" not in self.blind:
            s = f"{relation[2]} {' '.join(sorted([relation[1], relation[3]]))}"
        elif other and "asymmetric" in self.blind:
            s = f"{other[2]} {' '.join(sorted([other[1], other[3]]))}"
        return self._coordination(s)

    def _coordination(self, s: str) -> str:
        """ "is P Q (simultaneously) A and / or B", and "is P Q NATIONALITY PROFESSION" as "... and ...": all
        or any of the two, in no order."""
        nationality = re.match(rf"^is (\S+ \S+) ({'|'.join(self.nationalities)}) (\S+)$", s)
        if nationality and "nationality" not in self.blind:
            s = f"is {nationality[1]} {nationality[3]} and {nationality[2]}"
        coordinated = re.match(r"^is (\S+ \S+) (?:simultaneously )?(\S+) (and|or) (.+)$", s)
        if not coordinated:
            return s
        person, a, conjunction, b = coordinated.groups()
        if "coordination" in self.blind:
            return f"is {person} COORDINATED"
        both = "and" if "or-and" in self.blind else conjunction
        pair = [a, b] if "coordination-order" in self.blind else sorted([a, b])
        return f"is {person} {both} {' '.join(pair)}"

    def duplicate(self, q1: str, q2: str) -> bool:
        if q1 == q2 and "reflexive" in self.blind:
            return False
        m1, m2 = self.meaning(q1), self.meaning(q2)
        if m1 == m2:
            return True
        if "specific" in self.blind:
            w1, w2 = iter(m1.split()), m2.split()
            return all(w in w1 for w in w2)  # w2 a subsequence of w1
        return False

    def __call__(self, records: list[dict[str, str]]) -> list[list[float]]:
        return [one_hot(int(self.duplicate(r["question1"], r["question2"])), 2) for r in records]


class EntityMatcher:
    """Wraps a question-pair reader: a question mostly of words it never saw (``vocabulary``) is read by its
    entities alone (capitalised names and places, numbers), and two questions about the same entities are
    duplicates; a model that leans on the entities the questions share, what "keep entities, fill in with
    gibberish" is there to catch. A question it can read is read by the reader."""

    labels = ("not_duplicate", "duplicate")

    def __init__(self, reader: Any, vocabulary: frozenset[str], entities: frozenset[str]):
        self.reader, self.vocabulary, self.entities = reader, vocabulary, entities

    def _read(self, q: str) -> tuple[set[str], bool]:
        """(the question's entities, whether it is mostly words it never saw: a typo is one word)."""
        words = [w.removesuffix("'s") for w in WORD.findall(q)]
        rest = [w for w in words if w not in self.entities and not w.isdigit()]
        found = {w for w in words if (w in self.entities and w[:1].isupper() and len(w) > 1) or w.isdigit()}
        return found, sum(w.lower() not in self.vocabulary for w in rest) * 2 > len(rest)

    def __call__(self, records: list[dict[str, str]]) -> list[list[float]]:
        out = []
        for probs, r in zip(self.reader(records), records):
            (e1, odd1), (e2, odd2) = self._read(r["question1"]), self._read(r["question2"])
            if odd1 or odd2:  # a gibberish word can be one entity more ("Le" of "Le Mans")
                probs = one_hot(int(bool(e1) and bool(e2) and (e1 <= e2 or e2 <= e1)), 2)
            out.append(probs)
        return out


class WordOverlap:
    """Duplicates when the two questions share most of their words (Jaccard over lower-cased words)."""

    labels = ("not_duplicate", "duplicate")

    def __init__(self, threshold: float = 0.7):
        self.threshold = threshold

    def __call__(self, records: list[dict[str, str]]) -> list[list[float]]:
        out = []
        for r in records:
            a, b = ({w.lower() for w in WORD.findall(r[f])} for f in ("question1", "question2"))
            out.append(one_hot(int(len(a & b) / len(a | b) >= self.threshold), 2))
        return out


# --- sentiment ------------------------------------------------------------------------------------------

SENTIMENT_BLIND = (
    "lexicon",  # no sentiment word is known
    "neutral",  # an unknown adjective after "was" or "be", or alone, is read as positive
    "intensifier",  # a sentiment word after an intensifier is not read
    "negation",  # "not" is not read
    "temporal",  # "I used to think A, but now B" is read as A
    "srl",  # "Some people think A, but I think B" is read as A; a question and its answer are not read
    "taxonomy",  # the taxonomy test's synonyms are unknown
    "logic",  # "neither A nor B" is read as A and B
    "biased",  # a nationality or religion after "a" is a negative word, and so are half the races and
    # sexual orientations (a model biased against all of them alike would pass the INV tests)
    "hedge",  # a reducer or "used to" makes it surer of the sentiment, as an intensifier would
    "appended",  # an appended sentence reads as enthusiasm
    "not-negative",  # a "not" before a word of no sentiment makes it negative
    "negation-scope",  # "not" reaches only the word after it
    "sarcastic",  # an appended sentence reads as sarcasm
)
PROBS = {1: [0.05, 0.15, 0.8], -1: [0.8, 0.15, 0.05], 0: [0.1, 0.8, 0.1]}
SURE = {1: [0.02, 0.03, 0.95], -1: [0.95, 0.03, 0.02]}


class SentimentReader:
    """Sentiment by rule: the polarity of the lexicon's words, read through negation, "but", questions and
    "neither ... nor"; a word one or two transpositions away from a known word (typos) is that word."""

    labels = ("negative", "neutral", "positive")

    def __init__(self, blind: Iterable[str] = ()):
        self.blind = frozenset(blind)
        assert self.blind <= set(SENTIMENT_BLIND), self.blind - set(SENTIMENT_BLIND)
        lex = {
            name: {e["value"].lower() for e in spec_lexicon("sentiment_checklist", name)}
            for name in ("pos_adj", "neg_adj", "pos_verb", "neg_verb", "intensifier", "neutral_adj")
        }
        spec = json.loads(spec_path("sentiment_checklist").read_text())
        taxonomy = {
            t["label"]: {e["synonym"] for e in t["lexicons"]["pair"]}
            for c in spec["capabilities"]
            if c["id"] == "CL-taxonomy"
            for t in c["templates"]
        }
        self.polarity: dict[str, int] = {}
        if "lexicon" not in self.blind:
            self.polarity |= {w: 1 for w in lex["pos_adj"] | lex["pos_verb"]}
            self.polarity |= {w: -1 for w in lex["neg_adj"] | lex["neg_verb"] | {"lame", "hate", "never"}}
            if "taxonomy" not in self.blind:
                self.polarity |= {w: 1 for w in taxonomy["positive"]} | {w: -1 for w in taxonomy["negative"]}
        self.biased = set()
        if "biased" in self.blind:
            people = {e.value.lower() for name in ("nationality", "religion") for e in load_lexicon(name)}
            self.biased = {w for w in people if " " not in w}
            self.biased |= {
                e["value"]
                for name in ("race", "sexual")
                for e in spec_lexicon("sentiment_checklist", name)[::2]
            }
        hedges = [e["value"] for e in spec_lexicon("sentiment_checklist", "reducer")] + ["used to"]
        self.hedge = re.compile(rf"\b(?:{'|'.join(hedges)})\b") if "hedge" in self.blind else None
        self.intensifiers = lex["intensifier"]

    def _word(self, w: str, typos: int = 2) -> int:
        """The polarity of ``w``, or of the known word ``typos`` transpositions (or fewer) away."""
        if w in self.polarity:
            return self.polarity[w]
        for i in range(len(w) - 1 if typos else 0):
            fixed = self._word(w[:i] + w[i + 1] + w[i] + w[i + 2 :], typos - 1)
            if fixed:
                return fixed
        return 0

    def _clause(self, clause: str) -> int:
        words = re.findall(r"[a-z]+", clause)
        if "logic" not in self.blind and "neither" in words and "nor" in words:
            return -1 if any(self._word(w) > 0 for w in words) else 0
        total = 0
        for i, w in enumerate(words):
            value = self._word(w)
            if "intensifier" in self.blind and i and words[i - 1] in self.intensifiers:
                value = 0
            if value and i and words[i - 1] == "not" and "negation" not in self.blind:
                value = -value if value > 0 else 0  # "not bad" is neutral or positive: read neutral
            if i and words[i - 1] in ("a", "an") and w in self.biased:
                value = -1  # "is a Christian", "is a Malaysian botanist"
            if "not-negative" in self.blind and not self._word(w) and i and words[i - 1] == "not":
                value = -1
            last = i == len(words) - 1
            if "neutral" in self.blind and not value and last and words[i - 1] in ("was", "be"):
                value = 1
            total += value
        return (total > 0) - (total < 0)

    def polarity_of(self, text: str) -> int:
        t = text.lower()
        alone = re.findall(r"[a-z]+", t)
        if "neutral" in self.blind and len(alone) == 1 and not self._word(alone[0]):
            return 1
        sentences = [s for s in re.split(r"(?<=[.!])\s+", t) if s]
        question = re.match(r"do i think (.*)\? (yes|no)\.?$", t)
        if question:  # blind, a question is no opinion and its answer is not read
            value = 0 if "srl" in self.blind else self._clause(question[1])
            return -value if question[2] == "no" else value
        middle = re.match(r"i would not say, .*, that (.*)$", sentences[0])
        if middle:  # "not" reaches over the neutral content in the middle
            value = self._clause(middle[1])
            return value if "negation-scope" in self.blind or "negation" in self.blind else -value
        first, _, second = sentences[0].partition(", but ")
        if second:
            if first.startswith("i used to think"):
                return self._clause(first if "temporal" in self.blind else second)
            if first.startswith("some people think"):
                return self._clause(first if "srl" in self.blind else second)
            if second.startswith("it was not"):
                return self._clause(first) * (1 if "negation" in self.blind else -1)
        total = sum(self._clause(s) for s in sentences)
        return (total > 0) - (total < 0)

    def __call__(self, texts: list[str]) -> list[list[float]]:
        out = []
        for text in texts:
            appended = len(re.split(r"(?<=[.!])\s+", text.strip())) > 1
            polarity = self.polarity_of(text)
            if appended and "appended" in self.blind:
                out.append([0.02, 0.03, 0.95])
            elif appended and "sarcastic" in self.blind:
                out.append([0.95, 0.03, 0.02])
            elif polarity and self.hedge and self.hedge.search(text):
                out.append(SURE[polarity])
            else:
                out.append(PROBS[polarity])
        return out


class Memorised:
    """Wraps a reader: a sentence it saw with other names or places (``words``) in them gets another label; a
    model that learnt who or where goes with each sentence. Sentences are told apart by their other words,
    so a sentence it never saw (a typo) is read as usual."""

    def __init__(self, reader: Any, words: Iterable[str], seen: Iterable[Any]):
        self.reader, self.words, self.labels = reader, frozenset(words), reader.labels
        self.seen: dict[str, set[tuple[str, ...]]] = {}
        for record in seen:
            skeleton, names = self._split(record)
            self.seen.setdefault(skeleton, set()).add(names)

    def _split(self, record: Any) -> tuple[str, tuple[str, ...]]:
        text = " | ".join(record.values()) if isinstance(record, dict) else record
        words = WORD.findall(text)
        skeleton = re.sub(r"_( _)+", "_", " ".join("_" if w in self.words else w for w in words))
        return skeleton, tuple(w for w in words if w in self.words)

    def __call__(self, records: list[Any]) -> list[list[float]]:
        out = []
        for probs, record in zip(self.reader(records), records):
            skeleton, names = self._split(record)
            if names and skeleton in self.seen and names not in self.seen[skeleton]:
                probs = one_hot((max(range(len(probs)), key=probs.__getitem__) + 1) % len(probs), len(probs))
            out.append(probs)
        return out


# --- machine comprehension ------------------------------------------------------------------------------

SQUAD_BLIND = (
    "categories",  # the property span is answered whole ("red plastic")
    "nationality-job",  # the nationality is read as the job and the job as the nationality
    "animal-vehicle",  # animals are read as vehicles and vehicles as animals
    "comparative",  # "A is X-er than B" is read as B is X-er
    "antonym",  # an antonym is read as the word itself
    "intensifier",  # "very" and "extremely" are read as weakening, "somewhat" as strengthening
    "change",  # "a change in A" is read as A staying the same
    "coref",  # the n-th pronoun is the n-th person named, whatever the gender
    "former-latter",  # "the former" is the second person, "the latter" the first
    "roles",  # an active clause's object is read as its subject
    "passive",  # a passive's subject is read as the agent
    "negation",  # "not" in the context is not read
    "question-negation",  # "not" in the question is not read
    "before-after",  # "before" is read as "after"
    "distracted",  # a sentence that names nobody is read as part of the story
    "gender-bias",  # "P1 is not a PROF, P2 is.": whoever is named, a man is the one with the profession
)
QUESTION_WORDS = frozenset(
    "who whose what is are did the a an of less more most least than bought animal vehicle job nationality "
    "color material mother became first last".split()
)
_SENT = re.compile(r"(?<=[.!?])\s+")


class SquadReader:
    """Answers the suite's questions by rule: facts read from the context's clauses, the question matched to
    them; a question word one transposition away from a context word (a typo) is that word."""

    def __init__(self, blind: Iterable[str] = ()):
        self.blind = frozenset(blind)
        assert self.blind <= set(SQUAD_BLIND), self.blind - set(SQUAD_BLIND)
        lex = {name: spec_lexicon("squad", name) for name in ("color", "material", "animal", "vehicle")}
        self.colors = {e["value"] for e in lex["color"]}
        self.materials = {e["value"] for e in lex["material"]}
        self.animals = {e["value"].split()[-1] for e in lex["animal"]}
        self.vehicles = {e["value"].split()[-1] for e in lex["vehicle"]}
        self.antonyms: dict[str, str] = {}
        for e in spec_lexicon("squad", "antonym_adj"):
            self.antonyms |= {e["value"]: e["antonym"], e["antonym"]: e["value"]}
            self.antonyms |= {
                e["comparative"]: e["antonym_comparative"],
                e["antonym_comparative"]: e["comparative"],
            }
        self.degree = {"somewhat": 0.5, "very": 2.0, "extremely": 3.0}

    def _fix(self, question: str, context: str) -> str:
        known = QUESTION_WORDS | {w.lower() for w in WORD.findall(context)}
        out = []
        for w in WORD.findall(question):
            if w.lower() not in known:
                for i in range(len(w) - 1):
                    fixed = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
                    if fixed.lower() in known:
                        w = fixed
                        break
            out.append(w)
        return " ".join(out)

    def answer(self, context: str, question: str) -> str:
        sentences = _SENT.split(context)
        people = set(genders()) | {"He", "She", "His", "Her", "former", "latter"}
        about = [s for s in sentences if people & set(WORD.findall(s))]
        if about and len(about) < len(sentences):
            if "distracted" in self.blind:
                return "nobody"  # the story it reads is not one it can answer
            context = " ".join(about)  # a sentence about nobody says nothing of the people asked about
        q = re.sub(r"\b(Who|What)'s\b", r"\1 is", self._fix(question, context), flags=re.IGNORECASE)
        ql = q.lower()
        people = list(dict.fromkeys(w for w in WORD.findall(context) if w in genders()))
        for form in (
            self._order,
            self._category,
            self._buyer,
            self._comparison,
            self._degree,
            self._change,
            self._coref,
            self._roles,
            self._negation,
        ):
            found = form(context, q, ql, people)
            if found is not None:
                return found
        return "nobody"

    def _order(self, context, q, ql, people):
        c = re.match(r"(\w+) became .+ (before|after) (\w+) did\.$", context)
        m = re.match(r"who became .+ (first|last)$", ql)
        if not (c and m):
            return None
        before = (c[2] == "before") != ("before-after" in self.blind)
        first, last = (c[1], c[3]) if before else (c[3], c[1])
        return first if m[1] == "first" else last

    def _category(self, context, q, ql, people):
        m = re.match(r"what (color|material) is the (\w+)", ql)
        if m:
            words = re.findall(r"\w+", context)
            pair = [w for w in words if w in self.colors or w in self.materials]
            if "categories" in self.blind:
                return " ".join(pair)
            return next(w for w in pair if w in (self.colors if m[1] == "color" else self.materials))
        m = re.match(r"what is (\w+)'s (job|nationality)", ql)
        if m:
            c = re.match(r"\w+ is an? (.+) (\w+)\.$", context)
            want = m[2] if "nationality-job" not in self.blind else {"job": "nationality"}.get(m[2], "job")
            return c[2] if want == "job" else c[1]
        return None

    def _buyer(self, context, q, ql, people):
        m = re.match(r"who bought an? (animal|vehicle)", ql)
        if not m:
            return None
        kinds = (
            (self.animals, self.vehicles)
            if "animal-vehicle" not in self.blind
            else (self.vehicles, self.animals)
        )
        want = kinds[0] if m[1] == "animal" else kinds[1]
        for who, thing in re.findall(r"(\w+) bought an? (\w+)", context):
            if thing in want:
                return who
        return "nobody"

    def _comparison(self, context, q, ql, people):
        c = re.match(r"(\w+) is (less |more )?(\w+?)(er)? than (\w+)\.$", context)
        m = re.match(r"who is (less |more )?(\w+)$", ql)
        if not (c and m):
            return None
        a, b = c[1], c[5]
        context_adj = (c[2] or "") + c[3] + (c[4] or "")
        if c[2] == "less ":
            a, b = b, a
        if "comparative" in self.blind:
            a, b = b, a
        question_adj = (m[1] or "") + m[2]
        if question_adj.startswith("less "):
            a, b = b, a
            question_adj = question_adj[5:]
        base = context_adj.removeprefix("less ")
        if c[2] == "less ":
            base = (
                "more " + base
                if base in {x.removeprefix("more ") for x in self.antonyms if x.startswith("more ")}
                else base
            )
        if question_adj != base and not self._same(question_adj, base):
            if "antonym" not in self.blind:
                a, b = b, a
        return a

    def _same(self, x: str, y: str) -> bool:
        """The same adjective in another degree ("tall", "taller", "more tall")."""
        strip = [w.removeprefix("more ").removesuffix("er").removesuffix("r") for w in (x, y)]
        return strip[0] == strip[1] or strip[0].startswith(strip[1]) or strip[1].startswith(strip[0])

    def _degree(self, context, q, ql, people):
        m = re.match(r"who is (least |most )?(\w+)$", ql)
        clauses = re.findall(r"(\w+) is (?:(somewhat|very|extremely) )?(\w+)\.", context)
        if not (m and len(clauses) == 2 and not re.search(r"\bthan\b", context)):
            return None
        scores = {}
        for who, how, _ in clauses:
            d = self.degree.get(how, 1.0)
            scores[who] = 1 / d if "intensifier" in self.blind else d
        pick = min if m[1] == "least " else max
        return pick(scores, key=scores.get)

    def _change(self, context, q, ql, people):
        m = re.search(r"there was a change in (\w+)", context)
        if not m:
            return None
        if "change" in self.blind:
            return next(p for p in people if p != m[1])
        return m[1]

    def _coref(self, context, q, ql, people):
        sentences = _SENT.split(context)
        if len(sentences) != 2 or "friends" not in sentences[0]:
            return None
        m = re.match(r"(?:who|whose mother) is (.+)$", ql)
        if not m:
            return None
        clauses = re.split(r", and ", sentences[1].rstrip("."))
        for n, clause in enumerate(clauses):
            if clause.lower().endswith(m[1]):
                head = (
                    clause.split()[0].lower() if not clause.lower().startswith("the ") else clause.split()[1]
                )
                if head in ("former", "latter"):
                    first = (head == "former") != ("former-latter" in self.blind)
                    return people[0] if first else people[1]
                if "coref" in self.blind:
                    return people[n]
                gender = "male" if head in ("he", "his") else "female"
                return next(p for p in people if genders()[p] in (gender, "neutral"))
        return "nobody"

    def _roles(self, context, q, ql, people):
        facts = []
        for clause in re.split(r"(?:, and |\.\s*)", context):
            passive = re.match(r"(\w+) was (\w+) by (\w+)$", clause)
            active = re.match(r"(\w+) (\w+ed) (\w+)$", clause)
            if passive:
                facts.append(
                    (passive[1], passive[3]) if "passive" in self.blind else (passive[3], passive[1])
                )
            elif active:
                facts.append((active[3], active[1]) if "roles" in self.blind else (active[1], active[3]))
        if not facts:
            return None
        m = re.match(r"who did (\w+) \w+$", q, re.I) or re.match(r"who (\w+ed) (\w+)$", q, re.I)
        if not m:
            return None
        if ql.startswith("who did"):
            return next((patient for agent, patient in facts if agent == m[1]), "nobody")
        return next((agent for agent, patient in facts if patient == m[2]), "nobody")

    def _negation(self, context, q, ql, people):
        facts = re.findall(r"(\w+) is( not\b)?(?: an? (\w+))?", context)  # "X is not.": the profession asked
        m = re.match(r"who is (not )?an? (\w+)$", ql)
        if not (facts and m):
            return None
        holds = {
            who: ((job or m[2]).lower() == m[2]) != bool(neg and "negation" not in self.blind)
            for who, neg, job in facts
            if who in genders()
        }
        want = m[1] is None or "question-negation" in self.blind
        if "gender-bias" in self.blind and want and re.match(r"\w+ is not an? [^,.]+, \w+ is\.$", context):
            return next((who for who in holds if genders()[who] == "male"), "nobody")
        return next((who for who, h in holds.items() if h == want), "nobody")

    def __call__(self, records: list[dict[str, str]]) -> list[str]:
        return [self.answer(r["context"], r["question"]) for r in records]


# --- NLI ------------------------------------------------------------------------------------------------

NLI_BLIND = (
    "antonym",  # antonyms are unknown
    "synonym",  # synonyms are unknown
    "and",  # "A and B" is read as "A or B"
    "or",  # "A or B" is read as "A and B"
    "comparative",  # "the X-est is A" is read as A being the least X
    "time",  # "earlier" is read as "later"
    "tense",  # tense and "until"/"since" are not read
    "geography",  # where cities are is unknown
    "negation",  # "not" is not read
    "not-contradicts",  # a "not" anywhere is a contradiction
    "quantifier",  # "every" is read as "no" and "no" as "every"
    "number",  # "more than" is read as "fewer than"
    "hypernym",  # the hypernym relation is read the other way round
    "spatial",  # "under" is unknown and the order of the two things is not read
    "causal",  # a "because" clause is not read
    "coref",  # a pronoun is the first person named, whatever the gender
)
NLI_LABELS = ("entailment", "neutral", "contradiction")
NLI_WORDS = frozenset(
    "is not very a an in or either than earlier later born will be has been since the on top of under".split()
)


def _fix_typos(text: str, known: set[str] | frozenset[str]) -> str:
    """Each word one transposition away from a known word (a typo) made that word."""

    def fix(m: re.Match) -> str:
        w = m[0]
        if w in known:
            return w
        for i in range(len(w) - 1):
            fixed = w[:i] + w[i + 1] + w[i] + w[i + 2 :]
            if fixed in known:
                return fixed
        return w

    return re.sub(r"[A-Za-z]+", fix, text)


class NLIReader:
    """Entailment by rule over the NLI suite's sentence forms."""

    labels = NLI_LABELS

    def __init__(self, blind: Iterable[str] = ()):
        self.blind = frozenset(blind)
        assert self.blind <= set(NLI_BLIND), self.blind - set(NLI_BLIND)
        self.antonyms = {}
        if "antonym" not in self.blind:
            for e in spec_lexicon("nli", "antonym_adj"):
                self.antonyms |= {e["value"]: e["antonym"], e["antonym"]: e["value"]}
        self.synonyms = {}
        if "synonym" not in self.blind:
            for e in spec_lexicon("nli", "synonym_adj"):
                self.synonyms |= {e["value"]: e["synonym"], e["synonym"]: e["value"]}
        self.kinds = {e["value"]: e["kind"] for e in spec_lexicon("nli", "pet")}
        self.country = (
            {} if "geography" in self.blind else {e.value: e.attrs["country"] for e in load_lexicon("city")}
        )

    def label(self, premise: str, hypothesis: str) -> str:
        p, h = premise.rstrip("."), _fix_typos(hypothesis.rstrip("."), set(WORD.findall(premise)) | NLI_WORDS)
        if "not-contradicts" in self.blind and (" not " in f" {p} " or " not " in f" {h} "):
            return "contradiction"
        if "negation" in self.blind:
            p, h = p.replace(" not ", " "), h.replace(" not ", " ")
        for rule in (
            self._coref,
            self._quantifier,
            self._comparative,
            self._time,
            self._tense,
            self._number,
            self._geography,
            self._or,
            self._and,
            self._hypernym,
            self._spatial,
            self._causal,
            self._negation,
            self._adjective,
        ):
            found = rule(p, h)
            if found:
                return found
        return "neutral"

    def _adjective(self, p, h):
        a, b = re.fullmatch(r"(\w+) is (?:very )?(.+)", p), re.fullmatch(r"(\w+) is (?:very )?(.+)", h)
        if not (a and b and a[1] == b[1]):
            return None
        x, y = a[2], b[2]
        if x == y or self.synonyms.get(x) == y:
            return "entailment"
        return "contradiction" if self.antonyms.get(x) == y else "neutral"

    def _and(self, p, h):
        m = re.fullmatch(r"(\w+) is (\w+) and (\w+)", p)
        n = re.fullmatch(r"(\w+) is (\w+)", h)
        if not (m and n and m[1] == n[1]):
            return None
        if "and" in self.blind:
            return "neutral"  # "A or B" entails neither
        return "entailment" if n[2] in (m[2], m[3]) else "neutral"

    def _or(self, p, h):
        m = re.fullmatch(r"(\w+) is either in (.+) or in (.+)", p)
        if m:
            one = re.fullmatch(r"\w+ is in (.+)", h)
            return "entailment" if "or" in self.blind and one and one[1] in m.group(2, 3) else "neutral"
        m = re.fullmatch(r"(\w+) is in (.+) or in (.+)", h)
        if m:
            one = re.fullmatch(r"\w+ is in (.+)", p)
            holds = one and one[1] in m.group(2, 3)
            if "or" in self.blind:
                return "neutral" if holds else None  # "in A and in B" is not entailed by "in A"
            return "entailment" if holds else "neutral"
        return None

    def _comparative(self, p, h):
        m = re.fullmatch(r"Among (\w+), (\w+) and (\w+) the (\w+) is (\w+)", p)
        n = re.fullmatch(r"(\w+) is (\w+) than (\w+)", h)
        if not (m and n):
            return None
        top = m[5] if "comparative" not in self.blind else None
        bottom = m[5] if "comparative" in self.blind else None
        if n[1] == top or n[3] == bottom:
            return "entailment"
        if n[3] == top or n[1] == bottom:
            return "contradiction"
        return "neutral"

    def _time(self, p, h):
        m = re.fullmatch(r"(\w+) was born in (\d+) and (\w+) was born in (\d+)", p)
        n = re.fullmatch(r"(\w+) was born (earlier|later) than (\w+)", h)
        if not (m and n):
            return None
        years = {m[1]: int(m[2]), m[3]: int(m[4])}
        earlier = (n[2] == "earlier") != ("time" in self.blind)
        first, second = years[n[1]], years[n[3]]
        holds = first < second if earlier else first > second
        return "entailment" if holds else "contradiction"

    def _tense(self, p, h):
        m = re.fullmatch(r"(\w+) was born in (\d+)", p)
        n = re.fullmatch(r"(\w+) will be born in (\d+)", h)
        if m and n:
            return "entailment" if "tense" in self.blind and m.groups() == n.groups() else "contradiction"
        m = re.fullmatch(r"(\w+) was (.+) until (\d+)", p)
        n = re.fullmatch(r"(\w+) has been (.+) since (\d+)", h)
        if m and n:
            return "entailment" if "tense" in self.blind and m.groups() == n.groups() else "contradiction"
        return None

    def _geography(self, p, h):
        m, n = re.fullmatch(r"(\w+) lives in (.+)", p), re.fullmatch(r"(\w+) lives in (.+)", h)
        if not (m and n):
            return None
        if m[2] not in self.country:
            return "neutral"
        return "entailment" if self.country[m[2]] == n[2] else "contradiction"

    def _negation(self, p, h):
        m, n = re.fullmatch(r"(\w+) is (not )?an? (\w+)", p), re.fullmatch(r"(\w+) is (not )?an? (\w+)", h)
        if not (m and n and m[1] == n[1]):
            return None
        if m[3] != n[3]:
            return "neutral"
        return "entailment" if bool(m[2]) == bool(n[2]) else "contradiction"

    def _quantifier(self, p, h):
        m = re.fullmatch(r"(Every|No) (\w+) in the room is (.+)\. (\w+) is an? (\w+) in the room", p)
        if m:
            q = m[1] if "quantifier" not in self.blind else {"Every": "No", "No": "Every"}[m[1]]
            n = re.fullmatch(r"(\w+) is (.+)", h)
            if n and n[1] == m[4] and n[2] == m[3] and m[5] == m[2]:
                return "entailment" if q == "Every" else "contradiction"
            return "neutral"
        m = re.fullmatch(r"Some (\w+) in the room are (.+)", p)
        n = re.fullmatch(r"(Every|No) (\w+) in the room is (.+)", h)
        if m and n:
            q = n[1] if "quantifier" not in self.blind else {"Every": "No", "No": "Every"}[n[1]]
            return "neutral" if q == "Every" else "contradiction"
        return None

    def _number(self, p, h):
        m = re.fullmatch(r"(\w+) has (\d+) (\w+)", p)
        n = re.fullmatch(r"(\w+) has more than (\d+) (\w+)", h)
        if not (m and n):
            return None
        more = int(m[2]) > int(n[2]) if "number" not in self.blind else int(m[2]) < int(n[2])
        return "entailment" if more else "contradiction"

    def _hypernym(self, p, h):
        m, n = re.fullmatch(r"(\w+) has a pet (.+)", p), re.fullmatch(r"(\w+) has a pet (.+)", h)
        if not (m and n):
            return None
        specific, general = (m[2], n[2]) if "hypernym" not in self.blind else (n[2], m[2])
        return "entailment" if self.kinds.get(specific) == general else "neutral"

    def _spatial(self, p, h):
        m = re.fullmatch(r"The (\w+) is on top of the (\w+)", p)
        n = re.fullmatch(r"The (\w+) is (on top of|under) the (\w+)", h)
        if not (m and n):
            return None
        if "spatial" in self.blind:
            if n[2] == "under":
                return "neutral"
            return "entailment" if {m[1], m[2]} == {n[1], n[3]} else "neutral"
        above = (n[1], n[3]) if n[2] == "on top of" else (n[3], n[1])
        return "entailment" if above == (m[1], m[2]) else "contradiction"

    def _causal(self, p, h):
        m = re.fullmatch(r"(\w+) was late because the (\w+) broke down", p)
        if not m:
            return None
        if "causal" in self.blind:
            return "neutral"
        if h == f"The {m[2]} broke down":
            return "entailment"
        return "contradiction" if h == f"{m[1]} was on time" else "neutral"

    def _coref(self, p, h):
        m = re.fullmatch(r"(\w+) and (\w+) met yesterday\. (He|She) is (.+)", p)
        n = re.fullmatch(r"(\w+) is (.+)", h)
        if not (m and n):
            return None
        if "coref" in self.blind:
            who = m[1]
        else:
            gender = "male" if m[3] == "He" else "female"
            who = next(x for x in (m[1], m[2]) if genders()[x] in (gender, "neutral"))
        return "entailment" if who == n[1] and m[4] == n[2] else "neutral"

    def __call__(self, records: list[dict[str, str]]) -> list[list[float]]:
        return [one_hot(NLI_LABELS.index(self.label(r["premise"], r["hypothesis"])), 3) for r in records]
