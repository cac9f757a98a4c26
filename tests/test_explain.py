"""Failure explanations (autocheck.explain): Fisher and Benjamini–Hochberg against known values, planted
causes found first (slot value, lexicon attribute, inserted word, perturbation), no significant feature for
a model failing at random, minimal failing edits, the CLI, report --json and compare."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from report_data import toy, write_suite

from autocheck.cli import main
from autocheck.explain import (
    benjamini_hochberg,
    case_features,
    explain_run,
    feature_changes,
    fisher_greater,
    fisher_two_sided,
    minimal_edits,
)
from autocheck.models import CallableModel
from autocheck.records import TestCase
from autocheck.report.compare import compare_runs
from autocheck.run import run_suite
from autocheck.store import InputError

PROFESSIONS = ["nurse", "doctor", "teacher", "lawyer", "farmer", "pilot"]
NAMES = ["Michael", "David", "James", "Jennifer", "Mary", "Linda"]  # first_name: three male, three female
ADJECTIVES = ["kind", "calm", "busy", "tall"]


def test_fisher_and_bh_match_published_values():
    # Fisher's tea-tasting table [[3, 1], [1, 3]]: one-sided p = 17/70, two-sided 34/70.
    assert fisher_greater(3, 1, 1, 3) == pytest.approx(17 / 70)
    assert fisher_two_sided(3, 1, 1, 3) == pytest.approx(34 / 70)
    assert fisher_greater(0, 4, 4, 0) == pytest.approx(1.0)
    assert fisher_greater(5, 0, 0, 5) == pytest.approx(1 / 252)  # 1 / C(10, 5)
    # Benjamini and Hochberg's adjusted values: p * m / rank, made monotone from the largest down.
    assert benjamini_hochberg([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.16 / 3, 0.16 / 3, 0.5])


def _template_suite(path: Path, n: int = 96) -> Path:
    """An MFT suite of template cases 'NAME is a ADJ PROFESSION.' (all expected positive)."""
    cases = []
    for i in range(n):
        name, prof = NAMES[i % len(NAMES)], PROFESSIONS[(i // len(NAMES)) % len(PROFESSIONS)]
        adj = ADJECTIVES[(i // 36) % len(ADJECTIVES)]
        slots = {"first_name": name, "profession": prof, "adj": adj}
        text = f"{name} is a {adj} {prof}."
        prov = {"template": f"t{i % 2}", "slots": slots}
        cases.append(TestCase(f"c{i}", "FAIR", "seed", text, "positive", "MFT", "positive", provenance=prov))
    path.mkdir(parents=True, exist_ok=True)
    (path / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    return path


def _rule(name: str, fails) -> CallableModel:
    """Negative (a failure of these positive MFT cases) exactly when ``fails(text)``."""
    return CallableModel(name, lambda texts: [[0.9, 0.1] if fails(t) else [0.1, 0.9] for t in texts])


def _top(run: Path, model: str, cap: str) -> dict:
    explained = explain_run(run)[model][cap]
    assert explained["explanations"], explained
    return explained["explanations"][0]


def test_a_planted_slot_value_is_ranked_first(tmp_path):
    suite = _template_suite(tmp_path / "suite")
    run_suite(suite, [_rule("rule", lambda t: "nurse" in t)], tmp_path / "run")
    top = _top(tmp_path / "run", "rule", "FAIR")
    assert top["feature"] == "{profession}=nurse" and top["kind"] == "slot"
    assert top["q"] < 0.01 and top["p"] < 0.01 and top["significant"]
    assert top["with"]["failures"] == top["with"]["cases"] == 18 and top["without"]["failures"] == 0
    assert top["with"]["interval"][0] > 0.7  # Wilson interval of 16/16


def test_a_planted_lexicon_attribute_is_ranked_first(tmp_path):
    suite = _template_suite(tmp_path / "suite")
    female = ("Jennifer", "Mary", "Linda")
    run_suite(suite, [_rule("rule", lambda t: t.startswith(female))], tmp_path / "run")
    top = _top(tmp_path / "run", "rule", "FAIR")
    assert top["feature"] == "{first_name}.gender=female" and top["kind"] == "attribute"
    assert top["q"] < 0.01 and top["with"]["failures"] == 48 and top["without"]["failures"] == 0


def _expansion_suite(path: Path) -> Path:
    """Seeds 'the X film' with two expansions each, one word inserted per expansion, words rotating."""
    words, cases = ["very", "truly", "quite", "rather", "so"], []
    for i in range(30):
        seed = f"the {ADJECTIVES[i % 4]} film number {i}"
        cases.append(TestCase(f"s{i}", "VOC", "seed", seed, "positive", "MFT", "positive"))
        for j in range(2):
            word = words[(2 * i + j) % len(words)]
            text = seed.replace("the ", f"the {word} ", 1)
            inserted = [{"word": word, "tag": "RB", "offset": 4}]
            production = {"lhs": "NP", "from": ["DT", "JJ", "NN"], "to": ["DT", "RB", "JJ", "NN"]}
            prov = {"inserted": inserted, "production": production}
            cases.append(
                TestCase(
                    f"s{i}.{j}", "VOC", "expansion", text, "positive", "MFT", "positive", f"s{i}", (), prov
                )
            )
    path.mkdir(parents=True, exist_ok=True)
    (path / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    return path


def test_a_planted_inserted_word_is_ranked_first(tmp_path):
    suite = _expansion_suite(tmp_path / "suite")
    run_suite(suite, [_rule("rule", lambda t: " truly " in t)], tmp_path / "run")
    top = _top(tmp_path / "run", "rule", "VOC")
    assert top["feature"] == "inserted=truly" and top["q"] < 0.01
    assert top["with"]["failures"] == top["with"]["cases"] == 12


def _perturbation_suite(path: Path) -> Path:
    """INV: each seed with one typo and one added '!' perturbation (different words edited)."""
    cases = []
    for i in range(24):
        words = ["the", ADJECTIVES[i % 4], "film", "number", str(i)]
        seed = " ".join(words)
        cases.append(TestCase(f"r{i}", "ROB", "seed", seed, None, "INV", "positive"))
        at = seed.index("film")
        typo = {"field": "text", "start": at, "end": at + 4, "from": "film", "to": "flim"}
        w = words[1]
        bang = {"field": "text", "start": 4, "end": 4 + len(w), "from": w, "to": w + "!"}
        for k, (name, edit) in enumerate((("typos", typo), ("punctuation", bang)), 1):
            text = seed[: edit["start"]] + edit["to"] + seed[edit["end"] :]
            prov = {"perturbation": {"perturbation": name, "edits": [edit]}}
            cases.append(
                TestCase(f"r{i}~{k}", "ROB", "perturbation", text, None, "INV", "positive", f"r{i}", (), prov)
            )
    path.mkdir(parents=True, exist_ok=True)
    (path / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    return path


def test_a_planted_perturbation_is_ranked_first(tmp_path):
    suite = _perturbation_suite(tmp_path / "suite")
    run_suite(suite, [_rule("rule", lambda t: "!" in t)], tmp_path / "run")
    top = _top(tmp_path / "run", "rule", "ROB")
    assert top["feature"] == "perturbation=punctuation" and top["q"] < 0.01
    assert (top["with"]["failures"], top["with"]["cases"], top["without"]["failures"]) == (24, 24, 0)


def test_random_failures_give_no_significant_feature_in_95_percent_of_trials(tmp_path):
    suite = _template_suite(tmp_path / "suite")
    significant = 0
    for trial in range(40):

        def coin(text: str, trial: int = trial) -> bool:  # fails 30% of cases, at random per trial
            digest = hashlib.sha256(f"{trial}/{text}".encode()).digest()
            return digest[0] < 0.3 * 256

        run = tmp_path / f"run{trial}"
        run_suite(suite, [_rule(f"coin{trial}", coin)], run)
        significant += explain_run(run)[f"coin{trial}"]["FAIR"]["significant"] > 0
    assert significant <= 2  # at least 38 of 40 trials (95%) find nothing at q < 0.05


def test_features_of_template_expansion_and_perturbation_cases():
    template = {
        "id": "c1",
        "kind": "seed",
        "label": "positive",
        "text": "Mary is a nurse.",
        "provenance": {"template": "t1", "slots": {"first_name1": "Mary", "city": "Shanghai"}},
    }
    features = case_features(template, ["text"])
    assert {"{first_name1}=Mary", "{first_name1}.gender=female", "{city}.country=China"} <= features
    assert not any(f.startswith("{city}.population") for f in features)  # numbers are not categories
    assert {"template=t1", "label=positive", "kind=seed", "length=1–5 words", "seed=c1"} <= features


def test_minimal_edits_find_the_one_word_that_flips_and_are_capped(tmp_path):
    seed = "the kind film"
    both = "the very kind truly film"
    inserted = [{"word": "very", "tag": "RB", "offset": 4}, {"word": "truly", "tag": "RB", "offset": 14}]
    typos = [
        {"field": "text", "start": 0, "end": 3, "from": "the", "to": "teh"},
        {"field": "text", "start": 4, "end": 8, "from": "kind", "to": "knid"},
        {"field": "text", "start": 9, "end": 13, "from": "film", "to": "flim"},
    ]
    cases = [
        TestCase("s", "VOC", "seed", seed, "positive", "MFT", "positive"),
        TestCase(
            "s.1", "VOC", "expansion", both, "positive", "MFT", "positive", "s", (), {"inserted": inserted}
        ),
        TestCase("r", "ROB", "seed", seed, None, "INV", "positive"),
        TestCase(
            "r~1",
            "ROB",
            "perturbation",
            "teh knid flim",
            None,
            "INV",
            "positive",
            "r",
            (),
            {"perturbation": {"perturbation": "typos", "edits": typos}},
        ),
    ]
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    asked = []

    def predict(texts):
        asked.extend(texts)
        return [[0.9, 0.1] if ("truly" in t or "knid" in t) else [0.1, 0.9] for t in texts]

    model = CallableModel("rule", predict)
    run_suite(suite, [model], tmp_path / "run")
    before = (tmp_path / "run" / "results.json").read_bytes()
    asked.clear()
    found = minimal_edits(tmp_path / "run", model, max_calls=100)
    assert found["found"] == 2 and found["candidates"] == 2 and found["calls"] == 5  # 2 + 3 singletons
    by_case = {e["case"]: e for e in found["edits"]}
    assert by_case["s.1"]["minimal"] == [inserted[1]] and by_case["s.1"]["inputs"] == {
        "text": "the kind truly film"
    }
    assert by_case["r~1"]["minimal"] == [typos[1]] and by_case["r~1"]["inputs"] == {"text": "the knid film"}
    assert found == minimal_edits(tmp_path / "run", model, max_calls=100)  # deterministic
    assert (tmp_path / "run" / "results.json").read_bytes() == before  # rates untouched
    capped = minimal_edits(tmp_path / "run", model, max_calls=2)
    assert capped["calls"] == 2 and capped["found"] == 1 and capped["left_by_budget"] == 1


@pytest.fixture
def planted_run(tmp_path):
    suite = _template_suite(tmp_path / "suite")
    run_suite(suite, [_rule("rule", lambda t: "nurse" in t)], tmp_path / "run")
    return tmp_path / "run"


def test_cli_explain_prints_and_writes_json(planted_run, capsys):
    assert main(["explain", str(planted_run)]) == 0
    out = capsys.readouterr().out
    assert "* {profession}=nurse: 100% (18/18) vs 0% (0/78) without" in out
    assert main(["explain", str(planted_run), "--json", "--top", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["models"]["rule"]["FAIR"]["explanations"]) == 2
    assert main(["report", str(planted_run), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    top = summary["models"]["rule"]["capabilities"]["FAIR"]["explain"]["explanations"][0]
    assert top["feature"] == "{profession}=nurse"


def test_cli_explain_bad_run_is_a_one_line_error(tmp_path, capsys):
    assert main(["explain", str(tmp_path / "nope")]) != 0
    err = capsys.readouterr().err
    assert "not a results directory" in err and "Traceback" not in err


def test_feature_changes_between_two_runs(tmp_path):
    suite = _template_suite(tmp_path / "suite")
    run_suite(suite, [_rule("old", lambda t: "pilot" in t)], tmp_path / "a")
    run_suite(suite, [_rule("new", lambda t: "nurse" in t or "pilot" in t)], tmp_path / "b")
    changes = feature_changes(tmp_path / "a", tmp_path / "b", [("old", "new")])["old → new"]["FAIR"]
    assert changes[0]["feature"] == "{profession}=nurse" and changes[0]["change"] == 1.0
    assert changes[0]["significant"] and not any(c["feature"] == "{profession}=pilot" for c in changes)
    assert compare_runs(tmp_path / "a", tmp_path / "b")["features"]["old → new"]["FAIR"] == changes


def test_explain_on_the_report_suite_counts_errors_apart(tmp_path):
    suite = write_suite(tmp_path / "suite")
    run_suite(suite, [toy()], tmp_path / "run")
    lc2 = explain_run(tmp_path / "run")["toy"]["LC2"]
    assert (lc2["failures"], lc2["cases"], lc2["errors"]) == (4, 6, 0)


def test_the_page_leads_with_the_verdict_and_shows_only_what_a_template_suite_has(planted_run, tmp_path):
    from autocheck.report import write_html

    page = write_html(planted_run, tmp_path / "report.html").read_text()
    verdict = page.index("class=verdict")
    assert verdict < page.index("<h2 id=rates>") < page.index("id='cap-FAIR'")
    assert "1 of 1 capabilities fail beyond the gate (gate: any failure)" in page
    assert "its cases fail 100.0% (18/18) when <code>{profession}=nurse</code>, 0.0% (0/78) otherwise" in page
    assert page.index("e.g. ") < page.index("<h2 id=rates>")  # the first failing example, in the verdict
    # a template suite: no seed-vs-expansion plot, no transition, expansion or "original" columns
    assert page.count("<svg") == 1 and not (tmp_path / "report-seed-vs-expansion.png").exists()
    assert "pass→fail" not in page and "<th>expansions</th>" not in page and "<th>original</th>" not in page
    gated = write_html(planted_run, tmp_path / "gated.html", thresholds={"*": 0.5}, plots=False).read_text()
    assert "no capability fails beyond the gate (gate: failure rate above 50.0%)" in gated


def test_the_drilldown_groups_failing_expansions_under_their_seed(tmp_path):
    from autocheck.report import write_html

    suite = write_suite(tmp_path / "suite")
    run_suite(suite, [toy()], tmp_path / "run")
    page = write_html(tmp_path / "run", tmp_path / "report.html").read_text()
    lc2 = page[page.index("id='cap-LC2'") : page.index("id='cap-LC4'")]
    assert lc2.count(">s1</td>") == 1  # the failing seed once, its one failing expansion right below it
    assert lc2.count(">s1.1</td>") == 1 and lc2.index(">s1</td>") < lc2.index(
        "<tr class=derived><td class=ex>↳ "
    )
    assert "seed: passes" in lc2 and "a lovely film" in lc2  # s3 passes, its expansion s3.1 fails
    assert page.count("<svg") == 2  # expansions and perturbations: both plots
    suite = _expansion_suite(tmp_path / "suite2")
    run_suite(suite, [_rule("rule", lambda t: " very " in t or " truly " in t)], tmp_path / "run2")
    page = write_html(tmp_path / "run2", tmp_path / "report2.html", plots=False).read_text()
    folded = page[page.index("<details><summary>2 failing expansions of s0</summary>") :]
    assert folded.index(">s0.0</td>") < folded.index(">s0.1</td>") < folded.index("</details>")
    assert page.count(">s0.0</td>") == 2  # in the drill-down (folded) and in the table of every case
    assert "the first 8 of 18 seed groups" in page  # 3 seeds in 5 have "very" or "truly"
    drill = page[page.index("id='cap-VOC'") : page.index("id=all-failures")]
    assert ">s12</td>" in drill and ">s13</td>" not in drill  # the 8th group shown, the 9th not


def test_minimal_edits_from_the_cli_are_shown_in_the_report(tmp_path, capsys):
    from autocheck.report import write_html

    seed, both = "the kind film", "the very kind truly film"
    inserted = [{"word": "very", "tag": "RB", "offset": 4}, {"word": "truly", "tag": "RB", "offset": 14}]
    cases = [
        TestCase("s", "VOC", "seed", seed, "positive", "MFT", "positive"),
        TestCase(
            "s.1", "VOC", "expansion", both, "positive", "MFT", "positive", "s", (), {"inserted": inserted}
        ),
    ]
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases))
    module = tmp_path / "rule.py"
    module.write_text(
        "def predict(texts):\n    return [[0.9, 0.1] if 'truly' in t else [0.1, 0.9] for t in texts]\n"
    )
    spec = f"{module}:predict"
    run = tmp_path / "run"
    assert main(["run", str(tmp_path / "suite"), "--model", spec, "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(["explain", str(run), "--minimal-edits", "5"]) == 2
    assert "--minimal-edits needs --model" in capsys.readouterr().err
    assert main(["explain", str(run), "--model", spec, "--minimal-edits", "5"]) == 0
    assert "1 of 1 multi-change failures, 2 model calls (cap 5)" in capsys.readouterr().out
    assert main(["explain", str(run), "--model", spec, "--minimal-edits", "5"]) == 2  # never overwritten
    assert "minimal-edits.json: file exists" in capsys.readouterr().err
    page = write_html(run, tmp_path / "report.html", plots=False).read_text()
    assert (
        "minimal failing edit: “truly” alone (1 of 2 changes) → the kind truly film <b>negative</b>" in page
    )


def test_explanations_do_not_depend_on_the_order_of_the_prediction_rows(planted_run, tmp_path):
    before = explain_run(planted_run)
    path = planted_run / "predictions.jsonl"
    path.write_text("".join(reversed(path.read_text().splitlines(True))))
    assert explain_run(planted_run) == before
    path.write_text(
        path.read_text()
        + json.dumps({"case": "gone", "model": "rule", "capability": "FAIR", "outcome": "pass"})
        + "\n"
    )
    with pytest.raises(InputError, match="case 'gone' is not in .*cases.jsonl; the suite changed"):
        explain_run(planted_run)


def test_report_fail_above_sets_the_gate_of_the_verdict(planted_run, tmp_path, capsys):
    html = tmp_path / "gate.html"
    assert (
        main(["report", str(planted_run), "--html", str(html), "--no-plots", "--fail-above", "FAIR=0.1"]) == 0
    )
    assert (
        "1 of 1 capabilities fail beyond the gate (gate: failure rate above 10.0% for FAIR)"
        in html.read_text()
    )
    assert main(["report", str(planted_run), "--fail-above", "FAIR=2"]) == 2
    assert "--fail-above 'FAIR=2'" in capsys.readouterr().err
