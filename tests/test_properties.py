"""Property-based tests: whatever a user feeds in (any bytes, any text), the result is a value or a clean
``InputError`` naming the file, never another exception."""

from __future__ import annotations

import json
import os
import re
import string
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from autocheck.store import InputError

EXAMPLES = int(os.environ.get("AUTOCHECK_PROPERTY_EXAMPLES", 60))  # more for a deeper search
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
MASKS = ["[MASK]", "<mask>", "[CLS]", "</s>", "[SEP]", "<s>", "{seed}", "{", "}", "\x00", "\u2028", "\ufeff"]

# Text that tends to break things: special tokens, quotes, PTB escapes, brackets, control characters.
nasty_text = st.one_of(
    st.text(max_size=60),
    st.lists(
        st.sampled_from(
            MASKS + ['"', "'", "n't", "-LRB-", "(", ")", " ", "\t", "\n", "\r", ".", "...", "é", "Ã©"]
        )
        | st.text(alphabet=string.ascii_letters, min_size=1, max_size=6),
        max_size=15,
    ).map("".join),
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 99) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def _path(tmp_path_factory, name: str) -> Path:
    return tmp_path_factory.mktemp("prop") / name


# ------------------------------------------------------------------------------------------- spec loader

SPEC = json.loads(
    (Path(__file__).parent.parent / "requirements" / "sentiment.json").read_text(encoding="utf-8")
)
SPEC_KEYS = [
    "search",
    "transform",
    "expected",
    "length",
    "label",
    "labels",
    "format",
    "slots",
    "id",
    "min",
    "max",
]


@SETTINGS
@given(raw=st.binary(max_size=300))
@example(raw=b"\x80\x04\x95")
@example(raw=b"[" * 5000)
@example(raw=b'{"task": "sentiment", "labels": ["a"], "capabilities": [' + b"[" * 3000 + b"]" * 3000 + b"]}")
def test_spec_loader_any_bytes(tmp_path_factory, raw):
    from autocheck.requirements import load_capabilities

    path = _path(tmp_path_factory, "spec.json")
    path.write_bytes(raw)
    try:
        load_capabilities(path)
    except InputError as e:
        assert str(e).startswith(str(path))


@SETTINGS
@given(data=st.data())
def test_spec_loader_mutated_real_spec(tmp_path_factory, data):
    """The shipped spec with a few values replaced by arbitrary JSON at arbitrary places."""
    from autocheck.requirements import load_capabilities

    spec = json.loads(json.dumps(SPEC))
    for _ in range(data.draw(st.integers(1, 4))):
        node = spec
        while isinstance(node, dict | list) and node and data.draw(st.booleans()):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            child = node[data.draw(st.sampled_from(keys))]
            if not isinstance(child, dict | list) or not child:
                break
            node = child
        value = data.draw(json_values)
        if isinstance(node, dict):
            node[data.draw(st.sampled_from(SPEC_KEYS + list(node)))] = value
        elif isinstance(node, list) and node:
            node[data.draw(st.integers(0, len(node) - 1))] = value
    path = _path(tmp_path_factory, "spec.json")
    path.write_text(json.dumps(spec), encoding="utf-8")
    try:
        load_capabilities(path)
    except InputError as e:
        assert str(e).startswith(str(path))


# ------------------------------------------------------------------------------------------- dataset readers


@SETTINGS
@given(
    suffix=st.sampled_from([".csv", ".tsv", ".jsonl", ".txt"]),
    header=st.sampled_from(
        [b"text,label\n", b"sentence\tlabel\n", b"", b'{"text": "a", "label": "b"}\n', b"("]
    ),
    raw=st.binary(max_size=400),
)
@example(suffix=".csv", header=b"text,label\n", raw=b'"a\x00b",1\n')
@example(suffix=".csv", header=b"text,label\n", raw=b'"' + b"x" * 140000)
@example(suffix=".tsv", header=b"sentence\tlabel\n", raw=b"\xff\xfe\x00a\t1\n")
@example(suffix=".txt", header=b"(", raw=b"3 (2 a) (9 b)))\n(x")
def test_dataset_readers_any_bytes(tmp_path_factory, suffix, header, raw):
    from autocheck.sources.datasets import DatasetStats, load_examples

    path = _path(tmp_path_factory, f"data{suffix}")
    path.write_bytes(header + raw)
    stats = DatasetStats()
    try:
        examples = list(load_examples(str(path), stats=stats))
    except InputError as e:
        assert str(e).startswith(str(path)) or "encoding" in str(e)
        return
    assert stats.kept == len(examples) and stats.read == stats.kept + sum(stats.skipped.values())
    assert all(isinstance(e.text, str) and e.text for e in examples)


@SETTINGS
@given(
    rows=st.lists(
        st.tuples(nasty_text, st.sampled_from(["positive", "negative", "neutral", "", "x"])), max_size=8
    )
)
def test_csv_rows_of_any_text_round_trip_or_are_counted(tmp_path_factory, rows):
    import csv

    from autocheck.sources.datasets import DatasetStats, load_examples

    path = _path(tmp_path_factory, "rows.csv")
    with open(path, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
        csv.writer(f).writerows([("text", "label"), *rows])
    stats = DatasetStats()
    try:
        examples = list(load_examples(str(path), stats=stats))
    except InputError as e:
        assert str(e).startswith(str(path))
        return
    assert stats.read == len(examples) + sum(stats.skipped.values())


# ------------------------------------------------------------------------------------------- tree reading


@SETTINGS
@given(
    raw=st.binary(max_size=300) | nasty_text.map(lambda t: ("( (S " + t + ") )").encode("utf-8", "replace"))
)
@example(raw=b"( (S (NP (DT The) (NN film)) (VP (VBZ runs))) )\n")
@example(raw=b"(()")
@example(raw=b"( )")
@example(raw=b"(S (NP a) b c) (")
@example(raw=b"\xff(S (A b))")
def test_treebank_reading_any_bytes(tmp_path_factory, raw):
    from autocheck.expand.grammar import build_grammar

    folder = _path(tmp_path_factory, "ptb")
    folder.mkdir()
    (folder / "wsj_0001.mrg").write_bytes(raw)
    try:
        build_grammar(str(folder))
    except InputError as e:
        assert str(folder) in str(e) or "wsj_0001.mrg" in str(e)


# ------------------------------------------------------------------------------------ template rendering


def _transformable():
    from autocheck.requirements import load_capabilities

    return [c for c in load_capabilities() if c.transform is not None]


@SETTINGS
@given(texts=st.lists(nasty_text, min_size=1, max_size=4), data=st.data())
@example(texts=['He said "no [MASK]" .', "{seed} {filler}", "It is not bad."], data=None)
def test_template_rendering_any_text(texts, data):
    from autocheck.records import Example
    from autocheck.sources.transform import seed_text, transform

    labels = ["positive", "negative", "neutral"]
    pool = [Example(id=f"d:{i}", inputs=t, label=labels[i % 3], source="d") for i, t in enumerate(texts)]
    pool = [e for e in pool if e.text.strip()]
    assume(pool)
    for capability in _transformable():
        for case in transform(capability, pool, pool, 0, max_variants=2):
            assert isinstance(case.text, str)
            assert seed_text(case) is not None  # the seed's text is recoverable from every case


# ------------------------------------------------------------------------------------------- mask insertion


@st.composite
def parse_and_masks(draw):
    from autocheck.records import Parse, insertable

    words = draw(
        st.lists(
            st.sampled_from(["The", "film", "n't", ".", ",", "[MASK]", "<mask>", "é", "'s", '"'])
            | st.text(string.ascii_letters, min_size=1, max_size=5),
            min_size=1,
            max_size=8,
        )
    )
    text, offsets = "", []
    for i, word in enumerate(words):
        if i and draw(st.booleans()):
            text += draw(st.sampled_from([" ", "  ", "\t"]))
        offsets.append((len(text), len(text) + len(word)))
        text += word
    parse = Parse(text=text, tokens=tuple(words), offsets=tuple(offsets), trees=("(S x)",))
    indices = sorted(draw(st.lists(st.integers(0, len(words)), max_size=3)))
    assume(all(insertable(parse, i) for i in indices))
    fills = draw(
        st.lists(
            st.sampled_from(MASKS) | st.text(string.ascii_letters, min_size=1, max_size=6),
            min_size=len(indices),
            max_size=len(indices),
        )
    )
    return parse, tuple((i, "JJ") for i in indices), fills


@SETTINGS
@given(case=parse_and_masks())
def test_mask_insertion_adds_exactly_the_words(case):
    from autocheck.records import MaskedTemplate

    parse, masks, words = case
    template = MaskedTemplate("t", "c", parse, masks, "NP", ("NN",), ("JJ", "NN"), 0.5)
    text, starts = template.render(words)
    assert [text[s : s + len(w)] for s, w in zip(starts, words)] == list(words)
    # the seed text plus exactly the inserted words and one space each: removing them gives it back
    kept, cursor = [], 0
    for start, word in zip(starts, words):
        kept.append(text[cursor:start])
        cursor = start + len(word)
    kept.append(text[cursor:])
    assert len("".join(kept)) == len(parse.text) + len(words)
    assert len(text) == len(parse.text) + sum(len(w) + 1 for w in words)
    with pytest.raises(ValueError):
        template.render([*words, "extra"])


# ------------------------------------------------------------------------------------------- report writer


@SETTINGS
@given(text=nasty_text, word=nasty_text, offset=st.integers(-3, 80))
@example(text="<script>alert(1)</script> ok", word="ok", offset=26)
def test_highlighted_escapes_any_text(text, word, offset):
    from autocheck.report import highlighted

    out = highlighted(text, [{"word": word, "offset": offset}, {"word": None}, {}])
    plain = re.sub(r"</?mark>", "", out)
    assert "<" not in plain and ">" not in plain
    import html

    assert html.unescape(plain) == text


def _page_text(page: str) -> str:
    """The text a browser shows of ``page`` (character references decoded, markup left out)."""
    from html.parser import HTMLParser

    parts: list[str] = []
    parser = HTMLParser(convert_charrefs=True)
    parser.handle_data = parts.append
    parser.feed(page)
    parser.close()
    return "".join(parts)


@settings(
    max_examples=max(5, EXAMPLES // 4),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(texts=st.lists(nasty_text.filter(lambda t: t.strip()), min_size=1, max_size=5))
@example(texts=["<script>alert('x')</script>", "a & b </td>", "[MASK] <mask> </s>"])
def test_html_report_of_any_texts(tmp_path_factory, texts):
    """A suite of arbitrary texts (via CheckList's JSON, the most stable way in), run and reported: the page
    is written and shows every text escaped."""
    import html

    from autocheck.models import CallableModel
    from autocheck.report import write_html
    from autocheck.run import run_suite
    from autocheck.sources.checklist import convert_checklist

    root = tmp_path_factory.mktemp("report")
    tests = [{"name": "simple negations: not negative", "type": "MFT", "data": texts, "labels": None}]
    (root / "cl.json").write_text(json.dumps(tests), encoding="utf-8")
    try:
        convert_checklist(root / "cl.json", root / "suite")
    except InputError:
        return

    def predict(batch):
        return [[0.9, 0.1] for _ in batch]

    predict.labels = ["negative", "positive"]  # declared: the cache may answer every text
    model = CallableModel("toy", predict)
    run_suite(root / "suite", [model], root / "run")
    page = write_html(root / "run", root / "report.html", plots=False).read_bytes().decode("utf-8")
    assert page.count("<script") == 1  # the page's own filter script: no text became markup
    shown = _page_text(page)
    for text in texts:  # every case fails (the model says negative), so each is shown, escaped
        assert html.escape(text, quote=True) in page
        assert text in shown  # read back as text, not as markup


# ------------------------------------------------------------------------------------------ command line

# Each command gets small real inputs (a dataset, a suite, a Python "model", its results, a treebank), so
# an option value goes as far as the work it steers; ``generate``, ``checklist`` and ``retrain`` point at
# missing inputs instead (they would load models). Whatever the values, the answer is exit 0 or 2 with one
# error line, never a traceback.
LEXICON = Path(__file__).parent / "fixtures" / "lexicon" / "sentiwordnet_snippet.txt"
KEYWORD_MODEL = """
labels = ["negative", "positive"]

def predict(texts):
    return [[0.9, 0.1] if "bad" in t else [0.2, 0.8] for t in texts]
"""


@pytest.fixture(scope="module")
def cli_base(tmp_path_factory) -> dict[str, list[str]]:
    from autocheck.models import load_model
    from autocheck.records import TestCase
    from autocheck.run import run_suite
    from autocheck.store import JsonlWriter

    root = tmp_path_factory.mktemp("cli-inputs")
    dataset = root / "reviews.csv"
    dataset.write_text("text,label\nThis is a bad movie.,negative\nThis is a good film.,positive\n")
    suite = root / "suite"
    seed = TestCase(
        "s0", "LC4", "seed", "This is not a bad film.", ("neutral", "positive"), "MFT", "negative"
    )
    expansion = TestCase(
        "s0-x", "LC4", "expansion", "This is not a really bad film.", seed.expected, "MFT", "negative", "s0"
    )
    with JsonlWriter(suite / "cases.jsonl") as writer:
        writer.write_all([seed.to_json(), expansion.to_json()])
    (suite / "manifest.json").write_text('{"kind": "suite"}')
    (root / "keyword_model.py").write_text(KEYWORD_MODEL)
    model = f"{root / 'keyword_model.py'}:predict"
    results = root / "results"
    results.mkdir()
    run_suite(suite, [load_model(model)], results)
    treebank = root / "ptb"
    treebank.mkdir()
    (treebank / "wsj_0001.mrg").write_text("( (S (NP-SBJ (DT The) (NN film)) (VP (VBZ runs)) (. .)) )\n")
    return {
        "seeds": ["--dataset", str(dataset), "--lexicon", str(LEXICON), "--out", "out"],
        "generate": ["--dataset", "missing.csv", "--out", "out"],
        "grammar build": ["--treebank", str(treebank), "--out", "grammar.json"],
        "run": [str(suite), "--model", model, "--out", "out"],
        "report": [str(results), "--html", "report.html"],
        "compare": [str(results), str(results)],
        "checklist": ["missing.json", "--out", "out"],
        "export": [str(suite), "--out", "out"],
        "retrain": ["--model", "missing-model", "--data", "missing-data", "--out", "out"],
        "metrics": [str(suite)],
        "perturb": [str(dataset), "--perturbation", "typos", "--out", "out"],
    }


def _value_options(command: str) -> list[str]:
    import argparse

    from autocheck.cli import build_parser

    parser = build_parser()
    for name in command.split():
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return sorted(
        a.option_strings[-1]
        for a in parser._actions
        if a.option_strings and a.nargs != 0 and a.dest != "help"
    )


CLI_COMMANDS = ("seeds", "generate", "grammar build", "run", "report", "compare", "checklist", "export")
CLI_COMMANDS += ("retrain", "metrics", "perturb")
CLI_OPTIONS = [(command, flag) for command in CLI_COMMANDS for flag in _value_options(command)]
option_values = st.one_of(
    st.integers(-(10**12), 10**12).map(str),
    st.floats().map(str),
    st.sampled_from(["0", "-1", "nan", "inf", "-inf", "1e309", "", " ", "all", "off", "8:1:1", "0:0:0"]),
    st.text(max_size=12),
)


@settings(
    max_examples=max(EXAMPLES, 150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(picks=st.lists(st.tuples(st.sampled_from(CLI_OPTIONS), option_values), min_size=1, max_size=3))
@example(picks=[(("seeds", "--max-seeds"), "-1")])
@example(picks=[(("generate", "--chunk-size"), "0")])
@example(picks=[(("generate", "--fills-per-mask"), "0")])
@example(picks=[(("generate", "--batch-size"), "0")])
@example(picks=[(("run", "--batch-size"), "0")])
@example(picks=[(("generate", "--beam-size"), "0")])
@example(picks=[(("run", "--junit"), "a\x00b")])
@example(picks=[(("export", "--split"), "nan:1:1")])
def test_every_option_value_is_checked_before_any_work(
    tmp_path_factory, monkeypatch, capsys, cli_base, picks
):
    from autocheck.cli import main

    command = picks[0][0][0]
    argv = ["--offline", *command.split(), *cli_base[command]]
    argv += [
        f"{flag}={value}" for (cmd, flag), value in picks if cmd == command
    ]  # "=": a value may start "-"
    monkeypatch.chdir(tmp_path_factory.mktemp("cli"))
    capsys.readouterr()
    code = main(argv)  # argparse errors too: main returns their status
    err = capsys.readouterr().err
    assert "Traceback" not in err
    gated = any(flag in " ".join(argv) for flag in ("--fail-above", "--max-errors", "--junit"))
    failing = gated and " above " in err  # run's gate: exit 1 by design when a rate is above its limit
    assert code in (0, 2) or (code == 1 and failing), (argv, code, err)
    if code == 2:
        errors = [line for line in err.splitlines() if "error:" in line]
        assert len(errors) == 1 and errors[0].startswith("autocheck"), (argv, err)
