"""The Python API against the command line's path on the same model: Suite.run(transformers pipeline)
and run_suite(load_model(DIRECTORY)), the same suite, interleaved, caches off.

    PYTHONPATH=. python benchmarks/bench_api.py [--model DIR] [--inputs 200] [--rounds 3]

Suite: the first N of the typos perturbations of SST-2 dev sentences (N distinct inputs). Prints, per
round, each path's CPU seconds (this process: its torch threads included) and wall seconds, then the
medians, with the CPU model and the load average. Both paths now go through the same batched adapter
(hf.PipelineModel and hf.HFClassifier batch alike); before, Suite.run wrapped a pipeline in its own
per-batch function.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def timed(run) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    run()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=str(SHARED / "models" / "mini-bert-sst2"))
    parser.add_argument("--dataset", default=str(SHARED / "datasets" / "sst" / "SST-2" / "dev.tsv"))
    parser.add_argument("--inputs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    os.environ["AUTOCHECK_CACHE"] = "off"  # every run predicts every input

    import torch
    import transformers

    from autocheck import Suite, Test
    from autocheck.models import load_model
    from autocheck.run import run_suite

    torch.set_num_threads(1)  # as autocheck's own processes run
    sentences = [line.split("\t")[0] for line in Path(args.dataset).read_text().splitlines()[1:]]
    test = Test.from_perturbation("typos", sentences[: args.inputs // 2], "typos")
    suite = Suite("bench", tests=[test])
    work = Path(tempfile.mkdtemp(prefix="bench_api_"))
    suite_dir = suite.save(work / "suite")
    inputs = len({c.inputs["text"] for c in suite.cases()})
    pipe = transformers.pipeline("text-classification", model=args.model, device="cpu")
    directory = load_model(args.model, suite.task, device="cpu")
    pipe(["warm up"]), directory.network  # noqa: B018 (the weights load here, outside the timing)

    print(f"{cpu_model()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print(f"{inputs} distinct inputs, {sum(1 for _ in suite.cases())} cases, one torch thread")
    api, cli = [], []
    for i in range(args.rounds):
        api.append(timed(lambda i=i: suite.run(pipe, out=work / f"api{i}")))
        cli.append(timed(lambda i=i: run_suite(suite_dir, [directory], work / f"cli{i}")))
        print(f"round {i + 1}: Suite.run(pipeline) {api[-1][0]:.2f} CPU-s {api[-1][1]:.2f} s; "
              f"run_suite(directory) {cli[-1][0]:.2f} CPU-s {cli[-1][1]:.2f} s")  # fmt: skip
    for name, times in (("Suite.run(pipeline)", api), ("run_suite(directory)", cli)):
        cpu, wall = statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)
        print(f"median {name}: {cpu:.2f} CPU-s, {wall:.2f} s wall")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
