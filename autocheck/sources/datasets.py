"""Dataset adapters: a source -> a stream of labelled, normalised ``Example``s.

``load_examples(source)`` reads ``FORMAT:LOCATION`` with the registered reader ``FORMAT`` (``DATASETS``:
autocheck's ``csv``, ``tsv``, ``jsonl``, ``sst``, ``hatexplain``, ``hf``, ``conll``, and a plug-in's), and
otherwise decides by the shape of ``source``:

* a folder with ``datasetSentences.txt`` — the original SST release (``stanfordSentimentTreebank/``): each
  sentence is labelled with the score of the identical phrase in ``dictionary.txt``/``sentiment_labels.txt``
  (matched as written, then after the original's normalisation: PTB brackets, mojibake). Ids ``sst:<index>``.
* a folder with ``SSTB_{train,dev,test}.csv``, or one such file — the derived SST sentence table (columns
  ``sentence_index, sentence, splitset_label, values``). Ids ``sst:<sentence_index>``, as above.
* a folder holding ``{train,dev,test}.txt`` PTB trees (``trainDevTestTrees_PTB/`` or its ``trees/``), or one
  such file — SST trees; root label 0–1 negative, 2 neutral, 3–4 positive; text = leaves. Ids
  ``sst-ptb:<split>:<line>``.
* a ``.tsv`` whose header is ``sentence<TAB>label`` (GLUE SST-2): labels 0 negative, 1 positive; ids
  ``sst2:<file stem>:<row>``. GLUE's ``test.tsv`` has no labels and is refused.
* HateXplain's ``dataset.json`` (posts with ``post_tokens`` and three ``annotators``): text = the tokens
  joined, label = the annotators' majority, ``hatespeech`` → ``hateful``, ``offensive``/``normal`` →
  ``non-hateful`` (as ALiCT's hate-speech code reads it); posts without a majority are skipped
  ("undecided"). Ids ``hatexplain:<post_id>``.
* HateCheck's ``test_suite_cases.csv`` (columns ``test_case``, ``label_gold``, ``functionality``): ids
  ``hatecheck:<case_id>``; the other columns (functionality, target_ident, ...) are kept as metadata.
* any other ``.csv``/``.tsv``/``.jsonl`` — ``text_column`` (default ``text`` or ``sentence``) and
  ``label_column`` (default ``label``); labels are the column's strings, translated by ``label_map`` when
  given (unmapped labels are skipped); a list of answers (question answering) is kept as a tuple. Ids
  ``<file stem>:<row>``. For a task with several input fields (``inputs``), each field is read from the
  column of the same name unless ``input_columns`` maps it (``{"premise": "sentence1"}``). The row's other
  columns are kept as the example's metadata (search can select on them).
* ``conll:PATH`` — token-per-line NER data (``sources.conll``, a registered reader): one example per
  sentence, labelled with its entity spans (read with ``entities=True``). Ids ``conll:<line>``.
* a folder saved with ``datasets.Dataset.save_to_disk`` or anything else that is not a path — a Hugging Face
  dataset (``datasets.load_from_disk`` / ``datasets.load_dataset``). Class-label columns give their names,
  float labels (the original HF ``sst``) go through ``sst_label``. Ids ``<id>:<split>:<row>``.

SST splits are ``train``/``dev``/``test`` (``validation`` = ``dev``); ``split=None`` reads all of them, as the
paper does. A bad row is skipped and counted by reason in ``stats``; a missing file or column raises
``InputError`` naming it.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import ahocorasick
import contractions
from charset_normalizer import from_bytes

from ..outputs.entities import as_entities
from ..records import Example
from ..registry import Registry
from ..resources import ResourceMissing
from ..store import InputError, load_json
from ..tagging import engines_agree, guarded
from .conll import read_conll

log = logging.getLogger(__name__)

SPLITS = ("train", "dev", "test")
SST_SPLIT_CODES = {"1": "train", "2": "test", "3": "dev"}  # datasetSplit.txt / splitset_label
SST2_LABELS = {"0": "negative", "1": "positive"}
TREE_LABELS = {"0": "negative", "1": "negative", "2": "neutral", "3": "positive", "4": "positive"}


@dataclass
class DatasetStats:
    read: int = 0
    kept: int = 0
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    encoding: str | None = None  # the encoding asked for (``--encoding``); None: detected per file
    encodings: dict[str, str] = field(default_factory=dict)  # file -> the encoding it was read with
    # labels no rule accepted, with their counts (the first MAX_UNKNOWN distinct ones: memory stays bounded)
    unknown_labels: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # progress only, so not fields (the manifest records the fields): the bytes of the file to read
        # (None: not known, a folder or a Hugging Face dataset) and those read so far
        self.size: int | None = None
        self.bytes_read = 0

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def unknown_label(self, label: str) -> None:
        self.skip("unknown label")
        if label in self.unknown_labels or len(self.unknown_labels) < MAX_UNKNOWN:
            self.unknown_labels[label] = self.unknown_labels.get(label, 0) + 1


MAX_UNKNOWN = 20


def sst_label(score: float) -> str:
    """SST phrase score -> three classes, as the paper: ≤0.4 negative, >0.6 positive, else neutral."""
    return "negative" if score <= 0.4 else "positive" if score > 0.6 else "neutral"


# ---------------------------------------------------------------------------------------------- normalisation

PTB_ESCAPES = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{", "-RCB-": "}"}
_PTB_ESCAPE = re.compile(r"-[LR][RSC]B-|\\(?=[/*])")
# UTF-8 read as Latin-1 ("Ã©" for "é", "Ã " for "à"): the general form of the original's fix-up table.
_MOJIBAKE = re.compile("[\u00c2\u00c3][\u0080-\u00bf]")
# Plain quotes attached to a word become PTB quote tokens so the detokenizer places them (idempotence).
_QUOTES = [(re.compile(r'(?<!\S)"(?=\S)'), "`` "), (re.compile(r'(?<=\S)"(?!\S)'), " ''")]
_SPACED = [(re.compile(r"(?<=[\w)\]])(--|\.\.\.)(?=[\w(\[])"), r" \1 "), (re.compile(r"``|''"), '"')]


# A literal each match of NLTK's detokenizer pattern holds (one of them, where several): a text without any
# is left as it is by the pattern, so the pattern is not run (case-insensitive ones: on ASCII text, which
# ``str.lower`` folds exactly as the pattern does). A pattern missing here is always run.
_DETOKENIZER_NEEDLES: dict[str, tuple[str, ...]] = {
    " ('t)\\s(is)\\b": ("'t",),
    " ('t)\\s(was)\\b": ("'t",),
    "\\b(can)\\s(not)\\b": ("can",),
    "\\b(d)\\s('ye)\\b": ("'ye",),
    "\\b(gim)\\s(me)\\b": ("gim",),
    "\\b(gon)\\s(na)\\b": ("gon",),
    "\\b(got)\\s(ta)\\b": ("got",),
    "\\b(lem)\\s(me)\\b": ("lem",),
    "\\b(more)\\s('n)\\b": ("'n",),
    "\\b(wan)\\s(na)(?=\\s)": ("wan",),
    "([^' ])\\s('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ": ("'",),
    "([^' ])\\s('[sS]|'[mM]|'[dD]|') ": ("'",),
    "([^'\\s])\\s(\\'\\')": ("''",),
    "([,.;:!?'])\\s+(\\\"|\\'\\')": ('"', "''"),
    "(\\'\\')\\s([.,:)\\]>};%])": ("''",),
    "''": ("''",),
    "([,.;:!?])\"(\\')": ("\"'",),
    " -- ": ("--",),
    "([\\[\\(\\{\\<])\\s": tuple("[({<"),
    "\\s([\\]\\)\\}\\>])": tuple("])}>"),
    "([\\]\\)\\}\\>])\\s([:;,.])": tuple("])}>"),
    "([^'])\\s'\\s": ("'",),
    "\\s([?!])": ("?", "!"),
    "([^\\.])\\s(\\.)(?!\\.)([\\]\\)}>\"\\']*)": (".",),
    "([#$])\\s": ("#", "$"),
    "\\s([;%])": (";", "%"),
    "\\s\\.\\.\\.\\s": ("...",),
    "\\s([:,])": (":", ","),
    "([ (\\[{<])\\s``": ("``",),
    "(``)\\s": ("``",),
    "``": ("``",),
}


@lru_cache(maxsize=1)
def _detokenizer() -> Callable[[str], str]:
    """NLTK's ``TreebankWordDetokenizer`` (its own patterns, in its order) on the standard ``re`` engine,
    with a first test that skips text none of its patterns can match, and each pattern run only on text
    holding one of its ``_DETOKENIZER_NEEDLES``: NLTK's guarded engine costs about 0.25 ms a sentence, which
    bounded loading to a few thousand rows a second."""
    from nltk.tokenize.treebank import TreebankWordDetokenizer

    nltk = TreebankWordDetokenizer()

    def step(pattern: Any, sub: str) -> tuple[Any, str]:
        return guarded(pattern, _DETOKENIZER_NEEDLES), sub

    early = [step(p, r"\1\2") for p in (*nltk.CONTRACTIONS3, *nltk.CONTRACTIONS2)]
    early += [step(p, sub) for p, sub in nltk.ENDING_QUOTES]
    later = [step(p, sub) for p, sub in (nltk.DOUBLE_DASHES, *nltk.PARENS_BRACKETS, *nltk.PUNCTUATION,
                                         *nltk.STARTING_QUOTES)]  # fmt: skip
    # What some pattern needs (a quote after a space, '' or "', a padded punctuation mark or bracket, "--",
    # "can not", ...): a superset test, cheap because each alternative starts with a class or a literal.
    anything = re.compile(
        r"\s['\"]|\s[nN]'|''|\"'|``|--|\s[?!.;%:,\])}>]|[#$\[({<]\s|[\])}>]\s[:;,.]"
        r"|(?i:\b(?:can|gim|gon|got|lem|wan)\s)"
    )

    def run(steps: list[tuple[Any, str]], text: str) -> str:  # on texts engines_agree accepts only
        for pattern, sub in steps:
            text = pattern.sub(sub, text)
        return text

    def detokenize(text: str) -> str:
        if not engines_agree(text):
            return nltk.detokenize([text])  # " ".join of its one token: the text itself
        text = f" {text} "
        if not anything.search(text):  # no pattern matches: every step would leave the text as it is
            return text.strip()
        text = run(early, text).strip()
        return run(later, text).strip()

    return detokenize


def unescape_ptb(text: str) -> str:
    """``-LRB-`` -> ``(`` (and the other bracket escapes), ``\\/`` -> ``/``, ``\\*`` -> ``*``."""
    return _PTB_ESCAPE.sub(lambda m: PTB_ESCAPES.get(m.group(), ""), text)


def fix_mojibake(text: str) -> str:
    return _MOJIBAKE.sub(lambda m: m.group().encode("latin-1").decode("utf-8", errors="replace"), text)


# "'s"/"'d" before a past participle (after adverbs) are "has"/"had": ``contractions.fix`` reads them as
# "is"/"would" ("she's never been" -> "she is never been", "I'd been sitting" -> "I would been sitting").
_ADVERBS = r"(?:\s+(?:\w+ly|never|not|n't|already|ever|always|just|still|also|since|long|all))*"
_PERFECT = [  # (the contraction, lowercased: a text without it is left as it is; pattern; replacement)
    ("'s", re.compile(rf"(?<=\w)'s({_ADVERBS}\s+(?:been|got|gotten)\b)", re.I), r" has\1"),
    (
        "'d",
        re.compile(rf"(?<=\w)'d({_ADVERBS}\s+(?:been|gone|had|got|gotten|seen|done|known|better)\b)", re.I),
        r" had\1",
    ),
]


@lru_cache(maxsize=2)
def _triggers(expand: bool) -> Any:
    """An Aho-Corasick automaton of the substrings some step of ``_normalize`` needs in order to change an
    ASCII text once its whitespace is collapsed, searched for in `` {text} `` lowercased, each with the
    step's kind: "full" (PTB escapes, quotes, detokenisation, spaced dashes) or "expand" (contraction
    expansion). A superset: a text holding none of them comes back as collapsed, one holding only "expand"
    ones goes through ``_expand`` alone. Loading is bound by ``normalize_text``, most rows of a dataset need
    nothing but the collapse, and one pass of this automaton costs less than any one step."""
    full = [
        '"', "`", "\\", "b-", "--", "...",  # quotes, PTB escapes ("B-" lowercased), spaced dashes and dots
        # the detokenizer's first test (``anything`` in _detokenizer) on `` {text} ``: whitespace is " "
        " '", " n'", "''", *(f" {c}" for c in "?!.;%:,])}>"), *(f"{c} " for c in "#$[({<"),
        *(f"{word} " for word in ("can", "gim", "gon", "got", "lem", "wan")),
    ]  # fmt: skip
    kinds = dict.fromkeys(full, "full")
    if expand:
        # contractions.fix rewrites a few words without an apostrophe too ("gonna", "jan.", "to cause")
        words = (*contractions.contractions_dict, *contractions.leftovers_dict)
        rewritten = [w.lower() for w in words if w.isascii() and "'" not in w]
        kinds |= {needle: "expand" for needle in ("'", " is been ", *rewritten) if needle not in kinds}
    automaton = ahocorasick.Automaton()
    for needle, kind in kinds.items():
        automaton.add_word(needle, kind)
    automaton.make_automaton()
    return automaton


def normalize_text(text: str, expand: bool = True) -> str:
    """Make dataset text read like ordinary prose, as the paper's seeds do. In order:

    1. mojibake repair (``AmÃ©lie`` -> ``Amélie``);
    2. PTB escapes (``-LRB-`` -> ``(``, ``\\/`` -> ``/``);
    3. PTB detokenisation of the whitespace tokens with NLTK's ``TreebankWordDetokenizer`` (``It 's`` ->
       ``It's``, ``does n't`` -> ``doesn't``, ``film , and`` -> ``film, and``, ````` x ''`` -> ``"x"``),
       then the original's fixes: ``--`` and ``...`` between words keep their spaces, stray PTB quotes
       become ``"``;
    4. with ``expand`` (the paper's normalisation, which the word searches rely on), contraction expansion
       with ``contractions.fix`` (``isn't`` -> ``is not``, ``it's`` -> ``it is``; possessives such as ``the
       film's`` are kept), where "'s" and "'d" before a past participle are "has" and "had" (``she's never
       been`` -> ``she has never been``, ``I'd been`` -> ``I had been``). Slang expansion is off: it
       rewrites ``U.S.`` to ``YOU.S.``, ``shed`` to ``she would`` and ``lets`` to ``let us`` in real SST
       sentences. Without ``expand`` the contractions stay as written;
    5. whitespace collapsed.

    Later stages rely on this: "This isn't" is already "This is not" before negation templates run. Text that
    is already normal comes back unchanged, so the function is idempotent.
    """
    if text.isascii():  # what _normalize returns, at a fraction of its cost (loading is bound by this)
        plain = " ".join(text.split())
        kinds = {kind for _, kind in _triggers(expand).iter(f" {plain} ".lower())}
        if not kinds:
            return plain
        if kinds == {"expand"}:
            return _expand(plain)
    return _normalize(text, expand)


def _normalize(text: str, expand: bool) -> str:
    """``normalize_text``'s steps, each run only where its patterns can match (a plain substring test
    first)."""
    if "\u00c2" in text or "\u00c3" in text:
        text = fix_mojibake(text)
    if "B-" in text or "\\" in text:
        text = unescape_ptb(text)
    if '"' in text:
        for pattern, replacement in _QUOTES:
            text = pattern.sub(replacement, text)
    text = _detokenizer()(" ".join(text.split()))
    if "--" in text or "..." in text or "``" in text or "''" in text:
        for pattern, replacement in _SPACED:
            text = pattern.sub(replacement, text)
    return _expand(text) if expand else " ".join(text.split())


def _expand(text: str) -> str:
    """Step 4 of ``normalize_text`` (contraction expansion), then step 5."""
    if "'" in text:
        for contraction, pattern, replacement in _PERFECT:
            if contraction in text.lower():
                text = pattern.sub(replacement, text)
    # contractions.fix matches in text.lower(), whose positions shift after "\u0130" (the one character whose
    # lowercase is two): it read the wrong spans or raised IndexError. Each part between them is fixed on
    # its own, which matches the same words, since only ASCII letters, digits and "_" join a word there.
    parts = text.split("\u0130")
    text = "\u0130".join(contractions.fix(part, slang=False) for part in parts)
    text = text.replace(" is been ", " has been ")
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------------- rows


UNLABELLED = object()  # the label of a row read without a label column


def _example(
    stats: DatasetStats,
    source: str,
    example_id: str,
    text: Any,
    label: Any,
    spec: Columns,
    meta: dict[str, Any] | None = None,
) -> Example | None:
    """One row -> an Example, or None with the reason counted. ``text`` is one text or a dict of fields."""
    if spec.max_rows is not None and stats.read >= spec.max_rows:
        raise _Enough
    stats.read += 1
    fields = text if isinstance(text, dict) else {"text": text}
    values = [*fields.values(), *(label if isinstance(label, list | tuple) else [label])]
    if any(isinstance(v, str) and not v.isascii() and _SURROGATE.search(v) for v in values):
        stats.skip("undecodable")
        return None
    label = spec.label_of(label, stats)
    if label is None:
        return None
    # entity offsets point into the text as given: normalising it would move them
    inputs = {
        name: (v if spec.entities else normalize_text(v, spec.expand)) if isinstance(v, str) else ""
        for name, v in fields.items()
    }
    if not all(inputs.values()):
        stats.skip("empty text")
        return None
    if not all(_VISIBLE.search(v) for v in inputs.values()):
        stats.skip("no visible text")  # only NUL bytes, control or format characters
        return None
    stats.kept += 1
    extra = {k: str(v) for k, v in (meta or {}).items() if v not in (None, "")}
    return Example(id=example_id, inputs=inputs, label=label, source=source, meta=extra)


# a character that is neither whitespace nor a control, format or unassigned one (Unicode Cc, Cf, Cn, Zs...)
_VISIBLE = re.compile(r"[^\s\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202f\u2060-\u206f\ufeff\ufff0-\uffff]")


_SURROGATE = re.compile("[\udc80-\udcff]")
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))  # fmt: skip
_WIDE = {"utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "utf-32-be"}
_NON_ASCII = re.compile("[\u0080-\udc7f\udd00-\U0010ffff]")


def detect_encoding(path: Path) -> str:
    """The encoding of a text file: a BOM's; else UTF-8 when the file decodes as UTF-8, or when it holds
    real UTF-8 text beside a few bad bytes (those rows are skipped as undecodable); else a legacy 8-bit
    file: ``charset_normalizer``'s guess where most letters are non-ASCII (Cyrillic, Greek, ...; short
    Latin text fools it), Windows-1252 when that decodes the file, Latin-1 (decodes anything) otherwise."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="surrogateescape")
    invalid = multibyte = False
    high = total = 0
    sample = b""
    with open(path, "rb") as f:
        head = f.read(4)
        for bom, name in _BOMS:
            if head.startswith(bom):
                return name
        f.seek(0)
        for block in iter(lambda: f.read(1 << 20), b""):
            sample = sample or block
            text = decoder.decode(block)
            invalid = invalid or bool(_SURROGATE.search(text))
            multibyte = multibyte or bool(_NON_ASCII.search(text))
        text = decoder.decode(b"", final=True)
        invalid = invalid or bool(_SURROGATE.search(text))
    if not invalid or multibyte:
        return "utf-8"
    letters = bytes(b for b in sample if b > 0x20)
    high, total = sum(b >= 0x80 for b in letters), len(letters)
    if total and high / total > 0.3:
        best = from_bytes(sample).best()
        if best is not None:
            return best.encoding
    try:
        with open(path, encoding="cp1252") as f:
            for _ in iter(lambda: f.read(1 << 20), ""):
                pass
        return "cp1252"
    except UnicodeDecodeError:
        return "latin-1"


def _open_text(path: Path, stats: DatasetStats) -> Any:
    """Open a text file in ``stats.encoding`` or the detected one (recorded in ``stats.encodings``);
    undecodable bytes survive as surrogates so their row can be skipped, not the file."""
    try:
        encoding = stats.encodings.get(str(path)) or stats.encoding or detect_encoding(path)
        if str(path) not in stats.encodings and encoding != "utf-8":
            log.info("%s: read as %s", path, encoding)
        stats.encodings[str(path)] = encoding
        # surrogateescape needs an ASCII-compatible codec; UTF-16/32 bad bytes become U+FFFD instead
        errors = "surrogateescape" if codecs.lookup(encoding).name not in _WIDE else "replace"
        raw = _Counted(open(path, "rb"), stats)
        return io.TextIOWrapper(io.BufferedReader(raw, 1 << 16), encoding=encoding, errors=errors, newline="")
    except OSError as e:
        raise InputError(f"{path}: cannot read ({e.strerror})") from None


class _Counted(io.RawIOBase):
    """A binary file that adds the bytes it reads to ``stats.bytes_read`` (progress against the size)."""

    def __init__(self, raw: Any, stats: DatasetStats):
        self._raw, self._stats = raw, stats

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._raw.readinto(buffer)
        self._stats.bytes_read += n or 0
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def _split_name(split: str | None) -> str | None:
    if split is None:
        return None
    name = "dev" if split == "validation" else split
    if name not in SPLITS:
        raise InputError(f"split {split!r}: expected one of {', '.join(SPLITS)}")
    return name


def _rows(
    path: Path, delimiter: str, required: Iterable[str], stats: DatasetStats
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) of a CSV/TSV file; a missing required column is an InputError."""
    with _open_text(path, stats) as f:
        quoting: Literal[0, 3] = csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL
        reader = csv.DictReader(f, delimiter=delimiter, quoting=quoting)
        columns = reader.fieldnames or []
        for column in required:
            if column not in columns:
                raise InputError(f"{path}: no column {column!r} (columns: {', '.join(columns) or 'none'})")
        try:
            for row in reader:
                yield reader.line_num, row
        except csv.Error as e:  # e.g. a field over the csv module's size limit, a NUL byte
            raise InputError(f"{path}:{reader.line_num}: unreadable CSV ({e})") from None


# ---------------------------------------------------------------------------------------------- SST


def _sst_table(path: Path, split: str | None, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    required = ("sentence_index", "sentence", "splitset_label", "values")
    for _, row in _rows(path, ",", required, stats):
        if split is not None and SST_SPLIT_CODES.get(row["splitset_label"]) != split:
            continue
        try:
            label = sst_label(float(row["values"]))
        except (TypeError, ValueError):
            stats.read += 1
            stats.skip("bad score")
            continue
        if ex := _example(stats, "sst", f"sst:{row['sentence_index']}", row["sentence"], label, spec):
            yield ex


def _read_pipe_table(path: Path, header: bool, stats: DatasetStats) -> dict[str, str]:
    """``a|b`` lines -> {a: b} (SST's dictionary.txt and sentiment_labels.txt)."""
    with _open_text(path, stats) as f:
        lines = f.read().splitlines()[1 if header else 0 :]
    return dict(line.rsplit("|", 1) for line in lines if "|" in line)


def _check_sst_original(folder: Path, split: str | None) -> None:
    for name in ("dictionary.txt", "sentiment_labels.txt"):
        if not (folder / name).is_file():
            derived = folder.parent / "derived_sentence_labels"
            hint = derived if derived.is_dir() else "a derived sentence table (SSTB_{train,dev,test}.csv)"
            raise InputError(f"{folder / name}: missing; sentences cannot be labelled without it. Use {hint}")
    if split is not None and not (folder / "datasetSplit.txt").is_file():
        raise InputError(f"{folder / 'datasetSplit.txt'}: missing; needed for split={split!r}")


def _sst_original(folder: Path, split: str | None, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    phrase_ids = _read_pipe_table(folder / "dictionary.txt", header=False, stats=stats)
    scores = _read_pipe_table(folder / "sentiment_labels.txt", header=True, stats=stats)
    splits: dict[str, str] = {}
    if split is not None:
        with _open_text(folder / "datasetSplit.txt", stats) as f:
            splits = dict(line.strip().split(",", 1) for line in f.read().splitlines()[1:] if "," in line)
    for _, row in _rows(folder / "datasetSentences.txt", "\t", ("sentence_index", "sentence"), stats):
        index, sentence = row["sentence_index"], row["sentence"] or ""
        if split is not None and SST_SPLIT_CODES.get(splits.get(index, "")) != split:
            continue
        # Match as written, then after the original's normalisation (brackets, mojibake).
        candidates = (sentence, sentence.replace("-LRB-", "(").replace("-RRB-", ")"))
        phrase_id = next(
            (phrase_ids[c] for c in (*candidates, fix_mojibake(candidates[1])) if c in phrase_ids), None
        )
        if phrase_id is None or phrase_id not in scores:
            stats.read += 1
            stats.skip("not in phrase dictionary")
            continue
        try:
            label = sst_label(float(scores[phrase_id]))
        except ValueError:
            stats.read += 1
            stats.skip("bad score")
            continue
        if ex := _example(stats, "sst", f"sst:{index}", sentence, label, spec):
            yield ex


_TREE_LEAF = re.compile(r"\(\d+ ([^()\s]+)\)")
_TREE_ROOT = re.compile(r"\s*\((\d+)\s")


def _sst_trees(path: Path, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    with _open_text(path, stats) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            root = _TREE_ROOT.match(line)
            if root is None or root.group(1) not in TREE_LABELS:
                stats.read += 1
                stats.skip("malformed tree")
                continue
            text = " ".join(_TREE_LEAF.findall(line))
            label = TREE_LABELS[root.group(1)]
            if ex := _example(stats, "sst-ptb", f"sst-ptb:{path.stem}:{lineno}", text, label, spec):
                yield ex


# ---------------------------------------------------------------------------------------------- generic files


@dataclass(frozen=True)
class Columns:
    """Where a row's fields are: the task's input fields and the columns that hold them, and the label."""

    inputs: tuple[str, ...] = ("text",)
    text_column: str | None = None  # a one-field task's text column
    input_columns: dict[str, str] = field(default_factory=dict)  # input field -> column (several fields)
    label_column: str | None = None
    label_map: dict[str, str] | None = None
    labelled: bool = True  # False: rows need no label (perturbations for INV/DIR tests)
    labels: tuple[str, ...] = ()  # the task's labels, which a row's (mapped) label must be one of; (): any
    expand: bool = True  # expand contractions (``normalize_text``)
    max_rows: int | None = None  # stop reading after this many rows
    entities: bool = False  # labels are entity spans (an NER task): kept as is, text not normalised

    def label_of(self, label: Any, stats: DatasetStats) -> str | tuple[str, ...] | None:
        """A row's label checked against the task's labels (after ``label_map``), or None with the reason
        counted. Unlabelled reading keeps every row: a missing or unknown label becomes ""."""
        if label is UNLABELLED:
            return ""
        if self.entities:  # a sentence without entities is labelled too: it has none
            try:
                spans = as_entities(label, "label")
            except ValueError:
                stats.skip("malformed entities")
                return None
            types = self.label_map or {}  # the dataset's types in the task's (PER=PERSON)
            return tuple((s, e, types.get(kind, kind)) for s, e, kind in spans)  # type: ignore[misc]
        if isinstance(label, list | tuple):  # the acceptable answers of a question
            answers = tuple(str(a).strip() for a in label if str(a).strip())
            if not answers and self.labelled:
                stats.skip("missing label")
                return None
            return answers
        raw = "" if label is None else str(label).strip()
        if raw == "":
            if self.labelled:
                stats.skip("missing label")
                return None
            return ""
        mapped = self.label_map.get(raw) if self.label_map is not None else raw
        if mapped is None or (self.labels and mapped not in self.labels):
            if self.labelled:
                stats.unknown_label(raw)
                return None
            return ""
        return mapped

    def fields(self, columns: list[str], where: Path) -> dict[str, str]:
        """Input field -> column of this file."""
        if len(self.inputs) == 1:
            return {self.inputs[0]: _pick(columns, self.text_column, ("text", "sentence"), where, "text")}
        found = {name: self.input_columns.get(name, name) for name in self.inputs}
        missing = [c for c in found.values() if c not in columns]
        if missing:
            raise InputError.hint(
                f"{where}: no column {missing[0]!r} for the input fields {list(self.inputs)} "
                f"(columns: {', '.join(columns)}); map them with {{columns}}",
                columns=("input_columns={FIELD: COLUMN}", "--input-column FIELD=COLUMN"),
            )
        return found

    def label(self, columns: list[str], where: Path) -> str | None:
        if not self.labelled and self.label_column is None and not {"label", "answers"} & set(columns):
            return None
        return _pick(columns, self.label_column, ("label", "answers"), where, "label")


def _pick(columns: list[str], wanted: str | None, defaults: tuple[str, ...], path: Path, what: str) -> str:
    if wanted is not None:
        return wanted  # checked by _rows / the JSONL reader
    found = next((c for c in defaults if c in columns), None)
    if found is None:
        raise InputError.hint(
            f"{path}: no {what} column {' or '.join(map(repr, defaults))} (columns: {', '.join(columns)}); "
            f"pass {{column}}{' (GLUE test files are unlabelled)' if what == 'label' else ''}",
            column=f"{what}_column=NAME",
        )
    return found


def _header(path: Path, delimiter: str, stats: DatasetStats) -> list[str]:
    with _open_text(path, stats) as f:
        return next(csv.reader(f, delimiter=delimiter), [])


HATECHECK_COLUMNS = {"test_case", "label_gold", "functionality"}


def _table_file(path: Path, spec: Columns, stats: DatasetStats, delimiter: str) -> Iterator[Example]:
    columns = _header(path, delimiter, stats)
    source, prefix, id_column = path.stem, path.stem, None
    if delimiter == "\t" and columns == ["sentence", "label"] and spec.label_map is None:  # GLUE SST-2
        source, prefix = "sst2", f"sst2:{path.stem}"
        spec = replace(spec, label_map=SST2_LABELS)
    if HATECHECK_COLUMNS <= set(columns) and spec.text_column is None and spec.label_column is None:
        source, prefix, id_column = "hatecheck", "hatecheck", "case_id"
        spec = replace(spec, text_column="test_case", label_column="label_gold")
    fields = spec.fields(columns, path)
    label_col = spec.label(columns, path)
    used = {*fields.values(), label_col}
    required = (*fields.values(), *([label_col] if label_col else []))
    for lineno, row in _rows(path, delimiter, required, stats):
        inputs = {name: row[column] for name, column in fields.items()}
        key = row.get(id_column) if id_column else None
        meta = {k: v for k, v in row.items() if k not in used and k}
        label = _answers(row[label_col]) if label_col else UNLABELLED
        if ex := _example(stats, source, f"{prefix}:{key or lineno}", inputs, label, spec, meta):
            yield ex


def _answers(value: Any) -> Any:
    """A label cell holding a JSON list (question answering's acceptable answers) -> the list."""
    if isinstance(value, str) and value.startswith("["):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return value
        return parsed if isinstance(parsed, list) else value
    return value


def _jsonl_file(path: Path, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    with _open_text(path, stats) as f:
        yield from _objects(path.stem, path, _json_lines(f), spec, stats)


def _json_lines(lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """(line number, the object or None when the line is no JSON) of each non-empty line."""
    for lineno, line in enumerate(lines, 1):
        if line.strip():
            try:
                yield lineno, json.loads(line)
            except json.JSONDecodeError:
                yield lineno, None


def _objects(
    name: str, where: Path | str, rows: Iterable[tuple[int, Any]], spec: Columns, stats: DatasetStats
) -> Iterator[Example]:
    """Examples of JSON-like rows (a JSONL file's, a plug-in reader's): the first row decides the columns;
    a row that is no object is skipped and counted."""
    fields: dict[str, str] = {}
    label_col = ""
    for lineno, obj in rows:
        if not isinstance(obj, dict):
            stats.read += 1
            stats.skip("malformed row")
            continue
        if not fields:  # the first object decides the columns
            at = Path(f"{where}:{lineno}")
            fields = spec.fields(list(obj), at)
            label_col = spec.label(list(obj), at) or ""
            for column in (*fields.values(), *([label_col] if label_col else [])):
                if column not in obj:
                    raise InputError(f"{at}: no field {column!r} (fields: {', '.join(obj)})")
        inputs = {field: obj.get(column) for field, column in fields.items()}
        used = {*fields.values(), label_col}
        meta = {k: v for k, v in obj.items() if k not in used and isinstance(v, str | int | float)}
        label = obj.get(label_col) if label_col else UNLABELLED
        ex = _example(stats, name, f"{name}:{lineno}", inputs, label, spec, meta)
        if ex:
            yield ex


# Dataset readers by name (``--dataset NAME:LOCATION``). A plug-in's reader is a function ``(location,
# split)`` yielding rows, each a mapping of column to value as a JSONL line holds them (the task's input
# fields or ``text``, and ``label``); ``--text-column``/``--label-column``/``--label-map`` apply as to a file.
# autocheck's own formats are ``Format``s, registered under their names too (``autocheck plugins`` lists
# them) and also found by path; a plug-in adds a reader through the entry-point group "autocheck.datasets".
Reader = Callable[[str, str | None], Iterable[Mapping[str, Any]]]


@dataclass(frozen=True)
class Format:
    """A dataset format autocheck reads itself: ``open(location, split, columns, stats)`` checks the
    location now (a missing file or split fails at once) and returns the stream of its examples. It needs
    more than a plug-in's reader gets: the column settings and the stats it counts bytes, encodings and
    skipped rows into as it reads."""

    open: Callable[[str, str | None, Columns, DatasetStats], Callable[[], Iterator[Example]]]


DATASETS: Registry[Reader | Format] = Registry("datasets", "dataset reader")
DATASETS.register("conll", read_conll)


def _reader(source: str) -> tuple[Reader | Format, str] | None:
    """The reader ``NAME:`` in front of ``source`` names, and the location after it."""
    prefix, sep, location = source.partition(":")
    return (DATASETS.get(prefix), location) if sep and len(prefix) > 1 and prefix in DATASETS else None


HATEXPLAIN_LABELS = {"hatespeech": "hateful", "offensive": "non-hateful", "normal": "non-hateful"}


def _hatexplain(path: Path, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    posts = load_json(path, "HateXplain dataset")
    if not isinstance(posts, dict):
        raise InputError(f"{path}: expected HateXplain's dataset.json (an object of posts)")
    for post_id, post in posts.items():
        try:
            text = " ".join(post["post_tokens"])
            votes = Counter(a["label"] for a in post["annotators"])  # majority first, as HateXplain
        except (KeyError, TypeError):
            raise InputError(
                f"{path}: post {post_id!r}: needs 'post_tokens' and 'annotators' with 'label'"
            ) from None
        (label, top), *rest = votes.most_common(2) or [("", 0)]
        if not top or (rest and rest[0][1] == top):
            stats.read += 1
            stats.skip("undecided")
            continue
        label = HATEXPLAIN_LABELS.get(label, label)
        if ex := _example(stats, "hatexplain", f"hatexplain:{post_id}", text, label, spec):
            yield ex


# ---------------------------------------------------------------------------------------------- Hugging Face


def _hf_rows(name: str, dataset: Any, split: str, spec: Columns, stats: DatasetStats) -> Iterator[Example]:
    columns = list(dataset.column_names)
    where = Path(f"{name}[{split}]")
    fields = spec.fields(columns, where)
    label_col = spec.label(columns, where)
    label_map = spec.label_map
    for column in (*fields.values(), label_col):
        if column not in columns:
            raise InputError(f"{where}: no column {column!r} (columns: {', '.join(columns)})")
    feature = dataset.features[label_col]
    names = getattr(feature, "names", None)
    is_float = getattr(feature, "dtype", "").startswith("float")

    def label_of(value: Any) -> Any:
        if value is None or label_map is not None:
            return value
        if names is not None and isinstance(value, int) and 0 <= value < len(names):
            return names[value]
        if isinstance(value, dict) and "text" in value:  # SQuAD's answers: {"text": [...], ...}
            return value["text"]
        return sst_label(float(value)) if is_float else value

    for i, row in enumerate(dataset):
        label = label_of(row[label_col])
        inputs = {field_name: row[column] for field_name, column in fields.items()}
        if ex := _example(stats, name, f"{name}:{split}:{i}", inputs, label, spec):
            yield ex


def _huggingface(
    source: str, split: str | None, spec: Columns, stats: DatasetStats
) -> Callable[[], Iterator[Example]]:
    """Load now (so a missing dataset fails at once); the returned function streams its examples."""
    import datasets

    local = Path(source).is_dir()
    try:
        loaded = datasets.load_from_disk(source) if local else datasets.load_dataset(source)
    except Exception as e:  # the hub and loaders raise many types; all mean "cannot get it"
        raise ResourceMissing(
            f"dataset '{source}' could not be loaded ({type(e).__name__}); "
            "check the Hugging Face id, or give a local file or folder (offline: it must be in the HF cache)"
        ) from None
    if isinstance(loaded, datasets.Dataset):
        parts = {split or "all": loaded}
    else:
        wanted = {"dev": ("dev", "validation")}.get(split or "", (split,)) if split else tuple(loaded)
        parts = {s: loaded[s] for s in wanted if s in loaded}
        if not parts:
            raise InputError(f"{source}: no split {split!r} (splits: {', '.join(loaded)})")
    name = Path(source).name if local else source
    return lambda: (
        ex for part, dataset in parts.items() for ex in _hf_rows(name, dataset, part, spec, stats)
    )


# ---------------------------------------------------------------------------------------------- dispatch


def _tree_files(folder: Path) -> list[Path]:
    trees = folder / "trees" if (folder / "trees").is_dir() else folder
    return [trees / f"{s}.txt" for s in SPLITS if (trees / f"{s}.txt").is_file()]


def _local(location: str, stats: DatasetStats) -> Path:
    path = Path(location)
    if not path.exists():
        raise InputError(f"{location}: no such file or folder")
    if path.is_file():
        stats.size = path.stat().st_size
    return path


def _file(read: Callable[[Path, str | None, Columns, DatasetStats], Iterator[Example]]) -> Format:
    """A format of one local file, read as it streams (each stream reads it again)."""

    def open_(location: str, split: str | None, spec: Columns, stats: DatasetStats):
        path = _local(location, stats)
        return lambda: read(path, split, spec, stats)

    return Format(open_)


def _open_sst(location: str, split: str | None, spec: Columns, stats: DatasetStats):
    """Any of the SST releases: the original folder, the derived sentence tables, the PTB trees (checked
    now, read as it streams)."""
    path = _local(location, stats)
    if path.is_file() and re.fullmatch(r"SSTB_\w+\.csv", path.name):
        return lambda: _sst_table(path, split, spec, stats)
    if path.is_file():
        return lambda: _sst_trees(path, spec, stats)
    if (path / "datasetSentences.txt").is_file():
        _check_sst_original(path, split)
        return lambda: _sst_original(path, split, spec, stats)
    tables = [path / f"SSTB_{s}.csv" for s in SPLITS if split in (None, s)]
    if all(t.is_file() for t in tables):
        return lambda: (ex for t in tables for ex in _sst_table(t, None, spec, stats))
    trees = [t for t in _tree_files(path) if split in (None, t.stem)]
    if not trees:
        raise InputError(f"{location}: no SST release here (datasetSentences.txt, SSTB_*.csv or PTB trees)")
    return lambda: (ex for t in trees for ex in _sst_trees(t, spec, stats))


DATASETS.register("sst", Format(_open_sst))
DATASETS.register("csv", _file(lambda path, split, spec, stats: _table_file(path, spec, stats, ",")))
DATASETS.register("tsv", _file(lambda path, split, spec, stats: _table_file(path, spec, stats, "\t")))
DATASETS.register("jsonl", _file(lambda path, split, spec, stats: _jsonl_file(path, spec, stats)))
DATASETS.register("hatexplain", _file(lambda path, split, spec, stats: _hatexplain(path, spec, stats)))
DATASETS.register("hf", Format(_huggingface))
_SUFFIX_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl"}


def _format_of(path: Path, sst: bool) -> str | None:
    """The name of the format a local path is in (``sst`` only for a task of one text), or None."""
    if path.is_dir():
        if sst and (
            (path / "datasetSentences.txt").is_file() or any(path.glob("SSTB_*.csv")) or _tree_files(path)
        ):
            return "sst"
        return "hf" if any(path.glob("*.json")) else None
    suffix = path.suffix.lower()
    if sst and re.fullmatch(r"SSTB_\w+\.csv", path.name):
        return "sst"
    if sst and suffix == ".txt" and path.read_text(encoding="utf-8", errors="replace")[:1] == "(":
        return "sst"
    if sst and suffix == ".json":
        return "hatexplain"
    return _SUFFIX_FORMATS.get(suffix)


def _resolve(
    source: str, split: str | None, spec: Columns, stats: DatasetStats
) -> Callable[[], Iterator[Example]]:
    named = _reader(source)
    if named is None:
        path = Path(source)
        if path.is_dir() or path.is_file():
            name = _format_of(path, sst=spec.inputs == ("text",))  # the SST formats hold one text
            if name is None and path.is_dir():
                raise InputError(
                    f"{path}: not a known dataset folder (SST release, SSTB_*.csv, PTB trees, HF save)"
                )
            if name is None:
                raise InputError(
                    f"{path}: unknown dataset file type "
                    "(expected .csv, .tsv, .jsonl, HateXplain .json or SST trees .txt)"
                )
            named = (DATASETS.get(name), source)
        elif path.suffix or source.startswith((".", "/", "~")) or source.count("/") > 1:
            raise InputError(f"{source}: no such file or folder")
        else:
            named = (DATASETS.get("hf"), source)
    reader, location = named
    if isinstance(reader, Format):
        return reader.open(location, split, spec, stats)
    name = source.partition(":")[0]
    return lambda: _objects(name, source, enumerate(reader(location, split), 1), spec, stats)


def load_examples(
    source: str,
    *,
    text_column: str | None = None,
    label_column: str | None = None,
    label_map: dict[str, str] | None = None,
    split: str | None = None,
    stats: DatasetStats | None = None,
    encoding: str | None = None,
    inputs: Sequence[str] = ("text",),
    input_columns: dict[str, str] | None = None,
    labelled: bool = True,
    labels: Sequence[str] = (),
    expand: bool = True,
    max_rows: int | None = None,
    entities: bool = False,
) -> Iterator[Example]:
    """Stream the labelled examples of ``source`` (see the module docs for what is recognised), with the
    input fields ``inputs`` (the task's); ``labelled=False`` also reads files without a label column, and
    keeps rows whose label is missing or unknown (their examples' label is "").

    ``labels`` (the task's) are the labels a row may have, after ``label_map``: a row with another one is
    skipped and counted, and a source none of whose rows has one is an ``InputError`` that lists the labels
    seen and suggests a map. ``expand=False`` keeps contractions as written (``normalize_text``).
    ``max_rows`` stops reading after that many rows (kept or skipped). ``entities`` (an NER task): labels
    are entity spans (``[[start, end, type], ...]``, ``conll:PATH`` reads them), the text is kept as given.

    Local text files are read in ``encoding``, or in the one ``detect_encoding`` finds; the encoding used
    for each file is recorded in ``stats.encodings``. The source is resolved now (a missing path is an
    error here); files are read while iterating.
    """
    split = _split_name(split)
    stats = stats if stats is not None else DatasetStats()
    if encoding is not None:
        try:
            encoding = codecs.lookup(encoding).name
        except LookupError:
            raise InputError.hint(
                f"{{encoding}}: unknown text encoding {encoding!r} (e.g. utf-8, latin-1, cp1252)",
                encoding="encoding=NAME",
            ) from None
        stats.encoding = encoding
    label_map = {str(k): v for k, v in label_map.items()} if label_map is not None else None
    if max_rows is not None and max_rows < 1:
        raise InputError.hint(f"{{max_rows}}: must be at least 1 (got {max_rows})", max_rows="max_rows=N")
    spec = Columns(
        tuple(inputs), text_column, dict(input_columns or {}), label_column, label_map, labelled,
        tuple(labels), expand, max_rows, entities,
    )  # fmt: skip
    produce = _resolve(str(source), split, spec, stats)

    def stream() -> Iterator[Example]:
        stats.read = stats.kept = stats.bytes_read = 0  # a source may be streamed again (search passes)
        stats.skipped.clear()
        stats.unknown_labels.clear()
        try:
            yield from produce()
        except _Enough:
            log.info("%s: stopped after %d rows (max_rows)", source, stats.read)
        if stats.skipped:
            log.info("%s: kept %d of %d rows; skipped %s", source, stats.kept, stats.read, stats.skipped)
        if not stats.kept and stats.unknown_labels:
            raise unknown_labels_error(str(source), stats, spec)

    return stream()


class _Enough(Exception):
    """Raised inside a reader when ``max_rows`` rows have been read."""


def unknown_labels_error(source: str, stats: DatasetStats, spec: Columns) -> InputError:
    """No row had a label of the task: name the labels seen and suggest a ``label_map``."""
    seen = ", ".join(f"{label!r} ({n})" for label, n in stats.unknown_labels.items())
    mapping = suggest_label_map(list(stats.unknown_labels), spec.labels)
    pairs = ",".join(f"{k}={v}" for k, v in mapping.items()) or "RAW=LABEL,..."
    given = " (after the label map given)" if spec.label_map is not None else ""
    return InputError.hint(
        f"{source}: no row has a label of the task{given} ({', '.join(spec.labels)}); labels seen: {seen}. "
        "Map them with {label_map}",
        label_map=(f"label_map={mapping or {'RAW': 'LABEL'}}", f"--label-map {pairs}"),
    )


def suggest_label_map(seen: Sequence[str], labels: Sequence[str]) -> dict[str, str]:
    """A guess at the map from the labels ``seen`` to the task's ``labels``: same word in another case,
    a prefix ("pos", "NEG"), or numbers in order (0, 1 -> negative, positive on a task that has them)."""
    mapping: dict[str, str] = {}
    for raw in seen:
        word = raw.lower()
        matches = [label for label in labels if label.lower() == word]
        matches = matches or [label for label in labels if len(word) >= 3 and label.lower().startswith(word)]
        if len(matches) == 1:
            mapping[raw] = matches[0]
    numbers = sorted((s for s in seen if s.isdigit() and s not in mapping), key=int)
    if len(numbers) == 2 and {"negative", "positive"} <= set(labels):
        mapping.update(zip(numbers, ("negative", "positive")))
    elif numbers and len(numbers) == len(labels):
        mapping.update(zip(numbers, labels))
    return mapping
