"""--insertions modifiers: one adjective right before a noun phrase's first noun, or one adverb in a
clause, verb or adjective phrase; quantifiers and ordinals rejected by the determinative check,
circumstances, misplaced degree and focus adverbs by the adverb check."""

from __future__ import annotations

import json
from dataclasses import replace
from types import SimpleNamespace

import pytest
from conftest import require_nltk
from test_expansion import grammar, parse_of, rendered
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck.expand.expansion import Differentiator
from autocheck.expand.insertions import (
    CIRCUMSTANCES,
    DETERMINATIVES,
    FOCUS,
    FUNCTION_ADVERBS,
    INSERTABLE,
    PROPERTY_ADJECTIVES,
    Adverbs,
    Determinatives,
    GlossScoredNeutral,
    Phrases,
    WordOrder,
    intensifies,
    modifier_phrase,
    one_modifier,
    seed_sites,
    vocabulary_limits,
)
from autocheck.expand.validate import MeetsRequirement, Polarity
from autocheck.expand.vocabulary import INTENSIFIER, TagDictionary, VocabularyFilter
from autocheck.records import MaskedTemplate


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((1, "JJ"),)),  # a [new] film
        ("NP", ("DT", "JJ", "NN"), ((2, "JJ"),)),  # a good [little] idea
        ("NP", ("NP", "NN"), ((1, "JJ"),)),  # Famuyiwa's [own] emergence
        ("VP", ("VBZ", "ADJP"), ((1, "RB"),)),  # is [really] amusing
        ("S", ("NP", "VP"), ((1, "RB"),)),  # It [also] is a bad sign
        ("ADJP", ("JJ",), ((0, "RB"),)),  # [very] light
    ],
)
def test_modifiers_keep_an_adjunct_where_its_phrase_takes_it(lhs, rhs, placement):
    assert one_modifier(lhs, rhs, placement)


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((0, "JJ"),)),  # [sure] a movie: before the determiner
        ("NP", ("DT", "NN", "NN"), ((2, "JJ"),)),  # the film [new] process: after a noun
        ("NP", ("DT",), ((1, "JJ"),)),  # those [other] who: no noun to modify
        ("NP", ("DT", "JJS", "NN"), ((1, "JJ"),)),  # the [whole] worst film: before an adjective
        ("NP", ("DT", "ADJP", "NN"), ((1, "JJ"),)),  # a [real] healthy sense
        ("NP", ("DT", "NN"), ((1, "JJS"),)),  # a [largest] cheat: a superlative
        ("NP", ("DT", "NN"), ((1, "NN"),)),  # The [horror] movie: a noun
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "JJ"))),  # two words
        ("PP", ("IN", "NP"), ((0, "RB"),)),  # lives [directly] of quiet desperation
        ("ADVP", ("RB",), ((0, "RB"),)),  # too [far] savvy
        ("PP", ("IN", "NP"), ((0, "JJ"),)),  # an adjective outside a noun phrase
        ("NP", ("DT", "NN"), ((1, "DT"),)),  # a function word
    ],
)
def test_modifiers_reject_what_is_no_adjunct_or_out_of_place(lhs, rhs, placement):
    assert not one_modifier(lhs, rhs, placement)


def test_a_seed_gets_its_top_k_from_modifier_productions_when_better_ranked_ones_insert_nouns():
    seed = parse_of("The film was good", "(S (NP (DT The) (NN film)) (VP (VBD was) (ADJP (JJ good))))")
    g = grammar(
        {
            "NP": {("DT", "NN"): 1, ("DT", "NN", "NN"): 8, ("DT", "JJ", "NN"): 2},
            "VP": {("VBD", "ADJP"): 1, ("VBD", "RB", "ADJP"): 1},
            "S": {("NP", "VP"): 1},
            "ADJP": {("JJ",): 1},
        }
    )
    differ = Differentiator(g)
    nouns = ["The [NN] film was good", "The film [NN] was good"]  # the best production, two placements
    assert rendered(differ.differentiate("c", seed, top_k=1)) == nouns
    modifiers = differ.differentiate("c", seed, top_k=2, insertable=INSERTABLE["modifiers"])
    assert rendered(modifiers) == ["The film was [RB] good", "The [JJ] film was good"]


def test_an_ungraded_attributive_adjective_of_a_flat_phrase_is_a_site_for_an_adverb():
    seed = parse_of("An enjoyable experience.", "(NP (DT An) (JJ enjoyable) (NN experience) (. .))")
    graded = parse_of("The most ingenious film", "(NP (DT The) (RBS most) (JJ ingenious) (NN film))")
    g = grammar({"NP": {("DT", "JJ", "NN", "."): 1}, "ADJP": {("JJ",): 2, ("RB", "JJ"): 1}}, {"NP": 1})
    differ, modifiers = Differentiator(g), INSERTABLE["modifiers"]
    assert differ.differentiate("c", seed, insertable=modifiers) == []  # the flat phrase alone: no site
    found = differ.differentiate("c", seed, insertable=modifiers, attributive_phrases=True)
    assert rendered(found) == ["An [RB] enjoyable experience."]
    assert differ.differentiate("c", graded, insertable=modifiers, attributive_phrases=True) == []


def test_the_determinative_check_rejects_quantifiers_ordinals_and_asserting_adjectives():
    words = ("few", "Such", "first", "only", "certain", "real", "special", "new", "little", "own")
    candidates = [SimpleNamespace(words=(w,)) for w in words]
    assert Determinatives().passes(candidates) == [False] * 7 + [True] * 3  # type: ignore[arg-type]
    assert {"few", "many", "much", "such", "other", "first", "last"} <= DETERMINATIVES


def adverb_candidate(seed: str, tags: str, before: int, word: str, tag: str = "RB"):
    """A one-word fill of ``seed`` (tokens split on spaces, one sentence tagged ``tags``) before token
    ``before``: what the adverb check reads of a ``validate.Candidate``."""
    tokens = tuple(seed.split())
    template = SimpleNamespace(masks=((before, tag),), parse=SimpleNamespace(tokens=tokens))
    return SimpleNamespace(template=template, words=(word,), seed_tags=[(0, len(tokens), tags.split())])


@pytest.mark.parametrize(
    ("seed", "tags", "before", "word", "keeps"),
    [
        ("It is amusing", "PRP VBZ JJ", 2, "so", True),  # is [so] amusing
        ("It is captivating", "PRP VBZ VBG", 2, "very", True),  # a participle that is an adjective too
        ("I like being buried", "PRP VBP VBG VBN", 2, "very", False),  # like [very] being: a verb form
        ("It is quickly done", "PRP VBZ RB VBN", 2, "very", True),  # is [very] quickly done: an adverb
        ("Brown Sugar signals director", "NNP NNP VBZ NN", 3, "so", False),  # signals [so] director
        ("It is pretty cheesy", "PRP VBZ JJ JJ", 2, "very", False),  # [very] pretty cheesy: a degree word
        ("It is worse", "PRP VBZ JJR", 2, "very", False),  # a comparative
        ("It is incredible", "PRP VBZ JJ", 3, "too", False),  # nothing after it
        ("And that leaves a hole", "CC DT VBZ DT NN", 2, "just", True),  # that [just] leaves
        ("It is amusing", "PRP VBZ JJ", 1, "just", False),  # It [just] is amusing: before a copula
        ("I can think", "PRP MD VB", 1, "only", False),  # I [only] can think: before a modal
        ("It probably is", "PRP RB VBZ", 1, "only", False),  # before another adverb
        ("anyone could have thought", "NN MD VB VBN", 1, "there", False),  # a circumstance of place
        ("as it doles out", "IN PRP VBZ RP", 1, "then", False),  # of time
        ("lives of desperation", "NNS IN NN", 1, "instead", False),  # a connective
        ("It is incredible !", "PRP VBZ JJ .", 3, "either", False),  # needs a negation
        ("It is a sign", "PRP VBZ DT NN", 1, "also", True),  # It [also] is: no class of the check's
        ("you think", "PRP VBP", 1, "always", False),  # a frequency, as a circumstance of time
        ("this is satire", "DT VBZ NN", 2, "highly", False),  # [highly] satire: a degree adverb
        ("it works", "PRP VBZ", 1, "quite", False),  # it [quite] works: a degree adverb before a verb
        ("substance here to sustain", "NN RB TO VB", 2, "before", False),  # a circumstance of time
        ("film , but it is", "NN , CC PRP VBZ", 3, "even", False),  # but [even] it: before a pronoun
        ("An enjoyable experience", "DT JJ NN", 1, "utterly", True),  # grades an attributive adjective
        ("An enjoyable experience", "DT JJ NN", 1, "extremely", True),
        ("A enjoyable experience", "DT JJ NN", 1, "so", False),  # English writes "so enjoyable an"
        ("An enjoyable experience", "DT JJ NN", 1, "also", False),  # a sentence adverb
        ("An enjoyable experience", "DT JJ NN", 1, "simply", False),  # a focus adverb
        ("An enjoyable experience", "DT JJ NN", 1, "terribly", True),  # an intensifier
        ("It is enjoyable", "PRP VBZ JJ", 2, "also", True),  # predicative: not attributive
        ("there are many tense scenes", "EX VBP JJ JJ NNS", 2, "even", True),  # a quantifier: not graded
        ("A worthwhile way", "DT JJ NN", 1, "nearly", False),  # a hedge: "nearly worthwhile" is not
        ("A worthwhile way", "DT JJ NN", 1, "slightly", False),  # a reducer weakens the label
        ("It works", "PRP VBZ", 1, "probably", False),  # an epistemic hedge, wherever it goes
        ("It is sweet", "PRP VBZ JJ", 2, "too", False),  # [too] sweet: an excess, a complaint
        # sixteenth round: "generally"'s kin and the restrictives, which hedge what they grade
        ("The actors are fantastic", "DT NNS VBP JJ", 3, "normally", False),  # the rule, not this case
        ("The actors are fantastic", "DT NNS VBP JJ", 3, "usually", False),
        ("It is brilliant", "PRP VBZ JJ", 2, "merely", False),  # no more than brilliant
        ("It is brilliant", "PRP VBZ JJ", 2, "only", False),
        ("It is brilliant", "PRP VBZ JJ", 2, "just", True),  # "just brilliant" intensifies
        # eleventh round: in a clause only a stance adverb, one grading anything
        ("It has fun", "PRP VBZ NN", 1, "immediately", False),  # It [immediately] has: a time adverb
        ("It has fun", "PRP VBZ NN", 1, "actually", True),  # a stance adverb
        ("he should have shaped", "PRP MD VB VBN", 2, "quickly", False),  # should [quickly] have: manner
        ("you like it", "PRP VBP PRP", 1, "often", False),  # a frequency
        ("It is a film", "PRP VBZ DT NN", 2, "essentially", True),  # is [essentially] a film
        ("It is a film", "PRP VBZ DT NN", 2, "exactly", False),  # a focus needing a contrast
        ("It is not good", "PRP VBZ RB JJ", 2, "easily", False),  # a negation is not graded
        ("It is not good", "PRP VBZ RB JJ", 2, "certainly", True),
        ("It is uncomfortable", "PRP VBZ JJ", 2, "deeply", True),  # grading an adjective: any adverb
        ("It has appeared", "PRP VBZ VBN", 2, "fully", False),  # a verb form, not an adjective
        # twentieth round of fuzz: "worth" takes a complement and no degree
        ("It is worth seeing", "PRP VBZ JJ VBG", 2, "very", False),  # is [very] worth seeing
        ("It is worth seeing", "PRP VBZ JJ VBG", 2, "terribly", False),
        ("It is worth seeing", "PRP VBZ JJ VBG", 2, "certainly", True),  # a stance adverb: not a degree
    ],
)
def test_the_adverb_check(seed, tags, before, word, keeps):
    assert Adverbs().passes([adverb_candidate(seed, tags, before, word)]) == [keeps]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((1, "JJ"),)),  # a [new] film
        ("NP", ("DT", "NN"), ((1, "RB"), (1, "JJ"))),  # a [very] [old] film
        ("ADJP", ("JJ",), ((0, "RB"),)),  # [very] light
        ("VP", ("VBD", "NP"), ((0, "RB"), (2, "RB"))),  # [still] liked it [enormously]
        ("S", ("NP", "VP"), ((1, "RB"),)),  # It [also] is
        # round 5: the widening (docs/yield-history.md)
        ("NP", ("DT",), ((1, "NN"),)),  # This [film] is
        ("NP", ("DT",), ((1, "JJ"), (1, "NNS"))),  # these [old] [scenes]
        ("NP", ("DT",), ((1, "RB"), (1, "JJ"), (1, "NN"))),  # this [very] [old] [film]
        ("ADJP", ("JJ",), ((0, "JJ"), (0, "CC"))),  # [long] [and] watchable
        ("ADJP", ("JJ",), ((1, "CC"), (1, "JJ"))),  # watchable [and] [quiet]
        ("ADJP", ("JJ",), ((1, "CC"), (1, "RB"), (1, "JJ"))),  # watchable [and] [very] [quiet]
        ("NP", ("DT", "JJ", "NN"), ((1, "RB"), (1, "JJ"), (1, "CC"))),  # a [very] [long] [and] charming film
        ("ADJP", ("JJ",), ((0, "RB"), (1, "CC"), (1, "JJ"))),  # [very] watchable [and] [quiet]
        ("VP", ("VBZ", "ADJP"), ((1, "RB"), (1, "RB"))),  # is [very] [often] amusing
        # round 6: a noun modifier, a number
        ("NP", ("DT", "NN"), ((1, "NN"),)),  # a [comedy] film
        ("NP", ("DT", "JJ", "NNS"), ((2, "NN"),)),  # the good [action] scenes
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "NN"))),  # a [new] [comedy] film
        ("NP", ("DT",), ((1, "NN"), (1, "NN"))),  # this [horror] [film]
        ("NP", ("DT", "NNS"), ((1, "CD"),)),  # these [two] roles
        ("NP", ("PRP$", "NNS"), ((1, "CD"), (1, "JJ"))),  # her [two] [new] films
        ("NP", ("DT",), ((1, "CD"), (1, "NNS"))),  # these [two] [films]
    ],
)
def test_phrases_keep_up_to_three_adjuncts_where_their_phrase_takes_them(lhs, rhs, placement):
    assert modifier_phrase(lhs, rhs, placement)


@pytest.mark.parametrize(
    ("lhs", "rhs", "placement"),
    [
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "JJ"))),  # a [little] [old] loop: stacked adjectives
        ("NP", ("DT",), ((1, "JJ"), (1, "JJ"), (1, "NN"))),  # this [new] [political] [film]
        ("NP", ("DT", "NN"), ((1, "RB"),)),  # a [very] film: an adverb grading nothing inserted
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "RB"))),  # a [old] [very] film
        ("ADJP", ("JJ",), ((0, "RB"), (0, "RB"), (0, "RB"))),  # three adverbs in one place
        ("VP", ("VBD", "NP"), ((0, "RB"), (0, "RB"), (2, "RB"))),  # two in one place and one more
        ("NP", ("DT",), ((1, "JJ"),)),  # those [other]: a demonstrative gets a noun or nothing
        ("NP", ("DT",), ((1, "NN"), (1, "JJ"))),  # this [film] [new]
        ("NP", ("DT", "NN"), ((1, "CC"), (1, "JJ"))),  # a [and] [new] film: no adjective to join
        ("ADJP", ("JJ",), ((0, "CC"), (0, "JJ"))),  # [and] [long] watchable
        ("ADJP", ("JJ",), ((1, "CC"), (1, "JJ"), (1, "RB"))),  # watchable [and] [quiet] [very]
        ("NP", ("DT", "NN"), ((1, "JJ"), (1, "CC"))),  # a [long] [and] film: no adjective after it
        ("PP", ("IN", "JJ"), ((2, "CC"), (2, "JJ"))),  # a coordination outside an NP or ADJP
        ("VP", ("VBD", "NP"), ((0, "RB"), (1, "RB"), (2, "RB"), (2, "RB"))),  # four words
        ("NP", ("DT", "NN"), ((2, "NN"),)),  # a film [comedy]: after the noun
        ("NP", ("DT", "NN", "NN"), ((1, "NN"),)),  # an [horror] spider web: into a compound
        ("NP", ("DT", "NN"), ((1, "NN"), (1, "JJ"))),  # a [comedy] [new] film
        ("NP", ("DT", "NN"), ((1, "CD"),)),  # the [two] film: a singular
        ("NP", ("NNS",), ((0, "CD"),)),  # [two] films: no determiner
        ("NP", ("DT", "NNS"), ((1, "JJ"), (1, "CD"))),  # the [new] [two] films
        ("NP", ("DT", "NN"), ((1, "VBG"),)),  # an [going] affectionate take: participles were mostly odd
        ("PP", ("IN", "NP"), ((0, "RB"),)),  # lives [directly] of
    ],
)
def test_phrases_reject_stacks_and_what_modifiers_reject(lhs, rhs, placement):
    assert not modifier_phrase(lhs, rhs, placement)


def phrase_candidate(tokens: str, tags: str, before: int, words: tuple[str, ...], mask_tags: tuple[str, ...]):
    """A fill of several words all inserted before token ``before``."""
    seed = tuple(tokens.split())
    masks = tuple((before, tag) for tag in mask_tags)
    template = SimpleNamespace(masks=masks, parse=SimpleNamespace(tokens=seed))
    return SimpleNamespace(template=template, words=words, seed_tags=[(0, len(seed), tags.split())])


@pytest.mark.parametrize(
    ("words", "keeps"),
    [
        (("very", "old"), True),  # a [very] [old] film: the adverb grades the inserted adjective
        (("actually", "whole"), False),  # an [actually] [whole] film: no degree adverb
        (("so", "big"), False),  # a [so] [big] film: English writes "so big a film"
        (("just", "old"), False),  # a [just] [old] film
    ],
)
def test_the_adverb_check_reads_the_next_inserted_word(words, keeps):
    candidate = phrase_candidate("It is a film", "PRP VBZ DT NN", 3, words, ("RB", "JJ"))
    assert Adverbs().passes([candidate]) == [keeps]  # type: ignore[list-item]


def test_the_adverb_check_reads_the_next_word_in_its_own_sentence():
    """A two-sentence seed: the word after the insertion is tagged in the second sentence's range."""
    tokens = ("It", "is", ".", "It", "is", "amusing")
    seed_tags = [(0, 3, ["PRP", "VBZ", "."]), (3, 6, ["PRP", "VBZ", "JJ"])]

    def fill(before: int, word: str):
        template = SimpleNamespace(masks=((before, "RB"),), parse=SimpleNamespace(tokens=tokens))
        return SimpleNamespace(template=template, words=(word,), seed_tags=seed_tags)

    # is [so] amusing; It [just] is; "so" at the very end has no adjective after it
    assert Adverbs().passes([fill(5, "so"), fill(4, "just"), fill(6, "so")]) == [True, False, False]  # type: ignore[list-item]


def test_the_adverb_check_leaves_adjective_slots_alone():
    back = adverb_candidate("the door", "DT NN", 1, "back", tag="JJ")  # the [back] door
    assert Adverbs().passes([back]) == [True]  # type: ignore[list-item]


def test_generation_inserts_one_modifier_or_any_tag_on_request(stand_in_config, tmp_path):  # noqa: F811
    from dataclasses import replace

    from autocheck import generate as generation
    from autocheck.expand.insertions import CONTENT_TAGS

    def inserted(out):
        cases = [json.loads(line) for line in (out / "cases.jsonl").read_text().splitlines()]
        return [c["provenance"]["inserted"] for c in cases if c["kind"] == "expansion"]

    result = generation.generate(replace(stand_in_config, insertions="modifiers"), tmp_path / "modifiers")
    found = inserted(tmp_path / "modifiers")
    assert found and all(len(words) == 1 and words[0]["tag"] in ("JJ", "RB") for words in found)
    assert not any(words[0]["word"].lower() in DETERMINATIVES | CIRCUMSTANCES for words in found)
    manifest = json.loads((tmp_path / "modifiers" / "manifest.json").read_text())
    assert manifest["settings"]["insertions"] == "modifiers"
    assert manifest["rejected"]["fill: adverb"] > 0
    assert sum(c.expansions for c in result.counts.values()) == len(found)
    generation.generate(replace(stand_in_config, insertions="content"), tmp_path / "content")
    generation.generate(replace(stand_in_config, insertions="any"), tmp_path / "any")
    content = {w["tag"] for words in inserted(tmp_path / "content") for w in words}
    every = {w["tag"] for words in inserted(tmp_path / "any") for w in words}
    assert content <= CONTENT_TAGS
    assert every - CONTENT_TAGS  # the rule is what kept them out
    assert any(len(words) > 1 for words in inserted(tmp_path / "any"))
    generation.generate(stand_in_config, tmp_path / "phrases")  # the default
    phrases = inserted(tmp_path / "phrases")
    assert phrases and all(1 <= len(words) <= 3 for words in phrases)
    assert {w["tag"] for words in phrases for w in words} <= {"JJ", "RB", "CC", "NN", "NNS"}
    assert (
        json.loads((tmp_path / "phrases" / "manifest.json").read_text())["settings"]["insertions"]
        == "phrases"
    )


@pytest.mark.parametrize(
    ("seed", "tags", "before", "word", "tag", "keeps"),
    [
        ("It is a film", "PRP VBZ DT NN", 3, "new", "JJ", True),  # a [new] film
        ("a copy of a Dangerous Mind", "DT NN IN DT NNP NNP", 4, "big", "JJ", False),  # inside a title
        ("the Rings ' trilogy", "DT NNP POS NN", 3, "wide", "JJ", False),  # after a name's possessive
        ("The film works", "DT NN VBZ", 1, "new", "JJ", True),  # The [new]: a sentence's first word
        ("It is both stimulating", "PRP VBZ DT JJ", 3, "further", "RB", False),  # both [further]
        ("some charming chemistry", "DT JJ NN", 2, "different", "JJ", False),  # after an adjective
        ("animated holiday movie", "JJ NN NN", 2, "front", "JJ", False),  # after a noun
        ("this listless feature", "DT JJ NN", 1, "full", "JJ", False),  # before an adjective
        ("It is a lot more", "PRP VBZ DT NN JJR", 3, "short", "JJ", False),  # a [short] lot
        ("the performances", "DT NNS", 1, "whole", "JJ", False),  # whole before a plural
        ("the film", "DT NN", 1, "whole", "JJ", True),
        ("not a particularly toxic", "RB DT RB JJ", 2, "very", "RB", False),  # stacked adverbs
        ("it is not good", "PRP VBZ RB JJ", 2, "really", "RB", True),  # is [really] not good
        ("this is satire", "DT VBZ NN", 2, "highly", "RB", False),  # before a noun
        ("Auto Focus is not", "NNP NNP VBZ RB", 2, "easily", "RB", False),  # before a finite copula
        ("It is a sign", "PRP VBZ DT NN", 1, "also", "RB", True),  # a sentence adverb may precede it
        ("I am giving", "PRP VBP VBG", 1, "always", "RB", False),
        ("Witless but watchable .", "JJ CC JJ .", 3, "often", "RB", False),  # after an adjective
        ("that lets the audience", "WDT VBZ DT NN", 2, "exactly", "RB", False),  # verb [..] object
        ("it is a film", "PRP VBZ DT NN", 2, "really", "RB", True),  # is [really] a film
        ("good inside dope , dope", "JJ IN NN , NN", 3, "alone", "RB", False),  # a noun's end
        ("it works well", "PRP VBZ RB", 1, "really", "RB", True),  # it [really] works
        # the third round (docs/yield-history.md), from the second blind reading's rows
        ("its easily dismissive take", "PRP$ RB JJ NN", 2, "highly", "RB", False),  # stacked degree
        ("it is deadly dull", "PRP VBZ JJ JJ", 3, "quite", "RB", False),  # an -ly adverb the tagger calls JJ
        ("it is actually watchable", "PRP VBZ RB JJ", 3, "very", "RB", True),  # "actually" grades nothing
        ("we will come to looking", "PRP MD VB TO VBG", 3, "quickly", "RB", False),  # come [quickly] to
        ("He tried to leave", "PRP VBD TO VB", 2, "simply", "RB", True),  # a focus adverb may
        ("each character to confront", "DT NN TO VB", 2, "really", "RB", True),  # after a noun
        ("make it seem .", "VB PRP VB .", 3, "seriously", "RB", False),  # a linking verb's complement
        ("make it seem", "VB PRP VB", 1, "maybe", "RB", False),  # between a verb and its object
        ("It is a film", "PRP VBZ DT NN", 1, "truly", "RB", True),  # a sentence adverb before "is"
        ("these women", "DT NNS", 1, "sure", "JJ", False),  # predicative only
        ("no points", "DT NNS", 1, "own", "JJ", False),  # "own" needs a possessive
        ("his performance", "PRP$ NN", 1, "own", "JJ", True),
        ("the kind of", "DT NN IN", 1, "whole", "JJ", False),
        ("the kind of", "DT NN IN", 1, "main", "JJ", True),
        ("marginal intelligence", "JJ NN", 1, "political", "JJ", True),  # a relational adjective goes last
        ("the worst film", "DT JJS NN", 2, "old", "JJ", False),  # not after a superlative
        ('" The film', "`` DT NN", 2, "main", "JJ", True),  # a quotation's first word is no name
        ("Cox 's approach", "NNP POS NN", 2, "final", "JJ", True),  # a name's possessive ends it
        # round 6: a noun modifier follows no noun
        ("plodding costume drama", "JJ NN NN", 2, "comedy", "NN", False),  # costume [comedy] drama
        ("a plodding drama", "DT JJ NN", 2, "comedy", "NN", True),
        # round 10: no adverb between a subordinator (or a relative clause's noun) and the clause's subject
        ("if you are", "IN PRP VBP", 1, "actually", "RB", False),
        ("when you think", "WRB PRP VBP", 1, "usually", "RB", False),
        ("what the title indicates", "WP DT NN VBZ", 1, "often", "RB", False),
        ("if there is", "IN EX VBZ", 1, "sometimes", "RB", False),
        ("the rationale I can think", "DT NN PRP MD VB", 2, "sometimes", "RB", False),
        ("if we do", "IN PRP VBP", 1, "only", "RB", True),  # a focus adverb may: "if [only] we"
        ("but it is", "CC PRP VBZ", 1, "obviously", "RB", True),  # after a coordinator it may
    ],
)
def test_the_word_order_check(seed, tags, before, word, tag, keeps):
    assert WordOrder().passes([adverb_candidate(seed, tags, before, word, tag)]) == [keeps]  # type: ignore[list-item]


def test_the_word_order_check_lets_an_adverb_grade_an_inserted_adjective():
    candidate = phrase_candidate("It is a film", "PRP VBZ DT NN", 3, ("very", "old"), ("RB", "JJ"))
    assert WordOrder().passes([candidate]) == [True]  # type: ignore[list-item]
    after = phrase_candidate("a pretty amazing act", "DT RB JJ NN", 3, ("very", "simple"), ("RB", "JJ"))
    assert WordOrder().passes([after]) == [False]  # type: ignore[list-item]  # after the seed's adjective


def widened(tokens: str, tags: str, before: int, words: tuple[str, ...], mask_tags, lhs="NP", rhs=("DT",)):
    """A fill of a round-5 phrase (``phrase_candidate`` with the production the phrase check reads)."""
    candidate = phrase_candidate(tokens, tags, before, words, mask_tags)
    candidate.template.lhs, candidate.template.rhs_from, candidate.template.tags = lhs, rhs, mask_tags
    return candidate


@pytest.mark.parametrize(
    ("tokens", "tags", "words", "mask_tags", "keeps"),
    [
        ("This is good", "DT VBZ JJ", ("film",), ("NN",), True),  # This [film] is good
        ("This is good", "DT VBZ JJ", ("films",), ("NNS",), False),  # This [films]: number
        ("These are good", "DT VBP JJ", ("old", "scenes"), ("JJ", "NNS"), True),
        ("These are good", "DT VBP JJ", ("scene",), ("NN",), False),
        ("All is good", "DT VBZ JJ", ("film",), ("NN",), False),  # no demonstrative
        ("That is good", "IN VBZ JJ", ("film",), ("NN",), False),  # tagged a complementiser in context
        ("This is good", "DT VBZ JJ", ("xyzzy",), ("NN",), False),  # no common noun of the treebank
        ("This is good", "DT VBZ JJ", ("whole", "one"), ("JJ", "NN"), False),  # a pronoun
        ("those who like", "DT WP VBP", ("young", "americans"), ("JJ", "NNS"), False),  # an identity term
        ("those who like", "DT WP VBP", ("action", "stars"), ("NN", "NNS"), True),
        ("those for whom", "DT IN WP", ("action", "scenes"), ("NN", "NNS"), False),  # round 8: persons
    ],
)
def test_the_phrase_check_gives_a_demonstrative_a_noun_that_agrees(tokens, tags, words, mask_tags, keeps):
    candidate = widened(tokens, tags, 1, words, mask_tags)
    assert Phrases().passes([candidate]) == [keeps]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("words", "mask_tags", "keeps"),
    [
        (("long", "and"), ("JJ", "CC"), True),  # [long] [and] watchable
        (("long", "but"), ("JJ", "CC"), False),  # a contrast the seed does not make
        (("own", "and"), ("JJ", "CC"), False),  # its [own and] screwed-up: "own" determines
        (("very", "often"), ("RB", "RB"), True),  # [very] [often]
        (("very", "completely"), ("RB", "RB"), False),  # round 8: a degree of the adjective after it
        (("very", "quietly"), ("RB", "RB"), False),
        (("really", "very"), ("RB", "JJ"), False),  # a [really] [very] watchable film: no adjective
        (("very", "really"), ("RB", "RB"), False),  # a sentence adverb is not graded
        (("really", "very"), ("RB", "RB"), False),  # nor a degree adverb
    ],
)
def test_the_phrase_check_reads_coordinations_and_stacks(words, mask_tags, keeps):
    candidate = widened(
        "It is a watchable film", "PRP VBZ DT JJ NN", 3, words, mask_tags, "NP", ("DT", "JJ", "NN")
    )
    assert Phrases().passes([candidate]) == [keeps]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("tokens", "tags", "before", "words", "mask_tags", "rhs", "keeps"),
    [
        ("It is a film", "PRP VBZ DT NN", 3, ("comedy",), ("NN",), ("DT", "NN"), True),  # a [comedy] film
        ("It is a film", "PRP VBZ DT NN", 3, ("thing",), ("NN",), ("DT", "NN"), False),  # no classifier
        ("It is a time", "PRP VBZ DT NN", 3, ("horror",), ("NN",), ("DT", "NN"), False),  # no film noun
        ("It is a Film", "PRP VBZ DT NN", 3, ("horror",), ("NN",), ("DT", "NN"), False),  # a name's word
        ("a scene change", "DT NN NN", 1, ("action",), ("NN",), ("DT", "NN", "NN"), False),  # a compound
        (
            "This is good",
            "DT VBZ JJ",
            1,
            ("horror", "film"),
            ("NN", "NN"),
            ("DT",),
            True,
        ),  # this [horror] [film]
        ("This is good", "DT VBZ JJ", 1, ("horror", "thing"), ("NN", "NN"), ("DT",), False),
        ("The roles are good", "DT NNS VBP JJ", 1, ("two",), ("CD",), ("DT", "NNS"), True),  # The [two] roles
        ("The roles are good", "DT NNS VBP JJ", 1, ("2",), ("CD",), ("DT", "NNS"), False),  # a digit
        ("Some roles are good", "DT NNS VBP JJ", 1, ("two",), ("CD",), ("DT", "NNS"), False),  # not definite
        ("The role is good", "DT NN VBZ JJ", 1, ("two",), ("CD",), ("DT", "NN"), False),  # a singular
        (
            "These are good",
            "DT VBP JJ",
            1,
            ("two", "films"),
            ("CD", "NNS"),
            ("DT",),
            True,
        ),  # these [two] [films]
    ],
)
def test_the_phrase_check_reads_noun_modifiers_and_numbers(
    tokens, tags, before, words, mask_tags, rhs, keeps
):
    candidate = widened(tokens, tags, before, words, mask_tags, "NP", rhs)
    assert Phrases().passes([candidate]) == [keeps]  # type: ignore[list-item]


def test_the_phrase_check_grades_no_frequency_adverb_after_a_seed_adverb():
    after = widened(
        "he is always sympathetic", "PRP VBZ RB JJ", 3, ("very", "often"), ("RB", "RB"), "ADJP", ("JJ",)
    )
    assert Phrases().passes([after]) == [False]  # type: ignore[list-item]  # always [very] [often]
    alone = widened("he is sympathetic", "PRP VBZ JJ", 2, ("very", "often"), ("RB", "RB"), "ADJP", ("JJ",))
    assert Phrases().passes([alone]) == [True]  # type: ignore[list-item]


def test_seed_sites_drop_noun_modifiers_and_numbers_where_no_fill_can_pass():
    sites = seed_sites("phrases", "This is the film of some roles".split())
    assert sites is not None
    assert sites(((3, "NN"),))  # the [horror] film
    assert not sites(((5, "NN"),))  # of [horror] some: no film noun after it
    assert sites(((1, "NN"),))  # This [film] is: a demonstrative's noun
    assert not sites(((1, "JJ"), (1, "NNS")))  # This [old] [films]: round 8, its number
    those = seed_sites("phrases", "for those who like a thousand times".split())
    assert those is not None and those(((2, "JJ"), (2, "NNS"))) and those(((2, "NN"), (2, "NNS")))
    assert not those(((5, "NN"), (5, "NNS")))  # a [family] [people] thousand: no demonstrative
    assert not those(((2, "NN"),))  # those [film]
    assert sites(((3, "JJ"), (3, "NN")))  # the [new] [horror] film
    costume = seed_sites("phrases", "a costume drama".split())
    assert costume is not None and not costume(((2, "NN"),))  # costume [comedy] drama
    assert sites(((3, "CD"),))  # the [two]
    assert not sites(((6, "CD"),))  # some [two] roles
    assert seed_sites("modifiers", ["film"]) is None and seed_sites("any", ["film"]) is None


def test_the_word_order_check_lets_a_coordinated_adjective_end_a_clause():
    """watchable [and] [quiet] .: the inserted adjective takes the place of the seed's, no noun after it."""
    candidate = phrase_candidate("It is watchable .", "PRP VBZ JJ .", 3, ("and", "quiet"), ("CC", "JJ"))
    assert WordOrder().passes([candidate]) == [True]  # type: ignore[list-item]
    graded = phrase_candidate(
        "It is watchable .", "PRP VBZ JJ .", 3, ("and", "very", "quiet"), ("CC", "RB", "JJ")
    )
    assert WordOrder().passes([graded]) == [True]  # type: ignore[list-item]
    alone = phrase_candidate("It is watchable .", "PRP VBZ JJ .", 3, ("quiet",), ("JJ",))
    assert WordOrder().passes([alone]) == [False]  # type: ignore[list-item]


def test_phrases_keep_from_the_fill_vocabulary_what_their_checks_reject_anywhere():
    words = {0: "and", 1: "but", 2: "old", 3: "other", 4: "often", 5: "there", 6: "two", 7: "1990"}
    words |= {8: "very", 9: "nearly", 10: "horror", 11: "film", 12: "rather", 13: "real"}
    lexical = {
        "CC": {"and": 2, "but": 2},
        "JJ": {"old": 2, "other": 2, "real": 2},  # "real": an asserting adjective (round 9)
        "RB": {"often": 2, "there": 2, "very": 2, "nearly": 2, "rather": 2},
        "CD": {"two": 2, "1990": 2},  # round 6: the number words only ("the [two] roles")
        "NN": {"horror": 2, "film": 2},
    }

    def vocabulary(mode: str) -> VocabularyFilter:
        closed, excluded, _ = vocabulary_limits(mode)
        return VocabularyFilter(
            words, TagDictionary(lexical, {}), _Neutral(), proper_noun=lambda w: False,
            single_token=lambda w: True, closed=closed, excluded=excluded,
        )  # fmt: skip

    def allowed(mode: str, keys=("CC", "JJ", "RB", "CD", "NN")) -> list[str]:
        return [words[i] for key in keys for i in vocabulary(mode).allowed(key)]

    assert allowed("phrases") == "and old often very rather two horror film".split()  # "nearly": a hedge
    assert sorted(allowed("modifiers")) == sorted(allowed("any")) == sorted(words.values())  # unchanged
    # a word another inserted word follows at its place modifies it: a degree adverb alone ("a [very]
    # [old] film") and a noun modifier ("this [horror] [film]"), as the checks keep; alone, or in another
    # mode, the tag's words
    graded, alone, compound = ((2, "RB"), (2, "JJ")), ((2, "RB"), (3, "JJ")), ((2, "NN"), (2, "NN"))
    assert vocabulary("phrases").mask_keys(graded) == ("RB:modifying", "JJ")
    assert vocabulary("phrases").mask_keys(compound) == ("NN:modifying", "NN")
    assert vocabulary("phrases").mask_keys(alone) == vocabulary("modifiers").mask_keys(graded)[:1] + ("JJ",)
    assert vocabulary("modifiers").mask_keys(graded) == ("RB", "JJ")
    # round 8: not "very", on which a beam of 4 put its every row, and the spread had capped it
    assert allowed("phrases", ["RB:modifying", "NN:modifying", "NN"]) == "rather horror horror film".split()


class _Neutral:
    def is_neutral(self, word, pos):
        return True


class _Polar:
    """Two adjectives and two intensifiers with a polarity; every other word neutral."""

    POLAR = {
        "funny": "positive", "dull": "negative", "remarkable": "positive",
        "terribly": "negative", "incredibly": "positive", "remarkably": "positive", "wildly": "negative",
    }  # fmt: skip

    def polarity(self, word, pos):
        return self.POLAR.get(word, "neutral")

    def is_neutral(self, word, pos):
        return word not in self.POLAR


@pytest.mark.parametrize(
    ("tokens", "tags", "before", "words", "label", "keeps"),
    [
        ("a funny film", "DT JJ NN", 1, ("terribly",), "positive", True),  # a [terribly] funny film
        ("a dull film", "DT JJ NN", 1, ("incredibly",), "negative", True),  # an [incredibly] dull film
        ("It is dull", "PRP VBZ JJ", 2, ("incredibly",), "negative", True),  # is [incredibly] dull
        ("a funny film", "DT JJ NN", 1, ("terribly",), "negative", False),  # not the label's adjective
        ("a long film", "DT JJ NN", 1, ("terribly",), "positive", False),  # no polar adjective
        ("a funny film", "DT JJ NN", 1, ("terribly",), "neutral", False),
        ("a funny film", "DT JJ NN", 2, ("terribly",), "positive", False),  # a funny [terribly] film
        ("an oddly funny film", "DT RB JJ NN", 2, ("terribly",), "positive", False),  # graded already
        ("a funny film", "DT JJ NN", 1, ("very", "terribly"), "positive", False),  # [very] [terribly] funny
        ("a funny film", "DT JJ NN", 1, ("dull",), "positive", False),  # a polar word, no intensifier
        ("a remarkable film", "DT JJ NN", 1, ("remarkably",), "positive", False),  # its own stem
        ("a remarkable film", "DT JJ NN", 1, ("incredibly",), "positive", True),
    ],
)
def test_an_intensifier_may_be_polar_before_an_adjective_that_carries_the_label(
    tokens, tags, before, words, label, keeps
):
    candidate = phrase_candidate(tokens, tags, before, words, ("RB",) * len(words))
    candidate.seed, candidate.tags = SimpleNamespace(label=label), ("RB",) * len(words)
    assert Polarity(_Polar(), intensifies(_Polar())).passes([candidate]) == [keeps]
    assert Polarity(_Polar()).passes([candidate]) == [False]  # without the exemption every polar word fails


def test_the_requirement_reads_an_intensifier_that_keeps_the_label_as_absent():
    """ "a [terribly] funny film" is no mix of sentiments: the capability's requirement reads it as "a funny
    film"; a polar word that is no exempt intensifier still counts."""
    parse = parse_of("a funny film", "(NP (DT a) (JJ funny) (NN film))")
    template = MaskedTemplate("t", "c", parse, ((1, "RB"),), "ADJP", ("JJ",), ("RB", "JJ"), 1.0)
    candidate = SimpleNamespace(
        template=template, words=("terribly",), text="a terribly funny film",
        seed=SimpleNamespace(label="positive"), seed_tags=[(0, 3, ["DT", "JJ", "NN"])],
    )  # fmt: skip
    read = []

    def no_negative_word(seed, text):
        read.append(text)
        return "terribly" not in text

    assert MeetsRequirement(no_negative_word, intensifies(_Polar())).passes([candidate]) == [True]
    assert read == ["a funny film"]
    assert MeetsRequirement(no_negative_word).passes([candidate]) == [False]
    candidate.seed.label = "negative"  # "funny" does not carry the label: "terribly" counts
    assert MeetsRequirement(no_negative_word, intensifies(_Polar())).passes([candidate]) == [False]


def test_the_fill_vocabulary_admits_the_intensifiers_for_adverbs_where_modifiers_go():
    words = {0: "terribly", 1: "dull", 2: "often", 3: "wildly"}  # "wildly": no intensifier (round 9)
    lexical = {"RB": {"terribly": 2, "often": 2, "wildly": 2}, "JJ": {"dull": 2}}

    def allowed(mode: str, key: str) -> list[str]:
        closed, excluded, polar = vocabulary_limits(mode)
        vocabulary = VocabularyFilter(
            words, TagDictionary(lexical, {}), _Polar(), proper_noun=lambda w: False,
            single_token=lambda w: True, closed=closed, excluded=excluded, polar=polar,
        )  # fmt: skip
        return [words[i] for i in vocabulary.allowed(key)]

    assert allowed("phrases", "RB") == allowed("modifiers", "RB") == ["terribly", "often"]
    assert allowed("phrases", INTENSIFIER) == allowed("modifiers", INTENSIFIER) == ["terribly"]
    assert allowed("any", "RB") == allowed("content", "RB") == ["often"]
    assert allowed("phrases", "JJ") == []  # a polar adjective stays out
    assert allowed("phrases", "RB:modifying") == []  # before another inserted word: the degree adverbs


class _Glosses:
    """A lexicon that scores words by their glosses, as SentiWordNet does: closed-class adverbs polar."""

    name = "sentiwordnet"
    POLAR = {"very", "quite", "just", "actually", "pretty", "fairly", "clearly", "somewhat", "good", "dull"}
    POLAR |= {"old"}  # "skilled through long experience": SentiWordNet's 0.375 positive

    def polarity(self, word, pos):
        return "positive" if word in self.POLAR else "neutral"

    def is_neutral(self, word, pos):
        return word not in self.POLAR

    def describe(self):
        return {"name": "glosses"}


def test_function_adverbs_are_neutral_to_what_judges_an_inserted_word():
    """SentiWordNet scores "very" and "quite" from their glosses, so its pure-neutral rule barred every
    degree and stance adverb; the adverb checks place them instead. Focus adverbs, hedges and downtoners
    stay the lexicon's, as do the words as other parts of speech, and every other adverb."""
    judge = GlossScoredNeutral(_Glosses())
    neutral = [w for w in sorted(_Glosses.POLAR) if judge.is_neutral(w, "adv")]
    assert neutral == ["actually", "quite", "very"]
    assert not judge.is_neutral("very", "adj")  # "the very man": an adjective, the lexicon's
    assert {"very", "quite", "really", "still", "actually", "extremely"} <= FUNCTION_ADVERBS
    assert not (FOCUS | {"pretty", "fairly", "clearly", "somewhat", "too", "almost"}) & FUNCTION_ADVERBS
    candidate = phrase_candidate("It is sweet", "PRP VBZ JJ", 2, ("very",), ("RB",))
    candidate.tags = ("RB",)
    assert Polarity(judge).passes([candidate]) == [True]
    assert Polarity(_Glosses()).passes([candidate]) == [False]
    assert judge.describe() == {
        "name": "glosses",
        "neutral_adverbs": sorted(FUNCTION_ADVERBS),
        "neutral_adjectives": sorted(PROPERTY_ADJECTIVES),
    }
    assert getattr(GlossScoredNeutral(SimpleNamespace(is_neutral=None)), "describe", None) is None


def test_adjectives_of_dimension_age_and_colour_are_neutral_to_what_judges_an_inserted_word():
    """SentiWordNet scores "old" ("skilled through long experience") and "small" from a gloss of some
    sense, so its pure-neutral rule barred nearly every adjective that describes without judging; those
    of dimension, age and colour are neutral as adjectives. Adjectives that judge stay the lexicon's, as
    do these words as other parts of speech."""
    judge = GlossScoredNeutral(_Glosses())
    assert judge.is_neutral("old", "adj") and not _Glosses().is_neutral("old", "adj")
    assert not judge.is_neutral("old", "noun")  # "the old": the lexicon's
    assert not judge.is_neutral("good", "adj") and not judge.is_neutral("dull", "adj")
    assert {"long", "small", "old", "new", "red"} <= PROPERTY_ADJECTIVES
    assert not {"great", "good", "cold", "light", "high", "low", "dark"} & PROPERTY_ADJECTIVES
    candidate = phrase_candidate("It is a film", "PRP VBZ DT NN", 3, ("old",), ("JJ",))
    candidate.tags = ("JJ",)
    assert Polarity(judge).passes([candidate]) == [True]
    assert Polarity(_Glosses()).passes([candidate]) == [False]


def test_the_fill_vocabulary_takes_the_function_adverbs_from_what_judges_insertions():
    words = {0: "very", 1: "pretty", 2: "often", 3: "dull"}
    lexical = {"RB": {"very": 2, "pretty": 2, "often": 2}, "JJ": {"dull": 2}}

    def allowed(lexicon) -> list[str]:
        vocabulary = VocabularyFilter(
            words, TagDictionary(lexical, {}), lexicon, proper_noun=lambda w: False,
            single_token=lambda w: True,
        )  # fmt: skip
        return [words[i] for i in vocabulary.allowed("RB")]

    assert allowed(GlossScoredNeutral(_Glosses())) == ["very", "often"]
    assert allowed(_Glosses()) == ["often"]


class _Valences(_Glosses):
    """A lexicon whose scores for "very" or "truly" are meant (VADER's valences, a user's own list)."""

    name = "vader"


@pytest.mark.parametrize(
    ("mode", "compat", "lexicon", "function_adverbs"),
    [("phrases", False, _Glosses, True), ("modifiers", False, _Glosses, False),
     ("any", False, _Glosses, False), ("content", False, _Glosses, False), ("phrases", True, _Glosses, False),
     ("phrases", False, _Valences, False)],
)  # fmt: skip
def test_the_function_adverbs_go_where_phrases_do_and_the_requirement_reads_the_lexicon(
    tmp_path, mode, compat, lexicon, function_adverbs
):
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Expander

    lexicon = lexicon()
    config = GenerateConfig(dataset=None, parser=str(tmp_path), insertions=mode, compat=compat)
    expander = Expander(config, lexicon, {})
    assert isinstance(expander.insertion_lexicon, GlossScoredNeutral) == function_adverbs
    assert expander.insertion_lexicon.is_neutral("very", "adv") == function_adverbs
    assert expander.lexicon is lexicon  # the capability's requirement: ``Expander.requirement``


@pytest.mark.parametrize("mode", ["phrases", "modifiers"])
def test_a_domain_lexicons_polar_words_are_never_neutral_to_insert(tmp_path, mode):
    """``--domain-lexicon``: a word the domain calls polar is not neutral to what judges an inserted word
    (validation's polarity check, the fill vocabulary), whatever the lexicon says and whether or not it is
    a function adverb; the requirement still reads the lexicon. The file's content is in the expander's
    identity, so an edited file is not answered from the cache, and the manifest records it."""
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Expander

    trees = tmp_path / "train.txt"
    trees.write_text("(1 (2 is) (1 predictable))\n(3 (3 very) (2 well))\n")
    lexicon = _Glosses()
    config = GenerateConfig(dataset=None, parser=str(tmp_path), insertions=mode, domain_lexicons=[str(trees)])
    expander = Expander(config, lexicon, {})
    judge = expander.insertion_lexicon
    assert [w for w in ("predictable", "very", "often") if judge.is_neutral(w, "adv")] == ["often"]
    assert lexicon.is_neutral("predictable", "adj") and not judge.is_neutral("predictable", "adj")
    assert expander.lexicon is lexicon
    (recorded,) = expander.describe()["insertion_lexicon"]["domain_lexicons"]
    assert recorded["name"] == "treebank" and recorded["source"] == str(trees)
    before = expander.identity()
    trees.write_text("(1 (2 is) (1 predictable))\n(2 (2 very) (2 well))\n")
    assert Expander(config, lexicon, {}).identity() != before
    assert Expander(config, lexicon, {}).insertion_lexicon.is_neutral("very", "adv") == (mode == "phrases")
    assert (
        Expander(GenerateConfig(dataset=None, parser=str(tmp_path), insertions=mode), lexicon, {}).identity()
        != before
    )


def test_a_domain_lexicon_that_cannot_be_read_is_an_error_naming_the_option(tmp_path):
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Expander
    from autocheck.store import InputError

    config = GenerateConfig(
        dataset=None, parser=str(tmp_path), domain_lexicons=[str(tmp_path / "nosuch.txt")]
    )
    with pytest.raises(InputError, match=r"--domain-lexicon .*nosuch.txt: unknown lexicon"):
        Expander(config, _Glosses(), {})


def test_domain_lexicons_may_be_a_users_lists_of_the_words_that_changed_a_label(tmp_path):
    """The workflow the docs give: after reading what fuzz found, bar the words that changed the label;
    every lexicon given bars its own."""
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Expander

    (tmp_path / "blame.tsv").write_text("predictable\tnegative\n")
    (tmp_path / "praise.tsv").write_text("useful\tpositive\n")
    lists = [str(tmp_path / "blame.tsv"), str(tmp_path / "praise.tsv")]
    config = GenerateConfig(dataset=None, parser=str(tmp_path), insertions="modifiers", domain_lexicons=lists)
    judge = Expander(config, _Glosses(), {}).insertion_lexicon
    assert [w for w in ("predictable", "useful", "rural") if judge.is_neutral(w, "adj")] == ["rural"]


def test_only_domain_lexicons_given_reach_the_settings():
    """Suites and cached chunks made before the option existed keep their keys."""
    from autocheck.config import GenerateConfig

    assert "domain_lexicons" not in GenerateConfig().settings()
    assert GenerateConfig(domain_lexicons=["opinion"]).settings()["domain_lexicons"] == ["opinion"]


@pytest.mark.parametrize("mode", ["phrases", "modifiers"])
def test_adjectives_relational_admits_only_relational_adjectives(tmp_path, mode):
    """``--adjectives relational``: an adjective is neutral to insert only if WordNet calls it relational
    and the lexicon neutral; other classes as the lexicon says. The manifest says so, the expander's
    identity differs from ``any``'s, and ``any`` leaves the settings as they were before the option."""
    from autocheck.config import GenerateConfig
    from autocheck.expand.job import Expander

    require_nltk("corpora/wordnet")
    lexicon = _Glosses()
    plain = GenerateConfig(dataset=None, parser=str(tmp_path), insertions=mode)
    config = replace(plain, adjectives="relational")
    expander = Expander(config, lexicon, {})
    judge = expander.insertion_lexicon
    words = ("visual", "economic", "predictable", "useful", "rural")
    assert [w for w in words if judge.is_neutral(w, "adj")] == ["visual", "economic"]
    assert judge.is_neutral("often", "adv") and judge.is_neutral("predictable", "noun")
    assert expander.lexicon is lexicon
    assert expander.describe()["insertion_lexicon"]["adjectives"].startswith("relational")
    assert expander.identity() != Expander(plain, lexicon, {}).identity()
    assert "adjectives" not in plain.settings() and config.settings()["adjectives"] == "relational"
