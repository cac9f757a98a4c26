"""A small hand-made sentiment suite (MFT with expansions, MFT, INV perturbations) with a manifest, and two
toy models whose failures and flips are known, for the report and compare tests."""

from __future__ import annotations

import json
from pathlib import Path

from autocheck.models import CallableModel
from autocheck.records import TestCase

SCRIPT = "<script>alert('x')</script> fine"
EXPANDED = "<script>alert('x')</script> really fine"

MANIFEST = {
    "fingerprint": "hand-made-1",
    "capabilities": {
        "LC2": {
            "capability": "Vocabulary",
            "description": "Positive sentences <b>stay</b> positive",
            "test_type": "MFT",
        },
        "LC4": {
            "capability": "Negation",
            "description": "Negated negative should be positive or neutral",
            "test_type": "MFT",
            "expected": {"negative": ["neutral", "positive"]},
        },
        "ROB": {
            "capability": "Robustness",
            "description": "A typo does not change the sentiment",
            "test_type": "INV",
            "perturb": {"name": "typos", "options": {}},
        },
    },
}


def cases() -> list[TestCase]:
    inserted = {"inserted": [{"word": "really", "tag": "RB", "offset": EXPANDED.index("really")}]}
    truly = {"inserted": [{"word": "truly", "tag": "RB", "offset": 2}]}
    pos, neg_ok = "positive", ("neutral", "positive")
    return [
        TestCase("s1", "LC2", "seed", SCRIPT, pos, "MFT", pos),
        TestCase("s1.1", "LC2", "expansion", EXPANDED, pos, "MFT", pos, "s1", (), inserted),
        TestCase("s3", "LC2", "seed", "a lovely film", pos, "MFT", pos),
        TestCase("s3.1", "LC2", "expansion", "a truly lovely film", pos, "MFT", pos, "s3", (), truly),
        TestCase("s4", "LC2", "seed", "bad film", pos, "MFT", pos),
        TestCase("s4.1", "LC2", "expansion", "baad film", pos, "MFT", pos, "s4"),
        TestCase("n1", "LC4", "seed", "not a good film", neg_ok, "MFT", "negative"),
        TestCase("n2", "LC4", "seed", "not a bad film", neg_ok, "MFT", "negative"),
        TestCase("r1", "ROB", "seed", "the plot works", None, "INV", pos),
        TestCase("r1~1", "ROB", "perturbation", "the plto works", None, "INV", pos, "r1"),
        TestCase("r2", "ROB", "seed", "great script", None, "INV", pos),
        TestCase("r2~1", "ROB", "perturbation", "great scirpt", None, "INV", pos, "r2"),
    ]


def write_suite(path: Path, manifest: dict | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "cases.jsonl").write_text("".join(json.dumps(c.to_json()) + "\n" for c in cases()))
    (path / "manifest.json").write_text(json.dumps(manifest or MANIFEST))
    return path


def keyword_model(name: str, negative_words: tuple[str, ...]) -> CallableModel:
    """Negative (P = 0.9/0.1) when a text holds one of ``negative_words``, else positive."""

    def predict(texts):
        return [[0.9, 0.1] if any(w in t for w in negative_words) else [0.1, 0.9] for t in texts]

    return CallableModel(name, predict)


def toy():
    """Fails s1, s1.1, s3.1 (truly), s4, n2; ROB r2 (script → scirpt changes the label)."""
    return keyword_model("toy", ("script", "bad", "truly"))


def other(name: str = "other"):
    """Against toy: n1 pass → fail (good), s3.1 fail → pass (no 'truly')."""
    return keyword_model(name, ("script", "bad", "good"))
