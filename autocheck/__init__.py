"""autocheck: behavioural test suites for NLP classifiers, generated from real datasets (Auto-CheckList)."""

__version__ = "0.1.0"
