"""The documentation site's generated pages are those the code gives now (docs/gen_reference.py)."""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys

import pytest
from conftest import REPO

spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs" / "gen_reference.py")
gen_reference = importlib.util.module_from_spec(spec)
sys.modules["gen_reference"] = gen_reference
spec.loader.exec_module(gen_reference)


@pytest.mark.parametrize("page", sorted(gen_reference.PAGES), ids=lambda p: p.name)
def test_generated_page_is_current(page):
    render = gen_reference.PAGES[page]
    assert page.read_text(encoding="utf-8") == render(), (
        f"{page.relative_to(REPO)} is stale: run python docs/gen_reference.py"
    )


def test_cli_page_names_every_command_and_option():
    from autocheck.cli import build_parser

    page = gen_reference.cli_page()

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        assert f"## `{path}`" in page
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for flag in action.option_strings:
                assert f"`{flag}" in page or f", {flag}" in page, f"{path} {flag} missing"
        for name, _, sub in gen_reference._subcommands(parser):
            walk(sub, f"{path} {name}")

    walk(build_parser(), "autocheck")
    assert "## `autocheck grammar build`" in page and "`--fills-per-mask FILLS_PER_MASK`" in page


def test_every_command_the_documents_name_exists():
    """`autocheck WORD` in the README, a page or a docstring names a real command (the docs once named an
    `autocheck summary` that never existed)."""
    from readme_commands import documents

    from autocheck.cli import build_parser

    commands = {name for name, _, _ in gen_reference._subcommands(build_parser())}
    texts = [path.read_text(encoding="utf-8") for path in documents()]
    texts += [path.read_text(encoding="utf-8") for path in (REPO / "autocheck").rglob("*.py")]
    texts.append((REPO / "docs" / "tutorial.ipynb").read_text(encoding="utf-8"))
    named = {m for text in texts for m in re.findall(r"`+autocheck ([a-z][a-z_-]*)", text)}
    assert named, "no command found: the pattern is wrong"
    assert named <= commands, f"no such command: {sorted(named - commands)}"


def test_the_doc_tests_read_the_readme_then_every_page_in_nav_order():
    from readme_commands import documents

    paths = documents()
    pages = sorted((REPO / "docs").rglob("*.md"))
    assert paths[0] == REPO / "README.md" and sorted(paths[1:]) == pages  # every page, once
    assert paths[1:3] == [REPO / "docs" / "index.md", REPO / "docs" / "tutorial.md"]  # the nav's order
    assert (
        len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 250
    )  # a README read in minutes
