"""benchmarks/panel.py's count of new failures (a case fails while its seed passes), which bench_yield.py and
the fuzz benchmarks report: on a hand-made suite and a rule model whose answers are known."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from panel import new_failures  # noqa: E402

from autocheck.models.callables import python_model  # noqa: E402
from autocheck.records import EXPANSION, PERTURBATION, SEED, TestCase  # noqa: E402
from autocheck.requirements import default_task  # noqa: E402
from autocheck.suite import write_suite  # noqa: E402


def case(id: str, text: str, kind: str = SEED, seed: str | None = None) -> TestCase:
    return TestCase(
        id=id, capability="LC1", kind=kind, inputs=text, expected="positive", test_type="MFT",
        label="positive", seed_id=seed,
    )  # fmt: skip


def positive_unless_odd(texts: list[str]) -> list[list[float]]:
    """Positive, except for a text with "odd" in it."""
    return [[0.9, 0.1] if "odd" in t else [0.1, 0.9] for t in texts]


positive_unless_odd.labels = ("negative", "positive")  # type: ignore[attr-defined]


def test_new_failures_are_failing_cases_whose_seed_passes(tmp_path):
    cases = [
        case("s1", "a good film"),
        case("s1-x1", "a good odd film", EXPANSION, "s1"),  # new: the seed passes
        case("s1-x2", "a good new film", EXPANSION, "s1"),  # passes
        case("s1-p1", "a good film odd", PERTURBATION, "s1"),  # new, a perturbation
        case("s2", "an odd film"),  # the seed fails
        case("s2-x1", "an odd old film", EXPANSION, "s2"),  # fails, but only repeats its seed
    ]
    write_suite(tmp_path / "suite", cases, {"task": default_task().to_json()})
    model = python_model(positive_unless_odd, default_task(), name="rule")
    found = new_failures(tmp_path / "suite", {"rule": model}, tmp_path / "run")["rule"]
    assert (found.cases, found.failures) == (4, 3)
    assert [r["case"] for r in found.rows] == ["s1-x1", "s1-p1"]
    assert found.seeds_broken == 1
    assert found.rows[0]["seed_text"] == "a good film" and found.rows[0]["text"] == "a good odd film"


def test_a_seed_counts_as_validly_broken_only_by_a_failure_read_grammatical_with_its_label(tmp_path, capsys):
    import json

    from fuzz_blind import count_valid

    work = tmp_path / "work"
    work.mkdir()
    rows = [  # a: one valid failure; b: grammatical, label lost; d: label kept, ungrammatical; c: unread
        ("fuzz", "a", "A film.", "A new film."),
        ("fuzz", "b", "B film.", "B no film."),
        ("fuzz", "d", "D film.", "D the film."),
        ("fuzz", "c", "C film.", "C long film."),
    ]
    with open(work / "failures.jsonl", "w") as f:
        for method, seed_id, seed_text, text in rows:
            row = {"method": method, "target": "toy", "seed_id": seed_id, "seed_text": seed_text}
            f.write(json.dumps(row | {"text": text, "expected": "positive"}) + "\n")
    labels = tmp_path / "labels.jsonl"
    read = {"A new film.": (True, True), "B no film.": (True, False), "D the film.": (False, True)}
    labels.write_text(
        "".join(
            json.dumps({"original": t[0] + " film.", "edited": t, "grammatical": g, "label_kept": k}) + "\n"
            for t, (g, k) in read.items()
        )
    )
    count_valid([work], [labels], str(tmp_path / "sheet"), seed=1)
    table = capsys.readouterr().out
    assert "| toy | fuzz | 4 | 3 | 4 | 1 | 1 |" in table  # a valid, b and d not, c not settled
    sheets = [json.loads(line) for s in "ab" for line in open(tmp_path / f"sheet-{s}.jsonl")]
    assert [row["edited"] for row in sheets] == ["C long film."] and "method" not in sheets[0]


def negative_if_very(texts: list[str]) -> list[list[float]]:
    """Positive, except for a text with "very" in it."""
    return [[0.9, 0.1] if "very" in t else [0.1, 0.9] for t in texts]


negative_if_very.labels = ("negative", "positive")  # type: ignore[attr-defined]


def test_transfer_counts_the_targets_new_failures_another_model_fails_among_those_whose_seed_it_passes(
    tmp_path,
):
    """bench_yield.py's transfer of a model-guided search (bench_fuzz.py's measure, on a suite): of the
    failures found on the target, how many another model fails too, over those whose seed it passes."""
    from bench_yield import transfer_of

    cases = [
        case("s1", "a good film"),  # both pass
        case("s1-x1", "a very odd film", EXPANSION, "s1"),  # the target's new failure, the other's too
        case("s1-x2", "an odd good film", EXPANSION, "s1"),  # the target's only
        case("s2", "a very good film"),  # the other fails the seed itself
        case("s2-x1", "a very good odd film", EXPANSION, "s2"),  # the target's; not counted for the other
        case("s3", "an odd film"),  # the target fails the seed itself
        case("s3-x1", "an odd very film", EXPANSION, "s3"),  # so not its new failure, though the other's
    ]
    write_suite(tmp_path / "suite", cases, {"task": default_task().to_json()})
    models = {
        "target": python_model(positive_unless_odd, default_task(), name="target"),
        "other": python_model(negative_if_very, default_task(), name="other"),
    }
    found = new_failures(tmp_path / "suite", {"target": models["target"]}, tmp_path / "run")["target"]
    assert transfer_of(tmp_path / "suite", found, models, "target") == {"other": "1/2 = 50% [9%–91%]"}
