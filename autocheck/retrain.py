"""Fine-tune a sequence classifier on exported test cases and measure the effect (before vs after).

Setup: the export's train split (seed groups never shared with validation/test, see ``export``), one epoch,
batch 16, AdamW (lr 2e-5, linear decay to 0), seeded; the loss is cross-entropy against the export's
``soft_label`` (one-hot for hard labels, so the usual hard-label loss). Evaluated before and after on the
SST-2 dev set (accuracy) and on the held-out generated test split (accuracy and failure rate = 1 - accuracy
per capability, argmax over the model's own labels; cases without a single label are not scored).

The original code instead trained per capability on *all* its cases (no held-out split), with
labels ×0.5 as float targets (HF then silently used a multi-label BCE loss), duplicated the smaller class,
ran 5-10 epochs with lr 5e-5 and evaluated only on CheckList. The 8:1:1 / 1 epoch / batch 16 setup here is
the one the ASE'22 draft describes.
"""

from __future__ import annotations

import csv
import logging
import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from torch.nn import functional as F
from tqdm.auto import tqdm

from autocheck.export import load_export
from autocheck.store import InputError, atomic_write_json, atomic_write_text, environment

from .models import load_model
from .report.compare import compare_runs, write_comparison_html
from .run import run_suite
from .suite import suite_task

log = logging.getLogger(__name__)

EVAL_BATCH = 64
MAX_LENGTH = 128
# what an output directory holds (--overwrite removes only these)
RETRAIN_FILES = (
    *("model/", "run-before/", "run-after/"),
    *("retrain_results.json", "retrain_results.md", "compare.html"),
)


def read_sst2(path: str | Path) -> tuple[list[str], list[str]]:
    """Sentences and labels (``negative``/``positive``) of a GLUE SST-2 TSV file with a header."""
    texts, labels = [], []
    with open(path, encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if row.get("label") not in ("0", "1"):
                raise InputError(f"{path}: expected columns sentence, label (0/1)")
            texts.append(row["sentence"])
            labels.append(("negative", "positive")[int(row["label"])])
    return texts, labels


def model_label_index(config: Any, label_space: Sequence[str]) -> list[int]:
    """Model output index of each label of ``label_space``: by name, or by position when the model's labels
    are unnamed (``LABEL_0``…, as in the textattack checkpoints)."""
    names = [str(config.id2label[i]).lower() for i in range(config.num_labels)]
    if all(label in names for label in label_space):
        return [names.index(label) for label in label_space]
    if len(names) == len(label_space) and all(n.startswith("label_") for n in names):
        log.warning("model labels %s are unnamed; assuming they are %s in order", names, list(label_space))
        return list(range(len(label_space)))
    raise InputError(f"model labels {names} do not cover the export's label space {list(label_space)}")


def encode(tokenizer: Any, items: Sequence[str | tuple[str, ...]], device: torch.device) -> Any:
    """A batch of texts, or of text pairs (tuples), tokenised for the model."""
    columns = [list(c) for c in zip(*items)] if items and isinstance(items[0], tuple) else [list(items)]
    return tokenizer(*columns, padding=True, truncation=True, max_length=MAX_LENGTH, return_tensors="pt").to(
        device
    )


def row_input(row: dict[str, Any], inputs: Sequence[str]) -> str | tuple[str, ...]:
    """An exported row's input: its text, or its fields in the task's order."""
    return row[inputs[0]] if len(inputs) == 1 else tuple(row[name] for name in inputs)


@torch.no_grad()
def predict(
    model: Any, tokenizer: Any, texts: Sequence[str | tuple[str, ...]], device: torch.device
) -> list[int]:
    model.eval()
    out: list[int] = []
    for start in range(0, len(texts), EVAL_BATCH):
        batch = encode(tokenizer, list(texts[start : start + EVAL_BATCH]), device)
        out.extend(model(**batch).logits.argmax(-1).tolist())
    return out


def evaluate(
    model: Any,
    tokenizer: Any,
    device: torch.device,
    index: list[int],
    label_space: Sequence[str],
    test_rows: list[dict[str, Any]],
    sst2: tuple[list[str], list[str]] | None,
    inputs: Sequence[str] = ("text",),
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    if sst2 is not None:
        predicted = predict(model, tokenizer, sst2[0], device)
        gold = [index[label_space.index(label)] for label in sst2[1]]
        result["sst2_dev_accuracy"] = sum(p == g for p, g in zip(predicted, gold)) / len(gold)
    scored = [r for r in test_rows if r["label"] >= 0]
    predicted = predict(model, tokenizer, [row_input(r, inputs) for r in scored], device)
    per_cap: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row, p in zip(scored, predicted):
        per_cap[row["capability"]][0] += p == index[row["label"]]
        per_cap[row["capability"]][1] += 1
    correct = sum(c for c, _ in per_cap.values())
    result["test_accuracy"] = correct / len(scored) if scored else math.nan
    result["test_per_capability"] = {
        cap: {"n": n, "accuracy": c / n, "failure_rate": 1 - c / n} for cap, (c, n) in sorted(per_cap.items())
    }
    return result


def retrain(
    model: str,
    data_dir: str | Path,
    out_dir: str | Path,
    *,
    epochs: int = 1,
    batch_size: int = 16,
    lr: float = 2e-5,
    seed: int = 0,
    eval_sst2: str | None = None,
    max_steps: int | None = None,
    suite: str | Path | None = None,
) -> dict[str, Any]:
    """Fine-tune ``model`` (HF id or directory) on ``data_dir``'s train split; write the model to
    ``out_dir/model`` and ``retrain_results.json``/``.md``; return the results.

    With ``suite`` (a suite directory), also run it against the model before and after (``out_dir/
    run-before``, ``run-after``) and compare the two runs (``compare.html``; the summary in the results'
    ``compare``). A suite the export came from holds the cases trained on too: for an unbiased picture,
    pass a suite generated apart (another ``--seed`` or dataset split)."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    out = Path(out_dir)
    if out.exists() and any(out.iterdir()):
        raise InputError(f"{out}: directory is not empty; choose a new output directory")
    summary, splits = load_export(data_dir)
    if summary.get("output") == "span":
        raise InputError(f"{data_dir}: a question-answering export; retrain fine-tunes sequence classifiers")
    label_space = list(summary["label_space"])
    inputs = summary.get("inputs", ["text"])
    sst2 = read_sst2(eval_sst2) if eval_sst2 else None
    torch.manual_seed(seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    tokenizer = AutoTokenizer.from_pretrained(model)
    net = AutoModelForSequenceClassification.from_pretrained(model).to(device)
    index = model_label_index(net.config, label_space)

    before = evaluate(net, tokenizer, device, index, label_space, splits["test"], sst2, inputs)
    train_rows = splits["train"]
    if not train_rows:
        raise InputError(f"{data_dir}: the train split is empty")
    targets = torch.zeros(len(train_rows), net.config.num_labels)
    for k, row in enumerate(train_rows):
        for label_pos, p in enumerate(row["soft_label"]):
            targets[k, index[label_pos]] = p
    steps_per_epoch = math.ceil(len(train_rows) / batch_size)
    total_steps = steps_per_epoch * epochs if max_steps is None else min(max_steps, steps_per_epoch * epochs)
    optimizer = torch.optim.AdamW(net.parameters(), lr=lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / total_steps)
    generator = torch.Generator().manual_seed(seed)
    losses: list[float] = []
    net.train()
    with tqdm(total=total_steps, desc="retrain", unit="step", disable=None) as progress:
        while len(losses) < total_steps:
            for batch in torch.randperm(len(train_rows), generator=generator).split(batch_size):
                if len(losses) == total_steps:
                    break
                encoded = encode(
                    tokenizer, [row_input(train_rows[k], inputs) for k in batch.tolist()], device
                )
                loss = F.cross_entropy(net(**encoded).logits, targets[batch].to(device))
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                schedule.step()
                losses.append(loss.item())
                progress.update()
    after = evaluate(net, tokenizer, device, index, label_space, splits["test"], sst2, inputs)

    net.save_pretrained(out / "model")
    tokenizer.save_pretrained(out / "model")
    results = {
        "model": model,
        "data": str(data_dir),
        "settings": {
            "epochs": epochs,
            "batch_size": batch_size,
            "lr": lr,
            "seed": seed,
            "max_steps": max_steps,
        },
        "train_cases": len(train_rows),
        "steps": len(losses),
        "losses": losses,
        "before": before,
        "after": after,
        "environment": environment(),
    }
    if suite is not None:
        results["compare"] = compare_before_after(model, out, suite)
    atomic_write_json(out / "retrain_results.json", results)
    atomic_write_text(out / "retrain_results.md", results_table(results))
    log.info("retrained %s for %d steps; results in %s", model, len(losses), out)
    return results


def compare_before_after(model: str, out: Path, suite: str | Path) -> dict[str, Any]:
    """Run ``suite`` against the model before and after retraining and compare the runs (autocheck
    compare); returns where they are and how many cases flipped."""
    task = suite_task(suite)
    run_suite(suite, [load_model(model, task)], out / "run-before")
    run_suite(suite, [load_model(str(out / "model"), task)], out / "run-after")
    comparison = compare_runs(out / "run-before", out / "run-after")
    write_comparison_html(comparison, out / "compare.html")
    flips = comparison["pairs"][0]["flips"]
    return {
        "before": str(out / "run-before"),
        "after": str(out / "run-after"),
        "html": str(out / "compare.html"),
        "pass_to_fail": sum(f["flip"] == "pass→fail" for f in flips),
        "fail_to_pass": sum(f["flip"] == "fail→pass" for f in flips),
    }


def results_table(results: dict[str, Any]) -> str:
    """Markdown table of a retraining run: accuracy before → after, overall and per capability."""
    before, after = results["before"], results["after"]
    lines = [
        f"Retraining `{results['model']}` on {results['train_cases']} generated cases "
        f"({results['steps']} steps).",
        "",
        "| evaluation | n | accuracy before | accuracy after | failure rate before | failure rate after |",
        "|---|---|---|---|---|---|",
    ]
    if "sst2_dev_accuracy" in before:
        b, a = before["sst2_dev_accuracy"], after["sst2_dev_accuracy"]
        lines.append(f"| SST-2 dev | | {b:.4f} | {a:.4f} | {1 - b:.4f} | {1 - a:.4f} |")
    n = sum(v["n"] for v in before["test_per_capability"].values())
    b, a = before["test_accuracy"], after["test_accuracy"]
    lines.append(f"| generated test (all) | {n} | {b:.4f} | {a:.4f} | {1 - b:.4f} | {1 - a:.4f} |")
    for cap, cb in before["test_per_capability"].items():
        ca = after["test_per_capability"][cap]
        lines.append(
            f"| {cap} | {cb['n']} | {cb['accuracy']:.4f} | {ca['accuracy']:.4f} | "
            f"{cb['failure_rate']:.4f} | {ca['failure_rate']:.4f} |"
        )
    if results.get("compare"):
        c = results["compare"]
        lines += [
            "",
            f"Suite run before ({c['before']}) and after ({c['after']}): {c['pass_to_fail']} cases flipped "
            f"pass→fail, {c['fail_to_pass']} fail→pass; see {c['html']} or "
            f"`autocheck compare {c['before']} {c['after']}`.",
        ]
    return "\n".join(lines) + "\n"
