"""The fluency score's window: which tokens it scores, and ``--fluency-window`` reaching the scorer, its
cache key, the expansions' provenance and the manifest."""

from __future__ import annotations

import json
from dataclasses import replace
from statistics import fmean

import pytest
import torch
from test_fill import _full_pll, tiny_bert, tiny_bert_dir  # noqa: F401  (the tiny random-weight BERT)
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import generate as generation
from autocheck.expand.fluency import DEFAULT_WINDOW, FluencyScorer

torch.set_num_threads(1)

SEED, TEXT = "the dog ran quickly .", "the dog ran very quickly ."  # "very" is the text's token 3


def test_window_zero_scores_the_inserted_tokens_alone(tiny_bert):  # noqa: F811
    text_pll = _full_pll(tiny_bert, TEXT)
    scorer = FluencyScorer(tiny_bert, window=0)
    assert scorer.deltas([(TEXT, SEED)]) == [pytest.approx(text_pll[3], abs=2e-4)]
    assert scorer.forward_rows == 1  # "very" only: no neighbour, no seed token
    two = "the dog ran very quickly fast ."  # two insertions: the mean of their PLLs
    assert FluencyScorer(tiny_bert, window=0).deltas([(two, SEED)]) == [
        pytest.approx(sum(_full_pll(tiny_bert, two)[3:6:2]) / 2, abs=2e-4)
    ]


@pytest.mark.parametrize("window", [1, 2])
def test_a_window_scores_that_many_neighbours_each_side_against_the_seed(tiny_bert, window):  # noqa: F811
    seed_pll, text_pll = _full_pll(tiny_bert, SEED), _full_pll(tiny_bert, TEXT)
    # the text's tokens 3 - window .. 3 + window; the same neighbours are the seed's 3 - window .. 2 + window
    expected = fmean(text_pll[3 - window : 4 + window]) - fmean(seed_pll[3 - window : 3 + window])
    scorer = FluencyScorer(tiny_bert, window=window)
    assert scorer.deltas([(TEXT, SEED)]) == [pytest.approx(expected, abs=2e-4)]
    assert scorer.forward_rows == (1 + 2 * window) + 2 * window


def test_no_window_scores_every_token(tiny_bert):  # noqa: F811
    seed_pll, text_pll = _full_pll(tiny_bert, SEED), _full_pll(tiny_bert, TEXT)
    scorer = FluencyScorer(tiny_bert, window=None)
    assert scorer.deltas([(TEXT, SEED)]) == [pytest.approx(fmean(text_pll) - fmean(seed_pll), abs=2e-4)]
    assert scorer.forward_rows == len(text_pll) + len(seed_pll)


def test_the_window_is_in_the_cache_key(tiny_bert, tmp_path, monkeypatch):  # noqa: F811
    """A delta cached for one window is not taken for another's."""
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "cache"))
    wide = FluencyScorer(tiny_bert, window=1).deltas([(TEXT, SEED)])
    narrow = FluencyScorer(tiny_bert, window=0)
    assert narrow.deltas([(TEXT, SEED)]) != wide and narrow.forward_rows == 1
    again = FluencyScorer(tiny_bert, window=0)
    assert again.deltas([(TEXT, SEED)]) == narrow.deltas([(TEXT, SEED)]) and again.forward_rows == 0


def test_the_fluency_window_option_reaches_the_config():
    from autocheck.cli import _config, build_parser
    from autocheck.config import GenerateConfig

    def parsed(*extra: str) -> GenerateConfig:
        args = build_parser().parse_args(["generate", "--dataset", "d.csv", "--out", "o", *extra])
        return _config(args, expand=True)

    assert parsed().fluency_window == DEFAULT_WINDOW == 0
    assert parsed("--fluency-window", "2").fluency_window == 2
    with pytest.raises(SystemExit):  # a negative window is refused by the option's parser
        parsed("--fluency-window", "-1")
    # in the fingerprint (chunk cache, --resume) while the filter is on; with it off it changes nothing,
    # and suites made before the option keep their fingerprint
    on = GenerateConfig(fluency_threshold=1.0)
    assert on.fingerprint() != replace(on, fluency_window=1).fingerprint()
    assert "fluency_window" not in GenerateConfig().settings()
    assert GenerateConfig().fingerprint() == GenerateConfig(fluency_window=1).fingerprint()


def test_the_fluency_window_reaches_the_scorer_and_the_manifest(stand_in_config, tmp_path):  # noqa: F811
    """A run with the filter on: each expansion records the window it was scored with, the manifest the
    setting, and another window scores (so keeps) differently."""
    scores = {}
    for window in (0, 2):
        config = replace(stand_in_config, fluency_threshold=100.0, fluency_window=window)
        generation.generate(config, tmp_path / str(window))
        cases = [
            json.loads(line) for line in (tmp_path / str(window) / "cases.jsonl").read_text().splitlines()
        ]
        fluency = [c["provenance"]["fluency"] for c in cases if c["kind"] == "expansion"]
        assert fluency and all(f["window"] == window for f in fluency)
        manifest = json.loads((tmp_path / str(window) / "manifest.json").read_text())
        assert manifest["settings"]["fluency_window"] == window
        scores[window] = [f["pll_delta"] for f in fluency]
    assert scores[0] != scores[2]


def test_the_study_s_tree_score_and_cut():
    """bench_validity's fluency study: the parser's best-tree score (its CKY over span scores, the root
    labelled) and the tuning half's cut (the best Youden's J, the higher cut on a tie)."""
    import sys
    from pathlib import Path

    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_validity import best_tree_score, youden_cut

    scores = np.zeros((2, 2, 2))  # (left, right - 1, label); label 0 is the empty one
    scores[0, 0] = [0.0, 1.0]  # the first word: labelled, +1
    scores[1, 1] = [1.0, -1.0]  # the second: empty is better by 2
    scores[0, 1] = [0.0, -0.5]  # the root must take a label even at a loss
    assert best_tree_score(scores) == pytest.approx(1.0 + 0.0 - 0.5)
    assert youden_cut([3, 2, 1, 0], [True, True, False, False]) == 2
    assert youden_cut([3, 2, 1, 0], [True, False, True, False]) == 3  # J 0.5 at 3 and at 1
