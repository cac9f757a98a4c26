"""benchmarks/yield_blind.py's A/B reading: ``draw`` samples each design's suite in the sample format that
``split`` shuffles, ``compare`` pools the labels by which designs make each text."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from yield_blind import compare, draw, score, split  # noqa: E402


def suite(path: Path, texts: list[str]) -> Path:
    """A suite of one seed ("a film") and one expansion per text."""
    path.mkdir()
    cases = [{"id": "s", "kind": "seed", "text": "a film", "expected": "positive", "seed_id": None}]
    cases += [
        {"id": f"s-x{n}", "kind": "expansion", "text": t, "expected": "positive", "seed_id": "s"}
        for n, t in enumerate(texts)
    ]
    (path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    return path


def test_draw_samples_each_suites_expansions_the_same_way_every_time(tmp_path):
    texts = [f"a film number {n}" for n in range(10)]
    a = suite(tmp_path / "A", texts)
    draw([a], 3, seed=1, out=tmp_path / "one")
    draw([a], 3, seed=1, out=tmp_path / "two")
    first = (tmp_path / "one" / "arm_A.jsonl").read_text(encoding="utf-8")
    assert first == (tmp_path / "two" / "arm_A.jsonl").read_text(encoding="utf-8")  # 1 in 720 by chance
    rows = [json.loads(line) for line in first.splitlines()]
    assert len(rows) == 3 and {r["seed_text"] for r in rows} == {"a film"}
    assert len({r["text"] for r in rows} & set(texts)) == 3


def test_compare_pools_labels_by_the_designs_that_make_each_text(tmp_path, capsys):
    a = suite(tmp_path / "A", ["a new film", "an old film"])
    b = suite(tmp_path / "B", ["a new film", "a red film"])
    draw([a, b], 2, seed=1, out=tmp_path / "arms")
    split(sorted((tmp_path / "arms").glob("arm_*.jsonl")), str(tmp_path / "blind"), seed=3, readers=1)
    sheet = [json.loads(line) for line in (tmp_path / "blind-0.jsonl").read_text().splitlines()]
    natural = {"a new film", "an old film"}  # the reader finds the red film odd
    labels = [
        {"id": r["id"], "grammatical": True, "natural": r["edited"] in natural, "label_kept": True}
        for r in sheet
    ]
    (tmp_path / "blind-0.labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    score(str(tmp_path / "blind"), str(tmp_path / "labelled_%s.jsonl"))
    capsys.readouterr()
    compare(a, b, sorted(tmp_path.glob("labelled_*.jsonl")))
    out = capsys.readouterr().out
    # "a new film" is made by both and read twice (once per arm), the others by one design, read once
    assert out.splitlines() == [
        "made by both: 1 expansions, 2 labels on 1 of them",
        "  grammatical  100.0%  (34.2%-100.0%)",
        "  natural      100.0%  (34.2%-100.0%)",
        "  label_kept   100.0%  (34.2%-100.0%)",
        "only by A: 1 expansions, 1 labels on 1 of them",
        "  grammatical  100.0%  (20.7%-100.0%)",
        "  natural      100.0%  (20.7%-100.0%)",
        "  label_kept   100.0%  (20.7%-100.0%)",
        "only by B: 1 expansions, 1 labels on 1 of them",
        "  grammatical  100.0%  (20.7%-100.0%)",
        "  natural        0.0%  (0.0%-79.3%)",
        "  label_kept   100.0%  (20.7%-100.0%)",
    ]
