"""The slot rule: a mask whose tag gets little of the masked LM's probability is given up while filling."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
import torch
from conftest import require, tiny_bert
from test_fill import Lexicon, always, seed, template
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import generate as generation
from autocheck.cli import build_parser
from autocheck.config import GenerateConfig
from autocheck.expand.fill import fill
from autocheck.expand.mlm import MaskedLM
from autocheck.expand.slot import DEFAULT_THRESHOLD, SlotRule
from autocheck.expand.validate import FillStats
from autocheck.expand.vocabulary import TagDictionary, VocabularyFilter
from autocheck.tagging import is_single_token

torch.set_num_threads(1)

WORDS = "this is a movie . the old new".split()


@pytest.fixture(scope="module")
def lm(tmp_path_factory) -> MaskedLM:
    """A tiny random BERT whose output bias puts nearly all probability on "the" at every position."""
    directory = tiny_bert(tmp_path_factory.mktemp("slot-bert"), "ForMaskedLM", WORDS, bias={"the": 10.0})
    return MaskedLM.from_pretrained(directory, device="cpu")


def vocabulary(mlm: MaskedLM) -> VocabularyFilter:
    """Exactly "the" for DT and "old", "new" for JJ (``known_only``: no word of unknown tags anywhere)."""
    lexical = {"DT": {"the": 5}, "JJ": {"old": 3, "new": 2}, "NN": {"movie": 1}}
    return VocabularyFilter(
        mlm.words, TagDictionary(lexical, {}), Lexicon(), proper_noun=lambda w: False,
        single_token=is_single_token, known_only=True, identity=mlm.identity,
    )  # fmt: skip


TEXT = "this is a movie ."


def test_a_slot_the_model_gives_its_tag_is_kept_and_one_it_does_not_is_given_up(lm, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    keep, drop = template(TEXT, [(3, "DT")]), template(TEXT, [(3, "JJ")], tid="t2")
    rule = SlotRule(DEFAULT_THRESHOLD)
    kept, given_up = lm.suggest([keep, drop], beam_size=3, top_n=3, vocabulary=vocabulary(lm), slot=rule)
    assert kept is not None and kept[0][0] == ("the",)
    assert given_up is None
    # without the rule the adjective slot is filled as before
    plain = lm.suggest([drop], beam_size=3, top_n=3, vocabulary=vocabulary(lm))[0]
    assert plain is not None and {words for words, _ in plain} == {("old",), ("new",)}
    # the threshold is a probability: a rule that demands more than the DT slot holds gives it up too
    ids = lm.tokenizer([lm.masked_text(keep)], return_tensors="pt")["input_ids"]
    at = (ids[0] == lm.tokenizer.mask_token_id).nonzero().flatten()
    log_probs = lm.log_probs_at(ids, torch.ones_like(ids), at)
    mass = math.exp(SlotRule.log_mass(log_probs[:, vocabulary(lm).allowed("DT")]).item())
    assert DEFAULT_THRESHOLD < mass < 1.0
    strict = SlotRule(min(1.0, mass * 1.01))
    assert lm.suggest([keep], beam_size=3, top_n=3, vocabulary=vocabulary(lm), slot=strict) == [None]


def test_a_slot_given_up_at_the_first_mask_saves_the_later_steps_rows(lm, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    first_bad = template(TEXT, [(3, "JJ"), (3, "DT")])  # "a [JJ] [DT] movie": the JJ slot goes first
    rule, vocab = SlotRule(DEFAULT_THRESHOLD), vocabulary(lm)
    rows = lm.forward_rows
    assert lm.suggest([first_bad], beam_size=2, top_n=2, vocabulary=vocab, slot=rule) == [None]
    assert lm.forward_rows - rows == 1  # one row at the first mask, none at the second
    rows = lm.forward_rows
    assert lm.suggest([first_bad], beam_size=2, top_n=2, vocabulary=vocab, slot=None)[0]
    assert lm.forward_rows - rows == 3  # without the rule: one row, then a beam of two
    # a later slot: "the" first, then an adjective the model gives nothing
    later_bad = template(TEXT, [(3, "DT"), (3, "JJ")], tid="t3")
    assert lm.suggest([later_bad], beam_size=2, top_n=2, vocabulary=vocab, slot=rule) == [None]


def test_a_narrower_mask_key_is_weighed_by_its_tag_and_filled_from_its_own_words(lm, tmp_path, monkeypatch):
    """ "RB:modifying" (a degree adverb before another inserted word): the slot rule asks whether the place
    takes the tag at all, the fill takes only the key's words. Here "this" alone holds too little of the
    mass to keep a slot, "the" and "this" together enough."""
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    lexical = {"DT": {"the": 5, "this": 1}}
    narrow = VocabularyFilter(
        lm.words, TagDictionary(lexical, {}), Lexicon(), proper_noun=lambda w: False,
        single_token=is_single_token, known_only=True, identity=lm.identity,
        closed={"DT:modifying": frozenset({"this"})},
    )  # fmt: skip
    paired = template(TEXT, [(3, "DT"), (3, "DT")])
    assert narrow.mask_keys(paired.masks) == ("DT:modifying", "DT")
    ids = lm.tokenizer([lm.masked_text(paired)], return_tensors="pt")["input_ids"]
    at = (ids[0] == lm.tokenizer.mask_token_id).nonzero().flatten()[:1]
    log_probs = lm.log_probs_at(ids, torch.ones_like(ids), at)
    mass = math.exp(SlotRule.log_mass(log_probs[:, narrow.allowed("DT:modifying")]).item())
    assert mass < DEFAULT_THRESHOLD
    fills = lm.suggest([paired], beam_size=2, top_n=2, vocabulary=narrow, slot=SlotRule(DEFAULT_THRESHOLD))[0]
    assert fills and {words[0] for words, _ in fills} == {"this"}


def test_fill_counts_given_up_templates_and_proposes_none_of_their_fills(lm, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    templates = [
        template(TEXT, [(3, "DT")], tid="keep"),
        template(TEXT, [(3, "JJ")], tid="drop"),
        template(TEXT, [(3, "JJ"), (3, "DT")], tid="drop2"),
    ]

    def run(stats: FillStats, **options) -> list:
        return list(
            fill(
                templates,
                {"c1": seed(TEXT)},
                lm,
                Lexicon(),
                always,
                fills_per_mask=1,
                beam_size=4,
                top_n=4,
                stats=stats,
                vocabulary=vocabulary(lm),
                **options,
            )
        )

    runs = []
    for batch_size in (64, 1, 64):  # the third run reads the suggestion cache
        stats = FillStats()
        out = run(stats, slot=SlotRule(DEFAULT_THRESHOLD), batch_size=batch_size, first_beam=2)
        runs.append(([c.to_json() for c in out], stats.as_dict()))
        assert [c.provenance["template_id"] for c in out] == ["keep"]
        assert stats.slot == 2  # counted once each, though "drop2" is searched with both beams
        assert stats.proposed == stats.kept + sum(stats.rejected.values()) + stats.unused
    assert runs[0] == runs[1] == runs[2]
    off = FillStats()
    found = run(off)
    assert off.slot == 0 and len(found) > 1


def test_a_template_the_wider_beam_fills_is_not_counted_as_given_up(lm, tmp_path, monkeypatch):
    """The first, narrow beam may lose every row to the rule where the full beam keeps one with another
    first word: only a template given up in its last search counts."""
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))

    class NarrowBeamGivesUp:  # the real masked LM, but its narrow search answers "given up"
        def __getattr__(self, name):
            return getattr(lm, name)

        def suggest(self, templates, beam_size, top_n, **options):
            if beam_size == 2:
                return [None] * len(templates)
            return lm.suggest(templates, beam_size, top_n, **{**options, "slot": None})

    stats = FillStats()
    two_masks = template(TEXT, [(3, "DT"), (3, "JJ")])
    found = list(
        fill(
            [two_masks],
            {"c1": seed(TEXT)},
            NarrowBeamGivesUp(),
            Lexicon(),
            always,
            fills_per_mask=1,
            beam_size=4,
            top_n=4,
            stats=stats,
            vocabulary=vocabulary(lm),
            slot=SlotRule(DEFAULT_THRESHOLD),
            first_beam=2,
        )
    )
    assert found and stats.slot == 0


def test_the_rule_needs_the_vocabulary_filter_and_a_probability(lm):
    with pytest.raises(ValueError, match="vocabulary filter"):
        lm.suggest([template(TEXT, [(3, "JJ")])], slot=SlotRule(0.5))
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="probability"):
            SlotRule(bad)


def test_the_option_takes_a_probability_or_off(capsys):
    parser = build_parser()
    assert GenerateConfig().slot_threshold == DEFAULT_THRESHOLD
    assert parser.parse_args(["generate", "--out", "x", "--slot-threshold", "off"]).slot_threshold is None
    assert parser.parse_args(["generate", "--out", "x", "--slot-threshold", "0.2"]).slot_threshold == 0.2
    for bad in ("1.5", "0", "nan", "x"):
        with pytest.raises(SystemExit):
            parser.parse_args(["generate", "--out", "x", "--slot-threshold", bad])
        assert "--slot-threshold: expected a probability in (0, 1] or 'off'" in capsys.readouterr().err


def test_the_stand_in_keeps_an_adverb_before_an_adjective_and_gives_up_a_name_after_it(
    shared_data, tmp_path, monkeypatch
):
    """The stand-in masked LM with the generator's own vocabulary filter: "the film is [RB] funny" has
    most of its mass on adverbs, "this is not it [NNP]" almost none on names."""
    from autocheck.expand.grammar import load_grammar
    from autocheck.expand.job import _vocabulary_filter
    from autocheck.sources.lexicon import load_lexicon

    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path))
    monkeypatch.setenv("NLTK_DATA", str(require(shared_data / "nltk_data")))
    mlm = MaskedLM.from_pretrained(require(shared_data / "models/mini-bert-mlm"), device="cpu")
    config = GenerateConfig()
    vocab = _vocabulary_filter(config, load_grammar(config.grammar), mlm, load_lexicon("opinion"))
    adverb = template("the film is funny .", [(3, "RB")])
    name = template("this is not it .", [(4, "NNP")], tid="t2")
    found = mlm.suggest([adverb, name], 4, 4, vocabulary=vocab, slot=SlotRule(DEFAULT_THRESHOLD))
    assert found[0] and found[1] is None


def test_a_run_counts_the_given_up_templates_in_its_manifest(stand_in_config, tmp_path):  # noqa: F811
    stand_in_config = replace(stand_in_config, insertions="any")  # every tag: masks the rule gives up
    on = generation.generate(stand_in_config, tmp_path / "on")
    manifest = json.loads((tmp_path / "on" / "manifest.json").read_text())
    assert on.rejected["fill: slot"] > 0
    assert manifest["rejected"]["fill: slot"] == on.rejected["fill: slot"]
    assert manifest["settings"]["slot_threshold"] == DEFAULT_THRESHOLD
    off = generation.generate(replace(stand_in_config, slot_threshold=None), tmp_path / "off")
    assert "fill: slot" not in off.rejected
    assert sum(c.candidates for c in off.counts.values()) > sum(c.candidates for c in on.counts.values())
