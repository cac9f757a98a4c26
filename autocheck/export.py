"""Export a suite's labelled cases as train/validation/test data for retraining a classifier.

Splits are made over *groups* (a seed case and all its expansions), so no expansion of a test seed is
trained on. Groups are stratified by (capability, label): within each stratum they are shuffled with a
generator derived from ``seed`` and dealt, in turn, to the split that is furthest below its target share of
cases, so every stratum follows the ratios as closely as whole groups allow.

Label rules. Every MFT expectation is read as a set of allowed labels (one label = a set of one). With
``set_label_rule``:

* ``"hard"`` (default): a case is kept when exactly one allowed label is in the target label space; for a
  binary space ``{neutral, positive}`` → ``positive`` and ``{neutral, negative}`` → ``negative``. Plain
  ``neutral`` has no binary label and a 3-class ``{neutral, positive}`` is ambiguous: both are left out.
* ``"drop"``: like ``"hard"`` but every set-valued expectation is left out.
* ``"soft"``: a case gets a uniform distribution over its allowed labels in the space (``soft_label``); plain
  ``neutral`` in a binary space becomes ``[0.5, 0.5]`` as in the original retraining code.
  ``label`` is the single label when there is one, else -1.

INV and DIR cases have no label and are left out. The label space defaults to the suite's task: its binary
poles when it reads binary models (sentiment: negative/positive, the models the paper retrains), otherwise
all its labels. Rows carry the task's input fields as columns (``text``; ``premise``, ``hypothesis``; ...);
a question-answering suite's rows carry their acceptable ``answers`` instead of a label, an NER suite's their
``entities``; ``format="conll"`` writes an NER suite's MFT cases as BIO-tagged ``token TAG`` lines.
``export_summary.json`` counts per split, capability and
label what was written, and per capability what was mapped from a set and what was left out, and why.
"""

from __future__ import annotations

import csv
import json
import logging
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from autocheck.models.files import input_id
from autocheck.outputs import OutputKind, kind_of
from autocheck.store import (
    InputError,
    JsonlWriter,
    atomic_write_json,
    atomic_write_text,
    check_output_file,
    load_json,
    prepare_output_dir,
    read_jsonl,
    rng_for,
)

from .outputs.entities import tags_of
from .run import input_of
from .suite import CASES, iter_cases, suite_task

log = logging.getLogger(__name__)

SPLITS = ("train", "validation", "test")
BINARY = ("negative", "positive")
THREE_CLASS = ("negative", "neutral", "positive")
SUMMARY = "export_summary.json"
COLUMNS = ("id", "group", "capability", "kind", "label", "label_name", "soft_label")  # + input fields
Format = Literal["jsonl", "csv", "hf", "conll"]
SetLabelRule = Literal["hard", "drop", "soft"]


def assign_splits(
    strata: dict[Any, list[tuple[str, int]]], ratios: Sequence[float], seed: int
) -> dict[str, int]:
    """Split index of each group; ``strata`` maps a stratum to its ``(group id, case count)`` pairs."""
    total = sum(ratios)
    shares = [r / total for r in ratios]
    assignment: dict[str, int] = {}
    for stratum in sorted(strata, key=repr):
        groups = sorted(strata[stratum])
        order = rng_for(seed, f"export:{stratum!r}").permutation(len(groups))
        filled = [0] * len(shares)
        for k in order:
            group, size = groups[k]
            done = sum(filled) + size
            split = max(range(len(shares)), key=lambda s: (shares[s] * done - filled[s], -s))
            filled[split] += size
            assignment[group] = split
    return assignment


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP "CSV injection"); such a
# cell is written with a leading "'" (so is one that already starts with quotes before them, so that
# reading back strips exactly one quote and every text round-trips).
_FORMULA = re.compile(r"'*[=+\-@\t\r]")


def escape_cell(value: Any) -> Any:
    """A CSV cell safe to open in a spreadsheet: text that could start a formula gets a leading "'"."""
    return "'" + value if isinstance(value, str) and _FORMULA.match(value) else value


def unescape_cell(value: str) -> str:
    """The text :func:`escape_cell` was given."""
    return value[1:] if value.startswith("'") and _FORMULA.match(value, 1) else value


def export_files(format: Format) -> list[str]:
    """What an export of ``format`` writes in its directory (recorded in the summary as ``files``)."""
    if format == "hf":
        return [*(f"{name}/" for name in SPLITS), "dataset_dict.json", SUMMARY]
    return [*(f"{name}.{format}" for name in SPLITS), SUMMARY]


# Every format's names: --overwrite may replace an export made in another format.
EXPORT_FILES = tuple(
    dict.fromkeys(name for fmt in ("jsonl", "csv", "hf", "conll") for name in export_files(fmt))
)


def export_suite(
    suite_dir: str | Path,
    out_dir: str | Path,
    *,
    format: Format = "jsonl",
    split: Sequence[float] = (8, 1, 1),
    seed: int = 0,
    label_space: Sequence[str] | None = None,
    set_label_rule: SetLabelRule = "hard",
    overwrite: bool = False,
) -> dict[str, Any]:
    """Write ``train``/``validation``/``test`` files of the suite's labelled cases; return the summary
    (also written to ``out_dir/export_summary.json``). ``label_space`` defaults to the task's (see above)."""
    task = suite_task(suite_dir)
    kind = kind_of(task)
    if label_space is None:
        label_space = (task.binary.low, task.binary.high) if task.binary else task.labels
    if format not in ("jsonl", "csv", "hf", "conll"):
        raise InputError(f"unknown export format {format!r} (jsonl, csv, hf or conll)")
    entities = "entities" in kind.export_columns  # an NER suite: CoNLL or JSON Lines
    if (format == "conll" and not entities) or (entities and format in ("csv", "hf")):
        raise InputError(
            f"export format {format!r}: "
            + ("CoNLL is for an NER suite" if format == "conll" else "an NER suite exports as conll or jsonl")
        )
    if set_label_rule not in ("hard", "drop", "soft"):
        raise InputError(f"unknown set_label_rule {set_label_rule!r} (hard, drop or soft)")
    if len(split) != 3 or min(split) < 0 or sum(split) <= 0:
        raise InputError(f"split must be three non-negative ratios (train, validation, test), got {split}")
    cases_path = Path(suite_dir) / CASES
    if not cases_path.is_file():
        raise InputError(f"{cases_path}: suite cases not found")
    label_space = tuple(label_space)
    out = Path(out_dir)

    rows: list[dict[str, Any]] = []
    left_out: dict[str, Counter[str]] = defaultdict(Counter)
    from_sets: dict[str, Counter[str]] = defaultdict(Counter)
    for case in iter_cases(cases_path, task):  # validated: a damaged line names file, line and field
        mapped = kind.export(case.test_type, case.expected, label_space, set_label_rule)
        if isinstance(mapped, str):
            left_out[case.capability][mapped] += 1
            continue
        label, soft, columns = mapped
        if isinstance(case.expected, tuple) and len(case.expected) > 1 and kind.expects_labels:
            target = label_space[label] if label >= 0 else "soft"
            from_sets[case.capability]["|".join(case.expected) + "->" + target] += 1
        rows.append(
            {
                "id": case.id,
                "group": case.seed_id or case.id,
                "capability": case.capability,
                "kind": case.kind,
                **case.inputs,
                **columns,
                "label": label,
                "label_name": label_space[label] if label >= 0 else "",
                "soft_label": soft,
            }
        )

    # A group's stratum is its capability and the label of its first kept case (normally the seed's).
    group_stratum: dict[str, tuple[str, str]] = {}
    group_size: Counter[str] = Counter()
    for row in rows:
        group_stratum.setdefault(row["group"], (row["capability"], row["label_name"]))
        group_size[row["group"]] += 1
    strata: dict[tuple[str, str], list[tuple[str, int]]] = defaultdict(list)
    for group, stratum in group_stratum.items():
        strata[stratum].append((group, group_size[group]))
    assignment = assign_splits(strata, split, seed)
    by_split: dict[str, list[dict[str, Any]]] = {name: [] for name in SPLITS}
    for row in rows:
        by_split[SPLITS[assignment[row["group"]]]].append(row)

    prepare_output_dir(out, overwrite=overwrite, files=EXPORT_FILES, manifest=SUMMARY)
    _write(by_split, out, format, label_space, task.inputs, kind)
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for name, split_rows in by_split.items():
        per_cap: dict[str, Counter[str]] = defaultdict(Counter)
        for row in split_rows:
            per_cap[row["capability"]][row["label_name"] or "soft"] += 1
        counts[name] = {cap: dict(sorted(c.items())) for cap, c in sorted(per_cap.items())}
    summary = {
        "format": format,
        "split": list(split),
        "seed": seed,
        "label_space": list(label_space),
        "inputs": list(task.inputs),
        "task": task.name,
        "output": task.output,
        "set_label_rule": set_label_rule,
        "suite": str(suite_dir),
        "totals": {name: len(split_rows) for name, split_rows in by_split.items()},
        "groups": {name: sum(1 for s in assignment.values() if SPLITS[s] == name) for name in SPLITS},
        "counts": counts,
        "mapped_from_sets": {cap: dict(sorted(c.items())) for cap, c in sorted(from_sets.items())},
        "left_out": {cap: dict(sorted(c.items())) for cap, c in sorted(left_out.items())},
        "files": export_files(format),
    }
    atomic_write_json(out / SUMMARY, summary)
    log.info("exported %s to %s (%s)", summary["totals"], out, format)
    return summary


def conll_lines(text: str, entities: Sequence[Sequence[Any]]) -> list[str]:
    """``token TAG`` lines of one text, BIO-tagged: tokens are runs of word characters and single other
    characters, so every entity edge (at a word or a sign, ``$44``) is a token edge."""
    tokens = [(m.group(), m.span()) for m in re.finditer(r"\w+|[^\w\s]", text)]
    tags = tags_of([(s, e, k) for s, e, k in entities], [span for _, span in tokens])
    return [f"{token} {tag}" for (token, _), tag in zip(tokens, tags)]


def _write(
    by_split: dict[str, list[dict[str, Any]]],
    out: Path,
    format: Format,
    labels: tuple,
    inputs: Sequence[str],
    kind: OutputKind,
) -> None:
    columns = (*COLUMNS[:4], *inputs, *kind.export_columns, *COLUMNS[4:])
    if format == "conll":
        for name, split_rows in by_split.items():
            lines = [
                line for row in split_rows for line in (*conll_lines(row[inputs[0]], row["entities"]), "")
            ]
            atomic_write_text(out / f"{name}.conll", "".join(f"{line}\n" for line in lines))
    elif format == "jsonl":
        for name, split_rows in by_split.items():
            with JsonlWriter(out / f"{name}.jsonl") as writer:
                writer.write_all(split_rows)
    elif format == "csv":
        for name, split_rows in by_split.items():
            with open(out / f"{name}.csv", "w", encoding="utf-8", newline="") as f:
                csv_writer = csv.DictWriter(f, fieldnames=columns)
                csv_writer.writeheader()
                for row in split_rows:
                    encoded: dict[str, str] = {
                        k: json.dumps(row[k]) for k in ("soft_label", *kind.export_columns)
                    }
                    csv_writer.writerow({k: escape_cell(v) for k, v in {**row, **encoded}.items()})
    else:
        import datasets  # only this format needs it

        features = datasets.Features(
            {
                "id": datasets.Value("string"),
                "group": datasets.Value("string"),
                "capability": datasets.Value("string"),
                "kind": datasets.Value("string"),
                **{name: datasets.Value("string") for name in inputs},
                **{name: datasets.Sequence(datasets.Value("string")) for name in kind.export_columns},
                "label": (
                    datasets.ClassLabel(names=list(labels))
                    if kind.expects_labels
                    else datasets.Value("int64")
                ),
                "label_name": datasets.Value("string"),
                "soft_label": datasets.Sequence(datasets.Value("float64")),
            }
        )
        # from_dict, not from_list: from_list([]) has no keys to match the features ("Keys mismatch")
        datasets.DatasetDict(
            {
                name: datasets.Dataset.from_dict(
                    {column: [row[column] for row in rows] for column in features}, features=features
                )
                for name, rows in by_split.items()
            }
        ).save_to_disk(str(out), num_shards={name: 1 for name in by_split})  # an empty split needs a shard


def load_export(data_dir: str | Path) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """The summary and the rows of each split of an export written by :func:`export_suite`."""
    data = Path(data_dir)
    summary = load_json(data / SUMMARY, "export summary")
    fmt = summary["format"]
    if fmt == "hf":
        import datasets

        loaded = datasets.load_from_disk(str(data))
        return summary, {name: [dict(r) for r in loaded[name]] for name in SPLITS}
    splits: dict[str, list[dict[str, Any]]] = {}
    for name in SPLITS:
        path = data / f"{name}.{fmt}"
        if fmt == "jsonl":
            splits[name] = list(read_jsonl(path))
        else:
            with open(path, encoding="utf-8", newline="") as f:
                splits[name] = [
                    {
                        **{k: unescape_cell(v) for k, v in r.items()},
                        "label": int(r["label"]),
                        **{k: json.loads(r[k]) for k in ("soft_label", "answers") if k in r},
                    }
                    for r in csv.DictReader(f)
                ]
    return summary, splits


def export_inputs(suite_dir: str | Path, path: str | Path, *, overwrite: bool = False) -> int:
    """Write the suite's distinct inputs, in first-occurrence order (the order a prediction file without
    ids must follow), to ``path``; return how many. ``.jsonl``: one object per input with its ``id``
    (``models.files.input_id``, what a prediction line names) and its fields; any other suffix: CheckList's
    ``to_raw_file``, one input per line (a pair's fields joined by a tab)."""
    suite_dir, path = Path(suite_dir), Path(path)
    cases = suite_dir / CASES
    if not cases.is_file():
        raise InputError(f"{cases}: suite cases not found")
    check_output_file(path, overwrite=overwrite)
    task = suite_task(suite_dir)
    inputs = list(dict.fromkeys(input_of(case, task) for case in iter_cases(cases, task)))
    if path.suffix == ".jsonl":
        lines = [
            json.dumps({"id": input_id(item), **dict(zip(task.inputs, item))}, ensure_ascii=False)
            for item in inputs
        ]
    else:
        bad = next((item for item in inputs if any("\n" in x or "\t" in x for x in item)), None)
        if bad is not None:
            raise InputError(f"{path}: input {bad!r} holds a tab or line break; write .jsonl instead")
        lines = ["\t".join(item) for item in inputs]
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return len(inputs)
