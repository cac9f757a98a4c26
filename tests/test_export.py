from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from autocheck.export import SPLITS, export_suite, load_export
from autocheck.outputs.label import map_expected
from autocheck.records import TestCase
from autocheck.store import InputError, JsonlWriter


def make_suite(path: Path) -> Path:
    """Three capabilities with different label shapes; every seed has 0-4 expansions."""
    cases: list[TestCase] = []
    shapes = {"LC2": ["positive", "negative"], "LC4": [("neutral", "positive")], "LC5": ["neutral"]}
    for cap, expectations in shapes.items():
        for k in range(60):
            expected = expectations[k % len(expectations)]
            label = expected if isinstance(expected, str) else "negative"
            seed_id = f"{cap}-s{k}"
            cases.append(TestCase(seed_id, cap, "seed", f"{cap} seed {k}.", expected, "MFT", label))
            for e in range(k % 5):
                text = f"{cap} seed {k} variant {e}."
                cases.append(
                    TestCase(f"{seed_id}-e{e}", cap, "expansion", text, expected, "MFT", label, seed_id)
                )
            if k % 10 == 0:  # an INV pair per tenth seed: never exported
                cases.append(TestCase(f"{seed_id}-inv", cap, "expansion", "x", None, "INV", label, seed_id))
    path.mkdir(parents=True, exist_ok=True)
    with JsonlWriter(path / "cases.jsonl") as writer:
        writer.write_all(c.to_json() for c in cases)
    (path / "manifest.json").write_text("{}")
    return path


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return make_suite(tmp_path / "suite")


def test_map_expected_rules():
    binary, three = ("negative", "positive"), ("negative", "neutral", "positive")
    assert map_expected(("neutral", "positive"), binary, "hard") == (1, [0.0, 1.0])
    assert map_expected(("negative", "neutral"), binary, "hard") == (0, [1.0, 0.0])
    assert map_expected("neutral", binary, "hard") == "no label in the label space"
    assert map_expected("neutral", three, "hard") == (1, [0.0, 1.0, 0.0])
    assert map_expected(("neutral", "positive"), three, "hard") == "ambiguous label set"
    assert map_expected(("neutral", "positive"), binary, "drop") == "label set dropped"
    assert map_expected(("neutral", "positive"), three, "soft") == (-1, [0.0, 0.5, 0.5])
    assert map_expected("neutral", binary, "soft") == (-1, [0.5, 0.5])
    assert map_expected(None, binary, "hard") == "no single label (INV/DIR)"
    assert (
        map_expected({"label": "positive", "direction": "up"}, binary, "soft") == "no single label (INV/DIR)"
    )


def test_split_ratios_stratification_and_grouping(suite, tmp_path):
    summary = export_suite(suite, tmp_path / "out")
    _, splits = load_export(tmp_path / "out")
    # LC5 (plain neutral) has no binary label; the INV cases are left out and counted.
    assert summary["left_out"]["LC5"] == {"no label in the label space": 180, "no single label (INV/DIR)": 6}
    assert summary["left_out"]["LC2"] == {"no single label (INV/DIR)": 6}
    assert summary["mapped_from_sets"]["LC4"] == {"neutral|positive->positive": 180}
    split_of_group: dict[str, str] = {}
    per_stratum: dict[tuple[str, int], Counter[str]] = defaultdict(Counter)
    for name, rows in splits.items():
        assert summary["totals"][name] == len(rows)
        for row in rows:
            assert split_of_group.setdefault(row["group"], name) == name  # a seed group never splits
            per_stratum[row["capability"], row["label"]][name] += 1
    assert set(per_stratum) == {("LC2", 0), ("LC2", 1), ("LC4", 1)}
    for counts in per_stratum.values():
        total = sum(counts.values())
        for name, share in zip(SPLITS, (0.8, 0.1, 0.1)):
            assert abs(counts[name] / total - share) < 0.06, (counts, name)


def test_deterministic_and_seed_dependent(suite, tmp_path):
    export_suite(suite, tmp_path / "a", seed=3)
    export_suite(suite, tmp_path / "b", seed=3)
    export_suite(suite, tmp_path / "c", seed=4)
    for name in SPLITS:
        a = (tmp_path / "a" / f"{name}.jsonl").read_bytes()
        assert a == (tmp_path / "b" / f"{name}.jsonl").read_bytes()
    assert (tmp_path / "a" / "test.jsonl").read_bytes() != (tmp_path / "c" / "test.jsonl").read_bytes()


def test_three_class_soft_and_csv(suite, tmp_path):
    space = ("negative", "neutral", "positive")
    summary = export_suite(suite, tmp_path / "out", format="csv", label_space=space, set_label_rule="soft")
    _, splits = load_export(tmp_path / "out")
    rows = [r for rows in splits.values() for r in rows]
    assert len(rows) == sum(summary["totals"].values()) == 3 * 60 + 3 * 120
    lc4 = [r for r in rows if r["capability"] == "LC4"]
    assert all(r["label"] == -1 and r["soft_label"] == [0.0, 0.5, 0.5] for r in lc4)
    assert {r["label_name"] for r in rows if r["capability"] == "LC5"} == {"neutral"}


def test_hf_round_trip(suite, tmp_path):
    datasets = pytest.importorskip("datasets")
    summary = export_suite(suite, tmp_path / "hf", format="hf", split=(2, 1, 1))
    loaded = datasets.load_from_disk(str(tmp_path / "hf"))
    assert set(loaded) == set(SPLITS)
    assert {name: len(loaded[name]) for name in SPLITS} == summary["totals"]
    assert loaded["train"].features["label"].names == ["negative", "positive"]
    _, splits = load_export(tmp_path / "hf")
    jsonl_summary = export_suite(suite, tmp_path / "jsonl", split=(2, 1, 1))
    _, jsonl_splits = load_export(tmp_path / "jsonl")
    assert jsonl_summary["totals"] == summary["totals"]
    assert splits["test"] == jsonl_splits["test"]


def test_refuses_to_overwrite(suite, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        export_suite(suite, out)
    with pytest.raises(InputError, match=r"did not write \(notes\.txt\)"):
        export_suite(suite, out, overwrite=True)
    (out / "notes.txt").unlink()
    export_suite(suite, out)
    with pytest.raises(InputError, match="not empty"):
        export_suite(suite, out)
    summary = export_suite(suite, out, overwrite=True, split=(1, 0, 1))
    assert summary["totals"]["validation"] == 0
    assert json.loads((out / "export_summary.json").read_text())["split"] == [1, 0, 1]


@pytest.mark.parametrize("fmt", ["hf", "jsonl", "csv"])
@pytest.mark.parametrize("split", [(1, 0, 0), (1, 1, 0), (0, 0, 1)])
def test_empty_splits_export_and_load_in_every_format(suite, tmp_path, fmt, split):
    pytest.importorskip("datasets")
    out = tmp_path / f"{fmt}-{''.join(map(str, split))}"
    summary = export_suite(suite, out, format=fmt, split=split)
    empty = [name for name, ratio in zip(SPLITS, split) if ratio == 0]
    assert all(summary["totals"][name] == 0 for name in empty)
    _, splits = load_export(out)
    assert sum(map(len, splits.values())) == sum(summary["totals"].values()) > 0
    assert all(splits[name] == [] for name in empty)
