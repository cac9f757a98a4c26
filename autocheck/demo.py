"""``autocheck demo``: the main job end to end — generate a suite from SST, run it against a model, report.

With the offline stand-ins (``../shared/data`` or ``--shared``) it runs here without a network: the SST
sentence table, the opinion lexicon, the stand-in benepar parser, the mini BERT masked LM and the mini
SST-2 classifier. Without them it uses the real resources (SST from the Hugging Face hub, SentiWordNet,
benepar_en3, bert-base-uncased, textattack/bert-base-uncased-SST-2), downloaded on first use.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from .config import DEFAULT_MLM, GenerateConfig
from .generate import generate
from .models import load_model
from .progress import stages
from .report import format_table, write_html
from .resources import shared_data_dir
from .run import RESULTS, RUN_FILES, run_suite
from .sources.checklist import convert_checklist
from .store import InputError, foreign_error, load_json, own_entries, prepare_output_dir
from .suite import MANIFEST, SUITE_FILES

log = logging.getLogger(__name__)


# SST's sentences with the five-class labels that its phrase scores give (cut at 0.2/0.4/0.6/0.8), so
# 0-1 / 2 / 3-4 are exactly the paper's <=0.4 negative, neutral, >0.6 positive.
SST_HUB_ID = "SetFit/sst5"
SST5_LABELS = {"0": "negative", "1": "negative", "2": "neutral", "3": "positive", "4": "positive"}
# what a demo folder holds: a rerun reuses or replaces these and refuses a folder holding anything else
DEMO_FILES = ("suite/", "results/", "checklist-suite/", "checklist-results/", "report.html", "report-*.png")


def demo_resources(shared: Path | None) -> dict[str, str]:
    shared = shared or shared_data_dir()
    if (shared / "models" / "mini-bert-mlm").is_dir():
        os.environ.setdefault("NLTK_DATA", str(shared / "nltk_data"))
        return {
            "dataset": str(shared / "datasets/sst/derived_sentence_labels"),
            "lexicon": "opinion",
            "parser": str(shared / "models/benepar_ptbsample_charlstm"),
            "mlm": str(shared / "models/mini-bert-mlm"),
            "model": str(shared / "models/mini-bert-sst2"),
            "checklist": str(shared / "checklist/sentiment_suite.tests.json"),
        }
    log.info("no offline stand-ins at %s: using the real resources (downloaded on first use)", shared)
    return {
        "dataset": SST_HUB_ID,
        "lexicon": "sentiwordnet",
        "parser": "benepar_en3",
        "mlm": DEFAULT_MLM,
        "model": "textattack/bert-base-uncased-SST-2",
    }


def run_demo(
    out: Path,
    *,
    shared: Path | None = None,
    max_seeds: int = 5,
    max_variants: int | None = 2,
    seed: int = 0,
    overwrite: bool = False,
) -> int:
    if Path(out).is_dir():
        foreign = own_entries(Path(out), DEMO_FILES)[1]
        if foreign:
            raise foreign_error(Path(out), foreign)
    res = demo_resources(shared)
    config = GenerateConfig(
        dataset=res["dataset"],
        label_map=SST5_LABELS if res["dataset"] == SST_HUB_ID else None,
        lexicon=res["lexicon"],
        parser=res["parser"],
        mlm=res["mlm"],
        max_seeds=max_seeds,
        max_variants=max_variants,
        seed=seed,
    )
    suite_dir, results_dir = Path(out) / "suite", Path(out) / "results"
    manifest = suite_dir / MANIFEST
    same = (
        manifest.exists() and load_json(manifest, "suite manifest").get("fingerprint") == config.fingerprint()
    )
    resume = (suite_dir / "state.json").exists()  # an interrupted demo continues where it stopped
    if not overwrite and same:
        print(f"reusing the suite generated before with the same settings: {suite_dir}")
    else:
        if not (overwrite or resume) and suite_dir.is_dir() and any(suite_dir.iterdir()):
            raise InputError.hint(  # demo has no --resume: say what it does have
                f"{suite_dir}: holds a suite generated with other settings; pass {{overwrite}} to replace "
                "it, or choose another {out}",
                overwrite="overwrite=True",
                out="out=DIR",
            )
        summary = generate(
            config, suite_dir, resume=resume and not overwrite, overwrite=overwrite, progress=stages
        )
        summary.print_table()
    model = load_model(res["model"])  # its predictions are cached, so a rerun is quick
    results = run_suite(
        suite_dir, [model], prepare_output_dir(results_dir, overwrite=True, files=RUN_FILES, manifest=RESULTS)
    )
    checklist_results, checklist_dir = None, None
    if Path(res.get("checklist", "")).is_file():  # CheckList's own suite beside ours: 30 items per test
        checklist_suite, checklist_dir = Path(out) / "checklist-suite", Path(out) / "checklist-results"
        convert_checklist(
            res["checklist"],
            prepare_output_dir(checklist_suite, overwrite=True, files=SUITE_FILES, manifest=MANIFEST),
            max_per_test=30,
        )
        checklist_results = run_suite(
            checklist_suite,
            [model],
            prepare_output_dir(checklist_dir, overwrite=True, files=RUN_FILES, manifest=RESULTS),
        )
    print(format_table(results, checklist_results))
    html = Path(out) / "report.html"
    write_html(results_dir, html, checklist_dir=checklist_dir)
    print(f"suite: {suite_dir}\nresults: {results_dir}\nreport: {html}")
    print(next_steps(res))
    return 0


def next_steps(res: dict[str, str]) -> str:
    """What to run next on one's own data and model: the demo's commands with its resources filled in (the
    stand-ins here, the real ones elsewhere), placeholders only for the user's own files."""
    nltk = f"NLTK_DATA={os.environ['NLTK_DATA']} " if os.environ.get("NLTK_DATA") else ""
    return "\n".join(
        [
            "",
            "next, on your own data (a CSV with 'text' and 'label' columns) and model (a folder, a Hugging "
            "Face id, module:function or an http:// endpoint):",
            f"  {nltk}autocheck generate --dataset YOUR.csv --text-column text --label-column label "
            f"--lexicon {res['lexicon']} --parser {res['parser']} --mlm {res['mlm']} --out my-suite",
            "  autocheck run my-suite --model YOUR_MODEL --out my-run",
            "  autocheck report my-run --html my-report.html",
        ]
    )
