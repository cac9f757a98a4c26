"""The generation job end to end: determinism, resume, the suite directory contract, CLI errors."""

from __future__ import annotations

import csv
import gc
import json
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import require

from autocheck import generate as generation
from autocheck.cli import main
from autocheck.expand.insertions import INTENSIFIERS, PROPERTY_ADJECTIVES
from autocheck.records import EXPANSION, SEED, TestCase
from autocheck.store import read_jsonl

SENTENCES = [
    ("This is a bad movie.", "negative"),
    ("That is a terrible plot.", "negative"),
    ("The acting is awful and boring.", "negative"),
    ("This is a good film.", "positive"),
    ("That is a wonderful story.", "positive"),
    ("The cast is great and the script is smart.", "positive"),
    ("This is a film about a family.", "neutral"),
    ("That is a story about a town.", "neutral"),
    ("The movie has a plot.", "neutral"),
    ("It is a long movie with a big cast.", "neutral"),
    ("These are the actors of the film.", "neutral"),
    ("A terrible and boring mess.", "negative"),
    ("A lovely and charming film.", "positive"),
]


@pytest.fixture
def small_dataset(tmp_path: Path) -> Path:
    path = tmp_path / "reviews.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows(SENTENCES)
        writer.writerow(["", "positive"])  # a bad row: skipped and counted, never fatal
    return path


def _cases(suite: Path) -> list[TestCase]:
    return [TestCase.from_json(d) for d in read_jsonl(suite / "cases.jsonl")]


def test_seeds_are_byte_identical_and_documented(shared_data, small_dataset, tmp_path):
    args = [
        "seeds",
        "--dataset",
        str(small_dataset),
        "--lexicon",
        "opinion",
        "--seed",
        "7",
        "--max-seeds",
        "3",
    ]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    first, second = (
        (tmp_path / "a" / "cases.jsonl").read_bytes(),
        (tmp_path / "b" / "cases.jsonl").read_bytes(),
    )
    assert first and first == second
    assert (tmp_path / "a" / "manifest.json").read_bytes() == (tmp_path / "b" / "manifest.json").read_bytes()

    cases = _cases(tmp_path / "a")
    assert {case.kind for case in cases} == {SEED}
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["settings"]["seed"] == 7
    assert manifest["dataset"]["skipped"]  # the empty row was counted
    for cap_id, counts in manifest["counts"].items():
        assert counts["seed_cases"] == sum(case.capability == cap_id for case in cases)
    for case in cases:  # the seed sentence sits inside its editable span
        assert case.editable and all(0 <= a < b <= len(case.text) for a, b in case.editable)


def test_existing_output_is_never_overwritten_silently(shared_data, small_dataset, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "mine.txt").write_text("user data")
    code = main(
        ["seeds", "--dataset", str(small_dataset), "--lexicon", "opinion", "--out", str(tmp_path / "out")]
    )
    assert code == 2
    assert "not empty" in capsys.readouterr().err
    assert (tmp_path / "out" / "mine.txt").read_text() == "user data"


def test_unknown_capability_is_a_clear_error(shared_data, small_dataset, tmp_path, capsys):
    code = main(
        [
            "seeds",
            "--dataset",
            str(small_dataset),
            "--lexicon",
            "opinion",
            "--capability",
            "LC99",
            "--out",
            str(tmp_path / "x"),
        ]
    )
    assert code == 2
    assert "LC99" in capsys.readouterr().err


@pytest.fixture
def stand_in_config(shared_data, small_dataset) -> generation.GenerateConfig:
    models = shared_data / "models"
    return generation.GenerateConfig(
        dataset=str(small_dataset),
        lexicon="opinion",
        capabilities=["LC2", "LC4", "LC9"],
        max_seeds=3,
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        fills_per_mask=2,
        chunk_size=2,
        seed=1,
    )


def test_generate_resume_gives_identical_output(stand_in_config, tmp_path, monkeypatch):
    full = generation.generate(stand_in_config, tmp_path / "full")
    reference = (tmp_path / "full" / "cases.jsonl").read_bytes()
    assert sum(c.expansions for c in full.counts.values()) > 0

    real_expand, calls = generation.expand_chunks, []

    def interrupted(executor, chunks, expander, on_unit=None):
        for chunk, result in real_expand(executor, chunks, expander, on_unit):
            calls.append(len(chunk))
            if len(calls) == 2:
                raise KeyboardInterrupt
            yield chunk, result

    monkeypatch.setattr(generation, "expand_chunks", interrupted)
    with pytest.raises(KeyboardInterrupt):
        generation.generate(stand_in_config, tmp_path / "resumed")
    assert (tmp_path / "resumed" / "state.json").exists()

    done_before = []

    def counted(executor, chunks, expander, on_unit=None):
        for chunk, result in real_expand(executor, chunks, expander, on_unit):
            done_before.append(chunk)
            yield chunk, result

    monkeypatch.setattr(generation, "expand_chunks", counted)
    generation.generate(stand_in_config, tmp_path / "resumed", resume=True)
    assert (tmp_path / "resumed" / "cases.jsonl").read_bytes() == reference
    chunks = _chunk_count(tmp_path / "full", stand_in_config.chunk_size)
    assert chunks > 2
    assert len(done_before) == chunks - 1  # the first chunk was finished before the interruption
    assert not (tmp_path / "resumed" / "state.json").exists()


def _chunk_count(suite: Path, size: int) -> int:
    seeds = sum(case.kind == SEED for case in _cases(suite))
    return -(-seeds // size)


def test_every_expansion_is_its_seed_plus_the_inserted_words(stand_in_config, tmp_path):
    generation.generate(stand_in_config, tmp_path / "suite")
    cases = _cases(tmp_path / "suite")
    seeds = {case.id: case for case in cases if case.kind == SEED}
    expansions = [case for case in cases if case.kind == EXPANSION]
    assert expansions
    for expansion in expansions:
        seed = seeds[expansion.seed_id]
        text = expansion.text
        for at in expansion.provenance.get("lowered", ()):  # a sentence-initial capital re-cased
            assert text[at].islower() and seed.text[without_before(expansion, at)].isupper()
            text = text[:at] + text[at].upper() + text[at + 1 :]
        for inserted in sorted(expansion.provenance["inserted"], key=lambda i: -i["offset"]):
            start, word = inserted["offset"], inserted["word"]
            assert text[start : start + len(word)] == word
            # remove the word and the one space that came with it
            if text[start + len(word) : start + len(word) + 1] == " ":
                text = text[:start] + text[start + len(word) + 1 :]
            else:
                text = text[: start - 1] + text[start + len(word) :]
        assert text == seed.text
        assert expansion.expected == seed.expected and expansion.capability == seed.capability
        for inserted in expansion.provenance["inserted"]:  # insertions stay inside the seed's own text
            assert any(a <= inserted["offset"] < b for a, b in expansion.editable)


def without_before(expansion: TestCase, at: int) -> int:
    """``at`` in the expansion's text as an offset in its seed's text (the inserted words before it out)."""
    return at - sum(len(i["word"]) + 1 for i in expansion.provenance["inserted"] if i["offset"] < at)


def _requirements(tmp_path: Path, max_tokens: int) -> Path:
    """A spec with one capability: sentences of at most ``max_tokens`` tokens, labels kept."""
    spec = {
        "task": "sentiment",
        "labels": ["negative", "neutral", "positive"],
        "capabilities": [
            {
                "id": "SHORT",
                "capability": "Vocabulary",
                "description": "Short sentences",
                "test_type": "MFT",
                "search": [{"length": {"max": max_tokens}, "label": ["negative", "positive"]}],
                "expected": {"negative": "negative", "positive": "positive"},
            }
        ],
    }
    path = tmp_path / "short.json"
    path.write_text(json.dumps(spec))
    return path


def test_expansions_are_rechecked_against_the_requirement(stand_in_config, tmp_path):
    """Seeds of exactly the maximum length: every insertion breaks the requirement. The placement check
    sees it before the masked LM is called (no template); under --compat, which has no placement check,
    the pipeline's re-check of every fill (``Expander.requirement`` -> ``search.satisfies``) must reject
    them all and count them. Replacing that check with ``return True`` fails this test."""
    stand_in_config = replace(stand_in_config, requirements=str(_requirements(tmp_path, 5)))
    stand_in_config = replace(stand_in_config, capabilities=None)
    stand_in_config = replace(stand_in_config, fluency_threshold=None)
    summary = generation.generate(stand_in_config, tmp_path / "suite")
    counts = summary.counts["SHORT"]
    assert counts.seed_cases == 3 and counts.masked_templates == counts.candidates == counts.expansions == 0
    stand_in_config = replace(stand_in_config, compat=True)
    summary = generation.generate(stand_in_config, tmp_path / "compat")
    counts = summary.counts["SHORT"]
    assert counts.seed_cases == 3 and counts.candidates > 0  # max_seeds 3 of the 5-token sentences
    assert counts.expansions == 0 and summary.rejected["fill: requirement"] > 0
    # with room for one more word the same seeds do expand, and each expansion meets the requirement
    stand_in_config = replace(stand_in_config, compat=False)
    stand_in_config = replace(stand_in_config, requirements=str(_requirements(tmp_path, 6)))
    summary = generation.generate(stand_in_config, tmp_path / "roomy")
    assert summary.counts["SHORT"].expansions > 0


def test_a_literal_mask_token_in_the_dataset_is_skipped_and_counted(shared_data, tmp_path):
    path = tmp_path / "masked.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "label"])
        writer.writerows([*SENTENCES, ("This is a [MASK] movie.", "negative"), ("Yes [SEP] no.", "positive")])
    models = shared_data / "models"
    config = generation.GenerateConfig(
        dataset=str(path),
        lexicon="opinion",
        capabilities=["LC9"],
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        beam_size=5,
        top_n=10,
        seed=1,
    )
    summary = generation.generate(config, tmp_path / "suite")
    assert summary.rejected["seed with a special token of the masked LM"] == 4  # 2 seeds x 2 templates
    cases = _cases(tmp_path / "suite")
    assert any("[MASK]" in case.text for case in cases if case.kind == SEED)
    assert not any("[MASK]" in c.text or "[SEP]" in c.text for c in cases if c.kind == EXPANSION)
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text())
    assert manifest["rejected"]["seed with a special token of the masked LM"] == 4


def test_seeds_with_a_sentiwordnet_file(shared_data, small_dataset, tmp_path):
    """The paper's lexicon, given as a file in SentiWordNet's own format (a fixture: the real one is not
    available offline): word classes for LC2 come from it, label-only capabilities find seeds as always."""
    lexicon = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
    out = tmp_path / "swn"
    assert main(["seeds", "--dataset", str(small_dataset), "--lexicon", str(lexicon), "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["resources"]["lexicon"]["sha256"]
    counts = {cap: c["seed_cases"] for cap, c in manifest["counts"].items()}
    assert counts["LC2"] > 0 and counts["LC9"] > 0 and counts["LC6"] > 0
    lc2 = [case.text for case in _cases(out) if case.capability == "LC2"]
    assert "This is a good film." in lc2 and "The acting is awful and boring." in lc2
    assert "This is a film about a family." not in lc2  # no sentiment-laden adjective


def test_generate_on_sst_expands_most_capabilities(shared_data, tmp_path):
    """The real SST table, the stand-in parser and masked LM: one seed case per capability, and most
    capabilities get validated expansions (small beams keep it quick)."""
    sst = require(shared_data / "datasets" / "sst" / "derived_sentence_labels")
    config = generation.GenerateConfig(
        dataset=str(sst),
        lexicon="opinion",
        max_seeds=1,
        max_variants=1,
        parser=str(require(shared_data / "models" / "benepar_ptbsample_charlstm")),
        mlm=str(require(shared_data / "models" / "mini-bert-mlm")),
        beam_size=5,
        top_n=20,
        seed=3,
    )
    summary = generation.generate(config, tmp_path / "sst")
    assert len(summary.counts) == 10 and all(c.seed_cases == 1 for c in summary.counts.values())
    expanded = [cap for cap, c in summary.counts.items() if c.expansions > 0]
    assert len(expanded) >= 7, summary.counts


def test_fluency_threshold_default_and_off():
    # off by default: its held-out AUC is below 0.65 (benchmarks/bench_validity.py)
    assert generation.GenerateConfig(dataset="x").fluency_threshold is None
    from autocheck.cli import _threshold

    assert _threshold("off") is None and _threshold("0.3") == 0.3
    with pytest.raises(Exception, match="non-negative"):
        _threshold("-1")


def test_negation_seeds_are_expanded_after_their_fixed_start(stand_in_config, tmp_path):
    """LC4's requirement is a text starting "This is" / "That is": the best-ranked placements of these
    seeds go before it, so without the placement check no template could ever be valid and the seeds got
    no expansion; with it the next-ranked placements are used and the requirement rejects nothing."""
    # every place the defaults may insert into these two seeds is now rejected by the word order check
    # ("not a [new] bad movie": an adjective before an adjective), so the test inserts any tag
    stand_in_config = replace(stand_in_config, capabilities=["LC4"], insertions="any")
    summary = generation.generate(stand_in_config, tmp_path / "suite")
    expansions = [c for c in _cases(tmp_path / "suite") if c.kind == "expansion"]
    assert summary.counts["LC4"].expansions == len(expansions) > 0
    assert all(c.text.startswith(("This is not ", "That is not ")) for c in expansions)
    assert "fill: requirement" not in summary.rejected


@pytest.mark.parametrize("requirements", [None, "qqp"])  # dataset seeds; templates of a two-input task
def test_progress_total_does_not_change_the_output(shared_data, small_dataset, tmp_path, requirements):
    """With a progress bar the seed cases are counted through a temporary file, not kept in a list (which
    grew with the number of seeds); the suite is byte-identical to a run without one."""
    config = generation.GenerateConfig(
        dataset=None if requirements else str(small_dataset),
        requirements=requirements,
        lexicon="opinion",
        expand=False,
        chunk_size=3,
        seed=2,
    )
    generation.generate(config, tmp_path / "plain")
    totals = {}

    def live_cases() -> int:  # collected first: garbage that other tests left is not counted
        gc.collect()
        return sum(type(o) is TestCase for o in gc.get_objects())

    def progress(items, total, description):
        totals[description] = total
        if description == "generate":  # the seed cases in memory as the first chunk starts
            alive["cases"] = live_cases() - before
        return items

    alive = {}
    before = live_cases()
    generation.generate(config, tmp_path / "bar", progress=progress)
    plain = (tmp_path / "plain" / "cases.jsonl").read_bytes()
    assert plain and (tmp_path / "bar" / "cases.jsonl").read_bytes() == plain
    assert totals["generate"] == -(-len(plain.splitlines()) // config.chunk_size)
    assert alive["cases"] <= config.chunk_size < len(plain.splitlines())
    assert sorted(p.name for p in (tmp_path / "bar").iterdir()) == sorted(
        p.name for p in (tmp_path / "plain").iterdir()
    )  # the spool leaves nothing behind


def test_the_closing_table_shows_counts_skipped_rows_and_rejections(capsys):
    counts = {
        "LC1": generation.CapabilityCounts(seeds=3, seed_cases=5, parsed=5, masked_templates=7, expansions=4),
        "LC2": generation.CapabilityCounts(seeds=1, seed_cases=1),
    }
    skipped = {"skipped": {"empty text": 2}}
    summary = generation.RunSummary(Path("suites/sst"), counts, skipped, {"fill: pos": 9})
    summary.print_table()
    out = capsys.readouterr().out
    assert "suite written to suites/sst" in out
    assert "masked" in out and "parsed" in out and "perturbations" not in out  # expanded, no empty column
    rows = [line.strip("│ ").split() for line in out.splitlines() if line.startswith("│")]
    assert rows == [["LC1", "│", "3", "│", "5", "│", "5", "│", "7", "│", "0", "│", "4"],
                    ["LC2", "│", "1", "│", "1", "│", "0", "│", "0", "│", "0", "│", "0"]]  # fmt: skip
    assert "dataset rows skipped: {'empty text': 2}" in out
    assert "rejected: {'fill: pos': 9}" in out


@pytest.mark.slow  # a generation with expansion by the stand-in models: about half a minute here
def test_the_demos_next_steps_run_as_printed_on_ones_own_data_and_model(
    shared_data, small_dataset, tmp_path, monkeypatch
):
    """The commands the demo ends with work as printed, once the user's CSV and model are put in."""
    import shlex

    from autocheck.demo import demo_resources, next_steps

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NLTK_DATA", str(shared_data / "nltk_data"))  # demo_resources would set it for good
    (tmp_path / "mine.py").write_text(
        "labels = ['negative', 'positive']\n\n\ndef predict(texts):\n"
        "    return [[0.9, 0.1] if 'bad' in t else [0.1, 0.9] for t in texts]\n"
    )
    commands = [line.strip() for line in next_steps(demo_resources(shared_data)).splitlines()]
    commands = [line for line in commands if "autocheck " in line]
    assert len(commands) == 3
    for line in commands:
        env, _, command = line.rpartition("autocheck ")
        for assignment in shlex.split(env):
            monkeypatch.setenv(*assignment.split("=", 1))
        argv = shlex.split(
            command.replace("YOUR.csv", str(small_dataset)).replace("YOUR_MODEL", "mine.py:predict")
        )
        if argv[0] == "generate":
            argv += ["--capability", "LC1", "--max-seeds", "2"]
        assert main(argv) == 0, line
    assert (tmp_path / "my-report.html").is_file()


@pytest.mark.slow  # two generations with expansion: about a minute under load
def test_a_second_generate_in_one_process_reuses_the_masked_lm(stand_in_config, tmp_path, monkeypatch):
    from autocheck.expand.mlm import MaskedLM

    monkeypatch.setenv("AUTOCHECK_CACHE", "off")  # both runs compute: the same model calls each
    real, loads = MaskedLM.from_pretrained, []

    def counted(*args, **kwargs):
        loads.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(MaskedLM, "from_pretrained", counted)
    config = replace(stand_in_config, mlm=str(Path(stand_in_config.mlm)) + "/")  # its own cache entry
    generation.generate(config, tmp_path / "first")
    generation.generate(config, tmp_path / "second")
    assert len(loads) == 1
    first, second = (json.loads((tmp_path / run / "timings.json").read_text()) for run in ("first", "second"))
    assert first["model_calls"] == second["model_calls"]  # each run's own, not the sum so far
    assert first["model_calls"]["mlm_rows"] > 0
    assert (tmp_path / "first" / "cases.jsonl").read_bytes() == (
        tmp_path / "second" / "cases.jsonl"
    ).read_bytes()


def test_an_intensifier_grades_an_adjective_that_carries_the_label(stand_in_config, tmp_path):
    """The one polar word an expansion may insert: "The story is [incredibly] beautiful." (positive), "The
    film is [incredibly] dull." (negative: "incredibly" is positive in the lexicon, which neither the
    polarity check nor LC2's requirement holds against it there), the stand-in masked LM's fills. An
    adjective carrying the label is such a site beyond the seed's top k, and there only intensifiers go
    (with ``--top-k 1`` the seeds' one template each inserts elsewhere), also where the stand-in parser
    calls it a noun ("a (NN beautiful)"); not under ``any``, which inserts only neutral words."""
    dataset = tmp_path / "three.csv"
    dataset.write_text(
        'text,label\n"The film is dull.",negative\n"The story is beautiful.",positive\n'
        '"It was a beautiful, moving story.",positive\n'
    )
    config = replace(stand_in_config, dataset=str(dataset), capabilities=["LC2"], top_k=1)
    generation.generate(config, tmp_path / "suite")
    expansions = [case for case in _cases(tmp_path / "suite") if case.kind == EXPANSION]
    texts = [case.text for case in expansions]
    assert "The story is incredibly beautiful." in texts and "The film is incredibly dull." in texts
    graded = re.compile(r"(is|a) \w+ (dull|beautiful)")
    found = [case for case in expansions if graded.search(case.text)]
    assert len(found) == 6 and sum(case.text.startswith("It was a") for case in found) == 2
    assert all(case.provenance["inserted"][0]["word"] in INTENSIFIERS for case in found)
    generation.generate(replace(config, insertions="any"), tmp_path / "any")
    assert not any(graded.search(case.text) for case in _cases(tmp_path / "any"))


def test_a_gloss_scored_degree_adverb_is_inserted_under_sentiwordnets_pure_neutral_rule(
    stand_in_config, tmp_path
):
    """SentiWordNet scores "very" and "really" from their glosses (0.25 positive and 0.25 negative:
    neutral on balance, but not pure neutral), so its rule for inserted words barred them, and every
    degree and stance adverb with them; they are placed by the adverb checks instead
    (``insertions.FUNCTION_ADVERBS``), and the manifest says so; so are adjectives of dimension, age and
    colour (``insertions.PROPERTY_ADJECTIVES``). Not under ``any``, the paper's, which keeps its output."""
    lexicon = tmp_path / "swn.txt"
    lexicon.write_text(
        "# POS\tID\tPosScore\tNegScore\tSynsetTerms\tGloss\n"
        "a\t00001\t0\t0.75\tdull#1\tlacking interest\n"
        "a\t00002\t0.75\t0\tbeautiful#1\tdelighting the senses\n"
        "r\t00003\t0.25\t0.25\tvery#1 really#4\tused as intensifiers\n"
        "r\t00004\t0\t0\talso#1\tin addition\n"
    )
    dataset = tmp_path / "two.csv"
    dataset.write_text(
        'text,label\n"The film is dull.",negative\n"The story of the house is beautiful.",positive\n'
    )
    config = replace(stand_in_config, dataset=str(dataset), capabilities=["LC2"], lexicon=str(lexicon))
    generation.generate(config, tmp_path / "suite")
    inserted = {
        w["word"].lower() for case in _cases(tmp_path / "suite") if case.kind == EXPANSION
        for w in case.provenance["inserted"]
    }  # fmt: skip
    assert inserted & {"very", "really"}, inserted
    judged = json.loads((tmp_path / "suite" / "manifest.json").read_text())["resources"]["insertion_lexicon"]
    assert judged["name"] == "sentiwordnet" and "very" in judged["neutral_adverbs"]
    assert inserted & PROPERTY_ADJECTIVES, inserted  # "The story of the [old] house": none is in the file
    assert "old" in judged["neutral_adjectives"]
    generation.generate(replace(config, insertions="any"), tmp_path / "any")
    assert (
        "insertion_lexicon" not in json.loads((tmp_path / "any" / "manifest.json").read_text())["resources"]
    )
    assert not {
        w["word"].lower() for case in _cases(tmp_path / "any") if case.kind == EXPANSION
        for w in case.provenance["inserted"]
    } & {"very", "really"}  # fmt: skip


def test_a_domain_lexicons_polar_words_are_never_inserted(stand_in_config, tmp_path):
    """Every word a run inserted, rated negative in a treebank given as --domain-lexicon, is inserted no
    more; the manifest records the treebank, and a suite without it none."""

    def inserted(suite: Path) -> Counter[str]:
        return Counter(
            w["word"].lower() for case in _cases(suite) if case.kind == EXPANSION
            for w in case.provenance["inserted"]
        )  # fmt: skip

    generation.generate(stand_in_config, tmp_path / "plain")
    words = inserted(tmp_path / "plain")
    assert (
        words
        and "insertion_lexicon"
        not in json.loads((tmp_path / "plain" / "manifest.json").read_text())["resources"]
    )
    trees = tmp_path / "train.txt"
    trees.write_text("".join(f"(1 (2 a) (1 {word}))\n" for word in words))
    generation.generate(replace(stand_in_config, domain_lexicons=[str(trees)]), tmp_path / "domain")
    # only an intensifier grading a negative seed's negative adjective ("a [terribly] boring film")
    kept = {
        (w["word"].lower(), case.label) for case in _cases(tmp_path / "domain") if case.kind == EXPANSION
        for w in case.provenance["inserted"] if w["word"].lower() in words
    }  # fmt: skip
    assert all(word in INTENSIFIERS and label == "negative" for word, label in kept), kept
    assert len(inserted(tmp_path / "domain")) > 0
    judged = json.loads((tmp_path / "domain" / "manifest.json").read_text())["resources"]["insertion_lexicon"]
    assert judged["name"] == "opinion" and judged["domain_lexicons"][0]["sha256"]


def test_adjectives_relational_inserts_no_other_adjective(stand_in_config, tmp_path):
    """With --adjectives relational every inserted adjective (JJ) is one of WordNet's relational ones (the
    stand-in masked LM ranks none of them high enough here: none), and the same run without it inserts
    others; adverbs are still inserted, and the manifest records the rule."""
    from autocheck.sources.lexicon import relational_adjectives

    def inserted(suite: Path, tag: str) -> set[str]:
        return {
            w["word"].lower() for case in _cases(suite) if case.kind == EXPANSION
            for w in case.provenance["inserted"] if w["tag"] == tag
        }  # fmt: skip

    config = replace(stand_in_config, max_seeds=6)
    generation.generate(config, tmp_path / "any")
    generation.generate(replace(config, adjectives="relational"), tmp_path / "relational")
    assert inserted(tmp_path / "any", "JJ") - relational_adjectives()
    assert inserted(tmp_path / "relational", "JJ") <= relational_adjectives()
    assert inserted(tmp_path / "relational", "RB")
    manifest = json.loads((tmp_path / "relational" / "manifest.json").read_text())
    assert manifest["resources"]["insertion_lexicon"]["adjectives"].startswith("relational")


def test_adjective_fills_bound_the_adjective_templates_but_not_under_compat(stand_in_config, tmp_path):
    """A template that inserts only adjectives keeps at most --adjective-fills fills, the others up to
    --fills-per-mask; --compat (the original code, which has no such bound) keeps every valid fill."""

    def fills_per_template(config: generation.GenerateConfig, out: Path) -> dict[bool, int]:
        generation.generate(config, out)
        per: Counter[tuple[bool, str]] = Counter()
        for case in _cases(out):
            if case.kind == EXPANSION:
                adjectives = all(i["tag"] == "JJ" for i in case.provenance["inserted"])
                per[adjectives, case.provenance["template_id"]] += 1
        return {kind: max(n for (k, _), n in per.items() if k == kind) for kind in (True, False)}

    config = replace(stand_in_config, fills_per_mask=None, adjective_fills=1, fluency_threshold=None)
    bounded = fills_per_template(config, tmp_path / "bounded")
    assert bounded[True] == 1 and bounded[False] > 1
    assert fills_per_template(replace(config, compat=True), tmp_path / "compat")[True] > 1


def test_top_k_is_ten_by_default_and_the_originals_five_under_compat(stand_in_config, tmp_path, monkeypatch):
    """--top-k left out keeps 10 candidate expansions per seed, 5 (the original code's) with --compat; the
    manifest records the value used and an explicit --top-k wins."""
    from autocheck.expand.expansion import Differentiator

    assert generation.GenerateConfig().kept_top_k == 10
    assert generation.GenerateConfig(compat=True).kept_top_k == 5
    assert generation.GenerateConfig(compat=True, top_k=7).kept_top_k == 7
    assert generation.GenerateConfig(compat=True).settings()["top_k"] == 5
    asked: set[int] = set()
    real = Differentiator.differentiate

    def recording(self, *args, **kwargs):
        asked.add(kwargs["top_k"])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Differentiator, "differentiate", recording)
    generation.generate(replace(stand_in_config, max_seeds=1), tmp_path / "suite")
    assert asked == {10}
    manifest = json.loads((tmp_path / "suite" / "manifest.json").read_text())
    assert manifest["settings"]["top_k"] == 10


def test_each_seed_is_tagged_once_for_the_adjective_sites_and_validation(
    stand_in_config, tmp_path, monkeypatch
):
    """The job tags the seeds for the intensifier sites and hands the tags on to ``fill``: validation,
    in all of its rounds, tags no seed again."""
    from autocheck.expand import validate as validation
    from autocheck.tagging import tokenize

    tagged: Counter[tuple[str, ...]] = Counter()

    def counting(sentences):
        tagged.update(tuple(s) for s in sentences)
        return real(sentences)

    real = validation.pos_tag_sents
    monkeypatch.setattr(validation, "pos_tag_sents", counting)
    generation.generate(stand_in_config, tmp_path / "suite")
    cases = _cases(tmp_path / "suite")
    seeds = {
        c.text for c in cases if c.kind == SEED and c.id in {e.seed_id for e in cases if e.kind == EXPANSION}
    }
    sentences = [tuple(tokenize(t).words[a:b]) for t in seeds for a, b in tokenize(t).sentences]
    assert sentences and {s: tagged[s] for s in sentences} == dict.fromkeys(sentences, 1)
