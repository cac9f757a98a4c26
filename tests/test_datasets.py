"""Dataset adapters on small fixtures in the real formats (real SST lines), and the full shared SST data."""

from __future__ import annotations

import codecs
import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import require
from hypothesis import example, given, settings
from hypothesis import strategies as st

from autocheck.resources import ResourceMissing
from autocheck.sources.datasets import (
    _DETOKENIZER_NEEDLES,
    DATASETS,
    DatasetStats,
    _detokenizer,
    _normalize,
    load_examples,
    normalize_text,
    sst_label,
)
from autocheck.store import InputError

FIXTURES = Path(__file__).parent / "fixtures" / "datasets"


def load(source, **kwargs) -> tuple[list, DatasetStats]:
    stats = DatasetStats()
    return list(load_examples(str(source), stats=stats, **kwargs)), stats


@pytest.mark.parametrize(
    "raw, normal",
    [
        # mojibake repair
        ("Absorbing character study by AndrÃ© Turpin .", "Absorbing character study by André Turpin."),
        (
            "Vera 's three actors -- MollÃ\u00a0 , Gil and Bardem -- excel .",
            "Vera's three actors -- Mollà, Gil and Bardem -- excel.",
        ),
        # PTB escapes
        (
            "-LRB- Wendigo is -RRB- why we go to the cinema : to be fed through the eye .",
            "(Wendigo is) why we go to the cinema: to be fed through the eye.",
        ),
        (
            "co-writer\\/director Peter Jackson 's expanded vision",
            "co-writer/director Peter Jackson's expanded vision",
        ),
        # detokenisation and PTB quotes
        ("the 21st Century 's new `` Conan '' and that", 'the 21st Century\'s new "Conan" and that'),
        ("film , and it 's slow -- very , very slow ...", "film, and it is slow -- very, very slow ..."),
        (
            "For all its serious sense of purpose ... -LRB- it -RRB- finds a way",
            "For all its serious sense of purpose ... (it) finds a way",
        ),
        # contractions expanded, possessives kept, no slang rewriting
        ("This is n't a new idea .", "This is not a new idea."),
        (
            "Run , do n't walk , to see this barbed and bracing comedy .",
            "Run, do not walk, to see this barbed and bracing comedy.",
        ),
        ("the film 's plot", "the film's plot"),
        (
            "Late Marriage 's stiffness is unlikely to sweep U.S. viewers off their feet .",
            "Late Marriage's stiffness is unlikely to sweep U.S. viewers off their feet.",
        ),
        ("in a nasty sea , shed an errant tear .", "in a nasty sea, shed an errant tear."),
        ("as it lets you grasp", "as it lets you grasp"),
        ("  extra\t spaces  ", "extra spaces"),
        # "\u0130" lowercases to two characters: contractions after it are found where they are
        ("\u0130wanna see it", "\u0130want to see it"),
        ("\u0130 isn't it", "\u0130 is not it"),
    ],
)
def test_normalize_text(raw, normal):
    assert normalize_text(raw) == normal
    assert normalize_text(normal) == normal  # idempotent


# Pieces each step of the normalisation reacts to (PTB escapes and quotes, the detokenizer's contractions
# and punctuation, contractions without an apostrophe, "'s been", mojibake, characters that fold to ASCII
# under IGNORECASE), mixed with arbitrary text and whitespace of every kind.
_PIECES = (
    "can", "CAN", "not", "n't", "N'T", "'s", "'S", "'d", "'t", "'T", "'ye", "d", "more", "'n", "been", "is",
    "was", "she", "never", "gonna", "gon", "na", "gim", "me", "got", "ta", "lem", "wan", "Wanna", "Jan.",
    "cause", "to", "thats", "B-", "-LRB-", "-RRB-", "\\/", "\\*", "--", "...", "``", "''", '"', "'", "(",
    ")", "[", "]", "{", "}", "<", ">", ",", ".", "?", "!", ";", ":", "%", "#", "$", "Ã©", "é", "\u017f",
    "\u212a", "\u0130", "\x00", "\u200b",
)  # fmt: skip
_SEPARATORS = ("", " ", "  ", "\t", "\n", "\x1c", "\u00a0")
texts = st.lists(
    st.tuples(st.sampled_from(_PIECES) | st.text(max_size=4), st.sampled_from(_SEPARATORS)), max_size=14
).map(lambda parts: "".join(piece + sep for piece, sep in parts))


@settings(max_examples=1500, deadline=None)
@given(text=texts, expand=st.booleans())
def test_fast_path_gives_the_full_normalisation(text, expand):
    assert normalize_text(text, expand) == _normalize(text, expand)


@settings(max_examples=1000, deadline=None)
@given(text=texts)
@example(text="I can not\u0301 go")  # a combining mark: a word boundary to Python's re, not to NLTK's engine
def test_detokenizer_is_nltks(text):
    """The standard-re detokenizer, its first test and its per-pattern needles change nothing: NLTK's own
    detokenizer gives the same text."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    tokens = text.split()
    assert _detokenizer()(" ".join(tokens)) == TreebankWordDetokenizer().detokenize(tokens)


def test_every_detokenizer_pattern_has_needles():
    """A pattern without needles still runs, on every row that passes the first test: loading slows."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer as nltk

    steps = [*nltk.CONTRACTIONS3, *nltk.CONTRACTIONS2, *(p for p, _ in nltk.ENDING_QUOTES)]
    steps += [
        p for p, _ in (nltk.DOUBLE_DASHES, *nltk.PARENS_BRACKETS, *nltk.PUNCTUATION, *nltk.STARTING_QUOTES)
    ]
    assert {p.pattern.removeprefix("(?i)") for p in steps} == set(_DETOKENIZER_NEEDLES)


def test_normalize_raw_text_matches_tokenised_text():
    tokenised = (
        "While not as aggressively impressive as its American counterpart , `` In the Bedroom , '' "
        "Moretti 's film makes its own , quieter observations"
    )
    raw = (
        "While not as aggressively impressive as its American counterpart, ``In the Bedroom,'' "
        "Moretti's film makes its own, quieter observations"
    )
    assert normalize_text(tokenised) == normalize_text(raw)
    assert normalize_text(raw) == (
        'While not as aggressively impressive as its American counterpart, "In the Bedroom," '
        "Moretti's film makes its own, quieter observations"
    )


def test_sst_label_thresholds():
    assert [sst_label(s) for s in (0.0, 0.4, 0.40001, 0.6, 0.60001, 1.0)] == [
        "negative",
        "negative",
        "neutral",
        "neutral",
        "positive",
        "positive",
    ]


SST_FIXTURE_LABELS = {
    "sst:1": "positive",
    "sst:2": "positive",
    "sst:3": "neutral",
    "sst:14": "positive",
    "sst:103": "positive",
    "sst:138": "positive",
    "sst:146": "negative",
    "sst:383": "positive",
    "sst:1117": "positive",
}


def test_sst_original_release():
    examples, stats = load(FIXTURES / "stanfordSentimentTreebank")
    assert {e.id: e.label for e in examples} == SST_FIXTURE_LABELS
    assert stats.read == 10 and stats.kept == 9 and stats.skipped == {"not in phrase dictionary": 1}
    by_id = {e.id: e for e in examples}
    assert (
        by_id["sst:383"].text == "Absorbing character study by André Turpin."
    )  # matched after the mojibake fix
    assert by_id["sst:14"].text.startswith("(Wendigo is) why")  # matched after the bracket fix
    assert {e.source for e in examples} == {"sst"}
    assert [e.id for e in load(FIXTURES / "stanfordSentimentTreebank", split="dev")[0]] == ["sst:1117"]


def test_sst_original_without_dictionary(tmp_path):
    folder = tmp_path / "stanfordSentimentTreebank"
    folder.mkdir()
    (folder / "datasetSentences.txt").write_text("sentence_index\tsentence\n1\tA film .\n")
    (tmp_path / "derived_sentence_labels").mkdir()
    with pytest.raises(InputError, match=r"dictionary.txt: missing.*derived_sentence_labels"):
        load_examples(str(folder))


def test_sst_derived_table_matches_the_original_release():
    examples, stats = load(FIXTURES / "derived_sentence_labels")
    assert {e.id: e.label for e in examples} == {**SST_FIXTURE_LABELS, "sst:4": "positive"}
    assert stats.skipped == {}
    original = {e.id: e.text for e in load(FIXTURES / "stanfordSentimentTreebank")[0]}
    assert all(original[e.id] == e.text for e in examples if e.id in original)
    assert [e.id for e in load(FIXTURES / "derived_sentence_labels", split="validation")[0]] == ["sst:1117"]
    single, _ = load(FIXTURES / "derived_sentence_labels" / "SSTB_train.csv", split="train")
    assert [e.id for e in single] == ["sst:1", "sst:2", "sst:383"]


def test_sst_derived_bad_rows_are_counted(tmp_path):
    path = tmp_path / "SSTB_dev.csv"
    path.write_bytes(
        b",sentence_index,sentence,splitset_label,id,values\n"
        b"0,1,Good .,3,1,0.9\n"
        b"1,2,,3,2,0.5\n"
        b"2,3,Bad caf\xc3\xa9 .,3,3,n/a\n"  # UTF-8 text, so the Latin-1 byte below is a bad row
        b"3,4,Caf\xe9 .,3,4,0.5\n"
    )
    examples, stats = load(path)
    assert [e.id for e in examples] == ["sst:1"]
    assert stats.read == 4 and stats.skipped == {"empty text": 1, "bad score": 1, "undecodable": 1}


def test_sst_derived_missing_column(tmp_path):
    path = tmp_path / "SSTB_dev.csv"
    path.write_text(",sentence_index,sentence,splitset_label,id\n0,1,Good .,3,1\n")
    with pytest.raises(InputError, match=r"SSTB_dev.csv: no column 'values'"):
        load(path)


def test_sst_ptb_trees():
    examples, _ = load(FIXTURES / "trees")
    assert [(e.id, e.label) for e in examples] == [
        ("sst-ptb:train:1", "positive"),
        ("sst-ptb:train:2", "positive"),
        ("sst-ptb:dev:1", "positive"),
        ("sst-ptb:dev:2", "neutral"),
        ("sst-ptb:dev:3", "positive"),
    ]
    assert examples[2].text == "It is a lovely film with lovely performances by Buy and Accorsi."
    assert examples[0].text == load(FIXTURES / "stanfordSentimentTreebank")[0][0].text
    assert len(load(FIXTURES / "trees", split="dev")[0]) == 3


def test_sst2_tsv():
    examples, stats = load(FIXTURES / "SST-2" / "dev.tsv")
    assert [e.label for e in examples] == [
        "positive",
        "negative",
        "positive",
        "positive",
        "negative",
        "positive",
    ]
    assert examples[0].id == "sst2:dev:2" and examples[0].source == "sst2"
    assert examples[0].text == "it is a charming and often affecting journey."
    with pytest.raises(InputError, match=r"test.tsv: no label column 'label'.*unlabelled"):
        load(FIXTURES / "SST-2" / "test.tsv")


def test_generic_csv_with_label_map_and_bad_rows(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_bytes(
        b'review,stars\n"Great fun, isn\'t it?",5\nDull.,1\n,5\nNo stars,\nMeh \xc3\xa9.,3\nNa\xefve,5\n'
    )
    examples, stats = load(
        path, text_column="review", label_column="stars", label_map={5: "positive", 1: "negative"}
    )
    assert [(e.id, e.text, e.label) for e in examples] == [
        ("reviews:2", "Great fun, is not it?", "positive"),
        ("reviews:3", "Dull.", "negative"),
    ]
    assert stats.read == 6 and stats.kept == 2
    assert stats.skipped == {"empty text": 1, "missing label": 1, "unknown label": 1, "undecodable": 1}
    with pytest.raises(InputError, match=r"reviews.csv: no column 'rating'"):
        load(path, text_column="review", label_column="rating")
    with pytest.raises(InputError, match=r"reviews.csv: no text column 'text' or 'sentence'"):
        load(path)


def test_generic_jsonl(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text(
        '{"sentence": "It \'s fine .", "label": "neutral"}\n\nnot json\n[1]\n{"sentence": "Bad."}\n'
    )
    examples, stats = load(path)
    assert [(e.id, e.text, e.label) for e in examples] == [("data:1", "It is fine.", "neutral")]
    assert stats.skipped == {"malformed row": 2, "missing label": 1}
    with pytest.raises(InputError, match=r"data.jsonl:1: no field 'text'"):
        load(path, label_column="label", text_column="text")


def test_a_format_named_in_front_reads_a_file_whatever_its_name(tmp_path):
    """autocheck's own formats are registered readers: ``tsv:`` reads a tab-separated ``.txt`` that no
    suffix would find, ``jsonl:`` a ``.log``, and every built-in is listed beside a plug-in's."""
    table = tmp_path / "export.txt"
    table.write_text("text\tlabel\nIt works.\tpositive\n")
    assert [(e.text, e.label) for e in load_examples(f"tsv:{table}")] == [("It works.", "positive")]
    with pytest.raises(InputError, match="unknown dataset file type"):
        load_examples(str(table))
    lines = tmp_path / "rows.log"
    lines.write_text('{"text": "Fine.", "label": "neutral"}\n')
    assert [e.id for e in load_examples(f"jsonl:{lines}")] == ["rows:1"]
    with pytest.raises(InputError, match="missing.csv: no such file"):
        load_examples(f"csv:{tmp_path / 'missing.csv'}")
    origins = DATASETS.origins()
    assert {name: origins[name] for name in ("conll", "csv", "hatexplain", "hf", "jsonl", "sst", "tsv")} == (
        dict.fromkeys(("conll", "csv", "hatexplain", "hf", "jsonl", "sst", "tsv"), "autocheck")
    )


def test_huggingface_saved_dataset(tmp_path):
    datasets = pytest.importorskip("datasets")
    features = datasets.Features(
        {"sentence": datasets.Value("string"), "label": datasets.ClassLabel(names=["negative", "positive"])}
    )
    train = datasets.Dataset.from_dict(
        {"sentence": ["a charming film .", ""], "label": [1, 0]}, features=features
    )
    dev = datasets.Dataset.from_dict({"sentence": ["it does n't work ."], "label": [0]}, features=features)
    datasets.DatasetDict({"train": train, "validation": dev}).save_to_disk(str(tmp_path / "sst2"))
    examples, stats = load(tmp_path / "sst2")
    assert [(e.id, e.text, e.label) for e in examples] == [
        ("sst2:train:0", "a charming film.", "positive"),
        ("sst2:validation:0", "it does not work.", "negative"),
    ]
    assert stats.skipped == {"empty text": 1}
    assert [e.id for e in load(tmp_path / "sst2", split="dev")[0]] == ["sst2:validation:0"]
    # The original HF "sst" has float phrase scores as labels.
    scores = datasets.Dataset.from_dict(
        {"sentence": ["fine .", "great .", "awful ."], "label": [0.5, 0.9, 0.1]}
    )
    scores.save_to_disk(str(tmp_path / "sst"))
    assert [e.label for e in load(tmp_path / "sst")[0]] == ["neutral", "positive", "negative"]


def test_huggingface_offline_is_one_line_error():
    with pytest.raises(
        ResourceMissing, match=r"dataset 'autocheck-test/no-such-dataset' could not be loaded"
    ):
        load_examples("autocheck-test/no-such-dataset")


def test_missing_path_and_bad_split():
    with pytest.raises(InputError, match="no-such.csv: no such file"):
        load_examples("no-such.csv")
    with pytest.raises(InputError, match="split 'holdout'"):
        load_examples(str(FIXTURES / "trees"), split="holdout")


def test_shared_sst_derived_table(shared_data):
    folder = require(shared_data / "datasets" / "sst" / "derived_sentence_labels")
    examples, stats = load(folder)
    assert len(examples) == 11855 and stats.skipped == {}
    assert len({e.id for e in examples}) == 11855
    # The counts the paper's logs report.
    assert Counter(e.label for e in examples) == {"positive": 4963, "negative": 4650, "neutral": 2242}
    assert not any("-LRB-" in e.text or "Ã" in e.text or " n't" in e.text for e in examples)


def test_shared_sst_release_explains_missing_dictionary(shared_data):
    folder = require(shared_data / "datasets" / "sst" / "stanfordSentimentTreebank")
    if (folder / "dictionary.txt").exists():
        pytest.skip("this copy has dictionary.txt")
    with pytest.raises(InputError, match=r"dictionary.txt: missing.*derived_sentence_labels"):
        load_examples(str(folder))


def test_shared_sst2_dev_and_trees(shared_data):
    sst = require(shared_data / "datasets" / "sst")
    dev, _ = load(sst / "SST-2" / "dev.tsv")
    assert len(dev) == 872 and Counter(e.label for e in dev) == {"positive": 444, "negative": 428}
    trees, _ = load(sst / "trainDevTestTrees_PTB", split="dev")
    table, _ = load(sst / "derived_sentence_labels", split="dev")
    assert len(trees) == 1101
    assert Counter(e.label for e in trees) == Counter(e.label for e in table)


LATIN1_ROWS = [
    ("Café crème, très bien.", "positive"),
    ("Naïve and dull.", "negative"),
    ("Déjà vu.", "neutral"),
]


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl"])
def test_latin1_file_is_detected_and_every_row_kept(tmp_path, suffix):
    path = tmp_path / f"reviews{suffix}"
    if suffix == ".jsonl":
        lines = [json.dumps({"text": t, "label": lab}, ensure_ascii=False) for t, lab in LATIN1_ROWS]
    else:
        sep = "\t" if suffix == ".tsv" else ","
        lines = [f"text{sep}label"] + [
            f'"{t}"{sep}{lab}' if sep == "," else f"{t}{sep}{lab}" for t, lab in LATIN1_ROWS
        ]
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    examples, stats = load(path)
    assert [e.text for e in examples] == [t for t, _ in LATIN1_ROWS]
    assert stats.skipped == {} and stats.encodings == {str(path): "cp1252"}


def test_encoding_can_be_given_and_is_recorded(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_bytes("text,label\nÉtonnant.,positive\n".encode("cp1252"))
    stats = DatasetStats()
    examples = list(load_examples(str(path), encoding="latin_1", stats=stats))
    assert examples[0].text == "Étonnant." and stats.encoding == "iso8859-1"
    assert stats.encodings == {str(path): "iso8859-1"}
    with pytest.raises(InputError, match=r"encoding=NAME: unknown text encoding 'klingon'") as info:
        load_examples(str(path), encoding="klingon")
    assert info.value.cli.startswith("--encoding NAME: unknown")


def test_utf8_and_bom_files_are_read_as_such(tmp_path):
    path = tmp_path / "reviews.csv"
    path.write_bytes(codecs.BOM_UTF8 + "text,label\nÉtonnant.,positive\n".encode())
    examples, stats = load(path)
    assert examples[0].text == "Étonnant." and stats.encodings[str(path)] == "utf-8-sig"
    path.write_bytes("text,label\nÉtonnant.,positive\n".encode("utf-16"))
    examples, stats = load(path)
    assert examples[0].text == "Étonnant." and stats.encodings[str(path)] == "utf-16"
    path.write_bytes("text,label\nÉtonnant.,positive\n".encode())
    assert load(path)[1].encodings[str(path)] == "utf-8"


def test_cyrillic_legacy_file_goes_to_the_detector(tmp_path):
    rows = [
        ("Отличный фильм, очень хороший и добрый.", "positive"),
        ("Скучный и длинный фильм, не советую никому.", "negative"),
        ("Обычная история о семье в маленьком городе.", "neutral"),
        ("Актёры играют прекрасно, сюжет захватывает с первых минут.", "positive"),
    ]
    path = tmp_path / "reviews.csv"
    path.write_bytes(("text,label\n" + "".join(f'"{t}",{lab}\n' for t, lab in rows)).encode("cp1251"))
    examples, stats = load(path)
    assert [e.text for e in examples] == [t for t, _ in rows]
    assert stats.encodings[str(path)] == "cp1251"


def test_manifest_records_the_encoding_used(shared_data, tmp_path):
    from autocheck.cli import main

    path = tmp_path / "reviews.csv"
    rows = "text,label\n" + "".join(
        f'"{t}",{lab}\n' for t, lab in LATIN1_ROWS + [("A bad film.", "negative")]
    )
    path.write_bytes(rows.encode("latin-1"))
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    for extra, used in (([], "cp1252"), (["--encoding", "latin-1"], "iso8859-1")):
        out = tmp_path / f"suite-{used}"
        assert (
            main(["seeds", "--dataset", str(path), "--lexicon", str(lexicon), "--out", str(out), *extra]) == 0
        )
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["dataset"]["encodings"] == {str(path): used}
        assert manifest["dataset"]["skipped"] == {} and manifest["dataset"]["kept"] == 4


def test_truncated_utf16_file_is_read_not_a_crash(tmp_path):
    """Found by the fuzzer: a UTF-16 BOM and an odd number of bytes (surrogateescape needs ASCII codecs)."""
    path = tmp_path / "reviews.tsv"
    path.write_bytes("sentence\tlabel\nit is good .\t1\n".encode("utf-16") + b"A")
    examples, stats = load(path)
    assert [e.label for e in examples] == ["positive"] and stats.encodings[str(path)] == "utf-16"
