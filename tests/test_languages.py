"""Language profiles: a task names its language, an unknown one is an error listing the known ones, and the
English profile holds the pieces the English parts use. A second language end to end: test_plugins.py."""

from __future__ import annotations

import pytest

from autocheck.checklist.editor import Editor
from autocheck.languages import ENGLISH, LANGUAGES, language
from autocheck.languages.en import words
from autocheck.requirements import load_spec
from autocheck.resources import ResourceMissing
from autocheck.store import InputError
from autocheck.tasks import Task

SPEC = {
    "task": "tiny",
    "inputs": ["text"],
    "labels": ["negative", "positive"],
    "capabilities": [
        {
            "id": "T1",
            "capability": "Vocabulary",
            "description": "x",
            "test_type": "MFT",
            "templates": [{"id": "t", "text": "It is {a:thing}.", "label": "positive"}],
            "lexicons": {"thing": ["owl", "cat"]},
        }
    ],
}


def test_a_task_is_english_unless_its_spec_names_a_language():
    task = load_spec("spec.json", data=SPEC).task
    assert task.language == "en" and language(task.language) is ENGLISH
    assert "language" not in task.to_json()  # English headers (and suites' manifests) unchanged
    other = Task.from_spec({**task.to_json(), "language": "eo"})
    assert other.language == "eo" and other.to_json()["language"] == "eo"


def test_an_unknown_language_is_an_error_naming_the_field_and_the_known_ones():
    with pytest.raises(InputError) as e:
        load_spec("spec.json", data={**SPEC, "language": "xx"})
    assert str(e.value).startswith("spec.json: $.language: no language profile named 'xx' (known: en")
    assert "autocheck.languages" in str(e.value)
    with pytest.raises(ResourceMissing, match=r"^Editor: no language profile named 'german' \(known: en"):
        Editor(language="german")


def test_the_english_profile_holds_the_english_pieces():
    assert LANGUAGES.get("en") is ENGLISH
    assert ENGLISH.words.article("owl") == words.article("owl") == "an owl"
    assert "never" in ENGLISH.negations and "ever" in ENGLISH.polarity_items
    assert ENGLISH.tokenize("Don't go.").words == ("Do", "n't", "go", ".")
    assert Editor(language="english").language is Editor(language="en").language is ENGLISH
    assert "city" in Editor().lexicons
