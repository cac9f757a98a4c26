"""Perturbations for INV/DIR tests: literal outputs on hand-written sentences, determinism, and the
cases where a perturbation does not apply."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from autocheck.author.perturb import PERTURBATIONS, Perturbed, perturb
from autocheck.languages.lexicons import load_lexicon
from autocheck.resources import find_nltk
from autocheck.store import InputError


@pytest.fixture(scope="module")
def tagger():
    """Perturbations that tag parts of speech need NLTK's tagger and tokenizer data."""
    if find_nltk("taggers/averaged_perceptron_tagger_eng") is None:
        pytest.skip("NLTK tagger data not found (set NLTK_DATA; see tests/conftest.py)")


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def texts(name: str, text: str, seed: int = 0, **options) -> list[str]:
    return [p.inputs["text"] for p in perturb(name, {"text": text}, rng(seed), **options)]


# ---------------------------------------------------------------- registry


def test_registry_has_checklists_perturbations():
    assert set(PERTURBATIONS) == {
        "typos",
        "contractions",
        "expand_contractions",
        "change_names",
        "change_location",
        "change_number",
        "punctuation",
        "add_url_handle",
        "change_neutral",
        "change_synonyms",
        "paraphrase",
        "gibberish",
        "add_negation",
        "remove_negation",
        "append_phrase",
        "rewrite",
        "swap_fields",
    }


def test_unknown_perturbation_lists_the_known_ones():
    with pytest.raises(InputError) as err:
        perturb("typo", {"text": "x"}, rng())
    assert "'typo'" in str(err.value) and "typos" in str(err.value) and "swap_fields" in str(err.value)


def test_unknown_option_names_the_options():
    with pytest.raises(InputError) as err:
        perturb("typos", {"text": "hello"}, rng(), n_typo=2)
    assert "'n_typo'" in str(err.value) and "n_typos" in str(err.value)


def test_missing_required_option_and_bad_field():
    with pytest.raises(InputError, match="phrases"):
        perturb("append_phrase", {"text": "Nice."}, rng())
    with pytest.raises(InputError, match="not input fields"):
        perturb("typos", {"text": "hello"}, rng(), fields=["premise"])
    with pytest.raises(InputError, match="positive integer"):
        perturb("typos", {"text": "hello"}, rng(), n=0)


def test_one_option_check_for_a_spec_and_a_run(monkeypatch, tmp_path):
    """A perturbation taking ``**options`` takes any option both when its spec loads and when it runs; a
    required option left out is refused as the spec loads, not mid-run."""
    from autocheck.requirements import load_spec

    def echo(inputs, rng, *, word, **options):
        return [Perturbed({k: f"{v} {word}" for k, v in inputs.items()}, {"options": sorted(options)})]

    monkeypatch.setitem(PERTURBATIONS._parts, "echo", echo)
    template = {"id": "t", "text": "Fine."}
    capability = {"id": "E", "capability": "Robustness", "description": "d", "test_type": "INV"}
    spec = {"task": "sentiment", "capabilities": [{**capability, "templates": [template]}]}
    path = tmp_path / "spec.json"
    for options in ({"word": "ok", "level": 2}, {"level": 2}):
        spec["capabilities"][0]["perturb"] = {"name": "echo", "options": options}
        path.write_text(json.dumps(spec))
        if "word" in options:
            load_spec(path)
        else:
            with pytest.raises(
                InputError, match=r"spec.json: \$.capabilities\[0\].perturb: .* needs option 'word'"
            ):
                load_spec(path)
    (changed,) = perturb("echo", {"text": "Fine."}, rng(), word="ok", level=2)
    assert changed.inputs == {"text": "Fine. ok"} and changed.change == {"options": ["level"]}


# ---------------------------------------------------------------- typos


def _swapped_pairs(a: str, b: str) -> list[int]:
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    assert len(a) == len(b)
    return diff


def test_typos_swap_exactly_one_adjacent_pair_inside_a_word():
    text = "The movie was great"
    for seed in range(20):
        (out,) = texts("typos", text, seed)
        diff = _swapped_pairs(text, out)
        assert len(diff) == 2 and diff[1] == diff[0] + 1
        i = diff[0]
        assert out[i] == text[i + 1] and out[i + 1] == text[i] and text[i : i + 2].isalpha()


def test_typos_n_versions_and_n_typos():
    outs = texts("typos", "Hello world", n=3)
    assert len(outs) == 3 == len(set(outs))
    (two,) = texts("typos", "Hello world", n_typos=2)
    assert len(_swapped_pairs("Hello world", two)) == 4
    change = perturb("typos", {"text": "Hello world"}, rng(), n_typos=2)[0].change
    assert change["perturbation"] == "typos" and len(change["edits"]) == 2


def test_typos_deterministic_given_the_seed():
    assert texts("typos", "Deterministic outputs please", 7, n=4) == texts(
        "typos", "Deterministic outputs please", 7, n=4
    )
    assert texts("typos", "Deterministic outputs please", 7, n=4) != texts(
        "typos", "Deterministic outputs please", 8, n=4
    )


def test_typos_not_applicable():
    assert texts("typos", "a b c") == []
    assert texts("typos", "aaa 11") == []


def test_typos_only_in_the_chosen_field():
    case = {"question1": "How do I learn Python?", "question2": "What is the best way to learn Python?"}
    (p,) = perturb("typos", case, rng(), fields=["question2"])
    assert p.inputs["question1"] == case["question1"] and p.inputs["question2"] != case["question2"]
    assert {e["field"] for e in p.change["edits"]} == {"question2"}


# ---------------------------------------------------------------- contractions


def test_contractions_both_directions():
    assert texts("contractions", "What is that? I don't know.") == [
        "What's that? I don't know.",
        "What is that? I do not know.",
    ]
    assert texts("contractions", "It is not good.") == ["It's not good."]
    assert texts("contractions", "She isn't here and I'm late.") == ["She is not here and I am late."]


def test_contractions_keep_case_and_stranded_auxiliaries():
    assert texts("contractions", "He is not sure what it is.") == ["He's not sure what it is."]
    assert texts("expand_contractions", "Isn't it? I won't. You can't.") == [
        "Isn't it? I will not. You cannot."
    ]
    assert texts("expand_contractions", "I’m here") == ["I am here"]


def test_only_real_contractions_and_have_as_a_main_verb_is_not_contracted():
    assert texts("contractions", "You may not go.") == []  # not "mayn't"
    assert texts("contractions", "You have to read it.") == []  # not "you've to read"
    assert texts("contractions", "I have a cat.") == []
    assert texts("contractions", "They have really enjoyed it.") == ["They've really enjoyed it."]


def test_contractions_are_expanded_with_the_right_verb():
    assert texts("expand_contractions", "She's been better.") == ["She has been better."]
    assert texts("expand_contractions", "she 's been there") == ["she has been there"]  # SST's tokens
    assert texts("expand_contractions", "He's got a car.") == ["He has got a car."]
    assert texts("expand_contractions", "It's done.") == ["It is done."]  # a passive, not a perfect
    assert texts("expand_contractions", "anyone who 's ever had trauma") == ["anyone who has ever had trauma"]
    assert texts("expand_contractions", "I'd seen it.") == ["I had seen it."]
    assert texts("expand_contractions", "You'd better go.") == ["You had better go."]
    assert texts("expand_contractions", "I'd like it.") == ["I would like it."]


def test_expand_contractions_and_not_applicable():
    assert texts("expand_contractions", "They're sure it's fine.") == ["They are sure it is fine."]
    assert texts("expand_contractions", "Nothing to expand here.") == []
    assert texts("contractions", "Nothing at all.") == []
    p = perturb("contractions", {"text": "I do not know."}, rng())[0]
    assert p.change["direction"] == "contract" and p.change["edits"][0]["from"] == "do not"


# ---------------------------------------------------------------- names and places


def test_change_names_keeps_gender_and_replaces_consistently(tagger):
    male = {e.value for e in load_lexicon("male")}
    female = {e.value for e in load_lexicon("female")}
    last = {e.value for e in load_lexicon("last_name")}
    text = "John Smith met Mary, and John smiled."
    outs = perturb("change_names", {"text": text}, rng(), n=5)
    assert len(outs) == 5
    for p in outs:
        m = re.fullmatch(r"(\w+) ([\w']+) met (\w+), and (\w+) smiled\.", p.inputs["text"])
        assert m, p.inputs["text"]
        john, smith, mary, john2 = m.groups()
        assert john in male and john != "John" and john2 == john
        assert mary in female and mary != "Mary"
        assert smith in last and smith != "Smith"
        assert p.change["mapping"] == {"John": john, "Smith": smith, "Mary": mary}


def test_change_names_same_name_same_way_in_both_questions(tagger):
    case = {"question1": "Is Michael taller than Sarah?", "question2": "Who is taller, Michael or Sarah?"}
    (p,) = perturb("change_names", case, rng(3))
    new_m, new_s = p.change["mapping"]["Michael"], p.change["mapping"]["Sarah"]
    assert p.inputs == {
        "question1": f"Is {new_m} taller than {new_s}?",
        "question2": f"Who is taller, {new_m} or {new_s}?",
    }


def test_change_names_finds_names_by_the_lexicons_whatever_the_tag(tagger):
    """The tagger calls "Manning" a verb in one question and a noun in the other; the name is still one name,
    changed the same way in both. A first name used as a surname ("Paul" after "Sally") and a last name
    alone ("Jordan", a first name the lexicon lacks) are left as they are."""
    case = {
        "question1": "Is Robert Manning a lithographer?",
        "question2": "Did Robert Manning use to be a lithographer?",
    }
    for p in perturb("change_names", case, rng(1), n=5):
        mapping = p.change["mapping"]
        assert set(mapping) == {"Robert", "Manning"}
        new = f"{mapping['Robert']} {mapping['Manning']}"
        assert p.inputs == {k: v.replace("Robert Manning", new) for k, v in case.items()}
    for out in texts("change_names", "Sally Paul met Haley.", n=5):
        assert re.fullmatch(r"\w+ Paul met \w+\.", out) and not out.startswith("Sally")
    assert texts("change_names", "Jordan is a great player.") == []


def test_change_names_not_applicable(tagger):
    assert texts("change_names", "The movie was great.") == []
    assert texts("change_names", "Will you come?") == []


def test_change_location(tagger):
    cities = {e.value for e in load_lexicon("city")}
    countries = {e.value for e in load_lexicon("country")}
    outs = perturb("change_location", {"text": "I moved from Paris to Japan last year."}, rng(), n=3)
    assert len(outs) == 3
    for p in outs:
        new_city, new_country = p.change["mapping"]["Paris"], p.change["mapping"]["Japan"]
        assert new_city in cities and new_city != "Paris"
        assert new_country in countries and new_country != "Japan"
        assert p.inputs["text"] == f"I moved from {new_city} to {new_country} last year."
    assert texts("change_location", "I moved to a new flat.") == []


def test_change_location_multiword_names(tagger):
    (p,) = perturb("change_location", {"text": "She lives in New York City now."}, rng())
    assert p.change["edits"][0]["from"] == "New York City"


# ---------------------------------------------------------------- numbers


def test_change_number_within_twenty_percent_never_the_same():
    for seed in range(30):
        (p,) = perturb("change_number", {"text": "I bought 50 apples and 10 pears."}, rng(seed))
        m = re.fullmatch(r"I bought (\d+) apples and (\d+) pears\.", p.inputs["text"])
        a, b = int(m.group(1)), int(m.group(2))
        assert a != 50 and 40 <= a <= 60 and b != 10 and 8 <= b <= 12


def test_change_number_years_stay_four_digits_and_small_numbers_move():
    for seed in range(30):
        (out,) = texts("change_number", "Born in 1001, she had 1 cat.", seed)
        year, cat = map(int, re.findall(r"\d+", out))
        assert 1000 <= year <= 1201 and year != 1001 and cat in (0, 2)


def test_change_number_skips_decimals_and_not_applicable():
    (out,) = texts("change_number", "It costs 3.5 dollars, 5pm, 007 or 20.")
    assert (
        out.startswith("It costs 3.5 dollars, 5pm, 007 or ")
        and out != "It costs 3.5 dollars, 5pm, 007 or 20."
    )
    assert texts("change_number", "No numbers here.") == []


# ---------------------------------------------------------------- punctuation, URLs, phrases, swap


def test_punctuation():
    assert texts("punctuation", "Good movie!") == ["Good movie", "Good movie."]
    assert texts("punctuation", "Good movie") == ["Good movie."]
    assert texts("punctuation", "Good movie.") == ["Good movie"]
    assert texts("punctuation", "") == []


def test_add_url_handle():
    outs = texts("add_url_handle", "Great flight", n=6)
    assert len(outs) == 6
    for out in outs:
        assert re.fullmatch(r"Great flight (https://t\.co/[A-Za-z0-9]{10}|@[A-Za-z0-9]{10})", out)
    assert any("https://" in o for o in outs) and any("@" in o for o in outs)
    assert texts("add_url_handle", "Great flight", 4, n=3) == texts("add_url_handle", "Great flight", 4, n=3)


def test_append_phrase():
    phrases = ["You are lame.", "I hate you."]
    assert texts("append_phrase", "Good movie.", phrases=phrases) == [
        "Good movie. You are lame.",
        "Good movie. I hate you.",
    ]
    (one,) = texts("append_phrase", "Good movie.", phrases=phrases, n=1)
    assert one in ("Good movie. You are lame.", "Good movie. I hate you.")
    p = perturb("append_phrase", {"text": "Ok"}, rng(), phrases=["Bad."])[0]
    assert p.change == {
        "perturbation": "append_phrase",
        "phrase": "Bad.",
        "edits": [{"field": "text", "start": 2, "end": 2, "from": "", "to": " Bad."}],
    }


def test_rewrite():
    race = {r"\ban? (black|white|asian)\b": ["a black", "a white", "an asian"]}
    assert texts("rewrite", "Carlos is a white nurse.", rules=race) == [
        "Carlos is a black nurse.",
        "Carlos is an asian nurse.",
    ]
    used_to = {"^(I|We) ": [r"\1 used to "], "^(?=it )": ["I used to think "]}
    assert texts("rewrite", "We hate the seat.", rules=used_to) == ["We used to hate the seat."]
    assert texts("rewrite", "it was a bad seat.", rules=used_to) == ["I used to think it was a bad seat."]
    assert texts("rewrite", "Fine.", rules=used_to) == []
    reducers = {"(?<= was )": ["somewhat ", "kinda ", "a bit "]}
    (one,) = texts("rewrite", "It was good.", rules=reducers, n=1)
    assert one in ("It was somewhat good.", "It was kinda good.", "It was a bit good.")
    with pytest.raises(InputError, match="not a regular expression"):
        perturb("rewrite", {"text": "x"}, rng(), rules={"(": ["y"]})
    with pytest.raises(InputError, match="non-empty list"):
        perturb("rewrite", {"text": "x"}, rng(), rules={"x": "y"})


def test_swap_fields():
    case = {"question1": "How old is John?", "question2": "What is John's age?", "id": "7"}
    (p,) = perturb("swap_fields", case, rng())
    assert p.inputs == {"question1": "What is John's age?", "question2": "How old is John?", "id": "7"}
    assert perturb("swap_fields", {"question1": "same", "question2": "same"}, rng()) == []
    (q,) = perturb(
        "swap_fields", {"premise": "a", "hypothesis": "b"}, rng(), fields=["premise", "hypothesis"]
    )
    assert q.inputs == {"premise": "b", "hypothesis": "a"}
    with pytest.raises(InputError):
        perturb("swap_fields", {"premise": "a", "hypothesis": "b"}, rng())


# ---------------------------------------------------------------- negation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("John is happy.", "John is not happy."),
        ("She likes it.", "She does not like it."),
        ("They went home.", "They did not go home."),
        ("I like it.", "I do not like it."),
        ("He can swim.", "He cannot swim."),
        ("We have eaten.", "We have not eaten."),
        ("She has a car.", "She does not have a car."),
        ("He's happy.", "He's not happy."),
        ("The food was really good.", "The food was not really good."),
        # the main clause's verb, not a subordinate or relative clause's
        ("If you like action, you will love this film.", "If you like action, you will not love this film."),
        ("When it works, it is great.", "When it works, it is not great."),
        ("The film that she made is boring.", "The film that she made is not boring."),
        ("I think that it is good.", "I do not think that it is good."),
        # the auxiliary agrees with the verb's form even where the tagger says otherwise (it says VBP here)
        ("the vitality of the actors keeps it high .", "the vitality of the actors does not keep it high ."),
        # a fronted participial phrase is skipped up to its comma; the clause's own verb is negated
        (
            "a good story , told fairly well and scored to perfection , i found myself struggling .",
            "a good story , told fairly well and scored to perfection , i did not find myself struggling .",
        ),
        ("Told in flashbacks, the film looks great.", "Told in flashbacks, the film does not look great."),
        # a sentence adverb keeps its scope over the negation
        (
            "this film is also a troubling interpretation .",
            "this film is also not a troubling interpretation .",
        ),
        ("It is still good.", "It is still not good."),
        ("he perhaps put too much heart into it .", "he perhaps did not put too much heart into it ."),
        ("He also really likes it.", "He also does not really like it."),
        # a past form followed by a preposition is the clause's verb when no other verb follows
        ("The film opened in Paris and is great.", "The film did not open in Paris and is great."),
        (
            "the vitality keeps it high , even as the strafings blend .",
            "the vitality does not keep it high , even as the strafings blend .",
        ),
    ],
)
def test_add_negation(tagger, text, expected):
    assert texts("add_negation", text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Is it good?",
        "John is not happy.",
        "It isn't good.",
        "He never lies.",
        "Great food!",
        "Nobody likes this movie.",  # not "Nobody does not like this movie."
        "people cinema at its finest .",  # the tagger's "verb" is no verb
        "No one is there.",
        # a reduced relative ("embedded in ...") is no main verb, and the real one is tagged as a base form
        "the fascination embedded in the lurid topic prove recommendation enough .",
        # an ellipsis of the verb follows, which the negation would contradict
        "it showcases carvey 's talent for voices , but not nearly enough .",
        "we root for ( clara and paul ) , even like them .",
        "the film gets great laughs , but never at the expense of its characters",
        # the bare infinitive after a causative is not finite ("makes films do not seem")
        "so devoid of story that it makes films like xxx seem like thoughtful treatises",
    ],
)
def test_add_negation_not_applicable(tagger, text):
    assert texts("add_negation", text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("John is not happy.", "John is happy."),
        ("She does not like it.", "She likes it."),
        ("She doesn't like it.", "She likes it."),
        ("They did not go home.", "They went home."),
        ("I do not like it.", "I like it."),
        ("He didn't really enjoy it.", "He really enjoyed it."),
        ("I can't go.", "I can go."),
        ("I won't go.", "I will go."),
        ("I cannot go.", "I can go."),
        ("He isn't here.", "He is here."),
    ],
)
def test_remove_negation(tagger, text, expected):
    assert texts("remove_negation", text) == [expected]


@pytest.mark.parametrize("text", ["Not bad at all.", "Good, not bad.", "John is happy.", "Fine."])
def test_remove_negation_not_applicable(tagger, text):
    assert texts("remove_negation", text) == []


def test_negation_round_trip(tagger):
    for text in ["John is happy.", "She likes it.", "They went home."]:
        (neg,) = texts("add_negation", text)
        assert texts("remove_negation", neg) == [text]


def test_untouched_text_is_byte_identical(tagger):
    text = "  She  likes it…  really, “truly”.  "
    (out,) = texts("add_negation", text)
    assert out == "  She  does not like it…  really, “truly”.  "


def test_every_perturbation_returns_perturbed_records_with_the_change(tagger):
    options = {
        "append_phrase": {"phrases": ["Nice."]},
        "rewrite": {"rules": {r"\bis (?=\d)": ["is about "]}},
        "swap_fields": None,
    }
    word_swaps = {  # these change only words of their tables or questions of their forms
        "change_neutral": "John is 30 and lives in Paris. He isn't sure the flight is late.",
        "change_synonyms": "John is 30 and lives in Paris. What is the best way to go?",
        "paraphrase": "How can I live in Paris?",
        "gibberish": "John is 30 and lives in Paris.",
    }
    for name in PERTURBATIONS:
        if options.get(name, {}) is None:
            continue
        case = {"text": word_swaps.get(name, "John is 30 and lives in Paris. He isn't sure.")}
        out = perturb(name, case, rng(), **options.get(name, {}))
        assert out, name
        for p in out:
            assert isinstance(p, Perturbed) and p.change["perturbation"] == name
            assert p.inputs != case and set(p.inputs) == set(case)
            for e in p.change["edits"]:
                assert case[e["field"]][e["start"] : e["end"]] == e["from"]
        again = perturb(name, case, rng(), **options.get(name, {}))
        assert [p.inputs for p in again] == [p.inputs for p in out], name


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("add_negation", "He really likes it.", ["He does not really like it."]),
        ("add_negation", "fans will most likely not find it .", []),
        (
            "expand_contractions",
            "it 's good but i do n't know ; kissinger 's .",
            ["it is good but i do not know ; kissinger 's ."],
        ),
        ("remove_negation", "i do n't like it .", ["i like it ."]),
    ],
)
def test_adverbs_and_treebank_tokenized_text(tagger, name, text, expected):
    """SST-style text is tokenized ("do n't", "it 's"); adverbs stay next to their verb."""
    assert texts(name, text) == expected


# ---------------------------------------------------------------- word swaps and paraphrases


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The flight was good.", {"That flight was good.", "The journey was good.", "This flight was good."}),
        ("I liked this seat.", {"I liked that seat."}),
        ("That film is great.", {"This film is great."}),
        ("This is great.", {"That is great."}),
        ("It was an awful plane.", {"It was an awful airplane."}),
        ("The lounge was nice.", {"This lounge was nice.", "That lounge was nice."}),
        # one occurrence at a time
        ("this film and this cast", {"that film and this cast", "this film and that cast"}),
    ],
)
def test_change_neutral_replaces_one_neutral_word(tagger, text, expected):
    outs = {t for seed in range(20) for t in texts("change_neutral", text, seed=seed)}
    assert outs == expected


@pytest.mark.parametrize(
    "text",
    [
        "The flights were late.",  # "this flights"
        "The people were rude.",  # "this people"
        "robbed of the element of surprise .",  # an idiom's article
        "it is funny some of the time .",
        "It was a good seat.",  # "one good seat": "a" is not swapped
        "I think that it is good.",  # "that" of a clause
        "it may please those who love pop songs .",  # "these who"
        "and that 's a big part of it .",  # "this 's"
        "only this time you have to read the jokes .",  # "that time" is another time
        "for aging hippies ( this one included ) .",  # "this one" is the writer
        "before the end credits rolled .",  # "this end credits"
        "a must-see for the david mamet enthusiast .",  # a generic "the"
        "read my lips is an original .",  # a title ("my" is never changed)
        "Great food!",
    ],
)
def test_change_neutral_leaves_out_what_it_cannot_swap(tagger, text):
    assert texts("change_neutral", text) == []


def test_change_synonyms_changes_a_word_the_same_way_in_both_questions():
    case = {
        "question1": "What is the best way for Ann to learn Spanish quickly?",
        "question2": "How can Ann learn Spanish quickly?",
    }
    outs = {
        p.inputs["question1"]: p.inputs["question2"]
        for p in perturb("change_synonyms", case, rng(), n=10)  # every word it can change, one at a time
    }
    assert outs == {
        "What is the best way for Ann to learn Spanish fast?": "How can Ann learn Spanish fast?",
        "What is the best method for Ann to learn Spanish quickly?": case["question2"],
        "What is the most effective way for Ann to learn Spanish quickly?": case["question2"],
    }
    one = perturb("change_synonyms", case, rng(0), fields=["question2"])
    assert one[0].inputs == {"question1": case["question1"], "question2": "How can Ann learn Spanish fast?"}
    for text in ("Who is my best friend?", "Is it on the way to the living room?", "Who is he?"):
        assert perturb("change_synonyms", {"question1": text}, rng()) == []  # no sure sense


def test_paraphrase_rewrites_how_to_questions_in_checklists_forms():
    outs = texts("paraphrase", "How can I learn Spanish?", n=10)
    assert sorted(outs) == [
        "How do I learn Spanish?",
        "If I want to learn Spanish, what should I do?",
        "In order to learn Spanish, what should I do?",
        "What is a good way to learn Spanish?",
    ]
    assert (
        texts("paraphrase", "What is a good way to learn Spanish ?", n=10)[0]
        != "What is a good way to learn Spanish ?"
    )
    assert texts("paraphrase", "Why is Spanish hard?") == []
    assert texts("paraphrase", "How can I learn Spanish?", seed=3) == texts(
        "paraphrase", "How can I learn Spanish?", seed=3
    )


def test_gibberish_keeps_names_places_and_numbers_and_scrambles_the_rest():
    text = "What is Tamara Ray's favorite food in Santiago de los Caballeros, and is 300 enough?"
    (out,) = texts("gibberish", text)
    kept = ["Tamara", "Ray's", "Santiago de los Caballeros", "300"]
    assert all(k in out for k in kept)  # a first name used as a surname and a place the tagger misses too
    rest = out
    for k in kept:
        rest = rest.replace(k, "")
    assert set(re.findall(r"[A-Za-z]+", rest)).isdisjoint(set(re.findall(r"[A-Za-z]+", text)))
    assert [len(w) for w in re.findall(r"[A-Za-z]+", out)] == [len(w) for w in re.findall(r"[A-Za-z]+", text)]
    assert out[0].isupper() and out.endswith("?") and ", " in out
    assert (
        texts("gibberish", text, seed=4)
        == texts("gibberish", text, seed=4)
        != texts("gibberish", text, seed=5)
    )
    assert texts("gibberish", "Why is the sky blue?") == []  # nothing to keep
