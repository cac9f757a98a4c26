"""--precision: what ``auto`` resolves to, bf16 arithmetic on the CPU, precision in every cache key, and
the same bytes within a precision whatever the number of workers."""

from __future__ import annotations

import copy
import json
import sys
from dataclasses import replace

import pytest
import torch
from test_fill import VOCAB, tiny_bert_dir  # noqa: F401
from test_pipeline import small_dataset, stand_in_config  # noqa: F401

from autocheck import generate as generation
from autocheck.cli import main
from autocheck.config import GenerateConfig
from autocheck.expand import mlm as masked_lm
from autocheck.expand.fluency import FluencyScorer
from autocheck.expand.mlm import MaskedLM, cpu_runs_bf16, resolve_precision

CPU = torch.device("cpu")


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse avx512f avx512_bf16 avx512_vnni", True),
        ("fpu sse amx_bf16 amx_tile", True),
        ("fpu sse avx2 avx512f avx512bw", False),  # AVX-512 without BF16: bf16 only emulated
    ],
)
def test_native_bf16_is_read_from_the_cpu_flags(tmp_path, flags, native):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n\n")
    assert cpu_runs_bf16(cpuinfo) is native
    assert cpu_runs_bf16(tmp_path / "absent") is False  # no flags to read: auto stays fp32


def test_auto_picks_bf16_only_where_the_cpu_runs_it(monkeypatch):
    monkeypatch.setattr(masked_lm, "cpu_runs_bf16", lambda: True)
    assert resolve_precision("auto", CPU) == "bf16"
    monkeypatch.setattr(masked_lm, "cpu_runs_bf16", lambda: False)
    assert resolve_precision("auto", CPU) == "fp32"
    assert resolve_precision("bf16", CPU) == "bf16"  # asked for: kept (emulated where not native)
    with pytest.raises(ValueError, match="fp16 runs on CUDA only"):
        resolve_precision("fp16", CPU)
    with pytest.raises(ValueError, match="precision must be"):
        resolve_precision("fp8", CPU)


def test_auto_on_a_gpu_counts_native_bf16_only(monkeypatch):
    asked = []

    def supported(including_emulation=True):
        asked.append(including_emulation)
        return including_emulation  # a GPU that only emulates bf16

    monkeypatch.setattr(torch.cuda, "is_bf16_supported", supported)
    assert resolve_precision("auto", torch.device("cuda")) == "fp32"
    assert asked == [False]


def test_bf16_runs_in_bf16_on_the_cpu_and_is_cached_apart_from_fp32(tiny_bert_dir, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "cache"))
    fp32 = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu")
    bf16 = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    assert (fp32.precision, bf16.precision) == ("fp32", "bf16")
    assert fp32.describe()["precision"] == "fp32" and bf16.describe()["precision"] == "bf16"
    ids = torch.tensor([[VOCAB.index(w) for w in "[CLS] the [MASK] ran quickly . [SEP]".split()]])
    attention, at = torch.ones_like(ids), torch.tensor([2])
    a, b = fp32.log_probs_at(ids, attention, at), bf16.log_probs_at(ids, attention, at)
    assert not torch.equal(a, b) and torch.allclose(a, b, atol=0.1)  # bf16 arithmetic: close, not equal

    texts = ["the [MASK] ran quickly .", "this is a [MASK] movie ."]
    first = fp32.suggest_texts(texts, beam_size=3, top_n=3)
    assert fp32.forward_passes > 0
    assert bf16.suggest_texts(texts, beam_size=3, top_n=3) != first  # computed, not fp32's reused
    assert bf16.forward_passes > 0
    pairs = [("the dog ran very quickly .", "the dog ran quickly .")]
    one, other = FluencyScorer(fp32), FluencyScorer(bf16)
    assert one.deltas(pairs) != other.deltas(pairs)
    assert other.forward_rows > 0  # fp32's cached delta is not taken for bf16
    again = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    assert again.suggest_texts(texts, beam_size=3, top_n=3) == bf16.suggest_texts(texts, beam_size=3, top_n=3)
    assert again.forward_passes == 0  # bf16's own cache entries are reused
    # entries of the former bf16 passes (before the first layer at distinct tokens and the last layer's
    # attention at the masks) are keyed apart: never reused where their bits were not checked
    former = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    former.cache_identity = f"{former.identity}@bf16-weights"
    former.suggest_texts(["a [MASK] film ."], beam_size=3, top_n=3)
    now = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    now.suggest_texts(["a [MASK] film ."], beam_size=3, top_n=3)
    assert now.forward_passes > 0


@pytest.mark.skipif(not torch.ops.mkldnn._is_mkldnn_bf16_supported(), reason="no oneDNN bf16 in this torch")
def test_bf16_linear_weights_packed_once_give_the_same_scores(tiny_bert_dir, monkeypatch):  # noqa: F811
    packed = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    monkeypatch.setattr(masked_lm, "_pack_linear_weights", lambda model: None)
    plain = MaskedLM.from_pretrained(tiny_bert_dir, device="cpu", precision="bf16")
    kinds = {type(m).__name__ for m in packed.model.modules()}
    assert "_PackedLinear" in kinds and "Linear" not in kinds
    generator = torch.Generator().manual_seed(0)
    for rows, length in [(1, 5), (3, 9), (17, 12)]:  # the passes' shapes vary; every row the same bits
        ids = torch.randint(5, len(VOCAB), (rows, length), generator=generator)
        attention = torch.ones_like(ids)
        attention[rows // 2 :, length - 2 :] = 0
        at = torch.randint(1, length - 2, (rows,), generator=generator)
        assert torch.equal(packed.log_probs_at(ids, attention, at), plain.log_probs_at(ids, attention, at))


def test_precision_option_reaches_the_config_and_only_a_non_default_one_the_settings():
    from autocheck.cli import _config, build_parser

    args = build_parser().parse_args(["generate", "--out", "x", "--precision", "auto"])
    assert _config(args, expand=True).precision == "auto"
    assert "precision" not in GenerateConfig().settings()  # fp32: the keys of earlier runs stay valid
    assert GenerateConfig(precision="bf16").settings()["precision"] == "bf16"
    assert GenerateConfig(precision="bf16").fingerprint() != GenerateConfig().fingerprint()


def test_a_bad_precision_is_a_one_line_error(capsys):
    assert main(["generate", "--out", "x", "--precision", "fp8"]) == 2
    err = capsys.readouterr().err
    assert "--precision" in err and "invalid choice: 'fp8'" in err and len(err.strip().splitlines()) == 1


@pytest.mark.shared_data
@pytest.mark.slow
def test_bf16_suites_are_byte_identical_across_workers_and_record_the_precision(
    stand_in_config,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    config = replace(stand_in_config, precision="bf16", unit_size=1)
    one = generation.generate(config, tmp_path / "one")
    assert sum(c.expansions for c in one.counts.values()) > 0
    monkeypatch.setenv("AUTOCHECK_CACHE", str(tmp_path / "other-cache"))  # nothing reused
    generation.generate(config, tmp_path / "two", workers=2)
    for name in ("cases.jsonl", "manifest.json"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()
    manifest = json.loads((tmp_path / "one/manifest.json").read_text())
    assert manifest["resources"]["mlm"]["precision"] == "bf16"
    assert manifest["settings"]["precision"] == "bf16"
    # the same run in fp32 keeps other fills: bf16 is a choice, not the default
    generation.generate(stand_in_config, tmp_path / "fp32")
    assert (tmp_path / "fp32/cases.jsonl").read_bytes() != (tmp_path / "one/cases.jsonl").read_bytes()


def test_attention_on_cuda_leaves_out_cudnn_and_restores_the_setting():
    """cuDNN's attention builds a graph per new shape (bf16 passes several times slower than fp32 on an
    H100): the masked LM's passes on CUDA use the other kernels; the process-wide setting is restored."""
    from autocheck.expand.mlm import _attention_without_cudnn

    before = torch.backends.cuda.cudnn_sdp_enabled()
    with _attention_without_cudnn(torch.device("cuda")):  # sets torch's flags: no GPU needed to check
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.cudnn_sdp_enabled() == before
    with _attention_without_cudnn(torch.device("cpu")):
        assert torch.backends.cuda.cudnn_sdp_enabled() == before


def test_an_explicit_bf16_is_resolved_without_importing_torch(monkeypatch):
    """A parent that imported torch spawns its workers (each imports everything again) instead of forking."""
    from autocheck.expand.job import _resolved_precision

    monkeypatch.setitem(sys.modules, "autocheck.expand.mlm", None)  # importing it (and torch) fails
    assert _resolved_precision("bf16", "auto") == "bf16"
    assert _resolved_precision("fp32", "auto") == "fp32"


def peaked_bert(tiny_bert_dir):  # noqa: F811
    """The tiny BERT's tokenizer and a model of heads of 64, as the stand-in's and BERT's, and weights large
    enough for peaked attention: where attention for the masks alone (another kernel path) would differ in
    its last bits. Each MaskedLM casts (and in bf16 rebuilds) the model it is given."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(VOCAB), hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=256, max_position_embeddings=80, initializer_range=0.5,
    )  # fmt: skip
    return BertTokenizer.from_pretrained(tiny_bert_dir), BertForMaskedLM(config)


@pytest.mark.skipif(not torch.ops.mkldnn._is_mkldnn_bf16_supported(), reason="no oneDNN bf16 in this torch")
def test_bf16_last_layer_at_the_masks_only_gives_the_same_scores(tiny_bert_dir, monkeypatch):  # noqa: F811
    tokenizer, model = peaked_bert(tiny_bert_dir)
    assert not MaskedLM(tokenizer, copy.deepcopy(model), "fp32", "cpu")._last_layer_at_masks  # as it was
    at_masks = MaskedLM(tokenizer, copy.deepcopy(model), "at-masks", "cpu", precision="bf16")
    assert at_masks._last_layer_at_masks
    monkeypatch.setattr(masked_lm, "_last_layer_at_masks", lambda model: False)
    whole = MaskedLM(tokenizer, model, "whole", "cpu", precision="bf16")
    generator = torch.Generator().manual_seed(0)
    for rows, length in [(1, 5), (3, 9), (64, 70), (300, 20)]:
        ids = torch.randint(5, len(VOCAB), (rows, length), generator=generator)
        attention = torch.ones_like(ids)
        attention[rows // 2 :, length - 2 :] = 0
        at = torch.randint(1, length - 2, (rows,), generator=generator)
        assert torch.equal(at_masks.log_probs_at(ids, attention, at), whole.log_probs_at(ids, attention, at))


@pytest.mark.skipif(not torch.ops.mkldnn._is_mkldnn_bf16_supported(), reason="no oneDNN bf16 in this torch")
def test_bf16_first_layer_projections_per_distinct_token_give_the_same_scores(tiny_bert_dir, monkeypatch):  # noqa: F811
    tokenizer, model = peaked_bert(tiny_bert_dir)
    assert not MaskedLM(tokenizer, copy.deepcopy(model), "fp32", "cpu")._first_layer_at_distinct_tokens
    distinct = MaskedLM(tokenizer, copy.deepcopy(model), "distinct", "cpu", precision="bf16")
    assert distinct._first_layer_at_distinct_tokens
    monkeypatch.setattr(masked_lm, "_first_layer_at_distinct_tokens", lambda model: False)
    whole = MaskedLM(tokenizer, model, "whole", "cpu", precision="bf16")
    projected = []  # the tokens each first-layer projection multiplied

    class Counted(torch.nn.Module):
        def __init__(self, linear):
            super().__init__()
            self.linear = linear

        def forward(self, x):
            projected.append(x.shape[:-1].numel())
            return self.linear(x)

    projections = distinct.model.base_model.encoder.layer[0].attention.self
    for name in ("query", "key", "value"):
        getattr(projections, name).linear = Counted(getattr(projections, name).linear)
    generator = torch.Generator().manual_seed(0)
    for templates, beams, length in [(1, 1, 5), (3, 4, 9), (4, 16, 30)]:
        # a beam step's rows: each template's beams differ at their filled mask (position 2) only
        ids = torch.randint(5, len(VOCAB), (templates, 1, length), generator=generator).repeat(1, beams, 1)
        ids[:, :, 2] = torch.randint(5, len(VOCAB), (templates, beams), generator=generator)
        ids = ids.flatten(0, 1)
        attention = torch.ones_like(ids)
        attention[len(ids) // 2 :, length - 2 :] = 0  # padding at the end of half the rows
        at = torch.full((len(ids),), 3)
        assert torch.equal(distinct.log_probs_at(ids, attention, at), whole.log_probs_at(ids, attention, at))
        tokens = len(torch.unique(ids * length + torch.arange(length)))
        assert projected == [tokens] * 3  # query, key and value at the distinct tokens only
        projected.clear()
