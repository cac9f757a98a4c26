"""fp32 against bf16 for the masked LM on this machine: forward-pass speed, how far scores move, and the
fluency filter's precision and recall on the hand labels at each precision.

    python benchmarks/bench_precision.py [--device cpu] [--rows 16,64,256] [--length 32] [--repeats 5]
        [--labels benchmarks/fluency_labels.jsonl] [--window 0]

1. Speed: rows per second of one forward pass (masked-LM log-probabilities at one position per row, the
   call fills and fluency make) for the stand-in masked LM and a randomly initialised model of
   bert-base's architecture (``BertConfig()``, nothing downloaded), batches of each of ``--rows`` rows of
   ``--length`` tokens (generation's passes hold tens of rows), one intra-op thread (a worker's setting),
   the fastest of ``--repeats``; bf16 with the weights cast once (what ``--precision bf16`` does) and,
   for comparison, the fp32 model under bf16 autocast (which re-casts every weight on every call).
2. Scores: the fluency deltas of the labelled expansions at both precisions (largest difference, and how
   many keep/reject decisions at each threshold differ).
3. The filter as a detector of grammatical (natural or odd) expansions at each precision and threshold
   (precision, recall, F1), the best F1 marked: the threshold to use at that precision.

Prints the CPU model and the load average (other work on a shared machine slows both precisions alike,
but not evenly: compare ratios from one run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alict60 import SHARED, machine  # noqa: E402  (a sibling script, not a package)

LABELS = Path(__file__).with_name("fluency_labels.jsonl")
THRESHOLDS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)  # window 1's scale to window 0's
GOOD = ("natural", "odd")  # grammatical: what the filter should keep


def rows_per_second(mlm, rows: int, length: int, repeats: int, autocast: bool = False) -> float:
    """Masked-LM rows per second of one pass; ``autocast``: an fp32 model run under bf16 autocast (how
    ``--precision bf16`` ran before its weights were cast once), for comparison."""
    import contextlib

    import torch

    context = torch.autocast(mlm.device.type, dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 2000, (rows, length), generator=generator)
    ids[:, 0], ids[:, -1] = mlm.tokenizer.cls_token_id, mlm.tokenizer.sep_token_id
    positions = torch.full((rows,), length // 2)
    ids[:, length // 2] = mlm.tokenizer.mask_token_id
    attention = torch.ones_like(ids)
    times = []
    with context:
        mlm.log_probs_at(ids, attention, positions)  # warm-up (kernels chosen, memory allocated)
        for _ in range(repeats):
            started = time.perf_counter()
            mlm.log_probs_at(ids, attention, positions)  # waits for the GPU: its time is counted
            times.append(time.perf_counter() - started)
    return rows / min(times)  # the least disturbed of the repeats: other work only slows a pass


def bert_base(tokenizer_dir: Path, device: str, precision: str):
    """A randomly initialised model of bert-base-uncased's architecture (``BertConfig()``: 12 layers, 768
    wide, 30,522 items; nothing downloaded), with the stand-in's tokenizer (its ids are below bert-base's
    vocabulary size): a forward pass costs what bert-base's does."""
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM

    from autocheck.expand.mlm import MaskedLM

    torch.manual_seed(0)
    model = BertForMaskedLM(BertConfig())
    tokenizer = AutoTokenizer.from_pretrained(str(tokenizer_dir))
    return MaskedLM(tokenizer, model, "random-bert-base", device, precision=precision)


def save_bert_base(directory: Path, tokenizer_dir: Path) -> Path:
    """``bert_base``'s model and tokenizer saved in ``directory`` (about 440 MB), for ``--mlm``."""
    if not (directory / "config.json").exists():
        mlm = bert_base(tokenizer_dir, "cpu", "fp32")
        mlm.model.save_pretrained(directory)
        mlm.tokenizer.save_pretrained(directory)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    sizes = lambda text: [int(x) for x in text.split(",")]  # noqa: E731
    parser.add_argument("--rows", type=sizes, default=[16, 64, 256], help="batch sizes, e.g. 16,64,256")
    parser.add_argument("--length", type=int, default=32)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--window", type=int, default=None, help="fluency window (default: the filter's)")
    args = parser.parse_args()
    os.environ["AUTOCHECK_CACHE"] = "off"
    import torch

    torch.set_num_threads(1)
    from autocheck.expand.fluency import DEFAULT_THRESHOLD, DEFAULT_WINDOW, FluencyScorer
    from autocheck.expand.mlm import MaskedLM, cpu_runs_bf16, resolve_device, resolve_precision

    stand_in = SHARED / "models/mini-bert-mlm"
    print(machine())
    device = resolve_device(args.device)
    print(
        f"device {device}; native bf16: {cpu_runs_bf16() if device.type == 'cpu' else 'cuda'}; "
        f"--precision auto here: {resolve_precision('auto', device)}; one thread"
    )
    print(f"\nforward pass, rows x {args.length} tokens, fastest of {args.repeats} (rows/s):")
    print(f"  {'model':<20}{'rows':>6}{'fp32':>12}{'bf16':>12}{'bf16/fp32':>10}{'autocast':>12}{'/fp32':>7}")
    for name, make in (
        ("stand-in mini BERT", lambda p: MaskedLM.from_pretrained(stand_in, device=args.device, precision=p)),
        ("bert-base (random)", lambda p: bert_base(stand_in, args.device, p)),
    ):
        fp32, bf16 = make("fp32"), make("bf16")
        for rows in args.rows:
            speed = [rows_per_second(mlm, rows, args.length, args.repeats) for mlm in (fp32, bf16)]
            speed.append(rows_per_second(fp32, rows, args.length, args.repeats, autocast=True))
            ratios = [f"{x / speed[0]:>{width}.2f}x" for x, width in ((speed[1], 9), (speed[2], 6))]
            cells = f"{speed[0]:>12.1f}{speed[1]:>12.1f}{ratios[0]}{speed[2]:>12.1f}{ratios[1]}"
            print(f"  {name:<20}{rows:>6}{cells}")

    rows = [json.loads(line) for line in args.labels.read_text().splitlines() if line.strip()]
    good = [r["label"] in GOOD for r in rows]
    window = DEFAULT_WINDOW if args.window is None else args.window
    deltas = {}
    for p in ("fp32", "bf16"):
        mlm = MaskedLM.from_pretrained(stand_in, device=args.device, precision=p)
        deltas[p] = FluencyScorer(mlm, window=window).deltas([(r["text"], r["seed"]) for r in rows])
    moved = [abs(a - b) for a, b in zip(deltas["fp32"], deltas["bf16"])]
    print(
        f"\nfluency deltas of the {len(rows)} labelled expansions ({args.labels.name}, window {window}): "
        f"bf16 - fp32 median {statistics.median(moved):.3f}, largest {max(moved):.3f}"
    )
    columns = "".join(f"{p + ' P/R/F1':>18}" for p in deltas)
    print(f"  {'threshold':>10}{columns}{'decisions differ':>18}")
    thresholds = sorted({*THRESHOLDS, DEFAULT_THRESHOLD})  # the filter's own (for the default window)
    best = {p: max(thresholds, key=lambda t: scores(deltas[p], good, t)[2]) for p in deltas}
    for t in thresholds:
        cells = ""
        for p in deltas:
            precision, recall, f1 = scores(deltas[p], good, t)
            mark = "*" if t == best[p] else " "
            cells += f"{precision:>7.0%}{recall:>5.0%}{f1:>5.2f}{mark}"
        differ = sum((a >= -t) != (b >= -t) for a, b in zip(deltas["fp32"], deltas["bf16"]))
        print(f"  {t:>10g}{cells}{differ:>18}")
    print("  (* the best F1 at that precision: its threshold)")


def scores(deltas: list[float], good: list[bool], threshold: float) -> tuple[float, float, float]:
    """Precision, recall and F1 of "kept" (delta >= -threshold) as a detector of the good expansions."""
    keep = [d >= -threshold for d in deltas]
    tp = sum(k and g for k, g in zip(keep, good))
    precision, recall = tp / max(1, sum(keep)), tp / max(1, sum(good))
    return precision, recall, 2 * precision * recall / max(1e-9, precision + recall)


if __name__ == "__main__":
    main()
