"""The shell commands of the README and the documentation pages, extracted and run in a scratch folder
beside ../shared/data.

The documents are read in order: README.md, then the pages of docs/ in mkdocs.yml's nav order, then any
other page of docs/ (``documents``). Every fenced ``bash``/``sh``/``shell``/``console`` block is read in
order; backslash
continuations are joined, ``&&`` chains split, comments dropped; ``export NAME=VALUE`` sets the variable
for the commands after it. Only ``autocheck ...`` commands are run (``python -m autocheck`` of the
checkout, with PYTHONPATH set to it), in one scratch folder for all the documents, so a command can use
what an earlier one wrote (``suites/sst``), and where the checkout's ``data/`` folder is seen as ``data/``
(the README's first run reads ``data/demo/``). ``> FILE`` is honoured.

A command is skipped, with the reason, when (the rules, in order):

1. its line or the line above carries ``# readme-test: skip`` (the README's explicit marker);
2. it is not an ``autocheck`` command (``pip install``, ``python -m pytest``);
3. it holds a placeholder (an upper-case word such as ``SUITE_DIR``);
4. it needs the network: a ``--model``/``--mlm``/``--parser``/``--dataset`` value, or a ``generate``/
   ``seeds`` dataset, that is no existing path, no ``module:callable`` or ``file:``/``http(s)://``
   model, no ``path/to/file.py:function`` whose file exists, and no name autocheck ships (``nli``), i.e. a
   Hugging Face hub id; or ``--executor ray``
   (a cluster);
5. an input it names does not exist: an example file the README only shows (``tweets.csv``), or a suite
   or run folder an earlier, skipped command would have written;
6. in the fast subset (``fast=True``, the default test): it generates with grammar expansion
   (``generate``, ``demo``) or runs a transformer model from a folder, the minutes-long commands.

Commands that are run get ``--max-seeds`` capped (``max_seeds``; added to ``demo`` and ``generate``), and
``checklist`` imports ``--max-per-test 10 * max_seeds`` items, so CI time stays bounded.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```(bash|sh|shell|console)[ \t]*\n(.*?)^```", re.S | re.M)
MARKER = "readme-test: skip"
PLACEHOLDER = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")
NETWORK_OPTIONS = ("--model", "--mlm", "--parser", "--dataset")
OUTPUT_OPTIONS = ("--out", "--html", "--json", "--markdown", "--junit")
SHIPPED_NAMES = {"nli", "qqp", "squad", "sentiment", "sentiment_checklist", "hate_speech", "nltk", "opinion",
                 "vader", "sentiwordnet", "none"}  # fmt: skip


@dataclass
class Command:
    line: str  # as written (continuations joined)
    argv: list[str]  # without the leading "autocheck"
    env: dict[str, str] = field(default_factory=dict)  # exported before it
    stdout: str | None = None  # "> FILE"
    marked: bool = False  # carries the skip marker
    block: int = 0


def extract(readme: str) -> list[Command | str]:
    """The README's commands in order: a ``Command`` for each ``autocheck`` one, the text of any other."""
    out: list[Command | str] = []
    env: dict[str, str] = {}
    for number, match in enumerate(FENCE.finditer(readme)):
        lines = match.group(2).replace("\\\n", " ").splitlines()
        previous = ""
        for raw in lines:
            marked = MARKER in raw or MARKER in previous
            previous = raw
            try:
                tokens = shlex.split(raw, comments=True)
            except ValueError:
                out.append(raw)
                continue
            for part in _split(tokens, "&&"):
                if not part:
                    continue
                if part[0] == "export" and len(part) == 2 and "=" in part[1]:
                    name, value = part[1].split("=", 1)
                    env[name] = value
                    continue
                if part[0] != "autocheck":
                    out.append(" ".join(part))
                    continue
                stdout = None
                if ">" in part:
                    at = part.index(">")
                    part, stdout = part[:at], (part[at + 1] if at + 1 < len(part) else None)
                out.append(Command(" ".join(part), part[1:], dict(env), stdout, marked, number))
    return out


def _split(tokens: list[str], separator: str) -> list[list[str]]:
    parts: list[list[str]] = [[]]
    for token in tokens:
        if token == separator:
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def _value_of(argv: list[str], option: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == option]


def _is_local(value: str, cwd: Path) -> bool:
    return (
        (cwd / value).exists()
        or (cwd / value.rsplit(":", 1)[0]).is_file()  # path/to/model.py:function
        or value in SHIPPED_NAMES
        or re.fullmatch(r"[\w.]+:\w+", value) is not None  # module:callable
        or value.startswith(("file:", "http://", "https://"))
    )


def skip_reason(command: Command, cwd: Path, fast: bool) -> str | None:
    """Why ``command`` is not run in ``cwd`` (the module docs' rules), or None."""
    argv = command.argv
    if command.marked:
        return "marked in the README"
    if any(PLACEHOLDER.match(a) for a in argv):
        return "placeholder"
    networked = [
        v
        for option in NETWORK_OPTIONS
        for v in _value_of(argv, option)
        if not _is_local(v, cwd) and not v.startswith((".", "/")) and not re.search(r"\.\w{2,5}$", v)
    ]
    if networked:
        return f"needs the Hugging Face hub ({networked[0]})"
    if _value_of(argv, "--executor") == ["ray"]:
        return "needs a Ray cluster"
    outputs = {v for option in OUTPUT_OPTIONS for v in _value_of(argv, option)}
    for previous, value in zip(argv, argv[1:]):
        if value.startswith("-") or value in outputs or previous == "--option":
            continue
        looks_like_path = "/" in value or re.search(r"\.(csv|tsv|jsonl|json)$", value)
        if looks_like_path and not _is_local(value, cwd):
            return f"input not there: {value}"
    if fast and (
        argv[0] in ("generate", "demo") or any((cwd / v).is_dir() for v in _value_of(argv, "--model"))
    ):
        return "slow: grammar expansion or a transformer model (the full README test runs it)"
    return None


def cap_seeds(argv: list[str], max_seeds: int) -> list[str]:
    """``--max-seeds`` at most ``max_seeds``; added to ``demo`` and ``generate`` where it is not given."""
    argv = list(argv)
    for i, a in enumerate(argv[:-1]):
        if a == "--max-seeds" and argv[i + 1].isdigit():
            argv[i + 1] = str(min(int(argv[i + 1]), max_seeds))
    if argv and argv[0] in ("demo", "generate") and "--max-seeds" not in argv:
        argv += ["--max-seeds", str(max_seeds)]
    if argv and argv[0] == "checklist" and "--max-per-test" not in argv:  # 86k cases otherwise
        argv += ["--max-per-test", str(10 * max_seeds)]
    return argv


def documents(repo: Path = REPO) -> list[Path]:
    """README.md, the pages of mkdocs.yml's nav in its order, then the other pages of docs/ by name."""
    nav = re.findall(
        r"^\s*- (?:[^\n:]+: )?(\S+\.md)\s*$", (repo / "mkdocs.yml").read_text(encoding="utf-8"), re.M
    )
    pages = [repo / "docs" / page for page in nav]
    return [repo / "README.md", *pages, *sorted(set((repo / "docs").rglob("*.md")) - set(pages))]


def run_all(
    paths: list[Path], workdir: Path, shared: Path, *, fast: bool, max_seeds: int = 2, timeout: int = 600
):
    """Run the commands of the documents ``paths``, in order, in ``workdir`` (whose ``../shared`` is made to
    point at ``shared``'s parent, and whose ``data`` at the checkout's); returns (ran, skipped):
    [(line, returncode, output tail)], [(line, reason)]."""
    workdir.mkdir(parents=True, exist_ok=True)
    for link, target in ((workdir.parent / "shared", shared.parent), (workdir / "data", REPO / "data")):
        if not link.exists():
            link.symlink_to(target, target_is_directory=True)
    ran, skipped = [], []
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in paths)
    for item in extract(text):
        if isinstance(item, str):
            skipped.append((item, "not an autocheck command"))
            continue
        reason = skip_reason(item, workdir, fast)
        if reason:
            skipped.append((item.line, reason))
            continue
        env = {**os.environ, **item.env, "PYTHONPATH": str(REPO)}
        stdout = open(workdir / item.stdout, "w") if item.stdout else subprocess.PIPE  # noqa: SIM115
        try:
            done = subprocess.run(
                [sys.executable, "-m", "autocheck", *cap_seeds(item.argv, max_seeds)],
                cwd=workdir, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout,
            )  # fmt: skip
            ran.append((item.line, done.returncode, (done.stderr or "")[-2000:]))
        except subprocess.TimeoutExpired:
            ran.append((item.line, -1, f"timed out after {timeout} s"))
        finally:
            if item.stdout:
                stdout.close()
    return ran, skipped


if __name__ == "__main__":  # python tests/readme_commands.py [--full]: run them and print what happened
    import tempfile

    full = "--full" in sys.argv
    shared = Path(os.environ.get("AUTOCHECK_SHARED_DATA", REPO.parent / "shared" / "data"))
    with tempfile.TemporaryDirectory() as tmp:
        ran, skipped = run_all(documents(), Path(tmp) / "work", shared, fast=not full)
    for line, code, tail in ran:
        print(f"[{'ok' if code == 0 else f'exit {code}'}] {line}" + ("" if code == 0 else f"\n{tail}"))
    for line, reason in skipped:
        print(f"[skipped: {reason}] {line}")
