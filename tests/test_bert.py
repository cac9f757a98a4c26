"""The BERT masked LM of ``expand/bert.py``: transformers' bits, transformers' checkpoints, and no import of
transformers' model classes; other checkpoints still go through transformers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import torch
from safetensors.torch import load_file, save_file
from test_fill import VOCAB, tiny_bert_dir  # noqa: F401

from autocheck.expand import bert
from autocheck.expand.checkpoint import bert_files, plain_bert_config, preload_modules
from autocheck.expand.mlm import MaskedLM

bf16 = pytest.mark.skipif(not torch.ops.mkldnn._is_mkldnn_bf16_supported(), reason="no oneDNN bf16 in torch")


@pytest.fixture(scope="module")
def peaked_dir(tmp_path_factory, tiny_bert_dir):  # noqa: F811
    """A BERT saved by transformers with heads of 64, as BERT's, and weights large enough for peaked
    attention, where another order of operations would show in the last bits."""
    from transformers import BertConfig, BertForMaskedLM, BertTokenizer

    directory = tmp_path_factory.mktemp("peaked-bert")
    BertTokenizer.from_pretrained(tiny_bert_dir).save_pretrained(directory)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(VOCAB), hidden_size=256, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=256, max_position_embeddings=80, initializer_range=0.5,
    )  # fmt: skip
    BertForMaskedLM(config).save_pretrained(directory)
    return directory


def batches():
    """Random rows of several shapes, each once without padding and once with half its rows padded."""
    generator = torch.Generator().manual_seed(0)
    for rows, length in [(1, 5), (3, 9), (17, 30), (64, 70)]:
        ids = torch.randint(5, len(VOCAB), (rows, length), generator=generator)
        positions = torch.randint(1, length - 2, (rows,), generator=generator)
        padded = torch.ones_like(ids)
        padded[rows // 2 :, length - 2 :] = 0
        yield ids, torch.ones_like(ids), positions
        yield ids, padded, positions


def transformers_model(directory, dtype=torch.float32):
    from transformers import AutoModelForMaskedLM

    return AutoModelForMaskedLM.from_pretrained(directory).to(dtype).eval()


@pytest.mark.parametrize("dtype", [torch.float32, pytest.param(torch.bfloat16, marks=bf16)])
def test_hidden_states_and_logits_are_transformers_bits(peaked_dir, dtype):
    theirs = transformers_model(peaked_dir, dtype)
    ours = bert.load_bert_mlm(peaked_dir)
    assert isinstance(ours, bert.BertForMaskedLM)
    ours = ours.to(dtype)
    with torch.inference_mode():
        for ids, attention, _ in batches():
            expected = theirs.bert(input_ids=ids, attention_mask=attention).last_hidden_state
            assert torch.equal(ours.bert(input_ids=ids, attention_mask=attention).last_hidden_state, expected)
            expected = theirs(input_ids=ids, attention_mask=attention).logits
            assert torch.equal(ours(input_ids=ids, attention_mask=attention).logits, expected)


@pytest.mark.parametrize("precision", ["fp32", pytest.param("bf16", marks=bf16)])
def test_masked_lm_scores_are_the_same_with_its_speed_ups(peaked_dir, precision):
    ours = MaskedLM.from_pretrained(peaked_dir, device="cpu", precision=precision)
    assert isinstance(ours.model, bert.BertForMaskedLM)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(peaked_dir)
    theirs = MaskedLM(tokenizer, transformers_model(peaked_dir), ours.identity, "cpu", precision=precision)
    speed_ups = ("_last_layer_at_masks", "_first_layer_at_distinct_tokens")
    assert [getattr(ours, s) for s in speed_ups] == [getattr(theirs, s) for s in speed_ups]
    assert all(getattr(ours, s) for s in speed_ups) == (precision == "bf16")
    for ids, attention, positions in batches():
        assert torch.equal(
            ours.log_probs_at(ids, attention, positions), theirs.log_probs_at(ids, attention, positions)
        )


def test_tensorflow_era_names_a_pooler_and_a_saved_decoder_load_as_transformers_reads_them(
    peaked_dir, tmp_path
):
    directory = tmp_path / "old-names"
    shutil.copytree(peaked_dir, directory)
    weights = load_file(str(directory / "model.safetensors"))
    renamed = {
        name.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): w
        for name, w in weights.items()
    }
    assert renamed.keys() != weights.keys()
    word_embeddings = weights["bert.embeddings.word_embeddings.weight"]
    renamed |= {
        "cls.predictions.decoder.weight": word_embeddings.clone(),  # a saved copy of the tied weight
        "bert.pooler.dense.weight": torch.zeros(256, 256),
        "bert.pooler.dense.bias": torch.zeros(256),
        "cls.seq_relationship.weight": torch.zeros(2, 256),
        "cls.seq_relationship.bias": torch.zeros(2),
    }
    save_file(renamed, str(directory / "model.safetensors"))
    model, theirs = bert.load_bert_mlm(directory), transformers_model(directory)
    assert model is not None
    assert model.cls.predictions.decoder.weight is model.bert.embeddings.word_embeddings.weight
    with torch.inference_mode():
        for ids, attention, _ in batches():
            expected = theirs(input_ids=ids, attention_mask=attention).logits
            assert torch.equal(model(input_ids=ids, attention_mask=attention).logits, expected)


def test_other_checkpoints_go_through_transformers(peaked_dir, tmp_path):
    assert bert_files(peaked_dir, local_only=True) == (peaked_dir, None)
    config = json.loads((peaked_dir / "config.json").read_text())
    absent = {key: value for key, value in config.items() if key != "architectures"}
    for alone in (absent, config | {"architectures": None}):  # BERT's config without architectures
        (tmp_path / "config.json").write_text(json.dumps(alone))
        assert plain_bert_config(tmp_path / "config.json") is not None
    assert "autocheck.expand.bert" in preload_modules(peaked_dir)
    changes = [
        {"hidden_act": "gelu_new"},
        {"position_embedding_type": "relative_key"},
        {"model_type": "roberta"},
        {"architectures": ["BertForPreTraining"]},
        {"is_decoder": True},
    ]
    for change in changes:
        directory = tmp_path / next(iter(change))
        shutil.copytree(peaked_dir, directory)
        (directory / "config.json").write_text(json.dumps(config | change))
        assert plain_bert_config(directory / "config.json") is None, change
        assert bert_files(directory, local_only=True) is None
        assert "transformers.modeling_utils" in preload_modules(directory)
    directory = tmp_path / "hidden_act"
    loaded = MaskedLM.from_pretrained(directory, device="cpu")
    assert not isinstance(loaded.model, bert.BertForMaskedLM)
    assert type(loaded.model).__module__.startswith("transformers.")

    missing = tmp_path / "missing-tensor"  # weights that do not fit a plain BERT
    shutil.copytree(peaked_dir, missing)
    weights = load_file(str(missing / "model.safetensors"))
    del weights["bert.encoder.layer.1.output.dense.bias"]
    save_file(weights, str(missing / "model.safetensors"))
    assert bert.load_bert_mlm(missing) is None

    only_bin = tmp_path / "only-bin"  # pytorch_model.bin only: transformers reads it
    shutil.copytree(peaked_dir, only_bin)
    (only_bin / "model.safetensors").unlink()
    assert bert_files(only_bin, local_only=True) is None


def test_a_hub_model_loads_from_the_cache_without_transformers_model_classes(peaked_dir, tmp_path):
    """In a fresh process, as a run loads it: a hub id found in the hub's cache (offline), its commit in the
    identity as transformers records it, and neither transformers' model classes nor torch._dynamo
    imported."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repository = tmp_path / "hub" / "models--someone--tiny-bert"
    (repository / "refs").mkdir(parents=True)
    (repository / "refs" / "main").write_text(commit)
    shutil.copytree(peaked_dir, repository / "snapshots" / commit)
    script = (
        "import json, sys\n"
        "from autocheck.expand.mlm import MaskedLM\n"
        "lm = MaskedLM.from_pretrained('someone/tiny-bert', device='cpu')\n"
        "print(json.dumps([lm.identity, type(lm.model).__module__,"
        " 'transformers.modeling_utils' in sys.modules, 'torch._dynamo' in sys.modules]))\n"
    )
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub"), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    identity, module, model_classes, dynamo = json.loads(done.stdout.splitlines()[-1])
    assert (identity, module, model_classes, dynamo) == (
        f"someone/tiny-bert@{commit}",
        bert.__name__,
        False,
        False,
    )


def test_workers_fork_with_the_code_their_masked_lm_needs_imported(peaked_dir, tmp_path):
    from autocheck.config import GenerateConfig
    from autocheck.execute import expansion_work
    from autocheck.expand.job import Expander

    for mlm, needed, not_needed in [
        (str(peaked_dir), "autocheck.expand.bert", "transformers.modeling_utils"),
        (str(tmp_path / "not-a-model"), "transformers.modeling_utils", "autocheck.expand.bert"),
    ]:
        config = GenerateConfig(dataset=None, parser=str(tmp_path), mlm=mlm)  # loaded on first use
        preload = expansion_work(Expander(config, None, {})).preload()
        assert needed in preload and not_needed not in preload


def test_damaged_weights_are_a_one_line_error_naming_them(peaked_dir, tmp_path):
    """Truncated weights, of a plain BERT (read here) or of another checkpoint (read by transformers): an
    error naming the model and what is wrong, never the safetensors library's traceback."""
    from autocheck.store import InputError

    config = json.loads((peaked_dir / "config.json").read_text())
    for name, change in [("plain", {}), ("other", {"hidden_act": "gelu_new"})]:
        directory = tmp_path / name
        shutil.copytree(peaked_dir, directory)
        (directory / "config.json").write_text(json.dumps(config | change))
        with open(directory / "model.safetensors", "r+b") as weights:
            weights.truncate(1000)
        with pytest.raises(InputError, match=f"{name}.*weights cannot be read .*header"):
            MaskedLM.from_pretrained(directory, device="cpu")
