"""Fill stage: whole-word vocabulary, batched joint beam search, suggestion cache, validation rules."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest
import torch
from conftest import require

from autocheck.expand.fill import fill, validate
from autocheck.expand.insertions import checks_for
from autocheck.expand.mlm import MaskedLM, whole_word_ids
from autocheck.expand.validate import FillStats, standard_checks
from autocheck.records import MaskedTemplate, Parse, TestCase
from autocheck.resources import ResourceMissing
from autocheck.store import InputError
from autocheck.tagging import tokenize

torch.set_num_threads(1)

VOCAB = (
    "[PAD] [UNK] [CLS] [SEP] [MASK] . , ! 3 ##s ##ing this is a movie film good bad great very the old new "
    "it was and director really funny dog ran quickly plot light fast"
).split()
# Output biases of the tiny BERT: non-words get the largest ones, so filtering them out is what makes
# "old" the top suggestion.
BIAS = {"old": 8.0, "new": 6.0, "##s": 12.0, "[UNK]": 12.0, ".": 12.0, "3": 12.0, "[MASK]": 12.0}


@pytest.fixture(scope="module")
def tiny_bert_dir(tmp_path_factory):
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    directory = tmp_path_factory.mktemp("tiny-bert")
    BertTokenizer(vocab={word: i for i, word in enumerate(VOCAB)}).save_pretrained(directory)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )  # fmt: skip
    model = BertForMaskedLM(config)
    with torch.no_grad():
        for word, bias in BIAS.items():
            model.cls.predictions.bias[VOCAB.index(word)] = bias
    model.save_pretrained(directory)
    return directory


@pytest.fixture(scope="module")
def tiny_bert(tiny_bert_dir) -> MaskedLM:
    return MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")


def template(text: str, masks, *, case_id: str = "c1", tid: str = "t1", lhs: str = "NP") -> MaskedTemplate:
    tokens = tokenize(text)
    parse = Parse(text, tokens.words, tokens.offsets, ("(S)",))
    return MaskedTemplate(tid, case_id, parse, tuple(masks), lhs, ("DT", "NN"), ("DT", "JJ", "NN"), 0.25)


def seed(text: str, *, case_id: str = "c1", editable=None) -> TestCase:
    return TestCase(
        id=case_id, capability="LC1", kind="seed", inputs=text, expected="positive", test_type="MFT",
        label="positive", editable=editable or ((0, len(text)),), provenance={"dataset": "demo"},
    )  # fmt: skip


class Lexicon:
    """Polar words as a set; records the lookups so tests can see the word and POS used."""

    def __init__(self, polar=()):
        self.polar = set(polar)
        self.calls: list[tuple[str, str | None]] = []

    def is_neutral(self, word: str, pos: str | None) -> bool:
        self.calls.append((word, pos))
        return word not in self.polar


def always(case: TestCase, text: str) -> bool:
    return True


def without_inserted(case: TestCase) -> str:
    """The expansion's text with its inserted words (and one space each) taken out again."""
    text = case.text
    for item in sorted(case.provenance["inserted"], key=lambda i: -i["offset"]):
        start, end = item["offset"], item["offset"] + len(item["word"])
        assert text[start:end] == item["word"]
        text = (
            text[:start] + text[end + 1 :] if text[end : end + 1] == " " else text[: start - 1] + text[end:]
        )
    return text


def test_whole_word_ids_wordpiece_and_bpe():
    wordpiece = ["[PAD]", "[UNK]", "[MASK]", "good", "##s", ".", "3", "[unused1]", "café", "Movie"]
    assert whole_word_ids(wordpiece, special_ids=[0, 1, 2]) == {3: "good", 9: "Movie"}
    bpe = ["<s>", "<mask>", "Ġgood", "good", "Ġ.", "Ġ3", "Ġthe", "ing", "Ġ"]
    assert whole_word_ids(bpe, special_ids=[0, 1]) == {2: "good", 6: "the"}


def test_suggestions_are_whole_words_only(tiny_bert):
    fills = tiny_bert.suggest([template("this is a movie .", [(3, "JJ")])], beam_size=5, top_n=50)[0]
    words = [w for (w,), _ in fills]
    assert words[:2] == ["old", "new"]  # the biased words win once the higher-biased non-words are gone
    assert len(words) == len(set(words)) == len(tiny_bert.words)
    assert all(w.isalpha() and w in VOCAB and not w.startswith("[") for w in words)
    scores = [s for _, s in fills]
    assert scores == sorted(scores, reverse=True) and all(s < 0 for s in scores)


def tiny_roberta(words: list[str]) -> MaskedLM:
    """A byte-level BPE masked LM (RoBERTa layout) whose output bias favours "Ġold", and favours the
    word-internal piece "old" and the bare space "Ġ" even more."""
    from tokenizers import AddedToken
    from transformers import RobertaConfig, RobertaForMaskedLM, RobertaTokenizer

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, "Ġ": 5, ".": 6, "Ġ.": 7}
    merges = [("Ġ", ".")]
    for word in words:  # merges that build "word" and "Ġword" letter by letter
        for start in ("Ġ", word[0]):
            piece = start
            for letter in word if start == "Ġ" else word[1:]:
                vocab.setdefault(letter, len(vocab))
                merges.append((piece, letter))
                piece += letter
                vocab.setdefault(piece, len(vocab))
    tokenizer = RobertaTokenizer(vocab=vocab, merges=merges, mask_token=AddedToken("<mask>", lstrip=True))
    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(vocab), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=40, pad_token_id=1,
    )  # fmt: skip
    model = RobertaForMaskedLM(config)
    with torch.no_grad():
        for token, bias in {"Ġold": 8.0, "old": 12.0, "Ġ": 12.0}.items():
            model.lm_head.bias[vocab[token]] = bias
    return MaskedLM(tokenizer, model, identity="tiny-roberta", device="cpu")


def test_bpe_masked_lm_suggests_word_initial_items():
    lm = tiny_roberta(["this", "is", "a", "movie", "old", "new"])
    masked = lm.masked_text(template("this is a movie .", [(3, "JJ")]))
    assert masked == "this is a <mask> movie ."
    assert lm.tokenizer.convert_ids_to_tokens(lm.tokenizer(masked)["input_ids"])[4] == "<mask>"
    fills = lm.suggest([template("this is a movie .", [(3, "JJ")])], beam_size=5, top_n=100)[0]
    words = [w for (w,), _ in fills]
    assert words[0] == "old" and len(words) == len(set(words)) == len(lm.words)
    assert set(words) == {t[1:] for t in lm.tokenizer.get_vocab() if t.startswith("Ġ") and t[1:].isalpha()}


def test_head_at_mask_positions_equals_full_forward(tiny_bert):
    encoded = tiny_bert.tokenizer(
        ["this is a [MASK] movie .", "the [MASK] ran ."], padding=True, return_tensors="pt"
    )
    positions = (encoded["input_ids"] == tiny_bert.tokenizer.mask_token_id).nonzero()[:, 1]
    ours = tiny_bert._mask_log_probs(encoded["input_ids"], encoded["attention_mask"], positions)
    with torch.inference_mode():
        logits = tiny_bert.model(
            input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"]
        ).logits
    full = logits[torch.arange(2), positions].log_softmax(-1) + tiny_bert._disallowed
    allowed = list(tiny_bert.words)
    torch.testing.assert_close(ours[:, allowed], full[:, allowed])


def test_batched_suggestions_equal_unbatched(tiny_bert, monkeypatch):
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # both runs must really compute
    templates = [
        template("this is a movie .", [(3, "JJ")]),
        template("the dog ran .", [(1, "JJ")]),
        template("it was a really funny and light film !", [(5, "JJ"), (8, "NN")], tid="t3"),
        template("this is a movie .", [(3, "RB"), (3, "JJ")], tid="t4"),
    ]
    batched = tiny_bert.suggest(templates, beam_size=4, top_n=6, batch_size=64)
    single = tiny_bert.suggest(templates, beam_size=4, top_n=6, batch_size=1)
    for one, other in zip(batched, single):
        assert [w for w, _ in one] == [w for w, _ in other]
        assert [s for _, s in one] == pytest.approx([s for _, s in other], abs=2e-4)
    assert [len(f) for f in batched] == [6, 6, 6, 6]
    assert all(len(words) == 2 for words, _ in batched[2] + batched[3])


class PairLM(torch.nn.Module):
    """A masked LM whose logits are a fixed preference plus a bonus given by the token just before:
    greedy decoding picks ("old", "old"), but ("new", "film") is the best pair jointly."""

    def __init__(self, vocab: list[str]):
        super().__init__()
        self.base = torch.zeros(len(vocab))
        self.base[vocab.index("old")], self.base[vocab.index("new")] = 2.0, 1.5
        self.bonus = torch.zeros(len(vocab), len(vocab))
        self.bonus[vocab.index("new"), vocab.index("film")] = 6.0

    def forward(self, input_ids, attention_mask=None):
        return SimpleNamespace(logits=self.base + self.bonus[input_ids.roll(1, dims=1)])


def test_joint_beam_search_finds_the_best_pair(tiny_bert):
    lm = MaskedLM(tiny_bert.tokenizer, PairLM(VOCAB), identity="pair-lm", device="cpu")
    two_masks = [template("this is a movie .", [(3, "JJ"), (3, "NN")])]
    best_words, best_score = lm.suggest(two_masks, beam_size=3, top_n=3)[0][0]
    assert best_words == ("new", "film")
    new, film = VOCAB.index("new"), VOCAB.index("film")  # score: mean log-probability per mask
    first = lm.model.base.log_softmax(-1)[new]
    second = (lm.model.base + lm.model.bonus[new]).log_softmax(-1)[film]
    expected = (first + second) / 2
    assert best_score == pytest.approx(float(expected), abs=1e-4)
    assert lm.suggest(two_masks, beam_size=1, top_n=3)[0][0][0] == ("old", "old")  # greedy misses it


class NextWordLM(torch.nn.Module):
    """A masked LM whose logits depend on the token just before: after "a", word ``i`` of ``words`` gets
    ``3 - 0.3 i``; after word ``i``, that plus its own noise, and word 10 a bonus of 30 after word 4. So a
    fill's first word ranks the parents best first, most second words are spread thin, and the best pair
    of all starts with the fifth parent."""

    def __init__(self, vocab: list[str], words: list[int]):
        super().__init__()
        generator = torch.Generator().manual_seed(0)
        base = torch.full((len(vocab),), -10.0)
        base[words] = 3 - 0.3 * torch.arange(len(words), dtype=torch.float)
        self.table = torch.zeros(len(vocab), len(vocab))
        self.table[vocab.index("a")] = base
        for word in words:
            self.table[word] = base + torch.randn(len(vocab), generator=generator) * 0.5
        self.table[words[4], words[10]] += 30.0

    def forward(self, input_ids, attention_mask=None):
        return SimpleNamespace(logits=self.table[input_ids.roll(1, dims=1)])


def test_rows_that_cannot_reach_the_best_fills_are_never_scored(tiny_bert):
    """A beam as wide as the vocabulary is an exhaustive search: its fills are every pair's exact ranking,
    yet the second mask scores only the parents whose own score beats the best pairs found so far (a
    parent's pairs score below it), never the others."""
    words = list(tiny_bert.words)
    lm = MaskedLM(tiny_bert.tokenizer, NextWordLM(VOCAB, words), identity="next-word-lm", device="cpu")
    two_masks = template("this is a movie .", [(3, "JJ"), (3, "NN")])
    ids = lm.tokenizer([lm.masked_text(two_masks)], return_tensors="pt")["input_ids"]
    first, second = (ids[0] == lm.tokenizer.mask_token_id).nonzero().flatten().tolist()
    log_probs = lm.model.table.log_softmax(-1)  # at a mask: the row of the token before it
    pairs = {
        (w0, w1): float(log_probs[ids[0, first - 1], w0] + log_probs[w0, w1]) for w0 in words for w1 in words
    }
    best = sorted(pairs, key=pairs.__getitem__, reverse=True)[:5]
    assert best[0] == (words[4], words[10])
    found = lm.suggest([two_masks], beam_size=len(words), top_n=5)[0]
    assert [words for words, _ in found] == [(lm.words[w0], lm.words[w1]) for w0, w1 in best]
    assert [score for _, score in found] == pytest.approx([pairs[pair] / 2 for pair in best], abs=1e-4)
    assert lm.forward_rows < 1 + len(words) // 2  # against 1 + a row per word


def test_suggestion_cache_is_used_on_the_second_call(tiny_bert):
    templates = [
        template("this is a movie .", [(3, "JJ")]),
        template("this is a movie .", [(3, "RB"), (3, "JJ")]),
    ]
    before = tiny_bert.forward_passes
    first = tiny_bert.suggest(templates, beam_size=3, top_n=5)
    computed = tiny_bert.forward_passes - before
    assert computed >= 2  # a pass per mask step at least (the second step's rows in waves)
    assert tiny_bert.suggest(templates, beam_size=3, top_n=5) == first
    assert tiny_bert.forward_passes - before == computed
    tiny_bert.suggest(templates, beam_size=3, top_n=4)  # other settings: other cache entries
    assert tiny_bert.forward_passes - before == 2 * computed


def test_pos_is_checked_in_context():
    text = "this is a movie ."
    fills = [(("quickly",), -1.0), (("light",), -2.0)]  # "light" alone tags NN; here it is an adjective
    stats = FillStats()
    out = validate([template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always, stats=stats)
    assert [c.text for c in out] == ["this is a light movie ."]
    assert stats.rejected["pos"] == 1 and stats.kept == 1


def test_multi_mask_tags_are_compared_position_by_position():
    text = "this is a movie ."
    fills = [(("old", "very"), -1.0), (("very", "old"), -2.0)]
    out = validate([template(text, [(3, "RB"), (3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always)
    assert [c.text for c in out] == ["this is a very old movie ."]
    assert [(i["word"], i["tag"]) for i in out[0].provenance["inserted"]] == [("very", "RB"), ("old", "JJ")]


def test_polar_words_are_rejected_case_insensitively_with_their_pos():
    text = "this is a movie ."
    lexicon = Lexicon(polar={"good"})
    stats = FillStats()
    fills = [(("Good",), -1.0), (("old",), -2.0)]
    out = validate([template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, lexicon, always, stats=stats)
    assert [c.text for c in out] == ["this is a old movie ."]
    assert ("good", "adj") in lexicon.calls
    assert stats.rejected["polarity"] == 1


def test_requirement_rejects_fills_that_break_the_capability():
    text = "this is a movie ."
    seen: list[tuple[str, str]] = []

    def short(case: TestCase, new_text: str) -> bool:
        seen.append((case.id, new_text))
        return "light" not in new_text

    stats = FillStats()
    fills = [(("light",), -1.0), (("fast",), -2.0)]
    out = validate([template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), short, stats=stats)
    assert [c.text for c in out] == ["this is a fast movie ."]
    assert seen == [("c1", "this is a light movie ."), ("c1", "this is a fast movie .")]
    assert stats.rejected["requirement"] == 1


def test_duplicates_across_templates_are_dropped():
    text = "this is a movie ."
    templates = [template(text, [(3, "JJ")], tid="a"), template(text, [(3, "JJ")], tid="b", lhs="ADJP")]
    fills = [(("old",), -1.0)]
    stats = FillStats()
    out = validate(
        templates, [fills, fills], {"c1": seed(text)}, Lexicon(), always, fills_per_mask=None, stats=stats
    )
    assert [c.provenance["template_id"] for c in out] == ["a"]
    assert stats.rejected["duplicate"] == 1


@pytest.mark.parametrize("fills_per_mask, expected", [(1, 1), (2, 2), (None, 3)])
def test_fills_per_mask_keeps_the_best_valid_fills(fills_per_mask, expected):
    text = "this is a movie ."
    fills = [(("quickly",), -0.5), (("old",), -1.0), (("light",), -2.0), (("fast",), -3.0)]
    stats = FillStats()
    out = validate(
        [template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        fills_per_mask=fills_per_mask, stats=stats,
    )  # fmt: skip
    assert [c.text.split()[3] for c in out] == ["old", "light", "fast"][:expected]
    assert [c.provenance["mlm_score"] for c in out] == [-1.0, -2.0, -3.0][:expected]
    assert stats.proposed == stats.kept + sum(stats.rejected.values()) + stats.unused == 4


def test_expansion_is_the_seed_plus_the_inserted_words_with_editable_spans_moved():
    text = 'I said "this is a movie ." today'
    start = text.index("this")
    case = seed(text, editable=((start, text.index('"', start)),))
    tpl = template(text, [(6, "RB"), (6, "JJ")])  # both before "movie" (token 6)
    out = validate([tpl], [[(("very", "old"), -1.5)]], {"c1": case}, Lexicon(), always)
    assert len(out) == 1
    new = out[0]
    assert new.text == 'I said "this is a very old movie ." today'
    assert without_inserted(new) == text
    ((a, b),) = new.editable
    assert new.text[a:b] == "this is a very old movie ."
    assert new.kind == "expansion" and new.seed_id == "c1" and new.id.startswith("c1-x")
    assert (new.capability, new.expected, new.test_type, new.label) == ("LC1", "positive", "MFT", "positive")
    assert new.provenance["dataset"] == "demo"
    assert new.provenance["production"] == {"lhs": "NP", "from": ["DT", "NN"], "to": ["DT", "JJ", "NN"]}
    assert new.provenance["template_score"] == 0.25 and new.provenance["template_id"] == "t1"


def test_fill_end_to_end_is_deterministic_and_keeps_the_invariant(tiny_bert):
    texts = {"c1": "this is a movie .", "c2": "the dog ran quickly .", "c3": "it was a funny plot !"}
    cases = {cid: seed(text, case_id=cid) for cid, text in texts.items()}
    templates = [
        template(texts["c1"], [(3, "JJ")], case_id="c1", tid="a"),
        template(texts["c1"], [(3, "RB"), (3, "JJ")], case_id="c1", tid="b"),
        template(texts["c2"], [(1, "JJ")], case_id="c2", tid="c"),
        template(texts["c3"], [(3, "NP")], case_id="c3", tid="d"),  # phrase-level: can never validate
        template(texts["c3"], [(4, "NN")], case_id="missing", tid="e"),
    ]
    runs = []
    for _ in range(2):
        stats = FillStats()
        out = list(
            fill(
                templates,
                cases,
                tiny_bert,
                Lexicon(),
                always,
                fills_per_mask=2,
                beam_size=4,
                top_n=8,
                stats=stats,
            )
        )
        runs.append(([c.to_json() for c in out], stats.as_dict()))
    assert runs[0] == runs[1]
    out_json, counts = runs[0]
    assert counts["templates"] == 5 and counts["unfillable"] == 2
    assert (
        counts["proposed"]
        == 24
        == counts["kept"] + counts["unused"] + sum(v for k, v in counts.items() if k.startswith("rejected_"))
    )
    assert out_json and all(c["kind"] == "expansion" for c in out_json)
    assert len({c["id"] for c in out_json}) == len(out_json)
    for c in map(TestCase.from_json, out_json):
        assert without_inserted(c) == texts[c.seed_id]
        assert c.text != texts[c.seed_id]


def test_missing_model_is_a_one_line_resource_error(tmp_path):
    with pytest.raises(ResourceMissing, match="masked LM .*no-such-model") as error:
        MaskedLM.from_pretrained(tmp_path / "no-such-model")
    assert "\n" not in str(error.value)
    with pytest.raises(ResourceMissing, match="'nobody/no-such-mlm'"):
        MaskedLM.from_pretrained("nobody/no-such-mlm")


@pytest.mark.shared_data
def test_stand_in_mlm_fills_real_words(shared_data):
    lm = MaskedLM.from_pretrained(require(shared_data / "models" / "mini-bert-mlm"), device="cpu")
    text = "this is a movie ."
    one, two = lm.suggest([template(text, [(3, "JJ")]), template(text, [(3, "RB"), (3, "JJ")])], 20, 20)
    assert {"good", "great", "bad"} & {w for (w,), _ in one[:10]}
    assert all(w.isalpha() for words, _ in one + two for w in words)
    out = list(
        fill([template(text, [(3, "JJ")])], {"c1": seed(text)}, lm, Lexicon(), always, fills_per_mask=3)
    )
    assert len(out) == 3 and all(c.provenance["inserted"][0]["tag"] == "JJ" for c in out)
    assert all(without_inserted(c) == text for c in out)


@pytest.mark.shared_data
def test_a_template_of_adjectives_keeps_at_most_adjective_fills(shared_data):
    lm = MaskedLM.from_pretrained(require(shared_data / "models" / "mini-bert-mlm"), device="cpu")
    text = "this is a funny movie that i liked ."
    templates = [
        template(text, [(3, "JJ")], tid="adjective"),
        template(text, [(3, "JJ"), (3, "CC")], tid="adjectives joined"),  # "a [long and] funny movie"
        template(text, [(7, "RB")], tid="adverb"),
    ]

    def kept(**fills) -> dict[str, int]:
        out = fill(templates, {"c1": seed(text)}, lm, Lexicon(), always, top_n=60, **fills)
        return Counter(c.provenance["template_id"] for c in out)

    assert kept(fills_per_mask=6, adjective_fills=2) == {"adjective": 2, "adjectives joined": 2, "adverb": 6}
    unbounded = kept(fills_per_mask=6, adjective_fills=None)
    assert unbounded["adjective"] == unbounded["adverb"] == 6 and unbounded["adjectives joined"] > 2
    assert kept(fills_per_mask=1, adjective_fills=2) == {"adjective": 1, "adjectives joined": 1, "adverb": 1}
    assert kept() == {"adjective": 3, "adjectives joined": 3, "adverb": 12}  # GenerateConfig's defaults


@pytest.mark.shared_data
def test_a_fill_call_tags_each_seed_once_and_not_at_all_when_given_its_tags(shared_data, monkeypatch):
    """Validation reads the seeds' tags; a fill call validates in rounds (the narrow beam, the full one),
    and the job has tagged the seeds already for the adjective sites (``seed_tags``)."""
    from autocheck.expand import validate as validation

    lm = MaskedLM.from_pretrained(require(shared_data / "models" / "mini-bert-mlm"), device="cpu")
    text = "this is a movie that i liked ."
    templates = [template(text, [(3, "JJ")], tid="one"), template(text, [(3, "RB"), (3, "JJ")], tid="two")]
    seed_words = list(tokenize(text).words)
    tagged: list[list[str]] = []

    def counting(sentences):
        tagged.extend(list(s) for s in sentences if list(s) == seed_words)
        return real(sentences)

    real = validation.pos_tag_sents
    monkeypatch.setattr(validation, "pos_tag_sents", counting)
    stats = FillStats()
    fills = dict(fills_per_mask=40, beam_size=8, first_beam=2, top_n=40, stats=stats)
    out = list(fill(templates, {"c1": seed(text)}, lm, Lexicon(), always, **fills))
    assert out and stats.proposed > 40 and len(tagged) == 1  # two rounds of validation, one tagging
    given: dict[str, list] = {}
    validation.tag_seeds([templates[0].parse], given)
    tagged.clear()
    again = list(fill(templates, {"c1": seed(text)}, lm, Lexicon(), always, seed_tags=given, **fills))
    assert [c.text for c in again] == [c.text for c in out] and not tagged


def test_negations_are_never_neutral_insertions():
    """ "not" is neutral in a word list such as the opinion lexicon, but inserting it flips the sentiment."""
    text = "the film is good ."
    stats = FillStats()
    fills = [(("not",), -1.0), (("very",), -2.0)]
    out = validate([template(text, [(3, "RB")])], [fills], {"c1": seed(text)}, Lexicon(), always, stats=stats)
    assert [c.text for c in out] == ["the film is very good ."]
    assert stats.rejected["polarity"] == 1


def _kept(text: str, masks, fills, **kwargs) -> tuple[list[TestCase], FillStats]:
    stats = FillStats()
    out = validate(
        [template(text, masks)], [fills], {"c1": seed(text)}, Lexicon(), always, stats=stats, **kwargs
    )
    return out, stats


def undo_recasing(case: TestCase) -> str:
    """``without_inserted`` after the seed tokens that ``recase`` lowered are capitalised again."""
    text = case.text
    for at in case.provenance.get("lowered", ()):
        text = text[:at] + text[at].upper() + text[at + 1 :]
    return without_inserted(TestCase.from_json({**case.to_json(), "text": text}))


def test_sentence_initial_insertion_is_recased():
    """An uncased masked LM suggests "even"; at the start it is "Even" and the old capital goes lower-case."""
    text = "This film works ."
    (out,), _ = _kept(text, [(0, "RB")], [(("even",), -1.0)])
    assert out.text == "Even this film works ."
    assert out.provenance["inserted"][0]["word"] == "Even" and out.provenance["lowered"] == [5]
    assert undo_recasing(out) == text


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I liked this film .", "Even I liked this film ."),  # "I" stays
        ("Paris is a nice city .", "Even Paris is a nice city ."),  # a proper noun stays
        ("TV is a nice thing .", "Even TV is a nice thing ."),  # an acronym stays
        ("this film works .", "even this film works ."),  # a lower-case start stays as written
        ("Samuel Beckett applied .", "Even Samuel Beckett applied ."),  # a name: tagged NNP before NNP
        ("Mild , meandering teen flick .", "Even mild , meandering teen flick ."),  # NNP by position only
    ],
)
def test_sentence_initial_capital_is_kept_for_i_proper_nouns_and_acronyms(text, expected):
    (out,), _ = _kept(text, [(0, "RB")], [(("even",), -1.0)])
    assert out.text == expected


def test_insertion_after_an_opening_quote_starts_the_quoted_sentence():
    text = 'Do I think that "This film works"? yes'
    start = text.index("This")
    case = seed(text, editable=((start, text.index('"', start)),))
    out = validate([template(text, [(5, "RB")])], [[(("even",), -1.0)]], {"c1": case}, Lexicon(), always)
    assert [c.text for c in out] == ['Do I think that "Even this film works"? yes']
    assert undo_recasing(out[0]) == text


def test_lone_i_is_capitalised():
    text = "the film that liked was good ."
    (out,), _ = _kept(text, [(3, "PRP")], [(("i",), -1.0)])
    assert out.text == "the film that I liked was good ."


def test_lower_case_proper_nouns_are_checked_as_proper_nouns():
    # "york" tags as a common noun in lower case; it is a proper noun, so it fails a noun mask
    out, stats = _kept("this is a movie .", [(3, "NN")], [(("york",), -1.0), (("horror",), -2.0)])
    assert [c.text for c in out] == ["this is a horror movie ."] and stats.rejected["pos"] == 1
    # and for a proper-noun mask it is written as one
    out, _ = _kept("the film by is good .", [(3, "NNP")], [(("jones",), -1.0)])
    assert [c.text for c in out] == ["the film by Jones is good ."]
    # a common word is not made a name by capitalising it, and a lower-case fill is no proper noun
    out, stats = _kept("the film by is good .", [(3, "NNP")], [(("whole",), -1.0), (("film",), -2.0)])
    assert out == [] and stats.rejected["pos"] == 2


def test_doubled_words_are_rejected_and_counted():
    text = "this is a kind of movie ."
    out, stats = _kept(text, [(4, "NN")], [(("kind",), -1.0), (("sort",), -2.0)])
    assert [c.text for c in out] == ["this is a kind sort of movie ."]
    assert stats.rejected["doubled"] == 1
    out, stats = _kept("this is a movie .", [(3, "RB"), (3, "RB")], [(("very", "Very"), -1.0)])
    assert out == [] and stats.rejected["doubled"] == 1
    assert "rejected_doubled" in stats.as_dict()


@pytest.mark.parametrize("literal", ["[MASK]", "[CLS]", "[SEP]", "[PAD]"])
def test_seed_with_a_literal_special_token_is_skipped_and_counted(tiny_bert, literal):
    text = f"this is a {literal} movie ."
    stats = FillStats()
    out = list(
        fill([template(text, [(3, "JJ")])], {"c1": seed(text)}, tiny_bert, Lexicon(), always, stats=stats)
    )
    assert out == [] and stats.special_token == 1 and stats.unfillable == 1
    assert tiny_bert.has_special_token(text) and not tiny_bert.has_special_token("this is a <mask> movie .")


class FakeScorer:
    """Fluency differences looked up in a table by expanded text; records what it was asked."""

    window = 1

    def __init__(self, table):
        self.table = table
        self.asked: list[list[tuple[str, str]]] = []
        self.known: list[list] = []

    def deltas(self, pairs, known=None):
        self.asked.append(list(pairs))
        self.known.append(list(known or ()))
        return [self.table[text] for text, _ in pairs]


def test_fluency_keeps_fills_within_the_threshold_and_records_the_scores():
    from autocheck.expand.fluency import Fluency

    text = "this is a movie ."
    scorer = FakeScorer(
        {"this is a quickly movie .": -1.5, "this is a old movie .": -0.6, "this is a new movie .": 1}
    )
    fills = [(("quickly",), -0.5), (("old",), -1.0), (("new",), -2.0)]
    stats = FillStats()
    out = validate(
        [template(text, [(3, "RB")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        fills_per_mask=None, stats=stats, fluency=Fluency(scorer, threshold=1.0),
    )  # fmt: skip
    assert stats.rejected["pos"] == 2  # old/new are adjectives: only "quickly" reaches the fluency check
    assert out == [] and stats.rejected["fluency"] == 1
    out = validate(
        [template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        fills_per_mask=None, stats=(stats := FillStats()), fluency=Fluency(scorer, threshold=1.0),
    )  # fmt: skip
    assert [c.text for c in out] == ["this is a old movie .", "this is a new movie ."]
    assert out[0].provenance["fluency"] == {"pll_delta": -0.6, "window": 1, "threshold": 1.0}
    assert stats.rejected["pos"] == 1 and stats.rejected["fluency"] == 0
    assert scorer.asked[1][0] == ("this is a old movie .", text)  # each fill is scored against its seed
    given_template, given_score = scorer.known[1][0]  # with its fill score, the word's own PLL
    assert given_template.masks == ((3, "JJ"),) and given_score == -1.0


def test_fluency_rejection_lets_the_next_fill_in():
    from autocheck.expand.fluency import Fluency

    text = "this is a movie ."
    scorer = FakeScorer({"this is a old movie .": -1.5, "this is a new movie .": -0.5})
    fills = [(("old",), -1.0), (("new",), -2.0)]
    stats = FillStats()
    out = validate(
        [template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        stats=stats, fluency=Fluency(scorer, threshold=1.0),
    )  # fmt: skip
    assert [c.text for c in out] == ["this is a new movie ."] and stats.rejected["fluency"] == 1
    # scored lazily: the second fill only once the first failed, and nothing after the kept one
    assert scorer.asked == [[("this is a old movie .", text)], [("this is a new movie .", text)]]
    scorer.asked.clear()
    fills = [(("new",), -1.0), (("old",), -2.0)]
    out = validate(
        [template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        fluency=Fluency(scorer, threshold=1.0),
    )  # fmt: skip
    assert [c.text for c in out] == ["this is a new movie ."]
    assert scorer.asked == [[("this is a new movie .", text)]]


def test_a_template_is_given_up_after_its_fluency_tries():
    from autocheck.expand.fluency import Fluency
    from autocheck.expand.validate import FLUENCY_TRIES

    text = "this is a movie ."
    words = ["good", "bad", "great", "old", "new", "funny"]
    scorer = FakeScorer({f"this is a {w} movie .": -5.0 for w in words})
    scorer.table["this is a funny movie ."] = 0.0  # fluent, but ranked after the tries
    fills = [((w,), -float(n)) for n, w in enumerate(words)]
    stats = FillStats()
    out = validate(
        [template(text, [(3, "JJ")])], [fills], {"c1": seed(text)}, Lexicon(), always,
        stats=stats, fluency=Fluency(scorer, threshold=1.0),
    )  # fmt: skip
    assert out == [] and stats.rejected["fluency"] == FLUENCY_TRIES < len(words) - 1
    assert sum(map(len, scorer.asked)) == FLUENCY_TRIES


def _full_pll(lm, text):
    """The PLL of every token of ``text``, one forward pass per token (the definition, unbatched)."""
    ids = lm.tokenizer(text)["input_ids"]
    out = []
    for p in range(1, len(ids) - 1):
        masked = torch.tensor([ids[:p] + [lm.tokenizer.mask_token_id] + ids[p + 1 :]])
        with torch.no_grad():
            logits = lm.model(input_ids=masked).logits[0, p]
        out.append(logits.log_softmax(-1)[ids[p]].item())
    return out


def test_local_pll_scores_the_insertion_and_its_neighbours_against_the_seed(tiny_bert):
    from autocheck.expand.fluency import FluencyScorer

    seed_text, text = "the dog ran quickly .", "the dog ran very quickly ."
    scorer = FluencyScorer(tiny_bert, batch_size=3, window=1)
    seed_pll, text_pll = _full_pll(tiny_bert, seed_text), _full_pll(tiny_bert, text)
    # "very" is token 3 of the text; its neighbours "ran" and "quickly" are seed tokens 2 and 3
    expected = sum(text_pll[2:5]) / 3 - sum(seed_pll[2:4]) / 2
    assert scorer.deltas([(text, seed_text)]) == [pytest.approx(expected, abs=2e-4)]
    assert scorer.forward_rows == 2 + 3  # the seed's neighbours, the text around the insertion
    scorer.deltas([("the dog ran quickly fast .", seed_text)])
    assert scorer.forward_rows == 5 + 1 + 3  # of the seed only "." is new: "quickly" is kept
    wide = FluencyScorer(tiny_bert, window=10)  # a window past both ends: the whole texts
    whole = sum(text_pll) / len(text_pll) - sum(seed_pll) / len(seed_pll)
    assert wide.deltas([(text, seed_text)]) == [pytest.approx(whole, abs=2e-4)]


def test_a_one_word_fill_takes_its_own_pll_from_the_fill_search(tiny_bert):
    """The inserted token's PLL is the fill search's log-probability of the word at the template's mask
    (the same input): that row is not computed again, a template that is not the text's input is not
    taken for it, and the cache keeps the deltas of different known values apart."""
    from autocheck.expand.fluency import FluencyScorer

    seed_text, text = "the dog ran quickly .", "the dog ran very quickly ."
    seed_pll, text_pll = _full_pll(tiny_bert, seed_text), _full_pll(tiny_bert, text)
    expected = sum(text_pll[2:5]) / 3 - sum(seed_pll[2:4]) / 2
    before_quickly = template(seed_text, [(3, "RB")])
    scorer = FluencyScorer(tiny_bert, window=1)
    assert scorer.deltas([(text, seed_text)], [(before_quickly, text_pll[3])]) == [
        pytest.approx(expected, abs=2e-4)
    ]
    assert scorer.forward_rows == 2 + 2  # the seed's neighbours and the text's: not "very" itself
    off = text_pll[3] - 3  # a value the scorer did not compute moves the mean of three by a third of it
    assert FluencyScorer(tiny_bert, window=1).deltas([(text, seed_text)], [(before_quickly, off)]) == [
        pytest.approx(expected - 1, abs=2e-4)
    ]
    elsewhere = FluencyScorer(tiny_bert, window=1)  # the mask before "ran": another input
    assert elsewhere.deltas([(text, seed_text)], [(template(seed_text, [(2, "RB")]), off)]) == [
        pytest.approx(expected, abs=2e-4)
    ]
    assert elsewhere.forward_rows == 2 + 3


def test_a_certain_rejection_is_given_up_early_with_the_same_decision(tiny_bert, tmp_path, monkeypatch):
    """With a floor, a pair whose difference is certainly below it (the PLLs not computed yet are never
    above 0) is given up without its other rows: the same decision, an upper bound below the floor for
    the value (not cached), and every kept pair's value exact."""
    from autocheck.cache import Cache
    from autocheck.expand.fluency import FluencyScorer

    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "cache"))
    seed_text, text = "the dog ran quickly .", "the dog ran very quickly ."
    before_quickly = template(seed_text, [(3, "RB")])
    true = _full_pll(tiny_bert, text)[3]
    odd = "the dog ran fast quickly ."
    pairs = [(text, seed_text), (odd, seed_text), ("this is a good movie .", "this is a movie .")]
    known = [(before_quickly, true), (before_quickly, -60.0), None]  # the second: an implausible word
    full = FluencyScorer(tiny_bert, window=1)
    exact = full._compute(pairs, known)
    assert all(is_exact for _, is_exact in exact)
    # the seed's neighbours of the insertion, both texts' neighbours of it, "good" and its neighbours and
    # theirs in the seed
    assert full.forward_rows == 2 + 2 + 2 + 5
    floor = -5.0
    assert [d >= floor for d, _ in exact] == [True, False, True]
    bounded = FluencyScorer(tiny_bert, window=1, floor=floor)
    got = bounded.deltas(pairs, known)
    assert [d >= floor for d in got] == [True, False, True]  # the same decisions
    assert got[0] == exact[0][0] and got[2] == exact[2][0]  # kept: exact
    assert exact[1][0] <= got[1] < floor  # given up: an upper bound, still below the floor
    assert bounded.forward_rows == 2 + 2 + 5  # no row of the text given up
    cache = Cache("fluency")
    try:
        stored = cache.get_many([bounded._key(pair, fill) for pair, fill in zip(pairs, known)])
    finally:
        cache.close()
    assert len(stored) == 2 and bounded._key(pairs[1], known[1]) not in stored  # a bound is not cached


def test_pseudo_log_likelihood_is_batched_cached_and_batch_independent(tiny_bert):
    from autocheck.expand.fluency import FluencyScorer

    pairs = [
        ("this is a good movie .", "this is a movie ."),
        ("the dog ran very quickly .", "the dog ran quickly ."),
        ("it was really a funny plot !", "it was a funny plot !"),
    ]
    one = [FluencyScorer(tiny_bert, batch_size=1)._compute([pair])[0][0] for pair in pairs]
    scorer = FluencyScorer(tiny_bert, batch_size=64)
    assert scorer.deltas(pairs) == pytest.approx(one, abs=2e-4)
    before = scorer.forward_seconds
    assert scorer.deltas(pairs[::-1]) == scorer.deltas(pairs)[::-1]
    assert scorer.forward_seconds == before  # all cached


def test_pseudo_log_likelihood_passes_are_sized_by_tokens(tiny_bert, monkeypatch):
    from autocheck.expand.fluency import FluencyScorer

    pairs = [("this is a good movie .", "this is a movie ."), ("the dog ran very quickly .", "the dog ran .")]
    one = FluencyScorer(tiny_bert, batch_size=64, window=1)._compute(pairs)
    widths = []
    real = FluencyScorer._log_probs
    monkeypatch.setattr(
        FluencyScorer,
        "_log_probs",
        lambda self, batch, encoded: (
            widths.append(len(batch) * max(len(encoded[t]) for t, _ in batch)) or real(self, batch, encoded)
        ),
    )
    monkeypatch.setattr(tiny_bert, "batch_tokens", 20)
    again = FluencyScorer(tiny_bert, batch_size=64, window=1)._compute(pairs)
    assert [d for d, _ in again] == pytest.approx([d for d, _ in one], abs=2e-4)
    assert len(widths) > 2 and max(widths) <= 20  # padded tokens per pass within the budget


@pytest.mark.shared_data
def test_stand_in_pll_prefers_the_natural_sentence(shared_data):
    from autocheck.expand.fluency import FluencyScorer

    lm = MaskedLM.from_pretrained(require(shared_data / "models" / "mini-bert-mlm"), device="cpu")
    seed_text = "this is a good movie ."
    good, bad = FluencyScorer(lm).deltas(
        [("this is a very good movie .", seed_text), ("this is a the good movie .", seed_text)]
    )
    assert good > bad


def test_fluency_scoring_that_runs_out_of_memory_is_computed_in_halves(tiny_bert, monkeypatch, caplog):
    # fluency and fill share the masked LM's one forward pass, out-of-memory halving included
    from autocheck.expand.fluency import FluencyScorer

    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    pairs = [("this is a good movie .", "this is a movie ."), ("the dog ran very quickly .", "the dog ran .")]
    expected = FluencyScorer(tiny_bert, batch_size=64).deltas(pairs)
    real = MaskedLM._forward
    sizes = []

    def small_memory(self, ids, *args):
        sizes.append(len(ids))
        if len(ids) > 1:
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
        return real(self, ids, *args)

    monkeypatch.setattr(MaskedLM, "_forward", small_memory)
    with caplog.at_level("WARNING"):
        again = FluencyScorer(tiny_bert, batch_size=64).deltas(pairs)
    assert again == pytest.approx(expected, abs=2e-4)
    # each pass (the seeds' rows, then the texts') failed whole and was computed row by row in the end
    assert max(sizes) > 1 and min(sizes) == 1
    assert "computing them in halves" in caplog.text


class NoWordsEndingInLy:
    """A user's own check: adverbs in -ly are refused (a style rule of the user's)."""

    name = "no_ly"

    def __init__(self):
        self.seen: list[str] = []

    def passes(self, candidates):
        self.seen.extend(c.text for c in candidates)
        return [not any(w.endswith("ly") for w in c.words) for c in candidates]


def test_a_users_own_check_runs_after_the_standard_ones_and_is_counted_under_its_name():
    text = "the film is good ."
    check = NoWordsEndingInLy()
    fills = [(("not",), -0.5), (("truly",), -1.0), (("very",), -2.0)]
    out, stats = _kept(text, [(3, "RB")], fills, checks=[check])
    assert [c.text for c in out] == ["the film is very good ."]
    assert stats.rejected["no_ly"] == 1 and stats.rejected["polarity"] == 1
    assert "the film is not good ." not in check.seen  # rejected by polarity first: never shown to it
    counts = stats.as_dict()
    assert list(counts).index("rejected_no_ly") == list(counts).index("rejected_fluency") + 1


def test_a_check_cannot_take_a_standard_checks_name():
    from autocheck.expand.validate import standard_checks

    clash = NoWordsEndingInLy()
    clash.name = "pos"
    with pytest.raises(ValueError, match="'pos' exists already"):
        standard_checks(Lexicon(), always, {}, extra=[clash])


def test_whole_proposed_sentences_pass_the_same_checks():
    """A sentence proposed whole (no masked template) is validated by the checks that need none, a user's
    own among them, and its rejection counted under the first it fails."""
    from autocheck.expand.validate import CHECKS, first_failures, proposals, sentence_checks, users_check

    class NoLyAdverbs:  # a user's check that reads only the added words
        name = "no_ly"

        def passes(self, candidates):
            return [not any(w.endswith("ly") for w in c.words) for c in candidates]

    texts = [
        "The film was fine.",  # the seed itself
        "The film was awful fine.",
        "The film was not fine.",  # a negation
        "The show was quite fine.",  # "film" replaced: the capability's requirement no longer met
        "The film was really fine.",
        "The film was quite fine.",
    ]
    proposed = proposals(seed("The film was fine."), texts)
    assert (proposed[-1].words, proposed[-1].tags) == (("quite",), ("RB",))
    checks = sentence_checks(Lexicon({"awful"}), lambda case, text: "film" in text, {}, [NoLyAdverbs()])
    assert first_failures(checks, proposed) == [
        "duplicate", "polarity", "polarity", "requirement", "no_ly", None,
    ]  # fmt: skip
    assert CHECKS.origins()["polarity"] == "autocheck"  # listed by `autocheck plugins`, not a --check
    with pytest.raises(InputError, match="--check polarity: autocheck's own check, which always runs"):
        users_check("polarity")


def test_the_word_checks_run_before_the_tagger_and_the_requirement():
    """A mode's word checks tag nothing: run first, they spare the tagger and the requirement (which tags
    each whole text) the candidates they reject; a user's own checks come after the requirement."""

    class Own:
        name = "own"

        def passes(self, candidates):
            return [True for _ in candidates]

    words = checks_for("phrases")
    names = [c.name for c in standard_checks(Lexicon(), always, {}, None, [Own()], None, words)]
    word_names = [c.name for c in words]
    assert names == ["duplicate", "polarity", "doubled", *word_names, "pos", "requirement", "own"]
