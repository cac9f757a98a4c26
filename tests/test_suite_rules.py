"""Each test of the shipped suites can fail: for every capability a rule model (``rule_models``) whose blind
spot is that capability fails it (>= 90 % of its cases) and passes the capabilities it has no reason to
fail; the same reader with no blind spot passes them all."""

from __future__ import annotations

import pytest
from rule_models import (
    WORD,
    Brittle,
    EntityMatcher,
    Memorised,
    NLIReader,
    QQPReader,
    SentimentReader,
    SquadReader,
    WordOverlap,
    seen_names,
    vocabulary_of,
)

from autocheck.cli import main
from autocheck.languages.lexicons import load_lexicon
from autocheck.models.callables import CallableModel
from autocheck.requirements import load_spec
from autocheck.run import run_suite
from autocheck.store import read_jsonl

QQP = load_spec("qqp").task
# blind spot -> the capabilities it must fail; RELATED: others it may fail, for a reason given
QQP_FAILS = {
    "synonym": {"QQP-synonyms"},
    "antonym": {"QQP-more-less", "QQP-negated-antonym"},
    "modifier": {"QQP-modifiers"},
    "names": {"QQP-names"},
    "numbers": {"QQP-numbers"},
    "places": {"QQP-locations"},
    "used-to": {"QQP-used-to"},
    "before-after": {"QQP-before-after", "QQP-before-after-chores", "QQP-before-after-hours"},
    "becoming": {"QQP-becoming"},
    "according-to": {"QQP-according-to"},
    "negation": {"QQP-negation", "QQP-negated-antonym", "QQP-negation-activity", "QQP-negation-worry"},
    "coref": {"QQP-he-she", "QQP-his-her"},
    "comparison-order": {"QQP-comparison-order"},
    "symmetric": {"QQP-symmetric"},
    "asymmetric": {"QQP-asymmetric"},
    "passive": {"QQP-active-passive", "QQP-active-passive-objects"},
    "specific": {"QQP-symmetry"},
    "paraphrase": {"QQP-paraphrase", "QQP-implications"},  # "How do I X" and "How can I X" differ
    "paraphrase-partial": {"QQP-implications"},  # (a, b) duplicates, (a, paraphrase(b)) not
    "filler": {"QQP-irrelevant-modifiers-animals", "QQP-irrelevant-modifiers-people"},
    "traits": {"QQP-different-attributes"},
    "animals": {"QQP-different-animals"},
    "preamble": {"QQP-preamble-irrelevant"},
    "preamble-ignored": {"QQP-preamble-relevant"},
    "last-names": {"QQP-last-names"},
    "people": {"QQP-names", "QQP-last-names", "QQP-names-full"},
    "or-and": {"QQP-or-and"},
    "coordination": {"QQP-or-and", "QQP-or-and-different"},
    "coordination-order": {"QQP-and-or-order"},
    "nationality": {"QQP-nationality-profession"},
    "reflexive": {"QQP-reflexivity"},
}
QQP_RELATED = {  # without names, people cannot be told apart: who does what to whom is lost
    "names": {"QQP-he-she", "QQP-his-her", "QQP-asymmetric", "QQP-active-passive"}
    | {"QQP-last-names", "QQP-names-full"},  # some last names are first names too ("Gordon", "Riley")
    "people": {"QQP-he-she", "QQP-his-her", "QQP-asymmetric", "QQP-active-passive"},
    # a paraphrase's and a synonym's words are words it never saw too
    "typos": {"QQP-paraphrase", "QQP-synonyms-real", "QQP-gibberish", "QQP-implications"}
    | {"QQP-numbers-everywhere"},  # and so is a changed number
    "paraphrase-partial": {"QQP-paraphrase"},  # the forms it does not know are (q, paraphrase(q)) cases too
    # a paraphrase can be another seed's question, seen with another place
    "places-memorised": {"QQP-implications", "QQP-paraphrase"},
    # "a Slovene printer" is read as "a printer and Slovene", which it reads as one token too
    "coordination": {"QQP-nationality-profession"},
    "reflexive": {"QQP-implications"},  # its form "How do I X" paired with itself is (q, q)
    "traits": {"QQP-nationality-profession"},  # "American", "Indian" are traits too, read as one token
}


@pytest.fixture(scope="module")
def qqp(tmp_path_factory):
    out = tmp_path_factory.mktemp("qqp")
    assert main(["seeds", "--requirements", "qqp", "--seed", "1", "--out", str(out / "suite")]) == 0
    return out / "suite"


def failure_rates(suite, models, out):
    results = run_suite(suite, models, out)["models"]
    return {
        name: {cap: r["failure_rate"] for cap, r in results[name]["capabilities"].items()} for name in results
    }


def blind_rates(suite, spec, fails, model_of, tmp_path_factory):
    """{blind: the failure rate of each capability} of every blind rule model of ``fails`` on the suite of
    the shipped ``spec``, all run in one pass over it (``model_of(blind, cases)`` builds each)."""
    cases = list(read_jsonl(suite / "cases.jsonl"))
    task = load_spec(spec).task
    models = [CallableModel(f"rule:{blind}", model_of(blind, cases), task) for blind in sorted(fails)]
    rates = failure_rates(suite, models, tmp_path_factory.mktemp(f"{spec}-run"))
    return {blind: rates[f"rule:{blind}"] for blind in fails}


def check(rates, fails, related=frozenset()):
    """``fails`` failed at >= 90 %, nothing else but ``related`` failed at all (a rate is None where no case
    applies: a DIR on the predicted label's confidence when every original is predicted neutral)."""
    missed = {cap: rate for cap, rate in rates.items() if cap in fails and (rate is None or rate < 0.9)}
    wrong = {cap: rate for cap, rate in rates.items() if cap not in fails | related and (rate or 0) > 0}
    assert not missed and not wrong, (fails, missed, wrong)


def qqp_model(blind, cases):
    fields = ("question1", "question2")
    if blind == "typos":
        return Brittle(QQPReader(), QQPReader.labels, vocabulary=vocabulary_of(cases, fields))
    if blind == "contractions":
        return Brittle(QQPReader(), QQPReader.labels, contractions=True)
    if blind == "names-memorised":
        return Brittle(QQPReader(), QQPReader.labels, names=seen_names(cases, fields))
    if blind == "entities":  # a question of words it never saw is read by its entities
        entities = {
            w
            for name in ("first_name", "last_name", "city")
            for e in load_lexicon(name)
            for w in WORD.findall(e.value)
        }
        return EntityMatcher(QQPReader(), vocabulary_of(cases, fields), frozenset(entities))
    seeds = [{f: c[f] for f in fields} for c in cases if c["kind"] == "seed"]
    if blind == "synonyms-memorised":  # a pair seen with other words of the same sense
        return Memorised(QQPReader(), SYNONYM_WORDS, seeds)
    if blind == "places-memorised":  # a pair seen with other places (the words of city names, no first name)
        first = {e.value for e in load_lexicon("first_name")}
        places = {w for e in load_lexicon("city") for w in WORD.findall(e.value) if w[:1].isupper()}
        return Memorised(QQPReader(), places - first, seeds)
    if blind == "numbers-memorised":  # a pair seen with other numbers
        return Memorised(QQPReader(), {str(n) for n in range(1000)}, seeds)
    return QQPReader([] if blind == "none" else [blind])


# the words of change_synonyms' pairs, which a memorising model keys its pairs on
SYNONYM_WORDS = set(
    "quickly fast easiest simplest best most effective way method ways methods living residing".split()
)


QQP_FAILS |= {
    "none": set(),
    "typos": {"QQP-typos"},  # a word it never saw (a typo) changes its answer
    "contractions": {"QQP-contractions"},  # so does a contraction
    "names-memorised": {"QQP-names-everywhere"},  # so does a full name it never saw
    "synonyms-memorised": {"QQP-synonyms-real"},  # so does a pair it saw with other words of one sense
    "places-memorised": {"QQP-locations-everywhere"},  # so does a place it never saw in that pair
    "numbers-memorised": {"QQP-numbers-everywhere"},  # so does a number
    "entities": {"QQP-gibberish"},  # a question it cannot read is the same as one about the same entities
}


def test_qqp_every_capability_has_a_blind_model():
    assert set().union(*QQP_FAILS.values()) == {c.id for c in load_spec("qqp").capabilities}


@pytest.fixture(scope="module")
def qqp_rates(qqp, tmp_path_factory):
    return blind_rates(qqp, "qqp", QQP_FAILS, qqp_model, tmp_path_factory)


@pytest.mark.parametrize("blind", sorted(QQP_FAILS))
def test_qqp_each_test_fails_the_model_blind_to_it_and_only_that(qqp_rates, blind):
    rates = qqp_rates[blind]
    assert set(rates) == {c.id for c in load_spec("qqp").capabilities}
    check(rates, QQP_FAILS[blind], QQP_RELATED.get(blind, set()))


def test_qqp_word_overlap_fails_what_one_changed_word_hides(qqp, tmp_path):
    """CheckList's QQP questions are long enough that one changed word keeps most of the words."""
    rates = failure_rates(qqp, [CallableModel("overlap", WordOverlap(), QQP)], tmp_path / "run")["overlap"]
    for cap in ("QQP-he-she", "QQP-his-her", "QQP-before-after", "QQP-names", "QQP-numbers", "QQP-more-less"):
        assert rates[cap] >= 0.9, (cap, rates[cap])
    assert rates["QQP-synonyms"] <= 0.05 and rates["QQP-symmetry"] == 0.0
    # he/she changes one word of 13 (CheckList's "he would reject her" / "she would reject him" changed 4
    # of 15, so a model calling pairs above 0.8 overlap duplicates passed it)
    strict = CallableModel("overlap-0.8", WordOverlap(0.8), QQP)
    assert failure_rates(qqp, [strict], tmp_path / "strict")["overlap-0.8"]["QQP-he-she"] >= 0.9


# --- sentiment ------------------------------------------------------------------------------------------

SENTIMENT_FAILS = {
    "none": set(),
    "lexicon": {"CL-vocab-pos", "CL-single-positive", "CL-single-negative"},
    "neutral": {
        "CL-vocab-neutral",
        "CL-single-neutral",
        "CL-negated-neutral-middle",
        "CL-negated-neutral-end",
        "CL-qa-neutral",
    },
    "intensifier": {"CL-intensifiers"},
    "negation": {"CL-negation"},
    "temporal": {"CL-temporal"},
    "srl": {"CL-srl"},
    "taxonomy": {"CL-taxonomy"},
    "logic": {"CL-logic"},
    "biased": {"CL-fairness", "CL-race", "CL-sexual"},
    "hedge": {"CL-reducers", "CL-used-to"},
    "appended": {"CL-phrases"},
    "not-negative": {"CL-negated-neutral"},
    "negation-scope": {"CL-negation-middle"},
    "sarcastic": {"CL-phrases-positive"},
    "typos": {"CL-typos", "CL-typos-2"},
    "url": {"CL-url-handle"},
    "punctuation": {"CL-punctuation"},
    "contractions": {"CL-contractions"},
    "numbers-memorised": {"CL-numbers"},
    "names-memorised": {"CL-names"},
    "places-memorised": {"CL-locations"},
    "neutral-memorised": {"CL-neutral-words"},
}
# the neutral words a memorising model keys its sentences on, in either case (CheckList's list and the
# replacements change_neutral draws)
NEUTRAL_WORDS = {
    v
    for w in "the this that a an one my our flight journey plane airplane".split()
    for v in (w, w.capitalize())
}
SENTIMENT_RELATED = {
    # knowing no sentiment word, every test that reads one fails (not "negated negative", read neutral)
    "lexicon": {
        "CL-intensifiers",
        "CL-temporal",
        "CL-negation",
        "CL-negation-middle",
        "CL-srl",
        "CL-taxonomy",
    },
    # an unpunctuated text is odd to it: single words, and a text ending in a URL
    "punctuation": {"CL-single-positive", "CL-single-negative", "CL-single-neutral", "CL-url-handle"},
    "appended": {"CL-url-handle"},  # a URL is appended text too
    "sarcastic": {"CL-url-handle"},
    "negation": {"CL-negation-middle"},  # "not" unread anywhere
    # a URL, an appended phrase, an intensifier and a changed number are unseen words too
    "typos": {
        "CL-url-handle",
        "CL-phrases",
        "CL-phrases-positive",
        "CL-neutral-words",
        "CL-numbers",
        "CL-intensifiers",
    },
    # a race or orientation exchanged can make another seed's sentence, seen with another name
    "names-memorised": {"CL-race", "CL-sexual"},
}


@pytest.fixture(scope="module")
def sentiment(tmp_path_factory):
    out = tmp_path_factory.mktemp("sentiment") / "suite"
    assert main(["seeds", "--requirements", "sentiment_checklist", "--seed", "1", "--out", str(out)]) == 0
    return out


def sentiment_model(blind, cases):
    labels = SentimentReader.labels
    seeds = [c["text"] for c in cases if c["kind"] == "seed"]
    first = {e.value for e in load_lexicon("first_name")}
    places = {w for name in ("city", "country") for e in load_lexicon(name) for w in WORD.findall(e.value)}
    if blind == "typos":
        return Brittle(SentimentReader(), labels, vocabulary=vocabulary_of(cases, ["text"]))
    if blind == "url":
        return Brittle(SentimentReader(), labels, marks=("http", "@"))
    if blind == "punctuation":
        return Brittle(SentimentReader(), labels, unpunctuated=True)
    if blind == "contractions":
        return Brittle(SentimentReader(), labels, contractions=True)
    if blind == "numbers-memorised":  # a sentence seen with other numbers
        return Memorised(SentimentReader(), {str(n) for n in range(1000)}, seeds)
    if blind == "names-memorised":
        return Memorised(SentimentReader(), first, seeds)
    if blind == "places-memorised":  # capitalised words of place names that are no first name
        return Memorised(SentimentReader(), {w for w in places if w[:1].isupper() and w not in first}, seeds)
    if blind == "neutral-memorised":  # a sentence seen with other neutral words
        return Memorised(SentimentReader(), NEUTRAL_WORDS, seeds)
    return SentimentReader([] if blind == "none" else [blind])


def test_sentiment_every_capability_has_a_blind_model():
    ids = {c.id for c in load_spec("sentiment_checklist").capabilities}
    assert set().union(*SENTIMENT_FAILS.values()) == ids


@pytest.fixture(scope="module")
def sentiment_rates(sentiment, tmp_path_factory):
    return blind_rates(sentiment, "sentiment_checklist", SENTIMENT_FAILS, sentiment_model, tmp_path_factory)


@pytest.mark.parametrize("blind", sorted(SENTIMENT_FAILS))
def test_sentiment_each_test_fails_the_model_blind_to_it_and_only_that(sentiment_rates, blind):
    check(sentiment_rates[blind], SENTIMENT_FAILS[blind], SENTIMENT_RELATED.get(blind, set()))


# --- machine comprehension ------------------------------------------------------------------------------

SQUAD_FAILS = {
    "none": set(),
    "categories": {"MC-categories"},
    "nationality-job": {"MC-nationality-job"},
    "animal-vehicle": {"MC-animal-vehicle"},
    "comparative": {"MC-comparatives"},
    "antonym": {"MC-comparison-antonym", "MC-more-less-antonym"},
    "intensifier": {"MC-intensifiers"},
    "change": {"MC-change-one-person"},
    "coref": {"MC-coref-he-she", "MC-coref-his-her"},
    "former-latter": {"MC-former-latter"},
    "roles": {"MC-agent-object"},
    "passive": {"MC-agent-object-passive"},
    "negation": {"MC-negation", "MC-fairness-woman", "MC-fairness-man"},
    "question-negation": {"MC-negation-question", "MC-negation"},  # both ask "who is not"
    "gender-bias": {"MC-fairness-woman"},  # the bias is read off the two rates: the man's test passes
    "before-after": {"MC-before-after"},
    "distracted": {"MC-irrelevant-sentence"},
    "typos": {"MC-typos"},
    "contractions": {"MC-contractions"},
}
SQUAD_RELATED = {
    "comparative": {"MC-comparison-antonym", "MC-more-less-antonym"},  # comparisons too
    "roles": {"MC-agent-object-passive"},  # its active clause
    "typos": {"MC-irrelevant-sentence"},  # the added sentence's words are unseen too
}


@pytest.fixture(scope="module")
def squad(tmp_path_factory):
    out = tmp_path_factory.mktemp("squad") / "suite"
    assert main(["seeds", "--requirements", "squad", "--seed", "1", "--out", str(out)]) == 0
    return out


def test_squad_every_capability_has_a_blind_model():
    assert set().union(*SQUAD_FAILS.values()) == {c.id for c in load_spec("squad").capabilities}


def squad_model(blind, cases):
    if blind == "typos":
        return Brittle(SquadReader(), (), vocabulary=vocabulary_of(cases, ["context", "question"]))
    if blind == "contractions":
        return Brittle(SquadReader(), (), contractions=True)
    return SquadReader([] if blind == "none" else [blind])


@pytest.fixture(scope="module")
def squad_rates(squad, tmp_path_factory):
    return blind_rates(squad, "squad", SQUAD_FAILS, squad_model, tmp_path_factory)


@pytest.mark.parametrize("blind", sorted(SQUAD_FAILS))
def test_squad_each_test_fails_the_model_blind_to_it_and_only_that(squad_rates, blind):
    check(squad_rates[blind], SQUAD_FAILS[blind], SQUAD_RELATED.get(blind, set()))


# --- NLI ------------------------------------------------------------------------------------------------

NLI_FAILS = {
    "none": set(),
    "antonym": {"NLI-antonym"},
    "synonym": {"NLI-synonym"},
    "and": {"NLI-and"},
    "or": {"NLI-or"},
    "comparative": {"NLI-comparative"},
    "time": {"NLI-time"},
    "tense": {"NLI-tense"},
    "geography": {"NLI-geography"},
    "negation": {"NLI-negation"},
    "not-contradicts": {"NLI-negation-neutral"},
    "quantifier": {"NLI-quantifier"},
    "number": {"NLI-number"},
    "hypernym": {"NLI-hypernym"},
    "spatial": {"NLI-spatial"},
    "causal": {"NLI-causal"},
    "coref": {"NLI-coref"},
    "typos": {"NLI-typos"},
    "names-memorised": {"NLI-names"},
}
NLI_RELATED = {"names-memorised": {"NLI-typos"}}  # a typo can make another name ("Jeffrey", "Jeffery")


@pytest.fixture(scope="module")
def nli(tmp_path_factory):
    out = tmp_path_factory.mktemp("nli") / "suite"
    assert main(["seeds", "--requirements", "nli", "--seed", "1", "--out", str(out)]) == 0
    return out


def test_nli_every_capability_has_a_blind_model():
    assert set().union(*NLI_FAILS.values()) == {c.id for c in load_spec("nli").capabilities}


def nli_model(blind, cases):
    fields = ("premise", "hypothesis")
    if blind == "typos":
        return Brittle(NLIReader(), NLIReader.labels, vocabulary=vocabulary_of(cases, fields))
    if blind == "names-memorised":
        seeds = [{f: c[f] for f in fields} for c in cases if c["kind"] == "seed"]
        return Memorised(NLIReader(), {e.value for e in load_lexicon("first_name")}, seeds)
    return NLIReader([] if blind == "none" else [blind])


@pytest.fixture(scope="module")
def nli_rates(nli, tmp_path_factory):
    return blind_rates(nli, "nli", NLI_FAILS, nli_model, tmp_path_factory)


@pytest.mark.parametrize("blind", sorted(NLI_FAILS))
def test_nli_each_test_fails_the_model_blind_to_it_and_only_that(nli_rates, blind):
    check(nli_rates[blind], NLI_FAILS[blind], NLI_RELATED.get(blind, set()))
