"""autocheck fuzz: the model-guided search (fuzz.search_chunk) on a toy expander and model, and the whole
job on the stand-in parser, masked LM and classifier: reproducible whatever the workers, resumable, its
output a suite that run reruns on another model and that explain groups by word, production and site.
(tests/test_fuzz.py is the atheris harness of the readers, another thing.)"""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import pytest
from conftest import require

from autocheck import fuzz as fuzzing
from autocheck.cli import main
from autocheck.config import GenerateConfig
from autocheck.expect import FAIL, PASS
from autocheck.explain import case_features, explain_run
from autocheck.fuzz import FuzzCounts, SearchConfig, fuzz, search_chunk
from autocheck.generate import generate
from autocheck.records import EXPANSION, SEED, TestCase
from autocheck.run import run_suite
from autocheck.schemas import FUZZ_COUNTS
from autocheck.store import InputError, content_hash, read_jsonl


def _seed(id: str, text: str) -> TestCase:
    return TestCase(id, "LC", SEED, text, "positive", "MFT", "positive", editable=((0, len(text)),))


def _expansion(node: TestCase, text: str, word: str, offset: int) -> dict:
    """``word`` inserted into ``node`` at ``offset``, making ``text``, as an expander's record."""
    return TestCase(
        f"{node.id}-x{content_hash(text)[:10]}",
        "LC",
        EXPANSION,
        text,
        "positive",
        "MFT",
        "positive",
        node.id,
        ((0, len(text)),),
        {
            **node.provenance,
            "production": {"lhs": "NP", "from": ["NN"], "to": ["JJ", "NN"]},
            "inserted": [{"word": word, "tag": "JJ", "offset": offset}],
        },
    ).to_json()


def _expand(nodes: list[TestCase]) -> dict[str, list[dict]]:
    """Each node's expansions: one of the words x, y, z put in front of it; none for a "dull" one."""
    return {
        node.id: [
            _expansion(node, f"{word} {node.text}", word, 0) for word in "xyz" if "dull" not in node.text
        ]
        for node in nodes
    }


def _answers(cases: list[TestCase]) -> list[tuple[float, str | None]]:
    """A model that each z moves 0.2 and each y 0.1 toward failing; "err" has no answer, "bad" fails."""
    out = []
    for case in cases:
        words = case.text.split()
        score = 1 - 0.2 * words.count("z") - 0.1 * words.count("y") - ("bad" in words)
        out.append((score, None if "err" in words else FAIL if score < 0.5 else PASS))
    return out


def _search(seeds: list[TestCase], **options) -> tuple[list[list[TestCase]], FuzzCounts]:
    counts = {"LC": FuzzCounts()}
    found = list(search_chunk(seeds, SearchConfig(**options), _expand, _answers, "toy", counts))
    return found, counts["LC"]


def test_the_search_goes_on_from_the_edit_nearest_to_failing():
    seeds = [_seed("s", "a good film"), _seed("b", "a bad film"), _seed("e", "err")]
    found, counts = _search(seeds, queries=50, beam=1, depth=3)
    assert [case.id for case in found[1] + found[2]] == ["b", "e"]  # failing or unanswered: not searched
    seed, failure = found[0]
    assert seed.id == "s" and failure.text == "z z z a good film"  # z, then z z, then z z z
    assert failure.seed_id == "s" and failure.kind == EXPANSION
    assert failure.id == f"s-x{content_hash(failure.text)[:10]}"
    assert [item["offset"] for item in failure.provenance["inserted"]] == [0, 2, 4]
    how = failure.provenance["fuzz"]
    assert [step["words"] for step in how["path"]] == [["z"], ["z"], ["z"]]
    assert how["depth"] == 3 and how["target"] == "toy" and how["queries"] == 1 + 3 + 3 + 3
    assert counts == FuzzCounts(
        seeds=3, already_failing=2, broken=1, failures=1, near_misses=0, queries=12, errors=1
    )


def test_each_unbroken_seed_is_counted_by_why_it_was_left():
    seeds = [_seed("d", "a dull film"), _seed("s", "a good film")]  # "dull": no candidate at all
    _, counts = _search(seeds, queries=4, beam=1, depth=3)  # s: 1 + 3 of the 6 its chunk has
    assert (counts.no_candidate, counts.exhausted, counts.out_of_queries) == (1, 0, 1)
    _, counts = _search([_seed("s", "a good film")], queries=50, beam=1, depth=1)  # x, y, z: none fails
    assert (counts.no_candidate, counts.exhausted, counts.out_of_queries) == (0, 1, 0)
    assert counts.broken == 0 and counts.near_misses == 1


def test_the_resume_state_schema_takes_every_count():
    assert FUZZ_COUNTS == tuple(asdict(FuzzCounts()))


def test_the_query_budget_stops_a_seed_and_its_nearest_miss_is_kept():
    found, counts = _search([_seed("s", "a good film")], queries=5, beam=1, depth=3)
    seed, near = found[0]
    assert near.text == "z a good film" and near.provenance["fuzz"]["score"] == pytest.approx(0.8)
    assert counts.queries == 5 and counts.near_misses == 1 and counts.broken == 0


def test_a_wider_beam_searches_more_edits_at_each_depth():
    narrow, _ = _search([_seed("s", "a good film")], queries=50, beam=1, depth=2)
    wide, counts = _search([_seed("s", "a good film")], queries=50, beam=3, depth=2)
    assert counts.queries == 1 + 3 + 9
    assert narrow[0][1].text == wide[0][1].text == "z z a good film"


def test_a_seed_without_candidates_leaves_its_queries_to_the_others_of_its_chunk():
    alone, _ = _search([_seed("s", "a good film")], queries=6, beam=1, depth=3)
    assert [case.provenance["fuzz"]["outcome"] for case in alone[0][1:]] == [PASS]  # 6 are too few
    found, counts = _search(
        [_seed("d", "a dull film"), _seed("s", "a good film")], queries=6, beam=1, depth=3
    )
    assert [case.id for case in found[0]] == ["d"]
    failure = found[1][1]
    assert failure.text == "z z z a good film" and failure.provenance["fuzz"]["queries"] == 10
    assert counts.queries == 1 + 10 and counts.broken == 1


def test_the_sites_whose_best_fill_moved_the_model_most_are_searched_first():
    def answers(cases: list[TestCase]) -> list[tuple[float, str | None]]:  # words at the end move it
        scores = [1 - 0.3 * case.text.endswith(" r") - 0.6 * case.text.endswith(" s") for case in cases]
        return [(score, FAIL if score < 0.5 else PASS) for score in scores]

    counts = {"LC": FuzzCounts()}
    search = SearchConfig(queries=4, beam=1, depth=1)
    [[_, failure]] = search_chunk([_seed("s", "a good film")], search, _two_sites, answers, "toy", counts)
    # each site's first fill (p, r), then the end's other fill before the front's
    assert failure.text == "a good film s" and failure.provenance["fuzz"]["queries"] == 4


def _two_sites(nodes: list[TestCase]) -> dict[str, list[dict]]:
    """Two sites, each with two fills: before the text (p, q) and after it (r, s)."""
    return {
        node.id: [
            _expansion(node, "p " + node.text, "p", 0),
            _expansion(node, "q " + node.text, "q", 0),
            _expansion(node, node.text + " r", "r", len(node.text) + 1),
            _expansion(node, node.text + " s", "s", len(node.text) + 1),
        ]
        for node in nodes
    }


def test_a_site_that_moved_the_model_at_one_depth_is_asked_first_at_the_next():
    def answers(cases: list[TestCase]) -> list[tuple[float, str | None]]:  # each word at the end: 0.3
        scores = [1 - 0.3 * sum(word in "rs" for word in case.text.split()) for case in cases]
        return [(score, FAIL if score < 0.5 else PASS) for score in scores]

    counts = {"LC": FuzzCounts()}
    search = SearchConfig(queries=6, beam=1, depth=2)  # the seed, 4 at depth 1, then one
    [[_, failure]] = search_chunk([_seed("s", "a good film")], search, _two_sites, answers, "toy", counts)
    # depth 2 goes on from "a good film r" and asks the end first, the site that moved it at depth 1
    assert failure.text == "a good film r r" and failure.provenance["fuzz"]["queries"] == 6


def test_a_seed_with_more_sites_than_queries_asks_the_prior_s_first_sites_first():
    def expand(nodes: list[TestCase]) -> dict[str, list[dict]]:  # two sites: before and after the text
        return {
            node.id: [
                _expansion(node, "p " + node.text, "p", 0),
                _expansion(node, node.text + " s", "s", len(node.text) + 1),
            ]
            for node in nodes
        }

    def answers(cases: list[TestCase]) -> list[tuple[float, str | None]]:  # a word at the end breaks it
        return [(0.0, FAIL) if case.text.endswith(" s") else (1.0, PASS) for case in cases]

    def search(prior) -> list[TestCase]:  # the seed's answer and one query: one site of the two
        search = SearchConfig(queries=2, beam=1, depth=1)
        [found] = search_chunk([_seed("s", "a film so good")], search, expand, answers, "toy", counts, prior)
        return found[1:]

    counts = {"LC": FuzzCounts()}
    assert [case.text for case in search(lambda case: 0.0)] == ["p a film so good"]  # the expander's order
    prior = fuzzing.label_word_distance(_Lexicon())  # "s" lies next to "good", "p" four words away
    assert [case.text for case in search(prior)] == ["a film so good s"]


class _Lexicon:
    def polarity(self, word: str, pos: str | None) -> str | None:
        return {"good": "positive", "bad": "negative"}.get(word, "neutral" if word.isalpha() else None)


def test_the_prior_counts_words_from_the_insertion_to_the_nearest_polar_word_or_negation():
    distance = fuzzing.label_word_distance(_Lexicon())
    node = _seed("s", "it is not a film")
    assert distance(TestCase.from_json(_expansion(node, "it is not a short film", "short", 12))) == 2
    assert distance(TestCase.from_json(_expansion(node, "really it is not a film", "really", 0))) == 3
    node = _seed("s", "A good, fine film.")
    assert distance(TestCase.from_json(_expansion(node, "A good, fine new film.", "new", 13))) == 2
    node = _seed("s", "a film")
    assert distance(TestCase.from_json(_expansion(node, "a new film", "new", 2))) == float("inf")


def test_bad_search_settings_are_clear_errors():
    with pytest.raises(InputError, match="--queries must be at least 1"):
        SearchConfig(queries=0)


@pytest.fixture
def stand_ins(shared_data):
    """The alict60 LC2 seeds (short SST sentences with a polar adjective, where the stand-in classifier has
    weak spots), the stand-in parser and masked LM, the stand-in classifier as target and another."""
    models = shared_data / "models"
    config = GenerateConfig(
        dataset=str(require(shared_data.parent / "bench/alict60/LC2/SSTB_train.csv")),
        lexicon="opinion",
        capabilities=["LC2"],
        max_variants=1,
        max_seeds=6,
        parser=str(require(models / "benepar_ptbsample_charlstm")),
        mlm=str(require(models / "mini-bert-mlm")),
        chunk_size=2,
        seed=1,
        insertions="phrases",  # fuzz's own (config.FUZZ_EXPANSION); generate's small top-k for speed
    )
    return config, str(require(models / "mini-bert-sst2")), str(require(models / "mini-bert-sst2-scratch"))


def test_an_interrupted_fuzz_resumes_to_the_same_bytes(stand_ins, tmp_path, monkeypatch):
    config, target, _ = stand_ins
    full = fuzz(config, target, tmp_path / "full", search=SearchConfig(queries=20))
    reference = (tmp_path / "full" / "cases.jsonl").read_bytes()
    assert full.counts["LC2"].seeds > 2  # more than one chunk

    real, calls = fuzzing.search_chunk, []

    def interrupted(chunk, *args):
        calls.append(chunk)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(chunk, *args)

    monkeypatch.setattr(fuzzing, "search_chunk", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fuzz(config, target, tmp_path / "resumed", search=SearchConfig(queries=20))
    calls.clear()
    monkeypatch.setattr(
        fuzzing, "search_chunk", lambda chunk, *args: calls.append(chunk) or real(chunk, *args)
    )
    with pytest.raises(InputError, match="other settings or another target"):
        fuzz(config, target, tmp_path / "resumed", search=SearchConfig(queries=21), resume=True)
    resumed = fuzz(config, target, tmp_path / "resumed", search=SearchConfig(queries=20), resume=True)
    assert (tmp_path / "resumed" / "cases.jsonl").read_bytes() == reference
    assert calls and calls[0][0].id != next(iter(read_jsonl(tmp_path / "full" / "cases.jsonl")))["id"]
    assert resumed.counts == full.counts


@pytest.mark.slow
def test_two_workers_write_the_same_bytes_as_one(stand_ins, tmp_path, monkeypatch):
    config, target, _ = stand_ins
    config = replace(config, chunk_size=64, max_seeds=4)  # depths, not chunks, start the worker pools
    fuzz(config, target, tmp_path / "one", search=SearchConfig(queries=20))
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "other-cache"))
    fuzz(config, target, tmp_path / "two", search=SearchConfig(queries=20), workers=2)
    assert (tmp_path / "two" / "cases.jsonl").read_bytes() == (tmp_path / "one" / "cases.jsonl").read_bytes()
    assert any(c["kind"] == EXPANSION for c in read_jsonl(tmp_path / "one" / "cases.jsonl"))  # found some


def test_found_failures_fail_when_run_and_the_suite_runs_on_another_model(stand_ins, tmp_path):
    config, target, other = stand_ins
    summary = fuzz(
        replace(config, max_seeds=None), target, tmp_path / "suite", search=SearchConfig(queries=20)
    )
    assert summary.counts["LC2"].failures > 0 and summary.counts["LC2"].near_misses > 0
    results = run_suite(tmp_path / "suite", [target, other], tmp_path / "run")
    rows = {(row["model"], row["case"]): row for row in read_jsonl(tmp_path / "run" / "predictions.jsonl")}
    found = [c for c in read_jsonl(tmp_path / "suite" / "cases.jsonl") if c["kind"] == EXPANSION]
    assert len(found) == summary.counts["LC2"].failures + summary.counts["LC2"].near_misses
    on_target, on_other = results["models"]
    for case in found:  # run reads each case as the search did; the other model answers them all too
        assert rows[(on_target, case["id"])]["outcome"] == case["provenance"]["fuzz"]["outcome"]
        assert rows[(on_other, case["id"])]["outcome"] in (PASS, FAIL)
        features = case_features(case, ["text"])
        assert {f.split("=", 1)[0] for f in features} >= {"inserted", "production", "site"}
    explained = explain_run(tmp_path / "run", top=None)[on_target]["LC2"]
    assert {e["kind"] for e in explained["explanations"]} & {"inserted", "production", "site"}


def test_the_summary_counts_the_failures_that_insert_a_descriptive_adjective(stand_ins, tmp_path, capsys):
    """Most label-lost failures read blind insert a descriptive adjective: the summary
    says how many there are and names the adjectives, from the suite's failures' inserted words."""
    import shutil

    config, target, _ = stand_ins
    summary = fuzz(
        replace(config, max_seeds=None), target, tmp_path / "suite", search=SearchConfig(queries=20)
    )
    cases = list(read_jsonl(tmp_path / "suite" / "cases.jsonl"))
    failed = [c for c in cases if c["kind"] == EXPANSION and c["provenance"]["fuzz"]["outcome"] == FAIL]
    assert len(failed) >= 4 and summary.descriptive is not None
    found, words = summary.descriptive
    adjectives = [
        {i["word"].lower() for i in c["provenance"]["inserted"] if i["tag"].startswith("JJ")} for c in failed
    ]
    assert found <= sum(bool(a) for a in adjectives) and set(words) <= set().union(*adjectives)
    # the same suite with failures inserting two descriptive adjectives, a relational one and adverbs
    inserted = [("predictable", "JJ"), ("visual", "JJ"), ("predictable", "RB"), ("Useful", "JJ")]
    for i, case in enumerate(failed):
        word, tag = inserted[i] if i < len(inserted) else ("also", "RB")
        case["provenance"]["inserted"] = [{"word": word, "tag": tag, "offset": 0}]
    edited = tmp_path / "edited"
    shutil.copytree(tmp_path / "suite", edited)
    (edited / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    found = fuzzing._descriptive_failures(edited / "cases.jsonl", None)
    assert found == (2, ("predictable", "useful"))
    replace(summary, descriptive=found).print_table()
    printed = " ".join(capsys.readouterr().out.split())  # rich wraps the line
    named = "failures insert a descriptive adjective ('predictable', 'useful')"
    assert f"2 of the {len(failed)} {named}" in printed


def test_explain_names_the_site_of_an_insertion_by_the_word_it_went_before():
    def sites(text: str, offset: int) -> set[str]:
        case = {"text": text, "provenance": {"inserted": [{"word": "too", "tag": "RB", "offset": offset}]}}
        return {f for f in case_features(case, ["text"]) if f.startswith("site=")}

    assert sites("It is too Sweet.", 6) == {"site=before 'sweet'"}
    assert sites("It is sweet too.", 12) == {"site=at the end"}


def test_the_command_stops_starting_chunks_once_max_queries_are_spent(stand_ins, tmp_path):
    config, target, _ = stand_ins
    out = tmp_path / "suite"
    argv = ["fuzz", "--model", target, "--dataset", str(config.dataset), "--capability", "LC2", "--lexicon",
            "opinion", "--parser", config.parser, "--mlm", config.mlm, "--max-variants", "1", "--chunk-size",
            "2", "--queries", "5", "--max-queries", "3", "--workers", "1", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    counts = json.loads((out / "manifest.json").read_text())["counts"]["LC2"]
    # the first chunk's 2 seeds spent at least 3 queries: no second chunk (of the 12 seeds LC2 finds)
    assert counts["seeds"] == 2 and 3 <= counts["queries"] <= 2 * 5
    settings = json.loads((out / "manifest.json").read_text())["settings"]
    assert settings["top_k"] == 20 and settings["fills_per_mask"] is None  # fuzz's own defaults
    assert settings["insertions"] == "phrases"  # generate's, since round 20 (docs/fuzz.md)


def test_the_seeds_of_an_existing_suite_are_fuzzed_as_the_dataset_search_gives_them(stand_ins, tmp_path):
    config, target, _ = stand_ins
    generate(replace(config, expand=False), tmp_path / "seeds")  # the seed cases alone
    fuzz(config, target, tmp_path / "searched", search=SearchConfig(queries=10))
    fuzz(
        config,
        target,
        tmp_path / "from-suite",
        search=SearchConfig(queries=10),
        seeds_from=tmp_path / "seeds",
    )
    written = (tmp_path / "from-suite" / "cases.jsonl").read_bytes()
    assert written == (tmp_path / "searched" / "cases.jsonl").read_bytes()
    with pytest.raises(InputError, match="none of its capabilities"):
        fuzz(replace(config, capabilities=["LC4"]), target, tmp_path / "x", seeds_from=tmp_path / "seeds")


def test_the_fuzz_resume_schema_names_every_search_count():
    """A fuzz's state.json is checked on --resume against schemas.FUZZ_STATE: a count added to FuzzCounts
    and not to the schema would make every interrupted fuzz unresumable."""
    from dataclasses import asdict

    from autocheck.schemas import FUZZ_COUNTS

    assert set(FUZZ_COUNTS) == set(asdict(fuzzing.FuzzCounts()))


def test_fuzz_grades_an_adjective_with_an_intensifier_a_word_summing_model_reads_against_the_label(
    stand_ins, tmp_path
):
    """A model that adds up its words' polarities in the opinion lexicon (as AFINN and VADER add up
    theirs) reads "terribly" as negative, which no neutral insertion can show: at an adjective that
    carries a positive seed's label fuzz asks the intensifiers, and "a [terribly] <adjective>" breaks it."""
    from autocheck.models.callables import python_model
    from autocheck.requirements import default_task
    from autocheck.sources.lexicon import load_lexicon

    lexicon = load_lexicon("opinion")
    value = {"positive": 1, "negative": -1}

    def word_sum(texts):
        sums = [
            sum(value.get(lexicon.polarity(w.strip(".,!?\"'").lower(), None), 0) for w in t.split())
            for t in texts
        ]
        return [[0.5 - s / 2, 0.5 + s / 2] for s in (max(-1.0, min(1.0, x / 2)) for x in sums)]

    word_sum.labels = ("negative", "positive")
    config, _, _ = stand_ins
    model = python_model(word_sum, default_task(), name="word-sum", version="1")
    fuzz(replace(config, max_seeds=None), model, tmp_path / "suite", search=SearchConfig(queries=20))
    found = [c for c in read_jsonl(tmp_path / "suite" / "cases.jsonl") if c["kind"] == EXPANSION]
    failures = [c for c in found if c["provenance"]["fuzz"]["outcome"] == FAIL]
    assert any(c["provenance"]["inserted"][-1]["word"] == "terribly" for c in failures)
