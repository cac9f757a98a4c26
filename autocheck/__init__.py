"""autocheck: behavioural test suites for NLP classifiers, generated from real datasets (Auto-CheckList)."""

__version__ = "0.1.0"

_API = ("Results", "Suite", "Test")


def __getattr__(name: str):
    """``autocheck.Suite``, ``Test`` and ``Results`` (``autocheck.api``), imported on first use so that
    ``import autocheck`` stays light."""
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'autocheck' has no attribute {name!r}")
