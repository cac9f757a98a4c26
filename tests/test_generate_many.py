"""Many capabilities in one generate run: one process, the models loaded once, each capability's own
stage times in timings.json beside its counts in the manifest."""

from __future__ import annotations

import json

import pytest
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import generate as generation
from autocheck.expand import mlm as masked_lm
from autocheck.expand import parsing

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


def test_capabilities_share_one_set_of_models_and_report_their_own_times(
    stand_in_config,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    loads = {"mlm": 0, "parser": 0}
    real_mlm, real_parser = masked_lm.MaskedLM.from_pretrained.__func__, parsing.Parser.__init__

    def mlm(cls, *args, **kwargs):
        loads["mlm"] += 1
        return real_mlm(cls, *args, **kwargs)

    def parser(self, *args, **kwargs):
        loads["parser"] += 1
        real_parser(self, *args, **kwargs)

    masked_lm._shared_masked_lm.cache_clear()  # a model an earlier test loaded would not be loaded again
    monkeypatch.setattr(masked_lm.MaskedLM, "from_pretrained", classmethod(mlm))
    monkeypatch.setattr(parsing.Parser, "__init__", parser)
    summary = generation.generate(stand_in_config, tmp_path / "suite")
    assert loads == {"mlm": 1, "parser": 1}  # three capabilities, one set of models

    manifest = json.loads((tmp_path / "suite/manifest.json").read_text())
    timings = json.loads((tmp_path / "suite/timings.json").read_text())
    assert set(manifest["counts"]) == set(timings["capabilities"]) == {"LC2", "LC4", "LC9"}
    for capability, counts in manifest["counts"].items():
        own = timings["capabilities"][capability]
        assert own["parse"] > 0 and own["differentiate"] > 0
        if counts["masked_templates"]:
            assert own["fill"] > 0
    # the shares add up to the stages' totals
    for stage in ("parse", "differentiate", "fill"):
        shares = sum(t.get(stage, 0.0) for t in timings["capabilities"].values())
        assert shares == pytest.approx(timings[stage], abs=0.01)
    assert sum(c.expansions for c in summary.counts.values()) > 0
