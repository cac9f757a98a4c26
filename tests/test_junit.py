"""JUnit XML that CI systems read: valid against the JUnit schema checked in beside this file, with counts
and times on suites and cases, and the same verdict as the exit status for every gate (a property test
over random tallies)."""

from __future__ import annotations

import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autocheck.ci import Gate, judge, write_junit
from autocheck.results import rate

SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("junit.xsd"))


def capability(test_type: str, cases: int, applicable: int, failures: int, errors: int) -> dict:
    tally = {
        "cases": cases,
        "applicable": applicable,
        "failures": failures,
        "failure_rate": rate(failures, applicable),
        "errors": errors,
    }
    empty = {"cases": 0, "applicable": 0, "failures": 0, "failure_rate": None, "errors": 0}
    return {
        "test_type": test_type,
        "failure_rate": tally["failure_rate"],
        "error_rate": rate(errors, applicable + errors),
        "seeds": tally,
        "expansions": empty,
        "perturbations": empty,
        "all": tally,
        "groups": tally,
    }


@st.composite
def tallies(draw) -> dict:
    applicable = draw(st.integers(0, 20))
    failures = draw(st.integers(0, applicable))
    errors = draw(st.integers(0, 5))
    na = draw(st.integers(0, 3))
    return capability(
        draw(st.sampled_from(["MFT", "INV", "DIR"])), applicable + errors + na, applicable, failures, errors
    )


@st.composite
def runs(draw) -> dict:
    inputs = draw(st.integers(1, 60))
    models = {}
    for name in draw(
        st.lists(st.sampled_from(["m1", "http://127.0.0.1:9/predict"]), min_size=1, unique=True)
    ):
        caps = draw(st.dictionaries(st.sampled_from(["LC1", "LC2", "LC10", "T<&>"]), tallies(), max_size=4))
        models[name] = {
            "errors": draw(st.sampled_from([0, 1, inputs])),  # inputs: the model answered nothing
            "first_error": "connection refused",
            "capabilities": caps,
        }
    return {"suite": {"cases": inputs, "inputs": inputs}, "models": models}


rates = st.sampled_from(["0", "0.1", "0.25", "0.5", "1"])
fail_above = st.lists(
    st.one_of(rates, st.tuples(st.sampled_from(["LC1", "LC2", "LC10", "T<&>", "LC99"]), rates).map("=".join)),
    max_size=3,
)


def junit_fails(path: Path) -> bool:
    """The verdict a CI system reads: a failure or an error anywhere; the counts agree with the elements."""
    SCHEMA.validate(str(path))
    root = ET.parse(path).getroot()
    for suite in root:
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(len(c.findall("failure")) for c in cases)
        assert int(suite.get("errors")) == sum(len(c.findall("error")) for c in cases)
        assert int(suite.get("skipped")) == sum(len(c.findall("skipped")) for c in cases)
        # a test case counts once: a reader computes passed = tests - failures - errors - skipped
        assert all(len(c.findall("failure") + c.findall("error") + c.findall("skipped")) <= 1 for c in cases)
    assert int(root.get("errors")) <= int(root.get("tests"))
    return int(root.get("failures")) + int(root.get("errors")) > 0


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(results=runs(), thresholds=fail_above, max_errors=st.one_of(st.none(), rates))
def test_exit_status_and_junit_verdict_agree(results, thresholds, max_errors):
    gate = Gate.from_options(thresholds, max_errors, junit=True)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "junit.xml"
        status, problems = judge(results, gate, path, {name: 1.5 for name in results["models"]})
        assert status == int(junit_fails(path)) == int(bool(problems))
    # the rule itself: errors above the budget and failures above the limit are problems, nothing else
    for name, model in results["models"].items():
        mine = [p for p in problems if p.model == name]
        for cap, c in model["capabilities"].items():
            limit = gate.limit(cap)
            over = c["failure_rate"] is not None and c["failure_rate"] > limit
            assert over == any(p.test == cap and p.kind == "failure" for p in mine)
            too_many = c["error_rate"] is not None and c["error_rate"] > gate.max_errors
            assert too_many == any(p.test == cap and p.kind == "error" for p in mine)
        if model["errors"] >= results["suite"]["inputs"]:
            assert any("no prediction for any of the" in p.message for p in mine)


@given(results=runs())
@settings(max_examples=100, deadline=None)
def test_without_a_gate_only_a_run_that_tested_nothing_fails(results):
    status, problems = judge(results, Gate.from_options(None, None))
    nothing = any(
        m["errors"] >= results["suite"]["inputs"]
        or not sum(
            c["groups" if c["test_type"] != "MFT" else "all"]["applicable"]
            for c in m["capabilities"].values()
        )
        for m in results["models"].values()
    )
    assert status == int(nothing) and all(p.kind == "error" for p in problems)


def test_results_without_a_model_or_without_an_applicable_case_fail_in_every_output(tmp_path):
    from autocheck.ci import markdown_summary

    empty = {"suite": {"cases": 3, "inputs": 3}, "models": {}}
    dir_only = {
        "suite": {"cases": 3, "inputs": 3},
        "models": {
            "labels": {
                "errors": 0,
                "not_applicable": {"DIR": "labels without probabilities"},
                "capabilities": {"D": capability("DIR", 3, 0, 0, 0)},
            }
        },
    }
    for results, line in (
        (empty, "(no model): the results hold no model, so nothing was tested"),
        (dir_only, "labels: none of its 3 cases was applicable, so nothing was tested (DIR: labels without"),
    ):
        for gate in (Gate.from_options(None, None), Gate.from_options(["0.5"], None, junit=True)):
            path = tmp_path / "junit.xml"
            status, problems = judge(results, gate, path)
            assert status == 1 and junit_fails(path), line
            assert any(p.line().startswith(line) for p in problems), [p.line() for p in problems]
            assert markdown_summary(results, gate).startswith("### autocheck: sentiment (3 cases): FAIL")


def test_overall_limit_applies_to_every_capability_and_the_overall_rate(tmp_path):
    """``--fail-above 0.3``: the overall rate is 25 % but one capability's is 50 %; the exit status and
    the JUnit file both fail (they used to disagree)."""
    results = {
        "suite": {"cases": 40, "inputs": 40},
        "models": {
            "m": {
                "errors": 0,
                "capabilities": {
                    "LC1": capability("MFT", 10, 10, 5, 0),
                    "LC2": capability("MFT", 30, 30, 5, 0),
                },
            }
        },
    }
    path = tmp_path / "junit.xml"
    status, problems = judge(results, Gate.from_options(["0.3"], None), path, {"m": 2.0})
    assert status == 1 and junit_fails(path)
    assert [p.line() for p in problems] == [
        "m: LC1 failure rate 50.0% above 30.0% (5 of 10 applicable failed)"
    ]
    root = ET.parse(path).getroot()
    suite = root.find("testsuite")
    assert suite.get("time") == "2.000" and suite.get("errors") == "0"
    times = {c.get("name"): c.get("time") for c in suite.findall("testcase")}
    assert times == {"LC1 (MFT)": "0.500", "LC2 (MFT)": "1.500", "overall": "0.000"}  # shares by case count
    assert "25.0%" in suite.find("testcase[@name='overall']/system-out").text
    assert judge(results, Gate.from_options(["0.5"], None), path)[0] == 0 and not junit_fails(path)


def test_errors_are_junit_error_elements_and_no_applicable_case_is_skipped(tmp_path):
    results = {
        "suite": {"cases": 12, "inputs": 12},
        "models": {
            "m": {
                "errors": 3,
                "capabilities": {
                    "LC1": capability("MFT", 10, 7, 0, 3),
                    "LC2": capability("INV", 2, 0, 0, 0),
                },
            }
        },
    }
    path = tmp_path / "junit.xml"
    problems = write_junit(results, path, Gate.from_options(None, None, junit=True))
    assert junit_fails(path) and [p.kind for p in problems] == ["error", "error"]  # LC1 and overall
    lc1 = ET.parse(path).getroot().find("testsuite/testcase[@name='LC1 (MFT)']")
    assert lc1.find("error").get("message") == (
        "LC1 error rate 30.0% above --max-errors 0.0% (3 of 10 cases without a prediction)"
    )
    lc2 = ET.parse(path).getroot().find("testsuite/testcase[@name='LC2 (INV)']")
    assert lc2.find("skipped") is not None
    write_junit(results, path, Gate.from_options(None, "0.3"))
    assert not junit_fails(path)


def test_the_schema_refuses_what_ci_systems_cannot_read(tmp_path):
    """The checked-in schema is a real fence: a suite without ``errors`` and a ``skipped`` count on
    <testsuites> (the old writers', which Jenkins' junit-10.xsd refuses) are invalid."""
    path = tmp_path / "old.xml"
    case = '<testcase name="LC1" classname="m" time="0"/>'
    path.write_text(
        f'<testsuites name="autocheck"><testsuite name="m" tests="1" failures="0" skipped="0" time="0">'
        f"{case}</testsuite></testsuites>"
    )
    with pytest.raises(xmlschema.XMLSchemaValidationError, match="errors"):
        SCHEMA.validate(str(path))
    path.write_text(
        f'<testsuites name="autocheck" tests="1" failures="0" errors="0" skipped="0" time="0">'
        f'<testsuite name="m" tests="1" failures="0" errors="0" skipped="0" time="0">{case}</testsuite>'
        "</testsuites>"
    )
    with pytest.raises(xmlschema.XMLSchemaValidationError, match="skipped"):
        SCHEMA.validate(str(path))


def test_a_test_case_with_two_problems_counts_once(tmp_path):
    """A model that answered nothing has two overall errors (no prediction at all, the error rate) and an
    error per capability: errors="4" with tests="3" before; now each test case is one error listing its
    problems."""
    results = {
        "suite": {"cases": 4, "inputs": 4},
        "models": {
            "m": {
                "errors": 4,
                "first_error": "connection refused",
                "capabilities": {"LC1": capability("MFT", 2, 0, 0, 2), "LC2": capability("MFT", 2, 0, 0, 2)},
            }
        },
    }
    path = tmp_path / "junit.xml"
    problems = write_junit(results, path, Gate.from_options(None, None, junit=True))
    assert len(problems) == 4 and junit_fails(path)
    suite = ET.parse(path).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("errors"), suite.get("failures")) == ("3", "3", "0")
    overall = suite.find("testcase[@name='overall']/error")
    assert overall.get("message").startswith("no prediction for any of the 4 inputs")
    assert len(overall.text.splitlines()) == 2 and "overall error rate" in overall.text
