"""Datasets that cannot silently test nothing, streamed seed search, resources loaded only when needed."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, SHARED_DATA, require

from autocheck.config import GenerateConfig
from autocheck.generate import generate
from autocheck.records import Example
from autocheck.requirements import load_spec
from autocheck.sources.datasets import DatasetStats, load_examples, normalize_text, suggest_label_map
from autocheck.sources.search import analyze, search, select
from autocheck.sources.seeds import select_seeds, uses_contractions
from autocheck.sources.transform import transform
from autocheck.store import InputError

SENTIMENT = ("negative", "neutral", "positive")


def _csv(path: Path, rows: list[tuple[str, str]], header=("text", "label")) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env_path = str(REPO)
    return subprocess.run(
        [sys.executable, "-m", "autocheck", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "PYTHONPATH": env_path},
        timeout=300,
    )


# ------------------------------------------------------------------------------------------------ labels


@pytest.mark.parametrize(
    "labels, suggested",
    [
        (["0", "1"], "--label-map 0=negative,1=positive"),
        (["pos", "neg"], "--label-map pos=positive,neg=negative"),
        (["POSITIVE", "NEGATIVE"], "--label-map POSITIVE=positive,NEGATIVE=negative"),
    ],
)
def test_labels_of_none_of_the_task_is_an_error_that_suggests_the_map(tmp_path, labels, suggested):
    rows = [(f"A sentence number {i}.", labels[i % 2]) for i in range(6)]
    path = _csv(tmp_path / "d.csv", rows)
    with pytest.raises(InputError) as error:
        list(load_examples(str(path), labels=SENTIMENT))
    assert "no row has a label of the task" in str(error.value)
    assert all(f"'{label}' (3)" in str(error.value) for label in labels)
    assert suggested in error.value.cli
    # the suggested map is accepted as is
    mapping = dict(pair.split("=") for pair in suggested.split()[1].split(","))
    assert len(list(load_examples(str(path), labels=SENTIMENT, label_map=mapping))) == 6


def test_some_unknown_labels_are_skipped_and_counted(tmp_path):
    path = _csv(tmp_path / "d.csv", [("Good.", "positive"), ("Meh.", "very positive"), ("Bad.", "negative")])
    stats = DatasetStats()
    examples = list(load_examples(str(path), labels=SENTIMENT, stats=stats))
    assert [e.label for e in examples] == ["positive", "negative"]
    assert stats.skipped == {"unknown label": 1} and stats.unknown_labels == {"very positive": 1}


def test_a_map_to_labels_the_task_lacks_is_an_error(tmp_path):
    path = _csv(tmp_path / "d.csv", [("Good.", "1"), ("Bad.", "0")])
    with pytest.raises(InputError, match="after the label map given"):
        list(load_examples(str(path), labels=SENTIMENT, label_map={"0": "neg", "1": "pos"}))


def test_suggested_map_from_numbers_in_order():
    assert suggest_label_map(["2", "0", "1"], SENTIMENT) == {"0": "negative", "1": "neutral", "2": "positive"}
    assert suggest_label_map(["x", "y"], SENTIMENT) == {}


def test_seeds_on_unmapped_labels_fail_with_one_line(tmp_path, shared_data):
    require(shared_data / "nltk_data")
    rows = [(f"The film {i} is good and fun.", str(i % 2)) for i in range(6)]
    path = _csv(tmp_path / "d.csv", rows)
    done = _cli("seeds", "--dataset", str(path), "--lexicon", "opinion", "--out", "s", cwd=tmp_path)
    assert done.returncode != 0
    assert "--label-map 0=negative,1=positive" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "s" / "cases.jsonl").exists()


def test_unlabelled_reading_keeps_odd_and_missing_labels(tmp_path):
    path = _csv(tmp_path / "d.csv", [("One.", "pos"), ("Two.", ""), ("Three.", "positive")])
    stats = DatasetStats()
    examples = list(load_examples(str(path), labels=SENTIMENT, labelled=False, stats=stats))
    assert [e.label for e in examples] == ["", "", "positive"]
    assert stats.kept == 3 and not stats.skipped


@pytest.mark.parametrize("text", ["\x00\x00\x00", " \t ", "\x01\x02\u200b", "\ufeff"])
def test_texts_without_visible_characters_are_skipped_and_counted(tmp_path, text):
    path = tmp_path / "d.jsonl"
    rows = [{"text": text, "label": "positive"}, {"text": "Fine.", "label": "positive"}]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    stats = DatasetStats()
    examples = list(load_examples(str(path), labels=SENTIMENT, stats=stats))
    assert [e.text for e in examples] == ["Fine."]
    assert sum(stats.skipped.values()) == 1 and stats.read == 2


def test_empty_suite_is_an_error_for_run(tmp_path):
    from autocheck.models import load_model
    from autocheck.run import run_suite

    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "cases.jsonl").write_text("")
    (suite / "manifest.json").write_text(json.dumps({"dataset": {"read": 6, "kept": 0}}))  # task: sentiment
    with pytest.raises(InputError, match="no cases, so it tests nothing.*read 6, kept 0"):
        (tmp_path / "p.txt").write_text("0.1 0.9\n")
        run_suite(suite, [load_model(f"file:{tmp_path / 'p.txt'}")], tmp_path / "run")


# ------------------------------------------------------------------------------------------------ text


def test_contractions_before_a_participle_are_has_and_had():
    assert normalize_text("Salma goes native and she 's never been better .") == (
        "Salma goes native and she has never been better."
    )
    assert normalize_text("as if I 'd been sitting naked") == "as if I had been sitting naked"
    assert normalize_text("It 's got the brawn .") == "It has got the brawn."
    assert normalize_text("It 's good and I 'd like it .") == "It is good and I would like it."


def test_text_kept_as_written_without_expansion():
    assert (
        normalize_text("It is n't bad , and she 's fine .", expand=False) == "It isn't bad, and she's fine."
    )


def test_only_word_searches_and_templates_expand_contractions():
    sentiment = load_spec("sentiment").capabilities
    assert uses_contractions(sentiment)
    perturb = load_spec(
        None,
        None,
        data={
            "task": "sentiment",
            "capabilities": [
                {
                    "id": "typos",
                    "capability": "Robustness",
                    "description": "typos",
                    "test_type": "INV",
                    "search": [{}],
                    "perturb": {"name": "typos"},
                }
            ],  # fmt: skip
        },
    ).capabilities
    assert not uses_contractions(perturb)


# ------------------------------------------------------------------------------------------------ streaming


def _examples(n: int, seed: int = 0) -> list[Example]:
    rng = random.Random(seed)
    words = ["good", "bad", "fine", "not", "film", "plot", "never", "great", "dull", "story", "it", "is"]
    out = []
    for i in range(n):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + "."
        out.append(Example(id=f"d:{i + 1}", inputs={"text": text}, label=rng.choice(SENTIMENT), source="d"))
    return out


@pytest.fixture(scope="module")
def lexicon():
    from autocheck.sources.lexicon import load_lexicon

    require(SHARED_DATA / "nltk_data" / "corpora")
    return load_lexicon("opinion")


@pytest.mark.parametrize("max_seeds, shuffled", [(None, False), (3, False), (3, True), (None, True)])
def test_streamed_selection_is_the_in_memory_one(lexicon, max_seeds, shuffled):
    examples = _examples(5000)  # more than one window
    order = examples[:]
    if shuffled:  # ids out of order: those matches are kept and sorted, as in memory
        random.Random(1).shuffle(order)
    capabilities = load_spec("sentiment").capabilities
    reads = []

    def read():
        reads.append(0)
        for example in order:
            reads[-1] += 1
            yield example

    chosen, pools, rows = select_seeds(read, capabilities, lexicon, max_seeds=max_seeds, seed=7)
    assert rows == 5000
    analyzed = analyze(examples)
    for capability in capabilities:
        expected = select(search(analyzed, capability, lexicon), max_seeds, 7, capability.id)
        assert [e.id for e in chosen[capability.id]] == [e.id for e in expected], capability.id
        cases = list(transform(capability, expected, examples, 7))
        assert list(transform(capability, chosen[capability.id], pools, 7)) == cases, capability.id
    assert reads[0] == 5000


@pytest.mark.parametrize("shuffled", [False, True])
def test_later_passes_read_rows_without_searching_again(lexicon, monkeypatch, shuffled):
    """Pass 1 notes where each match was read: passes 2 and 3 tokenise nothing and collect what searching
    again collects (``ROW_MEMORY`` 0: a target with too many matches searches again)."""
    from autocheck.sources import search as search_module
    from autocheck.sources import seeds as seeds_module

    examples = _examples(5000)
    if shuffled:
        random.Random(1).shuffle(examples)
    capabilities = load_spec("sentiment").capabilities
    real = search_module.tokenize
    tokenised: list[str] = []
    monkeypatch.setattr(search_module, "tokenize", lambda text: tokenised.append(text) or real(text))
    runs = {}
    for memory in (seeds_module.ROW_MEMORY, 0):
        tokenised.clear()
        monkeypatch.setattr(seeds_module, "ROW_MEMORY", memory)
        chosen, pools, _ = select_seeds(lambda: iter(examples), capabilities, lexicon, max_seeds=3, seed=7)
        runs[memory] = len(tokenised), chosen, pools
    (noted, chosen, pools), (searched, chosen_again, pools_again) = runs.values()
    assert noted == 5000 < searched  # each row tokenised once: in pass 1
    assert {k: [e.id for e in v] for k, v in chosen.items()} == {
        k: [e.id for e in v] for k, v in chosen_again.items()
    }
    assert pools.sizes == pools_again.sizes and pools.items == pools_again.items


def test_rows_no_search_group_accepts_are_never_tokenised(monkeypatch):
    """Tokenising is most of a search: a search by label tokenises the rows of that label only, and finds
    what the search of every row finds."""
    from autocheck.sources import search as search_module

    capability = {
        "id": "short-positive", "capability": "Vocabulary", "description": "short positive",
        "test_type": "MFT", "search": [{"label": "positive", "length": {"max": 8}}],
        "expected": {"positive": "positive"},
    }  # fmt: skip
    spec = load_spec(None, None, data={"task": "sentiment", "capabilities": [capability]})
    capabilities = spec.capabilities
    examples = _examples(3000)
    tokenised = []
    real = search_module.tokenize
    monkeypatch.setattr(search_module, "tokenize", lambda text: tokenised.append(text) or real(text))
    chosen, _, rows = select_seeds(lambda: iter(examples), capabilities, None, max_seeds=None, seed=0)
    assert rows == 3000
    assert len(tokenised) == sum(e.label == "positive" for e in examples) < 3000
    expected = search(analyze(examples), capabilities[0])
    assert [e.id for e in chosen["short-positive"]] == [e.id for e in expected] != []


def test_max_rows_bounds_reading(tmp_path):
    path = _csv(tmp_path / "d.csv", [(f"Row {i}.", "positive") for i in range(100)])
    stats = DatasetStats()
    assert len(list(load_examples(str(path), max_rows=7, stats=stats))) == 7
    assert stats.read == 7
    with pytest.raises(InputError, match="max_rows=N: must be at least 1"):
        load_examples(str(path), max_rows=0)
    with pytest.raises(InputError) as error:
        load_examples(str(path), max_rows=0)
    assert "--max-rows" in error.value.cli


def test_progress_of_the_search_has_a_total_in_megabytes(tmp_path, lexicon):
    rows = [
        (f"The plot of film {i} is good, and I liked it a lot more than I thought.", "positive")
        for i in range(15_000)
    ]
    path = _csv(tmp_path / "d.csv", rows)  # about 1.1 MB
    seen = []

    def progress(items, total, description):
        seen.append((total, description))
        return items

    config = GenerateConfig(
        dataset=str(path), capabilities=["LC10"], lexicon="opinion", expand=False, max_seeds=2
    )
    generate(config, tmp_path / "suite", progress=progress)
    sized = [(total, d) for total, d in seen if d.startswith("search")]
    assert sized and sized[0][0] == -(-path.stat().st_size // 2**20) and "MB read" in sized[0][1]


def test_seeds_error_when_no_row_satisfies_the_search(tmp_path, lexicon):
    path = _csv(tmp_path / "d.csv", [("x.", "positive")] * 3)
    config = GenerateConfig(dataset=str(path), capabilities=["LC4"], lexicon="opinion", expand=False)
    with pytest.raises(InputError, match=r"no seeds, so the suite would test nothing: read 3 rows, kept 3"):
        generate(config, tmp_path / "suite")


# ------------------------------------------------------------------------------------------------ resources


def test_a_template_suite_loads_no_polarity_lexicon(tmp_path):
    config = GenerateConfig(
        dataset=None, requirements="nli", lexicon=str(tmp_path / "no-such-lexicon"), seed=1
    )
    summary = generate(config, tmp_path / "nli")
    assert sum(c.seed_cases for c in summary.counts.values()) > 0


def test_antonyms_need_no_masked_lm_nor_lexicon(shared_data):
    from autocheck.author.suggest import suggest

    require(shared_data / "nltk_data" / "corpora" / "wordnet")
    rows = suggest("This movie is {mask}.", None, antonyms_of="good")
    assert "bad" in [row.words[0] for row in rows]
    assert all(row.score is None and row.polarity == (None,) for row in rows)
    with pytest.raises(InputError, match="mlm=NAME"):
        suggest("This movie is {mask}.", None)


@pytest.mark.parametrize("held", [True, False])
def test_counts_are_the_whole_dataset_s_after_an_early_stopping_pass(tmp_path, monkeypatch, held):
    """With pass 1's matches held the dataset is read once; without (``EXAMPLE_MEMORY`` 0), the second
    pass stops once it has the drawn rows. The same seeds and the whole dataset's counts either way."""
    from autocheck.sources import seeds as seeds_module

    if not held:
        monkeypatch.setattr(seeds_module, "EXAMPLE_MEMORY", 0)
    rows = [(f"Row {i} is here.", "positive" if i < 10 else "negative") for i in range(5000)]
    path = _csv(tmp_path / "d.csv", rows)
    spec = load_spec(
        None,
        None,
        data={
            "task": "sentiment",
            "capabilities": [{
                "id": "pos", "capability": "Vocabulary", "description": "positive rows", "test_type": "MFT",
                "search": [{"label": "positive"}], "expected": {"positive": "positive"},
            }],
        },
    )  # fmt: skip
    stats = DatasetStats()
    reads = []

    def read():
        reads.append(0)
        for example in load_examples(str(path), labels=SENTIMENT, stats=stats):
            reads[-1] += 1
            yield example

    chosen, _, rows_read = select_seeds(read, spec.capabilities, None, max_seeds=2, seed=0, stats=stats)
    assert [e.id for e in chosen["pos"]] == ["d:7", "d:8"] and rows_read == 5000  # either way
    if held:
        assert reads == [5000]  # the drawn seeds taken from what pass 1 held
    else:
        assert reads[1] < 5000  # the second pass stopped once it had the drawn rows (the first 10)
    assert (stats.read, stats.kept) == (5000, 5000)


def test_perturb_reads_max_rows_and_keeps_unlabelled_rows(tmp_path):
    rows = [
        (f"The film number {i} isn't bad at all.", ["pos", "", "positive", "7"][i % 4]) for i in range(12)
    ]
    _csv(tmp_path / "d.csv", rows)
    done = _cli(
        "perturb",
        "d.csv",
        "--perturbation",
        "expand_contractions",
        "--max-rows",
        "5",
        "--out",
        "s",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    cases = [json.loads(line) for line in (tmp_path / "s" / "cases.jsonl").read_text().splitlines()]
    sources = {c["provenance"]["example_id"] for c in cases}
    assert sources == {f"d:{n}" for n in range(2, 7)}  # lines 2-6: the first five rows, whatever their label
    texts = [c["text"] for c in cases]
    assert any("isn't bad" in t for t in texts) and any(
        "is not bad" in t for t in texts
    )  # as written, expanded
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert manifest["dataset"]["read"] == 5 and manifest["dataset"]["kept"] == 5


def test_suggest_antonyms_on_the_command_line_without_mlm_or_lexicon(tmp_path, shared_data):
    require(shared_data / "nltk_data" / "corpora" / "wordnet")
    done = _cli("suggest", "This movie is {mask}.", "--antonyms-of", "good", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "This movie is bad." in done.stdout
    if not (shared_data / "nltk_data" / "corpora" / "sentiwordnet").exists():
        assert "note: no polarity column" in done.stderr
