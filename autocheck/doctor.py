"""``autocheck doctor``: a pre-flight check of what ``generate`` and ``run`` will need, before they start;
and ``autocheck plugins``: every registered part, autocheck's and plug-ins', with where it comes from.

Each row is one resource the command will load: where it was found, what will be used instead (a local
directory, the offline stand-ins), or why it cannot be had. A model is checked by loading its config, never
its weights; a remote endpoint by opening a connection; a callable by finding its module or file without
running it. Nothing is downloaded: a resource that is not here is "downloaded on first use" only when
downloads are allowed (not ``--offline``) and, for a Hugging Face model, only after its config was fetched.
A required row that is missing makes the pre-flight fail (exit status 1).
"""

from __future__ import annotations

import importlib.util
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from huggingface_hub import try_to_load_from_cache

from .author.perturb import PERTURBATIONS
from .config import DEFAULT_MLM
from .execute import EXECUTORS
from .expand.validate import CHECKS
from .languages import LANGUAGES
from .models import MODELS
from .models.hf import check_head, hf_form
from .outputs import OUTPUT_KINDS, kind_of
from .registry import Registry
from .requirements import TASKS, load_spec, spec_path
from .resources import TAGGER, find_nltk, offline, project_file, shared_data_dir
from .sources.cases import SOURCES
from .sources.datasets import DATASETS
from .sources.lexicon import LEXICONS as LEXICON_PARTS
from .store import InputError

FOUND, MISSING, ON_FIRST_USE, NOT_NEEDED = "found", "missing", "on first use", "not needed"
COMMANDS = ("generate", "run")
LEXICONS = {  # --lexicon name -> (NLTK resource, package)
    "sentiwordnet": ("corpora/sentiwordnet", "sentiwordnet"),
    "opinion": ("corpora/opinion_lexicon", "opinion_lexicon"),
    "vader": ("sentiment/vader_lexicon", "vader_lexicon"),
}
WEIGHTS = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
STAND_INS = {"parser": "benepar_ptbsample_charlstm", "mlm": "mini-bert-mlm", "model": "mini-bert-sst2"}


@dataclass(frozen=True)
class Row:
    name: str
    status: str  # FOUND, MISSING, ON_FIRST_USE or NOT_NEEDED
    detail: str  # where it is, what is used instead, or how to get it
    required: bool = True

    @property
    def ok(self) -> bool:
        return self.status != MISSING or not self.required


def _stand_in(kind: str) -> str:
    """The offline stand-in for ``kind``, as a hint ('' when there is none here)."""
    path = shared_data_dir() / "models" / STAND_INS[kind]
    return f"; stand-in here: {path}" if path.is_dir() else ""


def _nltk_row(name: str, resource: str, package: str, required: bool) -> Row:
    where = find_nltk(resource)
    if where is not None:
        return Row(name, FOUND, where, required)
    shared = shared_data_dir() / "nltk_data"
    copied = any((shared / f"{resource}{zipped}").exists() for zipped in ("", ".zip"))
    instead = f"; an offline copy: NLTK_DATA={shared}" if copied else ""
    if offline():
        return Row(
            name, MISSING, f"not installed (offline); python -m nltk.downloader {package}{instead}", required
        )
    how = f"downloaded by NLTK on first use ({package}; needs the network){instead}"
    return Row(name, ON_FIRST_USE, how, required)


def _hf_row(name: str, spec: str, kind: str, task: Any = None) -> Row:
    """A Hugging Face model by its config (no weights): a local directory, the HF cache, or the hub."""
    local = Path(spec).expanduser()
    if local.is_dir():
        if not (local / "config.json").is_file():
            return Row(name, MISSING, f"{local}: no config.json; not a Hugging Face model directory")
        weights = [w for w in WEIGHTS if (local / w).is_file()]
        if not weights:
            return Row(name, MISSING, f"{local}: no weights ({' or '.join(WEIGHTS[:2])})")
        where = f"local directory {local} ({weights[0]})"
    else:
        where = None
        if offline() and not _hf_cached(spec, "config.json"):  # nothing to load: no need for transformers
            return Row(name, MISSING, f"{spec}: not in the Hugging Face cache (offline){_stand_in(kind)}")
    try:
        import transformers

        config = transformers.AutoConfig.from_pretrained(
            str(local) if where else spec, local_files_only=offline()
        )
    except Exception as e:  # OSError (not found, no network), ValueError (not a config)
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        state = "not in the Hugging Face cache (offline)" if offline() and not where else reason
        return Row(name, MISSING, f"{spec}: {state}{_stand_in(kind)}")
    if task is not None and kind == "model":  # a head run can test (not a masked-LM folder)
        try:
            check_head(spec, config, hf_form(spec, task).auto_class, task)
        except InputError as e:
            return Row(name, MISSING, str(e))
    labels = ""
    if task is not None and kind == "model" and kind_of(task).expects_labels:  # the labels run will read
        id2label = getattr(config, "id2label", None) or {}
        try:
            read = task.model_labels([id2label[i] for i in range(len(id2label))], f"model {spec}")
        except (InputError, KeyError) as e:
            return Row(name, MISSING, str(e))
        labels = f"; labels {', '.join(read)}"
    if where is None:
        cached = _hf_cached(spec, "config.json")
        weights = [w for w in WEIGHTS if _hf_cached(spec, w)]
        if cached and weights:
            where = f"Hugging Face cache {Path(cached).parent}"
        elif offline():
            return Row(name, MISSING, f"{spec}: config cached, weights not (offline){_stand_in(kind)}")
        else:
            return Row(name, ON_FIRST_USE, f"{spec}: config fetched; weights downloaded on first use{labels}")
    return Row(name, FOUND, where + labels)


def _hf_cached(repo_id: str, filename: str) -> str | None:
    try:
        found = try_to_load_from_cache(repo_id, filename)
    except Exception:  # not a valid repo id: not cached
        return None
    return found if isinstance(found, str) else None


def _parser_row(parser: str) -> Row:
    name = f"parser: {parser}"
    path = Path(parser).expanduser()
    if path.is_dir():
        return Row(name, FOUND, f"local directory {path}")
    if "/" in parser or "." in parser:
        return Row(name, MISSING, f"benepar model directory {parser} not found{_stand_in('parser')}")
    where = find_nltk(f"models/{parser}")
    if where is not None:
        return Row(name, FOUND, where)
    how = f"python -c \"import benepar; benepar.download('{parser}')\"{_stand_in('parser')}"
    if offline():
        return Row(name, MISSING, f"not installed (offline); {how}")
    return Row(name, ON_FIRST_USE, f"downloaded by benepar on first use (needs the network); or: {how}")


def _model_row(spec: str, task: Any) -> Row:
    """A model under test, checked the way ``run`` will load it, short of loading it."""
    name = f"model: {spec}"
    if spec.startswith("file:"):
        path = Path(spec[len("file:") :]).expanduser()
        return (
            Row(name, FOUND, f"prediction file {path}")
            if path.is_file()
            else Row(name, MISSING, f"{path}: no such file")
        )
    if spec.startswith(("http://", "https://")):
        parts = urlsplit(spec)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            with socket.create_connection((parts.hostname or "", port), timeout=3):
                pass
        except OSError as e:
            return Row(name, MISSING, f"endpoint not reachable: {parts.hostname}:{port} ({e.strerror or e})")
        return Row(name, FOUND, f"endpoint accepts connections at {parts.hostname}:{port}")
    if spec.startswith("openai:"):
        key = "OPENAI_API_KEY"
        if os.environ.get(key):
            return Row(name, FOUND, f"chat model; API key in ${key} (not checked against the service)")
        return Row(
            name, MISSING, f"chat model: ${key} is not set (or pass --api-key-env / --api-key-file to run)"
        )
    target, sep, attr = spec.rpartition(":")
    if sep and target and attr.isidentifier() and not Path(spec).is_dir():
        if target.endswith(".py") or "/" in target:
            path = Path(target).expanduser()
            if not path.is_file():
                return Row(name, MISSING, f"callable: file {path} not found")
            return Row(name, FOUND, f"callable {attr} in {path} (not imported: run imports it)")
        try:
            found = importlib.util.find_spec(target)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return Row(name, MISSING, f"callable: module {target!r} not importable (check PYTHONPATH)")
        return Row(name, FOUND, f"callable {attr} in module {target} ({found.origin}; not imported)")
    return _hf_row(name, spec, "model", task)


def check(
    task: str = "sentiment",
    models: list[str] | None = None,
    command: str | None = None,
    *,
    lexicon: str | None = None,
    parser: str = "benepar_en3",
    mlm: str = DEFAULT_MLM,
    grammar: str = "ptb_sample",
) -> list[Row]:
    """The rows of the pre-flight for ``command`` (generate, run, or None: both) on ``task``."""
    if command not in (None, *COMMANDS):
        raise InputError(f"--for {command!r}: expected one of {', '.join(COMMANDS)}")
    try:
        spec = load_spec(None, task)
    except InputError as e:
        return [Row(f"task: {task}", MISSING, str(e))]  # names the known tasks
    rows = [Row(f"task: {task}", FOUND, str(spec_path(None, task)))]
    if command in (None, "generate"):
        rows += _generate_rows(spec, spec.task.polarity_lexicon(lexicon), parser, mlm, grammar)
    if command in (None, "run"):
        if not models and command == "run":
            rows.append(Row("models under test", MISSING, "none named: pass --model M (repeatable)"))
        elif not models:
            rows.append(
                Row("models under test", NOT_NEEDED, "not checked: pass --model M to check them", False)
            )
        rows += [_model_row(m, spec.task) for m in models or ()]
    return rows


def _generate_rows(spec: Any, lexicon: str, parser: str, mlm: str, grammar: str) -> list[Row]:
    capabilities = spec.select(None)
    searched = any(c.needs_dataset for c in capabilities)  # dataset seeds: tagged and searched
    expandable = len(spec.task.inputs) == 1 and any(
        c.needs_dataset and c.test_type == "MFT" for c in capabilities
    )
    rows = []
    if searched:
        rows.append(
            _nltk_row(
                "POS tagger (search)",
                TAGGER,
                "averaged_perceptron_tagger_eng",
                True,
            )
        )
        if lexicon in LEXICONS:
            rows.append(_nltk_row(f"lexicon: {lexicon}", *LEXICONS[lexicon], True))
        else:
            path = Path(lexicon).expanduser()
            rows.append(Row(f"lexicon: {lexicon}", FOUND if path.exists() else MISSING, str(path)))
    rows.append(
        _nltk_row(
            "punkt_tab (sentences; a plain splitter otherwise)",
            "tokenizers/punkt_tab/english",
            "punkt_tab",
            False,
        )
    )
    if not expandable:
        rows.append(
            Row(
                "expansion (parser, grammar, masked LM)",
                NOT_NEEDED,
                f"not used: task {spec.task.name} is not expanded",
                False,
            )
        )
        return rows
    grammar_path = Path(grammar).expanduser()
    if grammar_path.is_dir():  # a treebank to build the reference PCFG from
        rows.append(Row(f"grammar: treebank {grammar_path}", FOUND, str(grammar_path)))
    elif grammar_path.is_file():
        rows.append(Row(f"grammar: {grammar}", FOUND, str(grammar_path)))
    else:
        shipped = project_file(f"grammars/{grammar}.json")
        detail = (
            str(shipped) if shipped.is_file() else f"no file {grammar} and no shipped grammar {shipped.name}"
        )
        rows.append(Row(f"grammar: {grammar}", FOUND if shipped.is_file() else MISSING, detail))
    rows.append(_parser_row(parser))
    rows.append(_hf_row(f"masked LM: {mlm}", mlm, "mlm"))
    return rows


def parts() -> list[tuple[str, str, str]]:
    """``(kind, name, origin)`` of every registered part: origin ``autocheck`` or the plug-in package that
    adds it (plug-ins are listed from their entry points, none is loaded)."""
    registries: tuple[Registry, ...] = (
        TASKS, LANGUAGES, OUTPUT_KINDS, SOURCES, MODELS, DATASETS, LEXICON_PARTS, PERTURBATIONS, CHECKS,
        EXECUTORS,
    )  # fmt: skip
    return [(r.what, name, origin) for r in registries for name, origin in r.origins().items()]
